#!/bin/sh
# Spawned processes receive into the buffers they registered, in every
# background mode (DUCTILE_REDIST_CONSTANT=nb, wd, thread) and every method
# (col, p2p, rma-lock, rma-lockall, rma-fence): a FlexMPI-style Jacobi
# (tests/malleable/flexbg.c) whose matrix and right-hand side are
# EMPI_CONSTANT, whose spawned processes allocate and register their own
# buffers (EMPI_malloc or malloc) and iterate on them right after
# EMPI_Get_shared, without EMPI_Get_addr, gives the bit-identical checksum
# of a static run over 2->4->3->1 (docs/malleability.md, "Buffers").  A
# registered buffer too small for its block (EMPI_malloc'ed, or declared with
# EMPI_Set_buffer_rows) is refused before anything moves: the resize fails
# with the message and the job goes on at its old size.  While a resize is
# pending, EMPI_free of a constant item its transfer reads waits for it (the
# spawned processes receive the item's rows intact; ASan builds see no use
# after free), and a deregistration and a registration are refused.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/flexbg"
dim=200 its=200
# 2 ms per iteration: the first resize's background transfer must complete
# within the run on a loaded 2-core machine (Wait Drains overlapped up to 130
# iterations here without it)
FLEXBG_SLEEP_MS=2; export FLEXBG_SLEEP_MS
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "reference: $(cat "$tmp/ref.out")"
# brun NAME NP BUFFERS EXPECT VAR=value...: EXPECT is "grow" (the first resize,
# an expansion, must commit in the background; later ones may be cancelled at
# MPI_Finalize under load, never fail otherwise), "refused" (exactly one
# failed resize, whose reason names the short buffer; the size stays NP) or
# "cancelled" (exactly one resize, cancelled at MPI_Finalize; the size stays NP)
brun() {
  name=$1 np=$2 bufs=$3 expect=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 240 $MPIEXEC -n "$np" "$prog" $dim $its "$bufs" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  final=$(sed -n 's/.* on \([0-9]*\) processes.*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q FAIL "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  # FLEXBG_REGISTRY=1: the registry while the first resize was pending (docs/malleability.md)
  case " $* " in *" FLEXBG_REGISTRY=1 "*)
    if ! grep -q "registry: scratch freed while a resize was pending; 'b' still registered; registering 'late' refused" "$tmp/out" ||
       ! grep -q "EMPI_Deregister_shared('b'): refused while a resize is pending" "$tmp/err"; then
      echo "FAIL: $name: the registry while a resize was pending"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
    fi
    echo "  $(grep registry: "$tmp/out")" ;;
  esac
  if ! $PYTHON - "$rep" "$name" "$expect" "$final" "$np" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name, expect, final, np = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rc = r["reconfigurations"]
if expect == "cancelled":
    if len(rc) != 1 or rc[0]["status"] != "failed" or "program ended" not in rc[0]["reason"] or final != np:
        sys.exit("FAIL: %s: expected one resize cancelled at MPI_Finalize, size %d: %s, size %d" % (name, np, rc, final))
    print("  %d->%d cancelled: %s" % (rc[0]["from"], rc[0]["to"], rc[0]["reason"]))
    sys.exit(0)
if expect == "refused":
    if len(rc) != 1 or rc[0]["status"] != "failed" or "the buffer registered for" not in rc[0]["reason"] or final != np:
        sys.exit("FAIL: %s: expected one failed resize naming the short buffer, size %d: %s, size %d" % (name, np, rc, final))
    print("  %d->%d failed: %s" % (rc[0]["from"], rc[0]["to"], rc[0]["reason"]))
    sys.exit(0)
ok = [x for x in rc if x["status"] == "ok"]
bad = [x for x in rc if x["status"] != "ok" and "program ended" not in x["reason"]]
if bad or not rc or rc[0]["status"] != "ok" or rc[0]["to"] <= rc[0]["from"]:
    sys.exit("FAIL: %s: the first resize must be a committed expansion, and none may fail: %s" % (name, rc))
if final != ok[-1]["to"]:
    sys.exit("FAIL: %s: final size %d, the last committed resize went to %d" % (name, final, ok[-1]["to"]))
if not all("+" in x["redistribution"] for x in ok):
    sys.exit("FAIL: %s: resizes without a background transfer: %s" % (name, ok))
print("  " + "; ".join("%d->%d %s N_it=%s" % (x["from"], x["to"], x["redistribution"], x["overlapped_iterations"]) for x in ok))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
sched="DUCTILE_SCHEDULE=5:+2,40:-1,80:-2"
# mode:method pairs: every mode and every method in make check; all of them
# (nb does not apply to rma-lock/rma-lockall: Wait Drains instead) with
# BGBUFFERS_ALL=1 (tests/long/bgbuffers_all.sh, make check-sweep)
pairs="nb:col wd:rma-lock wd:rma-fence thread:rma-lockall thread:p2p"
[ "${BGBUFFERS_ALL:-0}" = 1 ] && pairs="nb:col nb:p2p nb:rma-fence wd:col wd:p2p wd:rma-lock wd:rma-lockall wd:rma-fence
  thread:col thread:p2p thread:rma-lock thread:rma-lockall thread:rma-fence"
bufs=emalloc
for pair in $pairs; do
  mode=${pair%%:*} m=${pair#*:}
  # the program's own memory (malloc) and EMPI_malloc in turn; with malloc, rows declared but with p2p
  rows=; [ $bufs = malloc ] && [ $m != p2p ] && rows=FLEXBG_ROWS=1
  # the registry while the resize is pending (a constant item freed, a deregistration and a
  # registration refused): with the collective, one-sided and Threading transfers
  reg=; case $pair in nb:col|wd:rma-lock|thread:rma-lockall) reg=FLEXBG_REGISTRY=1 ;; esac
  brun "$mode $m ($bufs${rows:+, rows declared}${reg:+, registry}) 2->4->3->1" 2 $bufs grow DUCTILE_REDIST_CONSTANT=$mode DUCTILE_REDIST=$m $rows $reg "$sched"
  [ $bufs = emalloc ] && bufs=malloc || bufs=emalloc
done
# ductile_request_resize: rank 0's request is queued and fires at iteration 10
# (a Baseline expansion), rank 1's is refused (it would never have been seen,
# or fired later)
brun "ductile_request_resize on ranks 0 and 1, nb baseline (malloc) 2->3" 2 malloc grow DUCTILE_REDIST_CONSTANT=nb DUCTILE_RESIZE_METHOD=baseline FLEXBG_REQUEST=1
if [ $fail = 0 ] && ! { grep -q "request: rank 0: queued" "$tmp/out" &&
    grep -q "request: rank 1: refused: resize refused: requests are taken by the world's rank 0, and this process is rank 1" "$tmp/out" &&
    $PYTHON -c "import json,sys; r=json.load(open(sys.argv[1]))['reconfigurations']; sys.exit(not (len(r)==1 and r[0]['iteration']==10 and r[0]['to']==3))" "$tmp/rep.json"; }; then
  echo "FAIL: ductile_request_resize: expected rank 0 queued, rank 1 refused, one resize 2->3 at iteration 10"; cat "$tmp/out"; fail=1
fi
# decided at the last control point: still pending when the program frees its
# EMPI_malloc'ed items (EMPI_free waits for the transfer) and calls MPI_Finalize (cancelled)
brun "nb col, EMPI_free while pending, cancelled at MPI_Finalize" 2 emalloc cancelled DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=$((its - 1)):+2
# (col and the thread only: a cancelled one-sided background expansion hangs at the job's end, issue 22, item 5)
brun "thread col, EMPI_free while pending, cancelled at MPI_Finalize" 2 emalloc cancelled DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE=$((its - 1)):+1
# too small: refused before anything moves, in blocking and background modes
brun "short EMPI_malloc'ed buffer, nb 2->4" 2 emalloc refused FLEXBG_SMALL=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=5:+2
brun "short declared buffer, blocking baseline 2->3" 2 malloc refused FLEXBG_SMALL=1 FLEXBG_ROWS=1 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=5:+1
if [ "${BGBUFFERS_ALL:-0}" = 1 ]; then
  brun "short declared buffer, wd rma-lockall 2->3" 2 malloc refused FLEXBG_SMALL=1 FLEXBG_ROWS=1 DUCTILE_REDIST_CONSTANT=wd DUCTILE_REDIST=rma-lockall DUCTILE_SCHEDULE=5:+1
  brun "short EMPI_malloc'ed buffer, blocking baseline 2->3" 2 emalloc refused FLEXBG_SMALL=1 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=5:+1
fi
exit $fail

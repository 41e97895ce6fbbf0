#!/bin/sh
# Background transfers of constant data keep the guarantee: whenever
# EMPI_Monitor_end returns, every registered item matches the rank and size it
# reports.  A Jacobi whose matrix and right-hand side are EMPI_CONSTANT and
# used in every iteration (tests/malleable/cjacobi.c) gives the bit-identical
# checksum of a static run under nb, wd and thread with every method, over
# the pairs 2->4, 4->3, 3->1, 1->4, 4->2, 2->3 (one run each, merge), and
# 3->5, 5->2 with the baseline method.  Every block is also checked element by
# element after every control point.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
# 400 iterations: every scheduled resize (the last at 60) must switch before
# the end, and a background transfer may take ~100 iterations on a loaded
# 2-core machine (MPICH, Threading); a resize still pending at MPI_Finalize
# is cancelled, and with MPICH that cancellation ends the job (docs/malleability.md)
dim=300 its=400
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "reference: $(cat "$tmp/ref.out")"
# one run: NAME NP FINAL_SIZE NOK VAR=value...
crun() {
  name=$1 np=$2 size=$3 nok=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 240 $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "processes, wrong elements 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  # under load a transfer may overlap many iterations: the last resizes may be
  # cancelled at MPI_Finalize (the world then keeps its size), never anything else
  final=$(sed -n 's/.* on \([0-9]*\) processes.*/\1/p' "$tmp/out")
  if ! $PYTHON - "$rep" "$nok" "$name" "$final" "$np" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rc = r["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
bad = [x for x in rc if x["status"] != "ok" and "program ended" not in x["reason"]]
if bad or len(ok) < min(3, int(sys.argv[2])) or len(rc) > int(sys.argv[2]):
    sys.exit("FAIL: %s: %d ok resizes, expected %s: %s" % (sys.argv[3], len(ok), sys.argv[2], rc))
want = ok[-1]["to"] if ok else int(sys.argv[5])
if int(sys.argv[4]) != want:
    sys.exit("FAIL: %s: final size %s, the last resize went to %d" % (sys.argv[3], sys.argv[4], want))
bg = [x for x in ok if "+" in x["redistribution"]]
if len(bg) != len(ok) and not all("MPI_THREAD_MULTIPLE not provided" in x["reason"] for x in ok):
    sys.exit("FAIL: %s: resizes without a background transfer: %s" % (sys.argv[3], ok))
print("  " + "; ".join("%d->%d %s N_it=%s" % (x["from"], x["to"], x["redistribution"], x["overlapped_iterations"]) for x in ok))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
sched="DUCTILE_SCHEDULE=5:+2,15:-1,25:-2,35:+3,48:-2,60:+1"
for mode in nb wd thread; do
  for m in col p2p rma-lock rma-lockall; do
    [ $mode = nb ] && case $m in rma-*) continue ;; esac  # nb does not apply to one-sided methods (wd instead)
    crun "$mode $m" 2 3 6 DUCTILE_REDIST_CONSTANT=$mode DUCTILE_REDIST=$m "$sched"
  done
done
crun "nb baseline 3->5->2" 3 2 2 DUCTILE_REDIST_CONSTANT=nb DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="5:+2,40:-3"
# Resizes are transactions: a failure injected at a step (DUCTILE_TEST_FAIL,
# for tests only) leaves every process at the old size with its data; the job
# goes on (same checksum) and the record names the cause.
frun() { # NAME NP VAR=value...
  name=$1 np=$2; shift 2
  rep="$tmp/rep.json"; rm -f "$rep"
  # a failed transfer's new buffers are abandoned on purpose (the MPI may still
  # write into them: docs/malleability.md), so LeakSanitizer is off here
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" DUCTILE_REPORT="$rep" "$@" timeout -k 10 240 $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on $np processes, wrong elements 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rc = r["reconfigurations"]
if len(rc) != 1 or rc[0]["status"] != "failed" or "injected" not in rc[0]["reason"]:
    sys.exit("FAIL: %s: expected one failed resize naming the injected cause: %s" % (sys.argv[2], rc))
print("  %d->%d failed: %s" % (rc[0]["from"], rc[0]["to"], rc[0]["reason"]))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
frun "spawn refused, 2->4" 2 DUCTILE_TEST_FAIL=spawn DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=5:+2
for mode in nb wd; do
  frun "background transfer error, $mode 2->4" 2 DUCTILE_TEST_FAIL=bgtransfer DUCTILE_REDIST_CONSTANT=$mode DUCTILE_SCHEDULE=5:+2
  frun "background transfer error, $mode 4->2" 4 DUCTILE_TEST_FAIL=bgtransfer DUCTILE_REDIST_CONSTANT=$mode DUCTILE_SCHEDULE=5:-2
done
exit $fail

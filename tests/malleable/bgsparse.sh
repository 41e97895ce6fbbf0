#!/bin/sh
# Constant sparse matrices in the background (issue 26, item 4): a CG whose
# CSR matrix is registered constant (tests/malleable/cg.c "const":
# EMPI_Set_flags(EMPI_CONSTANT)) gives the x of a static run bit for bit
# when resized 2->4->3 under DUCTILE_REDIST_CONSTANT=nb (EMPI_Register_csr by
# rows), wd (by non-zeros) and thread (EMPI_Register_sparse, FlexMPI's int
# indices), shrunk 4->2 (nb, p2p) and expanded 2->3 by Baseline (wd with
# rma-lock: the matrix's exchanges are MPI_Ialltoallv's of their own then);
# the report shows every committed resize moved its constant data in the
# background ("+nb", "+wd", "+thread"; an MPI without
# MPI_THREAD_MULTIPLE would move the thread run blocking, as its record says) and
# that the sources overlapped at least one iteration.  After every control
# point that kept the size (the resize still pending, or rolled back) cg.c
# checks that the matrix is the one it had: the same arrays, range and
# non-zeros.  A background transfer that fails (DUCTILE_TEST_FAIL=bgtransfer;
# 2->4 nb, 4->2 wd) rolls back: the matrix stays as it was (the same checks),
# the run gives the static result at its old size, the record names the cause;
# so does one that MPI_Finalize cancels (thread 2->4 decided at the last
# control point).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cg"
# 200 iterations of 2 ms at least: a Wait Drains transfer completes at the
# control point after its MPI_Ibarrier did, which needs the spawned processes
# (asleep between tests) to run: 0.15-0.8 s on the loaded 2-core machine, 100-250
# iterations of this loop without a nap (cg.c restarts every 16 iterations: x
# depends on the matrix to the end)
n=600 its=200 us=2000
t=$((90 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" $n $its rows const > "$tmp/ref" 2>&1 || { echo "FAIL: static run"; cat "$tmp/ref"; exit 1; }
ref=$(grep -o "x hash [0-9a-f]* residual [^ ]*" "$tmp/ref" | cut -d" " -f3-5)
[ -n "$ref" ] || { echo "FAIL: static run: no hash"; cat "$tmp/ref"; exit 1; }
echo "static on 2: $(grep -o 'x hash.*' "$tmp/ref")"
# one run: NAME NP MODE NOK FAILED VAR=value...  (NOK resizes expected to commit; FAILED 1: one injected
# failure, 2: one resize cancelled by MPI_Finalize)
crun() {
  name=$1 np=$2 mode=$3 nok=$4 nfail=$5; shift 5
  rep="$tmp/rep.json"; rm -f "$rep"
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$((nfail == 0))" DUCTILE_REPORT="$rep" "$@" \
    timeout -k 10 $t $MPIEXEC -n "$np" "$prog" $n $its "$mode" const $us > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(grep -o "x hash [0-9a-f]* residual [^ ]*" "$tmp/out" | cut -d" " -f3-5)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, got '$got' (expected '$ref')"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  final=$(sed -n 's/.* on \([0-9]*\) processes.*/\1/p' "$tmp/out")
  if ! $PYTHON - "$rep" "$nok" "$nfail" "$name" "$final" "$np" <<'PY'
import json, sys
rep, nok, nfail, name, final, np = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
failed = [x for x in rc if x["status"] != "ok"]
if nfail:
    cause = "injected" if nfail == 1 else "program ended"
    if len(rc) != 1 or not failed or cause not in failed[0]["reason"] or final != np:
        sys.exit("FAIL: %s: expected one failed resize (%s), at %d processes: %s" % (name, cause, np, rc))
    print("  %d->%d failed: %s" % (failed[0]["from"], failed[0]["to"], failed[0]["reason"]))
    sys.exit(0)
# under heavy load the last resize may still be pending at the end (cancelled at MPI_Finalize), never anything else
late = [x for x in failed if "program ended" in x["reason"]]
if len(failed) != len(late) or len(ok) < 1 or len(ok) + len(late) != nok or len(late) > 1:
    sys.exit("FAIL: %s: %d ok resizes, expected %d: %s" % (name, len(ok), nok, rc))
if final != ok[-1]["to"]:
    sys.exit("FAIL: %s: final size %d, the last resize went to %d" % (name, final, ok[-1]["to"]))
bg = [x for x in ok if "+" in x["redistribution"]]
if len(bg) != len(ok) and not all("MPI_THREAD_MULTIPLE not provided" in x["reason"] for x in ok):
    sys.exit("FAIL: %s: resizes without a background transfer: %s" % (name, ok))
if bg and not any(x["overlapped_iterations"] > 0 for x in bg):
    sys.exit("FAIL: %s: no resize overlapped an iteration: %s" % (name, bg))
print("  " + "; ".join("%d->%d %s N_it=%s" % (x["from"], x["to"], x["redistribution"], x["overlapped_iterations"]) for x in ok)
      + ("; the last cancelled at the end" if late else ""))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
crun "nb rows 2->4->3" 2 rows 2 0 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE="3:+2,60:-1"
crun "wd nnz 2->4->3" 2 nnz 2 0 DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE="3:+2,60:-1"
crun "thread flex 2->4->3" 2 flex 2 0 DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE="3:+2,60:-1"
crun "nb flex 4->2 p2p" 4 flex 1 0 DUCTILE_REDIST_CONSTANT=nb DUCTILE_REDIST=p2p DUCTILE_SCHEDULE="3:-2"
crun "wd rma-lock rows 2->3 baseline" 2 rows 1 0 DUCTILE_REDIST_CONSTANT=wd DUCTILE_REDIST=rma-lock \
  DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="3:+1"
crun "nb rows 2->4 rolled back" 2 rows 0 1 DUCTILE_TEST_FAIL=bgtransfer DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=3:+2
crun "wd flex 4->2 rolled back" 4 flex 0 1 DUCTILE_TEST_FAIL=bgtransfer DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=3:-2
# decided at the last control point: still pending at MPI_Finalize, which cancels it (the spawned processes
# leave, the matrix and the world stay)
crun "thread nnz 2->4 cancelled at the end" 2 nnz 0 2 DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE="$((its - 1)):+2"
exit $fail

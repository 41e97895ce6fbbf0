#!/bin/sh
# Constant N-D blocks, patch sets and custom data in the background (issue
# 26, item 4): a periodic diffusion stencil whose coefficient field is an N-D
# block registered constant (tests/malleable/bgdata.c:
# EMPI_Set_flags(EMPI_CONSTANT)), the field itself a variable block on the
# same grid, with a constant patch set and constant custom data (records in
# an array the program's callbacks replace) beside them, gives the hash of a
# static run (the global field, coefficients, patch set and records, bit for
# bit) and of the blocking move
# (DUCTILE_REDIST_CONSTANT=blocking) when resized 3->5->2 under nb, wd and
# thread, with Ductile's arrays and with the program's storage
# (EMPI_Register_block_storage, padded rows whose sentinel must never
# change), by Merge and by Baseline; the report shows every committed resize
# moved its constant data in the background ("+nb", "+wd", "+thread"; an MPI
# without MPI_THREAD_MULTIPLE would move the thread run blocking, as its
# record says) and that the sources overlapped at least one iteration.  At
# every control point bgdata.c checks every cell of the coefficient field,
# halos included, every element of its patches (and their balanced counts)
# and its records, and that a control point that kept the size (the resize pending,
# or rolled back) left the blocks and the patches the arrays they were
# (EMPI_Repartition is refused while the transfer is pending).  A
# background transfer that fails (DUCTILE_TEST_FAIL=bgtransfer: 3->5 nb,
# 5->2 wd with the program's storage) rolls back: the blocks stay as they
# were (the same checks; the program's arrays: exactly two live again), the
# run gives the static result at its old size, the record names the cause;
# so does one that MPI_Finalize cancels (thread 3->5 decided at the last
# control point), and one whose custom unpack fails on rank 0 at the switch
# (3->5 nb: the records come back from the snapshot).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/bgdata"
# 120 iterations of 2 ms at least (a Wait Drains transfer completes at the control point after its
# MPI_Ibarrier did, which needs the spawned processes, asleep between tests, to run)
n=40 its=120 us=2000
t=$((90 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 3 "$prog" $n $its > "$tmp/ref" 2>&1 || { echo "FAIL: static run"; cat "$tmp/ref"; exit 1; }
ref=$(grep -o "^hash [0-9a-f]*" "$tmp/ref" | cut -d" " -f2)
[ -n "$ref" ] && ! grep -q "FAIL\|BAD" "$tmp/ref" || { echo "FAIL: static run"; cat "$tmp/ref"; exit 1; }
echo "static on 3: $(grep '^hash' "$tmp/ref")"
# one run: NAME NP NOK FAILED VAR=value...  (NOK resizes expected to commit; FAILED 1: one injected
# failure, 2: one resize cancelled by MPI_Finalize, 3: an unpack callback that failed at the switch,
# 4: refused, the constant flag set on some processes only, 5: refused, an item more on one process;
# BGCHECK=0: a blocking run, no background expected)
crun() {
  name=$1 np=$2 nok=$3 nfail=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$((nfail == 0))" DUCTILE_REPORT="$rep" "$@" \
    timeout -k 10 $t $MPIEXEC -n "$np" "$prog" $n $its $us > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(grep -o "^hash [0-9a-f]*" "$tmp/out" | cut -d" " -f2)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, hash '$got' (expected '$ref')"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  final=$(sed -n 's/.* on \([0-9]*\) processes.*/\1/p' "$tmp/out")
  if ! $PYTHON - "$rep" "$nok" "$nfail" "$name" "$final" "$np" "${BGCHECK:-1}" <<'PY'
import json, sys
rep, nok, nfail, name, final, np, bgcheck = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], \
    int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
failed = [x for x in rc if x["status"] != "ok"]
if nfail:
    cause = {1: "injected", 2: "program ended", 3: "unpack callback failed",
             4: "item 3 ('r') is not the same on every process",
             5: "registered different numbers of items (from 4 to 5)"}[nfail]
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
if not bgcheck:
    if bg:
        sys.exit("FAIL: %s: a blocking run moved data in the background: %s" % (name, bg))
elif len(bg) != len(ok) and not all("MPI_THREAD_MULTIPLE not provided" in x["reason"] for x in ok):
    sys.exit("FAIL: %s: resizes without a background transfer: %s" % (name, ok))
if bg and not any(x["overlapped_iterations"] > 0 for x in bg):
    sys.exit("FAIL: %s: no resize overlapped an iteration: %s" % (name, bg))
print("  " + "; ".join("%d->%d %s N_it=%s" % (x["from"], x["to"], x["redistribution"], x["overlapped_iterations"]) for x in ok)
      + ("; the last cancelled at the end" if late else ""))
PY
  then fail=1; return 1; fi
  echo "ok: $name ($(grep -o 'pending at [0-9]* control points' "$tmp/out"))"
}
S="DUCTILE_SCHEDULE=3:+2,50:-3"
BGCHECK=0 crun "blocking 3->5->2" 3 2 0 DUCTILE_REDIST_CONSTANT=blocking $S
crun "wd 3->5->2 program storage" 3 2 0 BGDATA_STORAGE=1 DUCTILE_REDIST_CONSTANT=wd $S
crun "thread 3->5->2" 3 2 0 DUCTILE_REDIST_CONSTANT=thread $S
crun "nb 3->5->2 p2p program storage" 3 2 0 BGDATA_STORAGE=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_REDIST=p2p $S
crun "wd rma-lock 3->4 baseline" 3 1 0 DUCTILE_REDIST_CONSTANT=wd DUCTILE_REDIST=rma-lock \
  DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="3:+1"
crun "nb 3->5 rolled back" 3 0 1 DUCTILE_TEST_FAIL=bgtransfer DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=3:+2
crun "wd 5->2 rolled back program storage" 5 0 1 BGDATA_STORAGE=1 DUCTILE_TEST_FAIL=bgtransfer \
  DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=3:-3
# rank 0's unpack of the custom records fails at the switch (the last old rank): rolled back everywhere,
# the records restored from the snapshot, the blocks and patches never adopted
crun "nb 3->5 unpack fails at the switch" 3 0 3 BGDATA_UNPACK_FAIL=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=3:+2
# rank 1 did not mark the records constant: refused on every process, naming them (it hung before)
crun "nb 3->5 a flag on some ranks only" 3 0 4 BGDATA_PARTIAL=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=3:+2
crun "nb 3->5 an item more on one rank" 3 0 5 BGDATA_EXTRA=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=3:+2
# decided at the last control point: still pending at MPI_Finalize, which cancels it
crun "thread 3->5 cancelled at the end" 3 0 2 DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE="$((its - 1)):+2"
exit $fail

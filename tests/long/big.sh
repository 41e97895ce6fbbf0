#!/bin/sh
# A block over 2 GiB moved by every transfer method (check-long; issue 10,
# "any size"): a job of 1 process holding 5 GiB grows to 2, so 2.5 GiB move
# from one process to the other in one piece of the plan (over INT_MAX
# bytes); the program checks every row of the new blocks (a hash of the
# global row index).  Blocking col, p2p, rma-lock, rma-lockall, rma-fence;
# persistent col, p2p, rma-fence; constant data in the background (COL-NB,
# COL-WD, RMA-Lockall WD).  On an MPI without the MPI-4 large-count calls
# (Open MPI 4.1) the collectives use MPI_Alltoallw with derived datatypes;
# DUCTILE_TEST_BIGCOLL=w forces that form where the _c calls exist too.
# Peak memory about 10 GiB (5 GiB old block + 2 x 2.5 GiB new blocks).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
BIG="$abs_top_builddir/tests/long/big_app"
T=$((300 * ${TEST_TIME_SCALE:-2} / 2))

# big NAME LABEL [VAR=value ...]
big() {
  name=$1 label=$2; shift 2
  rep="$tmp/report.json"; rm -f "$rep"
  t0=$(date +%s)
  env DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE="1:+1" "$@" timeout -k 10 "$T" $MPIEXEC -n 1 "$BIG" 3 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^BIG ok size=2 " "$tmp/out"; then
    echo "FAIL: $name: exit code $rc"; grep -v "^ductile:" "$tmp/err" | tail -15; tail -5 "$tmp/out"; fail=1; return 1
  fi
  $PYTHON - "$rep" "$name" "$label" "$(($(date +%s) - t0))" <<'PY' || { fail=1; return 1; }
import json, sys
rep, name, label, secs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
if len(ok) != 1 or not ok[0]["redistribution"].startswith(label):
    sys.exit("FAIL: %s: expected one ok resize with %s: %s" % (name, label, rc))
x = ok[0]
print("ok: %s: %s, %.2f GB moved, transfer %.2f s, resize %.2f s (run %s s)" % (
    name, x["redistribution"], x["bytes_moved"] / 1e9 if "bytes_moved" in x else -1,
    x["times_s"]["transfer"], x["times_s"]["total"], secs))
PY
}

for m in col p2p rma-lock rma-lockall rma-fence; do
  big "$m" $m DUCTILE_REDIST=$m
done
if [ "$MPI_FAMILY" = mpich ]; then
  big "col, Alltoallw with derived datatypes" col DUCTILE_REDIST=col DUCTILE_TEST_BIGCOLL=w
fi
for m in col p2p rma-fence; do
  big "$m persistent" $m DUCTILE_REDIST=$m DUCTILE_PERSISTENT=1
done
big "col+nb (constant data, background)" col BIG_CONST=1 DUCTILE_REDIST=col DUCTILE_REDIST_CONSTANT=nb
big "col+wd (constant data, background)" col BIG_CONST=1 DUCTILE_REDIST=col DUCTILE_REDIST_CONSTANT=wd
big "rma-lockall+wd (constant data, background)" rma-lockall BIG_CONST=1 DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=wd
exit $fail

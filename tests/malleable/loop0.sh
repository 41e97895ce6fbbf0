#!/bin/sh
# The main loop when rank 0 leaves (the stranger of issue 25): the detector
# runs on rank 0 only; a shrink that removes rank 0 starts it on the new
# rank 0, which finds the loop again and counts the iterations from that
# control point on.  flexjacobi (FlexMPI's Jacobi), 3 -> 2 at iteration 20
# removing rank 0, 200 iterations: the report's main loop is detected with
# between 100 and 185 iterations (before: "not found", 0), and the result is
# the static run's.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/flexjacobi"
rep="$tmp/rep.json"
[ "${MPI_FAMILY:-}" = openmpi ] && export OMPI_MCA_rmaps_base_oversubscribe=1
timeout -k 10 300 $MPIEXEC -n 2 "$prog" 101 200 > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\) on 2 processes.*/\1/p' "$tmp/ref.out")
DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE=20:-1@0 timeout -k 10 300 $MPIEXEC -n 3 "$prog" 101 200 > "$tmp/out" 2> "$tmp/err"
rc=$?
got=$(sed -n 's/.*checksum \([^ ]*\) on 2 processes.*/\1/p' "$tmp/out")
if [ $rc -ne 0 ] || [ -z "$ref" ] || [ "$got" != "$ref" ] || grep -q "FAIL\|BADBLOCKS" "$tmp/out"; then
  echo "FAIL: rc $rc, checksum '$got' (static '$ref')"; cat "$tmp/out"; tail -15 "$tmp/err"; exit 1
fi
$PYTHON - "$rep" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
it = r["iterations"]
rc = [(x["from"], x["to"], x["status"]) for x in r["reconfigurations"]]
if rc != [(3, 2, "ok")]:
    sys.exit("FAIL: resizes %s" % rc)
if not it["detected"] or not (100 <= it["count"] <= 185):
    sys.exit("FAIL: main loop after rank 0 left: detected %s, %d iterations (expected 100-185)" % (it["detected"], it["count"]))
print("ok: rank 0 left at iteration 20; the new rank 0 found the loop (%s), %d iterations" % (it["head"], it["count"]))
PY

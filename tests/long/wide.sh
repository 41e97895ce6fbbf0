#!/bin/sh
# A FlexMPI-style program resized 4 -> 64 -> 6 (issue 25, "Tests"): the
# program of tests/malleable/flexjacobi.c, written against FlexMPI's API, on
# 64 processes oversubscribed on one host, gives the bit-identical checksum
# of a static run on 4; at every control point its blocks follow FlexMPI's
# distribution, and the 58 removed processes report -1/-1.  The time of each
# resize is printed (from the report), never asserted.
set -u
prog="$abs_top_builddir/tests/malleable/flexjacobi"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=$((600 * ${TEST_TIME_SCALE:-2} / 2))
dim=515 its=10
[ "${MPI_FAMILY:-}" = openmpi ] && export OMPI_MCA_rmaps_base_oversubscribe=1
timeout -k 10 $t $MPIEXEC -n 4 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\) on 4 processes.*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "static on 4: checksum $ref"
DUCTILE_REPORT="$tmp/rep.json" DUCTILE_SCHEDULE="4:=64,6:=6" timeout -k 10 $t $MPIEXEC -n 4 "$prog" $dim $its \
  > "$tmp/out" 2> "$tmp/err"
rc=$?
got=$(grep -o "checksum [^ ]* on 6 processes" "$tmp/out" | cut -d" " -f2)
removed=$(grep -o "removed: wsize -1 -1" "$tmp/out" | wc -l) # the launcher may join two processes' lines
if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\|BADBLOCKS" "$tmp/out"; then
  echo "FAIL: 4->64->6: rc $rc, checksum '$got' (expected $ref)"; tail -20 "$tmp/out"; tail -20 "$tmp/err"; exit 1
fi
[ "$removed" -eq 58 ] || { echo "FAIL: $removed removed processes reported -1/-1, expected 58"; exit 1; }
${PYTHON:-python3} - "$tmp/rep.json" <<'PY' || exit 1
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
got = [(x["from"], x["to"], x["status"]) for x in rc]
if got != [(4, 64, "ok"), (64, 6, "ok")]:
    sys.exit("FAIL: the report's resizes are %s" % got)
for x in rc:
    t = x["times_s"]
    print("  %d -> %d: %s in %.2f s (spawn %.2f, merge %.2f, transfer %.2f)" % (x["from"], x["to"], x["status"],
          t["total"], t["spawn"], t["merge"], t["transfer"]))
PY
echo "ok: 4->64->6 checksum $got, identical to the static run; 58 removed processes reported -1/-1"

#!/bin/sh
# tests/fortran/io.sh -- MPI-IO from Fortran (tests/fortran/fortran_io.f90):
# identical output with and without Ductile, exact per-function counts in
# the report (tests/run-mpi-test.sh), and the report's "io" section accounts
# the file's bytes: 32 written and 32*P read per rank.
prog=$abs_top_builddir/tests/fortran/fortran_io
[ -x "$prog" ] || { echo "SKIP: fortran_io not built"; exit 77; }
np=3
out=$(TEST_KEEP=1 TEST_TIMEOUT=$((60 * ${TEST_TIME_SCALE:-2})) "$abs_top_srcdir/tests/run-mpi-test.sh" "$prog" $np)
rc=$?
echo "$out"
dir=$(echo "$out" | sed -n 's/^kept //p' | tail -n 1)
[ $rc -eq 0 ] || { [ -n "$dir" ] && rm -rf "$dir"; exit 1; }
"$PYTHON" - "$dir/report.json" $np <<'PY'
import json, sys
rep, np = json.load(open(sys.argv[1])), int(sys.argv[2])
files = [f for f in (rep.get("io") or {}).get("files", []) if f["name"].endswith("/fortran_io.dat")]
if len(files) != 1:
    print("FAIL: the report's io section has no single fortran_io.dat:", [f["name"] for f in (rep.get("io") or {}).get("files", [])])
    sys.exit(1)
f = files[0]
want_w, want_r = 32 * np, 32 * np * np
if f["bytes_written"] != want_w or f["bytes_read"] != want_r:
    print("FAIL: fortran_io.dat: bytes_written %d (want %d), bytes_read %d (want %d)"
          % (f["bytes_written"], want_w, f["bytes_read"], want_r))
    sys.exit(1)
print("io: %s: %d bytes written, %d read, %d opens" % (f["name"], f["bytes_written"], f["bytes_read"], f["opens"]))
PY
rc=$?
rm -rf "$dir"
[ $rc -eq 0 ] && echo "PASS: fortran_io I/O accounting"
exit $rc

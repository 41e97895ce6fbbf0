#!/bin/sh
# An MPI that cannot start processes (Debian 12's MPICH 4.0, ch4:ucx:
# MPI_Comm_spawn returns "Error in spawn call" at once; FIELD-NOTES,
# docs/cluster.md "Debian's MPICH 4.0"): an expansion fails with the MPI's
# cause instead of hanging, the job goes on at its size with the checksum of
# a static run and every block checked, no process aborts, and the report
# records the resize as failed naming the spawn.  A shrink, which starts no
# process, still works there.  Skipped (77) under MPIs that can spawn (the
# other malleable tests cover them).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/results-lib.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
dim=300 its=200
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }

# which MPI: the report names the library
rm -f "$tmp/probe.json"
DUCTILE_REPORT="$tmp/probe.json" timeout -k 10 60 $MPIEXEC -n 1 "$prog" 10 2 > /dev/null 2>&1
lib=$($PYTHON -c 'import json, sys; print(json.load(open(sys.argv[1]))["mpi"]["library"].split("\n")[0])' "$tmp/probe.json" 2>/dev/null)
case "$lib" in
  "MPICH Version:"*4.0.*) ;;
  *) echo "SKIP: $lib can spawn (this test is for MPIs that cannot)"; exit 77 ;;
esac
echo "library: $lib"
jrun "expansion 2->3 fails with the cause" 2 2 failed "Error in spawn call" DUCTILE_SCHEDULE=5:+1 &&
  result "$ONE_HOST" expand fails - "the MPI cannot spawn; the job goes on at its size, its data intact: $(failed_reason "$rep" | sed "s,of /[^ ]*/,of ,")"
grep -q "resize 2 -> 3 at iteration 5 failed: MPI_Comm_spawn .*Error in spawn call; continuing with 2 processes" "$tmp/err" ||
  { echo "FAIL: no one-line cause on stderr"; grep "ductile: resize" "$tmp/err"; fail=1; }
jrun "expansion 2->4, background constant data, fails with the cause" 2 2 failed "Error in spawn call" \
  DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=5:+2
jrun "shrink 3->2 works" 3 2 ok "" DUCTILE_SCHEDULE=5:-1 &&
  result "$ONE_HOST" shrink works "$(r=$(resizes "$rep"); echo "${r#*:}")" "3 -> 2 (no process started), data checked (tests/malleable/nospawn.sh)"
exit $fail

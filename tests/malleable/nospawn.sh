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

# jrun NAME NP EXPECT-NP STATUS CAUSE VAR=value...: the job ends at EXPECT-NP
# processes with the reference checksum; the report has one resize with
# STATUS whose reason holds CAUSE
jrun() {
  name=$1 np=$2 endnp=$3 status=$4 cause=$5; shift 5
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 120 $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on $endnp processes, wrong elements 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting\|Abort(" "$tmp/err"; then
    echo "FAIL: $name: a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  $PYTHON - "$rep" "$name" "$status" "$cause" <<'PY' || { fail=1; return 1; }
import json, sys
r = json.load(open(sys.argv[1]))
rc = r["reconfigurations"]
if len(rc) != 1 or rc[0]["status"] != sys.argv[3] or sys.argv[4] not in (rc[0].get("reason") or ""):
    sys.exit("FAIL: %s: expected one resize %s naming '%s': %s" % (sys.argv[2], sys.argv[3], sys.argv[4], rc))
print("  %d->%d %s: %s" % (rc[0]["from"], rc[0]["to"], rc[0]["status"], rc[0].get("reason") or ""))
PY
  echo "ok: $name"
}

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

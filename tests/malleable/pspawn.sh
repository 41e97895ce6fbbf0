#!/bin/sh
# Parallel spawning (DUCTILE_SPAWN_PARALLEL, src/malleable/pspawn.c; issue
# 25, item 6).  With Open MPI 4.1 and the setting on, k = min(running, new)
# running processes each spawn a share of an expansion's new processes and
# the groups join pairwise.  A FlexMPI-style program (cjacobi: its data
# registered, redistributed at each resize, the checksum at the end) must
# give the checksum of a static run, its records must say the spawn was
# parallel (spawn_groups = k), and each failure must roll the expansion back
# with the reason, the job going on at its size with the static checksum:
#   3 -> 8 -> 3     shares 2, 2, 1
#   2 -> 7          shares 3, 2 (odd)
#   pspawn@1        parent 1's spawn fails after its processes started (not
#                   rank 0): every group is sent away
#   connect delay   the last group's last process is later than
#                   DUCTILE_RESIZE_TIMEOUT at the readiness check
#   spawn delay     parent 1 starts its spawn later than the timeout
# A later expansion of the same job then commits, with the processes of the
# failed one counted (parked, or ended with DUCTILE_DEPARTURE=exit).
# With MPICH and Open MPI 5 (one collective spawn: the setting has no effect
# there, docs/malleability.md) the same runs give the same checksums with
# spawn_groups = 1 and the injected pspawn failure does nothing.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
S=${TEST_TIME_SCALE:-2}
prog="$abs_top_builddir/tests/malleable/cjacobi"
dim=200 its=40
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
case "$MPI_NAME" in
  "Open MPI 4."*) par=1 ;;
  *) par=0 ;;
esac
echo "$MPI_NAME: parallel spawning expected: $par"

# groups NAME G1,G2,...: the resizes' spawn_groups; parked+exited of the first (failed) one: N
groups() {
  $PYTHON - "$rep" "$1" "$2" "${3:-}" <<'PY' || { fail=1; return 1; }
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
g = ",".join(str(x["spawn_groups"]) for x in rc)
if g != sys.argv[3]:
    sys.exit("FAIL: %s: spawn_groups %s, expected %s" % (sys.argv[2], g, sys.argv[3]))
if sys.argv[4]:
    gone = rc[0]["parked_processes"] + rc[0]["exited_processes"]
    if gone != int(sys.argv[4]):
        sys.exit("FAIL: %s: %d processes parked or ended, expected %s: %s" % (sys.argv[2], gone, sys.argv[4], rc[0]))
print("  spawn_groups %s" % g)
PY
  echo "  ($(( $(date +%s) - t0 )) s since the start)"
}
t0=$(date +%s)
on="DUCTILE_SPAWN_PARALLEL=on"
if [ $par = 1 ]; then
  jrun "3->8->3 parallel" 3 3 ok,ok "" $on DUCTILE_SCHEDULE="5:+5,15:-5" && groups "3->8->3" 3,0
  jrun "2->7 parallel (odd shares)" 2 7 ok "" $on DUCTILE_SCHEDULE="5:+5" && groups "2->7" 2
  jrun "3->8 off" 3 8 ok "" DUCTILE_SPAWN_PARALLEL=off DUCTILE_SCHEDULE="5:+5" && groups "3->8 off" 1
  jrun "3->5 auto (below the threshold: one spawn)" 3 5 ok "" DUCTILE_SCHEDULE="5:+2" && groups "3->5 auto" 1
  jrun "parent 1's spawn fails after its start, then 3->4 (one spawn)" 3 4 failed,ok "DUCTILE_TEST_FAIL=pspawn@1" \
    $on DUCTILE_SCHEDULE="5:+5,15:+1" DUCTILE_TEST_FAIL=pspawn@1 && groups "pspawn@1" 3,1 5
  jrun "pspawn@2, the new processes end (DUCTILE_DEPARTURE=exit)" 3 3 failed "DUCTILE_TEST_FAIL=pspawn@2" $on \
    DUCTILE_SCHEDULE="5:+5" DUCTILE_TEST_FAIL=pspawn@2 DUCTILE_DEPARTURE=exit && groups "pspawn@2 exit" 3 5
  T=$((3 * S))
  jrun "a late group (its last process)" 3 3 failed "not ready to join within $((T / 2)) s" $on DUCTILE_SCHEDULE="5:+5" \
    DUCTILE_RESIZE_TIMEOUT=$T DUCTILE_TEST_DELAY=connect:$((2 * T))@7 && groups "late group" 3 5
  jrun "a late parent (rank 1's spawn)" 3 3 failed "did not reach the agreement" $on DUCTILE_SCHEDULE="5:+5" \
    DUCTILE_RESIZE_TIMEOUT=$T DUCTILE_TEST_DELAY=spawn:$((2 * T))@1 && groups "late parent" 3 5
else
  jrun "3->8->3 (no effect)" 3 3 ok,ok "" $on DUCTILE_SCHEDULE="5:+5,15:-5" && groups "3->8->3" 1,0
  jrun "2->7 (no effect)" 2 7 ok "" $on DUCTILE_SCHEDULE="5:+5" && groups "2->7" 1
  jrun "pspawn@1 (no effect)" 3 8 ok "" $on DUCTILE_SCHEDULE="5:+5" DUCTILE_TEST_FAIL=pspawn@1 && groups "pspawn@1" 1
fi
exit $fail

#!/bin/sh
# Rolled-back expansions give their processes back (issue 22, item 7): the
# new processes of an expansion that does not happen disconnect from the
# parents and end at once, while the job goes on -- gone from ps, their
# cores and slots free -- where the runtime allows it (MPICH, Open MPI 5);
# Open MPI 4 parks them (docs/malleability.md, "Processes released on
# shrink": its runtime hung in a later spawn after spawned jobs had ended),
# and then they must still be there, counted as parked.  Each failure is
# injected (DUCTILE_TEST_FAIL) on tests/malleable/resize_app, which checks
# every element after every control point:
#   register   the preparation's agreement fails (a new process's registration)
#   transfer   the transfer's agreement fails (after the data moved)
#   spawn      MPICH: after the collective spawn, so the started processes
#              are sent away; Open MPI 4: refused before anything starts
#   bgtransfer-first  the background transfer of constant data fails
#              (RESIZE_APP_CONST, DUCTILE_REDIST_CONSTANT=nb)
# and a later resize of the same job commits (except with transfer, which
# fails every resize).  The record of the failed expansion says how many new
# processes ended (exited_processes) or parked (parked_processes), and the
# resized event ductiled gets carries both, so the daemon counts the parked
# ones' slots (src/daemon/jobs.c).  The processes are found by a marker in
# their command line (resize_app ignores its third argument).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
S=${TEST_TIME_SCALE:-2}
mark="rollexit$$"
case "$($MPIEXEC --version 2>&1)" in
  *"Open MPI) 4."* | *"OpenRTE) 4."*) expect=park ;;
  *) expect=exit ;;
esac
echo "expected: the new processes ${expect}"
bg_after=3; [ $expect = park ] && bg_after=5 # 2 + 1 in the world (+ 2 parked)
count() { ps -eo comm=,args= 2>/dev/null | awk -v m="$mark" '$1 == "resize_app" && index($0, m) { n++ } END { print n + 0 }'; }
# xrun NAME NP NNEW FINAL NOK AFTER VAR=value...: the first expansion (NNEW new processes) fails;
# AFTER (not 0): the processes of the job ps must show after the later resize (that ps sees spawned ones)
xrun() {
  name=$1 np=$2 nnew=$3 final=$4 nok=$5 after=$6; shift 6
  rep="$tmp/rep.json"; rm -f "$rep" "$tmp/out" "$tmp/err"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 $((60 * S)) $MPIEXEC -n "$np" "$APP" 40 150 "$mark" > "$tmp/out" 2> "$tmp/err" &
  job=$!
  k=0
  while ! grep -q "failed: " "$tmp/err" 2>/dev/null && [ $k -lt $((100 * S)) ]; do sleep 0.1; k=$((k+1)); done
  k=0 n=$(count)
  if [ $expect = exit ]; then
    while [ "$n" -gt "$np" ] && [ $k -lt $((50 * S)) ] && ! grep -q '^FINAL' "$tmp/out"; do
      sleep 0.1; k=$((k+1)); n=$(count)
    done
  else
    sleep 1; n=$(count)
  fi
  n2=$after k2=0
  if [ "$after" -ne 0 ]; then
    while n2=$(count); [ "$n2" -ne "$after" ] && [ $k2 -lt $((50 * S)) ]; do sleep 0.1; k2=$((k2+1)); done
  fi
  running=0; grep -q '^FINAL' "$tmp/out" || running=1
  wait $job; rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^FINAL size=$final iterations=40 failures=0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc"; cat "$tmp/out"; grep -v '^ductile:  ' "$tmp/err" | tail -10; fail=1; return 1
  fi
  if [ $expect = exit ] && [ "$n" -ne "$np" ]; then
    echo "FAIL: $name: $n processes of the job still ran after the rollback (until the job's end or $((5 * S)) s), expected $np"; fail=1; return 1
  fi
  if [ $running -eq 0 ]; then echo "FAIL: $name: the job ended before the check"; fail=1; return 1; fi
  if [ "$n2" -ne "$after" ]; then
    echo "FAIL: $name: $n2 processes of the job run after the later resize, expected $after"; fail=1; return 1
  fi
  if [ $expect = park ] && [ "$n" -ne $((np + nnew)) ]; then
    echo "FAIL: $name: $n processes of the job run after the rollback, expected $np + $nnew parked"; fail=1; return 1
  fi
  left=$(count)
  [ "$left" -eq 0 ] || { echo "FAIL: $name: $left processes left after the job's end"; fail=1; return 1; }
  if ! $PYTHON - "$rep" "$name" "$nnew" "$expect" "$nok" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
name, nnew, expect, nok = sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
f = rc[0] if rc else {}
want = (nnew, 0) if expect == "exit" else (0, nnew)
if f.get("status") != "failed" or (f.get("exited_processes"), f.get("parked_processes")) != want:
    sys.exit("FAIL: %s: first record %s, expected failed with %d exited, %d parked" % (name, f, want[0], want[1]))
if sum(x["status"] == "ok" for x in rc) != nok:
    sys.exit("FAIL: %s: expected %d committed resizes after it: %s" % (name, nok, rc))
print("  " + "; ".join("%d->%d %s%s" % (x["from"], x["to"], x["status"], " (%s; %d ended, %d parked)" % (
    x["reason"][:60], x["exited_processes"], x["parked_processes"]) if x["status"] != "ok" else "") for x in rc))
PY
  then fail=1; return 1; fi
  if [ $expect = exit ]; then echo "ok: $name: the new processes were gone from ps $((k / 10)).$((k % 10)) s after the rollback, the job still running"
  else echo "ok: $name: the new processes parked"; fi
}
xrun "preparation refused, 2->4" 2 2 1 1 0 DUCTILE_TEST_FAIL=register DUCTILE_SCHEDULE=2:+2,12:-1
xrun "transfer failed, 2->4" 2 2 2 0 0 DUCTILE_TEST_FAIL=transfer DUCTILE_SCHEDULE=2:+2
if [ $expect = exit ]; then
  xrun "spawn cancelled after the start, 2->3" 2 1 2 0 0 DUCTILE_TEST_FAIL=spawn DUCTILE_SCHEDULE=2:+1
fi
xrun "background transfer failed, 2->4, then 2->3" 2 2 3 1 $bg_after DUCTILE_TEST_FAIL=bgtransfer-first RESIZE_APP_CONST=200 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=2:+2,12:+1
xrun "baseline, preparation refused, 2->3" 2 3 2 0 0 DUCTILE_RESIZE_METHOD=baseline DUCTILE_TEST_FAIL=register DUCTILE_SCHEDULE=2:+1
exit $fail

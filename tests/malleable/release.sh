#!/bin/sh
# Processes released on shrink (issue 10, item 6).
#  1. 2 -> 4 -> 2: the two spawned processes leave; their group disconnects
#     from the rest and they exit at once: gone from ps (checked by pid)
#     while the job goes on; the report marks them "exited"
#     (DUCTILE_DEPARTURE=exit: the default with Open MPI 4 parks, see
#     src/malleable/departure.c).
#  2. 4 -> 2 in a job started with 4: the two processes mpiexec started
#     cannot end before the job (MPI_Finalize is collective over connected
#     processes, and MPI_COMM_WORLD cannot be disconnected): they are parked
#     asleep; the CPU one of them uses over 10 s (/proc/PID/stat utime +
#     stime) is printed; the report marks them "parked".
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
CYC="$abs_top_builddir/tests/long/cycle_app"
S=${TEST_TIME_SCALE:-2}

# wait_left N: until N LEFT lines are in $tmp/out (bounded); prints their pids
wait_left() {
  k=0
  # (the background job may not have created $tmp/out yet: no file counts as 0 lines)
  while n=$(grep -c '^LEFT' "$tmp/out" 2>/dev/null); [ "${n:-0}" -lt "$1" ] && [ $k -lt $((100 * S)) ]; do
    sleep 0.2; k=$((k+1))
  done
  grep '^LEFT' "$tmp/out" | sed 's/^LEFT pid=\([0-9]*\).*/\1/'
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }

# departed_kinds: the report's departed entries' "end" fields, sorted
departed_kinds() {
  $PYTHON -c 'import json,sys; print(" ".join(sorted(d.get("end", "?") for d in json.load(open(sys.argv[1])).get("departed", []))))' "$rep"
}

# 1. spawned processes exit
rep="$tmp/r1.json"
env DUCTILE_REPORT="$rep" DUCTILE_DEPARTURE=exit DUCTILE_SCHEDULE="2:+2,4:-2" timeout -k 10 $((60 * S)) $MPIEXEC -n 2 "$CYC" 40 250 \
  > "$tmp/out" 2> "$tmp/err" &
job=$!
pids=$(wait_left 2)
if [ "$(echo $pids | wc -w)" -ne 2 ]; then echo "FAIL: spawned: expected 2 LEFT lines"; fail=1; fi
k=0 alive="$pids"
while [ -n "$alive" ] && [ $k -lt $((50 * S)) ]; do
  alive=""; for p in $pids; do kill -0 "$p" 2>/dev/null && [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" != Z ] && alive="$alive $p"; done
  [ -n "$alive" ] && sleep 0.2; k=$((k+1))
done
running=0; grep -q '^FINAL' "$tmp/out" || running=1
if [ -n "$alive" ]; then echo "FAIL: spawned processes$alive still alive after leaving"; fail=1
elif [ $running -eq 0 ]; then echo "FAIL: the job ended before the check (cannot tell release from job end)"; fail=1
else echo "ok: spawned processes $(echo $pids) gone from ps after $((k / 5)).$((2 * (k % 5))) s, the job still running"; fi
wait $job; rc=$?
if [ $rc -ne 0 ] || ! grep -q "^FINAL size=2 iterations=40 failures=0" "$tmp/out"; then
  echo "FAIL: spawned: job exit code $rc"; grep -v '^ductile:' "$tmp/err" | tail -10; fail=1
fi
[ "$(departed_kinds)" = "exited exited" ] || { echo "FAIL: spawned: departed entries: $(departed_kinds)"; fail=1; }

# 2. native processes parked
rep="$tmp/r2.json"
rm -f "$tmp/out" # the background job truncates it only once it starts: case 1's LEFT lines must not count
env DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE="1:-2" timeout -k 10 $((60 * S)) $MPIEXEC -n 4 "$CYC" 60 250 \
  > "$tmp/out" 2> "$tmp/err" &
job=$!
pids=$(wait_left 2)
p=$(echo $pids | cut -d' ' -f1)
sleep 1
t0=$(cpu_ticks "$p"); sleep 10; t1=$(cpu_ticks "$p")
if [ -z "$t0" ] || [ -z "$t1" ]; then echo "FAIL: parked process $p not found"; fail=1
else
  hz=$(getconf CLK_TCK)
  $PYTHON -c "import sys; t=($t1-$t0)/$hz; print('ok: parked process %s used %.2f s of CPU over 10 s (%.1f %% of a core)' % ('$p', t, 10*t))"
fi
wait $job; rc=$?
if [ $rc -ne 0 ] || ! grep -q "^FINAL size=2 iterations=60 failures=0" "$tmp/out"; then
  echo "FAIL: native: job exit code $rc"; grep -v '^ductile:' "$tmp/err" | tail -10; fail=1
fi
[ "$(departed_kinds)" = "parked parked" ] || { echo "FAIL: native: departed entries: $(departed_kinds)"; fail=1; }
exit $fail

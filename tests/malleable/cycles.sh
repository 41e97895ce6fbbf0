#!/bin/sh
# 20 expand/shrink cycles in a row (2 -> 3 -> 2 ...), data checked after each;
# removed processes wait for the job's end without spinning a core.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
sched=""
i=0
while [ $i -lt 20 ]; do
  sched="$sched${sched:+,}$((2*i)):+1,$((2*i+1)):-1"
  i=$((i+1))
done
run "20 cycles 2<->3 merge col" 2 41 2 40 DUCTILE_SCHEDULE="$sched" && check_departed "20 cycles" 20
# removed processes: waiting in MPI_Finalize must cost (almost) no CPU
n=$(grep -c "^REMOVED" "$tmp/out")
if [ "$n" -ne 20 ]; then echo "FAIL: expected 20 removed processes, saw $n"; fail=1; fi
$PYTHON - "$tmp/out" <<'PY' || fail=1
import re, sys
bad = []
for line in open(sys.argv[1]):
    m = re.match(r"REMOVED waited ([0-9.]+) s cpu ([0-9.]+) s", line)
    if m:
        w, c = float(m.group(1)), float(m.group(2))
        if w > 0.5 and c > 0.25 * w:
            bad.append((w, c))
if bad:
    sys.exit("FAIL: removed processes spun while waiting: %s" % bad)
print("ok: removed processes waited asleep")
PY
exit $fail

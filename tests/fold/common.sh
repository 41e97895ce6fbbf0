# common.sh -- helpers for the process-folding tests (sourced after
# tests/controller/common.sh, which starts ductiled and cleans up).
APP="$abs_top_builddir/tests/fold/fold_app"

# cpus_of PID: the Cpus_allowed_list of every thread of PID, distinct, ';'-joined
cpus_of() {
  for t in /proc/"$1"/task/*; do sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null; done | sort -u | paste -sd';' -
}
# first_cpu LIST...: the lowest CPU in the union of the lists ("0-1", "0,2")
first_cpu() {
  "$PY" -c '
import sys
s = set()
for a in sys.argv[1:]:
    for part in a.replace(";", ",").split(","):
        if not part: continue
        lo, _, hi = part.partition("-")
        s.update(range(int(lo), int(hi or lo) + 1))
print(min(s))' "$@"
}
# cputicks PID...: utime + stime of the processes, in clock ticks
cputicks() {
  t=0
  for p in "$@"; do
    v=$(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null || echo 0)
    t=$((t + v))
  done
  echo "$t"
}
# job_pids NAME COMM: pids of the processes of program COMM whose command line holds NAME
job_pids() {
  for p in $(pgrep -f "$1"); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$2" ] && echo "$p"
  done | paste -sd' ' -
}
# all_on PIDS LIST: every thread of every pid has exactly LIST
all_on() {
  want=$2
  for p in $1; do [ "$(cpus_of "$p")" = "$want" ] || return 1; done
  return 0
}
# folded_cpu_seconds PIDS SECONDS: print "cpu wall" (seconds) over a window
cpu_window() {
  c0=$(cputicks $1); w0=$(date +%s.%N)
  sleep "$2"
  c1=$(cputicks $1); w1=$(date +%s.%N)
  "$PY" -c "import os; print('%.3f %.3f' % (($c1 - $c0) / os.sysconf('SC_CLK_TCK'), $w1 - $w0))"
}

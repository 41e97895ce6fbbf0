#!/bin/sh
# Every hint ductilectl prints is a command that works (issue 23): with a
# real job (ctl_job), the hints of a delayed expansion ("ductilectl cancel J
# N cancels it"), of status, of fold and unfold (no command id: no cancel
# hint) and of refusals ("ductilectl status J lists them", "ductilectl list
# shows the jobs") are run as printed and must succeed.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 4
start_job a 2 100000 30 0 "$T/stop-a"
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "the job registered" || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
{
  ctl expand "$j" 1 --at-iteration 100000000
  ctl status "$j"
  ctl fold "$j" 1
  ctl unfold "$j"
  ctl cancel "$j" 999
  ctl status 4242
  ctl cancel "$j" x
} > "$T/out.txt" 2>&1
cat "$T/out.txt" | grep -i "ductilectl\|queued"
grep -q "fold .*queued" "$T/out.txt" && ! grep "fold" "$T/out.txt" | grep -q "cancel" && ok "fold and unfold print no cancel hint" ||
  bad "fold output: $(grep fold "$T/out.txt")"
n=0
# every "ductilectl VERB ARGS" printed, run as printed (the job's own numbers)
for hint in $(grep -o "ductilectl [a-z]\+\( [0-9]\+\)*" "$T/out.txt" | sed 's/ /_/g' | sort -u); do
  cmd=$(echo "$hint" | sed 's/_/ /g; s/^ductilectl //')
  case "$cmd" in cancel|status|"cancel $j"|"status $j ID") continue ;; esac  # a usage line, not a hint
  # shellcheck disable=SC2086
  if ctl $cmd > "$T/hint.out" 2>&1; then ok "hint 'ductilectl $cmd' works"; else bad "hint 'ductilectl $cmd' fails: $(cat "$T/hint.out")"; fi
  n=$((n + 1))
done
[ $n -ge 3 ] && ok "$n hints run" || bad "only $n hints found: $(cat "$T/out.txt")"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra)"
exit $fail

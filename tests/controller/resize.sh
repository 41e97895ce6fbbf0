#!/bin/sh
# Two malleable jobs driven by ductilectl: an expansion and a shrink of each,
# one of them delayed to a given iteration; verified by the jobs' own data
# checks (FINAL ... failures=0), by their size changes, and by the monitoring
# stream and slot accounting in ductiled.  Processes a shrink removes may
# park (Open MPI 4: DUCTILE_DEPARTURE=auto) and then keep their slots until
# the job ends: the slot checks count them (the daemon's "parked" field).
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 10
start_job a 2 20000 30 0 "$T/stop-a"
start_job b 2 20000 30 0 "$T/stop-b"
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 2 ]' && ok "two jobs registered" || { bad "jobs did not register"; exit 1; }
ja=$(ctl --json list | jget '[j["job"] for j in d["jobs"] if j["pid"] == '"$(ctl --json list | jget 'min(j["pid"] for j in d["jobs"])')"'][0]')
jb=$((3 - ja))
# which daemon job is which test job: match by the order of their logs is not
# reliable, so each step below watches both logs
sizeline() { grep -h "size $1 -> $2" "$T/a.log" "$T/b.log" 2>/dev/null | head -1; }
# slots_free N: free slots are N minus the processes parked so far
parked() { ctl --json list | jget 'sum(j.get("parked", 0) for j in d["jobs"])'; }
slots_free() { [ "$(ctl --json list | jget 'd["slots"]["free"]')" = "$(( $1 - $(parked) ))" ]; }

ctl expand "$ja" 1 && ok "expand job $ja by 1 queued" || bad "expand $ja"
wait_until 40 '[ "$(job_field '"$ja"' "d[\"procs\"]")" = 3 ]' && ok "monitoring stream shows job $ja at 3 processes" || bad "job $ja not at 3"
[ -n "$(sizeline 2 3)" ] && ok "job saw its expansion: $(sizeline 2 3)" || bad "no size change 2 -> 3 in the job's output"
slots_free 5 && ok "slots: 5 free of 10 after the expansion" || bad "slots after expansion: $(ctl --json list | jget 'd["slots"]')"
ctl shrink "$ja" 1 && ok "shrink job $ja by 1 queued" || bad "shrink $ja"
wait_until 40 '[ "$(job_field '"$ja"' "d[\"procs\"]")" = 2 ]' && ok "job $ja back to 2 processes" || bad "job $ja not back at 2"
wait_until 10 'slots_free 6' && ok "the shrink gave its slot back or kept it parked ($(parked) parked)" || bad "slot neither returned nor parked after shrink: $(ctl --json list | jget 'd["slots"]'), $(parked) parked"

ctl resize "$ja" 3 > /dev/null && wait_until 40 '[ "$(job_field '"$ja"' "d[\"procs\"]")" = 3 ]' && ok "resize job $ja to 3" || bad "resize to 3"
ctl resize "$ja" 2 > /dev/null && wait_until 40 '[ "$(job_field '"$ja"' "d[\"procs\"]")" = 2 ]' && ok "resize job $ja to 2" || bad "resize to 2"
wait_until 20 'slots_free 6' && ok "slots back to 6 free after the resize to 2, less $(parked) parked" || bad "slots after resize to 2: $(ctl --json list | jget 'd["slots"]'), $(parked) parked"
ctl resize "$ja" 2 | grep -q "already" && ok "resize to the current size is a no-op" || bad "resize no-op"

# delayed expansion of the other job, at an iteration well ahead
now=$(grep -c . "$T/b.log" >/dev/null; job_field "$jb" 'd["history"][-1]["iteration"]')
at=$((now + 60))
ctl expand "$jb" 2 --at-iteration "$at" && ok "expand job $jb by 2 at iteration >= $at queued" || bad "delayed expand"
[ "$(ctl --json list | jget '[j for j in d["jobs"] if j["job"] == '"$jb"'][0]["pending"]')" = 2 ] && ok "2 slots reserved while pending" || bad "pending slots"
ctl expand "$jb" 1 --at-iteration "$((at + 1000000))" > "$T/out" 2> "$T/err"; rc=$?
cid=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/out")
[ $rc -eq 0 ] && [ -n "$cid" ] && ok "a second delayed request is queued too: $(cat "$T/out")" || bad "second request: rc $rc $(cat "$T/out" "$T/err")"
# (at most 2: the first request may have run meanwhile on a loaded machine, giving its 2 back too)
ctl cancel "$jb" "$cid" > /dev/null && wait_until 5 '[ "$(ctl --json list | jget "[j for j in d[\"jobs\"] if j[\"job\"] == '"$jb"'][0][\"pending\"] <= 2")" = True ]' && ok "the cancelled request's slot was given back" || bad "cancelled request kept its slot"
wait_until 60 '[ "$(job_field '"$jb"' "d[\"procs\"]")" = 4 ]' && ok "job $jb at 4 processes" || bad "job $jb not at 4"
line=$(grep -h "size 2 -> 4" "$T/a.log" "$T/b.log" | head -1)
got=$(echo "$line" | sed -n 's/^iteration \([0-9]*\):.*/\1/p')
[ -n "$got" ] && [ "$got" -ge "$at" ] && ok "delayed command applied at iteration $got (requested >= $at)" || bad "delayed command at '$got', requested $at ($line)"
ctl shrink "$jb" 2 && ok "shrink job $jb by 2 queued" || bad "shrink $jb"
wait_until 40 '[ "$(job_field '"$jb"' "d[\"procs\"]")" = 2 ]' && ok "job $jb back to 2 processes" || bad "job $jb not back at 2"
ev=$(job_field "$jb" '[e["kind"] for e in d["events"]]')
echo "$ev" | grep -q "size" && ok "size events recorded: $ev" || bad "no size events: $ev"

touch "$T/stop-a" "$T/stop-b"
wait "$PID_a"; ra=$?
wait "$PID_b"; rb=$?
[ $ra -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job a: data checks passed" || bad "job a failed (rc $ra)"
[ $rb -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/b.log" && ok "job b: data checks passed" || bad "job b failed (rc $rb)"
wait_until 10 '[ "$(ctl --json list | jget "d[\"slots\"][\"free\"]")" = 10 ]' && ok "all slots free at the end (parked ones too)" || bad "slots leaked"
exit $fail

#!/bin/sh
# ductiled --io-policy auto before it can predict (its prior, docs/policies.md
# "The prior"): two real jobs (io_pattern, unmodified, 2 ranks each, exclusive
# I/O) that close their file at the end of every I/O phase are served first
# come, first served -- their phases, from the two reports' timestamps, never
# overlap, and `ductilectl events` has the io_decision that says so.  Then a
# job that keeps its file open between phases keeps the token a phase gap
# after each phase: the prior is voided (an io_decision "none" naming the
# job and the cause), and the job still finishes with correct data.
. "$abs_top_srcdir/tests/io/common.sh"
. "$abs_top_srcdir/tests/io/ductiled.sh"
start_daemon --io-policy auto
export DUCTILE_IO_EXCLUSIVE=1

# 1. the prior holds: first come, first served (two phases each: all of them
# before the first prediction, which needs two phases of each job)
run_pattern ja 2 2 250 & P1=$!
run_pattern jb 2 2 250 & P2=$!
wait $P1; r1=$?; wait $P2; r2=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && grep -q "errors 0" "$T/ja.out" && grep -q "errors 0" "$T/jb.out" &&
  ok "both jobs ran, data read back intact" || bad "jobs failed: $r1 $r2"
"$PY" "$S/tests/io/check_io.py" disjoint "$T/ja.json" "$T/jb.json" || fail=1
# events of both jobs: exactly the prior's decision, no voiding
ev() {  # ev JOB...: the io_decision events of these jobs, as one JSON list
  for q in "$@"; do ctl --json events "$q" > "$T/ev$q.json" 2>/dev/null; done
  "$PY" -c "
import json, sys
dec = []
for f in sys.argv[1:]:
    try:
        dec += [e for e in json.load(open(f)).get('events', []) if e.get('kind') == 'io_decision']
    except (OSError, ValueError):
        pass
print(json.dumps(dec))" $(for q in "$@"; do echo "$T/ev$q.json"; done)
}
d=$(ev 1 2)
echo "$d" | "$PY" -c "
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any(e.get('prior') and e.get('mode') == 'exclusive' for e in d)
         and not any(e.get('prior') and e.get('mode') == 'none' for e in d) else 1)" &&
  ok "io_decision: the prior (first come, first served) held" || bad "io_decision events: $d"

# 2. a job that keeps its file open holds the token a phase gap after each
# phase (alone: no other job's phases to compare with, the tail is the cause)
run_pattern jc 2 3 400 IO_PATTERN_KEEP=1 DUCTILE_IO_PHASE_GAP=300
r1=$?
[ $r1 -eq 0 ] && grep -q "errors 0" "$T/jc.out" && ok "the job ran with its file open throughout, data intact" ||
  bad "job failed: $r1"
d=$(ev 3)
echo "$d" | "$PY" -c "
import json, sys
d = json.load(sys.stdin)
v = [e for e in d if e.get('prior') and e.get('mode') == 'none']
sys.exit(0 if v and 'job 3 kept the I/O token' in v[0].get('why', '') else 1)" &&
  ok "io_decision: prior voided: $(echo "$d" | "$PY" -c "import json,sys; print([e['why'] for e in json.load(sys.stdin) if e.get('mode')=='none'][0])")" ||
  bad "no voided prior in the events: $d"
grep -q "prior voided" "$T/daemon.log" && ok "ductiled's log says why" || bad "daemon log: $(tail -3 "$T/daemon.log")"
exit $fail

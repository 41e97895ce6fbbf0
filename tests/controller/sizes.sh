#!/bin/sh
# Size constraints with ductiled (issue 26, item 3; docs/malleability.md,
# "Size constraints"): a job submitted with --sizes 'allowed=squares|
# multiples:3' (ductilectl submit -> ductiled -> ductile-run --sizes ->
# DUCTILE_SIZES, told back to ductiled at registration) on 8 slots under the
# fair policy, which would give it all 8: the policy asks for 6 (never 5, 7
# or 8), the job ends with its data checks passed; an operator's resize to 7
# is refused by the job with the reason; submits whose size or constraints
# cannot work are refused by ductiled with the reason.  A job whose program sets
# its constraints after its registration (squares; ductile_set_sizes) is grown
# 2 -> 4, not 8: ductiled learns them from the job's samples.
. "$abs_top_srcdir/tests/controller/common.sh"

start_daemon --slots 8 --policy fair --policy-params cooldown=1,horizon=30 --launcher "$MPIEXEC" --job-logs "$T"
out=$(ctl submit -n 5 --sizes 'allowed=squares|multiples:3' -- "$JOB" 10 2>&1)
echo "$out" | grep -q "the job cannot start: 5 processes is not among the job's allowed counts" &&
  ok "submit -n 5 refused: $out" || bad "submit -n 5 with squares|multiples:3: '$out'"
out=$(ctl submit -n 4 --sizes 'allowed=cubes' -- "$JOB" 10 2>&1)
echo "$out" | grep -q "'cubes' is not squares" && ok "submit --sizes allowed=cubes refused: $out" || bad "allowed=cubes: '$out'"
ctl submit -n 4 --sizes 'allowed=squares|multiples:3' -- "$JOB" 120 -400 > /dev/null || bad "submit"
wait_until 40 '[ "$(ctl --json list | jget "len([j for j in d[\"jobs\"] if j[\"state\"] == \"running\"])")" = 1 ]' &&
  ok "the job started by ductiled and registered" || { bad "the job did not register"; exit 1; }
jid=$(ctl --json list | jget 'd["jobs"][0]["job"]')
out=$(ctl resize "$jid" 7 2>&1)
echo "$out" | grep -q "cannot run on 7 processes: 7 processes is not among the job's allowed counts (squares|multiples:3)" &&
  ok "resize to 7 refused by the job: $out" || bad "resize to 7: '$out'"
wait_until 60 '[ "$(job_field '"$jid"' "d[\"procs\"]")" = 6 ]' && ok "the fair policy grew it to 6" ||
  bad "not grown to 6: $(job_field "$jid" 'd["procs"]')"
wait_until 120 '[ "$(ctl --json queue | jget "d[\"queue\"][0][\"state\"]")" = done ]' && ok "the job ended" ||
  bad "the job did not end: $(ctl queue)"
grep -q "FINAL .*failures=0" "$T/job-q1.log" && ok "data checks passed ($(grep FINAL "$T/job-q1.log"))" ||
  { bad "job failed"; tail -20 "$T/job-q1.log"; }
ctl --json events "$jid" > "$T/ev.json" 2>/dev/null
"$PY" - "$T/ev.json" <<'EOF' || fail=1
import json, math, sys
ev = json.load(open(sys.argv[1]))["events"]
ok_size = lambda n: math.isqrt(n) ** 2 == n or n % 3 == 0
sizes = [x["procs"] for x in ev if x["kind"] == "registered"] + [x["to"] for x in ev if x["kind"] == "size"]
pols = [x for x in ev if x["kind"] == "policy"]
for p in pols:
    print("    %d -> %d: %s" % (p["from"], p["to"], p["reason"][:120]))
bad = [n for n in sizes + [p["to"] for p in pols] if not ok_size(n)]
if bad or not pols or 6 not in [p["to"] for p in pols]:
    print("FAIL: sizes %s, policy targets %s (not allowed: %s)" % (sizes, [p["to"] for p in pols], bad)); sys.exit(1)
print("ok: sizes %s and policy targets %s: squares or multiples of 3 only" % (sizes, [p["to"] for p in pols]))
EOF
# constraints the program sets after its registration (ductile_set_sizes) reach ductiled in the samples
CTL_JOB_SIZES=allowed=squares start_job b 2 150 -400
wait_until 40 '[ "$(ctl --json list | jget "len([j for j in d[\"jobs\"] if j[\"state\"] == \"running\"])")" = 1 ]' &&
  ok "job b (its program allows squares) registered" || { bad "job b did not register"; exit 1; }
jb=$(ctl --json list | jget '[j["job"] for j in d["jobs"] if j["state"] == "running"][0]')
wait_until 60 '[ "$(job_field '"$jb"' "d[\"procs\"]")" = 4 ]' && ok "the fair policy grew job b to 4, not 8" ||
  bad "job b not grown to 4: $(job_field "$jb" 'd["procs"]')"
grep -q "policy: job $jb can use allowed=squares" "$T/daemon.log" && ok "ductiled learnt job b's constraints from its samples" ||
  bad "ductiled did not learn job b's constraints"
wait "$PID_b"
grep -q "FINAL .*failures=0" "$T/b.log" && ok "job b: data checks passed ($(grep FINAL "$T/b.log"))" || { bad "job b failed"; tail -20 "$T/b.log"; }
ctl --json events "$jb" > "$T/evb.json" 2>/dev/null
"$PY" -c '
import json, math, sys
ev = json.load(open(sys.argv[1]))["events"]
to = [x["to"] for x in ev if x["kind"] in ("policy", "size")]
ok = to and all(math.isqrt(n) ** 2 == n for n in to)
print(("ok: " if ok else "FAIL: ") + "job b: policy and size targets %s" % to)
sys.exit(0 if ok else 1)' "$T/evb.json" || fail=1
stop_daemon
exit $fail

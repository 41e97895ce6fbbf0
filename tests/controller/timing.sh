#!/bin/sh
# Sampled timing seen by ductiled (issue 25, item 4): a real job run with
# DUCTILE_TIME_SAMPLE=16 says so in its samples (`time_sample`), and
# ductiled shows it in `ductilectl list` (the TIMING column, the JSON),
# `ductilectl status`, Prometheus (ductile_job_time_sample) and its state
# file; a job timing every call shows `exact` and 1.  The samples' estimated
# times fit in their interval (clamped as the report clamps them: MPI calls
# one at a time).  A sample with a bad time_sample is refused at the edge.
. "$abs_top_srcdir/tests/controller/common.sh"
MPORT=$("$PY" -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_daemon --slots 4 --metrics "127.0.0.1:$MPORT"
DUCTILE_TIME_SAMPLE=16 start_job a 1 100000 20 0 "$T/stop-a"
wait_until 40 '[ "$(job_field 1 "d[\"samples\"] >= 3")" = True ]' || { bad "job a did not register and sample"; exit 1; }
start_job b 1 100000 20 0 "$T/stop-b"
wait_until 40 '[ "$(job_field 2 "d[\"samples\"] >= 3")" = True ]' || { bad "job b did not register and sample"; exit 1; }

l=$(ctl --json list)
[ "$(echo "$l" | jget '[j.get("time_sample") for j in d["jobs"]]')" = "[16, None]" ] \
  && ok "list --json: job 1 time_sample 16, job 2 none (every call timed)" || bad "list --json: $l"
ctl list > "$T/list.out"
grep -q '^TIMING\|ITER_S TIMING' "$T/list.out" && awk '$1 == 1' "$T/list.out" | grep -q ' 1/16 ' && awk '$1 == 2' "$T/list.out" | grep -q ' exact ' \
  && ok "ductilectl list: job 1 1/16, job 2 exact" || bad "ductilectl list: $(cat "$T/list.out")"
ctl list --format job,timing --noheader > "$T/fmt.out"
[ "$(tr -s ' ' < "$T/fmt.out" | tr '\n' ';')" = "1 1/16;2 exact;" ] && ok "--format job,timing" || bad "--format job,timing: $(cat "$T/fmt.out")"
ctl status 1 | grep -q "times ESTIMATED: 1 call in 16 timed" && ok "status 1 says its times are estimated" || bad "status 1: $(ctl status 1 | head -5)"
ctl status 2 | grep -q "ESTIMATED" && bad "status 2 says estimated" || ok "status 2: no estimate"
[ "$(job_field 1 'd["time_sample"]')" = 16 ] && ok "status --json: time_sample 16" || bad "status --json: $(job_field 1 'd.get("time_sample")')"
# the estimated times fit in each sample's interval
[ "$(job_field 1 'all(s["comm_s"] + s["io_s"] <= s["interval_s"] * (1 + 1e-9) for s in d["history"] if "interval_s" in s)')" = True ] \
  && ok "job 1's samples: comm + io within the interval" || bad "samples beyond their interval: $(job_field 1 'd["history"][-3:]')"

"$PY" - "$MPORT" > "$T/metrics.txt" <<'EOF' || bad "GET /metrics failed"
import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10).read().decode())
EOF
grep -q '^ductile_job_time_sample{job_id="1"} 16$' "$T/metrics.txt" && grep -q '^ductile_job_time_sample{job_id="2"} 1$' "$T/metrics.txt" \
  && ok "/metrics: ductile_job_time_sample 16 and 1" || bad "/metrics: $(grep time_sample "$T/metrics.txt")"

# the edge: time_sample 0, 10^6 + 1 and a string are refused with a reason; the job stays registered
"$PY" - "$SOCK" "$abs_top_srcdir/tests/controller" > "$T/edge.out" 2>&1 <<'EOF' && ok "edge: $(tail -1 "$T/edge.out")" || bad "edge: $(cat "$T/edge.out")"
import json, sys, time
sys.path.insert(0, sys.argv[2])
from simjob import SimJob
j = SimJob(sys.argv[1], "timing-edge", ["localhost"])
j.register()
def sample(**kw):
    rid = j.request("sample", t=time.time(), iteration=1, procs=1, **kw)
    while True:
        m = json.loads(j.readline(10))
        if m.get("id") == rid:
            return m
for bad in (0, 1000001, "16", 2.5):
    m = sample(time_sample=bad)
    assert m["ok"] is False and m.get("error") == "bad_argument" and "time_sample" in m.get("reason", ""), (bad, m)
m = sample(time_sample=4)
assert m["ok"], m
print("time_sample 0, 1000001, \"16\", 2.5 refused (bad_argument, naming time_sample); 4 taken")
EOF

# the state file keeps it
touch "$T/stop-a" "$T/stop-b"
wait_until 60 '[ "$(job_field 1 "d[\"state\"]")" = exited ] && [ "$(job_field 2 "d[\"state\"]")" = exited ]' || bad "jobs did not exit"
daemon_clean
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); j={x["id"]: x.get("time_sample") for x in d["jobs"]}; assert j[1] == 16 and j[2] is None, j' \
  "$T/state.json" && ok "state file: job 1 time_sample 16, job 2 none" || bad "state file: $(head -c 600 "$T/state.json")"
exit $fail

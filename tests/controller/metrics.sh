#!/bin/sh
# ductiled --metrics (issue 27 item 3): a real Prometheus server (Debian's
# prometheus package) scrapes ductiled every second while a malleable job
# runs; ductilectl expands the job; a PromQL query through Prometheus's HTTP
# API must then count the resize and show the job's process count at its new
# size.  /metrics fetched directly must pass `promtool check metrics`, and
# bad --metrics values and a taken port are refused with a message.
. "$abs_top_srcdir/tests/controller/common.sh"
if ! command -v prometheus > /dev/null || ! command -v promtool > /dev/null; then
  echo "SKIP: prometheus and promtool are not installed (Debian: apt-get install prometheus; tools/setup-deps)"
  exit 77
fi
# two free loopback ports (the kernel's choice)
set -- $("$PY" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
MPORT=$1; PPORT=$2

# bad values: a clear message, exit 2
for v in 0 70000 x :9000 1:2:3 127.0.0.1:; do
  out=$("$DUCTILED" --socket "$T/bad.sock" --no-state --metrics "$v" 2>&1); rc=$?
  [ $rc = 2 ] && echo "$out" | grep -q -- "--metrics" && ok "--metrics '$v' refused: $out" || bad "--metrics '$v': rc $rc: $out"
done

start_daemon --slots 6 --metrics "127.0.0.1:$MPORT"
grep -q "metrics for Prometheus on http://127.0.0.1:$MPORT/metrics" "$T/daemon.log" && ok "ductiled serves metrics on port $MPORT" \
  || { bad "no metrics endpoint: $(cat "$T/daemon.log")"; exit 1; }
# the port is taken now: a second daemon says so and stops
out=$(timeout -k 10 20 "$DUCTILED" --socket "$T/second.sock" --no-state --metrics "$MPORT" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "cannot listen" && ok "a taken port is refused: $out" || bad "taken port: rc $rc: $out"

fetch() { "$PY" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }
# promq EXPR: the value of the query's first series ("" when none)
promq() {
  "$PY" - "$PPORT" "$1" 2> /dev/null <<'EOF'
import json, sys, urllib.parse, urllib.request
u = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
d = json.load(urllib.request.urlopen(u, timeout=5))
r = d["data"]["result"] if d.get("status") == "success" else []
print(r[0]["value"][1] if r else "")
EOF
}

cat > "$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ductiled
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
promtool check config "$T/prometheus.yml" > "$T/promtool-config.log" 2>&1 || bad "promtool check config: $(cat "$T/promtool-config.log")"
timeout -k 10 "$((120 * ${TEST_TIME_SCALE:-1}))" prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom-data" \
  --web.listen-address="127.0.0.1:$PPORT" --storage.tsdb.retention.time=1h --log.level=warn > "$T/prometheus.log" 2>&1 &
PROM=$!
JOBPIDS="$JOBPIDS $PROM" # common.sh's cleanup stops it too
wait_until 40 '[ "$(promq "up{job=\"ductiled\"}")" = 1 ]' && ok "Prometheus scrapes ductiled (up = 1)" \
  || { bad "Prometheus does not scrape ductiled: $(promq 'up'); $(tail -5 "$T/prometheus.log")"; exit 1; }

start_job a 2 100000 20 0 "$T/stop-a"
wait_until 40 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || { bad "job did not register"; exit 1; }
q_procs='ductile_job_processes{job_id="1"}'
wait_until 30 '[ "$(promq "$q_procs")" = 2 ]' && ok "Prometheus: $q_procs = 2" || bad "$q_procs: '$(promq "$q_procs")'"
ctl expand 1 1 > "$T/expand.out" 2>&1 && ok "expand 1 by 1: $(cat "$T/expand.out")" || bad "expand: $(cat "$T/expand.out")"
wait_until 60 '[ "$(job_field 1 "d[\"procs\"]")" = 3 ]' && ok "ductiled: job 1 at 3 processes" || bad "job not at 3: $(job_field 1 'd["procs"]')"
q_res='sum(ductile_resizes_total{kind="expand",outcome="ok"})'
wait_until 30 '[ "$(promq "$q_res >= 1")" != "" ] && [ "$(promq "$q_procs")" = 3 ]' \
  && ok "Prometheus: $q_res = $(promq "$q_res"), $q_procs = $(promq "$q_procs")" \
  || bad "Prometheus: $q_res = '$(promq "$q_res")', $q_procs = '$(promq "$q_procs")'"
q_dur='ductile_resize_duration_seconds_count{kind="expand"}'
[ "$(promq "$q_dur")" = 1 ] && ok "Prometheus: $q_dur = 1 (sum $(promq 'ductile_resize_duration_seconds_sum{kind="expand"}') s)" \
  || bad "$q_dur: '$(promq "$q_dur")'"
q_cores='ductile_job_cores{job_id="1"}'
[ "$(promq "$q_cores")" = 3 ] && ok "Prometheus: $q_cores = 3" || bad "$q_cores: '$(promq "$q_cores")'"
q_used='sum(ductile_host_slots{state="used"})'
[ "$(promq "$q_used")" = 3 ] && [ "$(promq 'sum(ductile_host_slots{state="free"})')" = 3 ] && ok "Prometheus: 3 slots used, 3 free" \
  || bad "slots: used '$(promq "$q_used")', free '$(promq 'sum(ductile_host_slots{state="free"})')'"

# /metrics directly: well-formed (promtool's parser and lint), with what the job did
fetch "http://127.0.0.1:$MPORT/metrics" > "$T/metrics.txt" || bad "GET /metrics failed"
promtool check metrics < "$T/metrics.txt" > "$T/promtool.log" 2>&1 && ok "promtool check metrics: clean ($(grep -vc '^#' "$T/metrics.txt") samples)" \
  || bad "promtool check metrics: $(cat "$T/promtool.log")"
grep -q '^ductile_jobs{state="running"} 1$' "$T/metrics.txt" && grep -q '^ductile_connections{transport="unix"} [1-9]' "$T/metrics.txt" \
  && ok "/metrics: 1 running job, $(sed -n 's/^ductile_connections{transport="unix"} //p' "$T/metrics.txt") Unix connections" \
  || bad "/metrics: $(grep '^ductile_jobs\|^ductile_connections' "$T/metrics.txt")"

# a fold: counted, and the job's cores follow it (3 processes on one host folded to 1 core)
ctl fold 1 1 > "$T/fold.out" 2>&1 && ok "fold 1 to 1 core: $(head -1 "$T/fold.out")" || bad "fold: $(cat "$T/fold.out")"
mq() { fetch "http://127.0.0.1:$MPORT/metrics" | grep -F "$1 " | sed 's/.* //'; }
wait_until 10 '[ "$(mq "ductile_folds_total{action=\"fold\",by=\"client\"}")" = 1 ] && [ "$(mq "ductile_job_cores{job_id=\"1\"}")" = 1 ]' \
  && ok "/metrics: ductile_folds_total{action=\"fold\",by=\"client\"} 1, ductile_job_cores{job_id=\"1\"} 1" \
  || bad "after the fold: $(fetch "http://127.0.0.1:$MPORT/metrics" | grep '^ductile_folds_total\|^ductile_job_cores')"
ctl unfold 1 > /dev/null 2>&1 && wait_until 10 '[ "$(mq "ductile_job_cores{job_id=\"1\"}")" = 3 ]' \
  && ok "unfolded: ductile_job_cores{job_id=\"1\"} 3" || bad "after the unfold: $(fetch "http://127.0.0.1:$MPORT/metrics" | grep '^ductile_job_cores')"
# a command ductiled refuses (more processes than free slots): counted by command and cause
! ctl expand 1 100 > /dev/null 2>&1 && wait_until 10 '[ "$(mq "ductile_commands_refused_total{command=\"expand\",code=\"no_slots\"}")" = 1 ]' \
  && ok "/metrics: ductile_commands_refused_total{command=\"expand\",code=\"no_slots\"} 1" \
  || bad "refused expand: $(fetch "http://127.0.0.1:$MPORT/metrics" | grep '^ductile_commands_refused')"

touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=3 .*failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra): $(tail -3 "$T/a.log")"
wait_until 30 '[ "$(promq "ductile_jobs{state=\"exited\"}")" = 1 ] && [ "$(promq "$q_procs")" = "" ]' \
  && ok "Prometheus: the job exited, its process series is gone" || bad "after the exit: exited '$(promq 'ductile_jobs{state="exited"}')', $q_procs '$(promq "$q_procs")'"
kill "$PROM" 2> /dev/null
wait "$PROM" 2> /dev/null
daemon_clean
exit $fail

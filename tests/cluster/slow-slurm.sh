#!/bin/sh
# ductiled's loop never waits on a Slurm command (issue 23 item 4): under
# ductiled --slurm, with stand-ins for scontrol, sinfo and salloc on PATH
# (tests/cluster/fakeslurm.sh: no cluster needed) that take 9 s to answer,
#   - the periodic check (scontrol show job, show hostnames, sinfo: 27 s of
#     Slurm) runs while `ductilectl list` keeps answering -- each answer
#     arrives while a slowed command still sleeps -- and a real MPI job keeps
#     streaming its samples: it is never taken for dead, nor is it declared
#     crashed;
#   - an expansion beyond the allocation (--slurm-grow) waits for a slowed
#     salloc without blocking anybody, and is answered once Slurm added the
#     host (a job without MPI, tests/cluster/fakejob.py, runs on it).
# The answer times are printed (not asserted: the machine is shared).
. "$abs_top_srcdir/tests/controller/common.sh"
H=$(hostname)
mkdir -p "$T/bin"
for c in scontrol sinfo salloc scancel; do ln -s "$abs_top_srcdir/tests/cluster/fakeslurm.sh" "$T/bin/$c"; done
export PATH="$T/bin:$PATH" FAKE_SLURM_DIR="$T" FAKE_SLURM_HOST="$H" FAKE_SLURM_CPUS=4 FAKE_SLURM_OUTSIDE=node2:2 SLURM_JOB_ID=42
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE
# answers LABEL SECONDS: ductilectl list, over and over; each answer must come while a slowed command sleeps
answers() {
  "$PY" - "$DUCTILECTL" "unix:$SOCK" "$T/running" "$2" <<'EOF'
import os, subprocess, sys, time
ctl, addr, running, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
lat, during, end = [], 0, time.time() + secs
while time.time() < end:
    t0 = time.time()
    r = subprocess.run([ctl, "-c", addr, "-t", "30", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        print("list failed: exit %d" % r.returncode); sys.exit(1)
    lat.append(time.time() - t0)
    during += os.path.exists(running)
    time.sleep(0.2)
lat.sort()
print("%d answers, %d of them while a slowed Slurm command ran; answer time median %.0f ms, max %.0f ms"
      % (len(lat), during, 1000 * lat[len(lat) // 2], 1000 * lat[-1]))
sys.exit(0 if during >= 5 else 1)
EOF
}

start_daemon --slurm --slurm-sync 1
start_job a 2 100000 20 0 "$T/stop-a"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || { bad "job did not register"; exit 1; }
echo 9 > "$T/slow"
wait_until 10 '[ -e "$T/running" ]' && ok "a check of the Slurm job runs, its commands slowed to 9 s" || bad "no Slurm command started"
n0=$(job_field 1 'd["samples"]')
answers list 11 > "$T/ans" && ok "ductilectl list answered throughout: $(cat "$T/ans")" || bad "list: $(cat "$T/ans")"
n1=$(job_field 1 'd["samples"]')
[ "$n1" -gt $((n0 + 10)) ] && ok "the job's samples kept coming: $((n1 - n0)) meanwhile" || bad "samples: $n0 -> $n1"
rm -f "$T/slow"
wait_until 30 '[ ! -e "$T/running" ]'
sleep 3
grep -q "did not answer" "$T/a.log" && bad "the job took ductiled for silent: $(grep 'did not answer' "$T/a.log")"
grep -q "crashed\|lost its connection" "$T/daemon.log" && bad "the daemon lost the job: $(grep 'crashed\|lost' "$T/daemon.log")"
[ "$(job_field 1 'd["state"]')" = running ] && ok "the job is running, never taken for dead" || bad "state $(job_field 1 'd["state"]')"
[ "$(grep -c 'show job -o 42' "$T/calls")" -ge 2 ] && ok "the checks go on: $(grep -c 'show job -o 42' "$T/calls") scontrol show job" || bad "calls: $(cat "$T/calls")"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra)"
stop_daemon

# growth beyond the allocation, salloc slowed
rm -f "$T/state.json" "$T/grown"
FAKE_SLURM_CPUS=1 start_daemon --slurm-grow --slurm-sync 1
ctl slots | grep -q "node2 *outside" && ok "node2 is outside the allocation: $(ctl slots | tr '\n' ' ')" || bad "slots: $(ctl slots)"
"$PY" "$abs_top_srcdir/tests/cluster/fakejob.py" "$SOCK" "$T/stop.fake" 120 "$H" 0.2 > "$T/fake.log" 2>&1 &
FPID=$!
JOBPIDS="$JOBPIDS $FPID"
wait_until 10 '[ -n "$(ctl --json list | jget "[j[\"job\"] for j in d[\"jobs\"] if j[\"binary\"] == \"fakejob\"][0]" 2>/dev/null)" ]' \
  || { bad "fakejob did not register: $(cat "$T/fake.log")"; exit 1; }
F=$(ctl --json list | jget '[j["job"] for j in d["jobs"] if j["binary"] == "fakejob"][0]')
echo 9 > "$T/slow-salloc"
ctl -t 60 expand "$F" 2 > "$T/exp" 2>&1 &
EPID=$!
wait_until 10 '[ -e "$T/running" ]' && ok "the expansion asked Slurm for a host (salloc slowed to 9 s)" || bad "no salloc: $(cat "$T/calls")"
answers grow 6 > "$T/ans" && ok "ductilectl list answered throughout: $(cat "$T/ans")" || bad "list: $(cat "$T/ans")"
wait "$EPID"; re=$?
[ $re -eq 0 ] && ok "the expansion was answered once Slurm added the host: $(cat "$T/exp")" || bad "expand: rc $re $(cat "$T/exp")"
wait_until 10 '[ "$(job_field "$F" "d[\"procs\"]")" = 3 ]' && ok "fakejob at 3 processes: $(job_field "$F" '[(h["name"], h["procs"]) for h in d["hosts"]]')" \
  || bad "fakejob: $(job_field "$F" 'd["procs"], d["hosts"]')"
[ "$(job_field "$F" '[h["procs"] for h in d["hosts"] if h["name"] == "node2"]')" = "[2]" ] && ok "its new processes are on node2" \
  || bad "hosts: $(job_field "$F" 'd["hosts"]')"
grep -q "Slurm job 42 grew by node2 (2 CPUs)" "$T/daemon.log" && ok "daemon: $(grep -o 'Slurm job 42 grew by .*' "$T/daemon.log")" || bad "no growth in the log"
touch "$T/stop.fake"
wait "$FPID"
daemon_clean
exit $fail

#!/bin/sh
# ductiled's edge (issue 23, items 1 and 3), with raw protocol peers
# (tests/controller/peer_edge.py): the heap overflow of a resized event under
# --slurm (fake Slurm commands on PATH, tests/controller/fake-slurm) and its
# relatives refused with the reason while a real chain of resizes is still
# followed; scontrol update in a private directory; one job per connection;
# hosts outside the resource manager and beyond its capacity refused; a
# flood of padded samples, events and re-registrations with the daemon's
# memory bounded; list's text (jobs_list.c) against status.  Run it in an --enable-asan build too: the daemon's log
# must hold no report.
. "$abs_top_srcdir/tests/controller/common.sh"
PEER="$abs_top_srcdir/tests/controller/peer_edge.py"
peer() { timeout -k 10 $((60 * ${TEST_TIME_SCALE:-1})) "$PY" "$PEER" "$@"; }
export FAKE_SLURM="$T/slurm" PATH="$abs_top_srcdir/tests/controller/fake-slurm:$PATH"
mkdir -p "$FAKE_SLURM"
rm -f /tmp/slurm_job_4242_resize.sh /tmp/slurm_job_4242_resize.csh
sanitizer_clean() {
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/daemon.log"; then
    bad "$1: sanitizer report:"; grep -A20 "ERROR: \|runtime error:" "$T/daemon.log" | head -40
  else
    ok "$1: no sanitizer report in the daemon's log${SANITIZER_PRELOAD:+ (ASan/UBSan build)}"
  fi
}

# 1. --slurm: sizes from the network
start_daemon --slurm-job 4242 --slurm-sync 1
HOLD=$((2 * ${TEST_TIME_SCALE:-1})) peer slurm_sizes "$SOCK" > "$T/sizes.out" 2>&1 &
sp=$!
wait_until 30 'grep -q "^alive" "$T/sizes.out"'
cat "$T/sizes.out"
for c in "-5 -> 1: bad_argument" "0 -> 8: bad_argument" "2 -> 0: bad_argument" "2 -> 65537: bad_argument" \
         "2 -> 1000000000: bad_argument" "5 -> 8: bad_argument" "3 -> 2: bad_argument" "2 -> 1 exited 9: bad_argument" \
         "2 -> 3 exited 1: bad_argument" "exited 5 of 0 parked: bad_argument"; do
  grep -q -- "$c" "$T/sizes.out" && ok "resized $c" || bad "not refused: $c"
done
grep -q "5 -> 8: bad_argument resized: 'from' 5 is not job 1's size (2" "$T/sizes.out" && ok "a resize must start at the job's known size" || bad "from check"
grep -q "resized 2 -> 8: ok=True" "$T/sizes.out" && grep -q "resized 8 -> 4: ok=True" "$T/sizes.out" &&
  ok "the real chain 2 -> 8 -> 4 accepted" || bad "real resizes refused"
grep -q 'slots after 8 -> 4: {"fnode1": 4}' "$T/sizes.out" && ok "slots follow the job: fnode1=4 after the ranks on the other host left" ||
  bad "slots: $(grep 'slots after' "$T/sizes.out")"
kill -0 "$DPID" && ok "ductiled alive after the hostile sizes" || bad "ductiled died"
# the emptied host went back to Slurm: scontrol update ran in a private directory, not in /tmp
wait_until 10 '[ -s "$FAKE_SLURM/update-cwd" ]' && ok "a host was given back: $(cat "$FAKE_SLURM/updates")" || bad "no scontrol update"
cwd=$(cat "$FAKE_SLURM/update-cwd" 2>/dev/null)
case "$cwd" in
/tmp|/tmp/|"") bad "scontrol update ran in '$cwd'" ;;
*) [ "$(stat -c '%a %U' "$cwd")" = "700 $(id -un)" ] && ok "scontrol update ran in $cwd (mode 700, ductiled's own)" ||
     bad "scontrol's directory $cwd: $(stat -c '%a %U' "$cwd")" ;;
esac
ls /tmp/slurm_job_4242_resize.* > /dev/null 2>&1 && bad "resize files in /tmp" || ok "no slurm_job_4242_resize.* in /tmp"
wait $sp
stop_daemon
[ -n "$cwd" ] && [ ! -e "$cwd" ] && ok "the private directory is removed at exit" || bad "$cwd left behind"
sanitizer_clean "--slurm"

# 2. one job per connection; hosts and capacity (--slots 4: this host only)
rm -f "$T/state.json"
start_daemon --slots 4
peer one_job_per_connection "$SOCK" > "$T/one.out" 2>&1
cat "$T/one.out"
grep -q "second job on the same connection: bad_request this connection registered job 1: one job per connection" "$T/one.out" &&
  ok "a second register on a connection is refused" || bad "second register"
grep -q "the same job again on its connection: True 1" "$T/one.out" && ok "the same job may register again on its connection" || bad "re-register"
grep -q "another tag under the same id on the connection: bad_request" "$T/one.out" && ok "but not another one under its id" || bad "other tag"
grep -q "running jobs: 1 tags \['first'\]" "$T/one.out" && ok "one job running (the refused second one never existed)" ||
  bad "ghost: $(grep 'running jobs' "$T/one.out")"
peer hosts_checked "$SOCK" 4 > "$T/hosts.out" 2>&1
cat "$T/hosts.out"
grep -q 'nosuchhost.*bad_argument register: host .nosuchhost. is not one of' "$T/hosts.out" && ok "unknown host refused, not mapped to host 0" || bad "unknown host"
grep -q 'procs 5: no_slots .* 5 processes on host' "$T/hosts.out" && ok "more processes than the host's slots refused" || bad "capacity"
grep -q 'procs 2: bad_argument register: the hosts hold 1 processes, not the 2' "$T/hosts.out" && ok "hosts that do not add up refused" || bad "sum"
grep -q 'null procs 5: no_slots' "$T/hosts.out" && ok "no hosts and more processes than the slots refused" || bad "no hosts"
grep -q "within the slots: ok=True" "$T/hosts.out" && ok "a job within the slots registers" || bad "valid registration refused"
grep -q "a sample of 4000 processes: bad_argument sample: 4000 processes, more than ductiled's 4 slots" "$T/hosts.out" &&
  grep -q "resized to 4000: bad_argument" "$T/hosts.out" && ok "samples and resizes beyond the capacity refused" || bad "sizes beyond capacity"
[ "$(ctl --json slots | jget 'd["hosts"][0]["used"]')" -le 4 ] && ok "the slots in use never exceed the host's 4" || bad "slots: $(ctl --json slots)"
peer list_text "$SOCK" > "$T/list.out" 2>&1
cat "$T/list.out"
grep -q "full list: keys as jobs_summary, differences from status none, binary kept" "$T/list.out" &&
  ok "list's text (jobs_list.c) says what status says, escaped strings included" || bad "list text: $(cat "$T/list.out")"
grep -q "brief list: keys \['binary', 'iteration', 'iteration_s', 'job', 'pending', 'procs', 'start', 'state', 'tag', 'uid'\], values as the full list's" "$T/list.out" &&
  ok "list brief: only the table's fields" || bad "list brief"
grep -q "brief 3: bad_argument" "$T/list.out" && ok "list brief must be a boolean (the edge)" || bad "list brief 3"
stop_daemon
sanitizer_clean "--slots"

# 3. a flood of padded samples, events and re-registrations: memory bounded
rm -f "$T/state.json"
start_daemon --slots 64
rss0=$(awk '/VmRSS/ {print $2}' /proc/$DPID/status)
peer flood "$SOCK" 8 700 $((3 * ${TEST_TIME_SCALE:-1})) > "$T/flood.out" 2>&1 &
fp=$!
wait_until 120 'grep -q flooded "$T/flood.out"' || bad "flood did not finish"
rss1=$(awk '/VmRSS/ {print $2}' /proc/$DPID/status); hwm=$(awk '/VmHWM/ {print $2}' /proc/$DPID/status)
[ "$(ctl --json list | jget 'len([j for j in d["jobs"] if j["state"] == "running"])')" = 8 ] && ok "8 jobs running, no ghost from 350 second registrations" ||
  bad "jobs: $(ctl --json list | jget '[(j["tag"], j["state"]) for j in d["jobs"]]')"
n=$(ctl --json status 1 --history 512 | jget 'len(d["history"])')
big=$(ctl --json status 1 --history 512 | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(max([len(json.dumps(s)) for s in d["history"]] or [0]))')
[ "$n" -le 512 ] && [ "$big" -lt 1000 ] && ok "job 1 keeps $n samples of at most $big bytes (the padding is not kept)" || bad "history: $n samples, largest $big bytes"
ev=$(ctl --json status 1 --history 0 | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(len(d["events"]), max([len(json.dumps(e)) for e in d["events"]] or [0]))')
ok "job 1 keeps $ev (events, largest in bytes)"
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
  ok "daemon memory ${rss0} kB -> ${rss1} kB (peak $hwm kB) under AddressSanitizer (its quarantine: not bounded there)"
else
  # 8 jobs x (512 samples + 256 events), each bounded: a few MB; 640 MiB before issue 23
  [ "$hwm" -lt 65536 ] && ok "daemon memory ${rss0} kB -> ${rss1} kB, peak $hwm kB after 8 x 700 padded 60 KiB samples (and 175 padded events each)" ||
    bad "daemon grew to $hwm kB (from $rss0 kB)"
fi
wait $fp
stop_daemon
sanitizer_clean "flood"
exit $fail

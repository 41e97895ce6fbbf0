#!/bin/sh
# A job of 65,536 ranks (issue 25, item 3): a simulated job
# (tests/controller/simjob.py: real sockets, the real protocol, no MPI) of
# 65,536 ranks placed round robin over 1,024 hosts of a (fake) Slurm
# allocation registers with the host of every rank as {host: rank set}.
# ductiled's picture must be the job's: 64 ranks on each host.  A shrink of
# 16,384 that names no ranks: ductiled --slurm chooses the ranks that empty
# 256 whole hosts (src/daemon/rankpick.c), sends them as a rank set, and
# gives back exactly the hosts the job no longer uses once their processes
# exited.  A shrink naming 3,000 arbitrary ranks (a rank set of about 17 KB)
# then leaves every host in use: its picture matches the job's, host by
# host, and nothing more is given back.  First, under a hostfile, the same
# job placed at random registers with a rank_hosts of about 400 KB (above
# the 64 KiB an unauthenticated peer may send; 1 MiB after authentication).
. "$abs_top_srcdir/tests/controller/common.sh"
SIM="$abs_top_srcdir/tests/controller/simjob.py"
S=$((${TEST_TIME_SCALE:-1}))
export FAKE_SLURM="$T/slurm" PATH="$abs_top_srcdir/tests/controller/fake-slurm:$PATH" FAKE_SLURM_CPUS=64
mkdir -p "$FAKE_SLURM"
# 0. a random placement under a hostfile: the largest registration, in one message
"$PY" -c 'print("\n".join("n%d slots=64" % (i + 1) for i in range(1024)))' > "$T/hostfile"
start_daemon --hostfile "$T/hostfile" --no-state
timeout -k 10 $((120 * S)) "$PY" "$SIM" "$SOCK" 65536 "n%d:1024" random $((100 * S)) "$T/stop0" "$T/view.json" \
  > "$T/simjob0.log" 2>&1 &
JOBPIDS="$JOBPIDS $!"
wait_until 60 '[ -s "$T/view.json" ]' && cat "$T/simjob0.log" || { bad "the randomly placed job did not register"; cat "$T/simjob0.log"; }
J=$(jget 'd["job"]' < "$T/view.json")
ctl --json status "$J" > "$T/status0.json" 2>&1
"$PY" - "$T/status0.json" "$T/view.json" <<'PYEOF' && ok "random placement: ductiled's picture is the job's, rank by rank" || bad "random placement: the picture differs"
import json, sys
st, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if st["rank_sets"] == v["rank_sets"] and st["procs"] == 65536 else 1)
PYEOF
touch "$T/stop0"
stop_daemon
rm -f "$T/view.json" "$T/state.json"
"$PY" -c 'print(",".join("n%d" % (i + 1) for i in range(1024)))' > "$FAKE_SLURM/nodelist"
start_daemon --slurm-job 4242 --slurm-sync 1
timeout -k 10 $((240 * S)) "$PY" "$SIM" "$SOCK" 65536 "n%d:1024" cyclic $((200 * S)) "$T/stop" "$T/view.json" \
  > "$T/simjob.log" 2>&1 &
JOBPIDS="$JOBPIDS $!"
wait_until 60 '[ -s "$T/view.json" ]' || { bad "the simulated job did not register"; cat "$T/simjob.log"; exit 1; }
cat "$T/simjob.log"
J=$(jget 'd["job"]' < "$T/view.json")
# compare: ductiled's status of the job against the job's own view, host by host
same_view() {
  ctl --json status "$J" > "$T/status.json" 2>&1 || return 1
  "$PY" - "$T/status.json" "$T/view.json" "$1" <<'PYEOF'
import json, sys
st, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d = {h["name"]: h["procs"] for h in st["hosts"] if h["procs"]}
if st["procs"] != v["procs"] or d != v["hosts"]:
    sys.exit(1)
if sys.argv[3] == "sets" and st["rank_sets"] != v["rank_sets"]:
    sys.exit(1)
PYEOF
}
same_view sets && ok "ductiled's picture is the job's: $(jget 'd["procs"]' < "$T/status.json") ranks, 64 on each of $(jget 'len(d["hosts"])' < "$T/status.json") hosts, the same rank set on each (n1: $(jget 'd["rank_sets"]["n1"]' < "$T/status.json"))" ||
  bad "picture differs: $(head -c 600 "$T/status.json")"
[ "$(jget 'd["placement"]' < "$T/status.json")" = known ] && ok "placement known" || bad "placement $(jget 'd["placement"]' < "$T/status.json")"
ctl list > "$T/list.out" 2>&1 && grep -q "simjob" "$T/list.out" && ok "ductilectl list shows it: $(grep simjob "$T/list.out" | head -1)" ||
  bad "list: $(cat "$T/list.out")"

# 1. a shrink of 16,384 that names no ranks: whole hosts empty (the last 256: all hold 64, ties go to the later host)
ctl shrink "$J" 16384 > "$T/shrink1.out" 2>&1 && ok "shrink 16384: $(cat "$T/shrink1.out")" || bad "shrink 16384: $(cat "$T/shrink1.out")"
wait_until 60 '[ "$(jget "d[\"procs\"]" < "$T/view.json")" = 49152 ] && [ "$(jget "d[\"parked\"]" < "$T/view.json")" = 0 ]' ||
  bad "the job did not shrink to 49152: $(cat "$T/view.json" | head -c 300)"
grep -q "shrink 16384 .* ranks " "$T/daemon.log" || true
"$PY" - "$T/view.json" <<'PYEOF' && ok "the leaving ranks emptied hosts n769..n1024 and only them" || bad "the wrong ranks left"
import json, sys
v = json.load(open(sys.argv[1]))
want = {"n%d" % (i + 1): 64 for i in range(768)}
sys.exit(0 if v["hosts"] == want else 1)
PYEOF
wait_until 60 '[ "$(tr "," "\n" < "$FAKE_SLURM/nodelist" | grep -c .)" = 768 ]' &&
  ok "256 hosts given back: the allocation keeps $(tr ',' '\n' < "$FAKE_SLURM/nodelist" | grep -c .) hosts" ||
  bad "give-back: $(tr ',' '\n' < "$FAKE_SLURM/nodelist" | grep -c .) hosts left; updates: $(head -c 300 "$FAKE_SLURM/updates" 2>/dev/null)"
"$PY" - "$T/view.json" "$FAKE_SLURM/nodelist" <<'PYEOF' && ok "the hosts kept are exactly those the job still uses" || bad "a host in use was given back (or an empty one kept)"
import json, sys
v = json.load(open(sys.argv[1]))
kept = set(open(sys.argv[2]).read().strip().split(","))
sys.exit(0 if kept == set(v["hosts"]) else 1)
PYEOF
wait_until 30 'same_view sets' && ok "after the shrink: ductiled's picture is the job's (49152 ranks on 768 hosts)" ||
  bad "after the shrink: picture differs: $(head -c 600 "$T/status.json")"

# 2. a shrink naming 3,000 arbitrary ranks: no host empties, nothing more is given back
RANKS=$("$PY" -c '
import random, sys
sys.path.insert(0, sys.argv[1])
from simjob import rankset_encode
random.seed(25)
print(rankset_encode(sorted(random.sample(range(1, 49152), 3000))))' "$abs_top_srcdir/tests/controller")
ok "an arbitrary rank set of 3000 ranks: ${#RANKS} bytes"
ctl shrink "$J" 3000 --ranks "$RANKS" > "$T/shrink2.out" 2>&1 && ok "shrink 3000 --ranks: $(cat "$T/shrink2.out")" ||
  bad "shrink 3000 --ranks: $(cat "$T/shrink2.out")"
wait_until 60 '[ "$(jget "d[\"procs\"]" < "$T/view.json")" = 46152 ] && [ "$(jget "d[\"parked\"]" < "$T/view.json")" = 0 ]' ||
  bad "the job did not shrink to 46152: $(head -c 300 "$T/view.json")"
wait_until 30 'same_view sets' && ok "after it: ductiled's picture is the job's, host by host and rank by rank ($(jget 'd["procs"]' < "$T/status.json") ranks)" ||
  bad "after the arbitrary shrink: picture differs"
sleep 2
[ "$(tr "," "\n" < "$FAKE_SLURM/nodelist" | grep -c .)" = 768 ] && ok "no host given back: all 768 still run ranks" ||
  bad "hosts given back while in use: $(tr ',' '\n' < "$FAKE_SLURM/nodelist" | grep -c .) left"
# the edge: a rank set naming a rank the job does not have, and one that names a rank twice
ctl shrink "$J" 2 --ranks 5,46152 > "$T/bad1.out" 2>&1 && bad "a rank beyond the job accepted" ||
  ok "refused: $(cat "$T/bad1.out")"
ctl shrink "$J" 3 --ranks 1-4:2,3 > "$T/bad2.out" 2>&1 && bad "a rank named twice accepted" || ok "refused: $(cat "$T/bad2.out")"
touch "$T/stop"
wait_until 20 'grep -q "exited" "$T/list.out" || { ctl list > "$T/list.out" 2>&1; false; }'
kill -0 "$DPID" && ok "ductiled alive" || bad "ductiled died"
daemon_clean
exit $fail

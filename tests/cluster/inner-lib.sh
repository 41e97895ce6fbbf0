# tests/cluster/inner-lib.sh -- sourced by the parts of tests/cluster/direct.sh
# and accounting.sh that run inside a Slurm allocation: ductiled --slurm,
# ductilectl, waits, and the rows of the results table (tools/cluster-table).
# Environment from tests/cluster/common.sh: T, B, S, PYTHON, MPIEXEC,
# MPI_FAMILY, scale, RESULTS.
part=$1
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
SOCK=$T/d.$part.sock
ctl() { "$B/tools/ductilectl" -c "unix:$SOCK" "$@"; }
jget() { "$PYTHON" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# wait_until SECONDS 'condition' (scaled, polled every 0.2 s)
wait_until() {
  local n=$(($1 * 5 * scale)); shift
  while [ $n -gt 0 ]; do eval "$@" && return 0; sleep 0.2; n=$((n - 1)); done
  return 1
}
# ductiled's view of the Slurm job: "name:state:procs:parked" per host
view() { ctl --json slots | jget '" ".join("%s:%s:%d:%d" % (h["name"], h["state"], h["procs"], h["parked"]) for h in d["slurm"]["hosts"])'; }
reason() { ctl --json slots | jget '[h.get("kept_because", "") for h in d["slurm"]["hosts"] if h["name"] == "'"$1"'"][0]'; }
procs() { ctl --json status "$1" 2>/dev/null | jget 'd["procs"]' 2>/dev/null; }
slurm_nodes() { scontrol show hostnames "$(scontrol show job "$SLURM_JOB_ID" -o | tr ' ' '\n' | sed -n 's/^NodeList=//p')" | tr '\n' ' ' | sed 's/ $//'; }
jobid() { ctl --json list | jget '[j["job"] for j in d["jobs"] if j["binary"] == "'"$1"'" and j["state"] == "running"][-1]' 2>/dev/null; }
DP=
start_daemon() {
  "$B/tools/ductiled" --slurm ${GROW:+--slurm-grow} --slurm-sync 0.5 --socket "$SOCK" --state "$T/d.$part.state" -v >> "$T/d.$part.log" 2>&1 &
  DP=$!
  wait_until 10 '[ -S "$SOCK" ] && ctl list >/dev/null 2>&1' || bad "ductiled --slurm did not start: $(tail -3 "$T/d.$part.log")"
}
JOBPID=
cleanup() {
  [ -n "$JOBPID" ] && kill "$JOBPID" 2>/dev/null
  [ -n "$DP" ] && kill "$DP" 2>/dev/null && wait "$DP" 2>/dev/null
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

. "$S/tests/results-lib.sh"

# ductiled.sh -- a private ductiled for the MPI-IO tests (sourced after
# common.sh): like tests/controller/common.sh, an owner-only directory, its
# own socket and state file; bounded waits scale with TEST_TIME_SCALE.
DUCTILED="$B/tools/ductiled"; DUCTILECTL="$B/tools/ductilectl"
SCALE=${TEST_TIME_SCALE:-2}
chmod 700 "$T"
SOCK="$T/d.sock"
DPID=""
export DUCTILE_CONTROLLER="unix:$SOCK" DUCTILE_CONTROLLER_PERIOD=200
io_cleanup() {
  for p in $(jobs -p); do kill "$p" 2>/dev/null; done
  [ -n "$DPID" ] && { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }
  cleanup
}
trap io_cleanup EXIT
start_daemon() {
  "$DUCTILED" --socket "$SOCK" --state "$T/state.json" "$@" >> "$T/daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 100); do
    [ -S "$SOCK" ] && "$DUCTILECTL" -c "unix:$SOCK" list >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  bad "ductiled did not start"; exit 1
}
stop_daemon() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=""; rm -f "$SOCK"; }
ctl() { "$DUCTILECTL" -c "unix:$SOCK" "$@"; }
jget() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# wait_until SECONDS 'shell condition': poll every 0.2 s
wait_until() {
  t=$1; shift
  n=$((t * 5 * SCALE))
  while [ $n -gt 0 ]; do
    if eval "$@"; then return 0; fi
    sleep 0.2; n=$((n - 1))
  done
  return 1
}
# job_id TAG: ductiled's id of the job registered with DUCTILE_JOB_ID=TAG
job_id() { ctl --json list 2>/dev/null | jget "[j['job'] for j in d['jobs'] if j['tag']=='$1'][0]"; }
# run_pair PREFIX: two one-process jobs of $JAC, A with $ARGS_A and B with
# $ARGS_B, registered with the daemon and then started in step (both wait for
# the file $T/PREFIX.go); waits for both.  Reports in $T/PREFIXa.json and
# $T/PREFIXb.json, output in .out, stderr in .log.
run_pair() {
  p=$1
  for n in a b; do
    if [ $n = a ]; then args=$ARGS_A; else args=$ARGS_B; fi
    DUCTILE_JOB_ID="$p$n" DUCTILE_REPORT="$T/$p$n.json" timeout -k 10 $((150 * SCALE)) $MPIEXEC -n 1 "$JAC" $args "$T/$p$n.ckpt" "$T/$p.go" \
      > "$T/$p$n.out" 2> "$T/$p$n.log" &
    eval "PID_$n=\$!"
  done
  wait_until 60 '[ "$(ctl --json list 2>/dev/null | jget "len([j for j in d[\"jobs\"] if j[\"state\"]==\"running\"])")" = 2 ]' ||
    bad "$p: the two jobs did not register"
  touch "$T/$p.go"
  wait $PID_a; ra=$?
  wait $PID_b; rb=$?
  [ $ra -eq 0 ] && [ $rb -eq 0 ] && ok "$p: both jobs exited 0 (A: $ARGS_A, B: $ARGS_B)" || bad "$p: jobs failed: $ra $rb"
}

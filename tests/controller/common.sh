# common.sh -- helpers for the controller tests (sourced).  Each test gets a
# private owner-only directory with its own ductiled socket and state file,
# so tests never touch the default per-user socket and can run in parallel.
set -u
B="$abs_top_builddir"
DUCTILED="$B/tools/ductiled"
DUCTILECTL="$B/tools/ductilectl"
JOB="$B/tests/controller/ctl_job"
PY=${PYTHON:-python3}
T=$(mktemp -d /tmp/ductile-ctl-test-XXXXXX)
chmod 700 "$T"
SOCK="$T/d.sock"
fail=0
DPID=""
JOBPIDS=""
export DUCTILE_CONTROLLER="unix:$SOCK" DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_SUMMARY=0 DUCTILE_REPORT=none

cleanup() {
  for p in $JOBPIDS; do kill "$p" 2>/dev/null; done
  [ -n "$DPID" ] && kill "$DPID" 2>/dev/null
  sleep 0.2
  for p in $JOBPIDS; do kill -9 "$p" 2>/dev/null; done
  [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
  if [ $fail -ne 0 ]; then
    for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done
  fi
  rm -rf "$T"
}
trap cleanup EXIT

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# start_daemon [ductiled options...]: background ductiled, wait for its socket
start_daemon() {
  "$DUCTILED" --socket "$SOCK" --state "$T/state.json" "$@" >> "$T/daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 100); do
    [ -S "$SOCK" ] && "$DUCTILECTL" -c "unix:$SOCK" list >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  bad "ductiled did not start"; cat "$T/daemon.log"; exit 1
}
stop_daemon() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=""; }
# daemon_clean: stop ductiled and fail on a sanitizer report in its log (ASan/UBSan builds)
daemon_clean() {
  [ -n "$DPID" ] && stop_daemon
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/daemon.log"; then
    bad "sanitizer report from ductiled:"; grep -A20 "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/daemon.log" | head -40
  fi
}

ctl() { "$DUCTILECTL" -c "unix:$SOCK" "$@"; }

# start_job NAME NPROCS ARGS...: ctl_job in the background (stdout -> $T/NAME.log), killed after JOB_TIMEOUT s (150)
start_job() {
  name=$1; np=$2; shift 2
  timeout -k 10 "${JOB_TIMEOUT:-150}" $MPIEXEC -n "$np" "$JOB" "$@" > "$T/$name.log" 2>&1 &
  JOBPIDS="$JOBPIDS $!"
  eval "PID_$name=$!"
}

# jq-like query on JSON from stdin: jget 'expression over d'
jget() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# wait_until SECONDS 'shell condition': poll every 0.2 s
wait_until() {
  t=$1; shift
  n=$((t * 5 * ${TEST_TIME_SCALE:-1}))  # slower builds (sanitizers) and busy machines get more time
  while [ $n -gt 0 ]; do
    if eval "$@"; then return 0; fi
    sleep 0.2; n=$((n - 1))
  done
  return 1
}

# job_field JOBID EXPR: evaluate EXPR over the job's status JSON (d)
job_field() { ctl --json status "$1" --history 50 2>/dev/null | jget "$2" 2>/dev/null; }

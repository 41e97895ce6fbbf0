#!/bin/sh
# bench/io-interference.sh -- I/O interference between two Jacobi jobs with
# periodic checkpoints (the CLARISSE/FlexMPI paper, section 5.1, use cases C
# and D scaled to a 2-core machine): I/O time and total time with no
# coordination, exclusive I/O (CLARISSE's I/O scheduling), Phase Shifting
# and Period Coupling (both combined with exclusive I/O, like the paper's
# "combined" runs).  Prints a table, writes a CSV and, with matplotlib, a
# timeline like the paper's Fig. 13.  Prints numbers; not a test.
#
# usage: bench/io-interference.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR: a configured and built tree (default: the current directory)
#   OUT_DIR:   results (default: ./io-interference-results)
#   IOB_CASES="C D E N" IOB_MODES="none exclusive phase-shift period-coupling policy"
#
# The jobs (tests/io/io_jacobi) compute 100 ms per iteration on one process
# (ideal scaling, so resizes pay off on a shared 2-core machine) and write a
# checkpoint every 60 iterations to a storage device emulated by a lock file:
# a checkpoint needs 400 ms of the device, two at once share it (each takes
# up to twice as long).  Case C: two identical 1-process jobs (same period,
# phases at the same time).  Case D: job 1 on 2 processes (period ~3.4 s,
# 600 iterations), job 2 on 1 process (period ~6.4 s, 300 iterations).
# Case E: three 1-process jobs, two like C's and a third with a checkpoint
# every 40 iterations (period ~4.4 s, 200 iterations).  Case N: C's jobs
# not malleable (DUCTILE_MIN_PROCS = DUCTILE_MAX_PROCS = their size: no
# controller may resize them).  Mode `policy`: ductiled --io-policy auto
# (the jobs ask for the token; ductiled predicts the I/O time of every mode
# and applies the cheapest by its margin: docs/policies.md).
set -u
case "${1:-}" in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
BD=$(cd "${1:-.}" && pwd) || exit 1
OUT=${2:-io-interference-results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$BD/tests/env.sh"
PY=${PYTHON:-python3}
JAC="$BD/tests/io/io_jacobi"
[ -x "$JAC" ] || { echo "build first: make -C $BD" >&2; exit 1; }
[ "$MPI_FAMILY" = openmpi ] && { OMPI_MCA_io=romio321; export OMPI_MCA_io; }
# checkpoints are ~3 s apart; a token or device wait inside one must not split it
export DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_IO_PHASE_GAP=1000
W=$(mktemp -d /tmp/ductile-iobench-XXXXXX); chmod 700 "$W"
DPID=""
trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; rm -rf "$W"' EXIT
CASES=${IOB_CASES:-C D E N}
MODES=${IOB_MODES:-none exclusive phase-shift period-coupling policy}

jobs_of() {  # PROCS,ITERATIONS,IO_EVERY of each job of a case
  case $1 in
    C|N) echo "1,300,60 1,300,60" ;;
    D) echo "2,600,60 1,300,60" ;;
    E) echo "1,300,60 1,300,60 1,200,40" ;;
    *) echo "bench/io-interference.sh: unknown case '$1' (C, D, E, N)" >&2; return 1 ;;
  esac
}

run() {  # run CASE MODE
  c=$1; m=$2; name="$c-$m"; sock="$W/d.sock"
  rm -f "$W"/*.go "$W"/*.ckpt "$W/state.json" "$W/device"
  pol=none; excl=0
  case $m in exclusive) excl=1 ;; phase-shift|period-coupling) excl=1; pol=$m ;; policy) excl=1; pol=auto ;; esac
  "$BD/tools/ductiled" --socket "$sock" --no-state --slots 6 --io-policy $pol --io-uncertainty 0.3 \
    --io-overhead 0.5 > "$OUT/$name.daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
  js=$(jobs_of "$c") || exit 2
  k=0; pids=""
  for spec in $js; do
    k=$((k + 1)); n=${spec%%,*}; rest=${spec#*,}; it=${rest%%,*}; every=${rest#*,}
    fixed=""; [ "$c" = N ] && fixed="DUCTILE_MIN_PROCS=$n DUCTILE_MAX_PROCS=$n"
    env $fixed DUCTILE_CONTROLLER="unix:$sock" DUCTILE_IO_EXCLUSIVE=$excl IOJ_DEVICE="$W/device" DUCTILE_JOB_ID=job$k \
      DUCTILE_REPORT="$OUT/$name.job$k.json" timeout 300 $MPIEXEC -n $n "$JAC" 64 $it $every 100 400 "$W/$k.ckpt" \
      "$W/run.go" > "$OUT/$name.job$k.out" 2> "$OUT/$name.job$k.log" &
    pids="$pids $!"
  done
  # start all in step once all registered
  for _ in $(seq 1 300); do
    r=$("$BD/tools/ductilectl" -c "unix:$sock" --json list 2>/dev/null |
        "$PY" -c "import json,sys; print(len(json.load(sys.stdin)['jobs']))" 2>/dev/null)
    [ "${r:-0}" -ge $k ] && break; sleep 0.2
  done
  touch "$W/run.go"
  for p in $pids; do wait $p; done
  "$BD/tools/ductilectl" -c "unix:$sock" --json list > "$OUT/$name.jobs.json" 2>/dev/null
  for q in $(seq 1 $k); do
    "$BD/tools/ductilectl" -c "unix:$sock" --json events $q > "$OUT/$name.events$q.json" 2>/dev/null
  done
  kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; DPID=""
  echo "case $c, $m: $(for q in $(seq 1 $k); do grep -h '^io_jacobi' "$OUT/$name.job$q.out"; done | tr '\n' ' ')" >&2
}
for c in $CASES; do
  jobs_of "$c" > /dev/null || exit 2
  for m in $MODES; do
    # same periods: not applicable (the paper's note)
    { [ "$c" = C ] || [ "$c" = N ]; } && [ "$m" = period-coupling ] && continue
    run "$c" "$m"
  done
done
# the plot wants matplotlib: the project's venv has it (see the plot script)
VPY="$(cd "$(dirname "$0")/.." && pwd)/.deps-local/venv/bin/python3"
[ -x "$VPY" ] && "$VPY" -c "import matplotlib" 2>/dev/null && PY=$VPY
"$PY" "$(dirname "$0")/io-interference-plot.py" "$OUT"

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
#   IOB_CASES="C D" IOB_MODES="none exclusive phase-shift period-coupling"
#
# The jobs (tests/io/io_jacobi) compute 100 ms per iteration on one process
# (ideal scaling, so resizes pay off on a shared 2-core machine) and write a
# checkpoint every 60 iterations to a storage device emulated by a lock file:
# a checkpoint needs 400 ms of the device, two at once share it (each takes
# up to twice as long).  Case C: two identical 1-process jobs (same period,
# phases at the same time).  Case D: job 1 on 2 processes (period ~3.4 s,
# 600 iterations), job 2 on 1 process (period ~6.4 s, 300 iterations).
set -u
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
CASES=${IOB_CASES:-C D}
MODES=${IOB_MODES:-none exclusive phase-shift period-coupling}

run() {  # run CASE MODE
  c=$1; m=$2; name="$c-$m"; sock="$W/d.sock"
  rm -f "$W"/*.go "$W"/*.ckpt "$W/state.json" "$W/device"
  pol=none; excl=0
  case $m in exclusive) excl=1 ;; phase-shift|period-coupling) excl=1; pol=$m ;; esac
  "$BD/tools/ductiled" --socket "$sock" --no-state --slots 6 --io-policy $pol --io-uncertainty 0.3 \
    --io-overhead 0.5 > "$OUT/$name.daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
  if [ "$c" = C ]; then n1=1; a1="64 300 60 100 400"; n2=1; a2="64 300 60 100 400"
  else n1=2; a1="64 600 60 100 400"; n2=1; a2="64 300 60 100 400"; fi
  DUCTILE_CONTROLLER="unix:$sock" DUCTILE_IO_EXCLUSIVE=$excl IOJ_DEVICE="$W/device" DUCTILE_JOB_ID=job1 \
    DUCTILE_REPORT="$OUT/$name.job1.json" timeout 300 $MPIEXEC -n $n1 "$JAC" $a1 "$W/1.ckpt" "$W/run.go" \
    > "$OUT/$name.job1.out" 2> "$OUT/$name.job1.log" &
  p1=$!
  DUCTILE_CONTROLLER="unix:$sock" DUCTILE_IO_EXCLUSIVE=$excl IOJ_DEVICE="$W/device" DUCTILE_JOB_ID=job2 \
    DUCTILE_REPORT="$OUT/$name.job2.json" timeout 300 $MPIEXEC -n $n2 "$JAC" $a2 "$W/2.ckpt" "$W/run.go" \
    > "$OUT/$name.job2.out" 2> "$OUT/$name.job2.log" &
  p2=$!
  # start both in step once both registered
  for _ in $(seq 1 300); do
    k=$("$BD/tools/ductilectl" -c "unix:$sock" --json list 2>/dev/null |
        "$PY" -c "import json,sys; print(len(json.load(sys.stdin)['jobs']))" 2>/dev/null)
    [ "${k:-0}" -ge 2 ] && break; sleep 0.2
  done
  touch "$W/run.go"
  wait $p1; wait $p2
  kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; DPID=""
  echo "case $c, $m: $(grep -h '^io_jacobi' "$OUT/$name.job1.out" "$OUT/$name.job2.out" | tr '\n' ' ')" >&2
}
for c in $CASES; do
  for m in $MODES; do
    [ "$c" = C ] && [ "$m" = period-coupling ] && continue  # same periods: not applicable (the paper's note)
    run "$c" "$m"
  done
done
# the plot wants matplotlib: the project's venv has it (see the plot script)
VPY="$(cd "$(dirname "$0")/.." && pwd)/.deps-local/venv/bin/python3"
[ -x "$VPY" ] && "$VPY" -c "import matplotlib" 2>/dev/null && PY=$VPY
"$PY" "$(dirname "$0")/io-interference-plot.py" "$OUT"

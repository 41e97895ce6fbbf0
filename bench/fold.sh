#!/bin/sh
# bench/fold.sh -- what process folding costs (docs/folding.md): a job of P
# processes folded onto P/2 cores by `ductilectl fold` against the same job
# run on P/2 processes, for a compute-bound and a communication-bound
# program (tests/fold/fold_app, unmodified, libductile preloaded), plus the
# same P processes crammed onto P/2 cores by taskset without Ductile's
# waiting (the MPI spins).  Prints a table and writes fold-<mpi>.csv; not a
# test (numbers only).  Run it once per build; bench/fold-plot.py draws the
# CSVs.
#
# usage: bench/fold.sh [BUILD_DIR [OUT_DIR]]
#   FOLD_P="2 4", FOLD_REPS=3, FOLD_KINDS="compute comm",
#   FOLD_CONFIGS="unfolded folded taskset half", FOLD_APPEND=1 (add to the CSV),
#   FOLD_TASKSET_COMM_REPS=1 (a communication-bound run under taskset takes minutes)
# Strong scaling: the compute-bound job does WORK passes over its vector in
# total per iteration, split among its processes; the communication-bound
# job exchanges MSGS small messages per rank and iteration and computes
# little.  The fold is sent right after the job registers; the times are
# those of the second half of the loop (rank 0's HALF line), when every rank
# is folded for sure.
set -u
BD=$(cd "${1:-.}" && pwd) || exit 1
OUT=${2:-fold-results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$BD/tests/env.sh"
PY=${PYTHON:-python3}
APP="$BD/tests/fold/fold_app"
[ -x "$APP" ] || { echo "build first: make -C $BD tests/fold/fold_app" >&2; exit 1; }
T=$(mktemp -d /tmp/ductile-fold-bench-XXXXXX)
SOCK="$T/d.sock"
"$BD/tools/ductiled" --socket "$SOCK" --state "$T/state.json" --slots 64 > "$T/d.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
ctl() { "$BD/tools/ductilectl" -c "unix:$SOCK" "$@"; }
CSV="$OUT/fold-$MPI_FAMILY.csv"
[ "${FOLD_APPEND:-0}" = 1 ] && [ -s "$CSV" ] || echo "mpi,kind,p,config,cores,half_s" > "$CSV"
REPS=${FOLD_REPS:-3}
WORK=${FOLD_WORK:-40}
ITERS_C=${FOLD_ITERS_C:-1000}
ITERS_M=${FOLD_ITERS_M:-10000}
MSGS=${FOLD_MSGS:-30}

half() { sed -n 's/^HALF //p' "$1"; }
NCPU=$(nproc)

# run NAME NP FOLD ITERS WORK MSGS [PREFIX...]: one run, its HALF seconds
# (PREFIX runs each rank: after mpiexec's own binding)
run() {
  name=$1 np=$2 fold=$3 iters=$4 work=$5 msgs=$6; shift 6
  if [ "$fold" -gt 0 ]; then
    before=$(ctl --json list 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(max([x["job"] for x in d["jobs"]] or [0]))')
    DUCTILE_CONTROLLER="unix:$SOCK" DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_SUMMARY=0 DUCTILE_REPORT=none DUCTILE_VERBOSE=1 \
      timeout 600 $MPIEXEC -n "$np" env LD_PRELOAD="$LIBDUCTILE" "$@" "$APP" "$iters" "$work" "$msgs" > "$T/$name.log" 2>&1 &
    jp=$!
    j=""
    for _ in $(seq 200); do
      j=$(ctl --json list 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); r=[x["job"] for x in d["jobs"] if x["state"]=="running" and x["job"] > '"$before"']; print(r[-1] if r else "")')
      [ -n "$j" ] && break
      sleep 0.05
    done
    [ -n "$j" ] && ctl fold "$j" "$fold" > /dev/null 2>&1
    wait $jp
    # a run that ended before every rank folded does not count
    if [ "$(grep -c "fold: folded" "$T/$name.log")" != "$np" ]; then echo NA; return; fi
  else
    DUCTILE_CONTROLLER=off DUCTILE_SUMMARY=0 DUCTILE_REPORT=none \
      timeout 600 $MPIEXEC -n "$np" env LD_PRELOAD="$LIBDUCTILE" "$@" "$APP" "$iters" "$work" "$msgs" > "$T/$name.log" 2>&1
  fi
  half "$T/$name.log"
}

printf "%-8s %-8s %3s %-34s %5s %10s\n" MPI kind P config cores "time (s)"
for P in ${FOLD_P:-2 4}; do
  H=$((P / 2))
  for kind in ${FOLD_KINDS:-compute comm}; do
    if [ $kind = compute ]; then it=$ITERS_C; wp=$((WORK / P)); wh=$((WORK / H)); m=0
    else it=$ITERS_M; wp=1; wh=1; m=$MSGS; fi
    last=$((H - 1))
    for cfg in "unfolded:$P:0" "folded:$P:$H" "taskset:$P:0" "half:$H:0"; do
      c=${cfg%%:*}; rest=${cfg#*:}; np=${rest%%:*}; fold=${rest#*:}
      case " ${FOLD_CONFIGS:-unfolded folded taskset half} " in *" $c "*) ;; *) continue;; esac
      reps=$REPS
      # the MPI spins on a shared core: a communication-bound run takes minutes
      [ $c = taskset ] && [ $kind = comm ] && reps=${FOLD_TASKSET_COMM_REPS:-1}
      w=$wp; [ $c = half ] && w=$wh
      cores=$P; [ $c != unfolded ] && cores=$H
      [ "$cores" -gt "$NCPU" ] && cores=$NCPU
      for r in $(seq "$reps"); do
        if [ $c = taskset ]; then t=$(run "$kind-$c-$r" "$np" 0 "$it" "$w" "$m" taskset -c "0-$last")
        else t=$(run "$kind-$c-$r" "$np" "$fold" "$it" "$w" "$m"); fi
        [ "$t" = NA ] || echo "$MPI_FAMILY,$kind,$P,$c,$cores,$t" >> "$CSV"
        [ "$t" = NA ] && t="(ended before every rank folded: not counted)"
        case $c in
          unfolded) d="$P processes, not folded ($cores cores)";;
          folded) d="$P processes folded onto $H core(s)";;
          taskset) d="$P processes on $H core(s), taskset";;
          half) d="$H process(es) on $H core(s)";;
        esac
        printf "%-8s %-8s %3s %-34s %5s %10s\n" "$MPI_FAMILY" "$kind" "$P" "$d" "$cores" "$t"
      done
    done
  done
done
echo "CSV: $CSV"

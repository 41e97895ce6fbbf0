#!/bin/sh
# background-stress.sh -- repeat large background redistributions and count
# the runs that fail (wrong data, crash, or no exit within 120 s).  This is
# how the Open MPI 4 osc/ucx failures of background one-sided transfers were
# measured (docs/rma.md, "Known limits").  Prints numbers; asserts nothing.
#
# usage: bench/background-stress.sh BUILD_DIR [RUNS] [METHODS] [STRATEGY]
#   BUILD_DIR  a configured and built tree (build-openmpi, build-mpich, ...)
#   RUNS       runs per method (default 10)
#   METHODS    DUCTILE_REDIST values, space-separated (default "rma-lock rma-lockall")
#   STRATEGY   DUCTILE_REDIST_CONSTANT: wd (default), thread or blocking
# Each run: 64 MiB of constant data (plus the variable arrays) through
# 1 -> 2 -> 4 -> 2 -> 1 -> 4 -> 1 over 20 iterations of 10 ms; every element
# is checked after every control point.  Failing runs keep their stderr in
# /tmp/ductile-stress-*.err.  Extra settings come from the environment
# (e.g. DUCTILE_RMA_WINDOW=create, UCX_TLS=...).
set -u
case "${1:-}" in ""|-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
B=$(cd "$1" && pwd) || exit 2
runs=${2:-10}
methods=${3:-rma-lock rma-lockall}
strategy=${4:-wd}
. "$B/tests/env.sh"
if [ "$strategy" = thread ]; then app="$B/tests/rma/resize_app_mt"; else app="$B/tests/malleable/resize_app"; fi
[ -x "$app" ] || { echo "background-stress: $app not built (make check builds it)" >&2; exit 2; }
out=$(mktemp); trap 'rm -f "$out" "$out.err"' EXIT
echo "$MPI_FAMILY, $(basename "$app"), DUCTILE_REDIST_CONSTANT=$strategy, $runs runs per method"
for m in $methods; do
  bad=0 i=0 t0=$(date +%s)
  while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    env DUCTILE_REPORT=none DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER=off DUCTILE_REDIST="$m" \
      DUCTILE_REDIST_CONSTANT="$strategy" RESIZE_APP_CONST=500000 \
      DUCTILE_SCHEDULE="2:+1,5:+2,8:-2,11:-1,13:+3,16:-3" \
      timeout 120 $MPIEXEC -n 1 "$app" 20 10 > "$out" 2> "$out.err"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "failures=0" "$out"; then
      bad=$((bad + 1)); cp "$out.err" "/tmp/ductile-stress-$m-$strategy-$i.err"
      echo "  $m run $i: exit code $rc$([ $rc -eq 124 ] && echo ' (timeout)'), stderr in /tmp/ductile-stress-$m-$strategy-$i.err"
    fi
  done
  echo "$m+$strategy: $bad of $runs runs failed ($(( $(date +%s) - t0 )) s)"
done

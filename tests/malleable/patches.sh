#!/bin/sh
# Patch sets (seed 003; EMPI_Register_patches): bench/repartition checks every
# element after repartitioning a block-distributed grid onto patches with the
# greedy and the balanced placement and the per-patch, per-rank and auto
# schemes (2-D and 3-D, patch sizes that do not divide the grid: shared and
# truncated patches), and, in its malleable mode, after resizes 3->5->2
# (Merge; Baseline for one) that repartition the patches onto the new
# processes; the balanced placement must give every process floor(M/N) or
# floor(M/N)+1 patches.  The plot script must run on the CSV.
set -u
prog="$abs_top_builddir/bench/repartition"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
for c in "4 2 50 7" "3 3 22 5" "5 1 101 9"; do
  set -- $c
  timeout -k 10 $t $MPIEXEC -n $1 "$prog" $2 $3 $4 2 > rep.csv 2> rep.err
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "# check: every element ok" rep.err || grep -q FAIL rep.csv; then
    echo "FAIL: repartition on $1 processes, $2-D $3 patch $4: rc $rc"; grep -v "^ductile" rep.err | tail; grep FAIL rep.csv | head; fail=1
  else
    echo "ok: repartition on $1 processes, $2-D $3 patch $4"; grep "^#" rep.err
  fi
done
if $PYTHON -c "import matplotlib" 2>/dev/null; then
  $PYTHON "$abs_top_srcdir/bench/repartition-plot.py" rep.csv rep.png > plot.out 2>&1 && [ -s rep.png ] ||
    { echo "FAIL: bench/repartition-plot.py"; cat plot.out; fail=1; }
fi
for c in "greedy patch merge" "greedy rank merge" "balanced auto merge" "balanced patch baseline"; do
  set -- $c
  DUCTILE_RESIZE_METHOD=$3 DUCTILE_SCHEDULE="2:+2,5:-3" timeout -k 10 $t $MPIEXEC -n 3 "$prog" --resize 8 3 30 7 $1 $2 > out 2> err
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "FINAL size=2 ok" out || grep -q FAIL out; then
    echo "FAIL: 3->5->2 $1 $2 $3: rc $rc"; cat out; grep -v "^ductile" err | tail; fail=1
  else
    echo "ok: 3->5->2 $1 $2 $3"; grep "^resize" out
  fi
done
exit $fail

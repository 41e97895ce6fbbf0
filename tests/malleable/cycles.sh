#!/bin/sh
# 20 expand/shrink cycles in a row (2 -> 3 -> 2 ...), data checked after each;
# removed processes wait for the job's end without spinning a core.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
sched=""
i=0
while [ $i -lt 20 ]; do
  sched="$sched${sched:+,}$((2*i)):+1,$((2*i+1)):-1"
  i=$((i+1))
done
run "20 cycles 2<->3 merge col" 2 41 2 40 DUCTILE_SCHEDULE="$sched" && check_departed "20 cycles" 20
# removed processes: waiting in MPI_Finalize must cost (almost) no CPU
n=$(grep -c "^REMOVED" "$tmp/out")
if [ "$n" -ne 20 ]; then echo "FAIL: expected 20 removed processes, saw $n"; fail=1; fi
$PYTHON - "$tmp/out" <<'PY' || fail=1
import re, sys
bad = []
for line in open(sys.argv[1]):
    m = re.match(r"REMOVED waited ([0-9.]+) s cpu ([0-9.]+) s", line)
    if m:
        w, c = float(m.group(1)), float(m.group(2))
        if w > 0.5 and c > 0.25 * w:
            bad.append((w, c))
if bad:
    sys.exit("FAIL: removed processes spun while waiting: %s" % bad)
print("ok: removed processes waited asleep")
PY
# blocks kept for the next resize (DUCTILE_BLOCK_CACHE_MIB, docs/rma.md "The first touch"): a constant
# array of 150000 rows of 128 bytes (4.8-9.6 MB per process), 2 -> 3 -> 2 -> 3 -> 2; from the third
# resize on the staying processes' new blocks are the ones the resize before last replaced, and
# every element is checked after each resize; with the cache off, the same without reuse
for cache in 1024 0; do
  if run "4 cycles with kept blocks, cache $cache MiB" 2 5 2 4 DUCTILE_SCHEDULE="0:+1,1:-1,2:+1,3:-1" \
       RESIZE_APP_CONST=150000 DUCTILE_BLOCK_CACHE_MIB=$cache DUCTILE_VERBOSE=2; then
    n=$(grep -c "one kept from an earlier resize" "$tmp/err")
    if [ $cache -gt 0 ] && [ "$n" -lt 4 ]; then
      echo "FAIL: cache $cache: expected kept blocks reused at resizes 3 and 4 on ranks 0 and 1, saw $n"; fail=1
    fi
    if [ $cache -eq 0 ] && [ "$n" -ne 0 ]; then echo "FAIL: cache 0: $n kept blocks reused"; fail=1; fi
  fi
done
# memory pressure while blocks are kept (DUCTILE_TEST_FAIL=blockcache@1): rank 1's first new block after
# blocks were kept cannot be allocated; its kept blocks are given back and the allocation retried, the
# resize commits (all 4 resizes ok in the report) and every element is right
if run "4 cycles, memory pressure on rank 1 with blocks kept" 2 5 2 4 DUCTILE_SCHEDULE="0:+1,1:-1,2:+1,3:-1" \
     RESIZE_APP_CONST=150000 DUCTILE_BLOCK_CACHE_MIB=1024 DUCTILE_VERBOSE=2 DUCTILE_TEST_FAIL=blockcache@1; then
  n=$(grep -c "given back, the allocation retried" "$tmp/err")
  [ "$n" -eq 1 ] || { echo "FAIL: memory pressure: expected the kept blocks given back once, saw $n"; fail=1; }
fi
exit $fail

#!/bin/sh
# 3-D blocks through every ordered pair of sizes 1..8 (issue 14): one run of
# tests/malleable/heat (3-D, EMPI_Register_block) walks an Euler circuit of
# the complete directed graph on 1..8 -- 56 resizes, each pair s->t (s != t)
# exactly once -- resizing every 2 iterations; after every resize the
# program checks the halos Ductile filled (BADHALO otherwise), and the final
# grid must hash to the static run's value.  Long (dozens of spawns): in
# `make check-long`, not in `make check`.
set -u
prog="$abs_top_builddir/tests/malleable/heat"
PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
t=$((600 * ${TEST_TIME_SCALE:-2} / 2))
hash_of() { grep -o "hash [0-9a-f]* on $2 processes" "$1" | cut -d" " -f2; }
# the circuit (Hierholzer) as DUCTILE_SCHEDULE entries ITER:=SIZE, and the sizes it visits
sched=$($PYTHON - <<'PY'
adj = {s: [t for t in range(1, 9) if t != s] for s in range(1, 9)}
stack, circ = [1], []
while stack:
    v = stack[-1]
    if adj[v]:
        stack.append(adj[v].pop())
    else:
        circ.append(stack.pop())
circ.reverse()
pairs = list(zip(circ, circ[1:]))
assert len(pairs) == 56 and len(set(pairs)) == 56
print(",".join("%d:=%d" % (2 * (k + 1), t) for k, (s, t) in enumerate(pairs)))
PY
) || { echo "FAIL: could not make the circuit"; exit 1; }
iters=$((2 * 56 + 6))
timeout -k 10 $t $MPIEXEC -n 1 "$prog" 3 12 12 > ref 2>&1 || { echo "FAIL: 3-D static run"; cat ref; exit 1; }
ref=$(hash_of ref 1)
[ -n "$ref" ] || { echo "FAIL: static run: no hash"; cat ref; exit 1; }
# the static result does not depend on the iteration count beyond the last resize: run the same count
timeout -k 10 $t $MPIEXEC -n 1 "$prog" 3 12 "$iters" > ref 2>&1 || { echo "FAIL: 3-D static run ($iters iterations)"; cat ref; exit 1; }
ref=$(hash_of ref 1)
t0=$(date +%s)
DUCTILE_REPORT="$tmp/rep.json" DUCTILE_SCHEDULE="$sched" timeout -k 10 $t $MPIEXEC -n 1 "$prog" 3 12 "$iters" > out 2> err
rc=$?
got=$(hash_of out 1)
n=$($PYTHON -c 'import json,sys; print(sum(1 for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"))' "$tmp/rep.json" 2>/dev/null)
if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || [ "$n" != 56 ] || grep -q "FAIL\|BADHALO" out; then
  echo "FAIL: 56 pairs: rc $rc, hash '$got' (expected $ref), $n ok resizes in the report (expected 56)"; tail -20 out; tail -20 err; exit 1
fi
echo "ok: 3-D heat through all 56 ordered pairs of 1..8 in $(( $(date +%s) - t0 )) s ($n resizes in the report), hash $got as static"

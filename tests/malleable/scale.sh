#!/bin/sh
# bench/scale --quick (issue 25, items 1 and 6), so the benchmark cannot rot:
# expansions 2->4, 4->8 and shrinks 4->2, 8->4 under Ductile next to the raw
# MPI path (every run checks every byte of its data; the bench exits 1 when a
# run fails or its data is wrong), then the spawn timing for n = 1, 2.
# Asserts the exit status, the table's rows and a well-formed CSV (header,
# one row per run, numbers, every process's memory reported) and, where
# matplotlib is installed, that bench/scale-plot.py draws them; never a time.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S=${TEST_TIME_SCALE:-1}
B="$abs_top_builddir/bench/scale"
fail=0
timeout -k 10 $((300 * S)) "$B" --quick --csv "$tmp/scale.csv" > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { echo "FAIL: bench/scale --quick exited $rc"; fail=1; }
for r in "2->4" "4->2" "4->8" "8->4"; do
  grep -A1 "^$r " "$tmp/out" | grep -q "ductile .* [0-9.]*x " || { echo "FAIL: no table row with a ratio for $r"; fail=1; }
done
timeout -k 10 $((300 * S)) "$B" --spawn --counts 1,2 --reps 1 --csv "$tmp/spawn.csv" > "$tmp/sout" 2>&1
rc=$?
cat "$tmp/sout"
[ $rc -eq 0 ] || { echo "FAIL: bench/scale --spawn exited $rc"; fail=1; }
"$PYTHON" - "$tmp/scale.csv" "$tmp/spawn.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = "mpi,kind,p,ns,nd,mib,round,what,redist,spawn_s,merge_s,plan_s,transfer_s,other_s,total_s,ratio,mem_max_kib,mem_sum_kib,processes,hosts"
head = open(sys.argv[1]).readline().strip()
bad = []
if head != want:
    bad.append("header %r" % head)
seen = set()
for r in rows:
    try:
        ns, nd, p = int(r["ns"]), int(r["nd"]), int(r["p"])
        t = [float(r[k]) for k in ("spawn_s", "merge_s", "plan_s", "transfer_s", "total_s", "ratio")]
        mmax, msum, n = int(r["mem_max_kib"]), int(r["mem_sum_kib"]), int(r["processes"])
        if int(r["hosts"]) < 1:
            bad.append("no host in %s" % r)
    except (ValueError, KeyError, TypeError) as e:
        bad.append("row %s: %s" % (r, e))
        continue
    if None in r.values() or len(r) != len(want.split(",")):
        bad.append("row with %d fields: %s" % (len(r), r))
    if min(t) < 0 or t[4] <= 0:
        bad.append("negative or zero time: %s" % r)
    # every process of the run (parents, spawned, leaving) reported its peak memory
    if n != max(ns, nd) or mmax <= 0 or msum < mmax or msum > n * mmax:
        bad.append("memory of %d processes (max %d, sum %d) in %s" % (n, mmax, msum, r))
    if p != min(ns, nd) or {ns, nd} != {p, 2 * p} or r["kind"] != ("expand" if nd > ns else "shrink"):
        bad.append("pair %s" % r)
    seen.add((r["kind"], p, r["what"]))
need = {(k, p, w) for k in ("expand", "shrink") for p in (2, 4) for w in ("raw", "ductile")}
if need - seen or len(rows) != len(need):
    bad.append("runs missing or repeated: %s (%d rows)" % (sorted(need - seen), len(rows)))
sp = list(csv.DictReader(open(sys.argv[2])))
if {(int(r["n"]), r["mode"]) for r in sp} != {(n, m) for n in (1, 2) for m in ("single", "parallel")} or len(sp) != 4:
    bad.append("spawn CSV rows: %s" % sp)
for r in sp:
    if float(r["total_s"]) <= 0 or float(r["spawn_s"]) < 0:
        bad.append("spawn row %s" % r)
for b in bad:
    print("FAIL: CSV:", b)
sys.exit(1 if bad else 0)
PY
# the plot of both CSVs (bench/scale-plot.py), where matplotlib is installed (tools/setup-deps --demo)
if "$PYTHON" -c 'import matplotlib' 2>/dev/null; then
  "$PYTHON" "$abs_top_srcdir/bench/scale-plot.py" "$tmp/scale.png" "$tmp/scale.csv" "$tmp/spawn.csv" \
    && [ -s "$tmp/scale.png" ] || { echo "FAIL: bench/scale-plot.py drew no plot"; fail=1; }
else
  echo "note: matplotlib is not installed: bench/scale-plot.py not run"
fi
[ $fail -eq 0 ] && echo "ok: bench/scale --quick" || echo "FAIL: bench/scale"
exit $fail

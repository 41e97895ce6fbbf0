#!/bin/sh
# The soak (check-long; issue 22, item 9): one job through about 1,000
# resizes, a variable and a constant array checked on every rank after each,
# every tenth resize failing on purpose (an MPI call of the transfer fails on
# one process: the job goes on at its old size, data intact).  Rank 0 prints
# what the job holds every 100 resizes (tests/long/soak_app.c: descriptors,
# threads, resident memory, and how many communicators the MPI can still
# create); after the first 100 resizes none of them may grow (memory: by at
# most SOAK_RSS_SLACK_KB), nor the communicators left shrink by more than 16,
# each compared with the first measure at the same size.
#   - persistent: DUCTILE_PERSISTENT=1, 4 -> 2 -> 4 ...: removed processes
#     stand by, prepared transfers reused (both MPIs, 1,000 resizes); the
#     failing resizes are shrinks into standby;
#   - background: the constant array moves in the background (nb), sizes
#     2 -> 3 -> 2 -> 4 -> 2 ..., every expansion spawns and every removed
#     group exits (a shrink that removes the newest group: docs/malleability.md,
#     "Processes released on shrink"; other shrinks park their processes); the
#     failing resizes are expansions (the next shrink asks for the size the
#     job kept: refused as a no-op) (MPICH: 1,000 resizes; Open MPI 4.1: 60, as its removed
#     spawned processes park until the job ends, tests/long/cycles.sh).
# Every process the job started is gone when mpiexec returns.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
SOAK="$abs_top_builddir/tests/long/soak_app"
T=$((1500 * ${TEST_TIME_SCALE:-2} / 2))
SLACK=${SOAK_RSS_SLACK_KB:-16384}
FAILSPEC=${SOAK_FAIL:-mpi:2@1%10}
N=${SOAK_RESIZES:-1000} # a multiple of 100

# sched N EVERY SIZES...: N resizes, one every EVERY iterations from iteration 1, to the sizes in turn
sched() {
  n=$1 every=$2; shift 2
  $PYTHON - "$n" "$every" "$@" <<'PY'
import sys
n, every, sizes = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
print(",".join("%d:=%s" % (1 + k * every, sizes[k % len(sizes)]) for k in range(n)))
PY
}

# soak NAME NP N EVERY "SIZES" [VAR=value ...]
soak() {
  name=$1 np=$2 n=$3 every=$4 sizes=$5; shift 5
  iters=$((n * every + 2))
  stat=$($PYTHON -c "import sys; n,e=$n,$every; print(','.join(str(1 + k * e) for k in range(0, n + 1, 100)))")
  rep="$tmp/report.json"; rm -f "$rep"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  env DUCTILE_REPORT="$rep" DUCTILE_SUMMARY=0 DUCTILE_SCHEDULE="$(sched "$n" "$every" $sizes)" SOAK_STAT="$stat" \
    DUCTILE_TEST_FAIL="$FAILSPEC" "$@" timeout -k 10 "$T" $MPIEXEC -n "$np" "$SOAK" "$iters" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  sleep 1
  if [ $rc -ne 0 ] || ! grep -q "^FINAL size=.* iterations=$iters failures=0" "$tmp/out"; then
    echo "FAIL: $name: exit code $rc"; grep -v "^ductile:" "$tmp/err" | tail -15; tail -5 "$tmp/out"
    fail=1; return 1
  fi
  left=$(pgrep -f "$SOAK" || true)
  if [ -n "$left" ]; then echo "FAIL: $name: processes still alive after the job: $left"; fail=1; fi
  $PYTHON - "$tmp/out" "$rep" "$name" "$n" "$SLACK" "$(($(date +%s) - t0))" <<'PY' || fail=1
import json, re, sys
out, rep, name, n, slack, secs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
st = [dict(zip(("it", "size", "fds", "threads", "rss", "comms"), map(int, m.groups()))) for m in re.finditer(
    r"STAT it=(\d+) size=(\d+) fds=(\d+) threads=(\d+) rss_kb=(\d+) comms=(\d+)", open(out).read())]
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
failed = [x for x in rc if x["status"] == "failed"]
noop = [x for x in rc if x["status"] == "refused" and x["from"] == x["to"]]
print("   %s: %d resizes done, %d failed (injected), %d no-ops refused (the size a failed one left), in %s s" % (
    name, len(ok), len(failed), len(noop), secs))
for s in st:
    print("     after %4d iterations: size %d, %d fds, %d threads, %d kB, %d communicators left" % (
        s["it"], s["size"], s["fds"], s["threads"], s["rss"], s["comms"]))
errs = []
if len(st) != n // 100 + 1:
    errs.append("%d STAT lines, expected %d" % (len(st), n // 100 + 1))
# every tenth resize fails on rank 1 (resize ids 0, 10, 20, ...); the next one may ask for the size it left
if len(rc) != n or len(ok) + len(failed) + len(noop) != n or len(failed) != n // 10:
    errs.append("%d records: %d done, %d failed, %d no-ops, of %d scheduled (every tenth fails)" % (
        len(rc), len(ok), len(failed), len(noop), n))
wrong = [x for x in failed if not x.get("reason", "").startswith("rank 1:")]
if wrong:
    errs.append("a failure that was not the injected one: %s" % wrong[:1])
# after the first 100 resizes, against the first measure at the same size (a larger world holds more)
base = {}
for s in st[1:]:
    b = base.setdefault(s["size"], s)
    if s["fds"] > b["fds"]:
        errs.append("descriptors grew from %d to %d at size %d" % (b["fds"], s["fds"], s["size"]))
    if s["threads"] > b["threads"]:
        errs.append("threads grew from %d to %d" % (b["threads"], s["threads"]))
    if s["rss"] - b["rss"] > slack:
        errs.append("resident memory grew by %d kB (more than %d)" % (s["rss"] - b["rss"], slack))
    if s["comms"] < b["comms"] - 16:
        errs.append("communicators left fell from %d to %d at size %d" % (b["comms"], s["comms"], s["size"]))
if errs:
    sys.exit("FAIL: %s: %s" % (name, "; ".join(sorted(set(errs)))))
PY
}

soak "persistent 4 <-> 2, $N resizes" 4 "$N" 1 "2 4" DUCTILE_PERSISTENT=1
n=$N slack=$SLACK
# the MPI keeps state per spawned job (raw MPICH 5.0.2: 85 kB each, tests/long/cycles.sh) and rank 0 the
# counters of every departed process for the report (about 20 kB each): 500 spawns and 500 departures,
# 120 kB each
[ "$MPI_FAMILY" = openmpi ] && n=60
SLACK=$((n * 60 + slack))
# 10 ms an iteration: each background transfer completes before the next resize (wall time, not iterations)
soak "background 2 -> 3 -> 2 -> 4 -> 2, $n resizes" 2 $n 2 "3 2 4 2" DUCTILE_REDIST_CONSTANT=nb SOAK_SLEEP_MS=10
exit $fail

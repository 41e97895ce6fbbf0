#!/bin/sh
# A background resize that does not happen leaves nothing behind (issue 22,
# item 5): its one-sided window over the merged communicator, its per-array
# windows (DUCTILE_RMA_WINDOW=create) and its communicators are freed with
# the spawned processes, or left alone everywhere when something may still be
# in flight -- never freed by some processes only.  Before, a cancelled
# background rma-* expansion hung the job's end: every original rank waited
# in MPI_Win_free (the window cached over the merged group, at MPI_Finalize),
# the spawned ones in MPI_Finalize.
#  1. Cancelled at the job's end (the issue's program: 5 iterations on 1
#     process, the resize at the last control point, so it never completes;
#     and other pairs, a shrink too): the run ends, with the static checksum and the
#     documented "the program ended (MPI_Finalize) before the background
#     transfer completed".
#  2. Cancelled mid-run (DUCTILE_TEST_FAIL=bgtransfer-first: the background
#     transfer of the job's first resize fails, after it completed, on the
#     last rank), then another resize that commits, then a clean
#     MPI_Finalize: every method (col, p2p, rma-lock, rma-lockall) with a
#     background strategy each, per-array windows, a shrink and the Baseline
#     method; BGCANCEL_FULL=1 (make check-sweep: tests/long/bgcancel_full.sh)
#     every method with every strategy (nb, wd, thread; nb does not apply to
#     rma-*).
# Each iteration sleeps 3 ms (CJACOBI_SLEEP_MS), so that the second resize
# has wall time to complete.  The records must say what became of the new
# processes of the failed expansion: ended (MPICH, Open MPI 5) or parked
# (Open MPI 4, docs/malleability.md).  tests/malleable/cjacobi.c checks every
# element of its constant blocks after every control point; the checksum
# must be the static run's.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
S=${TEST_TIME_SCALE:-2}
# brun NAME NP ITS EXPECT VAR=value...: EXPECT is "end" (one resize, cancelled at the job's end) or
# "fail-ok" (the first resize failed by the injection, the second committed)
brun() {
  name=$1 np=$2 its=$3 want=$4; shift 4
  ref="$tmp/ref.$its"
  if [ ! -s "$ref" ]; then
    timeout -k 10 $((60 * S)) $MPIEXEC -n 1 "$prog" 100 "$its" > "$ref" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref.err"; exit 1; }
  fi
  refsum=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$ref")
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" CJACOBI_SLEEP_MS=3 "$@" timeout -k 10 $((60 * S)) $MPIEXEC -n "$np" "$prog" 100 "$its" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$refsum" ] || ! grep -q "wrong elements 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc (124: the run hung), checksum '$got' (expected $refsum)"; cat "$tmp/out"; grep -v "^ductile:  " "$tmp/err" | tail -8; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$name" "$want" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rc, name, want = rep["reconfigurations"], sys.argv[2], sys.argv[3]
def gone(x):  # the spawned processes of a failed expansion ended (MPICH, Open MPI 5) or parked (Open MPI 4)
    n = x["to"] - x["from"] if x["method"] == "merge" else x["to"]
    if x["to"] < x["from"]:
        return x["exited_processes"] == 0 and x["parked_processes"] == 0
    v4 = "v4." in rep["mpi"]["library"] and rep["mpi"]["family"] == "openmpi"
    return (x["parked_processes"], x["exited_processes"]) == ((n, 0) if v4 else (0, n))
if want == "end":
    ok = len(rc) == 1 and rc[0]["status"] == "failed" and "the program ended (MPI_Finalize) before" in rc[0]["reason"]
else:
    ok = (len(rc) == 2 and rc[0]["status"] == "failed" and "injected" in rc[0]["reason"] and rc[1]["status"] == "ok"
          and "+" in rc[1]["redistribution"])
if not ok or not gone(rc[0]):
    sys.exit("FAIL: %s: records %s" % (name, [(x["from"], x["to"], x["status"], x["redistribution"], x["reason"][:70],
                                                 x["exited_processes"], x["parked_processes"]) for x in rc]))
print("  " + "; ".join("%d->%d %s %s%s" % (x["from"], x["to"], x["redistribution"], x["status"],
      " (new processes: %d ended, %d parked)" % (x["exited_processes"], x["parked_processes"]) if x["status"] != "ok" else "")
      for x in rc))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
# 1. cancelled at the job's end (the resize at the last control point: it never completes)
brun "rma-lockall+wd 1->2 cancelled at the end" 1 5 end DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=4:+1
brun "rma-lock+thread 2->5 cancelled at the end" 2 5 end DUCTILE_REDIST=rma-lock DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE=4:+3
brun "rma-lock+wd, per-array windows, 1->4 cancelled at the end" 1 5 end DUCTILE_REDIST=rma-lock DUCTILE_REDIST_CONSTANT=wd DUCTILE_RMA_WINDOW=create DUCTILE_SCHEDULE=4:+3
brun "rma-lockall+wd 2->1 cancelled at the end" 2 5 end DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=4:-1
# 2. failed mid-run, then another resize
its=100 then="5:+2,25:+1"
if [ "${BGCANCEL_FULL:-0}" = 1 ]; then
  for m in col p2p rma-lock rma-lockall; do
    for k in nb wd thread; do
      case $m:$k in rma-*:nb) continue ;; esac
      brun "$m+$k 2->4 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=$m DUCTILE_REDIST_CONSTANT=$k DUCTILE_SCHEDULE=$then
    done
  done
  for m in rma-lock rma-lockall; do
    for k in wd thread; do
      brun "$m+$k 1->2 cancelled at the end" 1 5 end DUCTILE_REDIST=$m DUCTILE_REDIST_CONSTANT=$k DUCTILE_SCHEDULE=4:+1
    done
  done
  exit $fail
fi
brun "col+nb 2->4 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=col DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=$then
brun "p2p+wd 2->4 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=p2p DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=$then
brun "rma-lock+wd 2->4 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=rma-lock DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=$then
brun "rma-lockall+thread 2->4 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=thread DUCTILE_SCHEDULE=$then
brun "rma-lockall+wd, per-array windows, 2->4 failed, then 2->1" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=wd DUCTILE_RMA_WINDOW=create DUCTILE_SCHEDULE=5:+2,25:-1
brun "rma-lock+wd 4->2 failed, then 4->5" 4 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_REDIST=rma-lock DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=5:-2,25:+1
brun "baseline col+nb 2->3 failed, then 2->3" 2 $its fail-ok DUCTILE_TEST_FAIL=bgtransfer-first DUCTILE_RESIZE_METHOD=baseline DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=5:+1,25:+1
exit $fail

#!/bin/sh
# Persistent redistribution (DUCTILE_PERSISTENT=1): repeated +P/-P cycles
# (Phase Shifting) with every blocking method.  The first expansion spawns;
# every shrink puts the removed processes on standby inside the control
# point, and every later expansion takes them back (no spawn) and reuses the
# transfers prepared on the kept world.  The test app checks every element
# of every registered array after every resize, and the resumed processes
# continue at the others' iteration (EMPI_Get_iteration).  Also: a program
# that does not call EMPI_Get_iteration keeps the usual behaviour, and a
# resize to another size releases the standby processes (they become removed
# processes whose counters reach the report).  With DUCTILE_RMA_MEMORY=shared
# the blocks live in shared windows and transfers are direct copies.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/rma/common.sh"

# cycles NAME NP P CYCLES: schedule of CYCLES x (+P, -P), one resize every 2 iterations
cycles() {
  s="" i=0
  while [ $i -lt "$1" ]; do
    s="$s${s:+,}$((4*i)):+$2,$((4*i+2)):-$2"
    i=$((i+1))
  done
  echo "$s"
}

# persisted NAME P N_RESUMED: the first expansion spawned, every later one took
# P standby processes back; every shrink put P on standby; from the fourth
# resize on every transfer reused prepared state (the app's own first buffers
# are not Ductile's, so the first cycle prepares twice); N_RESUMED processes
# printed that they came back.
persisted() {
  n=$(grep -c '^RESUMED' "$tmp/out")
  if [ "$n" -ne "$3" ]; then echo "FAIL: $1: $n resumed processes, expected $3"; fail=1; return 1; fi
  $PYTHON - "$rep" "$1" "$2" <<'PY' || { fail=1; return 1; }
import json, sys
rep, name, p = sys.argv[1], sys.argv[2], int(sys.argv[3])
ok = [x for x in json.load(open(rep))["reconfigurations"] if x["status"] == "ok"]
exp = [x for x in ok if x["kind"] == "expand"]
shr = [x for x in ok if x["kind"] == "shrink"]
if not (exp[0]["times_s"]["spawn"] > 0 and exp[0]["standby_processes"] == 0):
    sys.exit("FAIL: %s: the first expansion did not spawn: %s" % (name, exp[0]))
for x in exp[1:]:
    if x["times_s"]["spawn"] != 0 or x["standby_processes"] != p:
        sys.exit("FAIL: %s: expansion at %d spawned instead of taking %d standby processes back: %s"
                 % (name, x["iteration"], p, x))
for x in shr:
    if x["standby_processes"] != p:
        sys.exit("FAIL: %s: shrink at %d did not put %d processes on standby: %s" % (name, x["iteration"], p, x))
late = [x["persistent"] for x in ok[3:]]
if any(s != "reused" for s in late) or any(x["persistent"] not in ("prepared", "reused") for x in ok):
    sys.exit("FAIL: %s: persistent state: %s" % (name, [x["persistent"] for x in ok]))
first = ok[0]["times_s"]["total"]
reuse = [x["times_s"]["total"] for x in exp[1:]]
print("   first expansion %.4f s (prepare %.4f); standby expansions %s s; shrinks %s s" % (
    first, ok[0]["times_s"]["prepare"], " ".join("%.4f" % t for t in reuse),
    " ".join("%.4f" % x["times_s"]["total"] for x in shr)))
PY
}

P="DUCTILE_PERSISTENT=1"
for m in col p2p rma-lock rma-lockall rma-fence; do
  run "3 cycles 2<->4 $m persistent" 2 12 2 6 $P DUCTILE_REDIST=$m DUCTILE_SCHEDULE="$(cycles 3 2)" &&
    rmacheck "$m" $m 0 && persisted "$m" 2 4
done
for m in col rma-lockall rma-fence; do
  run "3 cycles 1<->2 $m persistent" 1 12 1 6 $P DUCTILE_REDIST=$m DUCTILE_SCHEDULE="$(cycles 3 1)" &&
    persisted "1<->2 $m" 1 2
done
for m in p2p rma-lock rma-fence; do
  run "3 cycles 3<->5 $m persistent" 3 12 3 6 $P DUCTILE_REDIST=$m DUCTILE_SCHEDULE="$(cycles 3 2)" &&
    persisted "3<->5 $m" 2 4
done
# a job started with 4 processes: 4 -> 1 puts 3 on standby, 1 -> 4 takes them back (no spawn at all)
for m in col rma-lock; do
  run "4->1->4->1->4->1 $m persistent" 4 11 1 5 $P DUCTILE_REDIST=$m DUCTILE_SCHEDULE="1:-3,3:+3,5:-3,7:+3,9:-3" &&
  $PYTHON - "$rep" "$m" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if [x["standby_processes"] for x in ok] != [3] * 5 or any(x["times_s"]["spawn"] for x in ok) or \
        [x["persistent"] for x in ok[3:]] != ["reused"] * 2:
    sys.exit("FAIL: 4->1->4->1 %s: %s" % (sys.argv[2], [(x["standby_processes"], x["persistent"]) for x in ok]))
PY
done

# constant data with DUCTILE_REDIST_CONSTANT=nb/wd and DUCTILE_PERSISTENT: moves blocking (background
# transfers are not combined with standby processes yet); the app checks the constant array after every resize
for v in "col nb" "rma-lockall wd"; do
  set -- $v
  # (with DUCTILE_PERSISTENT constant data moves blocking: the records have no background strategy)
  run "3 cycles 2<->4 persistent, constant data $1+$2" 2 70 2 6 $P DUCTILE_REDIST=$1 DUCTILE_REDIST_CONSTANT=$2 \
    RESIZE_APP_CONST=3000 DUCTILE_SCHEDULE="0:+2,10:-2,20:+2,30:-2,40:+2,50:-2" &&
  $PYTHON - "$rep" "$1" "$MPI_FAMILY" "$2" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
m, s = sys.argv[2], sys.argv[4]
s = "wd" if m.startswith("rma") and s == "nb" else s
want = [m for x in ok]  # DUCTILE_PERSISTENT: constant data moves blocking (docs/malleability.md)
if [x["redistribution"] for x in ok] != want or len(ok) != 6:
    sys.exit("FAIL: %s+%s: redistributions %s, expected %s" % (m, s, [x["redistribution"] for x in ok], want))
PY
  grep -q "note: DUCTILE_REDIST_CONSTANT=$2 does not apply with DUCTILE_PERSISTENT=1" "$tmp/err" ||
    { echo "FAIL: $1+$2: no note that the strategy does not apply"; fail=1; }
done

# the cost model with persistent state: every record says "auto" and the data is right
run "3 cycles 2<->4 persistent, auto" 2 12 2 6 $P DUCTILE_REDIST=auto RESIZE_APP_CONST=3000 \
  DUCTILE_SCHEDULE="$(cycles 3 2)" &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if any(x["choice"]["by"] != "auto" for x in ok) or any(x["standby_processes"] != 2 for x in ok[1:]):
    sys.exit("FAIL: auto + persistent: %s" % [(x["choice"]["by"], x["standby_processes"]) for x in ok])
for x in ok: print("   %d->%d %s: %s" % (x["from"], x["to"], x["redistribution"], x["choice"]["reason"][:110]))
PY

# DUCTILE_RMA_MEMORY=shared: a job started with 4 processes shrinks to 2 and grows back: the new blocks live
# in shared windows over the kept (native) world, and every transfer after the first is direct copies
S="DUCTILE_RMA_MEMORY=shared"
for m in rma-lockall rma-fence; do
  run "4<->2 shared memory $m" 4 13 4 6 $P $S DUCTILE_REDIST=$m DUCTILE_SCHEDULE="1:-2,3:+2,5:-2,7:+2,9:-2,11:+2" &&
  $PYTHON - "$rep" "$m" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if ok[0]["shared_memory"] or not all(x["shared_memory"] for x in ok[1:]):
    sys.exit("FAIL: %s: shared memory: %s" % (sys.argv[2], [x["shared_memory"] for x in ok]))
if any(x["persistent"] != "reused" for x in ok[3:]) or any(x["standby_processes"] != 2 for x in ok):
    sys.exit("FAIL: %s: %s" % (sys.argv[2], [(x["persistent"], x["standby_processes"]) for x in ok]))
print("   transfers: " + " ".join("%.4f" % x["times_s"]["transfer"] for x in ok))
PY
done
# with spawned processes (other jobs) the shared blocks may not apply (MPICH): the data is right either way
run "2<->4 shared memory requested, spawned processes" 2 12 2 6 $P $S DUCTILE_REDIST=rma-lock \
  DUCTILE_SCHEDULE="$(cycles 3 2)" && persisted "shared, spawned" 2 4

# without EMPI_Get_iteration the removed processes leave as usual (and a new expansion spawns)
run "2<->4 persistent, no EMPI_Get_iteration" 2 8 2 4 $P RESIZE_APP_NO_ITERATION=1 DUCTILE_SCHEDULE="$(cycles 2 2)" &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if any(x["standby_processes"] for x in ok) or not all(x["times_s"]["spawn"] > 0 for x in ok if x["kind"] == "expand"):
    sys.exit("FAIL: standby without EMPI_Get_iteration: %s" % ok)
if "EMPI_Get_iteration" not in ok[1]["reason"]:
    sys.exit("FAIL: the shrink does not say why nobody stood by: %r" % ok[1]["reason"])
print("   " + ok[1]["reason"])
PY
[ "$(grep -c '^REMOVED' "$tmp/out")" -eq 4 ] || { echo "FAIL: expected 4 removed processes"; fail=1; }

# another resize releases the standby processes: 2 -> 4 -> 2 (2 stand by) -> 3 (they are released, one is spawned)
run "standby released by 2->3" 2 7 3 3 $P DUCTILE_SCHEDULE="0:+2,2:-2,4:+1" && check_departed "released" 2 &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if ok[1]["standby_processes"] != 2 or ok[2]["times_s"]["spawn"] <= 0 or ok[2]["standby_processes"] != 0:
    sys.exit("FAIL: release: %s" % [(x["from"], x["to"], x["standby_processes"], x["times_s"]["spawn"]) for x in ok])
PY
[ "$(grep -c '^REMOVED' "$tmp/out")" -eq 2 ] || { echo "FAIL: expected 2 removed processes"; cat "$tmp/out"; fail=1; }

# a failed spawn after the release: 4 -> 2 (2 stand by) -> 3 with a program that cannot start: the standby
# processes are released, the spawn is refused with the cause, the job goes on at 2 with its data
run "standby released, then a failed spawn" 4 6 2 1 $P DUCTILE_SPAWN_COMMAND=/nonexistent/resize_app \
  DUCTILE_SCHEDULE="1:-2,3:+1" && check_departed "released before a failed spawn" 2 &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
if len(rc) != 2 or rc[0]["standby_processes"] != 2 or rc[1]["status"] != "failed" or "not runnable" not in rc[1]["reason"]:
    sys.exit("FAIL: failed spawn after standby: %s" % [(x["from"], x["to"], x["status"], x["reason"]) for x in rc])
print("   " + rc[1]["reason"])
PY
[ "$(grep -c '^REMOVED' "$tmp/out")" -eq 2 ] || { echo "FAIL: expected 2 removed processes"; cat "$tmp/out"; fail=1; }
exit $fail

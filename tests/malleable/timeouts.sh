#!/bin/sh
# Timeouts decided together (docs/malleability.md, "Failures"): with a
# short DUCTILE_RESIZE_TIMEOUT (T), one process of a resize is delayed
# before a bounded wait (DUCTILE_TEST_DELAY=STEP:SECONDS@RANK) by 2 T, so
# that only some processes reach their time limit, or by T/4, so that none
# should.  Whatever happened, every process must take the same decision: the
# job ends with the static run's hashes, at the new size with one ok record
# or at the old size with one failed record, and nothing hangs or aborts.
# The steps: the transaction's agreement (agree: an old process, the new one,
# rank 0), the switch of a background resize (go: the new process, a
# parent), the spawn's outcome and the connection of the new processes
# (spawn, connect: Open MPI 4.1's rank-0 spawn; elsewhere they only delay),
# and the wake-up of standby processes (wake: DUCTILE_PERSISTENT, a standby
# process and one of the kept world).  Which outcome a run has depends on
# timing and is printed, not asserted.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/allkinds"
its=6
scale=${TEST_TIME_SCALE:-2}
T=$scale                                   # DUCTILE_RESIZE_TIMEOUT: 2 s (4 s under sanitizers)
long=$((2 * T)) short=$(echo "$T" | awk '{print $1 / 4}')
t=$((90 * scale / 2))
hashes() { sed -n 's/^hashes \(.*\) on \([0-9]*\) processes.*/\1 on \2/p' "$1"; }
timeout -k 10 $t $MPIEXEC -n 2 "$prog" $its > "$tmp/ref" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref.err"; exit 1; }
ref=$(hashes "$tmp/ref" | sed 's/ on .*//')
[ -n "$ref" ] || { echo "FAIL: no hashes"; cat "$tmp/ref"; exit 1; }

# outcome REPORT OLD NEW: "ok" or "failed" when the report has one record of that status and the
# final size FINAL (in $final) matches it, else a message
outcome() {
  $PYTHON - "$1" "$2" "$3" "$final" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
old, new, final = sys.argv[2], sys.argv[3], sys.argv[4]
if len(rc) != 1:
    print("records %s" % [(x["status"], x["reason"]) for x in rc]); sys.exit()
st = rc[0]["status"]
want = new if st == "ok" else old
print(st if final == want else "%s but %s processes at the end" % (st, final))
PY
}

# drun NAME NP NEW DELAY VAR=value...: allkinds with DUCTILE_TEST_DELAY=DELAY
drun() {
  name=$1 np=$2 new=$3 delay=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" DUCTILE_SUMMARY=0 DUCTILE_RESIZE_TIMEOUT=$T DUCTILE_TEST_DELAY="$delay" "$@" \
    timeout -k 10 $t $MPIEXEC -n "$np" "$prog" $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(hashes "$tmp/out")
  final=${got##* on }
  check "$name" "$delay" $rc "$np" "$new" || return 1
  [ "${got% on *}" = "$ref" ] || { echo "FAIL: $name: hashes '$got', expected '$ref'"; fail=1; return 1; }
  echo "ok: $name ($delay): $res"
}

# check NAME DELAY RC OLD NEW: exit code, no abort, the delay happened, one decision everywhere
check() {
  if [ "$3" -ne 0 ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $1 ($2): exit code $3"; tail -5 "$tmp/out"; tail -20 "$tmp/err"; fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting\|ending the job" "$tmp/err"; then
    echo "FAIL: $1 ($2): a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  res=$(outcome "$rep" "$4" "$5")
  case $res in ok|failed) ;; *) echo "FAIL: $1 ($2): $res"; tail -20 "$tmp/err"; fail=1; return 1 ;; esac
  if ! grep -q "delay before '${2%%:*}'" "$tmp/err"; then
    # an earlier wait ran out first (a slow spawn under load): that resize failed, everywhere alike
    [ "$res" = failed ] || { echo "FAIL: $1 ($2): the delay did not happen"; tail "$tmp/err"; fail=1; return 1; }
    res="failed before the step: $(sed -n 's/.*failed: \(.*\); continuing.*/\1/p' "$tmp/err" | head -1)"
  fi
}

d=$long
drun "agreement, an old process, 2->3" 2 3 "agree:$d@1" DUCTILE_SCHEDULE=2:+1
drun "agreement, the new process, 2->3" 2 3 "agree:$d@2" DUCTILE_SCHEDULE=2:+1
drun "agreement, rank 0, 2->3" 2 3 "agree:$d@0" DUCTILE_SCHEDULE=2:+1
drun "agreement, the leaving process, 3->2" 3 2 "agree:$d@2" DUCTILE_SCHEDULE=2:-1
drun "agreement, a short delay, 2->3" 2 3 "agree:$short@1" DUCTILE_SCHEDULE=2:+1
drun "background switch, the new process, 2->3" 2 3 "go:$d@2" DUCTILE_SCHEDULE=2:+1 DUCTILE_REDIST_CONSTANT=nb
drun "background switch, a parent, 2->3" 2 3 "go:$d@1" DUCTILE_SCHEDULE=2:+1 DUCTILE_REDIST_CONSTANT=nb
drun "spawn's outcome, rank 0, 2->3" 2 3 "spawn:$d@0" DUCTILE_SCHEDULE=2:+1
drun "connection, the new process, 2->3" 2 3 "connect:$d@2" DUCTILE_SCHEDULE=2:+1

# the wake-up of standby processes: 4->2->4 (tests/malleable/resize_app.c checks every element)
for d in "wake:$long@3" "wake:$long@1"; do
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" DUCTILE_SUMMARY=0 DUCTILE_RESIZE_TIMEOUT=$T DUCTILE_TEST_DELAY="$d" DUCTILE_PERSISTENT=1 \
    DUCTILE_SCHEDULE=3:-2,6:+2 timeout -k 10 $t $MPIEXEC -n 4 "$APP" 10 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  final=$(sed -n 's/^FINAL size=\([0-9]*\) iterations=10 failures=0.*/\1/p' "$tmp/out")
  res=$($PYTHON - "$rep" "$final" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
final = sys.argv[2]
if len(rc) != 2 or rc[0]["status"] != "ok":
    print("records %s" % [(x["status"], x["reason"]) for x in rc]); sys.exit()
st = rc[1]["status"]
print(st if final == ("4" if st == "ok" else "2") else "%s but %s processes at the end" % (st, final))
PY
)
  if [ $rc -ne 0 ] || [ -z "$final" ] || ! grep -q "delay before 'wake'" "$tmp/err"; then
    echo "FAIL: wake-up ($d): exit code $rc, final size '$final'"; tail -5 "$tmp/out"; tail -15 "$tmp/err"; fail=1; continue
  fi
  case $res in ok|failed) echo "ok: wake-up of the standby processes 2->4 ($d): $res" ;;
  *) echo "FAIL: wake-up ($d): $res"; tail -15 "$tmp/err"; fail=1 ;; esac
done
exit $fail

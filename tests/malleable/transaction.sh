#!/bin/sh
# Resizes are transactions (docs/malleability.md): prepare, spawn or
# connect, transfer, agree, commit.  A failure injected at a step
# (DUCTILE_TEST_FAIL, for tests only) before the commit leaves every process
# at the old size with its old buffers and data; the job goes on (the Jacobi
# gives the checksum of a static run, every block checked element by element
# after every control point), no process aborts, and the report records the
# resize as failed with the cause.  Steps: a new process that cannot allocate
# (alloc), a mismatched registration on a new process (register), an error of
# the blocking transfer (transfer), on expansions (the new processes are told
# to leave) and shrinks, blocking and with constant data in the background.
# Also (issue 10, item 3): standby processes (DUCTILE_PERSISTENT) whose
# DUCTILE_LEAVE_TIMEOUT passes are released by the kept world at its next
# control point instead of leaving the others blocked, and nobody aborts.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
dim=300 its=200
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "reference: $(cat "$tmp/ref.out")"

# frun NAME NP CAUSE VAR=value...: the job ends at NP processes with the
# reference checksum; the report has one resize, failed, naming CAUSE
frun() {
  name=$1 np=$2 cause=$3; shift 3
  rep="$tmp/rep.json"; rm -f "$rep"
  # a failed background transfer's new buffers are abandoned on purpose (docs/malleability.md)
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" DUCTILE_REPORT="$rep" "$@" \
    timeout -k 10 240 $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on $np processes, wrong elements 0" "$tmp/out" ||
     grep -q "BAD TERMINATION" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting" "$tmp/err"; then
    echo "FAIL: $name: a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$name" "$cause" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rc = r["reconfigurations"]
if len(rc) != 1 or rc[0]["status"] != "failed" or sys.argv[3] not in rc[0]["reason"] or "injected" not in rc[0]["reason"]:
    sys.exit("FAIL: %s: expected one failed resize naming '%s': %s" % (sys.argv[2], sys.argv[3], rc))
print("  %d->%d failed: %s" % (rc[0]["from"], rc[0]["to"], rc[0]["reason"]))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
for c in "" nb; do
  k=${c:+DUCTILE_REDIST_CONSTANT=$c}
  frun "alloc, new process, ${c:-blocking} 2->4" 2 "out of memory" DUCTILE_TEST_FAIL=alloc ${k} DUCTILE_SCHEDULE=5:+2
  frun "register, new process, ${c:-blocking} 2->4" 2 "differs" DUCTILE_TEST_FAIL=register ${k} DUCTILE_SCHEDULE=5:+2
  frun "transfer, ${c:-blocking} 2->4" 2 "transfer" DUCTILE_TEST_FAIL=transfer ${k} DUCTILE_SCHEDULE=5:+2
  frun "alloc, staying process, ${c:-blocking} 4->2" 4 "out of memory" DUCTILE_TEST_FAIL=alloc ${k} DUCTILE_SCHEDULE=5:-2
  frun "transfer, ${c:-blocking} 4->2" 4 "transfer" DUCTILE_TEST_FAIL=transfer ${k} DUCTILE_SCHEDULE=5:-2
done
frun "transfer, baseline 2->3" 2 "transfer" DUCTILE_TEST_FAIL=transfer DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=5:+1
frun "transfer, rma-lockall 2->3" 2 "transfer" DUCTILE_TEST_FAIL=transfer DUCTILE_REDIST=rma-lockall DUCTILE_SCHEDULE=5:+1

# Item 5 (issue 10): a new process whose constant flag differs from the running
# processes' is refused by the check of the registrations (not a hang in
# Comm_dup), and the job goes on; a new process that meets EMPI_Monitor_end
# before EMPI_Get_shared receives its data there.
# (with nb the running processes start a background transfer of the constant
# array that the new process, believing it variable, would never join)
RESIZE_APP_SPAWNED_VARIABLE=1 run "constant flag differs on the new process" 2 8 2 0 \
  RESIZE_APP_CONST=40 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=2:+1 && {
  grep -q "differs from the running processes" "$tmp/err" || { echo "FAIL: no reason on stderr"; tail -5 "$tmp/err"; fail=1; }
}
RESIZE_APP_NO_GET_SHARED=1 run "new process without EMPI_Get_shared" 2 8 3 1 DUCTILE_SCHEDULE=2:+1

# Item 3: standby processes with a tiny DUCTILE_LEAVE_TIMEOUT (1 s): the shrink
# puts them on standby, the first control point after 1 s releases the pool;
# the later expansion spawns new processes.  Nobody aborts or waits for ever.
APP_SLEEP_MS=100 run "standby timeout -k 10 4->2, then +2" 4 40 4 2 DUCTILE_PERSISTENT=1 DUCTILE_LEAVE_TIMEOUT=1 \
  DUCTILE_SCHEDULE=3:-2,30:+2 && {
  if grep -q "MPI_Abort\|aborting" "$tmp/err"; then echo "FAIL: standby timeout: a process aborted"; fail=1; fi
  $PYTHON - "$rep" <<'PY' || fail=1
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
if rc[-1]["times_s"]["spawn"] <= 0 or rc[-1]["standby_processes"] != 0:
    sys.exit("FAIL: standby timeout: the expansion took back released standby processes: %s" % rc[-1])
PY
}
exit $fail

#!/bin/sh
# The end of a job whose processes do not all exit at once, after resizes
# that were rolled back (docs/malleability.md, "Failures"): every process
# mpiexec started but rank 0 goes on 0.5 s after MPI_Finalize
# (CJACOBI_LINGER_MS, as a program that writes its output there would).  The new processes of a
# rolled-back expansion leave meanwhile; nobody may be killed by the
# launcher: mpiexec exits 0, prints no "BAD TERMINATION" banner, and the
# program prints the checksum of a static run.  (With MPICH 5.0.2 the new
# processes used to end with _exit() after MPI_Finalize; MPICH finishes its
# connection to the launcher in an exit handler, so hydra's proxy took the
# closed connection for a crash and SIGKILLed the processes it still ran:
# here, always, the lingering original rank 1.)  Also a committed expansion,
# a shrink whose removed process parks and a standby pool released at the
# end, for the same end.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
dim=200 its=60
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "reference: $(cat "$tmp/ref.out")"

# lrun NAME NP FINAL VAR=value...: ends at FINAL processes with the reference checksum, nobody killed
lrun() {
  name=$1 np=$2 final=$3; shift 3
  # a failed background transfer's new buffers are abandoned on purpose (docs/malleability.md)
  env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" CJACOBI_LINGER_MS=500 "$@" \
    timeout -k 10 $((t * 2)) $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on $final processes, wrong elements 0" "$tmp/out" ||
     grep -q "BAD TERMINATION\|Killed" "$tmp/out" "$tmp/err"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref on $final processes)"; cat "$tmp/out"; tail -15 "$tmp/err"
    fail=1; return 1
  fi
  echo "ok: $name"
}
lrun "rolled back (register, nb), 2->4" 2 2 DUCTILE_TEST_FAIL=register DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=5:+2
lrun "rolled back (register, blocking), 2->4" 2 2 DUCTILE_TEST_FAIL=register DUCTILE_SCHEDULE=5:+2
lrun "rolled back (transfer), baseline 2->3" 2 2 DUCTILE_TEST_FAIL=transfer DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=5:+1
# the program ends while constant data still moves to the new processes: the resize is cancelled
# at MPI_Finalize (background.c, pending_cancel)
lrun "cancelled at the program's end (nb pending), 2->4" 2 2 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=$((its - 1)):+2
if [ "$MPI_FAMILY" = mpich ]; then
  # all parents spawn (MPICH): the spawn is refused after the new processes started (spawn.c, spawn_cancel)
  lrun "cancelled after the spawn, 2->4" 2 2 DUCTILE_TEST_FAIL=spawn DUCTILE_SCHEDULE=5:+2
fi
lrun "committed 2->4" 2 4 DUCTILE_SCHEDULE=5:+2
lrun "committed 2->4, then 4->3 (a removed process parks)" 2 3 DUCTILE_SCHEDULE=5:+2,20:-1

# the removed processes of the standby pool (DUCTILE_PERSISTENT): the spawned processes stand by
# after 4->2 and are released at the job's end, while the original rank 1 lingers
# (tests/malleable/resize_app.c, RESIZE_APP_LINGER_MS)
RESIZE_APP_LINGER_MS=500 run "standby 2->4->2, the pool released at the end" 2 12 2 2 DUCTILE_PERSISTENT=1 \
  DUCTILE_SCHEDULE=3:+2,6:-2 && {
  if grep -q "BAD TERMINATION\|Killed" "$tmp/out" "$tmp/err"; then
    echo "FAIL: standby: a process was killed"; cat "$tmp/out"; fail=1
  fi
}
exit $fail

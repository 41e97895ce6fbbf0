#!/bin/sh
# Failures lose nothing: a spawn that cannot work (unknown host, executable not
# runnable, more processes than slots) leaves the job at its old size with its
# data intact and the reason in the report and on stderr; shrinking below one
# process and a second request while one is pending are refused; a bad
# DUCTILE_SCHEDULE stops the job in MPI_Init with a message.  Nothing hangs.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"

# expect_reason NAME TEXT: the report's failed/refused entry and stderr carry TEXT
expect_reason() {
  if ! grep -qF "$2" "$tmp/err"; then echo "FAIL: $1: stderr lacks: $2"; tail -5 "$tmp/err"; fail=1; return; fi
  if ! $PYTHON - "$rep" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if not any(sys.argv[2] in x["reason"] and x["status"] in ("failed", "refused") for x in r["reconfigurations"]):
    sys.exit("report lacks the reason: %s" % r["reconfigurations"])
PY
  then echo "FAIL: $1: report"; fail=1; return; fi
  echo "   reason: $(grep -F "$2" "$tmp/err" | head -1)"
}

# each failure is followed by a successful resize: the job is still healthy
run "unknown host, then +1" 2 4 3 1 DUCTILE_SCHEDULE="1:+1@no-such-host.invalid,2:+1" && \
  expect_reason "unknown host" "unknown host 'no-such-host.invalid'"
run "executable missing" 2 3 2 0 DUCTILE_SPAWN_COMMAND=/nonexistent/program DUCTILE_SCHEDULE="1:+1" && \
  expect_reason "executable missing" "executable '/nonexistent/program' is not runnable"
printf 'not a program\n' > "$tmp/notexec"
chmod 755 "$tmp/notexec"
run "executable not a program, then -1" 2 4 1 1 DUCTILE_SPAWN_COMMAND="$tmp/notexec" DUCTILE_SCHEDULE="1:+2,2:-1" && \
  expect_reason "not a program" "is not runnable"
if [ "$MPI_FAMILY" = mpich ]; then
  # hydra ends the whole job when it spawns a command line holding an empty argument: refused before
  # (the program reads its second argument, the milliseconds per iteration, as 0)
  rep="$tmp/report-$$.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE="1:+1" timeout -k 10 120 $MPIEXEC -n 2 "$APP" 3 "" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "FINAL size=2 iterations=3 failures=0" "$tmp/out"; then
    echo "FAIL: an empty argument (MPICH): rc $rc"; tail -5 "$tmp/out"; tail -15 "$tmp/err"; fail=1
  else
    expect_reason "empty argument" "argument 2 of the program is empty"
  fi
fi
run "shrink below one process" 2 3 2 0 DUCTILE_SCHEDULE="1:-2" && \
  expect_reason "below one" "shrinking below one process"
# a second request while one is pending is refused; the first one happens
RESIZE_APP_REQUEST="1:1" run "request while one is pending" 2 3 3 1 && {
  if grep -q "second request refused: resize refused: another resize request is pending" "$tmp/out"; then
    echo "   second request refused as expected"
  else echo "FAIL: the second request was not refused"; cat "$tmp/out"; fail=1; fi
}
# more processes than slots (Open MPI without --oversubscribe: 2 slots here)
family=${DUCTILE_MPI_FAMILY:-}
if [ -z "$family" ] && $MPIEXEC --version 2>&1 | grep -qiE "open ?(rte|mpi)"; then family=openmpi; fi
if [ "$family" = openmpi ]; then
  slots=$(nproc)
  MPIEXEC_SAVED=$MPIEXEC
  MPIEXEC=$(echo "$MPIEXEC" | sed 's/--oversubscribe//')
  run "more processes than slots" "$slots" 2 "$slots" 0 DUCTILE_SCHEDULE="0:+1" && \
    expect_reason "slots" "more processes than slots"
  MPIEXEC=$MPIEXEC_SAVED
fi
# a bad schedule stops the job in MPI_Init, naming the variable and the value
DUCTILE_SCHEDULE="10:+2,5:x" timeout -k 10 60 $MPIEXEC -n 2 "$APP" 2 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -qF "ductile: error: DUCTILE_SCHEDULE='10:+2,5:x' is not valid: entry 2" "$tmp/err"; then
  echo "FAIL: bad DUCTILE_SCHEDULE (rc $rc)"; head -5 "$tmp/err"; fail=1
else echo "ok: bad schedule -> $(grep -F 'ductile: error' "$tmp/err" | head -1)"; fi
DUCTILE_RESIZE_METHOD=fast timeout -k 10 60 $MPIEXEC -n 1 "$APP" 2 > "$tmp/out" 2> "$tmp/err"
if ! grep -qF "DUCTILE_RESIZE_METHOD='fast' is not valid: expected one of merge,baseline" "$tmp/err"; then
  echo "FAIL: bad DUCTILE_RESIZE_METHOD"; head -5 "$tmp/err"; fail=1
else echo "ok: bad method -> $(grep -F 'ductile: error' "$tmp/err" | head -1)"; fi
exit $fail

#!/bin/sh
# A bad or unknown DUCTILE_* setting stops the job in MPI_Init with a message
# naming the variable, the value and what is allowed -- and never hangs.
set -u
prog="$abs_top_builddir/tests/mpi/coll"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name value expected-substring
  env "$1=$2" LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    timeout -k 10 60 $MPIEXEC -n 2 "$prog" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -eq 0 ]; then echo "FAIL: $1=$2 did not stop the job"; fail=1; return; fi
  if [ $rc -eq 124 ]; then echo "FAIL: $1=$2 hung"; fail=1; return; fi
  if ! grep -qF "$3" "$tmp/err"; then
    echo "FAIL: $1=$2: expected message containing: $3"; echo "--- stderr:"; head -20 "$tmp/err"; fail=1; return
  fi
  n=$(grep -cF "ductile: error:" "$tmp/err")
  if [ "$n" -ne 1 ]; then echo "FAIL: $1=$2: message printed $n times, expected once"; fail=1; return; fi
  echo "ok: $1=$2 -> $(grep -F 'ductile: error:' "$tmp/err")"
}
check DUCTILE_MONITOR maybe "DUCTILE_MONITOR='maybe' is not valid: expected a boolean"
check DUCTILE_VERBOSE 9 "DUCTILE_VERBOSE='9' is not valid: expected an integer from 0 to 3"
check DUCTILE_ITER_FRAMES x "DUCTILE_ITER_FRAMES='x' is not valid: expected an integer from 1 to 8"
check DUCTILE_CONTROLLER bogus "DUCTILE_CONTROLLER='bogus' is not valid: expected unix:PATH, tcp:HOST:PORT, off or auto"
check DUCTILE_CONTROLLER tcp:nohost "DUCTILE_CONTROLLER='tcp:nohost' is not valid"
check DUCTILE_WSIZE middle "DUCTILE_WSIZE='middle' is not valid: expected one of flexmpi,first"
check DUCTILE_MONTIOR 1 "unknown setting DUCTILE_MONTIOR='1' (did you mean DUCTILE_MONITOR?)"
# ductile-run validates before launching anything
DUCTILE_VERBOSE=x "$RUN_DUCTILE" -- true 2> "$tmp/err"; rc=$?
if [ $rc -ne 2 ] || ! grep -qF "DUCTILE_VERBOSE='x' is not valid" "$tmp/err"; then
  echo "FAIL: ductile-run accepted DUCTILE_VERBOSE=x (rc $rc)"; cat "$tmp/err"; fail=1
else echo "ok: ductile-run rejects DUCTILE_VERBOSE=x before launching"; fi
# the kill switch wins over other bad settings
DUCTILE_DISABLE=1 DUCTILE_MONITOR=maybe LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
  timeout -k 10 60 $MPIEXEC -n 2 "$prog" > /dev/null 2> "$tmp/err" || { echo "FAIL: DUCTILE_DISABLE=1 did not bypass settings"; cat "$tmp/err"; fail=1; }
exit $fail

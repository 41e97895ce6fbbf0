#!/bin/sh
# End-to-end fuzzing of a running ductiled over its Unix socket
# (tests/fuzz/fuzz_daemon.py): malformed and adversarial message sequences
# from several fake jobs and clients at once, for FUZZ_SECONDS (default 10);
# the daemon must stay alive, answer, and (in an --enable-asan build) report
# no memory error.  A long run: FUZZ_SECONDS=600 make check TESTS=...
. "$abs_top_srcdir/tests/controller/common.sh"
secs=${FUZZ_SECONDS:-10}
start_daemon --slots 8 --io-policy period-coupling --io-lease 2
timeout $((secs + 60)) "$PY" "$abs_top_srcdir/tests/fuzz/fuzz_daemon.py" "$SOCK" "$DPID" "$secs" ${FUZZ_SEED:-} > "$T/fuzz.out" 2>&1; rc=$?
tail -3 "$T/fuzz.out"
[ $rc -eq 0 ] && ok "$(tail -1 "$T/fuzz.out")" || bad "fuzzer found a problem: $(cat "$T/fuzz.out")"
kill "$DPID"; wait "$DPID"; drc=$?
DPID=""
[ $drc -eq 0 ] && ok "ductiled stopped cleanly (exit 0)" || bad "ductiled exit $drc"
if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/daemon.log"; then
  bad "sanitizer report:"; grep -A20 "ERROR: \|runtime error:" "$T/daemon.log" | head -60
else
  ok "no sanitizer report in the daemon's log"
fi
exit $fail

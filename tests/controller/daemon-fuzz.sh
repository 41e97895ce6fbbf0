#!/bin/sh
# End-to-end fuzzing of a running ductiled over its Unix socket
# (tests/fuzz/fuzz_daemon.py: every request and event kind, valid, mutated
# and adversarial, from several fake jobs and clients at once) in each of
# the daemon's modes: plain, --slurm (fake scontrol/sinfo/salloc on PATH,
# tests/controller/fake-slurm), --policy, --io-policy auto and
# --fold-to-admit.  In each the daemon must stay alive, answer, stop
# cleanly and (in an --enable-asan build: ASan and UBSan) report no error.
# FUZZ_SECONDS per mode (default 4), FUZZ_MESSAGES in all (default: no
# bound), FUZZ_SEED; tests/long/daemon-fuzz.sh is the long run (10^6
# messages, make check-long).
. "$abs_top_srcdir/tests/controller/common.sh"
secs=${FUZZ_SECONDS:-4}
total=${FUZZ_MESSAGES:-0}
modes="plain slurm policy io-auto fold-to-admit"
per=0
[ "$total" -gt 0 ] && per=$(( (total + 4) / 5 ))
# ASan: allocation stacks by the fast unwinder (the full one of tests/env.sh,
# for leak reports' stacks, made the fuzzed daemon ten times slower);
# detection is the same
[ -n "${SANITIZER_PRELOAD:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=1"
# Slurm's commands are the fakes (they only answer --slurm's questions about job 4242)
export FAKE_SLURM="$T/slurm" PATH="$abs_top_srcdir/tests/controller/fake-slurm:$PATH"
mkdir -p "$FAKE_SLURM"
sum=0
for mode in $modes; do
  case $mode in
  plain) opts="--slots 8 --io-lease 2" ;;
  slurm) opts="--slurm-job 4242 --slurm-sync 1" ;; # most fake jobs report only what was ordered: hosts go back
  policy) opts="--slots 8 --policy fair --policy-params cooldown=1 --io-policy period-coupling" ;;
  io-auto) opts="--slots 8 --io-policy auto --io-lease 2" ;;
  fold-to-admit) opts="--slots 8 --fold-to-admit --job-logs $T" ;;
  esac
  rm -f "$T/state.json" "$FAKE_SLURM/nodelist"
  : > "$T/daemon.log"
  # submitted jobs run `true` (nothing starts)
  start_daemon $opts --launcher true
  [ "$per" -gt 0 ] && mt=$per || mt=""
  [ $mode = slurm ] && export FUZZ_TRUTHFUL=0.9 || export FUZZ_TRUTHFUL=0.2
  timeout -k 10 $((secs + 120 * ${TEST_TIME_SCALE:-1})) "$PY" "$abs_top_srcdir/tests/fuzz/fuzz_daemon.py" "$SOCK" "$DPID" "$secs" \
    "${FUZZ_SEED:-}" $mt > "$T/fuzz-$mode.out" 2>&1; rc=$?
  n=$(sed -n 's/.*, \([0-9]*\) messages (executions).*/\1/p' "$T/fuzz-$mode.out")
  sum=$((sum + ${n:-0}))
  [ $rc -eq 0 ] && ok "$mode ($opts): $(tail -1 "$T/fuzz-$mode.out")" || bad "$mode: the fuzzer found a problem: $(cat "$T/fuzz-$mode.out")"
  grep -h "kinds sent" "$T/fuzz-$mode.out" | cut -c1-400
  [ $mode = slurm ] && echo "  Slurm: $(grep -c 'gave .* back to Slurm' "$T/daemon.log") give-backs (scontrol update), $(grep -c 'slurm:' "$T/daemon.log") Slurm log lines"
  kill "$DPID"; wait "$DPID"; drc=$?
  DPID=""
  [ $drc -eq 0 ] && ok "$mode: ductiled stopped cleanly (exit 0)" || bad "$mode: ductiled exit $drc"
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/daemon.log"; then
    bad "$mode: sanitizer report:"; grep -A20 "ERROR: \|runtime error:" "$T/daemon.log" | head -60
  else
    ok "$mode: no sanitizer report in the daemon's log${SANITIZER_PRELOAD:+ (ASan/UBSan build)}"
  fi
  cp "$T/daemon.log" "$T/daemon-$mode.log"
done
ok "$sum messages in all, 0 findings expected: $fail"
exit $fail

#!/bin/sh
# Short CI run of the protocol parser's fuzz target (libFuzzer, ASan, UBSan):
# tests/fuzz/run-fuzz.sh for 10 seconds.  Skipped (77) without clang/libFuzzer.
set -u
sh "$abs_top_srcdir/tests/fuzz/run-fuzz.sh" "${FUZZ_SECONDS:-10}"

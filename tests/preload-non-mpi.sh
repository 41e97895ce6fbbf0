#!/bin/sh
# A non-MPI program with libductile.so preloaded runs normally and Ductile prints nothing.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
for cmd in "true" "ls /" "sh -c 'echo hello'"; do
  eval "$cmd" > "$tmp/ref.out" 2> "$tmp/ref.err"; ref=$?
  eval "LD_PRELOAD=\"${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE\" $cmd" > "$tmp/out" 2> "$tmp/err"; rc=$?
  if [ $rc -ne $ref ]; then echo "FAIL: '$cmd' exit $rc with the preload, $ref without"; fail=1; fi
  if ! cmp -s "$tmp/ref.out" "$tmp/out"; then echo "FAIL: '$cmd' stdout differs with the preload"; fail=1; fi
  if [ -s "$tmp/err" ]; then echo "FAIL: '$cmd' printed on stderr with the preload:"; cat "$tmp/err"; fail=1; fi
  # Ductile settings must not matter to a program that never calls MPI_Init
  DUCTILE_BOGUS=1 LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" sh -c "$cmd" > /dev/null 2> "$tmp/err2"
  if [ -s "$tmp/err2" ]; then echo "FAIL: '$cmd' printed on stderr with a DUCTILE_ setting"; fail=1; fi
done
[ $fail -eq 0 ] && echo "PASS: true, ls and sh run unchanged and silent with the preload"
exit $fail

#!/bin/sh
# A non-MPI program with libductile.so preloaded runs normally and Ductile
# prints nothing; it also does no work: no libcrypto (loaded only for TCP
# authentication), no jansson (loaded at the first JSON call, in MPI_Init or
# later), no thread, nothing loaded beyond libductile's own dependencies
# (the MPI library, libunwind).
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
# what the preloaded process maps and runs, seen from inside it
LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" sh -c 'cat /proc/$$/maps; grep "^Threads:" /proc/$$/status' \
  > "$tmp/maps" 2>&1
if ! grep -q "libductile" "$tmp/maps"; then
  echo "FAIL: libductile.so is not mapped in the preloaded process (the test sees nothing):"; head -5 "$tmp/maps"; fail=1
fi
if grep -E -q "lib(crypto|ssl|jansson)\.so" "$tmp/maps"; then
  echo "FAIL: a preloaded non-MPI process maps OpenSSL or jansson:"
  grep -E "lib(crypto|ssl|jansson)\.so" "$tmp/maps" | awk '{print "  " $6}' | sort -u; fail=1
fi
threads=$(awk '/^Threads:/ {print $2}' "$tmp/maps")
if [ "${threads:-0}" != 1 ]; then echo "FAIL: the preloaded non-MPI process runs ${threads:-?} threads, not 1"; fail=1; fi
# nothing but libductile's declared dependencies (and theirs): no dlopen at load time
ldd "$LIBDUCTILE" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | xargs -n1 readlink -f 2>/dev/null | sort -u > "$tmp/deps"
readlink -f "$LIBDUCTILE" >> "$tmp/deps"
ldd /bin/sh | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | xargs -n1 readlink -f 2>/dev/null >> "$tmp/deps"
awk '$6 ~ /\.so/ {print $6}' "$tmp/maps" | sort -u | while read -r so; do
  case "$so" in *asan*|*ubsan*|*lsan*) continue;; esac
  grep -q -x -F "$(readlink -f "$so")" "$tmp/deps" || echo "$so"
done > "$tmp/extra"
if [ -s "$tmp/extra" ]; then echo "FAIL: the preloaded non-MPI process loaded more than libductile needs:"; sed 's/^/  /' "$tmp/extra"; fail=1; fi
[ $fail -eq 0 ] && echo "PASS: true, ls and sh run unchanged and silent with the preload; it maps no libcrypto or jansson, nothing beyond libductile's dependencies, and runs one thread"
exit $fail

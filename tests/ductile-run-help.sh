#!/bin/sh
# ductile-run --help documents every setting; --print-library finds the library.
set -u
fail=0
help=$("$RUN_DUCTILE" --help) || { echo "FAIL: --help exited non-zero"; exit 1; }
n=0
for s in $(sed -n 's/^name = "\(DUCTILE_[A-Z0-9_]*\)"$/\1/p' "$abs_top_srcdir/src/common/settings.toml"); do
  n=$((n + 1))
  echo "$help" | grep -q "^  $s " || { echo "FAIL: --help does not document $s"; fail=1; }
done
[ $n -ge 30 ] || { echo "FAIL: only $n settings found in src/common/settings.toml"; fail=1; }
lib=$("$RUN_DUCTILE" --print-library) || { echo "FAIL: --print-library"; fail=1; }
[ -f "$lib" ] || { echo "FAIL: --print-library printed '$lib', not a file"; fail=1; }
"$RUN_DUCTILE" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: no command should exit 2"; fail=1; }
"$RUN_DUCTILE" --no-such-option -- true 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: bad option should exit 2"; fail=1; }
"$RUN_DUCTILE" -q -- sh -c 'case "$LD_PRELOAD" in *libductile.so*) exit 0;; *) exit 1;; esac' || { echo "FAIL: LD_PRELOAD not set for the command"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: ductile-run help, library lookup, exit codes"
exit $fail

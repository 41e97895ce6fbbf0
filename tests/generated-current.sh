#!/bin/sh
# The committed generated wrappers must equal what tools/gen-wrappers.py and
# tools/gen-fortran.py write now.
if ! "${PYTHON:-python3}" -c 'import pympistandard' 2>/dev/null; then
  echo "SKIP: pympistandard is not installed (pip install pympistandard==0.2.0)"; exit 77
fi
rc=0
"${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-wrappers.py" --check "$abs_top_srcdir/src/wrap" || rc=1
"${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-fortran.py" --check "$abs_top_srcdir/src/wrap" || rc=1
exit $rc

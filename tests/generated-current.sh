#!/bin/sh
# The committed generated files must equal what the generators write now:
# the settings' table and the docs' settings tables (tools/gen-settings.py,
# from src/common/settings.toml), and the wrappers (tools/gen-wrappers.py,
# tools/gen-fortran.py).
rc=0
"${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-settings.py" --check "$abs_top_srcdir" || rc=1
if ! "${PYTHON:-python3}" -c 'import pympistandard' 2>/dev/null; then
  echo "SKIP: pympistandard is not installed (pip install pympistandard==0.2.0): the wrappers were not checked"
  [ $rc -eq 0 ] && exit 77
  exit $rc
fi
"${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-wrappers.py" --check "$abs_top_srcdir/src/wrap" || rc=1
"${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-fortran.py" --check "$abs_top_srcdir/src/wrap" || rc=1
exit $rc

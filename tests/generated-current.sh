#!/bin/sh
# The committed generated wrappers must equal what tools/gen-wrappers.py writes now.
if ! "${PYTHON:-python3}" -c 'import pympistandard' 2>/dev/null; then
  echo "SKIP: pympistandard is not installed (pip install pympistandard==0.2.0)"; exit 77
fi
exec "${PYTHON:-python3}" "$abs_top_srcdir/tools/gen-wrappers.py" --check "$abs_top_srcdir/src/wrap"

#!/bin/sh
# tests/transparency/census.sh -- every C MPI function the MPI library
# exports (nm -D), the deprecated and removed MPI-1/MPI-2 names included, is
# wrapped by libductile.so or knowingly passed through with a reason
# (tests/transparency/census_c.py).  The library is the one libductile.so
# loads (ldd).  The Fortran bindings have their own census (tests/fortran).
lib=$(ldd "$LIBDUCTILE" 2>/dev/null | awk '$3 ~ /^\// {print $3}' | grep -E '/libmpi(ch)?\.so' | head -1)
[ -n "$lib" ] || { echo "FAIL: no MPI library found through ldd $LIBDUCTILE"; exit 1; }
"$PYTHON" "$abs_top_srcdir/tests/transparency/census_c.py" "$LIBDUCTILE" "$lib"

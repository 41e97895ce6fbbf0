#!/bin/sh
# symbols.sh -- libductile.so exports only its public surface
# (src/libductile.map): the MPI_* wrappers, the Fortran bindings (mpi_* in
# every mangling, MPI_* upper case; Open MPI's ompi_*_f entry points the
# mpi_f08 module calls), EMPI_*, MAM_* (include/MAM.h), and the ductile_* functions that
# include/ductile.h and include/empi.h declare.  Anything else exported is
# listed and fails the test, and so is a public function that is missing.
# Calls between Ductile's own files must bind locally: no call through the
# PLT and no relocation names an internal function.  Loading the library
# runs no Ductile code (the one constructor returns at once outside MPI ranks).
set -u
lib=${LIBDUCTILE:?}
command -v nm >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 ||
  { echo "SKIP: nm, objdump or readelf missing (binutils)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# the public ductile_* names, from the installed headers
grep -ho 'ductile_[a-z0-9_]*[[:space:]]*(' "$abs_top_srcdir/include/ductile.h" "$abs_top_srcdir/include/empi.h" |
  sed 's/[[:space:]]*($//' | sort -u > "$tmp/public"
[ -s "$tmp/public" ] || { echo "FAIL: found no ductile_* function in include/ductile.h"; exit 1; }

nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u > "$tmp/exported"
n=$(wc -l < "$tmp/exported")
grep -v -E '^(MPI_|mpi_|EMPI_|MAM_)|^ompi_[a-z0-9_]*_f$' "$tmp/exported" | grep -v -x -F -f "$tmp/public" > "$tmp/extra"
if [ -s "$tmp/extra" ]; then
  echo "FAIL: libductile.so exports $(wc -l < "$tmp/extra") internal symbol(s) (only the public surface may be: src/libductile.map):"
  sed 's/^/  /' "$tmp/extra"; fail=1
fi
grep -v -x -F -f "$tmp/exported" "$tmp/public" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
  echo "FAIL: public function(s) of include/ductile.h or empi.h not exported:"; sed 's/^/  /' "$tmp/missing"; fail=1
fi
for s in MPI_Init MPI_Finalize MPI_Send EMPI_Get_wsize ductile_version; do
  grep -q -x "$s" "$tmp/exported" || { echo "FAIL: $s is not exported"; fail=1; }
done

# internal functions: defined in the library (full symbol table) but not exported
nm --defined-only "$lib" 2>/dev/null | awk '$2 ~ /^[tTdDbBrR]$/ {print $3}' | sort -u | grep -v -x -F -f "$tmp/exported" > "$tmp/internal"
if [ -s "$tmp/internal" ]; then
  objdump -d --no-show-raw-insn "$lib" | sed -n 's/.*call.*<\([^@>]*\)@plt>.*/\1/p' | sort -u > "$tmp/plt"
  grep -x -F -f "$tmp/internal" "$tmp/plt" > "$tmp/bad_plt"
  if [ -s "$tmp/bad_plt" ]; then
    echo "FAIL: internal function(s) called through the PLT:"; sed 's/^/  /' "$tmp/bad_plt"; fail=1
  fi
  readelf -rW "$lib" | awk 'NF >= 5 && $1 ~ /^[0-9a-f]+$/ {print $5}' | sed 's/@.*//' | sort -u > "$tmp/relsyms"
  grep -x -F -f "$tmp/internal" "$tmp/relsyms" > "$tmp/bad_rel"
  if [ -s "$tmp/bad_rel" ]; then
    echo "FAIL: dynamic relocation(s) name internal symbol(s):"; sed 's/^/  /' "$tmp/bad_rel"; fail=1
  fi
else
  echo "note: the library has no symbol table (stripped): PLT check skipped"
fi

# no constructor work at load: .init_array holds the compiler's frame_dummy and
# src/wrap/fortran_check.c's check, which returns at once outside MPI ranks
# (sanitizer builds add their own module constructors: not checked there)
if [ -z "${SANITIZER_PRELOAD:-}" ]; then
  sz=$(readelf -SW "$lib" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".init_array" {print $5}')
  if [ -n "$sz" ] && [ $((0x$sz)) -gt 16 ]; then
    echo "FAIL: libductile.so has $((0x$sz / 8)) load-time constructors (.init_array); only frame_dummy and ductile_fortran_check are expected"; fail=1
  fi
fi

[ $fail -eq 0 ] && echo "PASS: $n exported symbols, all MPI_*/mpi_*/EMPI_* or public ductile_* ($(tr '\n' ' ' < "$tmp/public")); internal calls bind locally; constructors: frame_dummy and the Fortran check only"
exit $fail

# common.sh -- helpers for the MPI-IO tests (sourced): a private directory,
# the io_pattern program run unmodified under LD_PRELOAD.
set -u
B="$abs_top_builddir"
S="$abs_top_srcdir"
PY=${PYTHON:-python3}
PATTERN="$B/tests/io/io_pattern"
T=$(mktemp -d /tmp/ductile-io-test-XXXXXX)
fail=0
cleanup() {
  if [ $fail -ne 0 ]; then
    for f in "$T"/*.log "$T"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
# After an expansion, Open MPI's default MPI-IO component cannot open files on
# the merged world (docs/malleability.md): ROMIO works for both.
if [ "$MPI_FAMILY" = openmpi ]; then OMPI_MCA_io=romio321; export OMPI_MCA_io; fi
export DUCTILE_SUMMARY=0
# run_pattern NAME NPROCS PHASES COMPUTE_MS [env...]: io_pattern with the preload
run_pattern() {
  name=$1; np=$2; ph=$3; ms=$4; shift 4
  timeout -k 10 120 $MPIEXEC -n "$np" env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    DUCTILE_REPORT="$T/$name.json" "$@" "$PATTERN" "$ph" "$ms" "$T" "$name" > "$T/$name.out" 2> "$T/$name.log"
}

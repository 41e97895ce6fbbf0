#!/bin/sh
# The demo (examples/jacobi.c, Algorithm 2 of the CLARISSE/FlexMPI paper:
# Jacobi with periodic MPI_File_write_all) gives bit-identical results with
# and without resizes, for both methods and with standby processes
# (DUCTILE_PERSISTENT=1); the written file is identical too.
set -u
prog="$abs_top_builddir/examples/jacobi"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$tmp" || exit 1
# Open MPI 4.1's OMPIO hangs in MPI_File_open on a communicator that spans a
# parent and a spawned job; ROMIO works (see docs/malleability.md).
if $MPIEXEC --version 2>&1 | grep -qiE "open ?(rte|mpi)"; then OMPI_MCA_io=romio321; export OMPI_MCA_io; fi
timeout -k 10 120 $MPIEXEC -n 2 "$prog" 120 30 5 ref.bin > ref.out 2> ref.err || { echo "FAIL: reference run"; cat ref.err; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' ref.out)
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat ref.out; exit 1; }
echo "reference: $(cat ref.out)"
# persistent: Phase Shifting cycles 2 <-> 4 with standby processes (DUCTILE_PERSISTENT=1): the processes
# that come back continue at the others' iteration (EMPI_Get_iteration) and write their part of the file
for m in merge baseline persistent; do
  if [ $m = persistent ]; then set -- DUCTILE_PERSISTENT=1 DUCTILE_SCHEDULE="3:+2,7:-2,11:+2,15:-2,19:+2,23:-2"
  else set -- DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="4:+2,12:-3,20:+1"; fi
  env "$@" timeout -k 10 120 $MPIEXEC -n 2 "$prog" 120 30 5 $m.bin > $m.out 2> $m.err
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' $m.out)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on 2 processes" $m.out; then
    echo "FAIL: $m: rc $rc, checksum '$got' (expected $ref)"; cat $m.out; tail -10 $m.err; fail=1
  elif ! cmp -s ref.bin $m.bin; then
    echo "FAIL: $m: the written file differs"; fail=1
  else
    echo "ok: $m: $(cat $m.out)"
    grep "ductile:   #" $m.err
    if [ $m = persistent ] && [ "$(grep -c 'persistent: reused' $m.err)" -lt 4 ]; then
      echo "FAIL: persistent: fewer than 4 reconfigurations reused prepared transfers"; fail=1
    fi
  fi
done
exit $fail

#!/bin/sh
# Sparse matrices: tests/malleable/cg.c (conjugate gradient on a CSR matrix,
# replicated vectors, dot products over whole vectors in global order: see
# its header for why that is bit-identical) resized 2->5->3 with FlexMPI's
# EMPI_Register_sparse and with EMPI_Register_csr balanced by rows and by
# non-zeros (Merge; Baseline for the non-zero balance) gives the x of a
# static run bit for bit; the program checks the row distribution after
# every resize (its EMPI_Get_wsize block, or a non-zero share of at most
# ceil(nnz/P) + the longest row).
set -u
prog="$abs_top_builddir/tests/malleable/cg"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" 600 14 rows > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(grep -o "x hash [0-9a-f]* residual [^ ]* on 2 processes" ref | cut -d" " -f3-5)
[ -n "$ref" ] || { echo "FAIL: static run: no hash"; cat ref; exit 1; }
echo "static on 2: $(grep -o 'x hash.*' ref)"
# the third word: the redistribution method (col: MPI_Alltoallv; p2p and the
# one-sided ones: nonblocking point-to-point, src/data/exchange.c)
for c in "flex merge col" "rows merge col" "nnz merge col" "nnz baseline col" "nnz merge p2p" "flex merge rma-lock" \
         "rows baseline p2p"; do
  set -- $c
  DUCTILE_REDIST=$3 DUCTILE_RESIZE_METHOD=$2 DUCTILE_SCHEDULE="3:+3,8:-2" timeout -k 10 $t $MPIEXEC -n 2 "$prog" 600 14 $1 > out 2> err
  rc=$?
  got=$(grep -o "x hash [0-9a-f]* residual [^ ]* on 3 processes" out | cut -d" " -f3-5)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\| BAD" out; then
    echo "FAIL: $1 $2 $3 2->5->3: rc $rc, got '$got' (expected '$ref')"; cat out; tail -15 err; fail=1
  else
    echo "ok: $1 $2 $3 2->5->3: $(grep -o 'x hash.*' out)"
  fi
done
exit $fail

#!/bin/sh
# Resizes while a second thread calls MPI on MPI_COMM_WORLD without pause
# (MPI_THREAD_MULTIPLE): no crash, no hang, and the thread always sees the
# program's world (its name and attribute).  Old worlds are freed only at
# MPI_Finalize in this mode (src/world/worldid.c).
. "$abs_top_srcdir/tests/transparency/common.sh"
out=$(env timeout -k 10 60 $MPIEXEC -n 1 "$B/tests/transparency/world_threads" 0 2>&1)
case $out in *SKIP*) echo "$out"; exit 77 ;; esac
run "2->3->1->2, second thread on the world" world_threads 2 2 DUCTILE_SCHEDULE=1:+1,3:-2,5:+1 -- 8
exit $fail

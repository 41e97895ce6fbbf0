#!/bin/sh
# A program that spawns its own processes (master/worker through
# MPI_Comm_spawn and MPI_Comm_get_parent) behaves as without Ductile: its
# workers do not enter Ductile's join protocol, before and after Ductile
# resized the job (the program is malleable through empi.h too), and a
# process Ductile spawned into the world sees no parent.
. "$abs_top_srcdir/tests/transparency/common.sh"
run "master -n 1, 3 workers, no resize" spawn_own 1 1 -- 0
run "master -n 2, 3 workers, no resize" spawn_own 2 2 -- 0
run "2->3->1, spawns before and after" spawn_own 2 1 DUCTILE_SCHEDULE=0:+1,1:-2 -- 3
# After a grow the world holds processes of a spawned job, and a spawn in
# which they take part is the third spawn of the run.  Open MPI 4.1.4 hangs
# such spawns without Ductile too (in 2 runs of 10: a merged pair spawning,
# tests/transparency/ompi_spawn_merged.c; in 5 of 12: a spawned job spawning,
# tests/transparency/ompi_nested_spawn.c), so these cases run with MPICH only.
if [ "$MPI_FAMILY" != openmpi ]; then
  run "1->2, spawns before and after" spawn_own 1 2 DUCTILE_SCHEDULE=0:+1 -- 2
  run "1->3 baseline, spawns before and after" spawn_own 1 3 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=0:+2 -- 2
fi
exit $fail

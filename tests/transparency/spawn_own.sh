#!/bin/sh
# A program that spawns its own processes (master/worker through
# MPI_Comm_spawn and MPI_Comm_get_parent) behaves as without Ductile: its
# workers do not enter Ductile's join protocol, before and after Ductile
# resized the job (the program is malleable through empi.h too), and a
# process Ductile spawned into the world sees no parent.
. "$abs_top_srcdir/tests/transparency/common.sh"
run "master -n 1, 3 workers, no resize" spawn_own 1 1 -- 0
run "master -n 2, 3 workers, no resize" spawn_own 2 2 -- 0
run "1->2, spawns before and after" spawn_own 1 2 DUCTILE_SCHEDULE=0:+1 -- 2
run "2->3->1, spawns before and after" spawn_own 2 1 DUCTILE_SCHEDULE=0:+1,1:-2 -- 3
# Baseline: after the resize the world is a spawned job, and it spawns again.
# Open MPI 4.1.4 hangs (in the grandchildren's MPI_Init, PMIx_Init) in about
# 5 runs of 12 when a process spawns a job, disconnects it, spawns a second
# job and that job spawns a third -- measured without Ductile
# (docs/virtual-world.md): not run there.
if [ "$MPI_FAMILY" != openmpi ]; then
  run "1->3 baseline, spawns before and after" spawn_own 1 3 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=0:+2 -- 2
fi
exit $fail

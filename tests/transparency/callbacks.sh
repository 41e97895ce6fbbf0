#!/bin/sh
# Callbacks see the program's handles (tests/transparency/callbacks.c;
# docs/virtual-world.md, "Callbacks"): communicator error handlers on
# MPI_COMM_WORLD (also set with the MPI-1 MPI_Errhandler_set), window and
# file error handlers, raised by the program and by the library, and
# attribute callbacks -- before any resize, after 2->3->1 and after 1->3->2
# (the file opened on the world stays open across them); once without
# Ductile's virtual world (DUCTILE_DISABLE=1), where the MPI alone calls them;
# and Fortran handlers (tests/transparency/callbacks_f.f90) where the MPI has
# Fortran bindings.
. "$abs_top_srcdir/tests/transparency/common.sh"
mkdir -p "$T/d0" "$T/d1" "$T/d2" "$T/d3"
# Open MPI 4.1 creates windows over a world with spawned processes only with
# osc/ucx (its default components fail with MPI_ERR_WIN: docs/rma.md,
# "Known limits"); Open MPI 5 only without it
osc=CALLBACKS_OSC=default
case "$($MPIEXEC --version 2>&1 | head -1)" in *"(OpenRTE) 4."*) osc=OMPI_MCA_osc=ucx ;; esac
run "without Ductile" callbacks 2 2 DUCTILE_DISABLE=1 -- 2 "$T/d0"
run "no resize" callbacks 2 2 -- 2 "$T/d1"
mkdir -p "$T/d1m"
run "no resize, MPI_THREAD_MULTIPLE" callbacks 2 2 -- 2 "$T/d1m" multiple
run "2->3->1" callbacks 2 1 $osc DUCTILE_SCHEDULE=0:+1,1:-2 -- 3 "$T/d2"
run "1->3->2 p2p" callbacks 1 2 $osc DUCTILE_REDIST=p2p DUCTILE_SCHEDULE=0:+2,1:-1 -- 3 "$T/d3"
# Fortran handlers (built where the MPI has Fortran: Open MPI 4.1 here), preloaded
if [ -x "$B/tests/transparency/callbacks_f" ]; then
  mkdir -p "$T/f0" "$T/f1"
  run "Fortran, without Ductile" callbacks_f 2 2 -- "$T/f0"
  run "Fortran" callbacks_f 2 2 "LD_PRELOAD=$SANITIZER_PRELOAD${SANITIZER_PRELOAD:+:}$LIBDUCTILE" -- "$T/f1"
fi
exit $fail

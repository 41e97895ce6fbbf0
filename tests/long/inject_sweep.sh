#!/bin/sh
# The full sweep of tests/malleable/inject.sh: every k over the counted
# allocations and MPI calls of each resize, and more methods (make check-sweep).
INJECT_FULL=1 exec sh "$abs_top_srcdir/tests/malleable/inject.sh"

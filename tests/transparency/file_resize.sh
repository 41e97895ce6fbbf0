#!/bin/sh
# Files open on MPI_COMM_WORLD across resizes (2->3->1, and 1->3->2 with the
# p2p transfer): written before and after each resize through the program's
# unchanged handles (explicit offsets with a view, the individual and the
# shared file pointer), checked byte for byte.  No MPI-IO setting is given
# (Open MPI 4.1 runs OMPIO; Ductile leaves out its sharedfp/sm component).
. "$abs_top_srcdir/tests/transparency/common.sh"
unset OMPI_MCA_io
mkdir -p "$T/f1" "$T/f2" "$T/f0"
run "no resize" file_resize 2 2 -- 4 "$T/f0"
run "2->3->1" file_resize 2 1 DUCTILE_SCHEDULE=1:+1,3:-2 -- 5 "$T/f1"
run "1->3->2 p2p" file_resize 1 2 DUCTILE_REDIST=p2p DUCTILE_SCHEDULE=0:+2,2:-1 -- 4 "$T/f2"
exit $fail

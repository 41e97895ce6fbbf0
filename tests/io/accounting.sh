#!/bin/sh
# Exact MPI-IO byte accounting per file and per phase, access sizes, and I/O
# phase detection on a known pattern (tests/io/io_pattern.c: 4 phases of
# open/set_view/write_all/split collective/write_at/iwrite_at/read_at_all/
# close separated by 400 ms of computation), in an unmodified binary.
. "$abs_top_srcdir/tests/io/common.sh"
run_pattern acc 3 4 400 && ok "io_pattern ran on 3 ranks" || bad "io_pattern failed"
"$PY" "$S/tests/io/check_io.py" accounting "$T/acc.json" "$T/acc.out" || fail=1
# a gap longer than the compute phases merges everything into one phase
run_pattern merged 2 3 100 DUCTILE_IO_PHASE_GAP=2000 && ok "io_pattern ran with a 2 s phase gap" || bad "io_pattern (gap) failed"
n=$("$PY" -c "import json; print(len(json.load(open('$T/merged.json'))['io']['phases']))")
[ "$n" = 1 ] && ok "with DUCTILE_IO_PHASE_GAP=2000 the 3 bursts 100 ms apart are one phase" || bad "expected 1 phase with a 2 s gap, got $n"
exit $fail

#!/bin/sh
# Host lists of any length (issue 25 item 3).  An expansion's host list names
# one host per new process ("localhost;localhost;..."); MPI_Comm_spawn's
# "host"/"hosts" info value holds at most MPI_MAX_INFO_VAL characters (256 on
# Open MPI, 1024 on MPICH), so Ductile passes runs of equal adjacent names,
# "localhost:26":
#   1. a job of 2 grows by 26 processes named one by one (259 characters, past
#      Open MPI's limit), then shrinks back: the checksum of a static run,
#      every element checked, both resizes ok;
#   2. a host list whose runs do not fit an info value (120 alternating names)
#      is refused before any process starts, naming MPI_MAX_INFO_VAL; the job
#      goes on at 2 processes with the static checksum; the same kind of list
#      in a parallel spawn (3 -> 29 -> 3) works where each parent's share of it
#      fits (schedule_share_runs_max);
#   3. a shrink naming its leaving ranks one by one ("1;3;5;...") works;
#   4. a process that cannot allocate its copy of a request's list
#      (DUCTILE_TEST_FAIL=list: the last one) refuses the resize on every
#      process, with the reason; the job goes on at its size with the static
#      checksum, and the next request, which names no list, still runs.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/cjacobi"
dim=120 its=60
timeout -k 10 120 $MPIEXEC -n 2 "$prog" $dim $its > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: reference run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: no checksum"; cat "$tmp/ref.out"; exit 1; }
fail=0

hosts=$(yes localhost | head -n 26 | paste -sd';')
[ ${#hosts} -gt 256 ] || { echo "FAIL: the list is only ${#hosts} characters"; exit 1; }
jrun "2 -> 28 -> 2, 26 hosts named one by one (${#hosts} characters)" 2 2 ok,ok "" \
  OMPI_MCA_rmaps_base_oversubscribe=1 DUCTILE_SCHEDULE="10:+26@$hosts,12:-26"
alt=$(for i in $(seq 60); do echo "localhost;127.0.0.1"; done | paste -sd';')
jrun "an info value too long for the MPI: refused before spawning" 2 2 failed MPI_MAX_INFO_VAL \
  DUCTILE_SCHEDULE="10:+120@$alt"
grep -q "MPI_MAX_INFO_VAL" "$tmp/err" || { echo "FAIL: stderr does not name the cause"; tail -5 "$tmp/err"; fail=1; }
# a parallel spawn (Open MPI 4.1; elsewhere one spawn) passes each parent's share of the list: 26 alternating
# names are 259 characters of runs in all, past Open MPI's 256, but 89 or fewer in each of the 3 shares
alt26=$(for i in $(seq 13); do echo "localhost;127.0.0.1"; done | paste -sd';')
jrun "3 -> 29 -> 3, parallel spawn, 26 alternating names: each parent's share fits an info value" 3 3 ok,ok "" \
  OMPI_MCA_rmaps_base_oversubscribe=1 DUCTILE_SPAWN_PARALLEL=on DUCTILE_SCHEDULE="10:+26@$alt26,12:-26"
jrun "shrink 6 -> 3 naming ranks one by one" 6 3 ok "" OMPI_MCA_rmaps_base_oversubscribe=1 DUCTILE_SCHEDULE="10:-3@5;1;3"
jrun "a process out of memory for the list: refused on all" 4 3 refused,ok "out of memory for the request's host or rank list" \
  DUCTILE_TEST_FAIL=list DUCTILE_SCHEDULE="10:-1@1,20:-1"
exit $fail

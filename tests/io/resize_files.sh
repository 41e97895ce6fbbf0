#!/bin/sh
# Files across a resize (docs/virtual-world.md, "Open files"): a file opened
# on the virtual world stays open across a Merge resize (closed on the old
# world and reopened on the new one, the program's handle unchanged; a new
# process takes it with MPI_File_open of the same name), so the resize
# happens at its scheduled iteration.  With the baseline method or
# DUCTILE_PERSISTENT=1 a resize still waits until the file is closed.
# tests/io/io_resize (EMPI) opens a file on the world, writes a record per
# iteration and closes it; a DUCTILE_SCHEDULE resize falls between the open
# and the close.  Checked: the iteration of the resize (report and the
# program's own per-iteration sizes), the redistributed data, the file's
# contents (read back on the new world).  No MPI-IO setting: with Open MPI
# 4.1 this runs OMPIO (Ductile leaves out sharedfp/sm, which hangs on a
# world spanning two jobs).
. "$abs_top_srcdir/tests/io/common.sh"
unset OMPI_MCA_io
RES="$B/tests/io/io_resize"
# run_resize NAME NPROCS SCHEDULE ITERS OPEN CLOSE EXPECT_ITER EXPECT_FROM EXPECT_TO [VAR=value...]
run_resize() {
  name=$1; np=$2; sched=$3; iters=$4; op=$5; cl=$6; want=$7; from=$8; to=$9; shift 9
  env "$@" DUCTILE_SCHEDULE="$sched" DUCTILE_REPORT="$T/$name.json" timeout -k 10 $((60 * ${TEST_TIME_SCALE:-2})) \
    $MPIEXEC -n "$np" "$RES" 40 "$iters" "$op" "$cl" "$T/$name.dat" > "$T/$name.out" 2> "$T/$name.log"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^io_resize: ok" "$T/$name.out"; then
    bad "$name: rc $rc: $(grep '^io_resize' "$T/$name.out")"; return
  fi
  ok "$name: $(grep '^io_resize' "$T/$name.out")"
  got=$("$PY" -c "import json; print(' '.join('%d:%d:%d:%s' % (r['iteration'], r['from'], r['to'], r['status']) for r in json.load(open('$T/$name.json'))['reconfigurations']))")
  [ "$got" = "$want:$from:$to:ok" ] && ok "$name: schedule '$sched', file open during iterations $op..$cl: resized $from -> $to at iteration $want" ||
    bad "$name: reconfigurations '$got', expected '$want:$from:$to:ok'"
  # the program's own view: size $from up to iteration $want, $to after it
  s1=$(awk -v i="$want" '$1 == "iter" && $2 == i {print $3}' "$T/$name.out")
  s2=$(awk -v i="$((want + 1))" '$1 == "iter" && $2 == i {print $3}' "$T/$name.out")
  [ "$s1" = "$from" ] && [ "$s2" = "$to" ] && ok "$name: iteration $want ran on $s1 processes, iteration $((want + 1)) on $s2" ||
    bad "$name: sizes at iterations $want/$((want + 1)): '$s1'/'$s2'"
}
# expand: scheduled after iteration 5, file open during iterations 3..9 -> at 5, the file stays open
run_resize expand 2 "5:+1" 14 3 9 5 2 3
# shrink: scheduled after iteration 4, file open during 2..7 -> at 4
run_resize shrink 3 "4:-2" 10 2 7 4 3 1
# the file is closed before the scheduled iteration
run_resize closed 2 "5:+1" 10 1 2 5 2 3
# the baseline method replaces every process: the resize waits for the close (9)
run_resize baseline 2 "5:+1" 14 3 9 9 2 3 DUCTILE_RESIZE_METHOD=baseline
exit $fail

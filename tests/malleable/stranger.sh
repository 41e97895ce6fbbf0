#!/bin/sh
# Programs written by a tester who read only README.md, docs/ and include/
# (FlexMPI/MaM style), kept as tests:
#  - strangerjacobi: A and b constant distributed, xloc variable distributed,
#    x replicated; spawned processes allocate (malloc or EMPI_malloc) and
#    register their own buffers and compute on them; the final x is compared
#    bitwise with a serial run.  2->4->3->1 in blocking, nb, wd and thread
#    with col and one rma method, odd counts 3->5->2.
#  - strangermulti: six distributed items of different types (a padded
#    struct through a derived type, items with fewer rows than processes),
#    constant and variable, a replicated array and a scalar, checked element
#    by element at every iteration, 3->5->2->1.
#  - strangerkinds: a 2-D N-D block with halos, FlexMPI sparse and custom
#    data, checked at every iteration (halos right after each resize).
#  - DUCTILE_DISABLE=1 (the kill switch) leaves an EMPI program as a static
#    FlexMPI program: the same answer as a static run, no resize although a
#    schedule is set, EMPI_Get_iteration keeps the loop counter.
# STRANGER_FULL=1 (tests/long/stranger_full.sh): every mode x method x
# allocation, as the tester ran it.
set -u
J="$abs_top_builddir/tests/malleable/strangerjacobi"
M="$abs_top_builddir/tests/malleable/strangermulti"
K="$abs_top_builddir/tests/malleable/strangerkinds"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
t=$((90 * ${TEST_TIME_SCALE:-2} / 2))

# one NAME EXPECT_SIZES NP PROG ARGS... (env from the caller): the program's
# PASS line, exit code 0, and the sizes it went through ("2@0 4@5 ...": each
# EXPECT_SIZES word must be one of them, "-" for none)
one() {
  name=$1 want=$2 np=$3; shift 3
  timeout -k 10 $t $MPIEXEC -n "$np" "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  line=$(grep "=> " "$tmp/out" | tail -1)
  sizes=" $(echo "$line" | sed -n 's/.*sizes: \(.*\)| final.*/\1/p') "
  ok=1
  [ $rc -eq 0 ] && echo "$line" | grep -q "=> PASS" || ok=0
  if [ "$want" != - ]; then
    for w in $want; do case "$sizes" in *" $w@"*) ;; *) ok=0 ;; esac; done
  fi
  if [ $ok = 1 ]; then
    echo "ok: $name: $line"
  else
    echo "FAIL: $name: rc $rc, expected sizes '$want': $line"; tail -20 "$tmp/out"; tail -20 "$tmp/err"; fail=1
  fi
}

# the kill switch: a static run, then DUCTILE_DISABLE=1 with a schedule it must ignore
one "static 2 procs" 2 2 "$J" 40 30
ref=$(echo "$line" | sed -n 's/.*checksum \([^ ]*\) .*/\1/p')
FJ_GETIT=1 DUCTILE_DISABLE=1 DUCTILE_SCHEDULE="3:+2,8:-1" one "DUCTILE_DISABLE=1 (schedule ignored)" 2 2 "$J" 40 30
got=$(echo "$line" | sed -n 's/.*checksum \([^ ]*\) .*/\1/p')
case "$line" in *"sizes: 2@0 | final size 2 "*) ;; *) echo "FAIL: DUCTILE_DISABLE=1 resized: $line"; fail=1 ;; esac
[ -n "$ref" ] && [ "$got" = "$ref" ] || { echo "FAIL: DUCTILE_DISABLE=1: checksum '$got', static '$ref'"; fail=1; }
FJ_GETIT=1 DUCTILE_DISABLE=1 one "DUCTILE_DISABLE=1, 3 procs, 37 rows" 3 3 "$J" 37 12
# N-D block with halos, sparse and custom data (strangerkinds) under the kill switch, and resized
DUCTILE_DISABLE=1 DUCTILE_SCHEDULE="3:+2" one "kinds DUCTILE_DISABLE=1" 3 3 "$K" 8
case "$line" in *"sizes: 3@0 | final size 3 "*) ;; *) echo "FAIL: kinds DUCTILE_DISABLE=1 resized: $line"; fail=1 ;; esac
DUCTILE_SCHEDULE="3:+2,6:-3" one "kinds 3->5->2" "3 5 2" 3 "$K" 9

# ductile_request_resize refuses at call time what the current world already rules out (FJ_REQ=1:
# the program's requests at fixed iterations; the world has 4 processes from iteration 3)
FJ_REQ=1 one "bad requests" "2 4 3" 2 "$J" 40 30
for want in "request(-10, target=0, at=-1, NULL) -> -1 'resize refused: shrinking below one process is not possible (removing 10 of 4 processes)'" \
            "request(-1, target=0, at=-1, 7) -> -1 'resize refused: rank 7 does not exist (world of 4)'"; do
  grep -qF "$want" "$tmp/out" || { echo "FAIL: bad requests: no line '$want'"; grep REQ "$tmp/out"; fail=1; }
done
# a schedule's shrink past the world's size: refused at the control point, never a negative size in the message
DUCTILE_SCHEDULE="3:-5" one "shrink by 5 of 2" 2 2 "$J" 40 6
grep -q "resize 2 -> 0 at iteration 3 refused: shrinking below one process is not possible (removing 5 of 2 processes)" "$tmp/err" ||
  { echo "FAIL: shrink by 5 of 2: refusal message"; cat "$tmp/err"; fail=1; }

S="4:+2,12:-1,20:=1"
if [ "${STRANGER_FULL:-0}" = 1 ]; then
  modes="blocking nb wd thread"; reds="col p2p rma-lock rma-lockall"; allocs="malloc empi"; S="5:+2,40:-1,80:=1"; its=120
else
  modes="blocking nb wd thread"; reds="col rma-lock"; allocs=malloc; its=28
fi
for mode in $modes; do
  for red in $reds; do
    for alloc in $allocs; do
      th=single; [ $mode = thread ] && th=multiple
      [ $mode = nb ] && [ $red != col ] && [ $red != p2p ] && continue
      want="2 4 3 1"
      # background transfers complete after wall time, not iterations (docs/malleability.md): give
      # them iterations long enough to commit before the end on a loaded machine
      sl=""; [ $mode = wd ] && sl=10; [ $mode = nb ] || [ $mode = thread ] && sl=3
      FJ_SLEEP_MS=$sl DUCTILE_REDIST_CONSTANT=$mode DUCTILE_REDIST=$red DUCTILE_SCHEDULE="$S" \
        one "jacobi $mode $red $alloc 2->4->3->1" "$want" 2 "$J" 48 $its $alloc $th
    done
  done
done
# rma-fence is blocking only: with a background strategy the constant data moves by the collective,
# and the note on stderr and the record's reason say so
FJ_SLEEP_MS=3 DUCTILE_REPORT="$tmp/fence.json" DUCTILE_REDIST=rma-fence DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE="3:+2" \
  one "jacobi rma-fence nb 2->4" "2 4" 2 "$J" 48 12
grep -q "note: DUCTILE_REDIST=rma-fence is blocking only; constant data moves by the collective (col, nb)" "$tmp/err" ||
  { echo "FAIL: rma-fence nb: no note on stderr"; cat "$tmp/err"; fail=1; }
grep -q "by the collective (rma-fence is blocking only" "$tmp/fence.json" ||
  { echo "FAIL: rma-fence nb: the record does not say the collective moved the constant data"; fail=1; }
# odd counts, uneven rows
for mode in blocking nb; do
  DUCTILE_REDIST_CONSTANT=$mode DUCTILE_SCHEDULE="3:+2,7:=2" one "jacobi $mode 3->5->2 dim 37" "3 5 2" 3 "$J" 37 12 empi
done
# many types
for cfg in "blocking col" "nb p2p"; do
  set -- $cfg
  want="3 5 2 1"; [ $1 = blocking ] || want="3 5" # background: commits after wall time (no sleep in multi)
  DUCTILE_REDIST_CONSTANT=$1 DUCTILE_REDIST=$2 DUCTILE_SCHEDULE="3:+2,7:-3,11:=1" \
    one "multi $1 $2 3->5->2->1" "$want" 3 "$M" 16
done
if [ "${STRANGER_FULL:-0}" = 1 ]; then
  for cfg in "wd col merge" "thread col merge" "wd rma-lockall merge" "blocking col baseline" "blocking p2p merge"; do
    set -- $cfg; th=""; [ $1 = thread ] && th=multiple
    # background modes commit after wall time (short iterations: maybe not before the end, docs/malleability.md);
    # the Baseline method replaces rank 0, whose history then starts at its arrival: its final size only
    want="3 5 2 1"; [ $1 = blocking ] || want="3 5"; [ $3 = baseline ] && want=3
    DUCTILE_REDIST_CONSTANT=$1 DUCTILE_REDIST=$2 DUCTILE_RESIZE_METHOD=$3 DUCTILE_SCHEDULE="4:+2,10:-3,16:=5,22:=1,26:+2" \
      one "multi $cfg 3->5->2->5->1->3" "$want" 3 "$M" 200 $th
    [ $3 = baseline ] && case "$line" in *"final size 3 "*) ;; *) echo "FAIL: multi $cfg: final size"; fail=1 ;; esac
  done
  DUCTILE_SCHEDULE="3:=5,6:=3,9:=7" one "multi 7->5->3->7" "7 5 3" 7 "$M" 14
fi
exit $fail

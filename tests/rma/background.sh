#!/bin/sh
# Background redistribution of constant data, the MaM RMA paper's versions
# (COL, RMA-Lock, RMA-Lockall) x (Wait Drains, Threading) (COL-NB is
# tests/malleable/nb.sh).  The app keeps iterating (10 ms per iteration) and
# changing its variable data while the constant array moves; every element of
# both is checked on every rank after every control point: an old process sees
# its old constant block untouched until the transfer completes, then its new
# block.  (The world switches when the transfer is complete: resizes 18-20
# iterations apart.)  Pairs 1->2->4->2->1 and 3->5->3->4->1 in one run each.  Threading
# needs MPI_THREAD_MULTIPLE (tests/rma/resize_app_mt asks for it); it is
# skipped with the reason where the MPI does not grant it, and its refusal
# with plain MPI_Init is checked.  With Open MPI 4 the rma-* versions move the
# constant data by the collective in the background (docs/rma.md): checked too.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/rma/common.sh"
k="RESIZE_APP_CONST=20000"
MT="$abs_top_builddir/tests/rma/resize_app_mt"
# run() starts "$APP ITERS": wrappers add the 10 ms per iteration (spawned processes
# re-execute the binary itself, with the same arguments)
printf '#!/bin/sh\nexec "%s" "$1" 10\n' "$abs_top_builddir/tests/malleable/resize_app" > "$tmp/app"
printf '#!/bin/sh\nexec "%s" "$1" 10\n' "$MT" > "$tmp/app_mt"
chmod +x "$tmp/app" "$tmp/app_mt"
# bgmethod NAME: with Open MPI 4 the constant data of rma-* methods moves by
# the collective in the background (osc/ucx is not safe there, docs/rma.md):
# the records and the note say so; with other MPIs it moves one-sided.
bgmethod() {
  case "$1" in rma-*) ;; *) return 0 ;; esac
  n=$($PYTHON -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum('by the collective' in x['reason'] for x in r['reconfigurations'] if x.get('overlapped_iterations') is not None))" "$rep")
  if [ "$MPI_FAMILY" = openmpi ]; then
    if [ "$n" -ge 2 ] && grep -q "background one-sided transfers are not safe" "$tmp/err"; then
      echo "   Open MPI 4: constant data moved by the collective ($n records say so, and the note)"
    else
      echo "FAIL: $1: Open MPI 4 should move constant data by the collective and say so ($n records)"; fail=1
    fi
  elif [ "$n" -ne 0 ]; then
    echo "FAIL: $1: $n records moved constant data by the collective under $MPI_FAMILY"; fail=1
  fi
}
level=$(env DUCTILE_REPORT=none DUCTILE_SUMMARY=0 timeout -k 10 60 $MPIEXEC -n 1 "$MT" 1 2>/dev/null | sed -n 's/^THREAD LEVEL //p')
for m in col rma-lock rma-lockall; do
  for s in wd thread; do
    if [ "$s" = thread ] && [ "$level" != multiple ]; then
      echo "SKIP: $m+thread: this MPI does not grant MPI_THREAD_MULTIPLE (thread level: ${level:-unknown})"; continue
    fi
    [ "$s" = thread ] && APP="$tmp/app_mt" || APP="$tmp/app"
    e="DUCTILE_REDIST=$m DUCTILE_REDIST_CONSTANT=$s $k"
    run "$m+$s 1->2->4->2->1" 1 80 1 4 $e DUCTILE_SCHEDULE="2:+1,20:+2,40:-2,60:-1" && rmacheck "$m+$s" "$m+$s" 2 &&
      bgmethod "$m+$s"
    run "$m+$s 3->5->3->4->1" 3 80 1 4 $e DUCTILE_SCHEDULE="2:+2,20:-2,40:+1,60:=1" && rmacheck "$m+$s" "$m+$s" 2 &&
      bgmethod "$m+$s"
  done
done
APP="$tmp/app"
# Threading without MPI_THREAD_MULTIPLE (plain MPI_Init): refused with the reason, data moves blocking
run "thread refused under MPI_Init" 2 4 2 2 DUCTILE_REDIST=rma-lock DUCTILE_REDIST_CONSTANT=thread $k \
  DUCTILE_SCHEDULE="1:+2,2:-2" &&
  { grep -q "DUCTILE_REDIST_CONSTANT=thread refused: it needs MPI_THREAD_MULTIPLE" "$tmp/err" &&
    grep -q "MPI_THREAD_MULTIPLE not provided" "$rep" && echo "   refused with the reason, data moved blocking" ||
    { echo "FAIL: no refusal message"; fail=1; }; }
# NB does not apply to one-sided methods: Wait Drains instead, with a note
run "rma-lockall+nb means wd" 2 40 2 2 DUCTILE_REDIST=rma-lockall DUCTILE_REDIST_CONSTANT=nb $k \
  DUCTILE_SCHEDULE="2:+2,20:-2" && rmacheck "nb->wd" "rma-lockall+wd" 1
exit $fail

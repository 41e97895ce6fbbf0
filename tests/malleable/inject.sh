#!/bin/sh
# Every failure rolls back, wherever it happens (docs/malleability.md,
# "Failures"): the k-th allocation (DUCTILE_TEST_FAIL=alloc:K@RANK) or the
# k-th MPI call (mpi:K@RANK) of a resize fails on one process, for k over
# the steps that resize reaches, in tests/malleable/allkinds.c (distributed,
# constant, replicated and scalar items, an N-D block, a CSR matrix, custom
# data and a patch set).  Each run must end with the static run's hashes at
# the old size, one failed record, no process aborted, and the injection must
# have happened.  Scenarios: an expansion (the failing process is the new
# one), a shrink (a staying process), a Baseline expansion (rank 0), an
# expansion by parallel spawning (DUCTILE_SPAWN_PARALLEL=on; parent 1) and an
# expansion whose constant data moves in the background (nb; an old
# process).  First a counting run (DUCTILE_TEST_FAIL=count@RANK) commits the
# resize and says how many counted allocations and MPI calls it made there.
#
# make check runs two k of each range (the last, and the first or the middle); INJECT_FULL=1 (make
# check-long: tests/long/inject_sweep.sh) runs every k, and more methods;
# INJECT_ONLY=TEXT runs only the scenarios whose name contains TEXT.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/allkinds"
its=6
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
full=${INJECT_FULL:-0}
hashes() { sed -n 's/^hashes \(.*\) on \([0-9]*\) processes.*/\1 on \2/p' "$1"; }
# the static runs' hashes for ITS iterations (on 2 and 3 processes: the same), in ref$ITS
static_ref() {
  for np in 2 3; do
    timeout -k 10 $t $MPIEXEC -n $np "$prog" $1 > "$tmp/ref$np" 2> "$tmp/ref.err" || { echo "FAIL: static run on $np"; cat "$tmp/ref$np" "$tmp/ref.err"; exit 1; }
    grep -q "FAIL\| BAD" "$tmp/ref$np" && { echo "FAIL: static run on $np"; cat "$tmp/ref$np"; exit 1; }
  done
  r=$(hashes "$tmp/ref2" | sed 's/ on .*//')
  [ -n "$r" ] || { echo "FAIL: no hashes"; cat "$tmp/ref2"; exit 1; }
  [ "$(hashes "$tmp/ref3")" = "$r on 3" ] || { echo "FAIL: the static runs on 2 and 3 differ"; cat "$tmp/ref2" "$tmp/ref3"; exit 1; }
  eval "ref$1=\$r"
  echo "static, $1 iterations, on 2 and 3: $r"
}
static_ref 6
static_ref 30

# one NAME NP FINAL STATUS SPEC VAR=value...: a run with DUCTILE_TEST_FAIL=SPEC; it must end with the
# static hashes on FINAL processes and one record of STATUS (ok / failed)
one() {
  name=$1 np=$2 final=$3 status=$4 spec=$5; shift 5
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" DUCTILE_SUMMARY=0 DUCTILE_TEST_FAIL="$spec" "$@" \
    timeout -k 10 $((t * 2)) $MPIEXEC -n "$np" "$prog" $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(hashes "$tmp/out")
  eval "ref=\$ref$its"
  if [ $rc -ne 0 ] || [ "$got" != "$ref on $final" ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $name, $spec: rc $rc, '$got' (expected '$ref on $final')"; cat "$tmp/out"; tail -20 "$tmp/err"
    fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting\|ending the job" "$tmp/err"; then
    echo "FAIL: $name, $spec: a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  case $spec in
  alloc:*|mpi:*)
    grep -q "fails (injected: DUCTILE_TEST_FAIL=$spec)" "$tmp/err" || {
      echo "FAIL: $name, $spec: the injection did not happen"; tail -10 "$tmp/err"; fail=1; return 1; } ;;
  esac
  if ! $PYTHON - "$rep" "$status" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
if len(rc) != 1 or rc[0]["status"] != sys.argv[2]:
    sys.exit("expected one %s resize: %s" % (sys.argv[2], [(x["status"], x["reason"]) for x in rc]))
PY
  then echo "FAIL: $name, $spec: the record"; fail=1; return 1; fi
  return 0
}

# the k to try in 1..N: all of them (full), else two: the first or the middle (alternately, by the
# scenario's number) and the last -- make check stays short on a loaded machine; the sweep is check-long's
pick() {
  n=$1
  if [ "$full" = 1 ]; then seq 1 "$n"; return; fi
  if [ $((nscen % 2)) = 1 ]; then first=1; else first=$(((n + 1) / 2)); fi
  printf '%s\n' "$first" "$n" | awk '$1 >= 1' | sort -nu
}
nscen=0

# scenario NAME NP NEWNP RANK VAR=value...: the counting run, then the sweeps over RANK
scenario() {
  sname=$1 snp=$2 snew=$3 sr=$4; shift 4
  case $sname in *"${INJECT_ONLY:-}"*) ;; *) return 0 ;; esac   # INJECT_ONLY=TEXT: the scenarios named so
  nscen=$((nscen + 1))
  one "$sname (counting)" "$snp" "$snew" ok "count@$sr" "$@" || return 1
  counts=$(sed -n "s/^ductile: test: rank $sr: resize [0-9]* made \([0-9]*\) counted allocations and \([0-9]*\) counted MPI calls.*/\1 \2/p" "$tmp/err" | head -1)
  [ -n "$counts" ] || { echo "FAIL: $sname: no counts from rank $sr"; tail "$tmp/err"; fail=1; return 1; }
  na=${counts% *} nm=${counts#* }
  n=0 bad=0
  for k in $(pick "$na"); do
    one "$sname" "$snp" "$snp" failed "alloc:$k@$sr" "$@" || bad=$((bad + 1)); n=$((n + 1))
  done
  for k in $(pick "$nm"); do
    one "$sname" "$snp" "$snp" failed "mpi:$k@$sr" "$@" || bad=$((bad + 1)); n=$((n + 1))
  done
  echo "ok: $sname: rank $sr makes $na allocations and $nm MPI calls; $n injected runs, $bad did not roll back"
}

scenario "expand 2->3, the new process" 2 3 2 DUCTILE_SCHEDULE=2:+1
scenario "shrink 3->2, a staying process" 3 2 1 DUCTILE_SCHEDULE=2:-1
scenario "baseline 2->3, rank 0" 2 3 0 DUCTILE_SCHEDULE=2:+1 DUCTILE_RESIZE_METHOD=baseline
# Open MPI 4.1: parent 1 spawns its share and forwards rank 0's header and registrations to its group
# (src/malleable/pspawn.c); elsewhere the setting has no effect (one collective spawn)
scenario "expand 2->4, parallel spawn, rank 1" 2 4 1 DUCTILE_SCHEDULE=2:+2 DUCTILE_SPAWN_PARALLEL=on
# a background transfer completes at a later control point, once the new processes did their part: these
# runs have 30 iterations of 100 ms (a resize still pending at MPI_Finalize is cancelled: not this test's)
its=30
scenario "expand 2->3, constant data in the background (nb), rank 1" 2 3 1 DUCTILE_SCHEDULE=2:+1 \
  DUCTILE_REDIST_CONSTANT=nb ALLKINDS_SLEEP_MS=100
its=6
if [ "$full" = 1 ]; then
  scenario "expand 2->3, p2p, rank 0" 2 3 0 DUCTILE_SCHEDULE=2:+1 DUCTILE_REDIST=p2p
  scenario "expand 2->3, rma-lockall, the new process" 2 3 2 DUCTILE_SCHEDULE=2:+1 DUCTILE_REDIST=rma-lockall
  scenario "shrink 3->2, the leaving process" 3 2 2 DUCTILE_SCHEDULE=2:-1
  its=30
  scenario "shrink 3->2, Wait Drains in the background, rank 0" 3 2 0 DUCTILE_SCHEDULE=2:-1 \
    DUCTILE_REDIST_CONSTANT=wd ALLKINDS_SLEEP_MS=100
  scenario "expand 2->3, Wait Drains, rma-lock, the new process" 2 3 2 DUCTILE_SCHEDULE=2:+1 \
    DUCTILE_REDIST_CONSTANT=wd DUCTILE_REDIST=rma-lock ALLKINDS_SLEEP_MS=100
fi
exit $fail

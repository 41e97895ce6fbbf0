#!/bin/sh
# MaM's API (issue 26, item 1): tests/mam/mam_app.c, a program written
# against MaM's public header only (MAM.h), resized by its own checkpoints:
# Merge and Baseline (MaM's MAM_SPAWN_METHOD), blocking (MAM_WAIT_COMPLETION)
# and with the constant data in the background (MAM_CHECK_COMPLETION: NB, and
# MaM's wait-targets and pthread strategies -- Wait Drains and Threading --
# with its point-to-point and RMA methods), replicated and distributed,
# constant and variable data, a user function that hands data from the
# sources to the targets (zombies included), a resize Ductile schedules
# inside a MaM checkpoint, and a rolled-back one.  Every run ends with the
# static run's checksum (exact) and no failed check.
set -u
prog="$abs_top_builddir/tests/mam/mam_app"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((120 * ${TEST_TIME_SCALE:-2} / 2))
N=3000 ITERS=40
sum_of() { sed -n "s/.*checksum \([0-9a-f]*\) on $2 processes.*/\1/p" "$1"; }
timeout -k 10 $t $MPIEXEC -n 2 "$prog" $N $ITERS - wait > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(sum_of ref 2)
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat ref; exit 1; }
echo "static on 2: $(grep '^checksum' ref)"
# run NAME NP FINAL RECONFS ZOMBIES PLAN MODE [VAR=value...]: the report's
# ok resizes all moved their constant data blocking (MODE wait) or in the
# background (check: "+nb", "+wd" or "+thread", as $bg says)
run() {
  name=$1 np=$2 final=$3 nrec=$4 nzomb=$5 plan=$6 mode=$7; shift 7
  rm -f rep.json
  env DUCTILE_REPORT=rep.json "$@" timeout -k 10 $t $MPIEXEC -n "$np" "$prog" $N $ITERS "$plan" "$mode" > out 2> err
  rc=$?
  if [ $rc -eq 0 ] && ! $PYTHON - rep.json "$mode" "${bg:-+nb}" "$name" <<'PY'
import json, sys
rep, mode, bg, name = sys.argv[1:]
ok = [x for x in json.load(open(rep))["reconfigurations"] if x["status"] == "ok"]
for x in ok:
    want = "" if mode == "wait" else bg
    got = x["redistribution"][x["redistribution"].find("+"):] if "+" in x["redistribution"] else ""
    if got != want:
        sys.exit("FAIL: %s: resize %d->%d moved its constant data '%s', expected '%s'" % (name, x["from"], x["to"], got, want))
    if mode == "check" and (x["overlapped_iterations"] or -1) < 0:
        sys.exit("FAIL: %s: resize %d->%d: no background transfer" % (name, x["from"], x["to"]))
print("  " + "; ".join("%d->%d %s %s N_it=%s" % (x["from"], x["to"], x["method"], x["redistribution"], x["overlapped_iterations"]) for x in ok))
PY
  then rc=99; fi
  got=$(sum_of out "$final")
  z=$(grep -o "zombie: [^,]*, failures 0" out | wc -l)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL" out || ! grep -q "$nrec reconfigurations, failures 0" out ||
     [ "$z" -ne "$nzomb" ]; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref), $z zombies (expected $nzomb)"
    cat out; tail -20 err; fail=1
  else
    echo "ok: $name: $(grep '^checksum' out)"
  fi
}
run "merge wait 2->5->3->1" 2 1 3 4 "5:5,12:3,20:1" wait
run "baseline wait 2->4->3 (MAM_SPAWN_METHOD=0)" 2 3 1 6 "5:4,12:3" wait MAM_SPAWN_METHOD=0
run "merge check (nb) 2->5->3" 2 3 2 2 "5:5,12:3" check
bg=+wd run "merge check p2p + wait targets (wd) 2->4->2" 2 2 2 2 "5:4,12:2" check MAM_RED_METHOD=1 MAM_RED_STRATS=3
bg=+thread run "merge check rma-lockall + pthread (Threading) 2->3->1" 2 1 2 2 "5:3,12:1" check MAM_RED_METHOD=3 MAM_RED_STRATS=1
run "baseline check (nb) 3->5" 3 5 1 3 "5:5" check MAM_SPAWN_METHOD=0
# (Ductile counts MaM's checkpoints: the first one is its iteration 1)
run "Ductile's schedule in a MaM checkpoint 2->4" 2 4 1 0 "5:0" wait DUCTILE_SCHEDULE="1:+2"
run "rolled back 2->4 (DUCTILE_TEST_FAIL=transfer)" 2 2 0 0 "5:4" wait DUCTILE_TEST_FAIL=transfer \
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
exit $fail

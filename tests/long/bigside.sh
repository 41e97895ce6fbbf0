#!/bin/sh
# One side past INT_MAX (check-long; issue 22, item 2): a 3 GiB array grows
# 1 -> 2 (the old process sends 1.5 GiB at a displacement of 1.5 GiB, past
# INT_MAX, while the new one receives 1.5 GiB at 0, within it) and shrinks
# 2 -> 1 (the other way round).  Each process choosing the collective's form
# from its own counts put the two sides in different collectives (hung for
# good with Open MPI 4.1); tests/long/big.sh has both sides past the limit
# and cannot see that.  Every method: col, p2p, rma-lock, rma-lockall,
# rma-fence, persistent col, and constant data in the background (col+nb,
# rma-lockall+wd); tests/long/big_app checks every row of the new blocks (a
# hash of the global row index).  Peak memory about 6 GiB (3 GiB of old
# blocks + 3 GiB of new ones); the test prints the peak resident memory of
# its processes for each run (sampled every 0.5 s).  Run the long tests one
# at a time.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
BIG="$abs_top_builddir/tests/long/big_app"
T=$((400 * ${TEST_TIME_SCALE:-2} / 2))
ROWS=$(((3 << 30) / 8)) # 3 GiB of 8-byte rows

# the largest sum of the resident memory of this build's big_app processes, in MiB, until stopped
sample() {
  max=0
  while :; do
    s=0
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/exe" 2>/dev/null)" = "$BIG" ] || continue
      r=$(awk '/^VmRSS:/ {print $2}' "$p/status" 2>/dev/null)
      s=$((s + ${r:-0}))
    done
    [ "$s" -gt "$max" ] && { max=$s; echo $((max / 1024)) > "$tmp/peak"; }
    sleep 0.5
  done
}

# bs NAME NP SCHEDULE FINAL LABEL [VAR=value ...]
bs() {
  name=$1 np=$2 sched=$3 final=$4 label=$5; shift 5
  rep="$tmp/report.json"; rm -f "$rep"
  echo 0 > "$tmp/peak"
  sample & spid=$!
  t0=$(date +%s)
  env DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE="$sched" BIG_ROWS=$ROWS "$@" \
    timeout -k 10 "$T" $MPIEXEC -n "$np" "$BIG" 3 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  kill $spid 2>/dev/null; wait $spid 2>/dev/null
  if [ $rc -ne 0 ] || ! grep -q "^BIG ok size=$final " "$tmp/out"; then
    echo "FAIL: $name: exit code $rc (124: timed out)"; grep -v "^ductile" "$tmp/err" | tail -15; tail -5 "$tmp/out"
    fail=1; return 1
  fi
  $PYTHON - "$rep" "$name" "$label" "$(($(date +%s) - t0))" "$(cat "$tmp/peak")" <<'PY' || { fail=1; return 1; }
import json, sys
rep, name, label, secs, peak = sys.argv[1:6]
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
if len(ok) != 1 or not ok[0]["redistribution"].startswith(label):
    sys.exit("FAIL: %s: expected one ok resize with %s: %s" % (name, label, rc))
x = ok[0]
print("ok: %s: %s, %.2f GB moved, transfer %.2f s, resize %.2f s (run %s s, peak resident %.1f GiB)" % (
    name, x["redistribution"], x.get("bytes_moved", 0) / 1e9, x["times_s"]["transfer"], x["times_s"]["total"],
    secs, int(peak) / 1024))
PY
}

for dir in "1 1:+1 2" "2 1:-1 1"; do
  set -- $dir
  np=$1 sched=$2 final=$3
  for m in col p2p rma-lock rma-lockall rma-fence; do
    bs "$np->$final $m" "$np" "$sched" "$final" "$m" DUCTILE_REDIST=$m
  done
  bs "$np->$final col persistent" "$np" "$sched" "$final" col DUCTILE_REDIST=col DUCTILE_PERSISTENT=1
  bs "$np->$final col+nb" "$np" "$sched" "$final" col+nb BIG_CONST=1 DUCTILE_REDIST=col DUCTILE_REDIST_CONSTANT=nb
  bs "$np->$final rma-lockall+wd" "$np" "$sched" "$final" rma-lockall BIG_CONST=1 DUCTILE_REDIST=rma-lockall \
    DUCTILE_REDIST_CONSTANT=wd
done
exit $fail

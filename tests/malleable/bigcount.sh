#!/bin/sh
# The large-count paths of every transfer, with small data (issue 22, item
# 2): DUCTILE_TEST_INT_LIMIT=1000000 makes Ductile treat byte counts and
# displacements past 1 MB as past an int's range, so a 1.5 MB array takes
# the path of a 3 GiB one (tests/long/bigside.sh): in a 1 -> 2 expansion
# the old process sends 0.75 MB at a displacement of 0.75 MB (past the
# limit) while the new one receives 0.75 MB at 0 (within it), and a 2 -> 1
# shrink the other way round.  Both sides must call the same collective form
# (MPI_Alltoallv_c or MPI_Alltoallw on every process; each process choosing
# from its own counts hung for good with Open MPI 4.1), point-to-point and
# one-sided transfers are cut into pieces of half the limit on both sides,
# and tests/long/big_app checks every row of the new blocks.  Every method:
# col, p2p, rma-lock, rma-lockall, rma-fence, persistent col, col+nb and
# rma-lockall+wd (background).  Then the general data kinds under a limit of
# 100 bytes: tests/malleable/allkinds (N-D block, CSR matrix, custom data,
# patch set; their exchanges, messages and halo faces in pieces of 50 bytes)
# 2->4->3 with col and p2p gives the static run's hashes, and
# bench/repartition's per-rank patch messages (in pieces) check every element
# after 3->5->2.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
BIG="$abs_top_builddir/tests/long/big_app"
T=$((90 * ${TEST_TIME_SCALE:-2} / 2))
LIMIT=1000000
ROWS=187500 # 1.5 MB of 8-byte rows

# bc NAME NP SCHEDULE FINAL LABEL [VAR=value ...]
bc() {
  name=$1 np=$2 sched=$3 final=$4 label=$5; shift 5
  rep="$tmp/report.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" DUCTILE_SCHEDULE="$sched" DUCTILE_TEST_INT_LIMIT=$LIMIT DUCTILE_VERBOSE=2 \
    BIG_ROWS=$ROWS "$@" timeout -k 10 "$T" $MPIEXEC -n "$np" "$BIG" 3 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "^BIG ok size=$final " "$tmp/out"; then
    echo "FAIL: $name: exit code $rc"; grep -v "^ductile" "$tmp/err" | tail -15; tail -5 "$tmp/out"; fail=1; return 1
  fi
  case "$label" in col|col+nb)
    # the collective took a large-count form, the same one on every process of the transfer
    if ! grep -q "the [cw] form on every process" "$tmp/err"; then
      echo "FAIL: $name: no large-count form in the log"; grep -i "form" "$tmp/err" | head; fail=1; return 1
    fi
    if grep -q "the int form on every process" "$tmp/err"; then
      echo "FAIL: $name: the int form logged"; fail=1; return 1
    fi;;
  esac
  $PYTHON - "$rep" "$name" "$label" <<'PY' || { fail=1; return 1; }
import json, sys
rep, name, label = sys.argv[1], sys.argv[2], sys.argv[3]
rc = json.load(open(rep))["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
if len(ok) != 1 or not ok[0]["redistribution"].startswith(label):
    sys.exit("FAIL: %s: expected one ok resize with %s: %s" % (name, label, rc))
print("ok: %s: %d->%d %s, transfer %.4f s" % (name, ok[0]["from"], ok[0]["to"], label, ok[0]["times_s"]["transfer"]))
PY
}

for dir in "1 1:+1 2" "2 1:-1 1"; do
  set -- $dir
  np=$1 sched=$2 final=$3
  for m in col p2p rma-lock rma-lockall rma-fence; do
    bc "$np->$final $m" "$np" "$sched" "$final" "$m" DUCTILE_REDIST=$m
  done
  bc "$np->$final col persistent" "$np" "$sched" "$final" col DUCTILE_REDIST=col DUCTILE_PERSISTENT=1
  bc "$np->$final col+nb" "$np" "$sched" "$final" col+nb BIG_CONST=1 DUCTILE_REDIST=col DUCTILE_REDIST_CONSTANT=nb
  bc "$np->$final rma-lockall+wd" "$np" "$sched" "$final" rma-lockall+wd BIG_CONST=1 DUCTILE_REDIST=rma-lockall \
    DUCTILE_REDIST_CONSTANT=wd
done

# the general data kinds under a limit of 100 bytes (their exchanges and halo faces are a few hundred bytes)
prog="$abs_top_builddir/tests/malleable/allkinds"
hashes() { sed -n 's/^hashes \(.*\) on \([0-9]*\) processes.*/\1/p' "$1"; }
timeout -k 10 "$T" $MPIEXEC -n 2 "$prog" 12 > "$tmp/ref" 2> "$tmp/ref.err" || { echo "FAIL: allkinds static"; cat "$tmp/ref.err"; exit 1; }
ref=$(hashes "$tmp/ref")
[ -n "$ref" ] || { echo "FAIL: allkinds static: no hashes"; cat "$tmp/ref"; exit 1; }
for m in col p2p; do
  env DUCTILE_SCHEDULE=3:+2,7:-1 DUCTILE_TEST_INT_LIMIT=100 DUCTILE_REDIST=$m DUCTILE_REPORT=none \
    timeout -k 10 "$T" $MPIEXEC -n 2 "$prog" 12 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(hashes "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\| BAD" "$tmp/out" || ! grep -q " on 3 processes" "$tmp/out"; then
    echo "FAIL: allkinds 2->4->3 $m: rc $rc, '$got' (static '$ref')"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1
  else
    echo "ok: allkinds 2->4->3 $m: the static run's hashes"
  fi
done
rp="$abs_top_builddir/bench/repartition"
(cd "$tmp" && DUCTILE_TEST_INT_LIMIT=100 DUCTILE_SCHEDULE="2:+2,5:-3" DUCTILE_REPORT=none \
  timeout -k 10 "$T" $MPIEXEC -n 3 "$rp" --resize 8 3 30 7 greedy rank > out 2> err)
rc=$?
if [ $rc -ne 0 ] || ! grep -q "FINAL size=2 ok" "$tmp/out" || grep -q FAIL "$tmp/out"; then
  echo "FAIL: patches 3->5->2 per rank: rc $rc"; cat "$tmp/out"; grep -v "^ductile" "$tmp/err" | tail; fail=1
else
  echo "ok: patches 3->5->2 per rank, messages in pieces"
fi

# sizes past INT_MAX from the control point: EMPI_Monitor_end64 exact, the int EMPI_Monitor_end MPI_UNDEFINED
# with one error per process (5 GiB of 1-byte rows on 2 processes, allocated and never touched, no resize),
# and both forms' per-rank arrays grown by resizes (1->3->2)
m64="$abs_top_builddir/tests/malleable/monitor64"
env DUCTILE_REPORT=none timeout -k 10 "$T" $MPIEXEC -n 2 "$m64" $((5 << 30)) 4 > "$tmp/out" 2> "$tmp/err"
rc=$?
nerr=$(grep -o "does not fit an int: MPI_UNDEFINED returned instead" "$tmp/err" | wc -l)
if [ $rc -ne 0 ] || ! grep -q "^M64 ok size=2 undefined=4$" "$tmp/out" || [ "$nerr" -ne 2 ]; then
  echo "FAIL: EMPI_Monitor_end(64) past INT_MAX: rc $rc, $nerr errors"; cat "$tmp/out"; tail "$tmp/err"; fail=1
else
  echo "ok: EMPI_Monitor_end64 past INT_MAX exact; the int form: MPI_UNDEFINED and one error per process"
fi
env DUCTILE_REPORT=none DUCTILE_SCHEDULE=1:+2,2:-1 timeout -k 10 "$T" $MPIEXEC -n 1 "$m64" 1000 5 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^M64 ok size=2 undefined=0$" "$tmp/out" || grep -q "does not fit" "$tmp/err"; then
  echo "FAIL: EMPI_Monitor_end(64) 1->3->2: rc $rc"; cat "$tmp/out"; tail "$tmp/err"; fail=1
else
  echo "ok: EMPI_Monitor_end64 and EMPI_Monitor_end 1->3->2, their arrays grown"
fi
exit $fail

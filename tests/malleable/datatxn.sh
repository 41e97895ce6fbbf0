#!/bin/sh
# The general data kinds are part of the resize transaction
# (docs/malleability.md, "Failures"; docs/data.md): tests/malleable/allkinds.c
# registers an N-D block, a CSR matrix (balanced by non-zeros), custom data
# (a particle list with callbacks) and a patch set, computes with all of them
# and checks, after every control point that left its size unchanged, that
# every kind is byte for byte its snapshot from before the control point
# (arrays, halos, grid and Cartesian communicator, CSR addresses and range,
# list nodes, patch boxes and addresses, patch statistics).  A failure after
# the general data moved -- DUCTILE_TEST_FAIL=transfer (the end of the
# transfer, all items moved) on an expansion, a shrink and a Baseline
# expansion, and the program's own pack callback failing (after the block and
# the matrix moved, before the patches) -- leaves every process at the old
# size with exactly its old data, one failed record naming the cause, and the
# final hashes of a static run.  So does an unpack callback that fails once
# everything moved and was agreed on (2->4, 4->3): the custom list then holds
# the same particles again (restored through the program's callbacks).  A resize that commits (2->4->3) gives the
# static hashes too.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/allkinds"
its=12
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
hashes() { sed -n 's/^hashes \(.*\) on \([0-9]*\) processes.*/\1 on \2/p' "$1"; }
for np in 2 4; do
  timeout -k 10 $t $MPIEXEC -n $np "$prog" $its > "$tmp/ref$np" 2> "$tmp/ref.err" || { echo "FAIL: static run on $np"; cat "$tmp/ref$np" "$tmp/ref.err"; exit 1; }
  grep -q "FAIL\| BAD" "$tmp/ref$np" && { echo "FAIL: static run on $np"; cat "$tmp/ref$np"; exit 1; }
done
ref=$(hashes "$tmp/ref2" | sed 's/ on .*//')
[ -n "$ref" ] || { echo "FAIL: no hashes"; cat "$tmp/ref2"; exit 1; }
[ "$(hashes "$tmp/ref4")" = "$ref on 4" ] || { echo "FAIL: the static runs on 2 and 4 differ"; cat "$tmp/ref2" "$tmp/ref4"; exit 1; }
echo "static on 2 and 4: $ref"

# drun NAME NP FINAL CAUSE VAR=value...: the job ends at FINAL processes with the static hashes,
# no kind changed at a control point that kept the size; CAUSE: the failed record's reason
# (and only that record), or "" for one committed resize or more
drun() {
  name=$1 np=$2 final=$3 cause=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 $((t * 2)) $MPIEXEC -n "$np" "$prog" $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(hashes "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref on $final" ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, '$got' (expected '$ref on $final')"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting" "$tmp/err"; then
    echo "FAIL: $name: a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$name" "$cause" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
name, cause = sys.argv[2], sys.argv[3]
if cause:
    if len(rc) != 1 or rc[0]["status"] != "failed" or cause not in rc[0]["reason"]:
        sys.exit("FAIL: %s: expected one failed resize naming '%s': %s" % (name, cause, rc))
elif not rc or any(x["status"] != "ok" for x in rc):
    sys.exit("FAIL: %s: expected committed resizes only: %s" % (name, rc))
print("  " + "; ".join("%d->%d %s%s" % (x["from"], x["to"], x["status"], (": " + x["reason"]) if x.get("reason") else "") for x in rc))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
drun "committed 2->4->3" 2 3 "" DUCTILE_SCHEDULE=3:+2,7:-1
drun "transfer fails after the data moved, 2->4" 2 2 "DUCTILE_TEST_FAIL=transfer" DUCTILE_TEST_FAIL=transfer DUCTILE_SCHEDULE=3:+2
drun "transfer fails after the data moved, 4->2" 4 4 "DUCTILE_TEST_FAIL=transfer" DUCTILE_TEST_FAIL=transfer DUCTILE_SCHEDULE=3:-2
drun "transfer fails after the data moved, baseline 2->3" 2 2 "DUCTILE_TEST_FAIL=transfer" DUCTILE_TEST_FAIL=transfer \
  DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=3:+1
drun "pack callback fails after 'u' and 'A' moved, 2->4" 2 2 "pack callback failed" ALLKINDS_PACK_FAIL=1 DUCTILE_SCHEDULE=3:+2
drun "pack callback fails after 'u' and 'A' moved, 4->3" 4 4 "pack callback failed" ALLKINDS_PACK_FAIL=1 DUCTILE_SCHEDULE=3:-1
# an unpack callback fails once everything moved and was agreed on (rank 0, its last old rank):
# rolled back, every process that unpacked restores its snapshot, the other kinds are untouched
drun "unpack callback fails on rank 0, 2->4" 2 2 "the unpack callback failed for old rank 1 of 2" ALLKINDS_UNPACK_FAIL=1 DUCTILE_SCHEDULE=3:+2
drun "unpack callback fails on rank 0, 4->3" 4 4 "the unpack callback failed for old rank 3 of 4" ALLKINDS_UNPACK_FAIL=1 DUCTILE_SCHEDULE=3:-1
exit $fail

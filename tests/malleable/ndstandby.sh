#!/bin/sh
# N-D blocks follow every way the world changes (issue 22, item 5): with
# tests/malleable/allkinds.c (an N-D block with halos exchanged on the
# Cartesian communicator Ductile gives, a CSR matrix, custom data and a patch
# set) the final hashes equal a static run's
#  - with a standby pool (DUCTILE_PERSISTENT=1) going 2->4->2->4: the
#    processes taken back keep their world handle, and their control point
#    used to return 0, so they skipped the new Cartesian communicator the
#    others were creating (a deadlock, or a crash in the halo exchange);
#  - when the program's control point is ductile_control_point (<ductile.h>)
#    instead of EMPI_Monitor_end (ALLKINDS_CP=1): it never refreshed the
#    N-D blocks (Merge 2->4->3, Baseline 2->3, and the standby pool).
# The records must say what happened (standby processes put aside and taken
# back, no spawn for the last expansion).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/allkinds"
its=16
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
hashes() { sed -n 's/^hashes \(.*\) on \([0-9]*\) processes.*/\1 on \2/p' "$1"; }
timeout -k 10 $t $MPIEXEC -n 2 "$prog" $its > "$tmp/ref" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref" "$tmp/ref.err"; exit 1; }
ref=$(hashes "$tmp/ref" | sed 's/ on .*//')
[ -n "$ref" ] || { echo "FAIL: no hashes"; cat "$tmp/ref"; exit 1; }
echo "static on 2: $ref"
# nrun NAME NP FINAL STANDBY VAR=value...: the static hashes at FINAL processes, committed resizes
# only; STANDBY=1: the second resize put processes on standby and the third took them back
nrun() {
  name=$1 np=$2 final=$3 sb=$4; shift 4
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 $((t * 2)) $MPIEXEC -n "$np" "$prog" $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(hashes "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref on $final" ] || grep -q "FAIL\| BAD" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, '$got' (expected '$ref on $final')"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$name" "$sb" <<'PY'
import json, sys
rc = json.load(open(sys.argv[1]))["reconfigurations"]
name, sb = sys.argv[2], sys.argv[3] == "1"
if not rc or any(x["status"] != "ok" for x in rc):
    sys.exit("FAIL: %s: expected committed resizes only: %s" % (name, rc))
if sb and (len(rc) != 3 or rc[1]["standby_processes"] != rc[1]["from"] - rc[1]["to"]
           or rc[2]["standby_processes"] != rc[2]["to"] - rc[2]["from"] or rc[2]["times_s"]["spawn"] != 0):
    sys.exit("FAIL: %s: expected a shrink to standby and an expansion taking them back: %s" % (name, rc))
print("  " + "; ".join("%d->%d%s" % (x["from"], x["to"], " (standby %d)" % x["standby_processes"]
                                      if x.get("standby_processes") else "") for x in rc))
PY
  then fail=1; return 1; fi
  echo "ok: $name"
}
nrun "standby pool 2->4->2->4" 2 4 1 DUCTILE_PERSISTENT=1 DUCTILE_SCHEDULE=3:+2,7:-2,11:+2
nrun "ductile_control_point, merge 2->4->3" 2 3 0 ALLKINDS_CP=1 DUCTILE_SCHEDULE=3:+2,8:-1
nrun "ductile_control_point, baseline 2->3" 2 3 0 ALLKINDS_CP=1 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=4:+1
nrun "ductile_control_point, standby pool 2->4->2->4" 2 4 1 ALLKINDS_CP=1 DUCTILE_PERSISTENT=1 DUCTILE_SCHEDULE=3:+2,7:-2,11:+2
exit $fail

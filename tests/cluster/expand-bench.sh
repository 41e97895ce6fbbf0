#!/usr/bin/env bash
# tests/cluster/expand-bench.sh [ROUNDS] -- run from a build tree (after make
# check built the programs): expansion across hosts, Ductile against a raw
# MPI_Comm_spawn of the same size, side by side, on the test cluster, and the
# time to give hosts back to Slurm.  Not part of make check (numbers only).
#   raw:     2 ranks on dnode1, dnode2 spawn 2 processes onto dnode3, dnode4
#            (tests/cluster/hosts rawspawn), merge, barrier
#   ductile: resize_app on dnode1, dnode2 grows 2 -> 4 with
#            DUCTILE_SCHEDULE='3:+2@dnode3;dnode4' (spawn, merge, plan,
#            transfer of its registered data); times from the report
#   give-back: scontrol update JobId=J NodeList=dnode1 on a 4-host job
# Rounds alternate raw and ductile; each is one salloc -N4 on a cluster of 4
# hosts this script makes (or a running one with >= 4 hosts).
set -u
rounds=${1:-5}
B=${abs_top_builddir:-$PWD}
. "$B/tests/env.sh" || exit 1
CLUSTER=$abs_top_srcdir/tools/cluster
made=0
exec {lockfd}> /run/ductile-cluster.lock
flock -w 300 $lockfd || { echo "cluster lock busy"; exit 1; }
if ! "$CLUSTER" status >/dev/null 2>&1; then "$CLUSTER" up 4 || exit 1; made=1; fi
trap '[ $made = 1 ] && "$CLUSTER" down >/dev/null 2>&1' EXIT
if [ "$MPI_FAMILY" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; PPN1="--map-by ppr:1:node"
else
  export SLURM_OVERLAP=1 UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}; PPN1="-ppn 1"
fi
T=$(mktemp -d -p "$B/tests/cluster" bench.XXXXXX)
al() { timeout -k 5 120 "$CLUSTER" exec dnode1 salloc -Q -J ductile-bench -t 5 -N4 -n4 -w 'dnode[1-4]' "$@"; }
echo "# $MPI_FAMILY, $rounds rounds: seconds (raw: spawn / total with merge; ductile: spawn / total of the resize)"
for i in $(seq "$rounds"); do
  # shellcheck disable=SC2086
  raw=$(al $MPIEXEC $PPN1 -n 2 "$B/tests/cluster/hosts" rawspawn dnode3,dnode4 2>&1 | sed -n 's/.*spawn \([0-9.]*\) s, merge+barrier [0-9.]* s, total \([0-9.]*\) s.*/\1 \2/p')
  # shellcheck disable=SC2086
  al env DUCTILE_SCHEDULE='3:+2@dnode3;dnode4' DUCTILE_REPORT="$T/r.json" DUCTILE_CONTROLLER=off \
    "$B/tools/ductile-run" --library "$LIBDUCTILE" -- $MPIEXEC $PPN1 -n 2 "$B/tests/malleable/resize_app" 8 > "$T/d.out" 2>&1
  duc=$("$PYTHON" -c 'import json,sys
r = json.load(open(sys.argv[1]))
ok = [x for x in r["reconfigurations"] if x["status"] == "ok"]
h = sorted(x.get("host") for x in r["ranks"])
assert h == ["dnode1", "dnode2", "dnode3", "dnode4"], h
print("%.4f %.4f" % (ok[0]["times_s"]["spawn"], ok[0]["times_s"]["total"]))' "$T/r.json" 2>/dev/null)
  echo "round $i: raw ${raw:-failed}   ductile ${duc:-failed}"
  rm -f "$T/r.json"
done | tee "$T/rounds"
awk '/^round/ && $4 != "failed" && $6 != "failed" { rs += $4; rt += $5; ds += $7; dt += $8; n++ }
     END { if (n) printf "mean of %d: raw spawn %.3f total %.3f | ductile spawn %.3f total %.3f | ratio total %.2f\n", n, rs/n, rt/n, ds/n, dt/n, (dt/n)/(rt/n) }' "$T/rounds"
# time to give hosts back: a 4-host allocation shrinks to dnode1 (in /tmp: scontrol
# writes slurm_job_J_resize.sh/.csh into its working directory)
for i in $(seq "$rounds"); do
  al bash -c 'cd /tmp; t0=$(date +%s.%N); scontrol update JobId=$SLURM_JOB_ID NodeList=dnode1 >/dev/null 2>&1; t1=$(date +%s.%N)
    s=$(sinfo -h -N -n dnode2,dnode3,dnode4 -o %t | sort -u | tr "\n" " ")
    awk -v a=$t0 -v b=$t1 -v s="$s" "BEGIN { printf \"give-back of 3 hosts: %.3f s (sinfo then: %s)\n\", b - a, s }"' 2>&1 | grep give-back
done
rm -rf "$T"

#!/usr/bin/env bash
# tests/cluster/hosts.sh -- MPI across the hosts of the one-machine test
# cluster (tools/cluster, docs/cluster.md), under Slurm:
#   1. an MPI program on 2 hosts: its ranks report different host names;
#   2. MPI_Comm_spawn with the info key "host" places a child on the other host;
#   3. a Ductile malleable run (resize_app, DUCTILE_SCHEDULE 'IT:+1@dnode2')
#      grows from host dnode1 onto dnode2, data checked by the app, the report
#      names both hosts;
#   4. the same with DUCTILE_SPAWN_HOSTS=dnode2, 1 -> 3 -> 2 ('4:+2,8:-1'):
#      both new processes on dnode2, one of them leaves again.
# Each job is `salloc` run inside host dnode1's namespaces, with mpiexec inside
# the allocation (Open MPI starts its daemons with srun; MPICH's hydra uses
# srun as bootstrap).  Skips (77) only without root, Slurm/munge or network
# namespaces.  Uses a running cluster if there is one, else makes one of 2
# hosts and takes it down at the end.
set -u
. "${abs_top_builddir:-.}/tests/env.sh" 2>/dev/null || true
: "${abs_top_srcdir:?run through make check (tests/env.sh)}"
CLUSTER="$abs_top_srcdir/tools/cluster"
HOSTS_BIN="$abs_top_builddir/tests/cluster/hosts"
APP="$abs_top_builddir/tests/malleable/resize_app"
scale=${TEST_TIME_SCALE:-2}
made=0
tmp=
lockfd=
cleanup() {
  # the cluster if this test made it (down also ends what is left in it)
  [ $made = 1 ] && timeout -k 10 60 "$CLUSTER" down >/dev/null 2>&1
  [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, Slurm daemons)"
for t in slurmctld slurmd salloc munged nsenter; do
  command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/setup-deps installs slurmctld slurmd slurm-client munge)"
done
unshare --net --uts true 2>/dev/null || skip "network/UTS namespaces refused here: $(unshare --net --uts true 2>&1)"
# not /tmp: every host has its own /tmp (tools/cluster)
tmp=$(mktemp -d -p "$abs_top_builddir/tests/cluster" tmp.XXXXXX) || exit 1
[ -x "$HOSTS_BIN" ] || { echo "FAIL: $HOSTS_BIN not built"; exit 1; }

# one test at a time uses the cluster (both builds may run make check at once)
exec {lockfd}> /run/ductile-cluster.lock
flock -w $((120 * scale)) $lockfd || { echo "FAIL: cluster lock /run/ductile-cluster.lock busy for $((120 * scale)) s"; exit 1; }

if "$CLUSTER" status >/dev/null 2>&1; then
  have=$("$CLUSTER" hosts | wc -l)
  [ "$have" -ge 2 ] || { echo "FAIL: the running cluster has $have host(s), this test needs 2 (tools/cluster down; up 2)"; exit 1; }
  echo "using the running cluster ($have hosts)"
else
  t0=$(date +%s.%N)
  DUCTILE_CLUSTER_TIMEOUT=$((30 * scale)) "$CLUSTER" up 2 || { echo "FAIL: tools/cluster up 2"; exit 1; }
  made=1
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "cluster up in %.1f s\n", b - a }'
fi

if [ "${MPI_FAMILY:-}" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
  # a spawn starts a new srun step: it must share the allocation's CPUs
  # with the running one; UCX picks shared memory between the namespaces
  # (same machine) and then a spawned child never connects: TCP only.
  export SLURM_OVERLAP=1 UCX_TLS=${UCX_TLS:-tcp,self}
fi

fail=0
# job NAME EXPECT CMD...: salloc on dnode1 runs CMD; its output must contain EXPECT
job() {
  local name=$1 expect=$2 t0 t1 rc; shift 2
  t0=$(date +%s.%N)
  timeout -k 5 $((60 * scale)) "$CLUSTER" exec dnode1 salloc -Q -J ductile-test -t 5 -N2 -n2 "$@" > "$tmp/out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ] || ! grep -q -- "$expect" "$tmp/out"; then
    echo "FAIL: $name (exit $rc, expected '$expect')"; tail -20 "$tmp/out"
    # salloc ignores SIGTERM: end the job through Slurm
    timeout -k 10 10 "$CLUSTER" exec dnode1 scancel -n ductile-test >/dev/null 2>&1
    fail=1; return 1
  fi
  grep '^hosts: ok' "$tmp/out" | sed 's/^/  /'
  awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "ok: %s (%.2f s)\n", n, b - a }'
}

# shellcheck disable=SC2086
job "2 ranks on 2 hosts" "hosts: ok 2 ranks on 2 hosts" $MPIEXEC -n 2 "$HOSTS_BIN" ranks
# shellcheck disable=SC2086
job "spawn with host=dnode2" "hosts: ok parent on dnode1 spawned a child on dnode2" $MPIEXEC -n 1 "$HOSTS_BIN" spawn dnode2

if [ $fail = 0 ] && [ -x "$APP" ]; then
  rep="$tmp/report.json"
  # shellcheck disable=SC2086
  if job "malleable 1->2 onto dnode2" "FINAL size=2 iterations=12 failures=0" \
       env DUCTILE_SCHEDULE='4:+1@dnode2' DUCTILE_REPORT="$rep" \
       "$abs_top_builddir/tools/ductile-run" --library "$LIBDUCTILE" -- $MPIEXEC -n 1 "$APP" 12; then
    if ! $PYTHON - "$rep" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = [x for x in r["reconfigurations"] if x["status"] == "ok"]
hosts = {x["rank"]: x.get("host") for x in r["ranks"]}
if len(ok) != 1 or (ok[0]["from"], ok[0]["to"]) != (1, 2):
    sys.exit("expected one ok resize 1->2, got %s" % r["reconfigurations"])
if hosts != {0: "dnode1", 1: "dnode2"}:
    sys.exit("expected rank 0 on dnode1 and rank 1 on dnode2, report says %s" % hosts)
print("  resize 1->2 in %.3f s (spawn %.3f); ranks on %s" % (ok[0]["times_s"]["total"], ok[0]["times_s"]["spawn"], hosts))
PY
    then echo "FAIL: malleable run: report"; fail=1; fi
  fi
  # shellcheck disable=SC2086
  if job "malleable 1->3->2 with DUCTILE_SPAWN_HOSTS=dnode2" "FINAL size=2 iterations=12 failures=0" \
       env DUCTILE_SPAWN_HOSTS=dnode2 DUCTILE_SCHEDULE='4:+2,8:-1' DUCTILE_REPORT="$rep" \
       "$abs_top_builddir/tools/ductile-run" --library "$LIBDUCTILE" -- $MPIEXEC -n 1 "$APP" 12; then
    if ! $PYTHON - "$rep" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = [(x["from"], x["to"]) for x in r["reconfigurations"] if x["status"] == "ok"]
hosts = {x["rank"]: x.get("host") for x in r["ranks"]}
gone = {x["rank"]: x.get("host") for x in r.get("departed", [])}
if ok != [(1, 3), (3, 2)]:
    sys.exit("expected ok resizes 1->3, 3->2, got %s" % r["reconfigurations"])
if hosts != {0: "dnode1", 1: "dnode2"} or gone != {2: "dnode2"}:
    sys.exit("expected ranks 0 on dnode1, 1 on dnode2, departed 2 on dnode2; report says %s, departed %s" % (hosts, gone))
print("  resizes 1->3->2; ranks on %s, departed %s" % (hosts, gone))
PY
    then echo "FAIL: malleable run with DUCTILE_SPAWN_HOSTS: report"; fail=1; fi
  fi
fi
exit $fail

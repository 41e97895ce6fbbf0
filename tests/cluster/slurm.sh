#!/usr/bin/env bash
# tests/cluster/slurm.sh -- ductiled takes its resources from Slurm
# (ductiled --slurm, src/daemon/slurm.c, docs/cluster.md) on the one-machine
# test cluster (tools/cluster) of 5 hosts:
#   grow: an MPI job on 2 hosts grows to 4 and shrinks to 1 (data checked), an
#         expansion beyond the allocation is refused with the reason, hosts of
#         departed processes that still run stay in the allocation, a ductiled
#         restart during a 2 -> 4 expansion, and a job whose departed
#         processes exit gives its hosts back (Slurm: job on 1 host, the
#         others idle);
#   beyond: ductiled --slurm-grow: a job grows onto hosts Slurm adds to the
#         allocation (MPICH; Open MPI: refused with the reason), a refusal
#         when Slurm has no free host, the added hosts idle afterwards;
#   lost: placement fills a host first, Slurm refuses a give-back, a host
#         disappears (namespace removed) while a job runs.
# The checks run inside the allocations (tests/cluster/slurm-inner.sh).
# Makes its own cluster (it removes a host) and takes it down at the end;
# skips (77) without root, Slurm/munge or network namespaces, or when a
# cluster made by someone else is up.
set -u
. "${abs_top_builddir:-.}/tests/env.sh" 2>/dev/null || true
: "${abs_top_srcdir:?run through make check (tests/env.sh)}"
CLUSTER="$abs_top_srcdir/tools/cluster"
INNER="$abs_top_srcdir/tests/cluster/slurm-inner.sh"
scale=${TEST_TIME_SCALE:-2}
made=0
T=
lockfd=
cleanup() {
  [ $made = 1 ] && timeout -k 10 60 "$CLUSTER" down >/dev/null 2>&1
  [ -n "$T" ] && rm -rf "$T"
}
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, Slurm daemons)"
for t in slurmctld slurmd salloc munged nsenter; do
  command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/setup-deps installs slurmctld slurmd slurm-client munge)"
done
unshare --net --uts true 2>/dev/null || skip "network/UTS namespaces refused here: $(unshare --net --uts true 2>&1)"
[ -x "$abs_top_builddir/tests/controller/ctl_job" ] || { echo "FAIL: tests/controller/ctl_job not built"; exit 1; }
# not /tmp: every host has its own /tmp (tools/cluster)
T=$(mktemp -d -p "$abs_top_builddir/tests/cluster" slurm.XXXXXX) || exit 1
exec {lockfd}> /run/ductile-cluster.lock
flock -w $((120 * scale)) $lockfd || { echo "FAIL: cluster lock /run/ductile-cluster.lock busy for $((120 * scale)) s"; exit 1; }
"$CLUSTER" status >/dev/null 2>&1 && skip "a test cluster is up (tools/cluster down first): this test makes its own and removes one of its hosts"
DUCTILE_CLUSTER_CPUS=2 DUCTILE_CLUSTER_TIMEOUT=$((30 * scale)) "$CLUSTER" up 5 || { echo "FAIL: tools/cluster up 5"; exit 1; }
made=1

if [ "${MPI_FAMILY:-}" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
  # spawns start new srun steps that share the allocation's CPUs; TCP between
  # the namespaces (tests/cluster/hosts.sh, docs/cluster.md)
  # Debian's MPICH 4.0 (no spawn) keeps shared memory: with tcp,self only, the job's MPI_Finalize
  # hangs after a shrink, on one host too (docs/cluster.md, "Debian's MPICH 4.0")
  [ "${MPI_NAME#MPICH 4.0}" != "${MPI_NAME:-}" ] && : "${UCX_TLS:=tcp,self,sm}"
  export SLURM_OVERLAP=1 UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}
fi
# rows of docs/cluster.md's table of what works where (tests/results-lib.sh)
RESULTS="$abs_top_builddir/tests/cluster/results.tsv"
export T B="$abs_top_builddir" S="$abs_top_srcdir" PYTHON MPIEXEC MPI_FAMILY MPI_NAME scale RESULTS
fail=0
# part NAME SALLOC-ARGS...: the inner part in an allocation made on dnode1
part() {
  local name=$1 rc; shift
  timeout -k 5 $((150 * scale)) "$CLUSTER" exec dnode1 salloc -Q -J ductile-test -t 10 "$@" bash "$INNER" "$name" > "$T/$name.out" 2>&1
  rc=$?
  grep -E '^(ok|FAIL):' "$T/$name.out"
  if [ $rc -ne 0 ] || grep -q '^FAIL' "$T/$name.out" || ! grep -q '^ok' "$T/$name.out"; then
    echo "FAIL: part $name (exit $rc)"
    tail -30 "$T/$name.out"; echo "--- ductiled log:"; tail -30 "$T/d.$name.log" 2>/dev/null
    timeout -k 10 10 "$CLUSTER" exec dnode1 scancel -n ductile-test >/dev/null 2>&1
    fail=1
    return 1
  fi
}

case "${MPI_NAME:-}" in
"Open MPI 5"*|"MPICH 4.0"*) # what works there, measured (slurm-inner.sh, basic); MPICH 4.0 cannot spawn: no growth beyond
  part basic -N4 -n4 -w 'dnode[1-4]'
  [ "${MPI_NAME#MPICH 4.0}" = "$MPI_NAME" ] && part beyond -N1 -n2 -w dnode1
  exit $fail ;;
esac
part grow -N4 -n4 -w 'dnode[1-4]'

# beyond: ductiled --slurm-grow grows the job onto hosts Slurm adds
if part beyond -N1 -n2 -w dnode1; then
  st=$("$CLUSTER" exec dnode1 sinfo -h -N -n 'dnode[2-5]' -o '%N %t' | tr '\n' ' ')
  [ "$st" = "dnode2 idle dnode3 idle dnode4 idle dnode5 idle " ] && echo "ok: the hosts Slurm added are idle once the allocation ended: $st" ||
    { echo "FAIL: sinfo after the grown allocation: $st"; fail=1; }
fi

# lost: the inner part asks ($T/want-lose); dnode5 then disappears
part lost -k -N3 -n6 -w dnode1,dnode2,dnode5 &
ppid=$!
for _ in $(seq $((100 * scale))); do [ -e "$T/want-lose" ] && break; kill -0 $ppid 2>/dev/null || break; sleep 0.2; done
if [ -e "$T/want-lose" ]; then
  "$CLUSTER" lose dnode5 --down > "$T/lose.out" 2>&1 || { echo "FAIL: tools/cluster lose dnode5: $(cat "$T/lose.out")"; fail=1; }
  touch "$T/lost"
fi
wait $ppid || fail=1
grep -q '^FAIL' "$T/lost.out" && fail=1
echo "sinfo after the test: $("$CLUSTER" exec dnode1 sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
exit $fail

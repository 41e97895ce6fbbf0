# tests/cluster/common.sh -- sourced by tests/cluster/direct.sh and
# accounting.sh: the cluster of the test (made here, taken down at the end,
# one test at a time: /run/ductile-cluster.lock), the parts that run inside
# a Slurm allocation, and the rows they add to the results behind
# docs/cluster.md's table of what works where (tools/cluster-table).
# Skips (77) without root, Slurm/munge or network namespaces, or when a
# cluster made by someone else is up.
. "${abs_top_builddir:-.}/tests/env.sh" 2>/dev/null || true
: "${abs_top_srcdir:?run through make check (tests/env.sh)}"
CLUSTER="$abs_top_srcdir/tools/cluster"
scale=${TEST_TIME_SCALE:-2}
made=0
T=
lockfd=
fail=0
cleanup() {
  [ $made = 1 ] && timeout -k 10 60 "$CLUSTER" down >/dev/null 2>&1
  [ -n "$T" ] && rm -rf "$T"
}
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }

# cluster_up N [--accounting]
cluster_up() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, Slurm daemons)"
  for t in slurmctld slurmd salloc munged nsenter; do
    command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/setup-deps installs slurmctld slurmd slurm-client munge)"
  done
  if [ "${2:-}" = --accounting ]; then
    for t in slurmdbd mariadbd sacct; do
      command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/setup-deps installs slurmdbd mariadb-server)"
    done
  fi
  unshare --net --uts true 2>/dev/null || skip "network/UTS namespaces refused here: $(unshare --net --uts true 2>&1)"
  [ -x "$abs_top_builddir/tests/controller/ctl_job" ] || { echo "FAIL: tests/controller/ctl_job not built"; exit 1; }
  # not /tmp: every host has its own /tmp (tools/cluster)
  T=$(mktemp -d -p "$abs_top_builddir/tests/cluster" "$(basename "$0" .sh).XXXXXX") || exit 1
  exec {lockfd}> /run/ductile-cluster.lock
  flock -w $((300 * scale)) $lockfd || { echo "FAIL: cluster lock /run/ductile-cluster.lock busy for $((300 * scale)) s"; exit 1; }
  "$CLUSTER" status >/dev/null 2>&1 && skip "a test cluster is up (tools/cluster down first): this test makes its own"
  local t0; t0=$(date +%s.%N)
  DUCTILE_CLUSTER_CPUS=2 DUCTILE_CLUSTER_TIMEOUT=$((30 * scale)) "$CLUSTER" up "$@" || { echo "FAIL: tools/cluster up $*"; exit 1; }
  made=1
  awk -v a="$t0" -v b="$(date +%s.%N)" -v w="$*" 'BEGIN { printf "cluster up %s in %.1f s\n", w, b - a }'
  if [ "${MPI_FAMILY:-}" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  else
    # Debian's MPICH 4.0 (no spawn) keeps shared memory: with tcp,self only, the job's MPI_Finalize
    # hangs after a shrink, on one host too (docs/cluster.md, "Debian's MPICH 4.0")
    [ "${MPI_NAME#MPICH 4.0}" != "${MPI_NAME:-}" ] && : "${UCX_TLS:=tcp,self,sm}"
    export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0} # TCP between the namespaces, on their veth (docs/cluster.md)
  fi
  RESULTS="$abs_top_builddir/tests/cluster/results.tsv"
  export T B="$abs_top_builddir" S="$abs_top_srcdir" PYTHON MPIEXEC MPI_FAMILY MPI_NAME scale RESULTS
}

# part INNER NAME SALLOC-ARGS...: the inner script's part NAME in an allocation made on dnode1
part() {
  local inner=$1 name=$2 rc; shift 2
  timeout -k 5 $((200 * scale)) "$CLUSTER" exec dnode1 salloc -Q -J ductile-test -t 10 "$@" bash "$inner" "$name" > "$T/$name.out" 2>&1
  rc=$?
  grep -E '^(ok|FAIL):' "$T/$name.out"
  if [ $rc -ne 0 ] || grep -q '^FAIL' "$T/$name.out" || ! grep -q '^ok' "$T/$name.out"; then
    echo "FAIL: part $name (exit $rc)"
    tail -40 "$T/$name.out"; echo "--- ductiled log:"; tail -30 "$T/d.$name.log" 2>/dev/null
    timeout -k 10 10 "$CLUSTER" exec dnode1 scancel -n ductile-test >/dev/null 2>&1
    fail=1
    return 1
  fi
}

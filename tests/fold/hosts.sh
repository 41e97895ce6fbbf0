#!/usr/bin/env bash
# Process folding across hosts (the one-machine test cluster of
# tools/cluster, docs/cluster.md): an unmodified program (fold_app), 4 ranks
# on 2 hosts under Slurm, registered with a ductiled that owns both hosts
# (2 slots each).  `fold JOB 1` folds each host's 2 ranks onto one core of
# that host (the job reports 2 hosts; ductiled holds 1 core per host, 2 slots
# free), `unfold` gives them back; the result is that of an unfolded run.
# Skips (77) without root, Slurm/munge or network namespaces.  Uses a running
# cluster if there is one, else makes one of 2 hosts and takes it down.
set -u
. "${abs_top_builddir:-.}/tests/env.sh" 2>/dev/null || true
: "${abs_top_srcdir:?run through make check (tests/env.sh)}"
CLUSTER="$abs_top_srcdir/tools/cluster"
APP="$abs_top_builddir/tests/fold/fold_app"
scale=${TEST_TIME_SCALE:-2}
made=0 tmp= lockfd= DPID= fail=0
cleanup() {
  [ -n "$DPID" ] && kill "$DPID" 2>/dev/null
  timeout -k 10 10 "$CLUSTER" exec dnode1 scancel -n ductile-fold-test >/dev/null 2>&1
  [ $made = 1 ] && timeout -k 10 60 "$CLUSTER" down >/dev/null 2>&1
  if [ $fail -ne 0 ] && [ -n "$tmp" ]; then for f in "$tmp"/*.log; do echo "--- $f"; tail -20 "$f"; done; fi
  [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, Slurm daemons)"
for t in slurmctld slurmd salloc munged nsenter; do
  command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/setup-deps installs slurmctld slurmd slurm-client munge)"
done
unshare --net --uts true 2>/dev/null || skip "network/UTS namespaces refused here"
# not /tmp: every host has its own /tmp; the socket path must be the same everywhere
tmp=$(mktemp -d -p "$abs_top_builddir/tests/fold" tmp.XXXXXX) || exit 1
exec {lockfd}> /run/ductile-cluster.lock
flock -w $((120 * scale)) $lockfd || { echo "FAIL: cluster lock busy"; exit 1; }
if "$CLUSTER" status >/dev/null 2>&1; then
  [ "$("$CLUSTER" hosts | wc -l)" -ge 2 ] || { echo "FAIL: the running cluster has fewer than 2 hosts"; exit 1; }
else
  DUCTILE_CLUSTER_TIMEOUT=$((30 * scale)) "$CLUSTER" up 2 || { echo "FAIL: tools/cluster up 2"; exit 1; }
  made=1
fi
if [ "${MPI_FAMILY:-}" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
  export SLURM_OVERLAP=1 UCX_TLS=${UCX_TLS:-tcp,self}
fi
printf 'dnode1 slots=2\ndnode2 slots=2\n' > "$tmp/hostfile"
"$abs_top_builddir/tools/ductiled" --socket "$tmp/d.sock" --state "$tmp/state.json" --hostfile "$tmp/hostfile" > "$tmp/daemon.log" 2>&1 &
DPID=$!
ctl() { "$abs_top_builddir/tools/ductilectl" -c "unix:$tmp/d.sock" "$@"; }
jget() { "$PYTHON" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
wait_until() { local n=$(($1 * 5 * scale)); shift; while [ $n -gt 0 ]; do eval "$@" && return 0; sleep 0.2; n=$((n - 1)); done; return 1; }
wait_until 10 '[ -S "$tmp/d.sock" ]' || { bad "ductiled did not start"; exit 1; }

export DUCTILE_CONTROLLER="unix:$tmp/d.sock" DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_SUMMARY=0 DUCTILE_REPORT=none DUCTILE_VERBOSE=1
# shellcheck disable=SC2086
timeout -k 5 $((120 * scale)) "$CLUSTER" exec dnode1 salloc -Q -J ductile-fold-test -t 5 -N2 -n4 \
  $MPIEXEC -n 4 env LD_PRELOAD="$LIBDUCTILE" "$APP" 1000000 10 6 "$tmp/stop" > "$tmp/job.log" 2>&1 &
JPID=$!
wait_until 60 '[ "$(ctl --json list 2>/dev/null | jget "len(d[\"jobs\"])")" = 1 ]' && ok "the job registered" || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
hosts=$(ctl --json status "$j" | jget '",".join(sorted(h["name"] for h in d["hosts"]))')
[ "$hosts" = "dnode1,dnode2" ] && ok "job $j runs on $hosts" || bad "job hosts: $hosts"
out=$(ctl --json fold "$j" 1) && ok "fold to 1 core per host queued" || bad "fold refused"
[ "$(echo "$out" | jget 'd["hosts"]')" = 2 ] && ok "the job counts 2 hosts" || bad "fold reply: $out"
wait_until 30 '[ "$(grep -c "fold: folded (1 core(s) on this host, 2 rank(s) here)" "$tmp/job.log")" = 4 ]' &&
  ok "all 4 ranks folded, 2 per host onto 1 core of their host" || bad "folded: $(grep "fold:" "$tmp/job.log")"
[ "$(ctl --json status "$j" | jget 'd["cores"]')" = 2 ] && [ "$(ctl --json slots | jget 'd["free"]')" = 2 ] &&
  ok "ductiled: the job holds 2 cores (1 per host), 2 slots free" || bad "slots while folded: $(ctl --json slots)"
ctl unfold "$j" > /dev/null && wait_until 30 '[ "$(grep -c "fold: unfolded" "$tmp/job.log")" = 4 ]' &&
  ok "all 4 ranks unfolded" || bad "unfolded: $(grep -c "fold: unfolded" "$tmp/job.log")"
[ "$(ctl --json slots | jget 'd["free"]')" = 0 ] && ok "ductiled: 4 cores held again" || bad "slots after unfold: $(ctl --json slots)"
touch "$tmp/stop"
wait $JPID; rc=$?
res=$(grep '^RESULT' "$tmp/job.log")
[ $rc -eq 0 ] && [ -n "$res" ] && ok "the folded run ended: $res" || { bad "the job failed (rc $rc)"; exit 1; }
iters=$(echo "$res" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
# shellcheck disable=SC2086
ref=$(DUCTILE_CONTROLLER=off timeout -k 5 $((120 * scale)) "$CLUSTER" exec dnode1 salloc -Q -J ductile-fold-test -t 5 -N2 -n4 \
  $MPIEXEC -n 4 env LD_PRELOAD="$LIBDUCTILE" "$APP" "$iters" 10 6 2>&1 | grep '^RESULT')
[ "$ref" = "$res" ] && ok "identical to a run nobody folded" || bad "results differ: folded '$res', reference '$ref'"
exit $fail

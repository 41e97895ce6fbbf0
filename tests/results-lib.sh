# tests/results-lib.sh -- the rows of docs/cluster.md's table of what works
# where (tools/cluster-table), added to $RESULTS by the tests that measure
# them: on one host by the tests every MPI family's set runs
# (tests/controller/basic.sh: monitor; tests/malleable/pairs.sh: expand,
# shrink; tests/malleable/nospawn.sh: expand refused, shrink; tests/fold/
# unmodified.sh: fold), in a Slurm allocation by the cluster tests
# (tests/cluster/inner-lib.sh, slurm-inner.sh), and the report helpers behind
# them.  Environment: MPI_NAME (tests/env.sh: family and version from
# configure), PYTHON, RESULTS (default: tests/cluster/results.tsv in the build
# tree; empty: no rows are written).
: "${MPI_NAME:=${MPI_FAMILY:-unknown MPI}}"
: "${RESULTS=${abs_top_builddir:+$abs_top_builddir/tests/cluster/results.tsv}}"
# the launcher of the one-host tests (mpiexec on this machine, no Slurm); the
# cluster tests name theirs: mpiexec (in a Slurm allocation), srun --mpi=...
ONE_HOST="mpiexec (one host)"
# result LAUNCHER OPERATION OUTCOME SECONDS NOTE: one row of docs/cluster.md's
# table (OUTCOME works | refused | fails | fails cleanly | kept; SECONDS "-"
# when none)
result() {
  [ -n "${RESULTS:-}" ] || return 0
  mkdir -p "$(dirname "$RESULTS")" 2>/dev/null
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$MPI_NAME" "$1" "$2" "$3" "$4" "$5" >> "$RESULTS"
}
# the ok resizes in a report: "from->to:total_s ..."
resizes() { "$PYTHON" -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(' '.join('%d->%d:%.3f' % (x['from'], x['to'], x['times_s']['total']) for x in r['reconfigurations'] if x['status'] == 'ok'))" "$1"; }
# the reason of the first failed resize in a report
failed_reason() { "$PYTHON" -c "
import json, sys
r = json.load(open(sys.argv[1]))
print([x['reason'] for x in r['reconfigurations'] if x['status'] != 'ok'][0])" "$1" 2>/dev/null; }

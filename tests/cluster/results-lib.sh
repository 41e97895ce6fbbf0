# tests/cluster/results-lib.sh -- sourced by the parts of the cluster tests
# that run inside a Slurm allocation (inner-lib.sh, slurm-inner.sh): the
# rows they add to $RESULTS (tests/cluster/results.tsv in the build tree),
# from which tools/cluster-table makes docs/cluster.md's table of what works
# where, and the report helpers behind them.  Environment: MPI_FAMILY,
# MPIEXEC, PYTHON, RESULTS (none: no rows are written).
# the MPI of this build, as the table names it
case $MPI_FAMILY in
  openmpi) MPI_NAME="Open MPI $(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p')" ;;
  mpich) MPI_NAME="MPICH $("$(dirname "${MPIEXEC%% *}")/mpichversion" 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')" ;;
  *) MPI_NAME=$MPI_FAMILY ;;
esac
# result LAUNCHER OPERATION OUTCOME SECONDS NOTE: one row of docs/cluster.md's
# table (OUTCOME works | refused | fails | kept; SECONDS "-" when none)
result() {
  [ -n "${RESULTS:-}" ] || return 0
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

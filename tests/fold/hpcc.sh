#!/bin/sh
# Process folding of a real application from Debian's packages: HPC
# Challenge (hpcc, built against Open MPI; skipped elsewhere), 4 ranks,
# folded to one core soon after it registers with ductiled and unfolded a few
# seconds later.  Every rank must log the fold and the unfold, and the
# deterministic part of hpccoutf.txt (the filter of tests/run-hpcc-test.sh:
# residuals, verdicts, sizes; no timings) must be that of an unfolded run.
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/tests/fold/common.sh"
HPCC=${HPCC:-$(command -v hpcc 2>/dev/null)}
[ "$MPI_FAMILY" = openmpi ] || { echo "SKIP: hpcc is built against Open MPI, this build uses $MPI_FAMILY"; exit 77; }
[ -n "$HPCC" ] && [ -x "$HPCC" ] || { echo "SKIP: hpcc is not installed (apt-get install hpcc)"; exit 77; }
export DUCTILE_VERBOSE=1
NP=4
input() {
  mkdir -p "$1"
  sed -n '/^HPLinpack benchmark input file/,/^40 9 8 13/p' "$abs_top_srcdir/tests/run-hpcc-test.sh" |
    sed 's/^200          Ns/800          Ns/' > "$1/hpccinf.txt"
}
extract() {  # as tests/run-hpcc-test.sh
  awk '
  /^Begin of .* section\./                { print; next }
  /^Found [0-9]+ errors in [0-9]+ locations/ { print; next }
  /^Running on [0-9]+ processors/         { print; next }
  /^(Total |PE )?Main table size/         { print; next }
  /^Default number of updates/            { print; next }
  /^Solution Validates/                   { print; next }
  /^Array size =/                         { print; next }
  /^Number of nodes:/                     { print; next }
  /^Vector size:/                         { print; next }
  /^max\(\|x-x0\|\):/                     { print; next }
  /tests? completed and (passed|failed) residual checks/ { $1 = $1; print; next }
  /^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+/      { print "HPL", $1, $2, $3, $4, $5; next }
  /^\|\|Ax-b\|\|/                         { $1 = $1; print; next }
  /^(Success|CommWorldProcs|HPL_(N|NB|nprow|npcol|RnormI|Anorm1|AnormI|Xnorm1|XnormI|BnormI|eps)|PTRANS_(residual|n|nb|nprow|npcol)|MPIRandomAccess(_LCG)?_(N|Errors|ErrorsFraction)|RandomAccess(_LCG)?_N|STREAM_VectorSize|FFT_N|MPIFFT_(N|maxErr|Procs)|DGEMM_N)=/ { print; next }
  ' "$1"
}
start_daemon --slots 4
input "$T/folded"
(cd "$T/folded" && timeout -k 10 300 $MPIEXEC -n $NP env LD_PRELOAD="$LIBDUCTILE" "$HPCC" > "$T/hpcc.log" 2>&1) &
JOBPIDS="$JOBPIDS $!"; HPID=$!
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "hpcc registered" || { bad "hpcc did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
ctl fold "$j" 1 > /dev/null && ok "fold to 1 core queued" || bad "fold refused"
wait_until 20 '[ "$(grep -c "fold: folded" "$T/hpcc.log")" = $NP ]' && ok "all $NP ranks folded" || bad "folded ranks: $(grep -c "fold: folded" "$T/hpcc.log")"
P=$(job_pids "$T/folded" hpcc)
[ -z "$P" ] && P=$(for p in $(pgrep -x hpcc); do [ "$(readlink /proc/$p/cwd)" = "$T/folded" ] && echo $p; done | paste -sd' ' -)
F=$(first_cpu "$(for p in $P; do cpus_of $p; done | paste -sd';' -)" 2>/dev/null)
[ -n "$P" ] && all_on "$P" "$F" && ok "ranks $P are on CPU $F" || echo "note: hpcc ranks not seen pinned (finished?): $P"
sleep 3
ctl unfold "$j" > /dev/null && ok "unfold queued" || bad "unfold refused (did hpcc end already?)"
wait_until 20 '[ "$(grep -c "fold: unfolded" "$T/hpcc.log")" = $NP ]' && ok "all $NP ranks unfolded" || bad "unfolded ranks: $(grep -c "fold: unfolded" "$T/hpcc.log")"
wait "$HPID"; rc=$?
[ $rc -eq 0 ] && ok "folded hpcc ended" || { bad "folded hpcc failed (rc $rc)"; tail -20 "$T/hpcc.log"; exit 1; }
input "$T/plain"
(cd "$T/plain" && DUCTILE_CONTROLLER=off timeout -k 10 300 $MPIEXEC -n $NP env LD_PRELOAD="$LIBDUCTILE" "$HPCC" > "$T/plain.log" 2>&1) || bad "unfolded hpcc failed"
extract "$T/folded/hpccoutf.txt" > "$T/folded.facts"
extract "$T/plain/hpccoutf.txt" > "$T/plain.facts"
n=$(wc -l < "$T/plain.facts")
[ "$n" -ge 60 ] && grep -q '^Success=1$' "$T/folded/hpccoutf.txt" && ok "folded run: Success=1, $n deterministic lines" || bad "folded run: $n lines, $(grep Success "$T/folded/hpccoutf.txt")"
cmp -s "$T/folded.facts" "$T/plain.facts" && ok "identical to the unfolded run" || { bad "folded and unfolded hpcc differ"; diff "$T/plain.facts" "$T/folded.facts" | head -20; }
exit $fail

#!/usr/bin/env bash
# run-hpcc-test.sh -- a real third-party MPI application under Ductile:
# HPC Challenge (Debian package "hpcc", built against Open MPI).
#
# Usage: run-hpcc-test.sh
#
# Runs hpcc on 4 ranks with a tiny input (N=200, NB=20, 2x2 grid: about a
# second), once without and once with libductile.so preloaded, and compares
# the deterministic parts of hpccoutf.txt (residuals, PASSED/FAILED, error
# counts, problem sizes -- not timings or rates, not the randomly chosen node
# of the Single* tests).  The report must exist and be well formed
# (check_report.py --nprocs 4), and every rank must show MPI_Init (or
# MPI_Init_thread) and MPI_Finalize once, and some bytes sent and received.
#
# Environment:
#   MPIEXEC               launcher prefix (default "mpiexec"; as root with Open MPI:
#                         "mpiexec --oversubscribe --allow-run-as-root")
#   LIBDUCTILE            path to libductile.so (DUCTILE_LIBRARY is accepted too,
#                         but not passed on: libductile.so rejects unknown DUCTILE_*)
#   HPCC                  the hpcc binary (default: hpcc from PATH)
#   MPI_FAMILY            if set (tests/env.sh does), anything but "openmpi" skips
#   SANITIZER_PRELOAD     optional library preloaded before libductile.so
#   TEST_TIMEOUT          seconds per hpcc run (default 300)
#   PYTHON                Python 3 interpreter (default python3)
#   TEST_KEEP=1           keep the temporary directory
#
# Exit status: 0 pass, 1 fail, 77 skip (hpcc not installed, the MPI is not
# Open MPI, or libductile.so and hpcc use different MPI libraries).

set -u

here=$(cd "$(dirname "$0")" && pwd)
name=hpcc
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
NPROCS=4
mpiexec_cmd=${MPIEXEC:-mpiexec}
timeout_s=${TEST_TIMEOUT:-${DUCTILE_TEST_TIMEOUT:-300}}
python=${PYTHON:-python3}

skip() {
    echo "SKIP: hpcc: $*"
    exit 77
}

hpcc=${HPCC:-$(command -v hpcc 2>/dev/null)}
if [ -z "$hpcc" ] || [ ! -x "$hpcc" ]; then
    skip "hpcc is not installed (apt-get install hpcc)"
fi

if [ -n "${MPI_FAMILY:-}" ]; then
    [ "$MPI_FAMILY" = openmpi ] || skip "MPI family is $MPI_FAMILY, hpcc is built against Open MPI"
fi
# shellcheck disable=SC2086
if ! $mpiexec_cmd --version 2>&1 | grep -q -E 'Open MPI|OpenRTE'; then
    skip "launcher '$mpiexec_cmd' is not Open MPI's"
fi

lib=${LIBDUCTILE:-${DUCTILE_LIBRARY:-}}
if [ -z "$lib" ] || [ ! -r "$lib" ]; then
    echo "FAIL: hpcc: LIBDUCTILE is not set or does not exist: '$lib'"
    exit 1
fi
lib=$(abs_path "$lib")

# libductile.so and hpcc must load the same libmpi
mpi_of() { ldd "$1" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ { print $3; exit }'; }
hpcc_mpi=$(mpi_of "$hpcc")
lib_mpi=$(mpi_of "$lib")
if [ -n "$hpcc_mpi" ] && [ -n "$lib_mpi" ] &&
    [ "$(readlink -f "$hpcc_mpi")" != "$(readlink -f "$lib_mpi")" ]; then
    skip "hpcc uses $hpcc_mpi but libductile.so uses $lib_mpi"
fi

set_preload "$lib"

make_tmpdir

# Tiny input: HPL N=200 NB=20 on a 2x2 grid; the other benchmarks size
# themselves from it.
write_input() {
    cat >"$1/hpccinf.txt" <<'EOF'
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
200          Ns
1            # of NBs
20           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
2            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
EOF
}

# not for the MPI processes (see tests/lib.sh)
set_unset_args

# run LABEL VAR=VALUE...: hpcc in $tmp/LABEL (it reads hpccinf.txt and
# appends to hpccoutf.txt in the current directory)
run() {
    local label=$1 rc
    shift
    mkdir -p "$tmp/$label/scratch"
    write_input "$tmp/$label"
    (
        cd "$tmp/$label" || exit 1
        # shellcheck disable=SC2086
        timeout -k 10 "$timeout_s" $mpiexec_cmd -n "$NPROCS" \
            env "${unset_args[@]}" TMPDIR="$tmp/$label/scratch" "$@" "$hpcc" \
            >"$tmp/$label.out" 2>"$tmp/$label.err" </dev/null
    )
    rc=$?
    if [ $rc -ne 0 ]; then
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            fail "$label run timed out after ${timeout_s}s"
        else
            fail "$label run exited with status $rc"
        fi
        echo "---- $label stderr (last 40 lines):"
        tail -n 40 "$tmp/$label.err"
        return 1
    fi
    if [ ! -s "$tmp/$label/hpccoutf.txt" ]; then
        fail "$label run wrote no hpccoutf.txt"
        return 1
    fi
    return 0
}

# The deterministic part of hpccoutf.txt, one normalised line per fact.
# Left out: timings and rates; "Node selected" of the Single* tests (random);
# StarDGEMM's "Scaled residual" (its matrices are seeded with time(NULL));
# PTRANS's per-run WALL/CPU rows (a CPU row is omitted when the CPU time
# rounds to 0) -- the PTRANS verdicts are in the "tests completed" lines and
# PTRANS_residual.  MPIRandomAccess_ExeUpdates (and "Number of updates" of
# MPIRandomAccess) can depend on a time budget when the machine is loaded.
extract() {
    awk '
    /^Begin of .* section\./                { print; next }
    /^Found [0-9]+ errors in [0-9]+ locations/ { print; next }
    /^Node\(s\) with error/                 { print; next }
    /^Running on [0-9]+ processors/         { print; next }
    /^(Total |PE )?Main table size/         { print; next }
    /^Default number of updates/            { print; next }
    /^Solution Validates/                   { print; next }
    /^Array size =/                         { print; next }
    /^Number of nodes:/                     { print; next }
    /^Vector size:/                         { print; next }
    /^max\(\|x-x0\|\):/                     { print; next }
    /tests? completed and (passed|failed) residual checks/ { $1 = $1; print; next }
    /tests? skipped because of illegal input values/      { $1 = $1; print; next }
    /^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+/      { print "HPL", $1, $2, $3, $4, $5; next }
    /^\|\|Ax-b\|\|/                         { $1 = $1; print; next }
    /^(Success|CommWorldProcs|HPL_(N|NB|nprow|npcol|RnormI|Anorm1|AnormI|Xnorm1|XnormI|BnormI|eps)|PTRANS_(residual|n|nb|nprow|npcol)|MPIRandomAccess(_LCG)?_(N|Errors|ErrorsFraction)|RandomAccess(_LCG)?_N|STREAM_VectorSize|FFT_N|MPIFFT_(N|maxErr|Procs)|DGEMM_N)=/ { print; next }
    ' "$1"
}

echo "hpcc: $hpcc, $NPROCS ranks, launcher: $mpiexec_cmd, library: $lib"

run plain
plain_ok=$?
run preload LD_PRELOAD="$preload" DUCTILE_REPORT="$tmp/report.json"
preload_ok=$?

for label in plain preload; do
    f=$tmp/$label/hpccoutf.txt
    [ -s "$f" ] || continue
    extract "$f" >"$tmp/$label.facts"
    n=$(wc -l <"$tmp/$label.facts")
    # a filter that lets nothing through would compare equal trivially
    if [ "$n" -lt 60 ]; then
        fail "$label: only $n deterministic lines found in hpccoutf.txt (expected >= 60)"
    fi
    if ! grep -q '^Success=1$' "$f"; then
        fail "$label: hpccoutf.txt does not say Success=1"
    fi
    if grep -E 'FAILED|failed residual' "$f" | grep -v -E '^ *0 tests? completed and failed' | grep -q .; then
        fail "$label: hpccoutf.txt reports failures:"
        grep -E 'FAILED|failed residual' "$f" | head -n 10
    fi
    if ! grep -q '\.\.\.\.\.\. PASSED' "$f"; then
        fail "$label: the HPL residual check did not PASS"
    fi
done

if [ $plain_ok -eq 0 ] && [ $preload_ok -eq 0 ]; then
    if cmp -s "$tmp/plain.facts" "$tmp/preload.facts"; then
        echo "deterministic output identical ($(wc -l <"$tmp/plain.facts") lines)"
    else
        fail "deterministic output differs with the preload"
        diff -u --label "without Ductile" --label "with Ductile" \
            "$tmp/plain.facts" "$tmp/preload.facts" | head -n 60
    fi
fi

if [ $preload_ok -eq 0 ]; then
    if [ ! -s "$tmp/report.json" ]; then
        fail "no report written (was the library preloaded?)"
        tail -n 20 "$tmp/preload.err"
    else
        "$python" "$here/check_report.py" "$tmp/report.json" --nprocs "$NPROCS" ||
            fail "the report is not well formed"
        "$python" - "$tmp/report.json" <<'EOF' || fail "implausible counts in the report"
import json, sys
rep = json.load(open(sys.argv[1]))
bad = 0
for rk in rep.get("ranks", []):
    f = rk.get("functions", {})
    init = f.get("MPI_Init", {}).get("calls", 0) + f.get("MPI_Init_thread", {}).get("calls", 0)
    fin = f.get("MPI_Finalize", {}).get("calls", 0)
    sent = sum(e.get("bytes_sent", 0) for e in f.values())
    recv = sum(e.get("bytes_recv", 0) for e in f.values())
    calls = sum(e.get("calls", 0) for e in f.values())
    print("rank %d: %d calls in %d functions, %d bytes sent, %d bytes received"
          % (rk.get("rank", -1), calls, len(f), sent, recv))
    if init != 1 or fin != 1 or sent <= 0 or recv <= 0 or len(f) < 10:
        print("  implausible: MPI_Init(_thread) %d, MPI_Finalize %d calls, %d functions"
              % (init, fin, len(f)))
        bad += 1
sys.exit(1 if bad else 0)
EOF
    fi
fi

if [ $status -eq 0 ]; then
    echo "PASS: hpcc"
fi
exit $status

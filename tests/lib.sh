# shellcheck shell=bash
# tests/lib.sh -- shell functions shared by run-mpi-test.sh and
# run-hpcc-test.sh (bash).  fail and make_tmpdir use $name, the test's
# name in messages and in the name of the temporary directory: set it first.

status=0

# fail MESSAGE...: report a failure of the test; the script goes on, but
# exits with status 1 at the end.
fail() {
    echo "FAIL: $name: $*"
    status=1
}

# abs_path PATH: print PATH as an absolute path (its directory must exist).
abs_path() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    esac
}

# make_tmpdir: create the scratch directory $tmp
# (${TMPDIR:-/tmp}/ductile-test-$name.XXXXXX) and remove it when the script
# exits, unless TEST_KEEP=1 (then its path is printed).
make_tmpdir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/ductile-test-$name.XXXXXX") || {
        echo "FAIL: $name: cannot create a temporary directory"
        exit 1
    }
    trap cleanup EXIT
}
cleanup() {
    if [ "${TEST_KEEP:-0}" = 1 ]; then
        echo "kept $tmp"
    else
        rm -rf "$tmp"
    fi
}

# set_preload LIB: $preload = the LD_PRELOAD value for libductile.so LIB
# (SANITIZER_PRELOAD, if set, comes first).
set_preload() {
    preload=$1
    if [ -n "${SANITIZER_PRELOAD:-}" ]; then
        preload="$SANITIZER_PRELOAD:$1"
    fi
}

# set_unset_args: $unset_args = env(1) options removing the variables of the
# caller's environment that must not reach the MPI processes: DUCTILE_REPORT
# (set only for the preloaded run), and the DUCTILE_ spellings of the test
# scripts' own knobs (libductile.so would reject them as unknown settings).
set_unset_args() {
    local v
    unset_args=(-u DUCTILE_REPORT -u DUCTILE_LIBRARY)
    while IFS= read -r v; do
        unset_args+=(-u "$v")
    done < <(compgen -e | grep '^DUCTILE_TEST_')
}

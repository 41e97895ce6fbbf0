#!/usr/bin/env python3
"""census.py -- which Fortran MPI bindings does the MPI library export, and
does Ductile cover each of them?

Usage: census_lib.py [--list] LIBDUCTILE FORTRAN_LIB...

FORTRAN_LIB are the MPI library's Fortran layers (Open MPI: libmpi_mpifh.so
for mpif.h and `use mpi`, libmpi_usempif08.so for `use mpi_f08`,
libmpi_usempi_ignore_tkr.so; MPICH: libmpifort.so).  Every function symbol
they define that is spelt like a Fortran MPI binding (mpi_send_, mpi_send,
mpi_send__, MPI_SEND, mpi_send_f08_, and Open MPI's MPI_Send_f,
MPI_Send_f08) must either be defined by
LIBDUCTILE too (Ductile's binding replaces the library's when preloaded) or
match an entry of PASSED below, which says why the library's own binding is
knowingly left in use.  Exit status 1 when a binding is neither (its name is
printed), 0 otherwise; --list prints every symbol with its verdict.
"""
import re
import subprocess
import sys

# (pattern, reason): the library's own binding stays in use for these.
PASSED = [
    (r"^pmpix?_", "profiling name (pmpi_xxx_): a tool's own call to the library, as PMPI_ in C"),
    (r"^PMPIX?_", "profiling name (PMPI_XXX): a tool's own call to the library, as PMPI_ in C"),
    (r"^mpi_sizeof_", "MPI_SIZEOF: the size of a Fortran variable, no communication, no handle"),
    (r"^(mpi|MPI)_(wtime|wtick|WTIME|WTICK)(_f08|_f90|_f)?_{0,2}$", "reads the local clock: no handle, nothing to count"),
    (r"^(mpi|MPI)_(aint_add|aint_diff|AINT_ADD|AINT_DIFF)(_f08|_f90|_f)?_{0,2}$", "address arithmetic: no handle, nothing to count"),
    (r"^(mpi|MPI)_(comm|type|win)_(null_copy|null_delete|dup)_fn(_f08|_f90|_f)?_{0,2}$",
     "predefined attribute callback (MPI_COMM_DUP_FN, ...): called by the MPI library, not by the program"),
    (r"^(MPI|mpi)_(COMM|TYPE|WIN)_(NULL_COPY|NULL_DELETE|DUP)_FN$",
     "predefined attribute callback (MPI_COMM_DUP_FN, ...): called by the MPI library, not by the program"),
    (r"^(mpi|MPI)_(null_copy|null_delete|dup|NULL_COPY|NULL_DELETE|DUP)_(fn|FN)_{0,2}$",
     "predefined attribute callback (MPI_NULL_COPY_FN, ...): called by the MPI library, not by the program"),
    (r"^(mpi|MPI)_(conversion_fn_null|CONVERSION_FN_NULL)(_f08|_f90|_f)?_{0,2}$",
     "predefined data-representation callback: called by the MPI library, not by the program"),
    (r"^(mpi|MPI)_(f_sync_reg|F_SYNC_REG)(_f08|_f90|_f)?_{0,2}$",
     "MPI_F_SYNC_REG: an empty call that only stops the compiler's register optimisation"),
    (r"^(mpi|MPI)_(address|ADDRESS|type_(extent|lb|ub|hindexed|hvector|struct)|TYPE_(EXTENT|LB|UB|HINDEXED|HVECTOR|STRUCT))(_f08|_f)?_{0,2}$",
     "MPI-1 datatype name removed in MPI-3.0: no communicator, not in Ductile's function table"),
    (r"^MPIX_|^mpix_", "Open MPI's MPIX_ extensions (not in the MPI standard, no C wrapper in Ductile)"),
]

BINDING = re.compile(r"^(p?mpix?_[a-z0-9_]+|P?MPIX?_[A-Z0-9_]+|P?MPIX?_[A-Z][A-Za-z0-9_]*_(f|f08))$")


def defined_functions(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("T", "W", "i"):
            names.add(parts[2])
    return names


def main(argv):
    listing = False
    if argv and argv[0] == "--list":
        listing = True
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ductile = defined_functions(argv[0])
    missing = []
    for lib in argv[1:]:
        syms = sorted(s for s in defined_functions(lib) if BINDING.match(s))
        wrapped = passed = 0
        for s in syms:
            if s in ductile:
                wrapped += 1
                verdict = "wrapped"
            else:
                why = next((r for p, r in PASSED if re.search(p, s, re.I)), None)
                if why is None:
                    missing.append((lib, s))
                    verdict = "NOT COVERED"
                else:
                    passed += 1
                    verdict = "passed: " + why
            if listing:
                print("%-48s %s" % (s, verdict))
        print("census: %s: %d Fortran bindings, %d wrapped by Ductile, %d knowingly passed through, %d not covered"
              % (lib, len(syms), wrapped, passed, len(syms) - wrapped - passed))
    for lib, s in missing:
        print("census: NOT COVERED: %s (%s)" % (s, lib))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

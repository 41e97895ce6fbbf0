#!/usr/bin/env python3
"""census_c.py -- which C MPI functions does the MPI library export, and does
Ductile cover each of them?

Usage: census_c.py [--list] LIBDUCTILE LIBMPI

Every function symbol LIBMPI defines that is spelt like a C MPI function
(MPI_Send, MPIX_Comm_agree; the all-capital Fortran spellings are
tests/fortran/census.sh's) must be defined by LIBDUCTILE too (Ductile's
wrapper is the one a preloaded program calls) or match an entry of PASSED
below, which says why the MPI's own function is knowingly left in use.  The
MPI-1/MPI-2 names the standard deprecated or removed (DEPRECATED) are
counted apart: the MPIs still export them for binaries built against older
headers.  Exit status 1 when a function is neither wrapped nor passed (its
name is printed), 0 otherwise; --list prints every symbol with its verdict.
"""
import re
import subprocess
import sys

# (pattern, reason): the MPI's own function stays in use for these.
PASSED = [
    (r"^MPI_T_", "the tools interface: not wrapped (docs/virtual-world.md, limit 8)"),
    (r"_(c2f|f2c|c2f08|f082c|f082f|f2f08|toint|fromint)$",
     "handle conversion (a macro in some mpi.h): not wrapped; MPI_Comm_c2f(MPI_COMM_WORLD) "
     "gives the MPI's world (docs/virtual-world.md, limit 3)"),
    (r"^MPI_(Wtime|Wtick)$", "reads the clock: no handle, called in tight loops, nothing to count"),
    (r"^MPI_Aint_(add|diff)$", "address arithmetic: no handle, nothing to count"),
    (r"^MPI_Abi_", "the MPI ABI's version and Fortran settings (MPI 5.0): no handle"),
    (r"^MPI_Pready_list$",
     "Open MPI 5.0's mpi.h declares it without the standard's const: configure leaves it unwrapped "
     "(the MPI's own, not counted)"),
    (r"^MPI_Session_set_info$",
     "Open MPI's own, not in the MPI standard: no handle Ductile substitutes (not counted)"),
    (r"^MPIX_",
     "an implementation's extension, not in the MPI standard: not wrapped, not counted, and "
     "MPI_COMM_WORLD given to one is the MPI's world, not Ductile's (docs/virtual-world.md, limit 10)"),
]

# Deprecated (MPI-2.0, MPI-4.0) or removed (MPI-3.0) names.
DEPRECATED = {
    "MPI_Attr_get", "MPI_Attr_put", "MPI_Attr_delete", "MPI_Keyval_create", "MPI_Keyval_free",
    "MPI_Errhandler_create", "MPI_Errhandler_set", "MPI_Errhandler_get", "MPI_Address",
    "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub", "MPI_Type_hindexed", "MPI_Type_hvector",
    "MPI_Type_struct", "MPI_Info_get", "MPI_Info_get_valuelen", "MPI_Get_elements_x",
    "MPI_Status_set_elements_x", "MPI_Type_get_extent_x", "MPI_Type_get_true_extent_x",
    "MPI_Type_size_x",
}

C_NAME = re.compile(r"^MPIX?_[A-Z][a-z0-9]")


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
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ductile = defined_functions(argv[0])
    syms = sorted(s for s in defined_functions(argv[1]) if C_NAME.match(s))
    wrapped = passed = 0
    missing = []
    old = {"wrapped": 0, "other": 0}
    for s in syms:
        if s in ductile:
            wrapped += 1
            verdict = "wrapped"
        else:
            why = next((r for p, r in PASSED if re.search(p, s)), None)
            if why is None:
                missing.append(s)
                verdict = "NOT COVERED"
            else:
                passed += 1
                verdict = "passed: " + why
        if s in DEPRECATED:
            old["wrapped" if s in ductile else "other"] += 1
        if listing:
            print("%-40s %s%s" % (s, verdict, " (deprecated)" if s in DEPRECATED else ""))
    print("census: %s: %d C functions, %d wrapped by Ductile, %d knowingly passed through, %d not covered; "
          "deprecated or removed names: %d exported, %d wrapped"
          % (argv[1], len(syms), wrapped, passed, len(missing), old["wrapped"] + old["other"], old["wrapped"]))
    for s in missing:
        print("census: NOT COVERED: %s" % s)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""gen_fold_parts.py -- what tools/gen-wrappers.py generates for process
folding (docs/folding.md): the blocking calls that wait by test-and-yield
while a rank shares its cores, and the expression of a wrapper's real call."""

# Process folding (src/fold/): every wrapper first checks ductile_fold_flag
# (one relaxed load; the slow path runs at a fold command); these blocking
# calls wait by test-and-yield (ductile_yield_<name>) while the rank shares
# its cores.  Collectives are not converted: see src/fold/yield.c.
YIELD = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Recv", "MPI_Send", "MPI_Ssend",
         "MPI_Rsend", "MPI_Sendrecv", "MPI_Probe", "MPI_Mprobe", "MPI_Mrecv"}


def real_call(name, args):
    """The real call of a wrapper: PMPI, or the folded test-and-yield form."""
    if name in YIELD:
        return "(ductile_fold_ & DUCTILE_FOLD_YIELD ? ductile_yield_%s(%s) : P%s(%s))" % (
            name[4:], args, name, args)
    return "P%s(%s)" % (name, args)

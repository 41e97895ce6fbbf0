/* removed.c -- the MPI-1 datatype names removed in MPI-3.0 (MPI_Address,
 * MPI_Type_extent, _lb, _ub, _hindexed, _hvector, _struct): mpi.h no longer
 * declares them (Open MPI's defines macros in their place), but MPICH 5 and
 * Open MPI 4.1/5 still export them, and binaries built against older headers
 * call them.  They take no communicator: they are only counted, like their
 * MPI-2 replacements (the local queries untimed).  The error-handler names
 * are in src/wrap/handwritten.c and src/world/errhandler.c;
 * tests/transparency/census.sh checks that every exported name is covered. */
#include "config.h"

#include "../core/hotpath.h"
#include "pmpi_exports.h"

#undef MPI_Address
#undef MPI_Type_extent
#undef MPI_Type_lb
#undef MPI_Type_ub
#undef MPI_Type_hindexed
#undef MPI_Type_hvector
#undef MPI_Type_struct

/* A local query: counted, not timed. */
#define QUERY(name, decl, args)                                                                                        \
    int MPI_##name decl;                                                                                                  \
    int PMPI_##name decl;                                                                                                 \
    int MPI_##name decl                                                                                                   \
    {                                                                                                                  \
        if (DUCTILE_SHOULD_MONITOR()) ductile_count_call(DUCTILE_FN_MPI_##name);                                          \
        return PMPI_##name args;                                                                                          \
    }

/* A datatype constructor: counted and timed. */
#define CONSTRUCTOR(name, decl, args)                                                                                  \
    int MPI_##name decl;                                                                                                  \
    int PMPI_##name decl;                                                                                                 \
    int MPI_##name decl                                                                                                   \
    {                                                                                                                  \
        if (!DUCTILE_SHOULD_MONITOR()) return PMPI_##name args;                                                           \
        DUCTILE_BEGIN(DUCTILE_FN_MPI_##name);                                                                             \
        int ret = PMPI_##name args;                                                                                       \
        DUCTILE_END(DUCTILE_FN_MPI_##name, 0, 0);                                                                         \
        return ret;                                                                                                    \
    }

#if HAVE_PMPI_Address
QUERY(Address, (void *location, MPI_Aint *address), (location, address))
#endif
#if HAVE_PMPI_Type_extent
QUERY(Type_extent, (MPI_Datatype type, MPI_Aint *extent), (type, extent))
#endif
#if HAVE_PMPI_Type_lb
QUERY(Type_lb, (MPI_Datatype type, MPI_Aint *lb), (type, lb))
#endif
#if HAVE_PMPI_Type_ub
QUERY(Type_ub, (MPI_Datatype type, MPI_Aint *ub), (type, ub))
#endif
#if HAVE_PMPI_Type_hindexed
CONSTRUCTOR(Type_hindexed,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype *newtype),
            (count, array_of_blocklengths, array_of_displacements, oldtype, newtype))
#endif
#if HAVE_PMPI_Type_hvector
CONSTRUCTOR(Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype),
            (count, blocklength, stride, oldtype, newtype))
#endif
#if HAVE_PMPI_Type_struct
CONSTRUCTOR(Type_struct,
            (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
             MPI_Datatype *newtype),
            (count, array_of_blocklengths, array_of_displacements, array_of_types, newtype))
#endif

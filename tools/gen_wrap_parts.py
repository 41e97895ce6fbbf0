"""gen_wrap_parts.py -- which MPI functions tools/gen-wrappers.py leaves to
hand-written wrappers (they still get a function id, a name and a category
in the generated table, so they are counted like the others)."""

# Written by hand (semantics need care); the file is named per group.
HANDWRITTEN = [
    # in src/wrap/handwritten.c
    "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort",
    "MPI_Comm_get_attr", "MPI_Attr_get", "MPI_Comm_set_errhandler",
    "MPI_Pcontrol", "MPI_Start", "MPI_Startall", "MPI_Request_free",
    # in src/world/worldid.c (Ductile's children, the program's keyvals)
    "MPI_Comm_get_parent", "MPI_Comm_create_keyval", "MPI_Comm_free_keyval", "MPI_Keyval_create",
    "MPI_Keyval_free", "MPI_Comm_set_info", "MPI_Comm_get_info",
    # in src/world/filekeep.c (files survive a resize)
    "MPI_File_open", "MPI_File_close",
    # in src/wrap/sessions.c (MPI-4 Sessions programs: monitoring without MPI_Init)
    "MPI_Session_init", "MPI_Session_finalize", "MPI_Comm_create_from_group",
    # in src/world/errhandler.c (the program's error handlers see the program's handles)
    "MPI_Comm_create_errhandler", "MPI_File_create_errhandler",
] + [
    # MPI-1 names removed in MPI-3.0, not in the MPI Forum's API data, which
    # MPICH 5 and Open MPI 4.1/5 still export (old binaries call them):
    # MPI_Errhandler_create in src/world/errhandler.c, MPI_Errhandler_set and
    # _get in src/wrap/handwritten.c, the datatype ones in src/wrap/removed.c
    # (tests/transparency/census.sh lists every exported name).
    "MPI_Errhandler_create", "MPI_Errhandler_set", "MPI_Errhandler_get",
    "MPI_Address", "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub",
    "MPI_Type_hindexed", "MPI_Type_hvector", "MPI_Type_struct",
]

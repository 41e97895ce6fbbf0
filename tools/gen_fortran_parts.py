"""gen_fortran_parts.py -- parts of tools/gen-fortran.py: the forwarded
bindings (callbacks, attribute values, string arrays: passed to the MPI
library's own pmpi_xxx_ with the world substituted and the call counted),
the mpi_f08 shims, and the bindings written out by hand (SPECIAL,
F08_SPECIAL) or knowingly left to the library (PASSED).  See gen-fortran.py.
"""


class Unsupported(Exception):
    pass


class Forward(Exception):
    """The binding is forwarded to the library's own Fortran binding
    (pmpi_xxx_), with the world substituted and the call counted."""
    pass


def fortran_name(name):
    return "mpi_" + name[len("MPI_"):].lower()


def f08_shim(fname, fargs, hidden, guards):
    """mpi_xxx_f08_ (the mpi_f08 linker name of Open MPI and gfortran, MPI
    standard: MPI_Xxx_f08): the same arguments as mpi_xxx_ (a TYPE(MPI_Comm)
    etc. is one INTEGER, a TYPE(MPI_Status) is MPI_STATUS_SIZE INTEGERs),
    but ierror is OPTIONAL (NULL when absent)."""
    names = [a.split("*")[-1].split()[-1] for a in fargs]
    hnames = [h.split()[-1] for h in hidden]
    out = ["#if " + " && ".join(guards),
           "void %s_f08_(%s)" % (fname, ", ".join(fargs + ["MPI_Fint *ierr"] + hidden)),
           "{",
           "    MPI_Fint e_ = MPI_SUCCESS;",
           "    %s_(%s);" % (fname, ", ".join(names + ["&e_"] + hnames)),
           "    if (ierr) *ierr = e_;",
           "}",
           "#endif"]
    return "\n".join(out) + "\n"


def build_forward(proc, why):
    """A binding whose arguments Ductile cannot convert to C (callbacks,
    attribute values, string arrays): forwarded to the MPI library's own
    Fortran binding pmpi_xxx_ (mpi_f08: pmpi_xxx_f08_), with MPI_COMM_WORLD
    replaced by the virtual world and the call counted.  Arguments are passed
    on untouched (void *), hidden string lengths included."""
    iso = proc.express.iso_c
    name = iso.name
    fname = fortran_name(name)
    params = [p for p in proc._parseset["parameters"] if not p["large_only"]]
    fparams = [p for p in params if "f90_parameter" not in p["suppress"].split()]
    if not fparams or fparams[-1]["name"] != "ierror":
        raise Unsupported("no ierror (%s)" % why)
    fargs, args, hidden, decls = [], [], [], []
    for par in fparams[:-1]:
        n = par["name"]
        if par["kind"] in ("STRING", "STRING_ARRAY", "STRING_2DARRAY"):
            hidden.append("size_t %s_len" % n)
        if par["kind"] == "COMMUNICATOR" and par["param_direction"] == "in" and not par["length"]:
            fargs.append("MPI_Fint *%s" % n)
            keyval = next((q["name"] for q in fparams if q["kind"] == "KEYVAL"), None)
            if keyval and name in ("MPI_Comm_get_attr", "MPI_Attr_get"):
                # predefined attributes stay on the real world (as in C)
                decls.append("MPI_Fint c_%s = ductile_f_keyval_is_predefined(*%s) ? *%s : ductile_f_comm_in(*%s);"
                             % (n, keyval, n, n))
            else:
                decls.append("MPI_Fint c_%s = ductile_f_comm_in(*%s);" % (n, n))
            args.append("&c_" + n)
        elif par["kind"] == "KEYVAL":
            fargs.append("MPI_Fint *%s" % n)
            args.append(n)
        else:
            fargs.append("void *%s" % n)
            args.append(n)
    hnames = [h.split()[-1] for h in hidden]
    proto = ", ".join(fargs + ["MPI_Fint *ierr"] + hidden)
    guards = ["DUCTILE_FORTRAN", "HAVE_P" + name]
    out = ["#if " + " && ".join(guards),
           "/* forwarded: %s */" % why,
           "extern void p%s_(%s) __attribute__((weak));" % (fname, proto),
           "void %s_(%s)" % (fname, proto),
           "{"]
    out += ["    " + d for d in decls]
    out += ["    if (!p%s_) { *ierr = ductile_f_missing(\"p%s_\"); return; }" % (fname, fname),
            "    DUCTILE_F_FORWARD(DUCTILE_FN_%s, p%s_(%s));" % (name, fname, ", ".join(args + ["ierr"] + hnames)),
            "}",
            "DUCTILE_F_ALIASES(%s)" % fname,
            'DUCTILE_F_UPPER(%s, "%s")' % (fname, fname.upper()),
            'DUCTILE_F_CNAMES(%s, "%s")' % (fname, name)]
    # mpi_f08: the library's f08 binding has f08 callback interfaces
    out += ["extern void p%s_f08_(%s) __attribute__((weak));" % (fname, proto),
            "void %s_f08_(%s)" % (fname, proto),
            "{"]
    out += ["    " + d for d in decls]
    out += ["    if (!p%s_f08_) { MPI_Fint e_ = ductile_f_missing(\"p%s_f08_\"); if (ierr) *ierr = e_; return; }"
            % (fname, fname),
            "    DUCTILE_F_FORWARD(DUCTILE_FN_%s, p%s_f08_(%s));" % (name, fname, ", ".join(args + ["ierr"] + hnames)),
            "}",
            "#endif"]
    return "\n".join(out) + "\n"


# Open MPI's `use mpi` module binds the TYPE(C_PTR) form of BASEPTR to
# mpi_xxx_cptr_; the pointer is stored the same way as into the
# INTEGER(KIND=MPI_ADDRESS_KIND) form, so these are aliases.
CPTR = {"MPI_Alloc_mem", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_shared_query"}

# Bindings written out here rather than derived from the parse data.
SPECIAL = {
    "MPI_Pcontrol": """#if DUCTILE_FORTRAN && HAVE_PMPI_Pcontrol
/* MPI_PCONTROL(LEVEL) has no IERROR. */
void mpi_pcontrol_(MPI_Fint *level)
{
    (void)MPI_Pcontrol((int)*level);
}
DUCTILE_F_ALIASES(mpi_pcontrol)
DUCTILE_F_UPPER(mpi_pcontrol, "MPI_PCONTROL")
DUCTILE_F_CNAMES(mpi_pcontrol, "MPI_Pcontrol")
void mpi_pcontrol_f08_(MPI_Fint *level)
{
    (void)MPI_Pcontrol((int)*level);
}
#endif
""",
    "MPI_Info_create_env": """#if DUCTILE_FORTRAN && HAVE_PMPI_Info_create_env
/* Fortran passes no argc/argv (as MPI_Init). */
void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info c_info = MPI_INFO_NULL;
    int rc_ = MPI_Info_create_env(0, NULL, &c_info);
    if (rc_ == MPI_SUCCESS) *info = PMPI_Info_c2f(c_info);
    *ierr = (MPI_Fint)rc_;
}
DUCTILE_F_ALIASES(mpi_info_create_env)
DUCTILE_F_UPPER(mpi_info_create_env, "MPI_INFO_CREATE_ENV")
DUCTILE_F_CNAMES(mpi_info_create_env, "MPI_Info_create_env")
void mpi_info_create_env_f08_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Fint e_ = MPI_SUCCESS;
    mpi_info_create_env_(info, &e_);
    if (ierr) *ierr = e_;
}
#endif
""",
}
# mpi_f08 bindings whose arguments differ from mpif.h's (written here).
F08_SPECIAL = {
    "MPI_Buffer_detach": """#if DUCTILE_FORTRAN && HAVE_PMPI_Buffer_detach
/* mpi_f08: BUFFER_ADDR is TYPE(C_PTR), INTENT(OUT) (mpif.h: ignored). */
void mpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
    void *c_buffer_addr = NULL;
    int c_size = 0;
    int rc_ = MPI_Buffer_detach(&c_buffer_addr, &c_size);
    if (rc_ == MPI_SUCCESS) {
        *buffer_addr = c_buffer_addr;
        *size = (MPI_Fint)c_size;
    }
    if (ierr) *ierr = (MPI_Fint)rc_;
}
#endif
""",
}
# Not wrapped, with the reason (tests/fortran/census_lib.py checks that every
# Fortran binding the MPI library exports is wrapped or listed here).
PASSED = {
    "MPI_Wtime": "a function reading the local clock: no handle, nothing to count",
    "MPI_Wtick": "a function reading the local clock: no handle, nothing to count",
    "MPI_Aint_add": "a function computing an address: no handle, nothing to count",
    "MPI_Aint_diff": "a function computing an address: no handle, nothing to count",
}

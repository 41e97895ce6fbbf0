"""ductile -- make an mpi4py program malleable with Ductile (docs/python.md).

The program runs under ``ductile-run -- mpiexec -n N python3 app.py``: the
launcher preloads libductile.so into every MPI process, so MPI.COMM_WORLD is
Ductile's virtual world, which a resize grows or shrinks.  This module talks
to that library through ctypes (no compiler at install time; it only needs
the library the launcher already loaded).  It registers numpy arrays --
distributed by rows (each process holds its block of a global array) or
replicated (every process holds all of it) -- marks control points, where a
due resize happens and the arrays move, and runs reconfiguration hooks.

    import ductile
    from mpi4py import MPI
    import numpy as np

    start, count = ductile.block(N)                  # my rows of N
    u = ductile.distributed("u", np.zeros((count, M)), rows=N)
    it = ductile.get_shared() if ductile.spawned() else 0   # new processes: data + iteration
    for it in range(it, iters):
        a = u.local                                  # my rows, a numpy array
        ...                                          # compute, communicate on MPI.COMM_WORLD
        ductile.control_point(it)                    # a resize may happen here
        if ductile.removed():
            break

After a control point that changed the world, ``.local`` is a new array
holding this process's new block (take it again; the old one is no longer
the registered one).  Spawned processes start the same interpreter
(sys.executable) with the same script and arguments.
"""

import collections
import ctypes
import os
import sys
import traceback

__all__ = [
    "Array", "Reconfig", "available", "block", "control_point", "distributed", "get_shared", "last_reconfig",
    "off_reconfigure", "on_reconfigure", "pending", "reconfig_comm", "removed", "replicated", "request_resize",
    "spawned", "EXPAND", "SHRINK", "REPLACE", "CONTINUES", "NEW", "REMOVED",
]

# empi.h / ductile.h values
_EMPI_DISJOINT, _EMPI_SHARED = 674782, 617828
_EMPI_ACTIVE, _EMPI_REMOVED = 776765, 787634
_EMPI_SPAWNED = 938594
_EMPI_VARIABLE, _EMPI_CONSTANT = 0, 1
EXPAND, SHRINK, REPLACE = 1, 2, 3
CONTINUES, NEW, REMOVED = 1, 2, 3

# Spawned processes run this interpreter (a virtual environment's python, not
# the file it links to) with this script: Ductile reads the setting in
# MPI_Init (set here when MPI is not initialised yet; else _lib() sets it).
os.environ.setdefault("DUCTILE_SPAWN_COMMAND", sys.executable)

Reconfig = collections.namedtuple(
    "Reconfig", "id kind baseline role old_size old_rank new_size new_rank iteration")
Reconfig.__doc__ = """What a committed resize changed for this process (struct ductile_reconfig):
kind EXPAND/SHRINK/REPLACE, baseline (1: every old process left), role
CONTINUES/NEW/REMOVED, old and new size and rank (-1: not in that world), and
the control point's iteration."""


class _CReconfig(ctypes.Structure):
    _fields_ = [(f, ctypes.c_int) for f in Reconfig._fields]


_HOOK_T = ctypes.CFUNCTYPE(None, ctypes.POINTER(_CReconfig), ctypes.c_void_p)

_L = None
_hooks = []          # the program's callbacks
_arrays = {}         # name -> Array
_errors = []         # exceptions raised by callbacks, raised again by control_point / get_shared
_c_hook = None       # the ctypes callback (kept alive)


def _library_path():
    """The libductile the process has loaded (ductile-run preloads it), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1] if line.strip() else ""
                if os.path.basename(p).startswith("libductile.so"):
                    return p
    except OSError:
        pass
    return None


def available():
    """True when libductile is loaded in this process (the program runs under ductile-run)."""
    return _library_path() is not None


def _lib():
    global _L, _c_hook
    if _L is not None:
        return _L
    path = _library_path()
    if path is None:
        raise RuntimeError("ductile: libductile.so is not loaded in this process: run the program under "
                           "ductile-run (ductile-run -- mpiexec -n N python3 app.py), which preloads it into every "
                           "MPI process")
    L = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    from mpi4py import MPI  # noqa: F401  (MPI_Init, through Ductile)
    i, i64, vp, cp = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
    # handles: an int (MPICH: unsigned values such as 0x84000002) or a pointer (Open MPI)
    dt = ctypes.c_uint if MPI._sizeof(MPI.Datatype) == ctypes.sizeof(ctypes.c_uint) else ctypes.c_void_p
    comm = ctypes.c_uint if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_uint) else ctypes.c_void_p
    sig = {
        "EMPI_Register_array": (i, [cp, vp, dt, i64, i64, i, i]),
        "EMPI_Set_buffer_rows": (i, [cp, i64]),
        "EMPI_Get_addr": (vp, [cp]),
        "EMPI_Get_shared": (None, [ctypes.POINTER(i)]),
        "EMPI_Get_status": (None, [ctypes.POINTER(i)]),
        "EMPI_Get_type": (None, [ctypes.POINTER(i)]),
        "EMPI_Get_wsize64": (None, [i, i, i64, ctypes.POINTER(i64), ctypes.POINTER(i64)]),
        "EMPI_Reconfig_comm": (i, [ctypes.POINTER(comm)]),
        "ductile_active": (i, []),
        "ductile_control_point": (i, [i]),
        "ductile_constant_pending": (i, []),
        "ductile_on_reconfigure": (i, [_HOOK_T, vp]),
        "ductile_last_reconfig": (i, [ctypes.POINTER(_CReconfig)]),
        "ductile_set_spawn_command": (i, [cp]),
        "ductile_request_resize": (i, [i, i, i, cp, cp, ctypes.c_size_t]),
        "ductile_set_sizes": (i, [cp, cp, ctypes.c_size_t]),
        "ductile_get_sizes": (None, [cp, ctypes.c_size_t]),
    }
    for name, (res, args) in sig.items():
        f = getattr(L, name)
        f.restype, f.argtypes = res, args
    L._dt, L._comm = dt, comm
    if not L.ductile_active():
        raise RuntimeError("ductile: libductile is loaded but not active (DUCTILE_DISABLE=1?)")
    L.ductile_set_spawn_command(sys.executable.encode())
    _c_hook = _HOOK_T(_on_reconfigure_c)
    L.ductile_on_reconfigure(_c_hook, None)
    _L = L
    return L


def _mpi_type(dtype):
    """(MPI datatype handle, elements per numpy item): the MPI type of dtype, or bytes."""
    from mpi4py import MPI
    t = MPI._typedict.get(dtype.char) if dtype.fields is None else None
    if t is not None and t.Get_extent()[1] == dtype.itemsize:
        return MPI._handleof(t), 1
    return MPI._handleof(MPI.BYTE), dtype.itemsize


class Array:
    """A registered numpy array.  ``local`` is this process's part: its block of
    rows (distributed) or the whole array (replicated), as a numpy array of the
    registered dtype and row shape; take it again after every control point."""

    def __init__(self, name, arr, rows, distributed, constant):
        import numpy as np
        if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
            raise ValueError("ductile: '%s': a C-contiguous numpy array is needed" % name)
        self.name = name
        self.dtype = arr.dtype
        self.row_shape = tuple(arr.shape[1:]) if arr.ndim > 0 else ()
        self.rows = int(rows)
        self.distributed = distributed
        self.constant = constant
        self._arr = arr
        self._register(arr)

    def _row_items(self):
        n = 1
        for d in self.row_shape:
            n *= d
        return n

    def _register(self, arr):
        L = _lib()
        h, per = _mpi_type(self.dtype)
        rc = L.EMPI_Register_array(self.name.encode(), arr.ctypes.data if arr.size else None, h, self.rows,
                                   self._row_items() * per, _EMPI_DISJOINT if self.distributed else _EMPI_SHARED,
                                   _EMPI_CONSTANT if self.constant else _EMPI_VARIABLE)
        if rc != 0:
            raise RuntimeError("ductile: '%s' could not be registered (the reason is on stderr)" % self.name)
        if self.distributed:
            L.EMPI_Set_buffer_rows(self.name.encode(), arr.shape[0] if arr.ndim else 0)
        self._arr = arr

    def _adopt(self):
        """After a resize: this process's new block, copied into numpy memory and registered
        again, so that no numpy array ever points into memory Ductile frees later."""
        import numpy as np
        L = _lib()
        addr = L.EMPI_Get_addr(self.name.encode())
        if self.distributed:
            start, count = block(self.rows)
        else:
            count = self.rows
        if addr == (self._arr.ctypes.data if self._arr.size else None) and self._arr.shape[:1] == (count,):
            return  # received into our own array (a spawned process), nothing moved
        shape = (count,) + self.row_shape
        new = np.empty(shape, dtype=self.dtype)
        if new.nbytes:
            ctypes.memmove(new.ctypes.data, addr, new.nbytes)
        self._register(new)

    @property
    def local(self):
        return self._arr


def distributed(name, local, rows, constant=False):
    """Register a global array of ``rows`` rows distributed by blocks of rows:
    ``local`` (numpy, C-contiguous) holds this process's block(rows) rows.
    constant=True: it does not change, and may move in the background
    (DUCTILE_REDIST_CONSTANT).  Register the same arrays in the same order on
    every process, spawned ones included (with an array of their block), before
    get_shared()."""
    a = Array(name, local, rows, True, constant)
    _arrays[name] = a
    return a


def replicated(name, array, constant=False):
    """Register an array every process holds whole; new processes receive rank 0's copy."""
    a = Array(name, array, array.shape[0] if array.ndim else 1, False, constant)
    _arrays[name] = a
    return a


def block(rows, rank=None, size=None):
    """(first row, row count) of a process's block of ``rows`` rows (default: this
    process in the current world), as Ductile distributes registered arrays."""
    from mpi4py import MPI
    L = _lib()
    if rank is None:
        rank = MPI.COMM_WORLD.Get_rank()
    if size is None:
        size = MPI.COMM_WORLD.Get_size()
    d, c = ctypes.c_int64(), ctypes.c_int64()
    L.EMPI_Get_wsize64(rank, size, int(rows), ctypes.byref(d), ctypes.byref(c))
    return d.value, c.value


def spawned():
    """True in a process a resize started: register the arrays, then call get_shared()."""
    t = ctypes.c_int()
    _lib().EMPI_Get_type(ctypes.byref(t))
    return t.value == _EMPI_SPAWNED


def get_shared():
    """In a spawned process: receive the registered arrays; returns the iteration to go on
    from.  The reconfiguration hooks run inside, once the data is here."""
    it = ctypes.c_int(0)
    _lib().EMPI_Get_shared(ctypes.byref(it))
    _raise_errors()
    return it.value


def control_point(iteration):
    """Collective over the world: a due resize happens here.  True when the world
    changed (the arrays' ``local`` are new and the hooks have run)."""
    changed = bool(_lib().ductile_control_point(int(iteration)))
    _raise_errors()
    return changed


def removed():
    """True once this process has left the world (leave the loop; MPI.Finalize parks it)."""
    s = ctypes.c_int()
    _lib().EMPI_Get_status(ctypes.byref(s))
    return s.value == _EMPI_REMOVED


def pending():
    """True while constant arrays move in the background (the world keeps its size)."""
    return bool(_lib().ductile_constant_pending())


def request_resize(target=None, delta=None, at_iteration=-1):
    """Ask for a resize (on the world's rank 0): to ``target`` processes, or by ``delta``."""
    if (target is None) == (delta is None):
        raise ValueError("ductile.request_resize: give target or delta")
    err = ctypes.create_string_buffer(300)
    v, is_target = (target, 1) if target is not None else (delta, 0)
    if _lib().ductile_request_resize(int(v), is_target, int(at_iteration), None, err, len(err)) != 0:
        raise RuntimeError(err.value.decode(errors="replace"))


def set_sizes(spec=None, **keys):
    """The process counts this program can use (docs/malleability.md, "Size constraints"):
    a specification as in DUCTILE_SIZES ("allowed=squares|multiples:3,max=16"), or keywords
    min, max, step, allowed, preferred (set_sizes(allowed="squares", max=16)).  A resize to any
    other count is refused with the reason.  Call it on every process, spawned ones too.
    Raises ValueError (nothing changed) when the constraints are malformed or contradictory."""
    parts = [spec] if spec else []
    parts += ["%s=%s" % (k, v) for k, v in keys.items()]
    err = ctypes.create_string_buffer(400)
    if _lib().ductile_set_sizes(",".join(parts).encode(), err, len(err)) != 0:
        raise ValueError("ductile.set_sizes: " + err.value.decode(errors="replace"))


def get_sizes():
    """The constraints in force, as a specification ("" when there are none)."""
    buf = ctypes.create_string_buffer(400)
    _lib().ductile_get_sizes(buf, len(buf))
    return buf.value.decode()


def on_reconfigure(fn):
    """Call fn(info: Reconfig) on every process after each committed resize, before the
    control point (or get_shared) returns; never after a rolled-back one.  The
    world is already the new one and the arrays hold the new blocks: rebuild
    communicators (MPI.COMM_WORLD.Create_cart, Split), datatypes and the like."""
    _lib()
    _hooks.append(fn)
    return fn


def off_reconfigure(fn):
    _hooks.remove(fn)


def last_reconfig():
    """What the latest control point changed (a Reconfig), or None when it changed nothing."""
    c = _CReconfig()
    if not _lib().ductile_last_reconfig(ctypes.byref(c)):
        return None
    return Reconfig(*(getattr(c, f) for f in Reconfig._fields))


def reconfig_comm():
    """Inside a hook, collectively on every process that runs it: an mpi4py communicator
    over the old and the new processes (old first); free it when done."""
    from mpi4py import MPI
    L = _lib()
    h = L._comm()
    if L.EMPI_Reconfig_comm(ctypes.byref(h)) != 0:
        raise RuntimeError("ductile.reconfig_comm: no communicator (see stderr)")
    return MPI.Intracomm.fromhandle(h.value)


def _on_reconfigure_c(p, arg):
    info = Reconfig(*(getattr(p.contents, f) for f in Reconfig._fields))
    try:
        if info.role != REMOVED:
            for a in list(_arrays.values()):
                a._adopt()
        for fn in list(_hooks):
            fn(info)
    except BaseException as e:  # raised again when control_point / get_shared returns
        _errors.append((e, traceback.format_exc()))


def _raise_errors():
    if _errors:
        e, tb = _errors[0]
        del _errors[:]
        sys.stderr.write(tb)
        raise e

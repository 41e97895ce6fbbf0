"""solver.py -- a numpy/mpi4py stencil solver made malleable with the ductile
module (issue 26, item 6).  A 2-D field of N x M doubles distributed by rows
(variable), a coefficient field (distributed, constant: may move in the
background), a replicated history of exact global counts (variable) and
replicated parameters (constant).  Each iteration exchanges halo rows with
the neighbours on a Cartesian communicator the program rebuilds in a
reconfiguration hook, updates the field elementwise (no floating-point
reduction, so the result does not depend on the process count) and marks a
control point.  At the end it prints an exact checksum of the bit patterns,
which must be the static run's.  It takes powers of two or 3 processes, at
most 4 (ductile.set_sizes; issue 26, item 3): rank 0 checks that resizes to 5
and 6 are refused with the reason.

usage: python3 solver.py N M ITERS
"""
import sys

import ductile
import numpy as np
from mpi4py import MPI

N, M, ITERS = (int(a) for a in sys.argv[1:4])
K = 5
failures = []
state = {"cart": None, "hooks": 0, "changes": 0}


def say(line):
    """One write per line: the processes' lines do not run into each other."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def check(ok, what):
    if not ok:
        failures.append(what)
        say("FAIL: rank %d: %s" % (MPI.COMM_WORLD.Get_rank(), what))


def rebuild(info=None):
    """The program's world-dependent state: a 1-D Cartesian communicator of the world."""
    if state["cart"] is not None:
        state["cart"].Free()
    size = MPI.COMM_WORLD.Get_size()
    state["cart"] = MPI.COMM_WORLD.Create_cart([size], periods=[False], reorder=False)


@ductile.on_reconfigure
def hook(info):
    state["hooks"] += 1
    span = ductile.reconfig_comm()
    n = span.allreduce(1)
    want = info.old_size + info.new_size if info.baseline else max(info.old_size, info.new_size)
    check(n == want, "hook: %d processes over old and new, expected %d" % (n, want))
    span.Free()
    if info.role == ductile.REMOVED:
        return
    check(info.new_size == MPI.COMM_WORLD.Get_size() and info.new_rank == MPI.COMM_WORLD.Get_rank(),
          "hook: new %d of %d" % (info.new_rank, info.new_size))
    start, count = ductile.block(N)
    check(u.local.shape == (count, M), "hook: block of %s rows, expected %d" % (u.local.shape, count))
    rebuild(info)


# the counts this solver takes (issue 26, item 3): powers of two or 3, at most 4
ductile.set_sizes(allowed="pow2|3", max=4)
check(ductile.get_sizes() == "max=4,allowed=pow2|3", "get_sizes: '%s'" % ductile.get_sizes())
try:
    ductile.set_sizes(allowed="cubes")
    check(False, "set_sizes(allowed='cubes') accepted")
except ValueError as e:
    check("'cubes'" in str(e), "set_sizes(allowed='cubes'): %s" % e)
if not ductile.spawned() and MPI.COMM_WORLD.Get_rank() == 0:
    for target in (5, 6):
        try:
            ductile.request_resize(target=target)
            check(False, "a resize to %d accepted" % target)
        except RuntimeError as e:
            check("cannot run on %d processes" % target in str(e), "resize to %d: %s" % (target, e))
start, count = ductile.block(N)
if ductile.spawned():
    u = ductile.distributed("u", np.empty((count, M)), rows=N)
    coef = ductile.distributed("coef", np.empty((count, M)), rows=N, constant=True)
    hist = ductile.replicated("hist", np.empty(K, dtype=np.int64))
    params = ductile.replicated("params", np.empty(3), constant=True)
    it = ductile.get_shared()
    check(state["hooks"] == 1, "spawned: %d hooks in get_shared" % state["hooks"])
    state["changes"] = 1
else:
    g = np.arange(start, start + count, dtype=np.float64)[:, None]
    j = np.arange(M, dtype=np.float64)[None, :]
    u = ductile.distributed("u", np.sin(0.1 * g) * np.cos(0.07 * j) + 1.0, rows=N)
    coef = ductile.distributed("coef", 0.05 + 0.01 * ((g * 3 + j) % 7), rows=N, constant=True)
    hist = ductile.replicated("hist", np.zeros(K, dtype=np.int64))
    params = ductile.replicated("params", np.array([0.25, 1.0, 0.5]), constant=True)
    rebuild()
    it = 0

while it < ITERS:
    a, c = u.local, coef.local
    cart = state["cart"]
    up, down = cart.Shift(0, 1)
    top = np.zeros(M)
    bottom = np.zeros(M)
    cart.Sendrecv(np.ascontiguousarray(a[-1]), dest=down, recvbuf=top, source=up)
    cart.Sendrecv(np.ascontiguousarray(a[0]), dest=up, recvbuf=bottom, source=down)
    ext = np.vstack([top[None, :], a, bottom[None, :]])
    lap = ext[:-2] + ext[2:] - 2.0 * a
    lap[:, 1:-1] += a[:, :-2] + a[:, 2:] - 2.0 * a[:, 1:-1]
    a += params.local[0] * c * lap
    above = MPI.COMM_WORLD.allreduce(int(np.count_nonzero(a > params.local[1])))
    hist.local[it % K] = hist.local[it % K] // 2 + above
    before = state["hooks"]
    changed = ductile.control_point(it)
    state["changes"] += changed
    check(state["hooks"] == before + changed, "iteration %d: %d hooks, changed %s" % (it, state["hooks"] - before,
                                                                                     changed))
    if changed:
        info = ductile.last_reconfig()
        check(info is not None and info.iteration == it, "iteration %d: last_reconfig %s" % (it, info))
    if ductile.removed():
        say("removed process: hooks %d, failures %d" % (state["hooks"], len(failures)))
        MPI.Finalize()
        sys.exit(0)
    it += 1

start, count = ductile.block(N)
bits = u.local.view(np.uint64).reshape(count, M)
pos = (np.arange(start, start + count, dtype=np.uint64)[:, None] * np.uint64(M) + np.arange(M, dtype=np.uint64))
with np.errstate(over="ignore"):
    h = np.bitwise_xor(bits, pos * np.uint64(0x9E3779B97F4A7C15)) * np.uint64(0xBF58476D1CE4E5B9)
    mine = int(np.sum(h ^ (h >> np.uint64(29)), dtype=np.uint64))
comm = MPI.COMM_WORLD
tot = comm.allreduce(mine) % (1 << 64)
hs = ",".join(str(x) for x in hist.local)
nfail = comm.allreduce(len(failures))
hooks = comm.allreduce(state["hooks"], op=MPI.MAX)
check(state["hooks"] == state["changes"], "%d hooks, %d changes" % (state["hooks"], state["changes"]))
if comm.Get_rank() == 0:
    say("checksum %016x hist %s on %d processes, hooks %d, failures %d" % (tot, hs, comm.Get_size(), hooks, nfail))

"""simjob.py -- simulated jobs for the controller's scale tests (issue 25):
the job side of the protocol (docs/protocol.md) over real Unix sockets, no
MPI.  A job registers with its hosts and the host of every rank as
{host: rank set} (src/common/rankset.h), sends samples, answers expand and
shrink at once (a "resized" event, and an "exited" event for the processes
that left EXIT_DELAY s later), and keeps its own view of which host runs
which rank.  Every wait is bounded.

As a program: one job of PROCS ranks on HOSTS (NAME1,NAME2,... or
PREFIX%d:N), placed in blocks, round robin or at random (seeded), for SECONDS or until STOPFILE
exists; it writes its view ({"job", "procs", "hosts": {host: ranks}}) to
VIEWFILE after registering and after every resize.

usage: simjob.py SOCKET PROCS HOSTS block|cyclic|random SECONDS STOPFILE VIEWFILE"""
import json, os, random, select, socket, sys, time

EXIT_DELAY = 0.5


def rankset_encode(ranks):
    """Ascending distinct ranks as a rank set: runs of one stride become A-B or A-B:S (as rankset.c)."""
    out, i, n = [], 0, len(ranks)
    while i < n:
        k = i
        if i + 1 < n:
            st = ranks[i + 1] - ranks[i]
            while k + 1 < n and ranks[k + 1] - ranks[k] == st:
                k += 1
            if st == 1 or k - i >= 2:
                out.append("%d-%d" % (ranks[i], ranks[k]) if st == 1 else "%d-%d:%d" % (ranks[i], ranks[k], st))
                i = k + 1
                continue
        out.append(str(ranks[i]))
        i += 1
    return ",".join(out)


def rankset_decode(s):
    """The ranks of a rank set, or of a list of ranks."""
    if not isinstance(s, str):
        return list(s)
    out = []
    for item in filter(None, s.replace(";", ",").split(",")):
        a, _, rest = item.partition("-")
        b, _, st = rest.partition(":")
        out += range(int(a), int(b or a) + 1, int(st or 1))
    return out


def host_names(spec):
    if ":" in spec and "%" in spec:
        fmt, n = spec.rsplit(":", 1)
        return [fmt % (i + 1) for i in range(int(n))]
    return spec.split(",")


class SimJob:
    """One job on one connection (blocking socket with short timeouts, or driven by a selector)."""

    def __init__(self, path, tag, rank_host, timeout=10):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""
        self.out = b""
        self.nid = 0
        self.job = 0
        self.tag = tag
        self.ranks = list(rank_host)  # rank -> host
        self.it = 0
        self.exits = []  # (when, {host: n})
        self.pending = {}  # request id -> command (for replies)
        self.changed = False
        hello = json.loads(self.readline(timeout))
        assert hello.get("cmd") == "hello", hello

    # ---- wire
    def readline(self, timeout):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            p = select.poll()  # not select(): descriptors above 1024 (bench/daemon-scale.py)
            p.register(self.s, select.POLLIN)
            if left <= 0 or not p.poll(int(left * 1000) + 1):
                return b""
            d = self.s.recv(1 << 20)
            if not d:
                raise OSError("ductiled closed the connection")
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def send(self, obj):
        obj["v"] = 1
        self.s.sendall(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def request(self, cmd, **kw):
        self.nid += 1
        kw.update({"id": self.nid, "cmd": cmd})
        if self.job and cmd != "register":
            kw["job"] = self.job
        self.pending[self.nid] = cmd
        self.send(kw)
        return self.nid

    def registration(self):
        by = {}
        for r, h in enumerate(self.ranks):
            by.setdefault(h, []).append(r)
        return dict(tag=self.tag, pid=os.getpid(), binary="simjob", procs=len(self.ranks),
                    hosts=[{"name": h, "procs": len(v)} for h, v in by.items()],
                    rank_hosts={h: rankset_encode(v) for h, v in by.items()}, malleable=True, mpi="fake")

    def register(self, timeout=30):
        rid = self.request("register", **self.registration())
        end = time.time() + timeout
        while not self.job and time.time() < end:
            line = self.readline(max(0.1, end - time.time()))
            if line:
                self.handle(json.loads(line))
        if not self.job:
            raise RuntimeError("%s: registration not answered (%s)" % (self.tag, rid))
        return self.job

    # ---- the job's side
    def handle(self, m):
        """A message from ductiled: a reply (the registration's gives the job id) or a command."""
        if "ok" in m:
            cmd = self.pending.pop(m.get("id"), None)
            if cmd == "register":
                if not m["ok"]:
                    raise RuntimeError("registration refused: %s" % m.get("reason"))
                self.job = m["result"]["job"]
            return
        cmd, rid = m.get("cmd"), m.get("id")
        frm = len(self.ranks)
        if cmd == "expand":
            self.ranks += m.get("hosts") or [self.ranks[0]] * m["n"]
        elif cmd == "shrink":
            gone = set(rankset_decode(m.get("ranks") or "")) or set(range(frm - m["n"], frm))
            left = {}
            for r in gone:
                left[self.ranks[r]] = left.get(self.ranks[r], 0) + 1
            self.ranks = [h for r, h in enumerate(self.ranks) if r not in gone]
            self.exits.append((time.time() + EXIT_DELAY, left))
        else:
            self.send({"id": rid, "ok": False, "error": "not_supported", "reason": "simjob does not do " + str(cmd)})
            return
        self.send({"id": rid, "ok": True, "result": {}})
        self.request("event", kind="resized", details={"iteration": self.it, "from": frm, "to": len(self.ranks),
                                                        "op": cmd, "status": "ok", "reason": ""})
        self.changed = True

    def tick(self, now):
        """Due "exited" events, then one sample."""
        for e in [e for e in self.exits if e[0] <= now]:
            self.exits.remove(e)
            self.request("event", kind="exited", details={"hosts": e[1]})
        self.it += 10
        self.request("sample", t=now, iteration=self.it, procs=len(self.ranks), iters=10, interval_s=1.0,
                     compute_s=0.7, comm_s=0.25, io_s=0.05, bytes=123456789, io_calls=3, control_point=True)

    def view(self):
        by = {}
        for r, h in enumerate(self.ranks):
            by.setdefault(h, []).append(r)
        return {"job": self.job, "procs": len(self.ranks), "hosts": {h: len(v) for h, v in by.items()},
                "rank_sets": {h: rankset_encode(v) for h, v in by.items()}, "parked": sum(len(e[1]) for e in self.exits)}


def main():
    sock, procs, hosts, placement, seconds, stopfile, viewfile = sys.argv[1:8]
    procs, hosts, seconds = int(procs), host_names(hosts), float(seconds)
    nh = len(hosts)
    per = (procs + nh - 1) // nh
    rank_host = [hosts[r % nh] if placement == "cyclic" else hosts[r // per] for r in range(procs)]
    if placement == "random":  # every host full, the ranks shuffled over them
        random.seed(25)
        random.shuffle(rank_host)
    j = SimJob(sock, "simjob%d" % os.getpid(), rank_host)

    def write_view():
        with open(viewfile + ".tmp", "w") as f:
            json.dump(j.view(), f)
        os.rename(viewfile + ".tmp", viewfile)

    t0 = time.time()
    j.register()
    print("simjob: registered as job %d: %d ranks on %d hosts (%s), registration %d bytes, in %.2f s" % (
        j.job, procs, nh, placement, len(json.dumps(j.registration())), time.time() - t0), flush=True)
    write_view()
    end, next_tick = time.time() + seconds, 0.0
    while time.time() < end and not os.path.exists(stopfile):
        line = j.readline(0.1)
        if line:
            j.handle(json.loads(line))
        now = time.time()
        if now >= next_tick:
            had = len(j.exits)
            j.tick(now)
            next_tick = now + 1.0
            if had != len(j.exits):
                j.changed = True
        if j.changed:
            j.changed = False
            write_view()
            print("simjob: %d ranks on %d hosts" % (len(j.ranks), len(set(j.ranks))), flush=True)
    j.request("exit", status=0)
    time.sleep(0.2)


if __name__ == "__main__":
    main()

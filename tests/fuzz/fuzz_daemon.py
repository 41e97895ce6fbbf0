"""fuzz_daemon.py -- end-to-end fuzzer of a running ductiled over its Unix
socket (tests/controller/daemon-fuzz.sh runs it in each of the daemon's
modes).  Several peers at once: fake jobs that register (with host names
from the daemon's own `slots`, so that registrations pass the capacity
checks), stream samples and every kind of event (resize chains that follow
the job's size and ones that do not, hostile counts, I/O token traffic,
queues, departed processes), answer the daemon's commands with valid,
malformed or refused results or not at all, act on themselves and on other
jobs, register twice, take over without their key, exit or vanish
mid-line; clients that ask for every view and every command, with valid,
out-of-range and ill-typed members; and raw garbage (broken JSON, partial
and oversized lines, blank lines).  Every request kind of the protocol and
every event kind is sent (counted in the report).  After every burst the
daemon must be alive, and at intervals it must still answer `list`.
Bounded by time and by a number of messages.

usage: fuzz_daemon.py SOCKET DAEMON_PID SECONDS [SEED] [MAX_MESSAGES]
prints: executions (messages), per-kind counts, findings; exit 1 on a finding."""
import json, os, random, select, socket, sys, time

sock_path, dpid, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else int(time.time())
max_msgs = int(sys.argv[5]) if len(sys.argv) > 5 else 10 ** 12
rnd = random.Random(seed)
stats = {"messages": 0, "connections": 0, "findings": 0, "replies": 0, "bursts": 0}
by_cmd, by_event, by_error = {}, {}, {}
jobs_seen = [1]
HOSTS = ["localhost"]
SLOTS = [4]

PROCS_MAX = 65536
CMDS = ["hello", "auth", "list", "slots", "events", "drain", "shutdown", "status", "expand", "shrink", "resize", "io",
        "period", "cancel", "revoke", "cost", "fold", "unfold", "register", "sample", "submit", "queue", "heartbeat",
        "exit", "event"]
EVENTS = ["resized", "io_phase", "io_request", "io_release", "queue", "exited", "handover", "reconnect"]


def alive():
    try:
        os.kill(dpid, 0)
        return True
    except OSError:
        return False


def hostile():
    """A value of a wrong type or out of any range."""
    return rnd.choice([-1, 0, -2 ** 31, 2 ** 31, 2 ** 63 - 1, -2 ** 63, 2 ** 64, 1e308, -1e308, 0.5, float("nan") if False
                       else 1e-300, "", "x" * rnd.choice([1, 300, 5000]), "\x1b[2J\nforged line", "\u00e9\u4e2d", None,
                       True, [], {}, [1, 2], {"a": 1}, PROCS_MAX + 1, 4096, 65536])


def host():
    return rnd.choice(HOSTS)


def hostcounts(procs):
    """procs processes spread over the daemon's hosts within their slots (or, sometimes, not)."""
    if rnd.random() < 0.1:
        return [{"name": rnd.choice(["nosuchhost", "localhost", "a..b", host()]), "procs": rnd.randint(-1, 9)}]
    left, out = procs, {}
    for h, s in zip(HOSTS, SLOTS):
        if left <= 0:
            break
        n = min(left, s)
        if n > 0:
            out[h] = n
            left -= n
    if left > 0:  # more than the slots: refused
        out[HOSTS[0]] = out.get(HOSTS[0], 0) + left
    return [{"name": h, "procs": n} for h, n in out.items()]


def at_iter():
    return rnd.choice([None, 0, 10, 10 ** 6, 4 * 10 ** 18, -1])


class Peer:
    def __init__(self, role):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(2)
        self.s.connect(sock_path)
        self.s.setblocking(False)
        stats["connections"] += 1
        self.role, self.buf, self.rid, self.out = role, b"", 1, []
        self.job, self.key, self.size, self.parked, self.registered = 0, None, 1, 0, False
        self.tag, self.pid = "fz%d" % rnd.randint(0, 60), rnd.randint(1, 10 ** 6)
        self.answer = rnd.random() < 0.8
        # a truthful job (FUZZ_TRUTHFUL: the share of them) reports only the resizes the daemon
        # ordered, never as Open MPI: the Slurm placement stays known and hosts are given back
        self.truthful = role == "job" and rnd.random() < float(os.environ.get("FUZZ_TRUTHFUL", "0"))
        self.waiting = {}  # request id -> what it was (register)
        self.asked = 0.0

    def send(self, obj_or_bytes, now=True):
        """Queue a message; send what is queued when `now` (several messages in one write)."""
        if isinstance(obj_or_bytes, dict):
            line = json.dumps(obj_or_bytes).encode() + b"\n"
        else:
            line = obj_or_bytes
        self.out.append(line)
        stats["messages"] += 1
        return self.flush() if now or len(self.out) >= 16 else True

    def flush(self):
        if not self.out:
            return True
        data, self.out = b"".join(self.out), []
        try:
            self.s.setblocking(True)
            self.s.settimeout(2)
            self.s.sendall(data)
            self.s.setblocking(False)
        except OSError:
            return False
        return True

    def req(self, cmd, **kw):
        m = {"v": 1, "id": self.rid, "cmd": cmd}
        m.update({k: v for k, v in kw.items() if v is not None})
        self.rid += 1
        by_cmd[cmd] = by_cmd.get(cmd, 0) + 1
        return m

    def pump(self, wait=0.0):
        """Read what the daemon sent; as a job, answer its commands."""
        try:
            r = select.select([self.s], [], [], wait)[0]
            if not r:
                return True
            data = self.s.recv(1 << 20)
        except OSError:
            return False
        if not data:
            return False
        self.buf += data
        if len(self.buf) > (8 << 20):
            self.buf = b""
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if not isinstance(m, dict):
                continue
            if "ok" in m:
                stats["replies"] += 1
                if not m["ok"]:
                    by_error[m.get("error")] = by_error.get(m.get("error"), 0) + 1
                    if os.environ.get("FUZZ_DEBUG") and rnd.random() < 0.01:
                        print("debug:", m.get("error"), str(m.get("reason"))[:150])
                r = m.get("result") if isinstance(m.get("result"), dict) else {}
                what = self.waiting.pop(m.get("id"), None)
                if what == "register" and m["ok"] and isinstance(r.get("job"), int):
                    self.job, self.key, self.registered = r["job"], r.get("key"), True
                    if self.job not in jobs_seen and len(jobs_seen) < 300:
                        jobs_seen.append(self.job)
                elif what and what.startswith("resized:") and m["ok"]:
                    self.size = int(what.split(":")[1])
                continue
            if m.get("cmd") and m.get("cmd") != "hello" and isinstance(m.get("id"), int) and self.role == "job":
                self.answer_cmd(m)
        return True

    def answer_cmd(self, m):
        if not self.answer or rnd.random() < 0.1:
            return
        c, rid = m["cmd"], m["id"]
        k = rnd.random()
        if k < 0.15:
            self.send({"v": 1, "id": rid, "ok": False, "error": rnd.choice(["busy", "x" * 100]), "reason": "fuzz " * rnd.randint(0, 300)})
            return
        if c in ("expand", "shrink", "resize"):
            res = {"queued": True, "at_iteration": rnd.choice([-1, 5, 2 ** 62]), "id": rnd.randint(1, 40)}
        elif c == "revoke":
            res = {"revoked": m.get("what", "all"), "io_held": False,
                   "cancelled": [{"id": rnd.randint(1, 40), "op": "expand", "n": 1, "at_iteration": -1}] * rnd.randint(0, 2)}
        elif c == "io":
            res = {"io_held": m.get("action") == "hold", "granted": True}
        elif c in ("fold", "unfold"):
            res = {"queued": True, "cores": m.get("cores", 0), "hosts": 1, "host_ranks": self.size, "host_cpus": 4}
        elif c == "period":
            res = {"period": m.get("seconds", 1.0)}
        else:
            res = {}
        if k > 0.85:  # malformed results
            key = rnd.choice(list(res) or ["x"])
            res[key] = hostile()
        if k > 0.95:
            res["pad"] = "y" * rnd.randint(0, 60000)
        self.send({"v": 1, "id": rid, "ok": True, "result": res})
        n = m.get("n") if isinstance(m.get("n"), int) else 0
        if c in ("expand", "shrink") and 0 < n < 64 and k <= 0.85 and rnd.random() < 0.7:
            # as a real job: the resize happens, its event and a sample follow (the Slurm placement, give-back)
            frm, to = self.size, self.size + n if c == "expand" else self.size - n
            if to >= 1:
                ex = n if c == "shrink" and rnd.random() < 0.6 else 0
                ev = self.req("event", job=self.job, kind="resized",
                              details={"from": frm, "to": to, "op": c, "status": "ok", "exited": ex, "duration_s": 0.1})
                by_event["resized"] = by_event.get("resized", 0) + 1
                self.waiting[ev["id"]] = "resized:%d" % to
                self.send(ev)
                if c == "shrink":
                    self.parked += n - ex
                self.send(self.req("sample", job=self.job, t=time.time(), iteration=1, procs=to))

    # ---------------------------------------------------------------- messages

    def register(self, job=None, key=None):
        procs = rnd.choice([1, 1, 2, 3, 4, rnd.randint(1, 12)])
        hc = hostcounts(procs)
        m = self.req("register", tag=self.tag, pid=self.pid, binary=rnd.choice(["/bin/" + self.tag, "a\nb\x1b[31m", "x" * 4000]),
                     procs=procs, hosts=hc if rnd.random() < 0.9 else None, malleable=rnd.random() < 0.8,
                     mpi=rnd.choice(["mpich", "fake"] if self.truthful else ["mpich", "fake", "fake", "openmpi"]), start=time.time() - 10, uid=rnd.choice([os.getuid(), None, 4242]),
                     min_procs=rnd.choice([None, 1, 2]), max_procs=rnd.choice([None, 8, 64]), job=job, key=key)
        if rnd.random() < 0.5:
            m["rank_hosts"] = [h["name"] for h in hc for _ in range(max(0, min(h["procs"], 64)))]
        if rnd.random() < 0.3:
            m["pmix"] = {"nspace": "fz", "job_size": procs, "univ_size": procs + 2, "node_list": ",".join(HOSTS)}
        if len(self.waiting) > 64:
            self.waiting.clear()
        if rnd.random() < 0.2:
            m["arrays"] = [{"name": "a%d" % i, "elements": rnd.randint(0, 10 ** 9), "elem_size": 8} for i in range(rnd.randint(0, 4))]
        self.size, self.parked = procs, 0
        self.waiting[m["id"]] = "register"
        return m

    def event(self, kind):
        by_event[kind] = by_event.get(kind, 0) + 1
        d = {}
        if kind == "resized":
            op = rnd.choice(["expand", "shrink"])
            frm = self.size if rnd.random() < 0.7 else rnd.choice([self.size + 1, -5, 0, PROCS_MAX, rnd.randint(1, 8)])
            to = max(1, frm + rnd.randint(1, 3)) if op == "expand" else max(1, frm - rnd.randint(1, 3))
            if rnd.random() < 0.1:
                to = rnd.choice([0, -3, PROCS_MAX + 1, 10 ** 6, 2 ** 40])
            st = rnd.choice(["ok", "ok", "ok", "failed", "refused"])
            d = {"iteration": rnd.randint(-1, 10 ** 6), "from": frm, "to": to, "op": op, "status": st,
                 "reason": rnd.choice(["", "fuzz", "\nforged"]), "duration_s": rnd.random(), "spawn_s": rnd.random(),
                 "transfer_s": rnd.random(), "bytes_moved": rnd.randint(0, 10 ** 9)}
            if op == "shrink" and isinstance(frm, int) and isinstance(to, int) and frm > to:
                gone = frm - to
                d["exited"] = rnd.randint(0, gone) if rnd.random() < 0.9 else gone + 5
                d["standby"] = rnd.randint(0, gone - min(gone, d["exited"])) if rnd.random() < 0.9 else 7
            if rnd.random() < 0.2:
                d["persistent"] = rnd.choice(["prepared", "reused", "junk"])
            if rnd.random() < 0.3:
                d["command"] = rnd.choice([1, 2, 0, -1])
                d["method"] = rnd.choice(["merge", "baseline", "other"])
            m = self.req("event", job=self.job, kind=kind, details=d)
            if st == "ok":
                self.waiting[m["id"]] = "resized:%s" % to
                if op == "shrink" and isinstance(frm, int) and isinstance(to, int) and frm > to:
                    self.parked += max(0, frm - to - d.get("exited", 0) - d.get("standby", 0))
            return m
        if kind == "io_phase":
            d = {"start": time.time() - rnd.random() * 50, "duration_s": rnd.random() * 3, "io_s": rnd.random(),
                 "delay_s": rnd.random(), "bytes": rnd.randint(0, 10 ** 9), "calls": rnd.randint(0, 100),
                 "iteration": rnd.randint(-1, 1000), "procs": rnd.randint(1, 6)}
        elif kind == "io_request":
            d = {"iteration": rnd.randint(-1, 1000)}
        elif kind == "io_release":
            d = {"kept_s": rnd.choice([0, 0.3, 1.0, -1, 1e300])}
        elif kind == "queue":
            d = {"queued": [{"id": rnd.choice([1, 2, 3, -1, 2 ** 40]), "op": rnd.choice(["expand", "shrink", "resize", "x"]),
                             rnd.choice(["n", "to"]): rnd.choice([1, 2, 0, 70000]), "at_iteration": rnd.randint(-2, 100),
                             "list": rnd.choice(["", "1;2", "a" * 2000])} for _ in range(rnd.choice([0, 1, 3, 16, 17]))]}
        elif kind == "exited":
            n = rnd.randint(1, max(1, self.parked)) if rnd.random() < 0.8 else rnd.choice([10 ** 6, 0, -1])
            d = {"hosts": {host(): n}} if rnd.random() < 0.9 else {"hosts": {"h%d" % i: 1 for i in range(rnd.randint(0, 1100))}}
            if isinstance(n, int) and 0 < n <= self.parked:
                self.parked -= n
        elif kind == "handover":
            d = {"pid": rnd.choice([1, self.pid, 0]), "reason": rnd.choice(["rank 0 left", "\nforged"])}
        elif kind == "reconnect":
            d = {"reason": "no answer", "waited_s": rnd.choice([10.0, -1, 1e10])}
        else:
            d = {"anything": hostile()}
        return self.req("event", job=self.job, kind=kind, details=d)

    def sample(self):
        m = self.req("sample", job=self.job, t=time.time(), iteration=rnd.randint(0, 10 ** 6), procs=self.size,
                     iters=rnd.randint(0, 100), interval_s=rnd.random() * 2, compute_s=rnd.random(), comm_s=rnd.random(),
                     io_s=rnd.choice([0, rnd.random()]), bytes=rnd.randint(0, 10 ** 12), io_calls=rnd.randint(0, 100),
                     io_held=rnd.random() < 0.1, control_point=rnd.random() < 0.5, maxiter=rnd.choice([None, 10 ** 6]))
        if rnd.random() < 0.05:
            m["arrays"] = [{"name": "v", "elements": 100000, "elem_size": 8}]
        if rnd.random() < 0.05:  # members the daemon does not use: not kept
            m["padding"] = "p" * rnd.randint(0, 60000)
        return m

    def command(self, cmd):
        """A client command (also sent by jobs: on themselves or on others)."""
        j = self.job if (self.job and rnd.random() < 0.5) else rnd.choice(jobs_seen)
        if cmd == "expand":
            return self.req(cmd, job=j, n=rnd.choice([1, 1, 2, 3, 70000]), at_iteration=at_iter(),
                            hosts=[host()] * 1 if rnd.random() < 0.2 else None)
        if cmd == "shrink":
            return self.req(cmd, job=j, n=rnd.choice([1, 2]), at_iteration=at_iter(),
                            ranks=rnd.choice([None, [0], [1], [0, 1], [5000]]))
        if cmd == "resize":
            return self.req(cmd, job=j, to=rnd.randint(1, 6), at_iteration=at_iter())
        if cmd == "io":
            return self.req(cmd, job=j, action=rnd.choice(["hold", "release", "grant"]), seconds=rnd.choice([None, 0.5, 30]))
        if cmd == "period":
            return self.req(cmd, job=j, seconds=rnd.choice([0.01, 0.5, 3600]))
        if cmd == "cancel":
            return self.req(cmd, job=j, command=rnd.choice([None, 1, 2, 3]))
        if cmd == "revoke":
            return self.req(cmd, job=j, what=rnd.choice(["command", "hold", "token", "all"]), reason="fuzz")
        if cmd == "cost":
            return self.req(cmd, job=j, to=rnd.randint(1, 8))
        if cmd == "fold":
            return self.req(cmd, job=j, cores=rnd.randint(1, 4))
        if cmd == "unfold":
            return self.req(cmd, job=j)
        if cmd == "status":
            return self.req(cmd, job=j, history=rnd.choice([0, 5, 512]))
        if cmd == "events":
            return self.req(cmd, job=j, since=rnd.choice([None, 0, time.time() - 5]), max=rnd.choice([None, 1, 4096]))
        if cmd == "drain":
            return self.req(cmd, on=False if rnd.random() < 0.7 or self.role != "job" else True)
        if cmd == "submit":  # the fuzz daemons run --launcher true: nothing starts
            return self.req(cmd, argv=rnd.choice([["/bin/true"], ["x"] * 3, [""]]), n=rnd.randint(1, 3), min=rnd.choice([None, 1]),
                            max=rnd.choice([None, 4]), cwd=rnd.choice([None, "/", "/nonexistent"]))
        if cmd == "hello":
            return self.req(cmd, server="x", auth="peercred")
        if cmd == "auth":
            return self.req(cmd, nonce="ab" * 32, mac="cd" * 32)
        return self.req(cmd)

    def mutate(self, m):
        """One member hostile, or the bytes broken."""
        k = rnd.random()
        if k < 0.5:
            keys = [x for x in m if x not in ("v", "cmd")] or ["id"]
            m[rnd.choice(keys)] = hostile()
            return json.dumps(m).encode() + b"\n"
        if k < 0.6 and isinstance(m.get("details"), dict) and m["details"]:
            m["details"][rnd.choice(list(m["details"]))] = hostile()
            return json.dumps(m).encode() + b"\n"
        b = bytearray(json.dumps(m).encode())
        for _ in range(rnd.randint(1, 4)):
            op = rnd.randint(0, 7)
            if op == 0 and b:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            elif op == 1 and b:
                del b[rnd.randrange(len(b)):]
            elif op == 2:
                b[rnd.randrange(len(b) + 1):0] = rnd.choice([b"{", b"}", b"[", b"\"", b"\\u0000", b"\xff\xfe", b"\r"])
            elif op == 3:
                b += b"x" * rnd.choice([10, 70000])
            elif op == 4:
                b = bytearray(b"[" * 5000 + b"]" * 5000)
            elif op == 5:
                b = bytearray(b'{"v":1,"id":1,"cmd":"list","job":1,"job":2}')
            elif op == 6:
                b = bytearray(json.dumps({"v": rnd.choice([1, 2, "1"]), "id": rnd.choice([1, -1, None, "x"]),
                                          "ok": rnd.choice([True, False, None]), "result": hostile()}).encode())
            else:
                b = bytearray(b"")  # a blank line
        return bytes(b).replace(b"\n", b" ") + b"\n"

    def step(self):
        """One message from this peer."""
        if self.role == "job" and not self.registered:
            if "register" in self.waiting.values():
                if time.time() - self.asked < 2.0:
                    return self.pump(0.05)  # the registration's reply
                return False  # no reply in time: this connection's state is unknown, another replaces it
            if self.asked and rnd.random() < 0.5:
                return False  # refused: start afresh (a connection that has a job registers no other)
            m = self.register()
            self.asked = time.time()
        elif self.role == "job":
            k = rnd.random()
            if k < 0.35:
                m = self.sample()
            elif k < 0.75:
                kinds = [e for e in EVENTS if e != "resized"] if self.truthful else EVENTS + EVENTS + ["resized"] * 3
                m = self.event(rnd.choice(kinds + ["custom", "io_nosuch"]))
            elif k < 0.8:
                m = self.req("heartbeat", job=self.job)
            elif k < 0.86:  # act: on itself (allowed), on others, or on the daemon (refused)
                m = self.command(rnd.choice(["expand", "shrink", "io", "period", "cancel", "fold", "unfold", "status",
                                             "drain", "shutdown", "submit"]))
            elif k < 0.9:  # a second registration on this connection: another job (refused) or itself again
                m = self.register(job=rnd.choice([self.job, None, rnd.choice(jobs_seen)]),
                                  key=rnd.choice([self.key, None, "0" * 64]))
                self.waiting.pop(m["id"], None)
            elif k < 0.92:  # take over another job's registration from here (needs its key)
                m = self.req("register", tag=self.tag, pid=self.pid, binary="x", procs=1, job=rnd.choice(jobs_seen),
                             key=rnd.choice(["0" * 64, None]))
            elif k < 0.93:
                m = self.req("exit", job=self.job, status=rnd.choice([0, 1, -2 ** 31]))
                self.send(json.dumps(m).encode() + b"\n")
                return False  # a job's connection ends with its exit
            else:
                m = self.command(rnd.choice(CMDS))
        else:
            # an operator: everything but shutdown (it would end the run); submit rarely (--launcher true)
            c = rnd.choice([c for c in CMDS if c not in ("shutdown", "submit")] + ["list", "slots", "status", "status", "queue"])
            m = self.command("submit" if rnd.random() < 0.01 else c)
        awaited = self.waiting.get(m["id"]) == "register"  # a registration's reply is awaited: sent whole, at once
        if rnd.random() < 0.25 and not awaited:
            line = self.mutate(m)
        else:
            line = json.dumps(m).encode() + b"\n"
        if rnd.random() < 0.03 and not awaited:
            line = line[:rnd.randint(0, len(line))]  # a partial line
        if not self.send(line, now=awaited or rnd.random() < 0.1):
            return False
        return self.pump(0) if not self.out else True

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


SCALE = float(os.environ.get("TEST_TIME_SCALE", "1"))


def check():
    """The daemon answers `slots` within 10 s (times TEST_TIME_SCALE), at the
    third attempt at the latest (a starved sanitizer build is slow, a stuck
    daemon never answers)."""
    for attempt in range(3):
        if check_once():
            return True
        if not alive():
            return False
    return False


def check_once():
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10 * SCALE)
        s.connect(sock_path)
        f = s.makefile("rwb")
        f.readline()
        f.write(b'{"v":1,"id":1,"cmd":"slots"}\n')
        f.flush()
        for _ in range(5):
            m = json.loads(f.readline())
            if m.get("id") == 1:
                break
        s.close()
        if m.get("ok") is not True:
            return False
        hs = [h for h in m["result"]["hosts"] if h.get("state", "up") == "up"]
        if hs:
            HOSTS[:] = [h["name"] for h in hs]
            SLOTS[:] = [h["slots"] for h in hs]
        return True
    except (OSError, ValueError, KeyError):
        return False


if not check():
    print("FINDING: ductiled does not answer at the start")
    sys.exit(1)
end = time.time() + seconds
peers = []
last_check = 0
while time.time() < end and stats["messages"] < max_msgs:
    while len(peers) < 6:
        try:
            peers.append(Peer("job" if rnd.random() < 0.7 else "client"))
        except OSError:
            break
    stats["bursts"] += 1
    for _ in range(rnd.randint(20, 200)):
        if not peers:
            break
        p = rnd.choice(peers)
        if not p.step() or rnd.random() < 0.004:  # closed by the daemon, or vanishes
            peers.remove(p)
            p.close()
    for p in list(peers):
        if not p.flush() or not p.pump(0):
            peers.remove(p)
            p.close()
    if not alive():
        stats["findings"] += 1
        print("FINDING: ductiled died after %d messages (seed %d)" % (stats["messages"], seed))
        break
    if stats["messages"] - last_check > 3000:
        last_check = stats["messages"]
        if not check():
            if not alive():
                continue
            stats["findings"] += 1
            print("FINDING: ductiled did not answer after %d messages (seed %d)" % (stats["messages"], seed))
            break
for p in peers:
    p.close()
if not stats["findings"] and not check():
    stats["findings"] += 1
    print("FINDING: ductiled did not answer at the end (seed %d)" % seed)
rss = ""
try:
    for l in open("/proc/%d/status" % dpid):
        if l.startswith("VmHWM") or l.startswith("VmRSS"):
            rss += " " + " ".join(l.split())
except OSError:
    pass
missing = [c for c in CMDS if c not in by_cmd] + ["event " + k for k in EVENTS if k not in by_event]
print("fuzz_daemon: kinds sent: %s; events: %s; error replies: %s" %
      (json.dumps(by_cmd, sort_keys=True), json.dumps(by_event, sort_keys=True), json.dumps(by_error, sort_keys=True)))
if missing and stats["messages"] > 5000:
    stats["findings"] += 1
    print("FINDING: message kinds never sent: %s" % ", ".join(missing))
print("fuzz_daemon: seed %d, %d messages (executions), %d replies, %d connections, daemon%s, %d findings" %
      (seed, stats["messages"], stats["replies"], stats["connections"], rss, stats["findings"]))
sys.exit(1 if stats["findings"] else 0)

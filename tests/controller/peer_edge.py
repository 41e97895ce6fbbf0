"""peer_edge.py -- raw protocol peers for the tests of ductiled's edge
(issue 23: tests/controller/edge.sh, authority.sh, stream.sh): the HMAC
handshake and the MACs of the stream written again from docs/protocol.md
(HKDF, nonces, per-direction keys, sequence numbers), fake jobs that lie
about their size, hosts and counts, relays that inject messages after a
genuine handshake, floods.  Every socket has a timeout; every loop is
bounded.  usage: peer_edge.py FUNCTION ARGS..."""
import hashlib, hmac, json, os, select, socket, sys, threading, time


def H(key, msg):
    return hmac.new(key, msg, hashlib.sha256).digest()


def load_key(path):
    raw = open(path, "rb").read().rstrip(b"\r\n")
    prk = H(b"ductile-v1 hkdf salt", raw)
    return H(prk, b"ductile-v1 mac key\x01")


class Conn:
    """A client connection: hello, the HMAC handshake when given a key, then
    every message sealed (its MAC as the last member) and checked."""

    def __init__(self, addr, key=None, timeout=10):
        if isinstance(addr, int) or (isinstance(addr, str) and addr.isdigit()):
            self.s = socket.create_connection(("127.0.0.1", int(addr)), timeout=timeout)
        else:
            self.s = socket.socket(socket.AF_UNIX)
            self.s.settimeout(timeout)
            self.s.connect(addr)
        self.buf, self.rid, self.tx, self.rx = b"", 1, None, None
        self.ntx = self.nrx = 0
        self.hello = json.loads(self.readline())
        if key:
            ns = self.hello["nonce"]
            nc = os.urandom(32).hex()
            mac = H(key, ("ductile-v1 client %s %s" % (ns, nc)).encode()).hex()
            r = self.call("auth", nonce=nc, mac=mac)
            assert r["ok"], r
            want = H(key, ("ductile-v1 server %s %s" % (nc, ns)).encode()).hex()
            assert hmac.compare_digest(r["result"]["mac"], want), "the server did not prove itself"
            self.tx = H(key, ("ductile-v1 stream client-to-server %s %s" % (ns, nc)).encode())
            self.rx = H(key, ("ductile-v1 stream server-to-client %s %s" % (ns, nc)).encode())

    def readline(self, timeout=None):
        end = time.time() + (timeout if timeout is not None else self.s.gettimeout() or 10)
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.s], [], [], left)[0]:
                raise TimeoutError("no line")
            d = self.s.recv(1 << 20)
            if not d:
                raise EOFError("closed by the other side")
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        if self.rx:
            line = unseal(self.rx, self.nrx, line)
            self.nrx += 1
        return line

    def send_raw(self, data):
        self.s.sendall(data)

    def send(self, obj):
        line = json.dumps(obj).encode()
        if self.tx:
            line = seal(self.tx, self.ntx, line)
            self.ntx += 1
        self.s.sendall(line + b"\n")

    def request(self, cmd, **kw):
        m = {"v": 1, "id": self.rid, "cmd": cmd}
        m.update({k: v for k, v in kw.items() if v is not None})
        self.rid += 1
        self.send(m)
        return m["id"]

    def reply_to(self, rid, timeout=None):
        for _ in range(1000):
            m = json.loads(self.readline(timeout))
            if "ok" in m and m.get("id") in (rid, None):
                return m
        raise RuntimeError("no reply")

    def call(self, cmd, **kw):
        return self.reply_to(self.request(cmd, **kw))

    def close(self):
        self.s.close()


def seal(key, seq, line):
    t = H(key, seq.to_bytes(8, "big") + line).hex()
    return line[:-1] + (',"mac":"%s"}' % t).encode()


def unseal(key, seq, line):
    tail = len(',"mac":"') + 64 + 2
    assert line.endswith(b'"}') and line[-tail:-tail + 8] == b',"mac":"', "no MAC: %r" % line[:80]
    body = line[:-tail] + b"}"
    assert hmac.compare_digest(H(key, seq.to_bytes(8, "big") + body).hex().encode(), line[-tail + 8:-2]), "bad MAC"
    return body


def out(*a):
    print(*a)
    sys.stdout.flush()


def register(c, tag, procs, hosts=None, rank_hosts=None, job=None, key=None, uid=None, mpi="fake"):
    return c.call("register", tag=tag, pid=os.getpid(), binary="/bin/" + tag, procs=procs, hosts=hosts,
                  rank_hosts=rank_hosts, job=job, key=key, uid=uid, malleable=True, mpi=mpi)


def resized(c, job, frm, to, status="ok", **kw):
    d = {"status": status, "op": "expand" if to > frm else "shrink", "from": frm, "to": to}
    d.update(kw)
    return c.call("event", job=job, kind="resized", details=d)


# ---------------------------------------------------------------- edge.sh

def slurm_sizes(path):
    """ductiled --slurm (fake Slurm: fnode1..3, 4 CPUs each): the heap
    overflow of issue 23 (a resized event with from=-5, to=1 after an
    expansion by 6 left six pending slots) and its relatives are refused at
    the edge; a real chain of resizes is still followed (the job's slots
    stay where its processes are); a shrink that empties a host gives it
    back to Slurm (scontrol update in ductiled's private directory)."""
    job = Conn(path)
    r = register(job, "ov", 2, hosts=[{"name": "fnode1", "procs": 2}], rank_hosts=["fnode1", "fnode1"])
    j = r["result"]["job"]
    op = Conn(path)
    rid = op.request("expand", job=j, n=6)
    cmd = json.loads(job.readline())
    assert cmd["cmd"] == "expand" and cmd["n"] == 6, cmd
    job.send({"v": 1, "id": cmd["id"], "ok": True, "result": {"queued": True, "at_iteration": -1, "id": 1}})
    out("expand granted:", json.dumps(op.reply_to(rid)["result"]), "hosts", cmd.get("hosts"))
    for frm, to in ((-5, 1), (0, 8), (2, 0), (2, 65537), (2, 10 ** 9), (5, 8), (3, 2)):
        r = resized(job, j, frm, to)
        out("resized %s -> %s: %s %s" % (frm, to, r.get("error"), r.get("reason")))
    r = resized(job, j, 2, 1, status="ok", exited=9)
    out("resized 2 -> 1 exited 9: %s %s" % (r.get("error"), r.get("reason")))
    r = resized(job, j, 2, 3, status="ok", exited=1)
    out("resized 2 -> 3 exited 1: %s %s" % (r.get("error"), r.get("reason")))
    r = job.call("event", job=j, kind="exited", details={"hosts": {"fnode1": 5}})
    out("exited 5 of 0 parked: %s %s" % (r.get("error"), r.get("reason")))
    # the real expansion: 2 -> 8, then a shrink of the 4 ranks on fnode3 that all exit
    r = resized(job, j, 2, 8, duration_s=0.5)
    out("resized 2 -> 8: ok=%s" % r["ok"])
    st = op.call("status", job=j)["result"]
    out("slots after 2 -> 8:", json.dumps(st["slots"], sort_keys=True))
    rid = op.request("shrink", job=j, n=4)
    cmd = json.loads(job.readline())
    assert cmd["cmd"] == "shrink", cmd
    job.send({"v": 1, "id": cmd["id"], "ok": True, "result": {"queued": True, "at_iteration": -1, "id": 2}})
    op.reply_to(rid)
    out("shrink ranks:", cmd.get("ranks"))
    r = resized(job, j, 8, 4, exited=4, duration_s=0.2)
    out("resized 8 -> 4: ok=%s" % r["ok"])
    st = op.call("status", job=j)["result"]
    out("slots after 8 -> 4:", json.dumps(st["slots"], sort_keys=True))
    sl = op.call("slots")["result"]
    out("hosts:", json.dumps([[h["name"], h["state"]] for h in sl["hosts"]]))
    out("alive")
    time.sleep(float(os.environ.get("HOLD", "0")))


def one_job_per_connection(path):
    c = Conn(path)
    a = register(c, "first", 1)["result"]["job"]
    r = register(c, "second", 1)
    out("second job on the same connection:", r.get("error"), r.get("reason"))
    r = register(c, "first", 1, job=a)
    out("the same job again on its connection:", r["ok"], r.get("result", {}).get("job"))
    r = register(c, "other", 1, job=a)
    out("another tag under the same id on the connection:", r.get("error"))
    o = Conn(path)
    jobs = o.call("list")["result"]["jobs"]
    out("running jobs:", len([x for x in jobs if x["state"] == "running"]), "tags", sorted(x["tag"] for x in jobs))


def hosts_checked(path, slots):
    for hosts, procs in (([{"name": "nosuchhost", "procs": 1}], 1), ([{"name": "localhost", "procs": slots + 1}], slots + 1),
                         ([{"name": "localhost", "procs": 1}], 2), (None, slots + 1)):
        c = Conn(path)
        r = register(c, "h", procs, hosts=hosts)
        out("register %s procs %d: %s %s" % (json.dumps(hosts), procs, r.get("error"), r.get("reason")))
        c.close()
    c = Conn(path)
    r = register(c, "fits", slots, hosts=[{"name": "localhost", "procs": slots}])
    out("register on localhost within the slots: ok=%s" % r["ok"])
    j = r["result"]["job"]
    r = c.call("sample", job=j, t=time.time(), iteration=1, procs=slots * 1000)
    out("a sample of %d processes: %s %s" % (slots * 1000, r.get("error"), r.get("reason")))
    r = resized(c, j, slots, slots * 1000)
    out("resized to %d: %s" % (slots * 1000, r.get("error")))


def flood(path, jobs, samples, hold):
    """Jobs that send padded samples (members the daemon does not use),
    big events and re-registrations, as fast as they can."""
    pad = "p" * 40000  # a sample line of about 60 KiB (under the 64 KiB bound)
    conns = []
    for k in range(jobs):
        c = Conn(path)
        r = register(c, "flood%d" % k, 1)
        j, key = r["result"]["job"], r["result"].get("key")
        conns.append((c, j, key))
    for i in range(samples):
        for c, j, key in conns:
            c.send({"v": 1, "id": 1000 + i, "cmd": "sample", "job": j, "t": time.time(), "iteration": i, "procs": 1,
                    "iters": 1, "interval_s": 0.1, "padding": pad, "more": [pad[:1000]] * 20})
            if i % 4 == 0:
                c.send({"v": 1, "id": 900000 + i, "cmd": "event", "job": j, "kind": "io_phase",
                        "details": {"start": time.time(), "duration_s": 0.1, "padding": pad}})
            if i % 16 == 0 and not os.environ.get("FLOOD_NO_GHOST"):  # a second job on this connection: refused, no ghost
                c.send({"v": 1, "id": 800000 + i, "cmd": "register", "tag": "ghost%d" % i, "pid": 1, "binary": "g" * 4000,
                        "procs": 1})
        for c, j, key in conns:  # read the replies (the daemon drops peers that do not read)
            while True:
                try:
                    c.readline(0.0)
                except (TimeoutError, EOFError):
                    break
    for c, j, key in conns:  # every message answered: the daemon read them all
        r = c.call("heartbeat", job=j)
        assert r["ok"], r
    out("flooded")
    time.sleep(hold)


# ---------------------------------------------------------------- authority.sh

def job_on_other_job(path):
    a, b = Conn(path), Conn(path)
    ja = register(a, "ja", 1)["result"]["job"]
    jb = register(b, "jb", 1)["result"]["job"]
    for cmd, kw in (("expand", {"n": 1}), ("io", {"action": "hold"}), ("cancel", {}), ("fold", {"cores": 1}),
                    ("period", {"seconds": 1.0})):
        r = a.call(cmd, job=jb, **kw)
        out("job %d: %s on job %d: %s %s" % (ja, cmd, jb, r.get("error"), r.get("reason")))
    for cmd in ("drain", "shutdown"):
        r = a.call(cmd)
        out("job %d: %s: %s" % (ja, cmd, r.get("error")))
    rid = a.request("period", job=ja, seconds=2.0)
    m = json.loads(a.readline())  # the daemon forwards it to the job itself
    out("job %d: period on itself forwarded to it: %s" % (ja, m.get("cmd")))
    a.send({"v": 1, "id": m["id"], "ok": True, "result": {"period": 2.0}})
    out("job %d: period on itself: ok=%s" % (ja, a.reply_to(rid)["ok"]))
    c = Conn(path)
    r = c.call("io", job=jb, action="grant")
    out("client io grant: %s %s" % (r.get("error"), r.get("reason")))


def takeover(path):
    a = Conn(path)
    r = register(a, "owner", 1)
    j, key = r["result"]["job"], r["result"].get("key")
    m = Conn(path)  # tag and pid as `list` shows them, no key
    r = register(m, "owner", 1, job=j)
    out("take-over without the key: job %s (asked for %d), resumed %s" % (r["result"]["job"], j, r["result"]["resumed"]))
    n = Conn(path)
    r = register(n, "owner", 1, job=j, key="0" * 64)
    out("take-over with a wrong key: job %s, resumed %s" % (r["result"]["job"], r["result"]["resumed"]))
    o = Conn(path)
    r = register(o, "owner", 1, job=j, key=key)
    out("take-over with the job's key: job %s, resumed %s" % (r["result"]["job"], r["result"]["resumed"]))


def tcp_operators(port, secret, path):
    """Over TCP an operator names the user: the owner of a job or an
    administrator may act on it, nobody else; the stream is sealed."""
    key = load_key(secret)
    jc = Conn(port, key)  # a job over TCP that says it is uid 4242's
    r = register(jc, "tcpjob", 1, uid=4242)
    j = r["result"]["job"]
    uj = Conn(path)  # a job of the daemon's uid on the Unix socket
    u = register(uj, "unixjob", 1)["result"]["job"]
    for user, job in ((None, j), (4243, j), (4242, j), (4242, u), (0, u), (os.getuid(), j)):
        op = Conn(port, key)
        rid = op.request("period", job=job, seconds=1.5, user=user)
        target = jc if job == j else uj
        try:
            m = json.loads(target.readline(1.0))
            target.send({"v": 1, "id": m["id"], "ok": True, "result": {"period": 1.5}})
        except TimeoutError:
            pass
        r = op.reply_to(rid)
        out("tcp user %s on job %d (owner %s): %s %s" % (user, job, 4242 if job == j else os.getuid(),
                                                         "ok" if r["ok"] else r.get("error"), r.get("reason", "")))
        op.close()
    op = Conn(port, key)
    r = op.call("drain", on=False, user=4242)
    out("tcp user 4242 drain: %s" % r.get("error"))


def evil_binary(path, hold):
    c = Conn(path)
    r = register(c, "evil", 1)
    c2 = Conn(path)
    r = c2.call("register", tag="forger", pid=4, binary="x\nductiled 00:00:00: job 99 registered: FORGED\x1b[2J", procs=1)
    out("registered:", r["result"]["job"])
    time.sleep(hold)


def list_text(path):
    """ductiled writes list's jobs as text itself (src/daemon/jobs_list.c): the full list must say what
    status says (jansson's output) for every field, with strings that need escaping; brief only the
    table's fields; brief must be a boolean (the edge)."""
    odd = 'a"b\\c\nd\x1be\tf\u00e9/g'
    c = Conn(path)
    r = c.call("register", tag="odd", pid=os.getpid(), binary=odd, procs=2, uid=os.getuid(), start=1795761936.25,
               malleable=True, mpi="fake")
    assert r["ok"], r
    job = r["result"]["job"]
    c.call("sample", job=job, iteration=7, iters=3, interval_s=0.3, procs=2, compute_s=0.2, comm_s=0.05, io_s=0)
    cl = Conn(path)
    full = cl.call("list")
    st = cl.call("status", job=job, history=0)
    brief = cl.call("list", brief=True)
    bad = cl.call("list", brief=3)
    j = [x for x in full["result"]["jobs"] if x["job"] == job][0]
    s = st["result"]
    diff = []
    for k, v in j.items():
        if k == "age_s":
            continue
        if isinstance(v, float) or isinstance(s.get(k), float):
            if abs(v - s.get(k, 1e300)) > 1e-6 * max(1.0, abs(v)):
                diff.append((k, v, s.get(k)))
        elif s.get(k) != v:
            diff.append((k, v, s.get(k)))
    want = {"job", "tag", "pid", "binary", "state", "procs", "pending", "iteration", "iteration_s", "io_held", "age_s",
            "slots", "exit_status", "samples", "parked", "exited", "uid", "start"}
    out("full list: keys %s, differences from status %s, binary %s" % (
        "as jobs_summary" if set(j) == want else sorted(set(j) ^ want), diff or "none",
        "kept" if j["binary"] == odd.replace("\n", "?").replace("\x1b", "?").replace("\t", "?") or j["binary"] == s["binary"]
        else repr(j["binary"])))
    b = [x for x in brief["result"]["jobs"] if x["job"] == job][0]
    out("brief list: keys %s, values %s" % (
        sorted(b), "as the full list's" if all(j[k] == b[k] for k in b) else "differ"))
    out("brief 3: %s" % (bad.get("error")))


# ---------------------------------------------------------------- stream.sh

def relay(listen_port_file, target_port, inject, seconds):
    """A relay on the path between a client and ductiled's TCP port: it
    passes the handshake through untouched, then injects one message
    `inject` ('to-daemon' or 'to-client') and records what happens."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    ls.settimeout(seconds)
    with open(listen_port_file + ".tmp", "w") as f:
        f.write(str(ls.getsockname()[1]))
    os.rename(listen_port_file + ".tmp", listen_port_file)
    end = time.time() + seconds
    injected = 0
    while time.time() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            break
        d = socket.create_connection(("127.0.0.1", int(target_port)), timeout=5)
        lines = {"c2d": 0, "d2c": 0}
        stop = [False]

        def pump(src, dst, name):
            buf = b""
            nonlocal injected
            while not stop[0]:
                try:
                    r = select.select([src], [], [], 0.2)[0]
                    if not r:
                        continue
                    data = src.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    lines[name] += 1
                    try:
                        dst.sendall(line + b"\n")
                    except OSError:
                        return
                    # right after the handshake: the auth reply passed to the client (toward it,
                    # from this thread: it comes next), the auth passed to ductiled
                    # (to-job: later, when the job runs registered: after 2 more replies)
                    at = 4 if inject == "to-job" else 2
                    if not injected and inject in ("to-client", "to-job") and name == "d2c" and lines["d2c"] == at:
                        injected = 1
                        c.sendall(b'{"v":1,"id":9999,"cmd":"io","job":1,"action":"hold"}\n'
                                  b'{"v":1,"id":2,"ok":true,"result":{"jobs":[],"slots":{}}}\n')
                        out("relay: injected io hold (and a forged reply) toward the client")
                    elif not injected and inject == "to-daemon" and name == "c2d" and lines["c2d"] == 1:
                        injected = 1
                        d.sendall(b'{"v":1,"id":9999,"cmd":"drain","on":true,"user":0}\n')
                        out("relay: injected drain toward ductiled")
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        t1 = threading.Thread(target=pump, args=(c, d, "c2d"))
        t2 = threading.Thread(target=pump, args=(d, c, "d2c"))
        t1.start()
        t2.start()
        t1.join(max(0.1, end - time.time()))
        t2.join(max(0.1, end - time.time()))
        stop[0] = True
        out("relay: connection ended (%d lines to ductiled, %d to the client)" % (lines["c2d"], lines["d2c"]))
        c.close()
        d.close()
        if injected:
            break


def inject_to_daemon(port, secret):
    """After a genuine handshake: an unsealed message, a replayed one, an
    altered one; each closes the connection, nothing of it is done."""
    key = load_key(secret)

    def closed(c):
        try:
            m = json.loads(c.readline(5))
            more = c.readline(5)
            return "reply %s then %r" % (m.get("error"), more)
        except EOFError:
            return "closed"
        except (TimeoutError, AssertionError) as e:
            return "open (%s)" % e

    c = Conn(port, key)
    out("sealed list: ok=%s" % c.call("list")["ok"])
    c.send_raw(b'{"v":1,"id":77,"cmd":"drain","on":true,"user":0}\n')
    try:
        m = json.loads(c.readline(5))
        out("injected drain: %s %s" % (m.get("error"), m.get("reason")))
        c.readline(5)
        out("injected drain: connection still open")
    except EOFError:
        out("injected drain: connection closed")
    c = Conn(port, key)
    line = seal(c.tx, c.ntx, json.dumps({"v": 1, "id": 5, "cmd": "list"}).encode()) + b"\n"
    c.ntx += 1
    c.send_raw(line)
    m = json.loads(c.readline(5))
    out("sealed list once: ok=%s" % m["ok"])
    c.send_raw(line)  # the same bytes again: a replay
    out("replayed: %s" % closed(c))
    c = Conn(port, key)
    line = seal(c.tx, c.ntx, json.dumps({"v": 1, "id": 6, "cmd": "drain", "on": False, "user": 0}).encode())
    altered = line.replace(b'"on": false', b'"on": true ')  # changed on the way
    assert altered != line
    c.send_raw(altered + b"\n")
    out("altered: %s" % closed(c))
    c = Conn(port, key)
    out("draining after all that: %s" % c.call("list")["result"]["draining"])
    c.call("drain", on=False, user=0)


def unauth_hold(port, n, seconds, result_file):
    """Hold n unauthenticated TCP connections open for `seconds`, or until
    result_file.stop exists (opening a new one whenever the daemon drops
    one); report how many are open, were opened and were dropped."""
    socks, dropped, opened = [], 0, 0
    end = time.time() + seconds
    while time.time() < end and not os.path.exists(result_file + ".stop"):
        while len(socks) < n:
            try:
                socks.append(socket.create_connection(("127.0.0.1", int(port)), timeout=5))
                opened += 1
            except OSError:
                time.sleep(0.05)
                break
        # reported after the refill: the daemon drops them all at once when
        # they reach their 5 s without authentication, and they come back at once
        with open(result_file + ".tmp", "w") as f:
            f.write("%d %d %d\n" % (len(socks), opened, dropped))
        os.rename(result_file + ".tmp", result_file)
        r = select.select(socks, [], [], 0.2)[0]
        for s in r:
            try:
                d = s.recv(65536)
            except OSError:
                d = b""
            if not d:
                socks.remove(s)
                s.close()
                dropped += 1
    for s in socks:
        s.close()


def unauth_input(port):
    """Before authentication only `auth` is read: a reply, a blank line or
    a command closes the connection."""
    for what, data in (("a reply", b'{"v":1,"id":0,"ok":true,"result":{}}\n'), ("a blank line", b"\n"),
                       ("a command", b'{"v":1,"id":1,"cmd":"list"}\n')):
        s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
        s.recv(65536)  # hello
        s.sendall(data)
        got = b""
        try:
            while True:
                d = s.recv(65536)
                if not d:
                    break
                got += d
            out("%s before authentication: connection closed%s" % (what, " (%s)" % got.strip().decode()[:80] if got else ""))
        except socket.timeout:
            out("%s before authentication: connection still open" % what)
        s.close()


if __name__ == "__main__":
    fn = globals()[sys.argv[1]]
    fn(*[int(a) if a.lstrip("-").isdigit() else a for a in sys.argv[2:]])

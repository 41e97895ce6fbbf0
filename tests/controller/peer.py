"""peer.py -- raw protocol peers for the controller's adversarial tests
(tests/controller/security.sh): fake jobs, floods, a fake server.  Every
socket has a timeout; every loop is bounded."""
import json, os, socket, sys, threading, time

def hold_until_closed(s, seconds):
    """Keep a peer connected until the daemon closes it or `seconds` pass."""
    end = time.time() + seconds
    while time.time() < end:
        try:
            s.settimeout(max(0.1, end - time.time()))
            if not s.recv(65536):
                return
        except socket.timeout:
            return
        except OSError:
            return

def connect(path, timeout=10):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    f = s.makefile("rwb")
    hello = json.loads(f.readline())
    assert hello["cmd"] == "hello", hello
    return s, f

def call(f, obj):
    f.write(json.dumps(obj).encode() + b"\n"); f.flush()
    for _ in range(100):
        m = json.loads(f.readline())
        if "ok" in m and m.get("id") == obj.get("id"):
            return m
    raise RuntimeError("no reply")

KEYS = {}  # job -> the key ductiled gave at registration (a take-over must show it)

def register(f, tag, pid, procs=2, job=None, rid=1):
    req = {"v": 1, "id": rid, "cmd": "register", "tag": tag, "pid": pid, "binary": "/bin/" + tag, "procs": procs}
    if job: req["job"] = job
    if job in KEYS: req["key"] = KEYS[job]
    r = call(f, req)
    assert r["ok"], r
    KEYS[r["result"]["job"]] = r["result"].get("key")
    return r["result"]["job"]

def many_exited(path, n, crash_tag):
    """A job registers first (the oldest), n jobs register and exit, then the
    first one vanishes without an exit message: the table is pruned just as
    it is marked crashed."""
    cs, cf = connect(path)
    cj = register(cf, crash_tag, 4242)
    for k in range(n):
        s, f = connect(path)
        j = register(f, "done%d" % k, 1000 + k)
        assert call(f, {"v": 1, "id": 2, "cmd": "exit", "job": j, "status": 0})["ok"]
        s.close()
    cs.close()
    print(cj)

def big_history(path):
    s, f = connect(path)
    j = register(f, "big", 777)
    for k in range(600):
        f.write(json.dumps({"v": 1, "id": 10 + k, "cmd": "sample", "job": j, "t": 1.7e9 + k / 3.0, "iteration": k,
                            "procs": 2, "iters": 1, "interval_s": 0.123456789012345, "compute_s": 0.1111111111111,
                            "comm_s": 0.0123456789012, "io_s": 0.0001234567890123, "bytes": 9000000000000000000,
                            "io_calls": 9000000000000000000, "dropped": 9000000000000000000}).encode() + b"\n")
    f.flush()
    for k in range(600):
        assert json.loads(f.readline())["ok"]
    print(j)
    sys.stdout.flush()
    hold_until_closed(s, float(os.environ.get("HOLD", "30")))  # keep the job registered while the test asks

def flood_tcp(port, n, hold):
    socks = []
    refused = 0
    for _ in range(n):
        try:
            c = socket.create_connection(("127.0.0.1", port), timeout=5)
            socks.append(c)
        except OSError:
            refused += 1
    time.sleep(0.5)
    alive = 0
    for c in socks:  # a refused one is closed by the daemon right away
        try:
            c.settimeout(0.05)
            d = c.recv(65536)
            alive += 1 if d else 0
        except socket.timeout:
            alive += 1
        except OSError:
            pass
    print("opened", len(socks), "alive", alive)
    sys.stdout.flush()
    time.sleep(min(hold, 30))

def flood_sender(path, seconds):
    """Send replies nobody asked for as fast as possible (the daemon answers nothing)."""
    s, f = connect(path)
    line = (json.dumps({"v": 1, "id": 5, "ok": True, "result": {"pad": "x" * 200}}) + "\n").encode() * 200
    end = time.time() + seconds
    sent = 0
    s.settimeout(1)
    while time.time() < end:
        try:
            sent += s.send(line)
        except socket.timeout:
            pass
        except OSError:
            break
    print("sent", sent)

def half_open(path):
    a, fa = connect(path)
    j = register(fa, "half", 5151)
    # connection a stays open and silent (its peer "vanished"); the job comes back on b
    b, fb = connect(path)
    r = call(fb, {"v": 1, "id": 1, "cmd": "register", "tag": "half", "pid": 5151, "binary": "/bin/half", "procs": 2, "job": j,
                  "key": KEYS[j]})
    print(json.dumps(r))

def lease(path, wait_s):
    a, fa = connect(path)
    ja = register(fa, "holder", 6001)
    b, fb = connect(path)
    jb = register(fb, "waiter", 6002)
    fa.write(json.dumps({"v": 1, "id": 2, "cmd": "event", "job": ja, "kind": "io_request"}).encode() + b"\n"); fa.flush()
    got = None
    for _ in range(5):
        m = json.loads(fa.readline())
        if m.get("cmd") == "io" and m.get("action") == "grant":
            got = m; break
    assert got, "holder never granted"
    # the holder now goes silent; the waiter asks
    fb.write(json.dumps({"v": 1, "id": 2, "cmd": "event", "job": jb, "kind": "io_request"}).encode() + b"\n"); fb.flush()
    b.settimeout(wait_s)
    try:
        for _ in range(10):
            m = json.loads(fb.readline())
            if m.get("cmd") == "io" and m.get("action") == "grant":
                print("waiter granted"); return
    except socket.timeout:
        pass
    print("waiter never granted")

def lease_revoke(path, wait_s):
    """The holder keeps the token past the lease: ductiled revokes it (a
    "revoke" request, what=token), the holder acknowledges, the waiter gets it."""
    a, fa = connect(path)
    ja = register(fa, "holder", 6101)
    b, fb = connect(path)
    jb = register(fb, "waiter", 6102)
    _send(fa, {"v": 1, "id": 2, "cmd": "event", "job": ja, "kind": "io_request"})
    assert _wait_cmd(a, fa, "io", wait_s), "holder never granted"
    _send(fb, {"v": 1, "id": 2, "cmd": "event", "job": jb, "kind": "io_request"})
    rv = _wait_cmd(a, fa, "revoke", wait_s)
    if not rv:
        print("holder: no revoke"); return
    print("holder got revoke: %s (%s)" % (rv.get("what"), rv.get("reason")))
    _send(fa, {"v": 1, "id": rv["id"], "ok": True, "result": {"revoked": rv["what"], "io_held": False}})
    g = _wait_cmd(b, fb, "io", wait_s)
    print("waiter granted" if g and g.get("action") == "grant" else "waiter never granted")
    # the acknowledgement is recorded: a "revoked" event of the holder
    c, fc = connect(path)
    for k in range(int(wait_s * 10)):
        ev = call(fc, {"v": 1, "id": 10 + k, "cmd": "events", "job": ja})["result"]["events"]
        if any(e["kind"] == "revoked" for e in ev):
            print("revoke acknowledged: " + json.dumps([e for e in ev if e["kind"] == "revoked"][0]))
            break
        time.sleep(0.1)
    sys.stdout.flush()

def fake_server(port_file, mode, seconds):
    """A server that says it needs no authentication; records what it gets."""
    if mode == "tcp":
        ls = socket.socket(); ls.bind(("127.0.0.1", 0)); addr = str(ls.getsockname()[1])
    else:
        ls = socket.socket(socket.AF_UNIX); ls.bind(mode); addr = mode
    ls.listen(4); ls.settimeout(seconds)
    with open(port_file, "w") as pf: pf.write(addr)
    try:
        c, _ = ls.accept()
    except socket.timeout:
        print("no client"); return
    c.settimeout(3)
    c.sendall(b'{"v":1,"id":0,"cmd":"hello","server":"ductiled","version":"x","auth":"peercred"}\n')
    data = b""
    try:
        while len(data) < 65536:
            d = c.recv(4096)
            if not d: break
            data += d
    except socket.timeout:
        pass
    cmds = [json.loads(l).get("cmd") for l in data.splitlines() if l.strip()]
    print("received", cmds)


def _send(f, obj):
    f.write(json.dumps(obj).encode() + b"\n"); f.flush()

def _wait_cmd(s, f, cmd, seconds):
    """Read until a request `cmd` arrives (acking nothing else); None on timeout/EOF."""
    s.settimeout(seconds)
    try:
        for _ in range(1000):
            l = f.readline()
            if not l: return None
            m = json.loads(l)
            if m.get("cmd") == cmd: return m
    except (socket.timeout, OSError):
        return None
    return None

def _phase(f, j, start, it, rid):
    _send(f, {"v": 1, "id": rid, "cmd": "sample", "job": j, "t": 1.0 + start, "iteration": it + 5, "procs": 2,
              "iters": 100, "interval_s": 10.0, "io_s": 0.0, "control_point": True})
    _send(f, {"v": 1, "id": rid + 1, "cmd": "event", "job": j, "kind": "io_phase",
              "details": {"start": start, "duration_s": 2.0, "iteration": it, "procs": 2}})

def policy(path, mode, before):
    """Two jobs whose I/O phases collide (period 10 s, 2 s long, 1 s apart) under
    --io-policy phase-shift, after `before` other jobs went through the policy."""
    for k in range(before):
        s, f = connect(path)
        j = register(f, "prior%d" % k, 3000 + k)
        _phase(f, j, 0.0, 0, 2)
        assert call(f, {"v": 1, "id": 9, "cmd": "exit", "job": j, "status": 0})["ok"]
        s.close()
    sa, fa = connect(path)
    a = register(fa, "pa", 7001)
    call(fa, {"v": 1, "id": 2, "cmd": "register", "tag": "pa", "pid": 7001, "binary": "/bin/pa", "procs": 2,
              "malleable": True, "job": a})
    sb, fb = connect(path)
    b = register(fb, "pb", 7002)
    call(fb, {"v": 1, "id": 2, "cmd": "register", "tag": "pb", "pid": 7002, "binary": "/bin/pb", "procs": 2,
              "malleable": True, "job": b})
    for k in range(3):
        _phase(fb, b, 1.0 + 10 * k, 100 * k, 10 + 2 * k)
    time.sleep(0.3)
    for k in range(3):
        _phase(fa, a, 0.0 + 10 * k, 100 * k, 10 + 2 * k)
    e = _wait_cmd(sa, fa, "expand", 5)
    print("plan1", json.dumps(e)); sys.stdout.flush()
    if not e: return
    if mode == "refuse":
        _send(fa, {"v": 1, "id": e["id"], "ok": False, "error": "busy", "reason": "a reconfiguration is in progress"})
        time.sleep(0.3)
        _phase(fb, b, 31.0, 300, 40)
        time.sleep(0.3)
        _phase(fa, a, 30.0, 300, 40)
        e2 = _wait_cmd(sa, fa, "expand", 5)
        print("plan2", json.dumps(e2))
    elif mode == "restart":
        _send(fa, {"v": 1, "id": e["id"], "ok": True, "result": {"queued": True}})
        print("expanded"); sys.stdout.flush()
        sa.settimeout(60)
        try:
            while fa.readline(): pass  # until the daemon goes away
        except OSError:
            pass
        for _ in range(300):
            try:
                sa, fa = connect(path); break
            except OSError:
                time.sleep(0.1)
        r = call(fa, {"v": 1, "id": 1, "cmd": "register", "tag": "pa", "pid": 7001, "binary": "/bin/pa", "procs": 3,
                      "malleable": True, "job": a, "key": KEYS[a]})
        sh = _wait_cmd(sa, fa, "shrink", 5)
        print("after restart", json.dumps(r["result"]), "shrink", json.dumps(sh))

def evil(path, hold):
    """A job whose program name carries terminal escape sequences."""
    s, f = connect(path)
    r = call(f, {"v": 1, "id": 1, "cmd": "register", "tag": "evil", "pid": 8008, "binary": "/bin/\x1b[2J\x1b]0;owned\x07x",
                 "procs": 1, "uid": os.getuid(), "start": time.time() - 60})
    print(r["result"]["job"] if r["ok"] else json.dumps(r)); sys.stdout.flush()
    hold_until_closed(s, hold)

def expand_hosts(path, hold):
    """A malleable job at a control point that prints the hosts of each expand it
    is sent and queues it (tests/controller/operator.sh: expand --hosts names)."""
    s, f = connect(path)
    j = register(f, "hosts", 8118, procs=1)
    call(f, {"v": 1, "id": 2, "cmd": "register", "tag": "hosts", "pid": 8118, "binary": "/bin/hosts", "procs": 1,
             "malleable": True, "job": j, "key": KEYS[j]})
    _send(f, {"v": 1, "id": 3, "cmd": "sample", "job": j, "t": time.time(), "iteration": 1, "procs": 1,
              "iters": 1, "interval_s": 0.1, "control_point": True})
    print(j); sys.stdout.flush()
    end = time.time() + hold
    while time.time() < end:
        e = _wait_cmd(s, f, "expand", max(0.1, end - time.time()))
        if not e: return
        print("expand hosts", json.dumps(e.get("hosts"))); sys.stdout.flush()
        _send(f, {"v": 1, "id": e["id"], "ok": True, "result": {"queued": True}})

def try_register(path):
    s, f = connect(path)
    r = call(f, {"v": 1, "id": 1, "cmd": "register", "tag": "late", "pid": 9009, "binary": "/bin/late", "procs": 1})
    print(json.dumps(r))

def timeline(path, hold):
    """A job with a long run: 700 samples, a resize 2 -> 4 half-way, I/O every 10th sample."""
    s, f = connect(path)
    j = register(f, "tl", 4545)
    t0 = time.time() - 700
    for k in range(700):
        procs = 2 if k < 350 else 4
        io = 0.05 if k % 10 == 0 else 0.0
        _send(f, {"v": 1, "id": 10 + k, "cmd": "sample", "job": j, "t": t0 + k, "iteration": 10 * k, "procs": procs,
                  "iters": 10, "interval_s": 1.0 if procs == 2 else 0.5, "io_s": io, "control_point": True})
        if k % 10 == 0:
            _send(f, {"v": 1, "id": 5000 + k, "cmd": "event", "job": j, "kind": "io_phase",
                      "details": {"start": t0 + k - 0.05, "duration_s": 0.05, "iteration": 10 * k, "procs": procs}})
        if k == 350:
            _send(f, {"v": 1, "id": 9000, "cmd": "event", "job": j, "kind": "resized",
                      "details": {"status": "ok", "op": "expand", "from": 2, "to": 4, "iteration": 3500, "duration_s": 0.4}})
    for _ in range(700 + 71):
        f.readline()
    print(j); sys.stdout.flush()
    hold_until_closed(s, hold)

if __name__ == "__main__":
    fn = globals()[sys.argv[1]]
    args = [int(a) if a.isdigit() else a for a in sys.argv[2:]]
    fn(*args)

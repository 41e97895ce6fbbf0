"""fuzz_daemon.py -- end-to-end fuzzer of a running ductiled over its Unix
socket: sequences of valid, mutated and adversarial messages from several
connections at once (fake jobs that register, stream samples and I/O
events, answer or ignore the daemon's commands, vanish mid-line; clients
that ask for views and resizes of random jobs), checking after every
sequence that the daemon is alive and still answers.  Bounded in time;
Unix socket only.

usage: fuzz_daemon.py SOCKET DAEMON_PID SECONDS [SEED]
prints: sequences, messages, findings; exit 1 on a finding."""
import json, os, random, socket, sys, time

sock_path, dpid, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
rnd = random.Random(seed)
stats = {"sequences": 0, "messages": 0, "connections": 0, "findings": 0}
jobs_seen = [1]

def alive():
    try:
        os.kill(dpid, 0)
        return True
    except OSError:
        return False

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(sock_path)
    stats["connections"] += 1
    return s

def rstr():
    pool = ["", "a", "x" * rnd.randint(1, 5000), "\x1b[2J", "\u00e9\u4e2d", "../../etc", "job 1", "a,b;c",
            "\ud800" if False else "\u0000x", "9" * 40]
    return rnd.choice(pool)

def rnum():
    return rnd.choice([0, -1, 1, 2, 3, 7, 2**31 - 1, 2**31, 2**63 - 1, -2**63, 1e308, -1e308, 0.5, 1e-300, 4096, 65536,
                       65537, rnd.randint(-10, 100), rnd.random() * 100])

def rval(depth=0):
    k = rnd.randint(0, 7 if depth < 3 else 4)
    if k == 0: return rnum()
    if k == 1: return rstr()
    if k == 2: return rnd.choice([True, False, None])
    if k == 3: return rnd.choice(jobs_seen)
    if k == 4: return rnd.choice(["hold", "release", "grant", "io_request", "io_release", "io_phase", "resized"])
    if k == 5: return [rval(depth + 1) for _ in range(rnd.randint(0, 5))]
    if k == 6: return {rstr()[:10] or "k": rval(depth + 1) for _ in range(rnd.randint(0, 4))}
    return {"name": "n%d" % rnd.randint(0, 9), "procs": rnd.randint(-1, 5), "elements": rnum(), "elem_size": rnum()}

CMDS = ["register", "sample", "heartbeat", "exit", "event", "list", "slots", "status", "cost", "expand", "shrink",
        "resize", "io", "period", "events", "drain", "auth", "hello", "cancel", "revoke", "nosuch"]
KEYS = ["job", "tag", "pid", "binary", "procs", "hosts", "arrays", "malleable", "t", "iteration", "iters", "interval_s",
        "io_s", "compute_s", "comm_s", "bytes", "kind", "details", "status", "n", "to", "at_iteration", "ranks", "action",
        "seconds", "history", "since", "max", "on", "nonce", "mac", "start", "uid", "command", "what", "queued"]

def valid_msg(rid, job, tag, pid):
    c = rnd.choice(["register", "sample", "event", "event", "list", "status", "events", "cost", "expand", "shrink",
                    "io", "period", "heartbeat", "drain", "cancel"])
    m = {"v": 1, "id": rid, "cmd": c}
    if c == "register":
        m.update(tag=tag, pid=pid, binary="/bin/" + tag, procs=rnd.randint(1, 4), malleable=rnd.random() < 0.7)
        if rnd.random() < 0.5: m["job"] = job
        if rnd.random() < 0.3: m["hosts"] = [{"name": "localhost", "procs": rnd.randint(1, 3)}]
    elif c == "sample":
        m.update(job=job, t=time.time(), iteration=rnd.randint(0, 10**6), procs=rnd.randint(1, 6), iters=rnd.randint(0, 100),
                 interval_s=rnd.random() * 10, io_s=rnd.choice([0, rnd.random()]))
    elif c == "event":
        k = rnd.choice(["io_request", "io_release", "io_phase", "resized", "queue", "custom"])
        m.update(job=job, kind=k)
        if k == "io_phase":
            m["details"] = {"start": time.time() - rnd.random() * 50, "duration_s": rnd.random() * 3,
                            "iteration": rnd.randint(0, 1000), "procs": rnd.randint(1, 6)}
        elif k == "io_release":  # the tail the job measured: hostile values too
            m["details"] = {"kept_s": rnd.choice([0, 0.3, 1.0, -1, 1e300, -1e300, 2**70, "x", None, [], {}])}
        elif k == "queue":
            m["details"] = {"queued": [{"id": rnd.choice([1, 2, -1, 2**40]), "op": rnd.choice(["expand", "shrink", "resize", "x"]),
                                        rnd.choice(["n", "to"]): rnd.choice([1, 0, 70000]), "at_iteration": rnd.randint(-2, 100),
                                        "reserved": rnd.randint(-1, 3)} for _ in range(rnd.choice([0, 1, 3, 17]))]}
        elif k == "resized":
            m["details"] = {"status": rnd.choice(["ok", "failed"]), "op": rnd.choice(["expand", "shrink"]),
                            "from": rnd.randint(1, 4), "to": rnd.randint(1, 6)}
    elif c in ("status", "events", "cost", "expand", "shrink", "io", "period", "cancel"):
        m["job"] = rnd.choice(jobs_seen + [job])
        if c == "status": m["history"] = rnd.choice([0, 5, 512, 4096])
        if c == "cost": m["to"] = rnd.randint(1, 8)
        if c in ("expand", "shrink"): m["n"] = rnd.randint(1, 3)
        if c == "io": m["action"] = rnd.choice(["hold", "release"])
        if c == "period": m["seconds"] = rnd.choice([0.01, 0.5, 3600])
        if c == "cancel" and rnd.random() < 0.5: m["command"] = rnd.randint(1, 3)
    elif c == "drain":
        m["on"] = False
    return m

def mutate(line):
    b = bytearray(line)
    for _ in range(rnd.randint(1, 6)):
        op = rnd.randint(0, 6)
        if op == 0 and b: b[rnd.randrange(len(b))] = rnd.randrange(256)
        elif op == 1 and b: del b[rnd.randrange(len(b)):]
        elif op == 2: b[rnd.randrange(len(b) + 1):0] = rnd.choice([b"{", b"}", b"[", b"\"", b"\\u0000", b"\xff\xfe", b"\n", b"\r\n"])
        elif op == 3: b += b"x" * rnd.choice([10, 70000])
        elif op == 4: b = bytearray(b"[" * 5000 + b"]" * 5000)
        elif op == 5: b = bytearray(json.dumps({rnd.choice(KEYS): rval(), "v": rnd.choice([1, 2, "1"]), "id": rnum(),
                                                "cmd": rnd.choice(CMDS)}).encode())
        else: b = bytearray(b'{"v":1,"id":1,"cmd":"list","job":1,"job":2}')
    return bytes(b).replace(b"\n", b" ") + b"\n"

def drain_in(s, answer):
    """Read what the daemon sent; as a job, answer its commands (or not)."""
    try:
        s.settimeout(0.02)
        data = s.recv(1 << 20)
    except (socket.timeout, BlockingIOError):
        return True
    except OSError:
        return False
    if not data:
        return False
    for l in data.splitlines():
        try:
            m = json.loads(l)
        except ValueError:
            continue
        r = m.get("result")
        if isinstance(r, dict) and isinstance(r.get("job"), int) and r["job"] not in jobs_seen and len(jobs_seen) < 200:
            jobs_seen.append(r["job"])
        if answer and "cmd" in m and m.get("cmd") != "hello" and isinstance(m.get("id"), int):
            rep = {"v": 1, "id": m["id"], "ok": rnd.random() < 0.6}
            if rep["ok"]: rep["result"] = {"queued": True, "io_held": rnd.random() < 0.5}
            else: rep.update(error="busy", reason="fuzz")
            try:
                s.sendall(json.dumps(rep).encode() + b"\n")
            except OSError:
                return False
    return True

def sequence():
    peers = []
    for k in range(rnd.randint(1, 4)):
        try:
            peers.append([conn(), rnd.randint(1, 10**6), "fz%d" % rnd.randint(0, 50), rnd.choice(jobs_seen + [0]),
                          rnd.random() < 0.7])
        except OSError:
            pass
    for step in range(rnd.randint(1, 40)):
        if not peers: break
        p = rnd.choice(peers)
        s, pid, tag, job, answer = p
        m = valid_msg(step + 1, job or 1, tag, pid)
        line = json.dumps(m).encode() + b"\n"
        if rnd.random() < 0.35: line = mutate(line)
        if rnd.random() < 0.1: line = line[:rnd.randint(0, len(line))]  # a partial line
        try:
            s.sendall(line)
            stats["messages"] += 1
        except OSError:
            peers.remove(p); s.close(); continue
        if not drain_in(s, answer):
            peers.remove(p); s.close(); continue
        if rnd.random() < 0.05:  # vanish
            peers.remove(p); s.close()
    for p in peers:
        if rnd.random() < 0.5:
            drain_in(p[0], p[4])
        p[0].close()

def check():
    try:
        s = conn()
        f = s.makefile("rwb")
        f.readline()
        f.write(b'{"v":1,"id":1,"cmd":"list"}\n'); f.flush()
        s.settimeout(10)
        for _ in range(5):
            m = json.loads(f.readline())
            if m.get("id") == 1: break
        s.close()
        return m.get("ok") is True
    except (OSError, ValueError):
        return False

end = time.time() + seconds
while time.time() < end:
    sequence()
    stats["sequences"] += 1
    if not alive():
        stats["findings"] += 1
        print("FINDING: ductiled died after sequence %d (seed %d)" % (stats["sequences"], seed))
        break
    if stats["sequences"] % 20 == 0 and not check():
        if not alive(): continue
        stats["findings"] += 1
        print("FINDING: ductiled did not answer list after sequence %d (seed %d)" % (stats["sequences"], seed))
        break
if not stats["findings"] and not check():
    stats["findings"] += 1
    print("FINDING: ductiled did not answer at the end (seed %d)" % seed)
print("fuzz_daemon: seed %d, %d sequences, %d messages, %d connections, %d findings" %
      (seed, stats["sequences"], stats["messages"], stats["connections"], stats["findings"]))
sys.exit(1 if stats["findings"] else 0)

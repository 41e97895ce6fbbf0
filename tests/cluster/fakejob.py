"""fakejob.py -- a ductile job without MPI, for tests/cluster/slurm.sh: it
speaks the job side of the protocol (docs/protocol.md) to a ductiled, runs
"processes" on the hosts it is told (rank_hosts at registration, the hosts of
each expansion), answers expand/shrink at once with a "resized" event and a
sample, and, EXIT_DELAY seconds after a shrink, reports the processes that
left as exited ({"kind": "exited", "details": {"hosts": {HOST: n}}}), as a
job does whose departed processes end (issue 10 item 6).  Every wait is
bounded: it stops after SECONDS or when STOPFILE exists.

usage: fakejob.py SOCKET STOPFILE SECONDS HOST1,HOST2,... [EXIT_DELAY]"""
import json, os, select, socket, sys, time

sock, stopfile, seconds, hosts = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4].split(",")
exit_delay = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sock)
buf = [b""]


def readline(timeout):
    """One line from the daemon, or b"" after `timeout` seconds."""
    end = time.time() + timeout
    while b"\n" not in buf[0]:
        left = end - time.time()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            return b""
        d = s.recv(65536)
        if not d:
            raise OSError("ductiled closed the connection")
        buf[0] += d
    line, buf[0] = buf[0].split(b"\n", 1)
    return line


json.loads(readline(10))  # hello
nid = [1]
job = [0]
ranks = list(hosts)
it = [0]


def send(obj):
    obj["v"] = 1
    s.sendall(json.dumps(obj).encode() + b"\n")


def request(cmd, **kw):
    nid[0] += 1
    kw.update({"id": nid[0], "cmd": cmd})
    if job[0]:
        kw["job"] = job[0]
    send(kw)


# the ranks of a rank set ("0-511,1024-2047:2", src/common/rankset.h), or of a list: the simulated
# job's decoder (tests/controller/simjob.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "controller"))
from simjob import rankset_decode as rankset  # noqa: E402


def counts(hs):
    c = {}
    for h in hs:
        c[h] = c.get(h, 0) + 1
    return [{"name": h, "procs": n} for h, n in c.items()]


request("register", tag="fakejob%d" % os.getpid(), pid=os.getpid(), binary="fakejob", procs=len(ranks),
        hosts=counts(ranks), rank_hosts=ranks, malleable=True, mpi="fake")
end = time.time() + seconds
exits = []  # (when, {host: n})
while time.time() < end and not os.path.exists(stopfile):
    try:
        line = readline(0.2)
    except OSError:
        break
    if line:
        m = json.loads(line)
        if "ok" in m:
            if m.get("id") == 2 and m["ok"] and not job[0]:
                job[0] = m["result"]["job"]
                print("fakejob: registered as job %d on %s" % (job[0], ",".join(ranks)), flush=True)
            continue
        cmd, rid = m.get("cmd"), m.get("id")
        frm = len(ranks)
        if cmd == "expand":
            new = m.get("hosts") or [hosts[0]] * m["n"]
            ranks += new
            print("fakejob: expand by %d onto %s" % (m["n"], ",".join(new)), flush=True)
        elif cmd == "shrink":
            gone = set(rankset(m.get("ranks") or "")) or set(range(frm - m["n"], frm))
            left = {}
            for r in gone:
                left[ranks[r]] = left.get(ranks[r], 0) + 1
            ranks = [h for r, h in enumerate(ranks) if r not in gone]
            exits.append((time.time() + exit_delay, left))
            print("fakejob: shrink by %d: ranks %s leave (%s)" % (m["n"], sorted(gone), left), flush=True)
        else:
            send({"id": rid, "ok": False, "error": "not_supported", "reason": "fakejob does not do " + str(cmd)})
            continue
        send({"id": rid, "ok": True, "result": {}})
        request("event", kind="resized", details={"iteration": it[0], "from": frm, "to": len(ranks), "op": cmd,
                                                   "status": "ok", "reason": ""})
    now = time.time()
    for e in [e for e in exits if e[0] <= now]:
        exits.remove(e)
        request("event", kind="exited", details={"hosts": e[1]})
        print("fakejob: reported exited %s" % e[1], flush=True)
    it[0] += 1
    if job[0]:
        request("sample", t=now, iteration=it[0], procs=len(ranks), control_point=True)
if job[0]:
    request("exit", status=0)
    time.sleep(0.2)
print("fakejob: end on %s" % ",".join(ranks), flush=True)

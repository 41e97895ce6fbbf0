#!/usr/bin/env python3
"""daemon-scale.py -- ductiled at site scale (issue 25, item 4).

Starts a private ductiled, connects JOBS simulated jobs to it
(tests/controller/simjob.py: one process, one real Unix-socket connection
per job, the real protocol), each sending a sample a second (staggered), and
while they run measures the latency of `ductilectl list` (the program, run
LIST_HZ times a second: process start included) and of the same request on
a connection of its own (the daemon's answer alone), with the daemon's RSS
and CPU.  Prints a table every REPORT seconds and a summary; asserts
nothing on times.  With --max-rss-growth-mb it fails (exit 1) when the
daemon's RSS grew by more than that between the end of the first minute and
the end (the long run, tests/long/daemon-scale.sh); every run fails when a
job lost its connection or a list failed.

usage: daemon-scale.py --ductiled PATH --ductilectl PATH [--jobs 2000] [--seconds 600]
                       [--procs 4] [--list-hz 4] [--report 30] [--max-rss-growth-mb MB]"""
import argparse, json, os, resource, selectors, shutil, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "controller"))
from simjob import SimJob  # noqa: E402


def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def rss_mb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def cpu_s(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fs = f.read().rsplit(")", 1)[1].split()
        return (int(fs[11]) + int(fs[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


class Lister(threading.Thread):
    """`ductilectl list` and a raw `list` request, LIST_HZ times a second each, timed."""

    def __init__(self, ctl, sock, hz):
        super().__init__(daemon=True)
        self.ctl, self.sock, self.period = ctl, sock, 1.0 / hz
        self.lock = threading.Lock()
        self.prog, self.raw, self.errors = [], [], []
        self.stop = threading.Event()

    def take(self):
        with self.lock:
            p, r = self.prog, self.raw
            self.prog, self.raw = [], []
            return p, r

    def run(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(self.sock)
        f = s.makefile("rwb")
        json.loads(f.readline())  # hello
        rid = 0
        while not self.stop.is_set():
            t0 = time.perf_counter()
            r = subprocess.run([self.ctl, "-c", "unix:" + self.sock, "list"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=30)
            t1 = time.perf_counter()
            rid += 1
            f.write(json.dumps({"v": 1, "id": rid, "cmd": "list"}).encode() + b"\n")
            f.flush()
            rep = json.loads(f.readline())
            t2 = time.perf_counter()
            with self.lock:
                self.prog.append(t1 - t0)
                self.raw.append(t2 - t1)
                if r.returncode != 0 or not rep.get("ok"):
                    self.errors.append((r.returncode, r.stderr[:200], rep.get("reason")))
            self.stop.wait(max(0.0, self.period - (time.perf_counter() - t0)))
        s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ductiled", required=True)
    ap.add_argument("--ductilectl", required=True)
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--list-hz", type=float, default=4)
    ap.add_argument("--report", type=float, default=30)
    ap.add_argument("--max-rss-growth-mb", type=float, default=None)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.jobs + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard) if hard != resource.RLIM_INFINITY else want, hard))
    tmp = tempfile.mkdtemp(prefix="ductile-scale-")
    os.chmod(tmp, 0o700)
    sock = os.path.join(tmp, "d.sock")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    d = subprocess.Popen([a.ductiled, "--socket", sock, "--state", os.path.join(tmp, "state.json"),
                          "--slots", str(a.jobs * a.procs)], stdout=log, stderr=subprocess.STDOUT)
    fail = []
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        host = socket.gethostname().split(".")[0]
        print("daemon-scale: %d jobs of %d processes, a sample a second each, %.0f s; `ductilectl list` %.0f times a "
              "second; load %s; %d CPUs" % (a.jobs, a.procs, a.seconds, a.list_hz,
                                           " ".join("%.2f" % x for x in os.getloadavg()), os.cpu_count()), flush=True)
        t0 = time.time()
        sel = selectors.DefaultSelector()
        jobs = []
        for k in range(a.jobs):
            j = SimJob(sock, "scale%d" % k, ["localhost"] * a.procs)
            j.register()
            j.s.settimeout(5)
            sel.register(j.s, selectors.EVENT_READ, j)
            jobs.append(j)
        treg = time.time() - t0
        print("daemon-scale: %d jobs registered in %.1f s; daemon RSS %.1f MB" % (a.jobs, treg, rss_mb(d.pid)), flush=True)
        lister = Lister(a.ductilectl, sock, a.list_hz)
        lister.start()
        print("%8s %6s %9s | %-26s | %-26s | %9s %7s %6s" % ("t_s", "jobs", "samples/s", "ductilectl list ms p50/p99/max",
                                                             "list request ms p50/p99/max", "RSS_MB", "CPU_%", "load1"))
        start = time.time()
        nxt = [start + k / float(a.jobs) for k in range(a.jobs)]  # staggered over the second
        sent, last_rep, last_cpu, all_prog, all_raw, rss_rows = 0, start, cpu_s(d.pid), [], [], []
        lost = 0
        while time.time() - start < a.seconds:
            now = time.time()
            for k, j in enumerate(jobs):
                if j is not None and nxt[k] <= now:
                    try:
                        j.tick(now)
                        sent += 1
                    except OSError as e:
                        fail.append("job %d: %s" % (k, e))
                        sel.unregister(j.s)
                        jobs[k] = None
                        lost += 1
                    nxt[k] += 1.0
            for key, _ in sel.select(timeout=0.02):
                j = key.data
                try:
                    data = j.s.recv(1 << 16)
                except OSError:
                    data = b""
                if not data:
                    fail.append("%s: the daemon closed its connection" % j.tag)
                    sel.unregister(j.s)
                    jobs[jobs.index(j)] = None
                    lost += 1
                    continue
                j.buf += data
                while b"\n" in j.buf:
                    line, j.buf = j.buf.split(b"\n", 1)
                    if b'"ok"' in line:
                        continue  # a reply to a sample
                    j.handle(json.loads(line))
            if now - last_rep >= a.report:
                p, r = lister.take()
                all_prog += p
                all_raw += r
                c = cpu_s(d.pid)
                rss = rss_mb(d.pid)
                rss_rows.append((now - start, rss))
                print("%8.0f %6d %9.0f | %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f | %9.1f %7.1f %6.2f" % (
                    now - start, a.jobs - lost, sent / (now - last_rep), 1e3 * pct(p, 50), 1e3 * pct(p, 99),
                    1e3 * max(p or [float("nan")]), 1e3 * pct(r, 50), 1e3 * pct(r, 99), 1e3 * max(r or [float("nan")]),
                    rss, 100 * (c - last_cpu) / (now - last_rep), os.getloadavg()[0]), flush=True)
                sent, last_rep, last_cpu = 0, now, c
        lister.stop.set()
        lister.join(timeout=30)
        p, r = lister.take()
        all_prog += p
        all_raw += r
        rss_end = rss_mb(d.pid)
        print("daemon-scale: summary: %d jobs for %.0f s: `ductilectl list` (%d runs) p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
              "the list request alone p50 %.1f ms, p99 %.1f ms, max %.1f ms; RSS %.1f MB at the end" % (
                  a.jobs, time.time() - start, len(all_prog), 1e3 * pct(all_prog, 50), 1e3 * pct(all_prog, 99),
                  1e3 * max(all_prog or [float("nan")]), 1e3 * pct(all_raw, 50), 1e3 * pct(all_raw, 99),
                  1e3 * max(all_raw or [float("nan")]), rss_end), flush=True)
        after1 = [x for t, x in rss_rows if t >= 60]
        if after1:
            g = rss_end - after1[0]
            print("daemon-scale: RSS from minute 1 (%.1f MB) to the end (%.1f MB): %+.1f MB" % (after1[0], rss_end, g))
            if a.max_rss_growth_mb is not None and g > a.max_rss_growth_mb:
                fail.append("the daemon's RSS grew by %.1f MB after minute 1 (bound %.1f MB)" % (g, a.max_rss_growth_mb))
        if lister.errors:
            fail.append("%d lists failed: %s" % (len(lister.errors), lister.errors[:3]))
        if d.poll() is not None:
            fail.append("ductiled exited (%s)" % d.returncode)
        for j in jobs:
            if j is not None:
                try:
                    j.request("exit", status=0)
                except OSError:
                    pass
    finally:
        d.terminate()
        try:
            d.wait(timeout=20)
        except subprocess.TimeoutExpired:
            d.kill()
        log.close()
        if fail:
            print("daemon-scale: the daemon's log ends:")
            with open(os.path.join(tmp, "daemon.log")) as f:
                print("".join(f.readlines()[-20:]))
        shutil.rmtree(tmp, ignore_errors=True)
    for m in fail[:10]:
        print("daemon-scale: FAIL: %s" % m)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""daemon-scale.py -- ductiled at site scale (issue 25, item 4).

Starts a private ductiled, connects JOBS simulated jobs to it
(tests/controller/simjob.py: processes of 500 jobs each, one real
Unix-socket connection per job, the real protocol), each sending a sample a
second (staggered), and while they run measures, from a process of its own,
the latency of `ductilectl list` (the program, LIST_HZ times a second:
process start included) and of the same request on a connection of its own
(the daemon's answer alone), with the daemon's RSS and CPU.  Prints a table every REPORT seconds and a summary; asserts
nothing on times.  With --max-rss-growth-mb it fails (exit 1) when the
daemon's RSS grew by more than that between the end of the first minute and
the end (the long run, tests/long/daemon-scale.sh); every run fails when a
job lost its connection or a list failed.  At the end it prints the RSS at
minute 1 and at the end, and the daemon's own log line on its loop's turns
(the CPU time per turn: its own work, apart from the waits of a loaded
machine; src/daemon/turns.c).

usage: daemon-scale.py --ductiled PATH --ductilectl PATH [--jobs 2000] [--seconds 600]
                       [--procs 4] [--list-hz 4] [--report 30] [--max-rss-growth-mb MB]"""
import argparse, json, os, resource, selectors, shutil, socket, subprocess, sys, tempfile, time

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


def swarm(sock, first, n, procs, seconds):
    """One process of the simulated jobs (no GIL shared with the measurement): n jobs from `first`,
    a sample a second each, staggered, until its stdin ends (or `seconds` pass); prints "ready" once
    registered, then a JSON line of its counts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n + 64, hard) if hard != resource.RLIM_INFINITY else n + 64, hard))
    sel = selectors.DefaultSelector()
    jobs = []
    for k in range(n):
        j = SimJob(sock, "scale%d" % (first + k), ["localhost"] * procs)
        j.register()
        sel.register(j.s, selectors.EVENT_READ, j)
        jobs.append(j)
    print("ready", flush=True)
    sel.register(sys.stdin, selectors.EVENT_READ, None)  # the measuring process closes it at the end
    start = time.time()
    nxt = [start + k / float(n) for k in range(n)]
    sent, lost, errors = 0, 0, []
    done = False
    while not done and time.time() - start < seconds:
        now = time.time()
        for k, j in enumerate(jobs):
            if j is not None and nxt[k] <= now:
                try:
                    j.tick(now)
                    sent += 1
                except OSError as e:
                    errors.append("%s: %s" % (j.tag, e))
                    sel.unregister(j.s)
                    jobs[k] = None
                    lost += 1
                nxt[k] += 1.0
        for key, _ in sel.select(timeout=0.02):
            j = key.data
            if j is None:
                done = not os.read(sys.stdin.fileno(), 4096)
                continue
            try:
                data = j.s.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                errors.append("%s: the daemon closed its connection" % j.tag)
                sel.unregister(j.s)
                jobs[jobs.index(j)] = None
                lost += 1
                continue
            j.buf += data
            while b"\n" in j.buf:
                line, j.buf = j.buf.split(b"\n", 1)
                if b'"ok"' not in line:  # replies to samples are read and dropped
                    j.handle(json.loads(line))
    for j in jobs:
        if j is not None:
            try:
                j.request("exit", status=0)
            except OSError:
                pass
    print(json.dumps({"sent": sent, "lost": lost, "errors": errors[:5]}), flush=True)


def list_once(ctl, sock, f, rid):
    """`ductilectl list` (the program) and the same list request on a connection of our own (the daemon's
    answer alone): their times in seconds, and an error or None."""
    t0 = time.perf_counter()
    r = subprocess.run([ctl, "-c", "unix:" + sock, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    t1 = time.perf_counter()
    # the request ductilectl list sends (brief: the table's fields; a daemon before it sends them all)
    f.write(json.dumps({"v": 1, "id": rid, "cmd": "list", "brief": True}).encode() + b"\n")
    f.flush()
    lines = [f.readline()]
    while b'"id":%d,' % rid not in lines[-1] and lines[-1]:
        lines.append(f.readline())
    t2 = time.perf_counter()  # the answer's last byte: parsing it is the measurer's time, not the daemon's
    rep = json.loads(lines[-1])
    err = None
    if r.returncode != 0 or not rep.get("ok"):
        err = (r.returncode, r.stderr[:200], rep.get("reason"))
    return t1 - t0, t2 - t1, err


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--swarm":
        swarm(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]))
        return 0
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
        per = 500  # jobs per simulating process
        sw = []
        for first in range(0, a.jobs, per):
            sw.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--swarm", sock, str(first),
                                        str(min(per, a.jobs - first)), str(a.procs), str(a.seconds + 3600)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for p in sw:
            if p.stdout.readline().strip() != "ready":
                fail.append("a simulating process did not get its jobs registered")
        treg = time.time() - t0
        print("daemon-scale: %d jobs registered in %.1f s by %d processes; daemon RSS %.1f MB" % (
            a.jobs, treg, len(sw), rss_mb(d.pid)), flush=True)
        print("%8s %-28s | %-28s | %9s %7s %6s" % ("t_s", "ductilectl list ms p50/p99/max", "list request ms p50/p99/max",
                                                   "RSS_MB", "CPU_%", "load1"))
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.settimeout(60)
        ls.connect(sock)
        lf = ls.makefile("rwb")
        json.loads(lf.readline())  # hello
        start = last_rep = time.time()
        last_cpu, prog, raw, all_prog, all_raw, rss_rows, errors, rid = cpu_s(d.pid), [], [], [], [], [], [], 0
        while time.time() - start < a.seconds:
            t = time.time()
            rid += 1
            try:
                tp, tr, err = list_once(a.ductilectl, sock, lf, rid)
            except (socket.timeout, subprocess.TimeoutExpired) as e:  # a late answer is skipped by its id
                tp = tr = 60.0
                err = "no answer within 60 s (%s): the daemon is starved or stuck; load %s" % (
                    type(e).__name__, " ".join("%.2f" % x for x in os.getloadavg()))
            prog.append(tp)
            raw.append(tr)
            if err:
                errors.append(err)
            now = time.time()
            if now - last_rep >= a.report:
                c, rss = cpu_s(d.pid), rss_mb(d.pid)
                rss_rows.append((now - start, rss))
                print("%8.0f %8.1f %8.1f %8.1f   | %8.1f %8.1f %8.1f   | %9.1f %7.1f %6.2f" % (
                    now - start, 1e3 * pct(prog, 50), 1e3 * pct(prog, 99), 1e3 * max(prog), 1e3 * pct(raw, 50),
                    1e3 * pct(raw, 99), 1e3 * max(raw), rss, 100 * (c - last_cpu) / (now - last_rep),
                    os.getloadavg()[0]), flush=True)
                all_prog += prog
                all_raw += raw
                prog, raw, last_rep, last_cpu = [], [], now, c
            time.sleep(max(0.0, 1.0 / a.list_hz - (time.time() - t)))
        all_prog += prog
        all_raw += raw
        ls.close()
        rss_end = rss_mb(d.pid)
        sent = lost = 0
        for p in sw:
            try:
                out, _ = p.communicate(input="", timeout=60)
                res = json.loads(out.strip().splitlines()[-1])
                sent, lost = sent + res["sent"], lost + res["lost"]
                fail += res["errors"]
            except (subprocess.TimeoutExpired, ValueError, IndexError):
                p.kill()
                fail.append("a simulating process did not end")
        print("daemon-scale: summary: %d jobs for %.0f s (%d samples, %.0f a second; %d jobs lost their connection): "
              "`ductilectl list` (%d runs) p50 %.1f ms, p99 %.1f ms, max %.1f ms; the list request alone p50 %.1f ms, "
              "p99 %.1f ms, max %.1f ms; daemon RSS %.1f MB at the end; load %s" % (
                  a.jobs, time.time() - start, sent, sent / max(1.0, a.seconds), lost, len(all_prog),
                  1e3 * pct(all_prog, 50), 1e3 * pct(all_prog, 99), 1e3 * max(all_prog or [float("nan")]),
                  1e3 * pct(all_raw, 50), 1e3 * pct(all_raw, 99), 1e3 * max(all_raw or [float("nan")]), rss_end,
                  " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
        if lost:
            fail.append("%d jobs lost their connection" % lost)
        after1 = [x for t, x in rss_rows if t >= 60]
        if after1:
            g = rss_end - after1[0]
            print("daemon-scale: RSS from minute 1 (%.1f MB) to the end (%.1f MB): %+.1f MB" % (after1[0], rss_end, g))
            if a.max_rss_growth_mb is not None and g > a.max_rss_growth_mb:
                fail.append("the daemon's RSS grew by %.1f MB after minute 1 (bound %.1f MB)" % (g, a.max_rss_growth_mb))
        if errors:
            fail.append("%d lists failed: %s" % (len(errors), errors[:3]))
        if d.poll() is not None:
            fail.append("ductiled exited (%s)" % d.returncode)
    finally:
        d.terminate()
        try:
            d.wait(timeout=20)
        except subprocess.TimeoutExpired:
            d.kill()
        log.close()
        with open(os.path.join(tmp, "daemon.log")) as f:  # a sanitizer build's report (--enable-asan)
            dlog = f.read()
            if any(k in dlog for k in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")):
                fail.append("a sanitizer report in the daemon's log")
        for line in dlog.splitlines():  # the daemon's own work per loop turn, apart from the machine's waits
            if ": loop: " in line:
                print("daemon-scale: the daemon's" + line.split(": loop:", 1)[1])
            if "state file's writer" in line or "state writer" in line:
                print("daemon-scale: " + line)
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

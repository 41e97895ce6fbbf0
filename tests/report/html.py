"""html.py -- the HTML report page (tools/ductile-report, ductile-run --html)
of three kinds of job, opened in headless Chromium: every chart the job
calls for is on the page and drawn (its part of a screenshot of the whole
page holds the chart's data colours, not just axes), the page asks for
nothing but itself (every host name fails to resolve in this browser), and
its tables carry the reasons of failed and refused resizes.

  monitored   tests/mpi/iter, an unmodified program (3 ranks), through
              ductile-run --html: no resizes, a main loop
  malleable   tests/malleable/resize_app from 2 processes: expansions, shrinks
              (processes depart), a failed expansion (unknown host) and a
              refused shrink (below one process)
  io          tests/io/io_pattern, unmodified (3 ranks): four I/O phases on
              a file, no main loop
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import browser  # noqa: E402

B = os.environ["abs_top_builddir"]
MPIEXEC = os.environ["MPIEXEC"].split()
PRELOAD = ":".join(x for x in (os.environ.get("SANITIZER_PRELOAD", ""), os.environ["LIBDUCTILE"]) if x)
SCALE = int(os.environ.get("TEST_TIME_SCALE", "2"))
RUN = os.environ["RUN_DUCTILE"]
REPORT = os.path.join(B, "tools", "ductile-report")

exe = browser.find_chromium()
if not exe:
    print("SKIP: no chromium (apt-get install chromium; tools/setup-deps installs it)")
    sys.exit(77)
try:
    from PIL import Image
    import matplotlib  # noqa: F401  (ductile-report needs it)
except ImportError as e:
    print("SKIP: %s (the test reads screenshots with Pillow; ductile-report draws with matplotlib)" % e)
    sys.exit(77)

T = tempfile.mkdtemp(prefix="ductile-html-")
fails = []


def fail(msg):
    print("FAIL: " + msg)
    fails.append(msg)


def run(name, cmd, env_extra):
    env = dict(os.environ, DUCTILE_SUMMARY="0", LD_PRELOAD=PRELOAD)
    env.update(env_extra)
    p = subprocess.run(cmd, env=env, cwd=T, capture_output=True, text=True, timeout=120 * SCALE)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (name, p.returncode, p.stderr[-1500:]))
        return False
    return True


def page(name, json_path):
    out = os.path.join(T, name + ".html")
    p = subprocess.run([REPORT, json_path, "-o", out], capture_output=True, text=True, timeout=120 * SCALE)
    if p.returncode != 0 or not os.path.exists(out):
        fail("ductile-report %s: exit %d: %s" % (name, p.returncode, p.stderr[-1500:]))
        return None
    return out


# ---- the jobs
pages = {}
env_io = {"OMPI_MCA_io": "romio321"} if os.environ.get("MPI_FAMILY") == "openmpi" else {}
if run("monitored", [RUN, "-q", "-r", os.path.join(T, "mon.json"), "--html", os.path.join(T, "monitored.html"), "--"]
       + MPIEXEC + ["-n", "3", os.path.join(B, "tests", "mpi", "iter")], {}):
    if os.path.exists(os.path.join(T, "monitored.html")):
        pages["monitored"] = os.path.join(T, "monitored.html")
    else:
        fail("ductile-run --html wrote no page")
if run("malleable", MPIEXEC + ["-n", "2", os.path.join(B, "tests", "malleable", "resize_app"), "60", "20"],
       {"DUCTILE_REPORT": os.path.join(T, "mall.json"),
        "DUCTILE_SCHEDULE": "10:+2,25:-1,35:+1@no-such-host.invalid,45:-9,50:=2"}):
    pages["malleable"] = page("malleable", os.path.join(T, "mall.json"))
if run("io", MPIEXEC + ["-n", "3", "env", "LD_PRELOAD=" + PRELOAD, "DUCTILE_REPORT=" + os.path.join(T, "io.json"),
                        os.path.join(B, "tests", "io", "io_pattern"), "4", "300", T, "pattern"], env_io):
    pages["io"] = page("io", os.path.join(T, "io.json"))

# ---- what each page must show: its charts, and text in its tables
BASE = {"time-split", "imbalance", "functions", "processes"}
MUST = {"monitored": BASE | {"iterations"}, "malleable": BASE | {"iterations"}, "io": BASE | {"io", "io-bytes"}}
JSON = {"monitored": "mon.json", "malleable": "mall.json", "io": "io.json"}


def wanted(name):
    """The charts the job's report calls for: the main loop's when a loop was
    found or the job resized (io_pattern's loop is found with MPICH), I/O's
    when it did I/O."""
    rep = json.load(open(os.path.join(T, JSON[name])))
    want = set(BASE)
    if (rep.get("iterations") or {}).get("detected") or rep.get("reconfigurations"):
        want.add("iterations")
    if rep.get("io"):
        want |= {"io", "io-bytes"}
    if not MUST[name] <= want:
        fail("%s: the report lacks what the job did: %s" % (name, sorted(MUST[name] - want)))
    return want


TEXT = {"monitored": ["no process left the job", "Failed and refused resizes"],
        "malleable": ["unknown host &#x27;no-such-host.invalid&#x27;", "shrinking below one process",
                      "DUCTILE_SCHEDULE", "parked"],
        "io": ["pattern", "4 I/O phases"]}


def rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def blend(h, alpha):
    return tuple(round(alpha * c + (1 - alpha) * 255) for c in rgb(h))


# colours that only the chart's data draws (charts.py), each to be found in its part of the screenshot
KEY = {"time-split": [rgb("#4C78A8"), rgb("#F58518")], "imbalance": [rgb("#4C78A8")],
       "functions": [rgb("#4C78A8")], "iterations": [rgb("#08519c")], "processes": [rgb("#4C78A8")],
       "io": [rgb("#54A24B")], "io-bytes": [rgb("#54A24B")]}
KEY_MALLEABLE = {"iterations": [rgb("#08519c"), blend("#B279A2", 0.55), blend("#FF9DA6", 0.55), rgb("#D62728")],
                 "processes": [rgb("#4C78A8"), blend("#FF9DA6", 0.55)]}


def near(px, c, tol=24):
    return sum((a - b) ** 2 for a, b in zip(px[:3], c)) <= tol * tol


def drawn(img, box, keys):
    """Why the chart in box is not drawn, or None."""
    x, y, w, h = (int(round(v)) for v in (box["x"], box["y"], box["w"], box["h"]))
    if w < 300 or h < 60:
        return "its picture is %dx%d" % (w, h)
    crop = img.crop((x, y, x + w, y + h)).convert("RGB")
    px = list(crop.getdata())
    ink = sum(1 for p in px if sum(p) < 3 * 235) / len(px)
    colours = len({(p[0] >> 4, p[1] >> 4, p[2] >> 4) for p in px})
    if ink < 0.01 or colours < 5:
        return "nearly blank (%.1f%% ink, %d colours)" % (100 * ink, colours)
    for c in keys:
        n = sum(1 for p in px if near(p, c))
        if n < 20:
            return "no data drawn in colour #%02x%02x%02x (%d pixels)" % (c + (n,))
    return None


b = browser.Browser(exe, timeout=60.0 * SCALE)
try:
    for name, path in pages.items():
        if not path:
            continue
        before = len(fails)
        text = open(path).read()
        for t in TEXT[name]:
            if t not in text:
                fail("%s: the page lacks %r" % (name, t))
        for bad in ("<script", "<link", "@import", 'src="http', "src='http", 'href="http'):
            if bad in text:
                fail("%s: the page is not self-contained (%s)" % (name, bad))
        requests = b.open("file://" + path)
        others = [u for u in requests if u != "file://" + path and not u.startswith("data:")]
        if others:
            fail("%s: the page asked for %s" % (name, others[:5]))
        shot = os.path.join(T, name + ".png")
        height, charts = b.screenshot(shot, 1200)
        got = {c["id"][len("chart-"):] for c in charts}
        want = wanted(name)
        if got != want:
            fail("%s: charts %s, expected %s" % (name, sorted(got), sorted(want)))
        img = Image.open(shot)
        for c in charts:
            cid = c["id"][len("chart-"):]
            keys = (KEY_MALLEABLE if name == "malleable" else {}).get(cid, KEY.get(cid, []))
            why = drawn(img, c, keys)
            if why:
                fail("%s: chart %s is not drawn: %s" % (name, cid, why))
        if len(fails) == before:
            print("ok: %s: %d charts drawn on a %dx%d page (%d KB), no request but the page" %
                  (name, len(charts), img.size[0], height, os.path.getsize(path) // 1024))
finally:
    b.close()
if fails:
    print("pages and screenshots kept in %s" % T)
else:
    shutil.rmtree(T, ignore_errors=True)
sys.exit(1 if fails else 0)

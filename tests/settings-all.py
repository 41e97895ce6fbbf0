"""settings-all.py -- every DUCTILE_* setting of src/common/settings.toml (the
one table the parser, ductile-run --help, libductile(7) and the docs' tables
come from), set to each documented value and to bad ones:

* a bad value stops the job in MPI_Init with one message naming the setting
  and the value (the MPI test program run directly: the settings are checked
  before PMPI_Init), and ductile-run refuses it before it starts anything
  (except a setting checked by another part, e.g. DUCTILE_SCHEDULE);
* every documented value is accepted by a real job under mpiexec (2 ranks),
  which runs to its end; values are set together, one per setting per run,
  so every value is covered in as many runs as the longest list (plus
  DUCTILE_DISABLE's true words and DUCTILE_REPORT's values on their own,
  since they switch the rest off); the report names the values in effect;
* ductile-run --help shows every setting with its values and default."""
import json
import os
import subprocess
import sys
import tempfile

top = os.environ["abs_top_srcdir"]
build = os.environ["abs_top_builddir"]
sys.path.insert(0, os.path.join(top, "tools"))
from settings_toml import cases, load  # noqa: E402

MPIEXEC = os.environ["MPIEXEC"].split()
LIB = os.environ["LIBDUCTILE"]
SAN = os.environ.get("SANITIZER_PRELOAD", "")
RUN = os.environ["RUN_DUCTILE"]
PROG = os.path.join(build, "tests", "mpi", "coll")
TIMEOUT = 60 * int(os.environ.get("TEST_TIME_SCALE", "2"))
tmp = tempfile.mkdtemp(prefix="ductile-settings-")
fails = []


def fail(msg):
    print("FAIL: " + msg)
    fails.append(msg)


def base_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUCTILE_")}
    env["DUCTILE_SUMMARY"] = "0"
    env["DUCTILE_CONTROLLER"] = "off"
    env["XDG_RUNTIME_DIR"] = tmp  # DUCTILE_CONTROLLER=auto must not find a developer's ductiled
    return env


def preload():
    return (SAN + ":" if SAN else "") + LIB


settings = load(top)
by_name = {s["name"]: s for s in settings}

# ---- ductile-run --help shows each setting, its values and its default
helptext = subprocess.run([RUN, "--help"], capture_output=True, text=True).stdout
flat = " ".join(helptext.split())
for s in settings:
    t = s["type"]
    want = {"bool": "boolean", "int": "integer %d..%d" % (s.get("min", 0), s.get("max", 0)),
            "enum": "one of " + ",".join(s.get("values", []))}.get(t, s.get("values_doc", "").replace("`", ""))
    want = " ".join(want.split())
    dflt = "default '%s'" % s["default"] if s["default"] else "no default"
    if ("%s (%s; %s)" % (s["name"], want, dflt)) not in flat:
        fail("ductile-run --help lacks '%s (%s; %s)'" % (s["name"], want, dflt))
print("ok: ductile-run --help lists all %d settings with their values and defaults" % len(settings))

# ---- bad values: the job stops in MPI_Init, naming the setting and the value
nbad = 0
for s in settings:
    valid, invalid = cases(s)
    if not invalid:
        print("   %s: any text is accepted (%s)" % (s["name"], s["any_text"]))
        continue
    for v in invalid:
        nbad += 1
        env = base_env()
        env[s["name"]] = v
        env["LD_PRELOAD"] = preload()
        p = subprocess.run([PROG], env=env, capture_output=True, text=True, timeout=TIMEOUT)
        msg = [l for l in p.stderr.splitlines() if l.startswith("ductile: error:")]
        if p.returncode == 0 or len(msg) != 1 or ("%s='%s'" % (s["name"], v)) not in msg[0]:
            fail("%s=%s: rc %d, expected one 'ductile: error: %s=...' line; stderr: %s"
                 % (s["name"], v, p.returncode, s["name"], p.stderr.strip()[:300]))
            continue
        # ductile-run checks with the same table before it starts the command
        if not s.get("checked_by"):
            env = base_env()
            env[s["name"]] = v
            r = subprocess.run([RUN, "--", "true"], env=env, capture_output=True, text=True)
            if r.returncode != 2 or ("%s='%s'" % (s["name"], v)) not in r.stderr:
                fail("ductile-run accepted %s=%s (rc %d): %s" % (s["name"], v, r.returncode, r.stderr.strip()))
print("ok: %d bad values stop the job in MPI_Init with a message naming them" % nbad)


# ---- documented values: a real job runs with them
def run_job(assign, report):
    env = base_env()
    env.update(assign)
    env.setdefault("DUCTILE_REPORT", report)
    env["LD_PRELOAD"] = preload()
    p = subprocess.run(MPIEXEC + ["-n", "2", PROG], env=env, capture_output=True, text=True, timeout=TIMEOUT,
                       cwd=tmp)
    return p


special = {"DUCTILE_DISABLE", "DUCTILE_REPORT"}
lists = {s["name"]: cases(s)[0] for s in settings if s["name"] not in special}
lists["DUCTILE_DISABLE"] = ["0", "no", "off", "false"]  # the true words run on their own below
nruns = max(len(v) for v in lists.values())
nvalues = 0
for k in range(nruns):
    assign = {n: vals[k % len(vals)] for n, vals in lists.items()}
    report = os.path.join(tmp, "batch%d.json" % k)
    p = run_job(assign, report)
    if p.returncode != 0 or "ductile: error" in p.stderr:
        fail("run %d with %s: rc %d: %s" % (k, " ".join("%s=%s" % x for x in assign.items()), p.returncode,
                                            p.stderr.strip()[-600:]))
        continue
    nvalues += sum(1 for n, vals in lists.items() if k < len(vals))
    if os.path.exists(report):  # no report with DUCTILE_MONITOR off
        got = json.load(open(report)).get("settings", {})
        for n, v in assign.items():
            if got.get(n) != v:
                fail("run %d: the report's settings say %s=%r, the job had %r" % (k, n, got.get(n), v))
    elif assign["DUCTILE_MONITOR"] not in ("0", "no", "off", "false"):
        fail("run %d: no report at %s" % (k, report))
for w in ["1", "yes", "on", "true"]:
    p = run_job({"DUCTILE_DISABLE": w, "DUCTILE_MONITOR": "maybe"}, os.path.join(tmp, "disabled.json"))
    if p.returncode != 0 or os.path.exists(os.path.join(tmp, "disabled.json")):
        fail("DUCTILE_DISABLE=%s: rc %d or a report was written: %s" % (w, p.returncode, p.stderr.strip()[-300:]))
    nvalues += 1
for v in by_name["DUCTILE_REPORT"]["valid"]:
    for f in os.listdir(tmp):
        if f.startswith("report-"):
            os.unlink(os.path.join(tmp, f))
    p = run_job({"DUCTILE_REPORT": v}, "")
    made = [f for f in os.listdir(tmp) if f.startswith("report-")]
    want = 0 if v == "none" else 1
    if p.returncode != 0 or len(made) != want:
        fail("DUCTILE_REPORT=%s: rc %d, reports written: %s" % (v, p.returncode, made))
    nvalues += 1
print("ok: %d documented values accepted by real jobs (%d runs)" % (nvalues, nruns + 4 + 2))
subprocess.run(["rm", "-rf", tmp])
sys.exit(1 if fails else 0)

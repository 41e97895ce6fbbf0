"""browser.py -- headless Chromium driven over the DevTools protocol on a
pipe (--remote-debugging-pipe: commands on fd 3, answers on fd 4, JSON
messages ended by NUL), for tests/report/html.py: open a page, measure its
charts, take a screenshot of the whole page, and list every network request
it made.  One browser serves every page of a test."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import select
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-pipe",
         # the page must need no network: every host name fails to resolve
         "--host-resolver-rules=MAP * ~NOTFOUND"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, exe, timeout=120.0):
        self.dir = tempfile.mkdtemp(prefix="ductile-chromium-")
        to_r, self.to_w = os.pipe()    # our commands -> its fd 3
        self.from_r, from_w = os.pipe()  # its fd 4 -> our answers
        self.timeout = timeout

        def fds():  # in the child: the pipe's ends as fds 3 and 4 (kept: pass_fds)
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen([exe] + FLAGS + ["--user-data-dir=" + self.dir, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.dir, "stderr.txt"), "w"),
                                     preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        tid = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=tid, flatten=True)["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.call(domain + ".enable", session=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not answer (exit %s)" % self.proc.poll())
            r, _, _ = select.select([self.from_r], [], [], 1.0)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.to_w, data):]
        deadline = time.time() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60.0):
        deadline = time.time() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def open(self, url):
        """Load url; returns the URLs of every request it made."""
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired")
        return [m["params"]["request"]["url"] for m in self.events if m.get("method") == "Network.requestWillBeSent"]

    def eval(self, expr):
        r = self.call("Runtime.evaluate", session=True, expression=expr, returnByValue=True)
        return r["result"].get("value")

    def screenshot(self, path, width):
        """The whole page laid out at this width, as a PNG file; returns the
        page's height and where each chart's <svg> is ({id, x, y, w, h})."""
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=800,
                  deviceScaleFactor=1, mobile=False)
        height = int(self.eval("Math.ceil(document.documentElement.scrollHeight)"))
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        charts = json.loads(self.eval(
            "JSON.stringify([...document.querySelectorAll('figure.chart')].map(f => {"
            " const s = f.querySelector('svg'); const r = s ? s.getBoundingClientRect() : {left:0,top:0,width:0,height:0};"
            " return {id: f.id, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; }))"))
        shot = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return height, charts

    def close(self):
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)
        shutil.rmtree(self.dir, ignore_errors=True)

#!/usr/bin/python3
"""Checks pages of `onescope view` in headless Chromium (stdlib only, plus plot_check's PNG
reader). One subcommand per check; prints one line per failure and exits 1 when any fails.

  load CHROMIUM [PAGE FRAGMENT OUT]... loads each PAGE#FRAGMENT in one headless Chromium
                                       (DevTools protocol on a pipe), writes its DOM to OUT.dom
                                       and a 1200x800 screenshot to OUT.png; fails on a console
                                       error, an uncaught exception or a page that did not finish
  pixels DOM PNG STEP CSV@SCALE...     every entity of each `dump --poses --csv` at STEP that no
                                       other lies near has its palette colour at the pixel the
                                       page's mapping (canvas data-mapping) puts its position
  legend DOM NAME...                   the legend names every NAME
  diff DOM STEP                        the page marks STEP as the first divergent step
  at DOM STEP                          the page shows host STEP (the timeline's label), exactly
  ids DOM ID...                        the colour key lists exactly these entity ids
  escape PAGE DOM NAMES.json           the data block is JSON that <script> cannot end early,
                                       every name of NAMES.json is among its names, and no
                                       element or title the names try to inject exists
  json PAGE KEY VALUE                  the data's top-level KEY is VALUE (JSON)
  exact PAGE SPEC.json                 the page's first run holds every position of SPEC.json
                                       (a cache's spec, below) as text that reads back as the
                                       very float the cache stores (no %.7g rounding)
  frames PAGE                          every frame of every run decodes (groups of slot, count,
                                       count x columns numbers, slots among the run's entities)
  ospc SPEC.json OUT                   writes an OSPC v1 cache (docs/pose-cache.md, "Layout")
                                       from {"dims", "mpu", "unit", "label", "start",
                                       "entities": [{"id", "name"}], "frames": [[[x, y, z] or
                                       null per entity] per frame]}: by hand, so the test needs
                                       neither the Python package nor an unsanitised library
"""
import base64
import csv
import html.parser
import json
import math
import os
import signal
import subprocess
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_check import PALETTE, decode_png, pixel  # noqa: E402

DOT = 5
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


class Browser:
    """One headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4,
    messages ending in NUL): every page of a test loads in one browser, ~1 s once."""

    def __init__(self, exe, profile):
        # chromium's own messages go to a log beside the profile: when it dies, the failure
        # quotes its status and last line instead of only "closed the pipe"
        self.log = profile + ".log"
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()

        def fds():  # the pipes may be 3 and 4 already: copied away first, then placed
            a, b = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.p = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--hide-scrollbars", "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "about:blank"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "wb"), preexec_fn=fds, close_fds=False)
        os.close(cmd_r)
        os.close(res_w)
        self.w, self.r, self.buf, self.next_id, self.events = cmd_w, res_r, b"", 0, []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(m)
        self.call("Emulation.setDeviceMetricsOverride", width=1200, height=800,
                  deviceScaleFactor=1, mobile=False)

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise OSError("chromium closed the DevTools pipe (%s)" % self.died())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def died(self):
        try:
            status = "exit status %s" % self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            status = "still running"
        with open(self.log, "rb") as f:
            lines = [l for l in f.read().decode("utf-8", "replace").splitlines() if l.strip()]
        return status + (", last line: " + lines[-1][:300] if lines else ", nothing on stderr")

    def call(self, method, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise OSError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait(self, method):
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method:
                    del self.events[i]
                    return m
            self.events.append(self._read())

    def errors(self):
        out = []
        for m in self.events:
            k, p = m.get("method"), m.get("params", {})
            if k == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("uncaught: " + d.get("exception", {}).get("description", d.get("text", "")))
            elif k == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(str(a.get("value")) for a in p["args"]))
            elif k == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append("log: " + p["entry"]["text"])
        self.events = []
        return out

    def load(self, url):
        self.call("Page.navigate", url="about:blank")
        self.wait("Page.loadEventFired")
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait("Page.loadEventFired")
        dom = self.call("Runtime.evaluate", expression="document.documentElement.outerHTML",
                        returnByValue=True)["result"]["value"]
        png = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        return dom, png, self.errors()

    def close(self):
        try:
            self.call("Browser.close")
        except OSError:
            pass
        self.p.wait(timeout=30)


def cmd_load(exe, jobs):
    """jobs: PAGE FRAGMENT OUT triples; OUT.dom and OUT.png are written for each."""
    try:
        b = Browser(exe, jobs[2] + ".profile")
    except OSError as e:
        # a browser that dies before its first answer has not seen a page yet: that is the
        # machine (seen once in a mutation run beside a full build), so one more start
        print("note: %s; starting chromium again" % e, file=sys.stderr)
        b = Browser(exe, jobs[2] + ".profile2")
    try:
        for k in range(0, len(jobs), 3):
            page, fragment, out = jobs[k:k + 3]
            url = "file://" + os.path.abspath(page) + ("#" + fragment if fragment else "")
            dom, png, errs = b.load(url)
            for e in errs:
                fail("%s#%s: %s" % (page, fragment, e))
            with open(out + ".dom", "w", encoding="utf-8") as f:
                f.write(dom)
            with open(out + ".png", "wb") as f:
                f.write(png)
            d = Dom(dom)
            if d.attr("body", "data-ready") != "true":
                fail(page + ": the page's script did not finish (no data-ready on <body>)")
            if d.text_of("errors").strip():
                fail(page + ": errors shown: " + d.text_of("errors"))
    finally:
        b.close()


class Dom(html.parser.HTMLParser):
    """The elements' attributes by id (and the body's), and the text inside each id."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.by_id, self.texts, self.stack, self.classes, self.title = {}, {}, [], [], None
        self._in_title = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.by_id["body"] = a
        if "id" in a:
            self.by_id[a["id"]] = a
        self.stack.append((tag, a.get("id"), a.get("class")))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        while self.stack:
            t = self.stack.pop()
            if t[0] == tag:
                break
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title = (self.title or "") + data
        for _, i, c in self.stack:
            if i:
                self.texts[i] = self.texts.get(i, "") + data
            if c:
                self.classes.append((c, data))

    def attr(self, id_, name):
        return self.by_id.get(id_, {}).get(name)

    def text_of(self, id_):
        return self.texts.get(id_, "")


def read_dom(path):
    with open(path, encoding="utf-8") as f:
        return Dom(f.read())


def cmd_pixels(dom_path, png_path, step, csvs):
    d = read_dom(dom_path)
    m = json.loads(d.attr("scene", "data-mapping"))
    img = decode_png(png_path)
    pts = []
    for spec in csvs:
        path, scale = spec.rsplit("@", 1)
        scale = float(scale)
        index = {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if int(row["step"]) != step:
                    continue
                i = index.setdefault(row["entity"], len(index))
                if row["present"] != "1":
                    continue
                p = [float(row[k]) * scale for k in ("x", "y", "z")]
                c = [p[k] - m["centre"][k] for k in range(3)]
                x = m["left"] + m["cx"] + m["scale"] * sum(m["R"][k] * c[k] for k in range(3))
                y = m["top"] + m["cy"] - m["scale"] * sum(m["U"][k] * c[k] for k in range(3))
                pts.append((x, y, PALETTE[i % len(PALETTE)], path, row["entity"]))
    checked = 0
    for n, (x, y, colour, path, ent) in enumerate(pts):
        near = any((x - q[0]) ** 2 + (y - q[1]) ** 2 < (2 * DOT + 3) ** 2
                   for k, q in enumerate(pts) if k != n)
        if near:
            continue
        got = pixel(img, int(round(x)), int(round(y)))
        checked += 1
        if got is None or any(abs(got[k] - colour[k]) > 3 for k in range(3)):
            fail("%s step %d entity %s: expected %s at pixel (%.1f, %.1f), found %s"
                 % (path, step, ent, colour, x, y, got))
    if checked < 3:
        fail("only %d entities could be checked at step %d (want 3 or more)" % (checked, step))
    print("pixels: %d entities checked at step %d" % (checked, step))


def cmd_legend(dom_path, names):
    d = read_dom(dom_path)
    shown = [t for c, t in d.classes if c == "name"]
    for n in names:
        if n not in shown:
            fail("%s: legend %r does not name %r" % (dom_path, shown, n))


def cmd_diff(dom_path, step):
    d = read_dom(dom_path)
    if d.attr("diverge", "data-diverged") != "true":
        fail(dom_path + ": the page marks no divergence")
    elif d.attr("diverge", "data-step") != str(step):
        fail("%s: the page marks step %s, diff says %d" % (dom_path, d.attr("diverge", "data-step"), step))
    if d.attr("jump", "id") is None:
        fail(dom_path + ": no button jumps to the divergence")


def cmd_at(dom_path, step):
    got = read_dom(dom_path).attr("step", "data-step")
    if got != step:
        fail("%s: the page shows step %s, expected %s" % (dom_path, got, step))


def cmd_ids(dom_path, ids):
    import re
    text = open(dom_path, encoding="utf-8").read()
    key = text[text.index('id="key"'):]
    got = re.findall(r'<div data-id="([^"]*)"', key)
    if sorted(got) != sorted(ids):
        fail("%s: the colour key lists ids %r, expected %r" % (dom_path, got, ids))


def cmd_escape(page, dom_path, names_path):
    with open(names_path, encoding="utf-8") as f:
        names = json.load(f)
    raw = open(page, "rb").read()
    raw.decode("utf-8")  # the whole page is valid UTF-8 (raises otherwise)
    text = raw.decode("utf-8")
    opening = '<script type="application/json" id="onescope-data">'
    start = text.index(opening) + len(opening)
    end = text.index("</script>", start)
    block = text[start:end]
    if "<" in block:
        fail(page + ": a raw '<' in the data block")
    data = json.loads(block)  # the first </script> ends exactly the JSON
    got = set([data["title"]])
    for r in data["runs"]:
        got.add(r["name"])
        got.update(e["name"] for e in r["entities"])
    for n in names:
        if n not in got:
            fail("%s: no name %r among %r" % (page, n, sorted(got)[:8]))
    d = read_dom(dom_path)
    if "pwned" in d.by_id:
        fail(dom_path + ": an injected element exists")
    if d.title and "pwned" in d.title:
        fail(dom_path + ": the title was injected")


def cmd_json(page, key, value):
    text = open(page, encoding="utf-8").read()
    opening = '<script type="application/json" id="onescope-data">'
    start = text.index(opening) + len(opening)
    data = json.loads(text[start:text.index("</script>", start)])
    if data.get(key) != json.loads(value):
        fail("%s: %s is %r, expected %s" % (page, key, data.get(key), value))


def decode_frame(fr, cols):
    """A frame of the page's data (docs/view.md, "The data"): groups "slot, count" and count x
    cols numbers; returns {slot: [numbers]}."""
    out, i = {}, 0
    while i < len(fr):
        slot, n = fr[i], fr[i + 1]
        i += 2
        for k in range(n):
            out[slot + k] = fr[i:i + cols]
            i += cols
    if i != len(fr):
        raise ValueError("a frame's groups do not add up: %r" % fr[:12])
    return out


def cmd_exact(page, spec_path):
    text = open(page, encoding="utf-8").read()
    opening = '<script type="application/json" id="onescope-data">'
    start = text.index(opening) + len(opening)
    run = json.loads(text[start:text.index("</script>", start)])["runs"][0]
    with open(spec_path, encoding="utf-8") as f:
        frames = json.load(f)["frames"]
    f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
    cols = len(run["columns"])
    for k, (want, fr) in enumerate(zip(frames, run["frames"])):
        slots = decode_frame(fr, cols)
        got = [v for e in sorted(slots) for v in slots[e]]
        flat = [f32(v) for p in want for v in p]
        # the page's text must read back as the very float the cache stores
        if len(got) != len(flat) or any(f32(g) != w for g, w in zip(got, flat)):
            fail("%s: frame %d holds %r, the cache %r" % (page, k, got, flat))
    if len(run["frames"]) != len(frames):
        fail("%s: %d frames, the cache has %d" % (page, len(run["frames"]), len(frames)))


def cmd_frames(page):
    text = open(page, encoding="utf-8").read()
    opening = '<script type="application/json" id="onescope-data">'
    start = text.index(opening) + len(opening)
    data = json.loads(text[start:text.index("</script>", start)])
    for r in data["runs"]:
        if len(r["frames"]) != len(r["steps"]):
            fail("%s: %s: %d frames, %d steps" % (page, r["name"], len(r["frames"]), len(r["steps"])))
        for fr in r["frames"]:
            for slot in decode_frame(fr, len(r["columns"])):
                if not 0 <= slot < len(r["entities"]):
                    fail("%s: %s: slot %d of %d entities" % (page, r["name"], slot, len(r["entities"])))


def write_ospc(spec_path, out):
    with open(spec_path, encoding="utf-8") as f:
        sp = json.load(f)
    ents, frames = sp["entities"], sp["frames"]
    b = [b"OSPC" + struct.pack("<HHBBHIIqd", 1, 0, sp["dims"], 0, 0, len(ents), len(frames),
                               sp.get("start", 0), sp.get("mpu", 0.0))]
    for text in (sp.get("unit", ""), "", "", "", "", sp.get("label", "")):
        t = text.encode("utf-8")
        b.append(struct.pack("<H", len(t)) + t)
    for e in ents:
        name = e.get("name", "").encode("utf-8")
        b.append(struct.pack("<QB3x3fH", e["id"], 0, 0, 0, 0, len(name)) + name)
    pose = struct.Struct("<7f")  # pieces joined once: a large cache is written in linear time
    for fr in frames:
        for p in fr:
            b.append(pose.pack(*(p if p is not None else (math.nan, 0, 0)), 0, 0, 0, 1))
    with open(out, "wb") as f:
        f.write(b"".join(b))


def main(a):
    if a[0] == "load":
        cmd_load(a[1], a[2:])
    elif a[0] == "pixels":
        cmd_pixels(a[1], a[2], int(a[3]), a[4:])
    elif a[0] == "legend":
        cmd_legend(a[1], a[2:])
    elif a[0] == "diff":
        cmd_diff(a[1], int(a[2]))
    elif a[0] == "at":
        cmd_at(a[1], a[2])
    elif a[0] == "ids":
        cmd_ids(a[1], a[2:])
    elif a[0] == "escape":
        cmd_escape(a[1], a[2], a[3])
    elif a[0] == "ospc":
        write_ospc(a[1], a[2])
    elif a[0] == "exact":
        cmd_exact(a[1], a[2])
    elif a[0] == "frames":
        cmd_frames(a[1])
    elif a[0] == "json":
        cmd_json(a[1], a[2], a[3])
    else:
        raise SystemExit("unknown check " + a[0])
    return 1 if failures else 0


if __name__ == "__main__":
    signal.alarm(180)  # a browser that hangs fails the check rather than the whole run
    try:
        sys.exit(main(sys.argv[1:]))
    except (ValueError, OSError, KeyError, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)

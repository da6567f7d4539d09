#!/usr/bin/python3
"""Time to first paint of `onescope view` pages in headless Chromium: each PAGE loaded N times
in one browser (tests/cli/view_check.py's DevTools pipe), the first contentful paint and the
load event from the page's own performance timeline, the median printed. Prints numbers,
asserts nothing. Usage: bench_view.py CHROMIUM N PAGE..."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "cli"))
from view_check import Browser  # noqa: E402

exe, n, pages = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
b = Browser(exe, "/tmp/bench_view_profile_%d" % os.getpid())
try:
    for page in pages:
        paint, load = [], []
        for _ in range(n):
            b.load("file://" + os.path.abspath(page))
            r = b.call("Runtime.evaluate", returnByValue=True, expression=(
                "JSON.stringify([performance.getEntriesByName('first-contentful-paint')"
                ".map(e => e.startTime)[0], performance.getEntriesByType('navigation')[0]"
                ".loadEventEnd])"))["result"]["value"]
            fcp, le = __import__("json").loads(r)
            paint.append(fcp)
            load.append(le)
        print("%-40s %9d bytes  first paint %7.0f ms  load %7.0f ms  (median of %d)"
              % (os.path.basename(page), os.path.getsize(page), statistics.median(paint),
                 statistics.median(load), n))
finally:
    b.close()

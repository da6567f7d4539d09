#!/usr/bin/python3
"""Benchmark (issue 20.9): what a view of an unaligned pose section costs.

    python3 python/bench/bench_unaligned.py [SCRATCH_DIR]

Writes one cache (FRAMES x ENTITIES random positions, default 2000 x 1000, 56 MB) four times
with labels of 0 to 3 bytes, so that its pose section starts at each offset modulo 4, and
times for each, best of RUNS (default 7, warm page cache): open, a float64 sum of the
positions view, the mean of one strided column, a copy, and to_bytes (which parses the
mapping again for the library when the view is unaligned). Needs $ONESCOPE_LIBRARY (or an
installed library).
"""

import os
import sys
import tempfile
import time

import numpy as np

import onescope

FRAMES = int(os.environ.get("FRAMES", 2000))
ENTITIES = int(os.environ.get("ENTITIES", 1000))
RUNS = int(os.environ.get("RUNS", 7))


def best(fn, runs=RUNS):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main() -> None:
    scratch = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    rng = np.random.default_rng(1)
    pos = rng.uniform(-1, 1, size=(FRAMES, ENTITIES, 3)).astype(np.float32)
    print(f"{FRAMES} frames x {ENTITIES} entities, best of {RUNS}, ms")
    print("head%4  aligned  open   sum    x-mean copy   to_bytes")
    for n in range(4):
        path = os.path.join(scratch, f"unaligned-{n}.ospc")
        onescope.PoseCache.create(pos, unit="m", label="x" * n).write(path)
        head = os.path.getsize(path) - FRAMES * ENTITIES * 28
        cache = onescope.PoseCache.open(path)
        assert cache.mapped
        v = cache.positions
        print(f"{head % 4:<7d}{str(v.flags.aligned):<9s}"
              f"{best(lambda: onescope.PoseCache.open(path)):<7.1f}"
              f"{best(lambda: v.sum(dtype=np.float64)):<7.1f}"
              f"{best(lambda: v[:, :, 0].mean()):<7.1f}"
              f"{best(lambda: np.array(v)):<7.1f}"
              f"{best(lambda: cache.to_bytes(), 3):<7.1f}")
        del v, cache
        os.unlink(path)


if __name__ == "__main__":
    main()

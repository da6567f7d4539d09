#!/usr/bin/python3
"""Benchmark (issue 15): open a ~250 MiB pose cache and sum every position.

    python3 python/bench/bench_sum.py [SCRATCH_DIR]

Three readers of the same numbers, each timed open + sum, best of RUNS (warm page cache):
  C        python/bench/sum_positions.c: onescope_pose_cache_map and a plain loop
  Python   onescope.PoseCache.open + a NumPy sum over the positions view
  pure     struct.unpack over the file's pose section, on a 1/64 file, scaled up
Prints the times and the ratios Python / C (goal: at most 1.5) and pure / Python (goal: 10
or more). Needs $ONESCOPE_LIBRARY (or an installed library) and a C compiler; the C side
links that same library.
"""

import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

import onescope

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNS = 5
ENTITIES = 1000
FRAMES = 9000  # 1000 x 9000 x 28 bytes: 252 MB (240 MiB) of poses
SMALL = FRAMES // 64


def make_cache(path, frames):
    rng = np.random.default_rng(15)
    pos = rng.uniform(-100, 100, size=(frames, ENTITIES, 3)).astype(np.float32)
    onescope.PoseCache.create(pos).write(path)


def python_sum(path):
    cache = onescope.PoseCache.open(path)
    return float(cache.positions.sum(dtype=np.float64))


def pure_python_sum(path):
    """A hand-written reader: the poses are the file's last frames x entities x 28 bytes."""
    data = pathlib.Path(path).read_bytes()
    entities, frames = struct.unpack_from("<II", data, 12)
    start = len(data) - frames * entities * 28
    s = 0.0
    for x, y, z, _, _, _, _ in struct.iter_unpack("<7f", memoryview(data)[start:]):
        s += x + y + z
    return s


def best(fn, *args, runs=RUNS):
    times, value = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        value = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), value


def main(argv):
    scratch = pathlib.Path(argv[1] if len(argv) > 1 else tempfile.mkdtemp(prefix="onescope-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    big, small = scratch / "big.ospc", scratch / "small.ospc"
    if not big.exists():
        make_cache(big, FRAMES)
    if not small.exists():
        make_cache(small, SMALL)
    libpath = pathlib.Path(onescope.library_path).resolve()
    exe = scratch / "sum_positions"
    subprocess.run(["cc", "-O2", "-std=c17", "-I", str(ROOT / "include"), "-o", str(exe),
                    str(ROOT / "python" / "bench" / "sum_positions.c"), str(libpath),
                    f"-Wl,-rpath,{libpath.parent}"], check=True)
    c_out = subprocess.run([str(exe), str(big), str(RUNS)], capture_output=True, text=True,
                           check=True).stdout.split()
    c_time, c_open, c_sum = float(c_out[0]), float(c_out[1]), float(c_out[2])
    py_time, py_sum = best(python_sum, big)
    py_open = best(onescope.PoseCache.open, big)[0]
    pure_small, pure_value = best(pure_python_sum, small, runs=2)
    check_small = best(python_sum, small, runs=1)[1]
    pure_time = pure_small * FRAMES / SMALL
    size = big.stat().st_size
    print(f"cache: {size} bytes ({size / 2**20:.1f} MiB), {FRAMES} frames x {ENTITIES} entities")
    print(f"C       open+sum {c_time * 1e3:9.1f} ms  (open alone {c_open * 1e3:.1f} ms)  "
          f"sum {c_sum:.6e}")
    print(f"Python  open+sum {py_time * 1e3:9.1f} ms  (open alone {py_open * 1e3:.1f} ms)  "
          f"sum {py_sum:.6e}")
    print(f"pure    open+sum {pure_time * 1e3:9.1f} ms  (measured {pure_small * 1e3:.1f} ms on "
          f"{SMALL} frames, scaled x{FRAMES / SMALL:.0f})")
    print(f"ratio Python / C    {py_time / c_time:6.2f}  (goal <= 1.5)")
    print(f"ratio pure / Python {pure_time / py_time:6.1f}  (goal >= 10)")
    # The three sums agree (double sums in different orders: relative 1e-9).
    assert abs(py_sum - c_sum) <= 1e-9 * max(1.0, abs(c_sum)) * FRAMES
    assert abs(pure_value - check_small) <= 1e-6 * max(1.0, abs(check_small))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

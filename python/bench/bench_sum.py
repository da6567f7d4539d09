#!/usr/bin/python3
"""Benchmark (issue 15): open a ~250 MiB pose cache and sum every position.

    python3 python/bench/bench_sum.py [SCRATCH_DIR]

Three readers of the same numbers, each timed open + sum, best of RUNS (warm page cache):
  C        python/bench/sum_positions.c: onescope_pose_cache_map and a plain loop
  Python   onescope.PoseCache.open + NumPy over the pose block view, three ways: the fast
           one (chunked sgemv, float32 per pose, float64 across), einsum (float64 throughout)
           and the first version (ndarray.sum over the strided positions view)
  pure     struct.unpack over the file's pose section, on a 1/64 file, scaled up
Prints the times, the differences of the sums with their rounding bounds, and the ratios
Python / C (goal: at most 1.5) and pure / Python (goal: 10
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

# The C side sums on one thread; so does BLAS here (set before NumPy loads OpenBLAS).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import onescope  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNS = int(os.environ.get("BENCH_RUNS", "9"))  # best of RUNS; raise it on a busy machine
ENTITIES = 1000
FRAMES = 9000  # 1000 x 9000 x 28 bytes: 252 MB (240 MiB) of poses
SMALL = FRAMES // 64


def make_cache(path, frames):
    rng = np.random.default_rng(15)
    pos = rng.uniform(-100, 100, size=(frames, ENTITIES, 3)).astype(np.float32)
    onescope.PoseCache.create(pos).write(path)


# The fast sum views the contiguous float32 pose block as wide rows of WIDE poses (7 * WIDE
# floats) and reduces ROWS of them at a time along axis 0: NumPy's inner loop is then one long
# contiguous float32 add, vectorised, with no cast. The ROWS values of each column are added in
# float32 (ROWS - 1 roundings), each chunk's column sums are promoted to float64, and the
# x, y, z columns are picked at the end. 8 x 4096 x 28 bytes = 896 KiB per chunk; the
# float32 partial (112 KiB) and the float64 accumulator (224 KiB) are reused, never allocated.
WIDE = 4096
ROWS = 8


def fast_sum(block):
    """sum of x + y + z over a (poses, 7) float32 block: see WIDE and ROWS above."""
    n = len(block) - len(block) % (WIDE * ROWS)
    wide = block[:n].reshape(-1, 7 * WIDE)
    acc = np.zeros(7 * WIDE)
    part = np.empty(7 * WIDE, dtype=np.float32)
    for i in range(0, len(wide), ROWS):
        np.add.reduce(wide[i:i + ROWS], axis=0, out=part)
        np.add(acc, part, out=acc)
    xyz = (np.arange(7 * WIDE) % 7) < 3
    rest = np.einsum("ij->", block[n:, :3], dtype=np.float64)  # the last partial chunk
    return float(acc[xyz].sum()) + float(rest)


def python_sum(path):
    """Open + sum, the fast way (fast_sum over the pose block view; no copy of the file)."""
    return fast_sum(onescope.PoseCache.open(path).poses.reshape(-1, 7))


def python_sum_sgemv(path, chunk=8192):
    """Open + sum with one BLAS matrix-vector product per chunk of poses against
    (1,1,1,0,0,0,0): x+y+z per pose in float32, the chunk's sums added in float64."""
    block = onescope.PoseCache.open(path).poses.reshape(-1, 7)
    w = np.array([1, 1, 1, 0, 0, 0, 0], dtype=np.float32)
    total = 0.0
    for i in range(0, len(block), chunk):
        total += float(np.dot(block[i:i + chunk], w).sum(dtype=np.float64))
    return total


def python_sum_einsum(path):
    """Open + sum with every addition in float64 (no float32 rounding): np.einsum over the
    first three columns of the pose block, about 1.4x faster than ndarray.sum there."""
    cache = onescope.PoseCache.open(path)
    return float(np.einsum("ij->", cache.poses.reshape(-1, 7)[:, :3], dtype=np.float64))


def python_sum_naive(path):
    """The first version, kept for the comparison: ndarray.sum over the positions view."""
    cache = onescope.PoseCache.open(path)
    return float(cache.positions.sum(dtype=np.float64))


def sum_of_magnitudes(path, rows=1 << 20):
    """sum |x| over every coordinate, in chunks (no whole-file temporary): the scale of the
    rounding bound below."""
    block = onescope.PoseCache.open(path).poses.reshape(-1, 7)
    return sum(float(np.abs(block[i:i + rows, :3]).sum(dtype=np.float64))
               for i in range(0, len(block), rows))


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


def interleaved(exe, big, readers, runs=RUNS):
    """Best time of each reader and of C, the runs taken in turn (C, then each reader, RUNS
    times) so that a busy machine slows them alike; also the median over rounds of each
    reader's time over C's time in that round."""
    c_best, c_open, c_sum = 1e300, 1e300, None
    times = {name: [] for name in readers}
    sums = {}
    ratios = {name: [] for name in readers}
    for _ in range(runs):
        out = subprocess.run([str(exe), str(big), "1"], capture_output=True, text=True,
                             check=True).stdout.split()
        c_t = float(out[0])
        c_best, c_open, c_sum = min(c_best, c_t), min(c_open, float(out[1])), float(out[2])
        for name, fn in readers.items():
            t0 = time.perf_counter()
            sums[name] = fn(big)
            t = time.perf_counter() - t0
            times[name].append(t)
            ratios[name].append(t / c_t)
    best_of = {name: min(v) for name, v in times.items()}
    median = {name: sorted(v)[len(v) // 2] for name, v in ratios.items()}
    return (c_best, c_open, c_sum), best_of, sums, median


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
    readers = {"Python": python_sum, "sgemv": python_sum_sgemv,
               "einsum": python_sum_einsum, "naive": python_sum_naive}
    (c_time, c_open, c_sum), t, sums, median = interleaved(exe, big, readers)
    py_open = best(onescope.PoseCache.open, big)[0]
    pure_small, pure_value = best(pure_python_sum, small, runs=2)
    check_small = python_sum(small)
    pure_time = pure_small * FRAMES / SMALL
    size = big.stat().st_size
    print(f"cache: {size} bytes ({size / 2**20:.1f} MiB), {FRAMES} frames x {ENTITIES} entities;"
          f" best of {RUNS}, taken in turn")
    print(f"C       open+sum {c_time * 1e3:9.1f} ms  (open alone {c_open * 1e3:.1f} ms)  "
          f"sum {c_sum:.17g}")
    notes = {"Python": f"fast_sum; open alone {py_open * 1e3:.1f} ms",
             "sgemv": "BLAS per chunk", "einsum": "float64 throughout",
             "naive": "ndarray.sum over the positions view"}
    for name in readers:
        print(f"{name:7s} open+sum {t[name] * 1e3:9.1f} ms  ({notes[name]})  sum {sums[name]:.17g}")
    print(f"pure    open+sum {pure_time * 1e3:9.1f} ms  (measured {pure_small * 1e3:.1f} ms on "
          f"{SMALL} frames, scaled x{FRAMES / SMALL:.0f})")
    for name in readers:
        goal = "  (goal <= 1.5)" if name == "Python" else ""
        print(f"ratio {name + ' / C':14s} {t[name] / c_time:6.2f} best/best, "
              f"{median[name]:6.2f} median per round{goal}")
    print(f"ratio pure / Python   {pure_time / t['Python']:6.1f}  (goal >= 10)")
    # Tolerance. Every float32 value is exact in float64, so a float64 sum of n of them in any
    # order is within n * 2^-53 * S of the exact sum (S = sum |x|): C, einsum and naive differ
    # by at most twice that. fast_sum adds ROWS values per column in float32 first (ROWS - 1
    # roundings of 2^-24 each, relative to partial sums bounded by S): (ROWS - 1) * 2^-24 * S
    # more; sgemv rounds x+y+z per pose to float32 (two roundings): 2^-23 * S more.
    n = FRAMES * ENTITIES * 3
    mags = sum_of_magnitudes(big)
    exact_bound = 2 * n * 2.0**-53 * mags
    bounds = {"Python": exact_bound + (ROWS - 1) * 2.0**-24 * mags,
              "sgemv": exact_bound + 2.0**-23 * mags,
              "einsum": exact_bound, "naive": exact_bound}
    for name in readers:
        err = abs(sums[name] - c_sum)
        print(f"|{name} - C| {err:.3e}  (bound {bounds[name]:.3e}; relative to the sum "
              f"{err / abs(c_sum):.1e})")
        assert err <= bounds[name], name
    assert abs(pure_value - check_small) <= 1e-6 * max(1.0, abs(check_small))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

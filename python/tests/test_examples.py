"""The example scripts run and say what they should."""

import os
import subprocess
import sys

import numpy as np

import onescope
from conftest import ROOT, cli

EXAMPLES = ROOT / "python" / "examples"


def run(script, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)],
                          capture_output=True, text=True, env=env)


def test_path_stats(ghost):
    p = run("path_stats.py", ghost)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2 + onescope.PoseCache.open(ghost).entity_count
    # Entity 0 by hand: its present frames are consecutive in this cache.
    pos = np.array(onescope.PoseCache.open(ghost).positions[:, 0], dtype=np.float64)
    steps = np.linalg.norm(np.diff(pos, axis=0), axis=1)
    fields = lines[2].split()
    assert float(fields[-3]) == round(steps.sum(), 3)
    assert float(fields[-2]) == round(steps.max(), 3)


def test_path_stats_reports_a_bad_file(tmp_path):
    bad = tmp_path / "bad.ospc"
    bad.write_bytes(b"OSPX" + bytes(60))
    p = run("path_stats.py", bad)
    assert p.returncode == 1 and p.stderr.startswith(f"{bad}: offset 0: ")


def test_bake_anm_equals_the_cli(clip_path, tmp_path):
    out, ref = tmp_path / "py.ospc", tmp_path / "cli.ospc"
    p = run("bake_anm.py", clip_path, out)
    assert p.returncode == 0, p.stderr
    cli("convert", clip_path, ref)
    assert out.read_bytes() == ref.read_bytes()

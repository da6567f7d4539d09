"""Shared fixtures: the repository, its testdata, the CLI, and a way to run it.

The library comes from $ONESCOPE_LIBRARY (scripts/test.sh points it at the gcc -O2 build);
the CLI that checks the values from $ONESCOPE_CLI, else build/gcc-O2/tools/onescope.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"
CORPUS = ROOT / "tests" / "fuzz" / "corpus"

os.environ.setdefault("ONESCOPE_LIBRARY", str(ROOT / "build" / "gcc-O2" / "libonescope.so"))
try:
    import onescope  # noqa: F401  (the installed package)
except ImportError:  # a checkout without installing: the source tree
    sys.path.insert(0, str(ROOT / "python"))

CLI = pathlib.Path(os.environ.get("ONESCOPE_CLI", ROOT / "build" / "gcc-O2" / "tools" / "onescope"))


def cli(*args, check=True):
    """Runs the CLI; returns the completed process (stdout and stderr as text)."""
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"onescope {args}: exit {p.returncode}: {p.stderr}")
    return p


def cli_json(*args):
    return json.loads(cli(*args).stdout)


@pytest.fixture(scope="session")
def ghost():
    return TESTDATA / "test-2d-ghost.ospc"


@pytest.fixture(scope="session")
def clip_path():
    return CORPUS / "anm_parse" / "valid-clip"


@pytest.fixture(scope="session")
def rig_path():
    return CORPUS / "pvt_parse" / "valid-rig"

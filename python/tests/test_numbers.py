"""onescope.format_number / format_float: the library's number printer from Python.

Python's repr and NumPy's float32 repr both give the shortest decimal that reads back (the
closest one among those); the library's digits must be theirs, on random bit patterns with a
fixed seed, and its text must be what the CLI writes."""

import json
import math
import random
import re
import struct

import numpy as np
import pytest

import onescope
from onescope import _lib
from conftest import ROOT, TESTDATA, cli


def digits(text):
    """(sign, significant digits, exponent of the last digit) of a decimal text."""
    m = re.fullmatch(r"(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?", text)
    assert m, text
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", int(m.group(4) or 0)
    d = (whole + frac).lstrip("0")
    e = exp - len(frac)
    while d.endswith("0"):
        d, e = d[:-1], e + 1
    return sign, d or "0", e if d else 0


def test_constant_mirrors_the_header():
    header = (ROOT / "include" / "onescope" / "common.h").read_text()
    m = re.search(r"#define ONESCOPE_NUMBER_MAX_LENGTH (\d+)", header)
    assert m and int(m.group(1)) == _lib.NUMBER_MAX_LENGTH
    assert len(onescope.format_number(-2.2250738585072014e-308)) == _lib.NUMBER_MAX_LENGTH


@pytest.mark.parametrize("value,text", [
    (0.1, "0.1"), (100.0, "100"), (2560, "2560"), (1e16, "10000000000000000"),
    (1e17, "1e+17"), (1e-5, "1e-05"), (0.0001, "0.0001"), (-0.0, "-0"), (0, "0"),
    (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf"), (True + 0.5, "1.5"),
])
def test_texts(value, text):
    assert onescope.format_number(value) == text


def test_float_texts():
    assert onescope.format_float(0.1) == "0.1"  # the float nearest 0.1
    assert onescope.format_float(1 / 3) == "0.33333334"
    assert onescope.format_float(123456792.0) == "123456790"
    assert onescope.format_float(1e9) == "1e+09"
    assert onescope.format_float(np.float32(1.5e-45)) == "1e-45"


def test_refuses_what_is_not_a_number():
    for bad in ("1.5", None, True, [1.0]):
        with pytest.raises(TypeError):
            onescope.format_number(bad)
    with pytest.raises(TypeError):
        onescope.format_float("0.1")


def test_random_doubles_agree_with_repr():
    rng = random.Random(0x6E756D)
    for _ in range(20000):
        v = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if not math.isfinite(v):
            continue
        text = onescope.format_number(v)
        assert float(text) == v or (v == 0 and text in ("0", "-0"))
        assert digits(text) == digits(repr(v).replace("e+", "e")), (v, text)


def test_random_floats_agree_with_numpy():
    rng = random.Random(0x666C74)
    for _ in range(20000):
        f = np.frombuffer(rng.getrandbits(32).to_bytes(4, "little"), dtype=np.float32)[0]
        if not np.isfinite(f):
            continue
        text = onescope.format_float(float(f))
        assert np.float32(text) == f
        assert digits(text) == digits(np.format_float_scientific(f, unique=True, exp_digits=1)
                                      .replace("e+", "e").replace(".e", "e")), (f, text)


def test_the_cli_writes_the_same_text():
    a, b = TESTDATA / "test-2d-600.ostm", TESTDATA / "test-10000.ostm"
    out = cli("diff", a, b, "--json", check=False).stdout
    d = onescope.diff(a, b)
    texts = re.findall(r'"a":([^",}]+),"b":([^,}]+)', out)  # the numbers, not the strings
    values = [(onescope.format_number(v.a), onescope.format_number(v.b)) for v in d.values]
    assert texts and texts[: len(values)] == values
    lines = cli("diff", a, b, check=False).stdout.splitlines()
    assert all(f"  {v}" in lines for v in d.values if not v.world)
    json.loads(out)

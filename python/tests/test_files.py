"""onescope.validate: every error of an OTS file, the one error of a binary file, none of a
good file, each equal to the CLI's line."""

import pytest

import onescope
from conftest import TESTDATA, cli


def test_a_good_file_has_no_errors(clip_path):
    assert onescope.validate(clip_path) == []
    assert onescope.validate(TESTDATA / "test-10000.ostm") == []


def test_every_error_of_a_clip_in_file_order(clip_path, tmp_path):
    text = clip_path.read_text()
    bad = text.replace('"LINEAR"', '"SMOOTH"').replace('"fps": 24.0', '"fps": "fast"', 1)
    assert bad != text
    path = tmp_path / "bad.anm"
    path.write_text(bad)
    errors = onescope.validate(path)
    assert len(errors) >= 2
    assert errors[0].field == "fps" and errors[0].code == onescope.Code.TYPE
    assert all(e.line is not None for e in errors)
    lines = [e.line for e in errors]
    assert lines == sorted(lines)
    # the same lines the CLI prints, in the same order
    p = cli("validate", path, check=False)
    assert p.returncode == 1
    assert p.stderr.splitlines()[: len(errors)] == [str(e) for e in errors]
    # the cap
    assert len(onescope.validate(path, max_errors=1)) == 1


def test_a_binary_file_gives_its_first_error(tmp_path):
    data = bytearray((TESTDATA / "test-10000.ostm").read_bytes())
    data[4] ^= 0xFF  # the version
    path = tmp_path / "v.ostm"
    path.write_bytes(bytes(data))
    errors = onescope.validate(path)
    assert len(errors) == 1 and errors[0].offset is not None
    assert onescope.validate(tmp_path / "missing.ospc")[0].code == onescope.Code.IO


def test_bad_arguments():
    with pytest.raises(ValueError):
        onescope.validate("x", max_errors=0)
    with pytest.raises(ValueError):
        onescope.validate("x", max_input_bytes=-1)

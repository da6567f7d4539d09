"""What the package says of itself. Its version is the library's: include/onescope/version.h
holds the one number, python/pyproject.toml repeats it, the loaded library says it, and
docs/python.md states no other (it said 0.3.0 for the 0.4.0 package). Every public member of
the recording API has a docstring, and the guide names the keyframe API."""

import re

import onescope
from conftest import ROOT


def _header_version():
    text = (ROOT / "include" / "onescope" / "version.h").read_text()
    parts = [re.search(rf"#define ONESCOPE_VERSION_{k} (\d+)", text).group(1)
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_package_version_is_the_headers():
    want = _header_version()
    project = (ROOT / "python" / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', project, re.M).group(1) == want
    assert onescope.library_version() == want


def test_the_guide_states_no_other_version():
    want = _header_version()
    guide = (ROOT / "docs" / "python.md").read_text()
    stated = re.findall(r"(?:[Pp]ackage|libonescope) version (\d+\.\d+(?:\.\d+)?)", guide)
    stated += re.findall(r"for libonescope (\d+\.\d+(?:\.\d+)?)", guide)
    wrong = [v for v in stated if not want.startswith(v)]
    assert not wrong, f"docs/python.md states version {wrong}; version.h says {want}"


def test_every_public_member_of_the_recording_api_is_documented():
    """Recording.keyframe and friends had no docstring (keyframe_count, module_id, ...)."""
    missing = []
    for cls in (onescope.Recording, onescope.Module, onescope.Explanation, onescope.Keyframe,
                onescope.RecordingDiff, onescope.ValueDifference, onescope.EntityDifference,
                onescope.VerifyResult, onescope.Verdict, onescope.KeyframeUse):
        if not (cls.__doc__ or "").strip():
            missing.append(cls.__name__)
        for name, member in vars(cls).items():
            if name.startswith("_") or not (callable(member) or isinstance(member, property)
                                            or isinstance(member, classmethod)):
                continue
            fn = member.__func__ if isinstance(member, classmethod) else member
            if not (getattr(fn, "__doc__", None) or "").strip():
                missing.append(f"{cls.__name__}.{name}")
    assert not missing, f"no docstring: {missing}"
    guide = (ROOT / "docs" / "python.md").read_text()
    for name in ("keyframe_every", "keyframe_count", "value_names", "keyframe(", "keyframe_use",
                 "RecordingDiff", "keyframe_disproved", "Verdict", "in_file"):
        assert name in guide, name

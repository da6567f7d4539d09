"""OTS .pvt/.anm: values equal the CLI's, byte-exact rewrite, sampling equals the CLI's
convert, conversions both ways, JSON errors with line and column."""

import json

import numpy as np
import pytest

import onescope
from conftest import cli, cli_json


def test_rig_equals_the_cli_and_rewrites_like_it(rig_path, tmp_path):
    rig = onescope.Rig.open(rig_path)
    j = cli_json("dump", "--json", rig_path)
    assert rig.name == j["name"] and rig.scale_factor == j["scale_factor"] and rig.fps == j["fps"]
    assert [(b.name, b.parent) for b in rig.bones] == [(b["name"], b["parent"]) for b in j["bones"]]
    assert rig.bones[0].pivot == (0.0, 1.0, 0.0)  # the file's pivot over the scale factor 2
    out = tmp_path / "r.pvt"
    cli("rewrite", rig_path, out)
    assert rig.to_bytes() == out.read_bytes()
    rig.write(tmp_path / "py.pvt")
    assert (tmp_path / "py.pvt").read_bytes() == out.read_bytes()
    assert onescope.Rig.from_bytes(out.read_bytes()).to_bytes() == out.read_bytes()


def test_clip_equals_the_cli_and_rewrites_like_it(clip_path, tmp_path):
    clip = onescope.Clip.open(clip_path)
    j = cli_json("dump", "--json", clip_path)
    assert list(clip.frame_range) == j["frame_range"] and clip.fps == j["fps"]
    assert clip.source == j["source"]
    assert [(p.name, p.parent, p.keyframe_count) for p in clip.pegs] == [
        (p["name"], p["parent"], p["keyframe_count"]) for p in j["pegs"]]
    out = tmp_path / "c.anm"
    cli("rewrite", clip_path, out)
    assert clip.to_bytes() == out.read_bytes()
    assert onescope.Clip.from_bytes(out.read_bytes()).to_bytes() == out.read_bytes()


@pytest.mark.parametrize("world", [False, True])
def test_baking_equals_the_cli_convert(clip_path, tmp_path, world):
    out = tmp_path / "c.ospc"
    cli("convert", clip_path, out, *(["--world"] if world else []))
    cache = onescope.Clip.open(clip_path).to_pose_cache(world_space=world)
    assert cache.to_bytes() == out.read_bytes()


def test_sampling_equals_the_cli_convert(clip_path, tmp_path):
    # With --world the bake is the samples themselves: every peg's sampled position and
    # rotation at every frame of the range must be what the CLI's conversion stored.
    out = tmp_path / "w.ospc"
    cli("convert", clip_path, out, "--world")
    baked = onescope.PoseCache.open(out)
    clip = onescope.Clip.open(clip_path)
    first, last = clip.frame_range
    assert baked.frame_count == last - first + 1
    for k, frame in enumerate(range(first, last + 1)):
        pos, rot, scl = clip.sample(frame)
        np.testing.assert_array_equal(baked.positions[k], pos.astype(np.float32))
        wxyz = rot.astype(np.float32)
        np.testing.assert_array_equal(baked.rotations[k], wxyz[:, [1, 2, 3, 0]])
        assert np.all(scl == 1)
    # A Bézier segment between keys, not only the keys: root-P moves 0 -> 11 over 1..12.
    assert clip.sample(6.5)[0][0, 0] == pytest.approx(5.5)


def test_cache_to_clip_and_back(ghost, tmp_path):
    cache = onescope.PoseCache.open(ghost)
    clip = onescope.Clip.from_pose_cache(cache, fps=30, source="maya")
    assert clip.fps == 30 and clip.source == "maya" and len(clip.pegs) == cache.entity_count
    out = tmp_path / "g.anm"
    cli("convert", ghost, out, "--fps", "30", "--source", "maya")
    assert clip.to_bytes() == out.read_bytes()


def test_euler_and_quaternion():
    q = onescope.euler_to_quat((90, 0, 0))
    np.testing.assert_allclose(q, [np.sqrt(0.5), np.sqrt(0.5), 0, 0], atol=1e-12)
    np.testing.assert_allclose(onescope.quat_to_euler_xyz(q), (90, 0, 0), atol=1e-9)


def test_json_errors_carry_line_and_column(clip_path, tmp_path):
    text = clip_path.read_text().replace('"fps": 24.0', '"fps": -1', 1)
    with pytest.raises(onescope.FormatError) as info:
        onescope.Clip.from_bytes(text.encode(), "neg.anm")
    e = info.value
    assert e.code == onescope.Code.RANGE and e.field == "fps"
    before = text[: text.index('"fps": -1')]
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + len('"fps": ') + 1  # 1-based, the value
    assert (e.line, e.column) == (line, column)
    bad = tmp_path / "neg.anm"
    bad.write_text(text)
    with pytest.raises(onescope.FormatError) as info:
        onescope.Clip.open(bad)
    assert str(info.value) == cli("validate", bad, check=False).stderr.strip()
    with pytest.raises(onescope.FormatError) as info:
        onescope.Rig.from_bytes(b'{"format": "octo_pvt",', "cut.pvt")
    assert info.value.code == onescope.Code.SYNTAX and info.value.line == 1


# ---- conversions take convert's options (issue 20.9) ----

def _unitless_cache(tmp_path):
    rng = np.random.default_rng(5)
    pos = rng.uniform(-3, 3, size=(6, 2, 3)).astype(np.float32)
    pos[2:4, 1] = pos[1, 1]  # a still run: needed keys and all keys differ
    path = tmp_path / "unitless.ospc"
    onescope.PoseCache.create(pos, label="no unit").write(path)
    return path


@pytest.mark.parametrize("flags", [
    ("--unit", "cm"),
    ("--unit", "0.25", "--up", "z", "--keys", "all"),
    ("--unit", "mm", "--up", "x", "--fps", "30", "--source", "harmony"),
    ("--unit", "m", "--keys", "needed"),
])
def test_cache_to_anm_takes_the_cli_options(tmp_path, flags):
    path = _unitless_cache(tmp_path)
    out = tmp_path / "c.anm"
    cli("convert", path, out, *flags)
    opts = dict(zip(flags[::2], flags[1::2]))
    unit = opts["--unit"]
    kw = dict(unit=float(unit) if unit[0].isdigit() else unit, up=opts.get("--up"),
              keys=opts.get("--keys", "needed"), fps=float(opts.get("--fps", 24)),
              source=opts.get("--source", "blender"))
    cache = onescope.PoseCache.open(path)
    assert cache.to_anm(**kw) == out.read_bytes()
    assert onescope.Clip.from_pose_cache(cache, **kw).to_bytes() == out.read_bytes()


def test_cache_to_anm_refuses_what_the_cli_refuses(tmp_path):
    cache = onescope.PoseCache.open(_unitless_cache(tmp_path))
    with pytest.raises(onescope.FormatError):
        cache.to_anm()  # a unitless cache needs a unit (the CLI's --unit)
    up_z = onescope.PoseCache.create(np.zeros((1, 1, 3)), unit="m", label="up=z")
    with pytest.raises(onescope.FormatError):
        up_z.to_anm(up="x")  # the label names another axis
    assert json.loads(up_z.to_anm())["coordinate_system"]["up"] == "z"
    assert json.loads(up_z.to_anm(up="z"))["coordinate_system"]["up"] == "z"


@pytest.mark.parametrize("flags", [("--unit", "mm"), ("--unit", "0.5", "--world"), ("--unit", "cm")])
def test_anm_to_cache_takes_the_cli_options(clip_path, tmp_path, flags):
    out = tmp_path / "c.ospc"
    cli("convert", clip_path, out, *flags)
    unit = flags[1]
    cache = onescope.Clip.open(clip_path).to_pose_cache(
        unit=float(unit) if unit[0].isdigit() else unit, world_space="--world" in flags)
    assert cache.to_bytes() == out.read_bytes()


def test_clip_open_follows_the_one_detection_rule(clip_path, tmp_path):
    """Issue 21.6: a "format" member past what detection reads (the first 1 MiB) is refused by
    Clip.open as by validate and dump; one just inside it is read by all three."""
    text = clip_path.read_text()
    member = text[text.index('"format"') : text.index('"octo_anm"') + len('"octo_anm"')]
    body = text.replace(member + ",", "", 1)
    assert body != text
    for pad, ok in ((1048576 - 200, True), (1048576, False)):
        path = tmp_path / f"pad-{pad}.anm"
        path.write_text(body.replace("{", "{" + " " * pad + member + ",", 1))
        verdicts = {cli(cmd, path, check=False).returncode for cmd in ("validate", "dump")}
        assert verdicts == {0 if ok else 1}
        if ok:
            assert onescope.Clip.open(path).fps == onescope.Clip.open(clip_path).fps
        else:
            with pytest.raises(onescope.FormatError) as e:
                onescope.Clip.open(path)
            assert e.value.code == onescope.Code.MAGIC and e.value.field == "format"

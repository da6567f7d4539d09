"""Arguments are checked before they reach ctypes (issue 21.16).

ctypes keeps an int's low bits: on 0.3.0 `Replay.ops(2**32 + 1)` was step 1's operations,
`Sim(2, 258, 1)` a world of 2 bodies, seed 2**32 seed 0 and max_input_bytes=-1 no limit at all.
Now every integer that crosses into ctypes goes through one check (onescope._check.integer):
a value outside its C type's range (or the rule's, where the package knows it) raises
ValueError naming the argument and the range, a value that is not an integer TypeError.

The first tests are the cases the issue lists; then a sweep over the public API puts, for every
integer argument, the value one below and one above its range (ValueError naming it), the
bounds themselves (no argument error: the library's own rules may still refuse them), a float
and a bool (TypeError).
"""

import math

import numpy as np
import pytest

import onescope
from conftest import TESTDATA

GHOST = TESTDATA / "test-2d-ghost.ospc"
R600 = TESTDATA / "test-2d-600.ostm"
CLIP = TESTDATA.parent / "tests" / "fuzz" / "corpus" / "anm_parse" / "valid-clip"
RIG = TESTDATA.parent / "tests" / "fuzz" / "corpus" / "pvt_parse" / "valid-rig"
V2 = TESTDATA.parent / "tests" / "fuzz" / "corpus" / "recording_parse"
U8, U16, U32, I32 = (0, 255), (0, 65535), (0, 2**32 - 1), (-(2**31), 2**31 - 1)
U64, SIZE = (0, 2**64 - 1), (0, 2**64 - 1)


def _pos(frames=2, entities=1):
    return np.zeros((frames, entities, 3), dtype=np.float32)


# ---- the listed cases ----


@pytest.mark.parametrize("bad", [-1, 0, 2**64, -(2**63)])
def test_ids_outside_1_to_2_64_are_refused(bad):
    with pytest.raises(ValueError, match=r"ids\[1\] must be 1 to 18446744073709551615"):
        onescope.PoseCache.create(_pos(1, 2), ids=[5, bad])
    assert [e.id for e in onescope.PoseCache.create(_pos(1, 2), ids=[1, 2**64 - 1]).entities] == [
        1, 2**64 - 1]


def test_start_step_2_63_is_refused():
    with pytest.raises(ValueError, match="start_step must be 0 to 9223372036854775807"):
        onescope.PoseCache.create(_pos(), start_step=2**63)
    with pytest.raises(ValueError, match="start_step"):
        onescope.PoseCache.create(_pos(), start_step=-1)


def test_a_step_index_past_2_32_is_not_another_step():
    r = onescope.Replay.open(R600)
    for bad in (2**32 + 1, 2**32, r.step_count, -1, 2**64 + 1):
        with pytest.raises(IndexError, match="index must be 0 to"):
            r.ops(bad)
        with pytest.raises(IndexError, match="index"):
            r.step_input(bad)
    assert r.ops(r.step_count - 1) == onescope.replay.decode_ops(
        2, r.step_input(r.step_count - 1))
    with pytest.raises(TypeError, match="index must be an integer"):
        r.ops(1.0)


def test_a_body_count_past_255_is_not_a_smaller_world():
    with pytest.raises(ValueError, match="body_count must be 0 to 255, not 258"):
        onescope.Sim(2, 258, 1)
    with pytest.raises(ValueError, match="body_count"):
        onescope.Replay.create(2, 258, 1)
    with pytest.raises(onescope.FormatError):
        onescope.Sim(2, 65, 1)  # in the byte, past the library's rule: the library says so


def test_seed_2_32_is_not_seed_0():
    with pytest.raises(ValueError, match="seed must be 0 to 4294967295, not 4294967296"):
        onescope.Sim(2, 2, 2**32)
    with pytest.raises(ValueError, match="seed"):
        onescope.Replay.create(2, 2, 2**32)
    assert onescope.Sim(2, 2, 2**32 - 1).hash != onescope.Sim(2, 2, 0).hash


def test_max_input_bytes_minus_one_is_not_no_limit(tmp_path):
    calls = [
        lambda v: onescope.PoseCache.open(GHOST, max_input_bytes=v),
        lambda v: onescope.PoseCache.open(GHOST, mmap=False, max_input_bytes=v),
        lambda v: onescope.PoseCache.from_bytes(GHOST.read_bytes(), max_input_bytes=v),
        lambda v: onescope.Replay.open(R600, max_input_bytes=v),
        lambda v: onescope.Replay.from_bytes(R600.read_bytes(), max_input_bytes=v),
        lambda v: onescope.Clip.open(CLIP, max_input_bytes=v),
        lambda v: onescope.Clip.from_bytes(CLIP.read_bytes(), max_input_bytes=v),
        lambda v: onescope.Rig.open(RIG, max_input_bytes=v),
        lambda v: onescope.Rig.from_bytes(RIG.read_bytes(), max_input_bytes=v),
        lambda v: onescope.validate(GHOST, max_input_bytes=v),
        lambda v: onescope.diff(GHOST, GHOST, max_input_bytes=v),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="max_input_bytes must be 0 to"):
            call(-1)
        with pytest.raises(ValueError, match="max_input_bytes"):
            call(2**64)
        call(SIZE[1])  # the largest size_t is a limit, not an error


def test_max_items_2_32_is_refused():
    with pytest.raises(ValueError, match="max_items must be 0 to 4294967295, not 4294967296"):
        onescope.diff(R600, R600, max_items=2**32)


def test_from_bytes_of_a_str_is_a_type_error():
    for cls in (onescope.PoseCache, onescope.Replay, onescope.Clip, onescope.Rig):
        with pytest.raises(TypeError, match="data must be bytes-like, not str"):
            cls.from_bytes(GHOST.read_bytes().decode("latin-1"))
    data = GHOST.read_bytes()
    for like in (bytearray(data), memoryview(data), np.frombuffer(data, dtype=np.uint8)):
        assert onescope.PoseCache.from_bytes(like).to_bytes() == data
    with pytest.raises(TypeError, match="snapshot"):
        onescope.Sim(2, 2, 1, snapshot="abc")
    with pytest.raises(TypeError, match="name must be a str"):
        onescope.PoseCache.from_bytes(data, b"bytes name")


def test_append_does_not_broadcast_one_vector_to_every_entity(tmp_path):
    head = onescope.PoseCache.create(_pos(1, 4))
    with onescope.PoseWriter(tmp_path / "w.ospc", head) as w:
        for bad in (np.zeros(3), np.zeros((1, 3)), np.zeros((4, 2)), np.zeros((5, 3))):
            with pytest.raises(ValueError, match=r"positions must be entities x 3 = \(4, 3\)"):
                w.append(bad)
        with pytest.raises(ValueError, match="rotations must be entities x 4"):
            w.append(np.zeros((4, 3)), np.array([0, 0, 0, 1.0]))
        w.append(np.ones((4, 3)))
    assert onescope.PoseCache.open(tmp_path / "w.ospc").frame_count == 1


@pytest.mark.parametrize("tolerance", [math.nan, -1.0, -0.0 - 1e-300, math.inf])
@pytest.mark.parametrize("which", ["position_tolerance", "angle_tolerance"])
def test_a_nan_or_negative_tolerance_is_an_argument_error(tolerance, which):
    # NaN > tolerance is false for every distance: a NaN tolerance made everything "same".
    with pytest.raises(ValueError, match=which):
        onescope.diff(GHOST, GHOST, **{which: tolerance})
    assert not onescope.diff(GHOST, GHOST, **{which: 0.0}).different


# ---- the sweep: every integer argument of the public API ----


def _writer(tmp_path, **kw):
    w = onescope.PoseWriter(tmp_path / "s.ospc", onescope.PoseCache.create(_pos()), **kw)
    w._release()


def _sweep(tmp_path):
    """(label, call taking the value, argument name in the message, range, error type)."""
    replay = onescope.Replay.open(R600)
    last = replay.step_count - 1
    created = onescope.PoseCache.create(_pos(1, 2))
    ok_sim = onescope.Sim(2, 2, 1)
    test_module = onescope.Module.test()
    setup = onescope.Recording.open(V2 / "valid-3d").setup
    rows = [
        ("PoseCache.open", lambda v: onescope.PoseCache.open(GHOST, max_input_bytes=v),
         "max_input_bytes", SIZE),
        ("PoseCache.create dimensions", lambda v: onescope.PoseCache.create(_pos(), dimensions=v),
         "dimensions", U8),
        ("PoseCache.create start_step", lambda v: onescope.PoseCache.create(_pos(), start_step=v),
         "start_step", (0, 2**63 - 1)),
        ("PoseCache.create ids", lambda v: onescope.PoseCache.create(_pos(), ids=[v]),
         r"ids\[0\]", (1, 2**64 - 1)),
        ("set_entity_name", lambda v: created.set_entity_name(v, "n"), "entity", U32),
        ("PoseWriter buffer_bytes", lambda v: _writer(tmp_path, buffer_bytes=v), "buffer_bytes",
         SIZE),
        ("PoseWriter max_segment_bytes", lambda v: _writer(tmp_path, max_segment_bytes=v),
         "max_segment_bytes", U64),
        ("Sim dimensions", lambda v: onescope.Sim(v, 2, 1), "dimensions", U8),
        ("Sim body_count", lambda v: onescope.Sim(2, v, 1), "body_count", U8),
        ("Sim seed", lambda v: onescope.Sim(2, 2, v), "seed", U32),
        ("Sim link role", lambda v: onescope.Sim(2, 2, 1, onescope.Link(v, 0, 1)), "link role",
         U8),
        ("Sim link body", lambda v: onescope.Sim(2, 2, 1, onescope.Link(1, v, 1)), "link body",
         U8),
        ("Sim link transfer_step", lambda v: onescope.Sim(2, 2, 1, onescope.Link(1, 0, v)),
         "link transfer_step", U16),
        ("Replay.create dimensions", lambda v: onescope.Replay.create(v, 2, 1), "dimensions", U8),
        ("Replay.create body_count", lambda v: onescope.Replay.create(2, v, 1), "body_count", U8),
        ("Replay.create seed", lambda v: onescope.Replay.create(2, 2, v), "seed", U32),
        ("Replay.create link", lambda v: onescope.Replay.create(2, 2, 1, (1, 0, v)),
         "link transfer_step", U16),
        ("Replay.open", lambda v: onescope.Replay.open(R600, max_input_bytes=v),
         "max_input_bytes", SIZE),
        ("Replay.ops", lambda v: replay.ops(v), "index", (0, last), IndexError),
        ("Replay.step_input", lambda v: replay.step_input(v), "index", (0, last), IndexError),
        ("Op body", lambda v: ok_sim.step([onescope.Op("impulse", v, (1, 0, 0))]), "op body", U8),
        ("Op value", lambda v: ok_sim.step([onescope.Op("impulse", 0, (0, v, 0))]),
         r"op value\[1\]", I32),
        ("Replay.append Op", lambda v: onescope.Replay.create(2, 2, 1).append(
            [onescope.Op("teleport", 0, (v, 0, 0))]), r"op value\[0\]", I32),
        ("Clip.open", lambda v: onescope.Clip.open(CLIP, max_input_bytes=v), "max_input_bytes",
         SIZE),
        ("Rig.from_bytes", lambda v: onescope.Rig.from_bytes(RIG.read_bytes(), max_input_bytes=v),
         "max_input_bytes", SIZE),
        ("validate max_errors", lambda v: onescope.validate(GHOST, max_errors=v), "max_errors",
         (1, 100000)),
        ("validate max_input_bytes", lambda v: onescope.validate(GHOST, max_input_bytes=v),
         "max_input_bytes", SIZE),
        ("diff max_items", lambda v: onescope.diff(R600, R600, max_items=v), "max_items", U32),
        ("diff offset", lambda v: onescope.diff(R600, GHOST, offset=(0, 0, v)), r"offset\[2\]",
         I32),
        ("diff max_input_bytes", lambda v: onescope.diff(GHOST, GHOST, max_input_bytes=v),
         "max_input_bytes", SIZE),
        # steps 0 checks nothing (the library refuses it too); 2**64-1 is the library's NOMEM
        ("Module.check steps", lambda v: test_module.check(setup, v), "steps", (1, 2**64 - 1)),
        ("Module.check horizon", lambda v: test_module.check(setup, 2, horizon=v), "horizon",
         U32),
        ("Module.check restore_every", lambda v: test_module.check(setup, 2, restore_every=v),
         "restore_every", (1, 2**32 - 1)),
    ]
    return [r if len(r) == 5 else (*r, ValueError) for r in rows]


def test_every_integer_argument_is_checked(tmp_path):
    checked = 0
    for label, call, name, (lo, hi), error in _sweep(tmp_path):
        for bad in (lo - 1, hi + 1):
            with pytest.raises(error, match=f"{name} must be {lo} to {hi}, not {bad}"):
                call(bad)
        for good in (lo, hi):
            try:
                call(good)  # passes the check; the library's own rule may still refuse it
            except onescope.FormatError:
                pass
        for wrong in (1.0, True, "1", None):
            with pytest.raises(TypeError, match=f"{name} must be an integer"):
                call(wrong)
        checked += 1
    assert checked == 33


def test_every_name_argument_lists_the_allowed_names():
    cache = onescope.PoseCache.create(_pos(), unit="m")
    sim = onescope.Sim(2, 2, 1, onescope.Link(3, 0, 0))
    cases = [
        (lambda: onescope.PoseCache.create(_pos(), shapes=["cube"]), "shapes[0]", onescope.SHAPES),
        (lambda: cache.set_text("title", "x"), "field", onescope.TEXT_FIELDS),
        (lambda: cache.to_anm(source="houdini"), "source", ("harmony", "blender", "maya")),
        (lambda: cache.to_anm(up="-y"), "up", ("x", "y", "z")),
        (lambda: cache.to_anm(keys="every"), "keys", ("needed", "all")),
        (lambda: onescope.Clip.from_pose_cache(cache, keys="none"), "keys", ("needed", "all")),
        (lambda: sim.step([onescope.Op("impuls", 0, (1, 0, 0))]), "op name",
         onescope.replay.OP_NAMES[1:]),
        (lambda: sim.field("densty"), "field", ("density", "occupancy")),
        (lambda: onescope.euler_to_quat((0, 0, 0), "xyy"), "order",
         ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx")),
    ]
    for call, name, allowed in cases:
        with pytest.raises(ValueError) as info:
            call()
        text = str(info.value)
        assert text.startswith(f"{name} must be one of "), text
        assert all(repr(a) in text for a in allowed), text


def test_every_number_argument_is_finite_and_in_range():
    cache = onescope.PoseCache.create(_pos(), unit="m")
    clip = onescope.Clip.open(CLIP)
    for bad in (math.nan, math.inf, 0.0, -1.0):
        with pytest.raises(ValueError, match="fps"):
            cache.to_anm(fps=bad)
        with pytest.raises(ValueError, match="unit"):
            clip.to_pose_cache(unit=bad)
    for bad in (math.nan, -math.inf):
        with pytest.raises(ValueError, match="frame"):
            clip.sample(bad)
    with pytest.raises(ValueError, match="metres_per_unit"):
        onescope.PoseCache.create(_pos(), metres_per_unit=-1.0)
    with pytest.raises(ValueError, match=r"sizes\[0\]\[1\]"):
        onescope.PoseCache.create(_pos(), sizes=[(1, math.nan, 0)])
    with pytest.raises(ValueError, match="degrees must be 3 numbers"):
        onescope.euler_to_quat((90, 0))  # ctypes would fill in a 0
    with pytest.raises(TypeError, match="fps must be a number"):
        cache.to_anm(fps="24")
    with pytest.raises(TypeError, match="world_space must be True or False"):
        clip.to_pose_cache(world_space="no")
    with pytest.raises(TypeError, match="mmap must be True or False"):
        onescope.PoseCache.open(GHOST, mmap=0)

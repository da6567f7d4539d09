"""onescope.diff gives the answers of `onescope diff --json` (the same C calls), as objects.

Every comparison here is checked field by field against the CLI's JSON for the same pair, on
testdata pairs and on crafted perturbations (one entity moved, one operation changed)."""

import math

import numpy as np
import pytest

import onescope
from conftest import TESTDATA, cli

R600 = TESTDATA / "test-2d-600.ostm"
R10K = TESTDATA / "test-10000.ostm"
LEFT = TESTDATA / "test-link-left.ostm"
RIGHT = TESTDATA / "test-link-right.ostm"
F2D = TESTDATA / "test-field-2d.ostm"
F3D = TESTDATA / "test-field-3d.ostm"
GHOST = TESTDATA / "test-2d-ghost.ospc"


def cli_diff(a, b, *flags):
    import json

    p = cli("diff", "--json", *flags, a, b, check=False)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def close(x, y):
    return x == y or math.isclose(x, y, rel_tol=1e-15, abs_tol=0.0)


def assert_same_replay(d, j):
    assert d.kind == j["kind"] == "replays"
    assert d.different == (j["status"] == "different")
    assert [(h.field, h.a, h.b) for h in d.header] == [
        (h["field"], h["a"], h["b"]) for h in j["header"]
    ]
    assert d.steps_compared == j["steps_compared"]
    assert d.diverged == j["diverged"]
    assert d.first_input_step == j["first_input_step"]
    if not d.diverged:
        assert d.step is None and d.stage is None and d.values == []
        return
    assert d.at_start == j["at_start"]
    assert (d.step, d.host_step_a, d.host_step_b) == (j["step"], j["host_step_a"], j["host_step_b"])
    assert ("start" if d.at_start else d.stage) == j["stage"]
    assert d.value_total == j["value_total"]
    assert [(v.name, v.unit, v.world, v.index, v.entity_id, v.a, v.b) for v in d.values] == [
        (v["name"], v["unit"], v["kind"] == "world", v["index"], v["id"], v["a"], v["b"])
        for v in j["values"]
    ]
    counts = j["entity_counts"]
    assert d.entity_counts == (None if counts is None else (counts["a"], counts["b"]))
    assert d.inputs_differ == j["inputs_differ"]
    if d.inputs_differ:
        assert d.op_index == j["op_index"]
        for mine, theirs in ((d.op_a, j["op_a"]), (d.op_b, j["op_b"])):
            if theirs is None:
                assert mine is None
            else:
                assert onescope.replay.OP_NAMES.index(mine.name) == theirs["code"]
                assert (mine.body, list(mine.value)) == (theirs["body"], theirs["values"])


def assert_same_cache(d, j):
    assert d.kind == j["kind"]
    assert d.different == (j["status"] == "different")
    assert [(h.field, h.a, h.b) for h in d.header] == [
        (h["field"], h["a"], h["b"]) for h in j["header"]
    ]
    for key in ("unitless", "exact", "compares_rotation", "overlap_frames", "only_in_a",
                "only_in_b", "past_tolerance", "max_ulps"):
        assert getattr(d, key) == j[key], key
    assert list(d.steps_a) == j["steps_a"] and list(d.steps_b) == j["steps_b"]
    assert (list(d.overlap) if d.overlap else None) == j["overlap"]
    if j["first"] is None:
        assert d.first is None
    else:
        f = j["first"]
        assert (d.first.step, d.first.id, d.first.presence) == (f["step"], f["id"], f["presence"])
        assert close(d.first.distance, f["distance"]) and close(d.first.angle, f["angle"])
    assert len(d.entities) == len(j["entities"]) == len(d.table)
    for e, je, row in zip(d.entities, j["entities"], d.table):
        for key, value in je.items():
            mine = getattr(e, key)
            assert close(mine, value) if isinstance(value, float) else mine == value, key
            assert row[key] == mine, key  # the array and the dataclasses hold one answer


@pytest.mark.parametrize(
    "a,b", [(R600, R10K), (LEFT, RIGHT), (F2D, F3D), (R600, R600), (F3D, F3D), (R10K, R600)]
)
def test_replay_pairs_match_the_cli(a, b):
    assert_same_replay(onescope.diff(a, b), cli_diff(a, b))


def test_max_items_matches_the_cli():
    d = onescope.diff(R600, R10K, max_items=3)
    assert len(d.values) == 3 < d.value_total
    assert_same_replay(d, cli_diff(R600, R10K, "--max", "3"))


def test_identical_inputs_are_the_same():
    d = onescope.diff(R600, str(R600))
    assert not d and not d.different and not d.diverged and d.header == []
    assert d.steps_compared == onescope.Replay.open(R600).step_count
    c = onescope.diff(GHOST, GHOST)
    assert not c and c.first is None and c.overlap_frames == 40 and c.max_ulps == 0
    assert np.all(c.table["max_distance"] == 0.0) and np.all(c.table["first_past_step"] == -1)
    assert_same_cache(c, cli_diff(GHOST, GHOST))


def test_replay_against_cache_matches_the_cli():
    assert_same_cache(onescope.diff(R600, GHOST), cli_diff(R600, GHOST))
    d = onescope.diff(R600, GHOST, offset=(1, -2, 0))
    assert d.kind == "replay_cache" and not d.compares_rotation
    assert_same_cache(d, cli_diff(R600, GHOST, "--offset", "1,-2,0"))


def _moved(tmp_path, frame, entity, dx):
    """The ghost cache with one entity moved dx units (mm) along x at one frame."""
    c = onescope.PoseCache.from_bytes(GHOST.read_bytes())
    assert c.present[frame, entity]
    c.positions[frame, entity, 0] += dx
    out = tmp_path / "moved.ospc"
    c.write(out)
    return out, c


def test_one_entity_moved_gives_its_max_error_and_step(tmp_path):
    moved, c = _moved(tmp_path, 7, 2, 3.0)
    step = c.start_step + 7
    eid = c.entities[2].id
    d = onescope.diff(GHOST, moved)
    assert d.different and d.past_tolerance
    e = d.entity(eid)
    assert e.max_distance_step == step == e.first_past_step
    assert e.max_distance == pytest.approx(3.0 * c.metres_per_unit, rel=1e-6)
    assert (d.first.step, d.first.id) == (step, eid)
    others = d.table[d.table["id"] != eid]
    assert np.all(others["max_distance"] == 0.0) and not others["past_tolerance"].any()
    assert_same_cache(d, cli_diff(GHOST, moved))
    # A tolerance above the move: compared, reported, not past it.
    t = onescope.diff(GHOST, moved, position_tolerance=0.004)
    assert not t.past_tolerance and t.first is None and not t.exact
    assert t.entity(eid).max_distance == e.max_distance
    assert_same_cache(t, cli_diff(GHOST, moved, "--position-tolerance", "0.004"))


def test_opened_objects_give_the_answers_of_paths(tmp_path):
    moved, c = _moved(tmp_path, 11, 5, -2.0)
    by_path = onescope.diff(GHOST, moved)
    opened = onescope.diff(onescope.PoseCache.open(GHOST), c)  # mapped vs parsed in memory
    mixed = onescope.diff(GHOST, c)
    for d in (opened, mixed):
        assert d.entities == by_path.entities and d.first == by_path.first
    r = onescope.Replay.open(R600)
    assert onescope.diff(r, R10K).values == onescope.diff(R600, R10K).values
    assert onescope.diff(r, onescope.PoseCache.open(GHOST)).entities == onescope.diff(
        R600, GHOST).entities


def test_one_operation_changed_is_the_first_input_step(tmp_path):
    base = onescope.Replay.create(2, 4, 7)
    changed = onescope.Replay.create(2, 4, 7)
    for k in range(20):
        base.append([onescope.Op("impulse", 1, (10, 0, 0))] if k == 12 else [])
        changed.append([onescope.Op("impulse", 1, (11, 0, 0))] if k == 12 else [])
    pa, pb = tmp_path / "a.ostm", tmp_path / "b.ostm"
    base.write(pa)
    changed.write(pb)
    d = onescope.diff(pa, pb)
    assert d.diverged and d.step == 12 and d.first_input_step == 12 and d.inputs_differ
    assert d.steps_compared == 12 and d.op_index == 0
    assert d.op_a == onescope.Op("impulse", 1, (10, 0, 0))
    assert d.op_b == onescope.Op("impulse", 1, (11, 0, 0))
    assert any(v.name == "velocity.x" and v.index == 1 and v.entity_id == 1 for v in d.values)
    assert all(v.unit in ("mm", "mm/step", "steps", "") for v in d.values)
    assert_same_replay(d, cli_diff(pa, pb))
    assert onescope.diff(base, changed).values == d.values


@pytest.mark.parametrize("which", ["a", "b"])
def test_a_truncated_cache_raises_with_its_offset(tmp_path, which):
    cut = tmp_path / "cut.ospc"
    cut.write_bytes(GHOST.read_bytes()[:-5])
    a, b = (cut, GHOST) if which == "a" else (GHOST, cut)
    with pytest.raises(onescope.FormatError) as info:
        onescope.diff(a, b)
    j = cli_diff(a, b)
    assert j["status"] == "invalid" and str(info.value) == j["error"]
    assert info.value.input == str(cut) and info.value.offset is not None


def test_a_truncated_replay_raises_with_its_offset(tmp_path):
    cut = tmp_path / "cut.ostm"
    cut.write_bytes(R600.read_bytes()[:-3])
    with pytest.raises(onescope.FormatError) as info:
        onescope.diff(R600, cut)
    assert str(info.value) == cli_diff(R600, cut)["error"]
    assert info.value.offset is not None and info.value.input == str(cut)


def test_other_files_and_orders_are_refused(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a replay")
    with pytest.raises(onescope.FormatError) as info:
        onescope.diff(junk, GHOST)
    assert info.value.offset == 0 and str(junk) in str(info.value)
    with pytest.raises(onescope.FormatError) as info:
        onescope.diff(tmp_path / "missing.ostm", GHOST)
    assert info.value.code == onescope.Code.IO
    with pytest.raises(TypeError, match="that order"):
        onescope.diff(GHOST, R600)
    with pytest.raises(TypeError):
        onescope.diff(42, GHOST)
    with pytest.raises(ValueError):
        onescope.diff(GHOST, GHOST, position_tolerance=-1.0)



def test_step_zero_comes_through_as_zero(tmp_path):
    # A field read as "value if value else None" would turn step 0 into None (a planted bug
    # the suite missed): every step-like field at 0 must come through as 0.
    base = onescope.Replay.create(2, 4, 7)
    changed = onescope.Replay.create(2, 4, 7)
    for k in range(5):
        base.append([onescope.Op("impulse", 1, (10, 0, 0))] if k == 0 else [])
        changed.append([onescope.Op("impulse", 1, (12, 0, 0))] if k == 0 else [])
    pa, pb = tmp_path / "a.ostm", tmp_path / "b.ostm"
    base.write(pa)
    changed.write(pb)
    d = onescope.diff(pa, pb)
    assert d.diverged and not d.at_start
    assert (d.step, d.first_input_step, d.op_index) == (0, 0, 0)
    assert (d.host_step_a, d.host_step_b) == (0, 0)
    assert d.stage == "input"
    assert_same_replay(d, cli_diff(pa, pb))
    # Two caches from step 0 that differ at frame 0.
    pos = np.zeros((3, 2, 3), dtype=np.float32)
    moved = pos.copy()
    moved[0, 1, 0] = 2.0
    ca, cb = tmp_path / "a.ospc", tmp_path / "b.ospc"
    onescope.PoseCache.create(pos, metres_per_unit=1.0, ids=[4, 9]).write(ca)
    onescope.PoseCache.create(moved, metres_per_unit=1.0, ids=[4, 9]).write(cb)
    c = onescope.diff(ca, cb)
    assert c.first is not None and (c.first.step, c.first.id) == (0, 9)
    assert c.steps_a == (0, 2) and c.steps_b == (0, 2) and c.overlap == (0, 2)
    e = c.entity(9)
    assert (e.max_distance_step, e.first_past_step, e.max_angle_step) == (0, 0, 0)
    assert c.table["max_distance_step"].tolist() == [0, 0]  # the still one: first compared
    assert_same_cache(c, cli_diff(ca, cb))

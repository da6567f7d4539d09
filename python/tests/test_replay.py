"""Replays and the simulation: values equal the CLI's, verify of every testdata replay,
runs, round trips, building, stepping from Python, errors."""

import numpy as np
import pytest

import onescope
from conftest import TESTDATA, cli, cli_json

OSTM_FILES = sorted(TESTDATA.glob("*.ostm"))
ids = lambda p: p.name  # noqa: E731


@pytest.mark.parametrize("path", OSTM_FILES, ids=ids)
def test_header_equals_the_cli(path):
    r = onescope.Replay.open(path)
    j = cli_json("dump", "--json", path)
    assert r.flags == j["flags"]
    assert r.setup == (j["dimensions"], j["body_count"], j["seed"])
    if j["link"] is None:
        assert r.link is None
    else:
        assert r.link == (j["link"]["role"], j["link"]["body"], j["link"]["transfer_step"])
    assert (r.step_count, r.start_step, r.input_bytes) == (
        j["step_count"], j["start_step"], j["input_bytes"])
    snap = r.start_snapshot
    assert (snap is not None) == j["has_start_snapshot"]
    assert len(snap or b"") == j["start_snapshot_size"]
    rows = r.hash_rows
    assert f"{int(rows[0]):016x}" == j["first_hash"] and f"{int(rows[-1]):016x}" == j["last_hash"]
    counts = dict.fromkeys(j["operation_counts"], 0)
    with_input = 0
    for step in range(r.step_count):
        ops = r.ops(step)
        with_input += bool(r.step_input(step))
        for op in ops:
            counts[op.name] += 1
    assert counts == j["operation_counts"] and with_input == j["steps_with_input"]
    world = r.start_world()
    assert world.gravity == j["start_gravity"]
    assert world.bodies.tolist() == [
        [b["alive"], b["still_count"], *b["position"], *b["velocity"]] for b in j["bodies"]]


@pytest.mark.parametrize("path", OSTM_FILES, ids=ids)
def test_verify_every_testdata_replay(path):
    result = onescope.Replay.open(path).verify()
    assert result.ok and result.first_row is None
    assert result.rows_checked == onescope.Replay.open(path).step_count + 1


@pytest.mark.parametrize("path", OSTM_FILES, ids=ids)
def test_round_trip_writes_identical_bytes(path, tmp_path):
    data = path.read_bytes()
    assert onescope.Replay.from_bytes(data).to_bytes() == data
    out = tmp_path / path.name
    onescope.Replay.open(path).write(out)
    assert out.read_bytes() == data


def test_run_equals_the_cli_with_bodies():
    path = TESTDATA / "test-2d-600.ostm"
    r = onescope.Replay.open(path)
    res = r.run(bodies=True)
    assert np.array_equal(res.hashes, res.expected)
    rows = cli_json("replay", path, "--json", "--state")["rows"]
    assert [f"{int(h):016x}" for h in res.hashes] == [row["hash"] for row in rows]
    assert res.host_steps.tolist() == [row["step"] for row in rows]
    for got, row in zip(res.bodies, rows):
        assert got.tolist() == [[b["alive"], b["still_count"], *b["position"], *b["velocity"]]
                                for b in row["bodies"]]


def test_a_changed_hash_row_is_a_result_naming_it(tmp_path):
    path = TESTDATA / "test-2d-600.ostm"
    data = bytearray(path.read_bytes())
    rows = onescope.Replay.from_bytes(bytes(data)).hash_rows
    # Flip one bit of hash row 100, found by its little-endian bytes.
    at = bytes(data).index(int(rows[100]).to_bytes(8, "little"))
    data[at] ^= 1
    bad = tmp_path / "bad.ostm"
    bad.write_bytes(bytes(data))
    result = onescope.Replay.open(bad).verify()
    assert not result.ok and result.first_row == 100 and result.first_step == 100
    assert result.expected == int(rows[100]) ^ 1 and result.actual == int(rows[100])
    assert result.message in cli("verify", bad, check=False).stderr


def test_build_a_replay_and_step_the_same_world_from_python():
    ops = [[], [onescope.Op("impulse", 0, (300, -200, 100))], [onescope.Op("gravity", value=(-5, 0, 0))],
           [onescope.Op("spawn", value=(5000, 5000, 5000)), onescope.Op("teleport", 1, (10, 20, 30))],
           [onescope.Op("remove", 2)]]
    r = onescope.Replay.create(3, 4, 99)
    for step in ops:
        r.append(step)
    r.compute_hash_rows()
    back = onescope.Replay.from_bytes(r.to_bytes(), "built.ostm")
    assert back.verify().ok and back.step_count == len(ops)
    assert [back.ops(i) for i in range(len(ops))] == ops
    sim = onescope.Sim(3, 4, 99)
    hashes = [sim.hash]
    for step in ops:
        sim.step(step)
        hashes.append(sim.hash)
    assert hashes == back.hash_rows.tolist()
    assert sim.host_step == len(ops) and sim.gravity == -5 and sim.bodies.shape == (5, 8)
    assert sim.bodies[2, 0] == 0  # removed
    restored = onescope.Sim(3, 4, 0, snapshot=sim.snapshot())
    assert restored.hash == sim.hash


def test_fields_of_a_linked_world():
    r = onescope.Replay.open(TESTDATA / "test-field-3d.ostm")
    world = r.start_world()
    assert world.field("density").shape == (81,)
    assert world.field("occupancy").shape == (128,)
    with pytest.raises(onescope.FormatError) as info:
        onescope.Sim(3, 2, 1).field("density")
    assert info.value.code == onescope.Code.UNSUPPORTED


def test_errors_carry_the_offset(tmp_path):
    with pytest.raises(onescope.FormatError) as info:
        onescope.Sim(2, 2, 1).step([onescope.Op("impulse", 0, (1, 1, 1))])  # z in 2D
    assert info.value.code == onescope.Code.RANGE
    with pytest.raises(onescope.FormatError) as info:
        onescope.Replay.create(4, 1, 0)
    assert info.value.code == onescope.Code.RANGE and info.value.offset is not None
    data = (TESTDATA / "test-2d-600.ostm").read_bytes()
    cut = tmp_path / "cut.ostm"
    cut.write_bytes(data[:40])
    with pytest.raises(onescope.FormatError) as info:
        onescope.Replay.open(cut)
    assert info.value.offset is not None
    assert str(info.value) == cli("validate", cut, check=False).stderr.strip()
    no_rows = onescope.Replay.create(3, 1, 0)
    no_rows.append([])
    with pytest.raises(onescope.FormatError) as info:
        no_rows.verify()
    assert info.value.code == onescope.Code.FLAGS and info.value.offset == 6

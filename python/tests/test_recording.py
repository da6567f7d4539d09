"""Module recordings (OSTM v2) from Python: read, checked and verified with the test module and
with the springs example as a plug-in, compiled here as a user would (no copy of the library
in it), and the loader's refusals."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import onescope
from conftest import CORPUS, ROOT, cli

V2 = CORPUS / "recording_parse"
SPRINGS = ROOT / "examples" / "springs"


@pytest.fixture(scope="session")
def springs(tmp_path_factory):
    """(plug-in path, a 600-step recording of 64 particles made by the example's engine)."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) to build the springs example with")
    d = tmp_path_factory.mktemp("springs")
    libdir = os.path.dirname(onescope.library_path)
    inc = ["-std=c17", "-D_POSIX_C_SOURCE=200809L", "-I", str(ROOT / "include"), "-I", str(SPRINGS)]
    plugin = d / "springs_module.so"
    subprocess.run([cc, *inc, "-shared", "-fPIC", "-o", str(plugin),
                    str(SPRINGS / "springs.c"), str(SPRINGS / "springs_module.c"), "-lm"],
                   check=True)
    rec = d / "springs_record"
    subprocess.run([cc, *inc, "-o", str(rec), str(SPRINGS / "record.c"),
                    str(SPRINGS / "springs.c"), str(SPRINGS / "springs_module.c"),
                    f"-L{libdir}", f"-l:{os.path.basename(onescope.library_path)}",
                    f"-Wl,-rpath,{libdir}", "-lm"], check=True)
    run = d / "run.ostm"
    subprocess.run([str(rec), str(run), "600", "64"], check=True, capture_output=True)
    rows = d / "rows.ostm"
    subprocess.run([str(rec), "--entity-rows", str(rows), "600", "64"], check=True,
                   capture_output=True)
    keys = d / "keys.ostm"
    subprocess.run([str(rec), "--entity-rows", "--keyframes", "50", str(keys), "600", "64"],
                   check=True, capture_output=True)
    # the same module's file with keyframes, kept beside the fixture's three
    (d / "keys.path").write_text(str(keys))
    return plugin, run, rows


def test_the_test_module_verifies_a_recording():
    m = onescope.Module.test()
    assert (m.id, m.version) == ("onescope.test", "1")  # the table's head read right
    r = onescope.Recording.open(V2 / "valid-3d")
    assert r.module_id == "onescope.test" and r.module_version == "1"
    res = r.verify(m)
    assert res.ok and res.rows_checked == r.step_count + 1 > 1
    rows = r.hash_rows
    assert rows is not None and len(rows) == r.step_count + 1
    # the bytes come back as they were read
    assert r.to_bytes() == (V2 / "valid-3d").read_bytes()


def test_a_changed_row_is_a_mismatch_with_the_clis_line():
    r = onescope.Recording.open(V2 / "changed-row")
    res = r.verify(onescope.Module.test())
    assert not res.ok and res.first_row is not None and res.expected != res.actual
    p = cli("verify", V2 / "changed-row", check=False)
    assert p.returncode == 1
    assert res.message in p.stderr  # one library line, said alike by both


def test_another_module_is_refused_naming_both():
    data = bytearray((V2 / "valid-3d").read_bytes())
    assert data[13:26] == b"onescope.test"
    data[13:26] = b"onescope.tesu"  # same length: the container stays valid
    r = onescope.Recording.from_bytes(bytes(data), "other.ostm")
    with pytest.raises(onescope.FormatError) as e:
        r.verify(onescope.Module.test())
    assert e.value.code == onescope.Code.MODULE
    assert r.module_id in str(e.value) and "onescope.test" in str(e.value)
    with pytest.raises(TypeError):
        r.verify("onescope.test")


def test_springs_plugin_verifies_and_the_planted_divergence_is_found(springs, monkeypatch):
    plugin, run, _ = springs
    m = onescope.Module.load(plugin)
    assert (m.id, m.version) == ("example.springs", "1")
    r = onescope.Recording.open(run)
    assert r.module_id == "example.springs" and r.step_count == 600
    r.check(m)
    res = r.verify(m)
    assert res.ok and res.rows_checked == 601
    # the example's planted divergence: particle 5 from step 250, so row 251 differs first
    monkeypatch.setenv("SPRINGS_PLANT", "250:5")
    res = r.verify(m)
    assert not res.ok and res.first_row == 251
    p = subprocess.run([str(onescope_cli()), "--module", str(plugin), "verify", str(run)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 1 and res.message in p.stderr
    # the test module is not the file's
    with pytest.raises(onescope.FormatError) as e:
        r.verify(onescope.Module.test())
    assert e.value.code == onescope.Code.MODULE


def onescope_cli():
    from conftest import CLI
    return CLI


def test_loader_refusals_name_the_file(tmp_path, springs):
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a shared library\n")
    with pytest.raises(onescope.FormatError) as e:
        onescope.Module.load(junk)
    assert e.value.code == onescope.Code.MODULE and str(junk) in str(e.value)
    assert "dlopen refused" in str(e.value)
    # a library without the entry symbol: the library itself
    with pytest.raises(onescope.FormatError) as e:
        onescope.Module.load(onescope.library_path)
    assert "expected the entry symbol onescope_module_entry, found none" in str(e.value)


def test_entity_rows_name_the_entities_from_the_file(springs, monkeypatch):
    plugin, run, rows = springs
    m = onescope.Module.load(plugin)
    r = onescope.Recording.open(rows)
    assert r.flags & 0x0004
    e0 = r.entity_row(0)
    assert len(e0.ids) == 64 and list(e0.ids[:3]) == [0, 1, 2]
    assert e0.hashes.dtype == np.uint32 and e0.groups.shape == (64, 2)
    assert onescope.Recording.open(run).entity_row(0) is None
    with pytest.raises(IndexError):
        r.entity_row(602)
    assert onescope.verify_recording_file(rows, m).ok
    monkeypatch.setenv("SPRINGS_PLANT", "250:5")
    whole = r.verify(m)
    streamed = onescope.verify_recording_file(rows, m)
    assert not whole.ok and whole == streamed and whole.first_row == 251
    x = r.explain(m, 251)
    assert (x.row, x.entities_recorded, x.entities_found, x.differing) == (251, 64, 64, 2)
    assert [d.id for d in x.listed] == [5, 6]
    assert all(d.recorded and d.found and d.groups == [0, 1] for d in x.listed)
    assert r.explain(m, 250).differing == 0
    with pytest.raises(onescope.FormatError) as err:
        onescope.Recording.open(run).explain(m, 251)
    assert err.value.code == onescope.Code.FLAGS
    with pytest.raises(IndexError):
        r.explain(m, 602)


def test_keyframes_read_without_the_module_and_localise(springs, monkeypatch):
    plugin, run, rows = springs
    keys = (rows.parent / "keys.path").read_text()
    r = onescope.Recording.open(keys)
    assert (r.keyframe_every, r.keyframe_count) == (50, 12)
    names = r.value_names  # read from the file: no module loaded yet
    assert len(names) > 0 and all(isinstance(n, str) and n for n in names)
    k = r.keyframe(4)
    assert k.row == 250 and len(k.snapshot) > 0
    assert k.ids.shape == (64,) and k.values.shape == (64, len(names))
    assert list(k.ids[:3]) == [0, 1, 2] and np.isfinite(k.values).all()
    with pytest.raises(IndexError):
        r.keyframe(12)
    plain = onescope.Recording.open(run)
    assert (plain.keyframe_every, plain.keyframe_count, plain.value_names) == (0, 0, [])
    m = onescope.Module.load(plugin)
    assert r.verify(m).ok
    monkeypatch.setenv("SPRINGS_PLANT", "250:5")
    assert r.verify(m).first_row == 251
    x = r.explain(m, 251)
    assert [d.id for d in x.listed] == [5, 6]
    assert (x.start_row, x.restore_failed, x.steps_run, x.table_row) == (250, False, 50, 300)
    assert x.values_compared == 64 * len(names) and x.values_differing > 0
    assert x.values and all(v.value in names and v.found is not None and v.recorded != v.found
                            for v in x.values)
    # the file without keyframes explains the same entities from row 0, with no table
    y = onescope.Recording.open(rows).explain(m, 251)
    assert [d.id for d in y.listed] == [5, 6]
    assert (y.start_row, y.steps_run, y.table_row, y.values) == (0, 251, None, [])


# ---- Module.check: onescope_module_check_run ----

CHECKS = ["determinism", "snapshot", "restore", "stages", "hash"]
SPRINGS_STAGES = ["forces", "integrate", "collide"]  # examples/springs/springs.c


def _inputs(r):
    return [r.step_input(i) for i in range(r.step_count)]


def _same_as_cli(res, cli_json, stage_names):
    """Every field of Module.check's result against `onescope module check --json`'s."""
    assert (res.steps, res.failed) == (cli_json["steps"], cli_json["failed"])
    assert [c.name for c in res.checks] == [c["check"] for c in cli_json["checks"]] == CHECKS
    for c, j in zip(res.checks, cli_json["checks"]):
        assert (c.status, c.skipped_for) == (j["status"], j["skipped_for"]), (c, j)
        f = c.failure
        if f is None:
            assert c.status != "failed" and j["step"] is None
            continue
        assert f.step == j["step"] and f.what == j["what"]
        assert (None if f.stage is None else stage_names[f.stage]) == j["stage"]
        assert (f.entity, f.entity_id) == (j["entity"], j["entity_id"])
        assert (f.value or None) == j["value"]
        if f.value:
            assert list(f.values) == j["values"]
        assert [f"{h:016x}" for h in f.hashes] == j["hashes"]
        assert f.offset == j["offset"]


def test_the_test_module_passes_every_check():
    m = onescope.Module.test()
    r = onescope.Recording.open(V2 / "valid-3d")
    res = m.check(r.setup, 200)  # empty inputs: the bodies still fall
    assert (res.steps, res.failed) == (200, 0)
    assert [(c.name, c.status, c.skipped_for, c.failure) for c in res.checks] == [
        (name, "passed", None, None) for name in CHECKS
    ]
    assert res.outcome("stages").status == "passed"
    with pytest.raises(KeyError):
        res.outcome("stage")
    # the recording's own inputs, and a start snapshot with a round trip at every step
    assert m.check(r.setup, r.step_count, inputs=_inputs(r)) == (r.step_count, 0, res.checks)
    s = onescope.Recording.open(V2 / "valid-2d-snapshot")
    assert s.start_snapshot
    res = m.check(s.setup, s.step_count, restore_every=1, start_snapshot=s.start_snapshot,
                  inputs=_inputs(s))
    assert res.steps == s.step_count and res.failed == 0


def test_module_check_defaults_are_the_libraries():
    import inspect

    from onescope._lib import lib

    d = lib.onescope_module_check_def_default()
    p = inspect.signature(onescope.Module.check).parameters
    assert (p["steps"].default, p["horizon"].default, p["restore_every"].default) == (
        d.steps, d.horizon, d.restore_every)
    assert not d.input and not d.start_snapshot


def test_module_check_refusals_are_format_errors_and_argument_errors():
    m = onescope.Module.test()
    r = onescope.Recording.open(V2 / "valid-3d")
    with pytest.raises(onescope.FormatError) as e:  # the module cannot make its first world
        m.check(r.setup[:5])
    assert e.value.code == onescope.Code.LENGTH and e.value.field == "setup"
    assert str(e.value).startswith("onescope.test: ")
    with pytest.raises(onescope.FormatError) as e:  # nor restore it from these bytes
        m.check(r.setup, start_snapshot=b"\0" * 4)
    assert e.value.code == onescope.Code.LENGTH and "snapshot" in e.value.field
    with pytest.raises(TypeError, match="setup must be bytes-like"):
        m.check(r.setup.decode("latin-1"))
    with pytest.raises(TypeError, match="start_snapshot must be bytes-like"):
        m.check(r.setup, start_snapshot="x")
    with pytest.raises(ValueError, match="an input for each of the 5 steps, not 4"):
        m.check(r.setup, 5, inputs=[b""] * 4)
    with pytest.raises(TypeError, match=r"inputs\[1\] must be bytes-like"):
        m.check(r.setup, 2, inputs=[b"", "op"])
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        m.check(r.setup, 2, inputs=b"\0\0")
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        m.check(r.setup, 2, inputs=iter([b"", b""]))


def test_springs_passes_every_check_as_the_cli_says(springs):
    plugin, run, _ = springs
    m = onescope.Module.load(plugin)
    r = onescope.Recording.open(run)
    assert r.start_snapshot is None
    res = m.check(r.setup, 200, inputs=_inputs(r))
    assert res.failed == 0 and all(c.status == "passed" for c in res.checks)
    p = subprocess.run([str(onescope_cli()), "--module", str(plugin), "module", "check",
                        "--steps", "200", "--json", str(run)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    _same_as_cli(res, json.loads(p.stdout), SPRINGS_STAGES)
    assert m.check(r.setup, 200).failed == 0  # and with every input empty
    with pytest.raises(onescope.FormatError) as e:
        m.check(b"\1\0\0\0\0\0\0\0")  # one particle
    assert e.value.code == onescope.Code.RANGE and e.value.field == "setup"


@pytest.mark.parametrize("bug", ["snapshot", "hash"])
def test_springs_planted_bugs_fail_as_the_cli_says(springs, monkeypatch, bug):
    plugin, run, _ = springs
    m = onescope.Module.load(plugin)
    r = onescope.Recording.open(run)
    monkeypatch.setenv("SPRINGS_BUG", bug)
    res = m.check(r.setup, 200, inputs=_inputs(r))
    p = subprocess.run([str(onescope_cli()), "--module", str(plugin), "module", "check",
                        "--steps", "200", "--json", str(run)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 1, p.stderr
    _same_as_cli(res, json.loads(p.stdout), SPRINGS_STAGES)
    assert res.failed == 1
    if bug == "snapshot":
        # velocities left out of the snapshot: both snapshots lack them, so the round trip
        # agrees and the restored world parts at once, at the first round trip with motion
        assert res.outcome("snapshot").status == "passed"
        f = res.outcome("restore").failure
        assert f.step == 32 and f.stage is None and f.offset is None
        assert (f.entity, f.entity_id, f.value) == (0, 0, "velocity.x")
        assert f.values[0] != 0.0 and f.values[1] == 0.0 and f.hashes[0] != f.hashes[1]
    else:
        # velocities left out of the hash: stage forces changes only them (step 0's impulse)
        f = res.outcome("hash").failure
        assert f.step == 0 and SPRINGS_STAGES[f.stage] == "forces"
        assert f.value.startswith("velocity.") and f.values[0] != f.values[1]
        assert f.hashes[0] == f.hashes[1] and f"the hash stays {f.hashes[0]:016x}" in f.what


def test_springs_state_outside_the_world_fails_determinism(springs, monkeypatch):
    """A step that reads a counter kept outside every world (SPRINGS_BUG=global). The other
    class, a stage visiting heap nodes by address (order), depends on the process's heap
    history, so it is checked in a fresh process by the CLI (examples/springs/run.sh)."""
    bug = "global"
    plugin, run, _ = springs
    m = onescope.Module.load(plugin)
    r = onescope.Recording.open(run)
    inputs = _inputs(r)
    monkeypatch.setenv("SPRINGS_BUG", bug)
    res = m.check(r.setup, 200, inputs=inputs)
    f = res.outcome("determinism").failure
    assert res.outcome("determinism").status == "failed" and res.failed >= 1
    assert f.step == 0 and f.stage is None
    assert (f.entity, f.entity_id) == (0, 0) and f.value == "position.x"
    assert f.values[0] != f.values[1] and f.hashes[0] != f.hashes[1]
    assert "in the first world" in f.what and "in the second" in f.what


def test_springs_bare_table_skips_the_checks_naming_the_slot(springs, monkeypatch):
    plugin, run, _ = springs
    monkeypatch.setenv("SPRINGS_BARE", "1")
    m = onescope.Module.load(plugin)  # the entry point is asked again: the bare table
    r = onescope.Recording.open(run)
    res = m.check(r.setup, 50, inputs=_inputs(r))
    assert res.failed == 0
    assert [(c.name, c.status, c.skipped_for) for c in res.checks] == [
        ("determinism", "passed", None), ("snapshot", "skipped", "snapshot"),
        ("restore", "skipped", "snapshot"), ("stages", "skipped", "run_stage"),
        ("hash", "skipped", "values"),
    ]

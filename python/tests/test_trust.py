"""What Python says about a faulty module (issue 38, items 1, 2, 4, 5 and 20): the verdict of a
verify, the explanation's judgement of a keyframe, and the diff of two module recordings,
against the library's own fields and the CLI's output.

The module is tests/agents/agents_module.c (the C trust tests' module: agents spawned and removed,
four stages, faults switchable), built here as a plug-in whose entry reads its faults from
$AGENTS_FAULTS each time it is loaded ("snapshot", "hash", "bug=STEP:ID[:energy]",
"refuse=STEP"), and a recorder that writes its runs in tool mode."""

import json
import os
import pathlib
import struct
import subprocess

import pytest

import onescope
from conftest import CLI, CORPUS, ROOT

V2 = CORPUS / "recording_parse"

# The agents plug-in and its recorder are the C tests' own (tests/agents, built beside the CLI:
# ONESCOPE_AGENTS names their folder): OUT STEPS K FAULTS [PUSH_STEP] records the C trust
# tests' run (seed 7, 76 agents, a push every 7th step) with entity rows and a keyframe every K
# steps (0: none); PUSH_STEP adds a push of agent 3 there.
AGENTS = pathlib.Path(os.environ.get("ONESCOPE_AGENTS", ROOT / "build" / "gcc-O2" / "tests"))


@pytest.fixture(scope="session")
def agents(tmp_path_factory):
    """(plug-in path, record(name, steps, every, faults="", push=None) -> path)."""
    plugin, rec = AGENTS / "agents_plugin.so", AGENTS / "agents_record"
    if not plugin.exists() or not rec.exists():
        pytest.skip(f"the agents plug-in and recorder are not built in {AGENTS} "
                    "(cmake --build build/gcc-O2 --target agents_plugin agents_record)")
    d = tmp_path_factory.mktemp("agents")

    def record(name, steps, every, faults="", push=None):
        out = d / name
        if not out.exists():
            args = [str(rec), str(out), str(steps), str(every), faults]
            subprocess.run(args + ([str(push)] if push is not None else []), check=True,
                           timeout=120)
        return out

    return plugin, record


def _module(plugin, monkeypatch, faults):
    """The plug-in with these faults (the entry reads them at each load)."""
    monkeypatch.setenv("AGENTS_FAULTS", faults)
    return onescope.Module.load(plugin)


def _cli(*args, env=None):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120)


# ---- verify: the verdict, by which Python branches ----


def test_verdicts_of_a_verify(agents, monkeypatch):
    plugin, record = agents
    hashed = record("hash.ostm", 120, 16, "hash")
    plain = record("hash-plain.ostm", 120, 0, "hash")
    r = onescope.Recording.open(hashed)
    m = _module(plugin, monkeypatch, "hash")
    ok = r.verify(m)
    assert ok.ok and ok.verdict is onescope.Verdict.PASS and ok.keyframes_checked == 7
    assert (ok.table_differing, ok.table_entity, ok.table_value) == (0, None, None)
    # a planted energy bug the hash never sees: the keyframe table at row 48 does
    m = _module(plugin, monkeypatch, "hash,bug=40:3:energy")
    assert onescope.Recording.open(plain).verify(m).verdict is onescope.Verdict.PASS
    res = r.verify(m)
    assert not res.ok and res.verdict is onescope.Verdict.TABLE_MISMATCH
    assert (res.first_row, res.rows_checked, res.expected == res.actual) == (48, 49, True)
    assert (res.table_differing, res.table_entity) == (1, 3)
    assert r.value_names[res.table_value] == "energy"
    assert res.table_in_file and res.table_in_world
    assert res.table_recorded is not None and res.table_found is not None
    assert abs(res.table_recorded - res.table_found - 3.0) < 1e-4
    assert "keyframe table at row 48" in res.message and "entity 3 energy" in res.message
    assert onescope.verify_recording_file(hashed, m) == res  # streamed: the same verdict
    env = dict(os.environ, AGENTS_FAULTS="hash,bug=40:3:energy")
    p = _cli("--module", plugin, "verify", hashed, env=env)
    assert p.returncode == 1 and res.message in p.stderr
    # a velocity bug shows in the hash rows: a hash mismatch
    m = _module(plugin, monkeypatch, "hash,bug=40:3")
    res = r.verify(m)
    assert res.verdict is onescope.Verdict.HASH_MISMATCH and res.first_row == 41
    assert res.expected != res.actual and res.table_entity is None


def test_a_module_refusal_is_an_error_of_its_row_never_a_mismatch(agents, monkeypatch):
    plugin, record = agents
    path = record("refuse.ostm", 60, 16)
    m = _module(plugin, monkeypatch, "refuse=20")  # refuses step 20 with E_MISMATCH
    for verify in (lambda: onescope.Recording.open(path).verify(m),
                   lambda: onescope.verify_recording_file(path, m)):
        with pytest.raises(onescope.FormatError) as e:
            verify()
        assert e.value.code == onescope.Code.MISMATCH  # the module's own code, kept
        assert e.value.verdict is onescope.Verdict.MODULE_ERROR
        assert e.value.result.first_row == 21 and not e.value.result.ok
        assert e.value.result.expected is None and e.value.result.actual is None
        assert "step 20" in str(e.value) and "0000000000000000" not in str(e.value)
    assert r_ok(path, plugin, monkeypatch)


def r_ok(path, plugin, monkeypatch):
    res = onescope.Recording.open(path).verify(_module(plugin, monkeypatch, ""))
    return res.ok and res.verdict is onescope.Verdict.PASS and res.keyframes_checked == 3


def test_refused_files_say_their_verdict(tmp_path):
    no_rows = onescope.Recording.open(_no_hash_rows(tmp_path))
    with pytest.raises(onescope.FormatError) as e:
        no_rows.verify(onescope.Module.test())
    assert (e.value.code, e.value.verdict) == (onescope.Code.FLAGS, onescope.Verdict.NO_HASH_ROWS)
    assert e.value.result is None
    data = bytearray((V2 / "valid-3d").read_bytes())
    data[13:26] = b"onescope.tesu"  # another module: refused before any row
    with pytest.raises(onescope.FormatError) as e:
        onescope.Recording.from_bytes(bytes(data)).verify(onescope.Module.test())
    assert (e.value.code, e.value.verdict) == (onescope.Code.MODULE, onescope.Verdict.INVALID)
    # a recording of no steps: ok, but its verdict says only row 0 was compared
    def no_steps(row0):
        return onescope.Recording.from_bytes(
            b"OSTM" + struct.pack("<HHI", 2, 1, 0) + bytes([13]) + b"onescope.test" + bytes([1])
            + b"1" + struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", row0))

    wrong = no_steps(0).verify(onescope.Module.test())
    assert (wrong.ok, wrong.verdict, wrong.first_row) == (False, onescope.Verdict.HASH_MISMATCH, 0)
    res = no_steps(wrong.actual).verify(onescope.Module.test())
    assert res.ok and res.verdict is onescope.Verdict.NO_STEPS and res.rows_checked == 1


# ---- explain: how a keyframe was judged ----


def test_explanation_says_how_it_judged_the_keyframe(agents, monkeypatch):
    plugin, record = agents
    snap = record("snap.ostm", 120, 16, "snapshot")
    r = onescope.Recording.open(snap)
    m = _module(plugin, monkeypatch, "snapshot,bug=40:3")
    x = r.explain(m, 41, 8)
    assert x.keyframe_use is onescope.KeyframeUse.SNAPSHOT_INCOMPLETE and x.keyframe_row == 32
    assert x.keyframe_hashes_differ
    assert x.keyframe_hash_recorded != x.keyframe_hash_restored
    assert x.keyframe_hash_recorded == int(r.hash_rows[32])
    assert (x.keyframe_entity, x.keyframe_value) == (None, None)  # the hash said it first
    assert (x.start_row, x.differing, [d.id for d in x.listed]) == (0, 1, [3])
    assert x.has_hash and x.hash_recorded == int(r.hash_rows[41]) != x.hash_found
    assert x.table_row == 48 and x.values[0].id == 3 and x.values[0].in_file
    # a sound snapshot: the keyframe proves itself and is used
    good = onescope.Recording.open(record("good.ostm", 120, 16))
    m = _module(plugin, monkeypatch, "bug=40:3")
    x = good.explain(m, 41, 8)
    assert x.keyframe_use is onescope.KeyframeUse.USED and x.keyframe_row == 32
    assert (x.start_row, x.keyframe_hashes_differ, x.keyframe_hash_recorded) == (32, False, None)
    assert [d.id for d in x.listed] == [3]
    # a hash that misses energy: the keyframe at 112 reproduces row 120, so it is not used
    m = _module(plugin, monkeypatch, "hash,bug=40:3:energy")
    x = onescope.Recording.open(record("hash.ostm", 120, 16, "hash")).explain(m, 120, 8)
    assert x.keyframe_use is onescope.KeyframeUse.NOT_REPRODUCED and x.keyframe_row == 112
    assert (x.start_row, x.table_row, x.values[0].id) == (0, 48, 3)
    assert x.values[0].value == "energy" and x.values[0].recorded != x.values[0].found
    # no keyframe before row 0
    x = good.explain(m, 0, 8)
    assert (x.keyframe_use, x.keyframe_row) == (onescope.KeyframeUse.NONE, None)


def test_value_differences_of_entities_one_side_lacks(agents, monkeypatch):
    """An agent only the world holds is one difference with no value index (UINT32_MAX) and no
    recorded value (in_file False): Python used to look its name up as names[4294967295] and
    raise IndexError."""
    plugin, record = agents
    # agent 3 dies at step 170 of the clean run; the recorder's build takes 3 energy from it
    # at step 168, so in the file it dies at 168 and the keyframe at row 170 lacks it
    r = onescope.Recording.open(record("died.ostm", 200, 17, "bug=168:3:energy"))
    m = _module(plugin, monkeypatch, "")
    x = r.explain(m, 170, 1000)
    assert x.keyframe_use is onescope.KeyframeUse.USED and x.table_row == 170
    assert x.listed[0] == onescope.EntityDifference(3, False, True, 0, x.listed[0].found_hash, [])
    only = [v for v in x.values if v.id == 3]
    assert only == [onescope.ValueDifference(3, None, None, None, False)]
    both = [v for v in x.values if v.id != 3]
    assert both and all(v.in_file and v.value in r.value_names and v.recorded is not None
                        and v.found is not None and v.recorded != v.found for v in both)
    assert len(x.values) == x.values_differing


def _no_hash_rows(tmp_path):
    """A test-module recording of two empty steps whose flags hold no hash rows."""
    head = b"OSTM" + struct.pack("<HHI", 2, 0, 2) + bytes([13]) + b"onescope.test" + bytes([1])
    head += b"1" + struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0])
    path = tmp_path / "no-rows.ostm"
    path.write_bytes(head + struct.pack("<I", 0) * 2)
    return path


# ---- diff of two module recordings (a TypeError before) ----


def _same_as_cli_json(d, j):
    """Every field of a RecordingDiff against `onescope diff --json`'s object."""
    assert j["kind"] == d.kind == "recordings"
    assert (j["status"] == "different") == d.different
    for k in ("setup_differs", "steps_a", "steps_b", "rows_compared", "from_keyframes",
              "start_row", "steps_run", "restore_failed", "worlds_differ", "rows_differ"):
        assert j[k] == getattr(d, k), k
    assert j["rows_row"] == (d.rows_row if d.rows_differ else None)
    f = j["first"]
    assert (f is None) == (not d.worlds_differ)
    if f is None:
        return
    assert (f["row"], f["hash_a"], f["hash_b"]) == (d.row, f"{d.hash_a:016x}", f"{d.hash_b:016x}")
    assert f["input_differs"] == d.input_differs
    assert f["stage"] == (None if d.stage is None else {"index": d.stage, "name": d.stage_name})
    assert f["value_total"] == d.value_total
    assert f["entity_counts_differ"] == d.entity_counts_differ
    v = f["value"]
    assert (v is None) == (not d.value_differs)
    if v is not None:
        assert (v["entity"], v["entity_id"], v["name"]) == (d.entity, d.entity_id, d.value_name)
        assert (v["a"], v["b"], v["entities_differing"]) == (d.value_a, d.value_b,
                                                               d.entities_differing)
        assert v["ulps"] == (d.value_ulps or None) or v["ulps"] == d.value_ulps


def test_diff_of_two_test_module_recordings_is_the_clis():
    a, b = V2 / "valid-3d", V2 / "changed-row"
    d = onescope.diff(a, b)  # paths: the module is the built-in one the files name
    assert isinstance(d, onescope.RecordingDiff) and d and d.different
    assert (d.worlds_differ, d.row, d.input_differs, d.stage_name) == (True, 1, True, "input")
    assert d.value_differs and d.value_name == "velocity.z" and (d.value_a, d.value_b) == (-9, 77)
    assert not d.keyframe_disproved and d.restore_error is None
    p = _cli("diff", "--json", a, b)
    assert p.returncode == 1
    _same_as_cli_json(d, json.loads(p.stdout))
    # opened recordings, the method, an explicit module: the same result
    ra, rb = onescope.Recording.open(a), onescope.Recording.open(b)
    assert onescope.diff(ra, rb, module=onescope.Module.test()) == d
    assert ra.diff(rb) == d
    same = onescope.diff(ra, ra)
    assert not same and not same.worlds_differ and same.rows_compared == ra.step_count + 1
    # the field names are the C struct's
    from onescope import _lib
    c_names = [n for n, _ in _lib.RecordingDiffResult._fields_]
    assert list(d._fields[: len(c_names)]) == c_names


def test_diff_refuses_mixed_kinds_and_unknown_modules(agents, monkeypatch, tmp_path):
    plugin, record = agents
    with pytest.raises(TypeError, match="another module recording"):
        onescope.diff(V2 / "valid-3d", ROOT / "testdata" / "test-2d-600.ostm")
    with pytest.raises(TypeError, match="module= is for two module recordings"):
        onescope.diff(ROOT / "testdata" / "test-2d-600.ostm",
                      ROOT / "testdata" / "test-2d-600.ostm", module=onescope.Module.test())
    path = record("good.ostm", 120, 16)
    with pytest.raises(ValueError, match="not built into the library"):
        onescope.diff(path, path)
    with pytest.raises(onescope.FormatError) as e:  # the test module is not the file's
        onescope.diff(path, path, module=onescope.Module.test())
    assert e.value.code == onescope.Code.MODULE


def test_diff_with_keyframes_that_do_not_prove_themselves(agents, monkeypatch):
    """Item 5 through Python: keyframes whose snapshot misses a field are disproved (the worlds
    run from row 0) and the verdict is the one without keyframes."""
    plugin, record = agents
    base = {k: record(f"d-{k or 'clean'}.ostm", 120, 16, k) for k in ("", "snapshot")}
    pushed = {k: record(f"d-{k or 'clean'}-push.ostm", 120, 16, k, push=50)
              for k in ("", "snapshot")}
    clean = onescope.diff(base[""], pushed[""], module=_module(plugin, monkeypatch, ""))
    assert clean.from_keyframes and clean.start_row == 48 and not clean.keyframe_disproved
    m = _module(plugin, monkeypatch, "snapshot")
    faulty = onescope.diff(base["snapshot"], pushed["snapshot"], module=m)
    assert faulty.keyframe_disproved and not faulty.from_keyframes and faulty.start_row == 0
    assert (faulty.different, faulty.row, faulty.input_differs) == (True, 51, True)
    assert (clean.different, clean.row) == (faulty.different, faulty.row)
    assert faulty.steps_run > clean.steps_run
    env = dict(os.environ, AGENTS_FAULTS="snapshot")
    p = _cli("--module", plugin, "diff", "--json", base["snapshot"], pushed["snapshot"], env=env)
    assert p.returncode == 1, p.stderr
    _same_as_cli_json(faulty, json.loads(p.stdout))


def test_the_built_in_modules_by_id():
    """Module.for_recording picks the built-in module a file names; Box3D only in a build
    with it (else one FormatError, code UNSUPPORTED)."""
    from onescope._lib import lib

    r = onescope.Recording.open(V2 / "valid-3d")
    assert onescope.Module.for_recording(r).id == "onescope.test"
    if lib.onescope_module_box3d():
        m = onescope.Module.box3d()
        assert (m.id, m.origin) == ("onescope.box3d", "the library")
    else:
        with pytest.raises(onescope.FormatError) as e:
            onescope.Module.box3d()
        assert e.value.code == onescope.Code.UNSUPPORTED and "without" in str(e.value)

"""Module recordings (OSTM v2) from Python: read, checked and verified with the test module and
with the springs example as a plug-in, compiled here as a user would (no copy of the library
in it), and the loader's refusals."""

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

"""Pose caches: values equal the CLI's, the arrays are views that keep their cache alive,
round trips are byte-exact, errors carry the offset, the writer and recover."""

import ctypes
import gc
import os
import mmap as mmap_module
import subprocess
import sys
import weakref

import numpy as np
import pytest

import onescope
from conftest import ROOT, TESTDATA, cli, cli_json

OSPC_FILES = sorted(TESTDATA.glob("*.ospc"))


def base_of(array):
    """The object at the end of an array's base chain (through the read-only memoryview a
    mapped cache's views are made over, to the object it exports)."""
    while isinstance(array, (np.ndarray, memoryview)):
        array = array.obj if isinstance(array, memoryview) else array.base
    return array


@pytest.mark.parametrize("path", OSPC_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("mmap", [True, False], ids=["map", "read"])
def test_header_and_entities_equal_the_cli(path, mmap):
    cache = onescope.PoseCache.open(path, mmap=mmap)
    j = cli_json("dump", "--json", path)
    assert (cache.dimensions, cache.entity_count, cache.frame_count, cache.start_step) == (
        j["dimensions"], j["entity_count"], j["frame_count"], j["start_step"])
    assert cache.metres_per_unit == j["metres_per_unit"]
    for key in onescope.TEXT_FIELDS:
        assert getattr(cache, key) == j[key]
    assert int(cache.present.sum()) == j["present_pose_count"]
    assert [(e.id, e.shape, list(e.size), e.name) for e in cache.entities] == [
        (e["id"], e["shape"], e["size"], e["name"]) for e in j["entities"]]
    assert cache.mapped == mmap  # the testdata cache is aligned: mapped when asked


@pytest.mark.parametrize("path", OSPC_FILES, ids=lambda p: p.name)
def test_positions_and_rotations_equal_the_cli_conversion(path, tmp_path):
    # The CLI's OSPC -> .anm writes every present pose's position and rotation as numbers.
    out = tmp_path / "c.anm"
    cli("convert", path, out)
    assert onescope.PoseCache.open(path).to_anm() == out.read_bytes()
    clip = onescope.Clip.open(out)
    cache = onescope.PoseCache.open(path)
    # Every peg is a root whose keys give every present pose back: sampling at a present frame
    # gives the stored position, in metres (docs/ots.md 7.0), divided back into the cache's unit.
    pos_all = [clip.sample(f)[0] for f in range(cache.start_step, cache.start_step + cache.frame_count)]
    sampled = (np.array(pos_all, dtype=np.float64) / cache.metres_per_unit).astype(np.float32)
    present = cache.present
    assert np.array_equal(sampled[present], cache.positions[present])


def test_arrays_view_the_library_block(ghost):
    cache = onescope.PoseCache.open(ghost)
    poses_address = ctypes.cast(cache._c.poses, ctypes.c_void_p).value
    for view in (cache.positions, cache.rotations, cache.poses):
        owner = base_of(view)
        assert isinstance(owner, ctypes.Array)
        assert ctypes.addressof(owner) == poses_address
        assert owner._onescope_owner is cache
    pos = cache.positions
    assert pos.shape == (cache.frame_count, cache.entity_count, 3)
    assert cache.rotations.shape == (cache.frame_count, cache.entity_count, 4)
    assert pos.ctypes.data == poses_address  # no copy: the first float is the block's
    assert pos.strides == (cache.entity_count * 28, 28, 4)
    assert np.shares_memory(pos, cache.rotations) is False  # disjoint columns of one block
    assert np.shares_memory(pos, cache.poses)


def test_a_mapped_view_is_read_only_and_a_copy_is_independent(ghost):
    cache = onescope.PoseCache.open(ghost)
    assert cache.mapped
    view = cache.positions
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0, 0, 0] = 1.0
    before = view[0, 0].copy()
    copy = np.array(view)
    copy[0, 0] = (-1, -2, -3)
    assert np.array_equal(cache.positions[0, 0], before)
    assert cache.to_bytes() == ghost.read_bytes()


def test_writing_through_a_view_of_a_parsed_cache_changes_its_bytes(ghost):
    cache = onescope.PoseCache.from_bytes(ghost.read_bytes(), "g.ospc")
    assert not cache.mapped and cache.positions.flags.writeable
    cache.positions[0, 0, 1] += 1.0
    assert onescope.PoseCache.from_bytes(cache.to_bytes()).positions[0, 0, 1] == \
        np.float32(cache.positions[0, 0, 1])


@pytest.mark.parametrize("mmap", [True, False], ids=["map", "read"])
def test_an_array_outliving_its_cache_reads_right(ghost, mmap):
    expected = np.array(onescope.PoseCache.open(ghost).positions)
    cache = onescope.PoseCache.open(ghost, mmap=mmap)
    alive = weakref.ref(cache)
    positions = cache.positions
    del cache
    gc.collect()
    assert alive() is not None  # the view holds it
    # Churn the allocator so freed memory would be reused and show up as wrong values.
    junk = [onescope.PoseCache.from_bytes(ghost.read_bytes()) for _ in range(8)]
    for j in junk:
        j.positions[...] = 0
    del junk
    np.testing.assert_array_equal(positions, expected)
    del positions
    gc.collect()
    assert alive() is None  # and the last view releases it


@pytest.mark.parametrize("path", OSPC_FILES, ids=lambda p: p.name)
def test_round_trip_writes_identical_bytes(path, tmp_path):
    data = path.read_bytes()
    assert onescope.PoseCache.from_bytes(data).to_bytes() == data
    assert onescope.PoseCache.open(path).to_bytes() == data
    out = tmp_path / "again.ospc"
    onescope.PoseCache.open(path, mmap=False).write(out)
    assert out.read_bytes() == data


def test_errors_carry_the_offset_and_the_library_line(ghost, tmp_path):
    cut = tmp_path / "cut.ospc"
    cut.write_bytes(ghost.read_bytes()[:300])
    with pytest.raises(onescope.FormatError) as info:
        onescope.PoseCache.open(cut)
    e = info.value
    assert e.code == onescope.Code.TRUNCATED and e.name == "truncated"
    assert e.offset == 12 and e.line is None
    assert e.input == str(cut) and e.field == "entity count"
    assert "22" in e.found
    line = cli("validate", cut, check=False).stderr.strip()
    assert str(e) == line  # the same one-line message the CLI prints
    bad = bytearray(ghost.read_bytes())
    bad[6] = 3  # flags
    with pytest.raises(onescope.FormatError) as info:
        onescope.PoseCache.from_bytes(bytes(bad), "flags.ospc")
    assert info.value.offset == 6 and str(info.value).startswith("flags.ospc: offset 6: ")


def test_create_from_arrays_and_read_back():
    frames, entities = 5, 3
    pos = np.arange(frames * entities * 3, dtype=np.float32).reshape(frames, entities, 3)
    pos[2, 1] = (np.nan, 0, 0)
    rot = np.zeros((frames, entities, 4), dtype=np.float32)
    rot[..., 3] = 1
    cache = onescope.PoseCache.create(
        pos, rot, start_step=7, metres_per_unit=0.001, ids=[10, 20, 30],
        shapes=["sphere", "box", "point"], sizes=[(1, 0, 0), (1, 2, 3), (0, 0, 0)],
        names=["a", "b", "c"], unit_name="mm", label="made in Python")
    back = onescope.PoseCache.from_bytes(cache.to_bytes())
    assert back.start_step == 7 and back.label == "made in Python" and back.unit_name == "mm"
    assert [e.id for e in back.entities] == [10, 20, 30]
    assert back.entities[1] == onescope.Entity(20, "box", (1.0, 2.0, 3.0), "b")
    np.testing.assert_array_equal(back.positions, pos)
    assert not back.present[2, 1] and back.present.sum() == frames * entities - 1


def test_the_library_checks_created_values():
    pos = np.zeros((2, 2, 3), dtype=np.float32)
    pos[1, 1, 2] = np.inf
    cache = onescope.PoseCache.create(pos)
    with pytest.raises(onescope.FormatError) as info:
        cache.to_bytes()
    assert info.value.code == onescope.Code.NOT_FINITE
    with pytest.raises(onescope.FormatError) as info:
        onescope.PoseCache.create(pos, ids=[5, 5]).validate()
    assert info.value.code == onescope.Code.DUPLICATE
    with pytest.raises(onescope.FormatError):
        cache.set_entity_name(9, "nobody")


def _head(entities=4):
    return onescope.PoseCache.create(np.zeros((1, entities, 3)), unit_name="mm")


def test_writer_context_manager_writes_what_was_appended(tmp_path):
    out = tmp_path / "rec.ospc"
    rng = np.random.default_rng(1)
    frames = rng.uniform(-10, 10, size=(6, 4, 3)).astype(np.float32)
    with onescope.PoseWriter(out, _head()) as w:
        for f in frames:
            w.append(f)
        assert w.frames == 6
    assert w.frames_written == 6
    cache = onescope.PoseCache.open(out)
    np.testing.assert_array_equal(cache.positions, frames)
    assert not (tmp_path / "rec.ospc.partial").exists()


def test_writer_keeps_the_partial_on_an_exception_and_refuses_bad_values(tmp_path):
    out = tmp_path / "rec.ospc"
    partial = tmp_path / "rec.ospc.partial"
    with pytest.raises(RuntimeError):
        with onescope.PoseWriter(out, _head()) as w:
            w.append(np.zeros((4, 3)))
            raise RuntimeError("the engine stopped")
    assert not out.exists() and partial.exists()
    assert onescope.recover(partial) == 1  # the frame appended before the exception
    assert out.exists()
    out.unlink()
    partial.unlink()
    with pytest.raises(onescope.FormatError) as info:
        with onescope.PoseWriter(out, _head()) as w:
            w.append(np.full((4, 3), np.inf))
    assert info.value.code == onescope.Code.NOT_FINITE


def test_recover_keeps_the_frames_a_dead_process_flushed(tmp_path):
    out = tmp_path / "rec.ospc"
    child = f"""
import os, sys, numpy as np
sys.path[:0] = {sys.path!r}
import onescope
head = onescope.PoseCache.create(np.zeros((1, 3, 3)))
w = onescope.PoseWriter({str(out)!r}, head)
for k in range(5):
    w.append(np.full((3, 3), k, dtype=np.float32))
w.flush()
os._exit(0)  # dies without closing: the partial stays
"""
    subprocess.run([sys.executable, "-c", child], check=True)
    partial = tmp_path / "rec.ospc.partial"
    assert partial.exists() and not out.exists()
    assert onescope.recover(partial) == 5
    cache = onescope.PoseCache.open(out)
    assert cache.frame_count == 5
    assert np.array_equal(cache.positions[:, 0, 0], np.arange(5, dtype=np.float32))
    with pytest.raises(onescope.FormatError) as info:
        onescope.recover(ROOT / "testdata" / "test-2d-ghost.ospc", tmp_path / "x.ospc")
    assert info.value.offset is not None


# ---- read-only views, unaligned pose sections, the unit (issues 20.9, 21.15) ----

MAKE_WRITABLE = """
import sys
sys.path[:0] = {path!r}
import onescope
cache = onescope.PoseCache.open({cache!r})
assert cache.mapped
for view in (cache.positions, cache.rotations, cache.poses):
    try:
        view.flags.writeable = True
    except ValueError:
        continue
    view[...] = 1.0  # 0.3.0: the flag was taken, and this write killed the interpreter
    print("written")
    sys.exit(3)
print("refused")
"""


def _unaligned_files(tmp_path):
    """Caches whose pose sections start at each offset modulo 4 (the label's length moves
    it), the first one aligned; with their head sizes."""
    pos = np.arange(4 * 3 * 3, dtype=np.float32).reshape(4, 3, 3)
    pos[1, 2] = (np.nan, 0, 0)
    rot = np.zeros((4, 3, 4), dtype=np.float32)
    rot[..., 3] = 1
    rot[2, 1] = (0, 0.6, 0, 0.8)
    out = []
    for n in range(4):
        cache = onescope.PoseCache.create(pos, rot, start_step=3, metres_per_unit=0.001,
                                          unit_name="mm", label="x" * n)
        path = tmp_path / f"u{n}.ospc"
        cache.write(path)
        head = len(path.read_bytes()) - pos.shape[0] * pos.shape[1] * 28
        out.append((path, head, cache))
    assert sorted(h % 4 for _, h, _ in out) == [0, 1, 2, 3]
    return out


@pytest.mark.parametrize("which", ["aligned", "unaligned"])
def test_a_mapped_view_cannot_be_made_writable(ghost, tmp_path, which):
    # Run in a child: on 0.3.0 the write after the accepted flag is a SIGSEGV.
    path = ghost
    if which == "unaligned":
        path = next(p for p, head, _ in _unaligned_files(tmp_path) if head % 4)
    p = subprocess.run(
        [sys.executable, "-c", MAKE_WRITABLE.format(path=sys.path, cache=str(path))],
        capture_output=True, text=True,
    )
    assert (p.returncode, p.stdout.strip()) == (0, "refused"), (p.returncode, p.stderr)


def test_an_unaligned_pose_section_is_viewed_in_the_file(tmp_path):
    for path, head, made in _unaligned_files(tmp_path):
        cache = onescope.PoseCache.open(path)
        read = onescope.PoseCache.open(path, mmap=False)
        assert cache.mapped and not read.mapped  # a view, read-only, whatever the alignment
        view = cache.poses
        assert view.flags.aligned == (head % 4 == 0) and not view.flags.writeable
        if head % 4:
            assert isinstance(base_of(view), mmap_module.mmap)  # the file's own pages
        np.testing.assert_array_equal(view, read.poses)
        np.testing.assert_array_equal(cache.positions, made.positions)
        np.testing.assert_array_equal(cache.present, read.present)
        assert (cache.frame_count, cache.entity_count, cache.start_step) == (4, 3, 3)
        assert cache.entities == read.entities and cache.texts == read.texts
        with pytest.raises(ValueError):
            cache.positions[0, 0, 0] = 5.0
        # Everything the library reads poses for gives what the file holds.
        assert cache.to_bytes() == path.read_bytes()
        cache.validate()
        assert cache.to_anm() == read.to_anm()
        assert not onescope.diff(cache, read).different
        assert onescope.Clip.from_pose_cache(cache).to_bytes() == read.to_anm()
        # Changes are refused with the library's line for a mapped cache, whatever its kind.
        for change in (lambda c: c.set_text("label", "y"),
                       lambda c: c.set_entity_name(0, "y"),
                       lambda c: setattr(c, "metres_per_unit", 1.0),
                       lambda c: c.set_unit("m")):
            with pytest.raises(onescope.FormatError) as info:
                change(cache)
            assert info.value.code == onescope.Code.BAD_STATE
            assert "read-only mapped cache" in str(info.value)
        # A view outlives its cache; the cache works as a writer's head.
        positions = cache.positions
        with onescope.PoseWriter(tmp_path / "again.ospc", cache) as w:
            w.append(positions[0], cache.rotations[0])
        del cache
        gc.collect()
        np.testing.assert_array_equal(positions, made.positions)
        again = onescope.PoseCache.open(tmp_path / "again.ospc", mmap=False)
        np.testing.assert_array_equal(again.poses[0], read.poses[0])


def test_an_unaligned_file_changed_since_the_check_keeps_the_copy(tmp_path):
    path = next(p for p, head, _ in _unaligned_files(tmp_path) if head % 4)
    cache = onescope.PoseCache.open(path, mmap=False)  # the library's checked copy
    from onescope import pose_cache

    now = pose_cache._identity(os.stat(path))
    assert pose_cache._map_unaligned(bytes(path), now, cache) is not None
    changed = (now[0], now[1], now[2], now[3] + 1, now[4])  # rewritten after the check
    assert pose_cache._map_unaligned(bytes(path), changed, cache) is None
    assert pose_cache._map_unaligned(bytes(path), None, cache) is None


def test_mapped_refusals_read_alike(ghost, tmp_path):
    aligned = onescope.PoseCache.open(ghost)
    path = next(p for p, head, _ in _unaligned_files(tmp_path) if head % 4)
    unaligned = onescope.PoseCache.open(path)
    lines = []
    for cache in (aligned, unaligned):
        with pytest.raises(onescope.FormatError) as info:
            cache.set_text("label", "y")
        lines.append(str(info.value))
    assert lines[0] == lines[1]  # the library's own refusal and the package's are one line


def test_the_unit_of_a_cache_made_from_arrays(tmp_path):
    pos = np.zeros((2, 1, 3), dtype=np.float32)
    made = onescope.PoseCache.create(pos, unit="mm")
    assert (made.unit_name, made.metres_per_unit) == ("mm", 0.001)
    assert onescope.PoseCache.create(pos, unit=0.25).metres_per_unit == 0.25
    assert onescope.PoseCache.create(pos, metres_per_unit=2.0).unit_name == ""
    made.set_unit("cm")
    assert (made.unit_name, made.metres_per_unit) == ("cm", 0.01)
    made.metres_per_unit = 0.5
    made.unit_name = "half metres"
    path = tmp_path / "u.ospc"
    made.write(path)
    j = cli_json("dump", "--json", path)
    assert (j["unit_name"], j["metres_per_unit"]) == ("half metres", 0.5)
    for bad in ("km", 0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="unit"):
            onescope.PoseCache.create(pos, unit=bad)
        with pytest.raises(ValueError, match="unit"):
            made.set_unit(bad)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="metres_per_unit"):
            made.metres_per_unit = bad
    with pytest.raises(TypeError):
        onescope.PoseCache.create(pos, unit="mm", metres_per_unit=0.001)
    with pytest.raises(TypeError):
        onescope.PoseCache.create(pos, unit="mm", unit_name="mm")


def test_misspelt_names_list_the_allowed_ones():
    pos = np.zeros((1, 1, 3), dtype=np.float32)
    cases = [
        (lambda: onescope.PoseCache.create(pos, shapes=["sphre"]), onescope.SHAPES),
        (lambda: onescope.PoseCache.create(pos).set_text("lable", "x"), onescope.TEXT_FIELDS),
        (lambda: onescope.PoseCache.create(pos, lable="x"), onescope.TEXT_FIELDS),
        (lambda: onescope.PoseCache.create(pos).to_anm(source="blendr"), ("harmony", "blender", "maya")),
        (lambda: onescope.PoseCache.create(pos, unit="m").to_anm(up="w"), ("x", "y", "z")),
        (lambda: onescope.PoseCache.create(pos, unit="m").to_anm(keys="some"), ("needed", "all")),
    ]
    for make, allowed in cases:
        with pytest.raises(ValueError) as info:
            make()
        for name in allowed:
            assert repr(name) in str(info.value), (str(info.value), name)

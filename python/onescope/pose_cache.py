"""OSPC pose caches: reading (memory-mapped where the library can), NumPy views, writing,
the streaming writer and recovery. Format: docs/pose-cache.md."""

from __future__ import annotations

import ctypes
import mmap as _mmap
import os
import stat
import sys
from typing import List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _check, _lib
from ._check import I64, U8, U32, U64
from ._lib import lib
from .errors import Code, FormatError, check, path_bytes

__all__ = ["PoseCache", "PoseWriter", "Entity", "recover", "SHAPES", "TEXT_FIELDS"]

PathLike = Union[str, bytes, "os.PathLike[str]"]

#: Shape names by value (onescope_shape).
SHAPES = ("point", "sphere", "box", "capsule")
#: The six text fields in file order (onescope_pose_text_field).
TEXT_FIELDS = ("unit_name", "module_id", "library_version", "scene", "replay", "label")
_FLOATS_PER_POSE = 7  # position x y z, rotation x y z w


class Entity(NamedTuple):
    """One entity of a cache: ``id`` (not 0, unique), ``shape`` (a name from SHAPES),
    ``size`` (3 floats: sphere radius in x; box half extents; capsule radius x, half
    length y) and ``name``."""

    id: int
    shape: str
    size: tuple
    name: str


def _text(t: _lib.Text) -> str:
    if not t.length:
        return ""
    return ctypes.string_at(t.data, t.length).decode("utf-8")


_options = _check.parse_options


def _refuse_mapped(function: str) -> FormatError:
    """The library's BAD_STATE error for a change to a read-only mapped cache, formatted by
    the library (the same line its setters give a cache it mapped itself)."""
    err = _lib.Error()
    err.code = Code.BAD_STATE
    err.input = function.encode()
    err.field = b"cache"
    err.expected = b"a cache from parse or create"
    err.found = b"a read-only mapped cache"
    return FormatError._from_c(err)


class _FileView:
    """A read-only mapping of a cache file whose pose section the library could not map in
    place (it starts at an offset that is not a multiple of 4: a C onescope_pose there would
    be misaligned). NumPy views it unaligned; the library's copy is dropped."""

    def __init__(self, mapping: "_mmap.mmap", offset: int, frames: int, entities: int) -> None:
        self.mapping = mapping
        self.offset = offset
        self.frames = frames
        self.entities = entities

    def block(self) -> "np.ndarray":
        e = self.entities
        return np.ndarray(
            (self.frames, e, _FLOATS_PER_POSE), dtype="<f4", buffer=self.mapping,
            offset=self.offset, strides=(e * _FLOATS_PER_POSE * 4, _FLOATS_PER_POSE * 4, 4),
        )  # read-only: an ACCESS_READ mmap exports a read-only buffer


def _identity(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _map_unaligned(path: bytes, before: Optional[tuple], cache: "PoseCache") -> Optional[_FileView]:
    """A read-only view of path's pose section when the library copied it only because it is
    not 4-byte aligned (a little-endian host, a regular file); None otherwise. The file mapped
    here must be the one the library checked: the same device, inode, size and change times
    as before the library opened it (`before`); a file replaced or rewritten in between gives
    None, and the library's copy stays. (After that, as with the library's own mapping, the
    file must not change while mapped.)"""
    c = cache._c
    if sys.byteorder != "little" or path == b"-" or c.frame_count * c.entity_count == 0:
        return None
    head = ctypes.c_uint64()
    err = _lib.Error()
    if lib.onescope_pose_cache_head_size(cache._ptr, ctypes.byref(head), ctypes.byref(err)):
        return None
    offset = head.value
    if offset % 4 == 0:
        return None  # aligned yet copied: the host or the file kind decided, not alignment
    size = offset + c.frame_count * c.entity_count * 28
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return None
        mapping = _mmap.mmap(fd, size, access=_mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if before is None or _identity(st) != before:
        mapping.close()
        return None
    return _FileView(mapping, offset, c.frame_count, c.entity_count)


def _head_only(cache: "PoseCache") -> "ctypes._Pointer[_lib.PoseCacheStruct]":
    """A cache with cache's header, texts and entities and one frame of poses (the library's
    create needs one), for the calls that read no pose (the writer's head, the header)."""
    c = cache._c
    out = ctypes.POINTER(_lib.PoseCacheStruct)()
    err = _lib.Error()
    check(lib.onescope_pose_cache_create(c.dimensions, c.entity_count, 1, None,
                                         ctypes.byref(out), ctypes.byref(err)), err)
    h = out.contents
    h.start_step = c.start_step
    h.metres_per_unit = c.metres_per_unit
    try:
        for i in range(_lib.POSE_TEXT_COUNT):
            t = c.text[i]
            data = ctypes.string_at(t.data, t.length) if t.length else b""
            check(lib.onescope_pose_cache_set_text(out, i, data, len(data),
                                                   ctypes.byref(err)), err)
        for i in range(c.entity_count):
            e, d = c.entities[i], h.entities[i]
            d.id, d.shape = e.id, e.shape
            d.size[:] = e.size[:]
            name = ctypes.string_at(e.name.data, e.name.length) if e.name.length else b""
            check(lib.onescope_pose_cache_set_entity_name(out, i, name, len(name),
                                                          ctypes.byref(err)), err)
    except FormatError:
        lib.onescope_pose_cache_free(out)
        raise
    return out


class PoseCache:
    """An OSPC v1 pose cache.

    Open one with :meth:`open` (a file; memory-mapped when the library can map it) or
    :meth:`from_bytes`, or build one with :meth:`create`. The header fields and the entities
    are plain attributes; :attr:`positions` (frames x entities x 3), :attr:`rotations`
    (frames x entities x 4, x y z w; all zero means the identity) and :attr:`poses` (frames x
    entities x 7) are NumPy views of the library's own memory, without a copy.

    Lifetime: each view keeps its cache (or its file's mapping) alive, so an array may
    outlive the name it came from (``del cache`` then reading the array is safe); the memory
    is released when the cache and every view of it are gone. A mapped cache is read-only: its
    views are over a read-only buffer, so NumPy refuses writes and refuses to make them
    writable (copy with ``np.array(view)`` to change values). Views of a cache made by
    :meth:`create` or :meth:`from_bytes` are writable; :meth:`to_bytes` and :meth:`write`
    check every value as the parser would before writing.
    """

    def __init__(self, ptr: "ctypes._Pointer[_lib.PoseCacheStruct]", name: str) -> None:
        """Takes ownership of a cache pointer from the library; use the class methods."""
        self._ptr = ptr
        self.name = name
        # Set when the poses are viewed in Python's own mapping of the file (an unaligned pose
        # section); _ptr then holds the header and entities only (see _complete).
        self._view: Optional[_FileView] = None
        self._max_input_bytes = 0

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            lib.onescope_pose_cache_free(ptr)
            self._ptr = None

    # ---- opening ----

    @classmethod
    def open(cls, path: PathLike, *, mmap: bool = True, max_input_bytes: int = 0) -> "PoseCache":
        """Reads a cache file. With ``mmap`` (the default) the library maps the file and its
        poses are viewed in place on a little-endian IEEE host: where the pose section is
        4-byte aligned in the library's mapping, otherwise (the library copied it) in a
        read-only mapping of this package, as unaligned NumPy views (docs/python.md says what
        that costs). Then :attr:`mapped` is true. Otherwise the file is read and parsed into
        memory. Every rule is checked either way. max_input_bytes 0: the library's default
        limit (256 MiB). Raises FormatError."""
        mmap = _check.flag("mmap", mmap)
        opts = _options(max_input_bytes)
        raw = path_bytes(path)
        before = None
        if mmap:
            try:
                before = _identity(os.stat(raw))
            except OSError:
                pass  # the library names the failure
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        fn = lib.onescope_pose_cache_map if mmap else lib.onescope_pose_cache_read_file
        check(fn(raw, ctypes.byref(opts), ctypes.byref(out), ctypes.byref(err)), err)
        cache = cls(out, os.fsdecode(path))
        if mmap and not out.contents.mapping:
            view = _map_unaligned(raw, before, cache)
            if view is not None:  # the library's copy goes; the file's pages serve the poses
                head = _head_only(cache)
                lib.onescope_pose_cache_free(cache._ptr)
                cache._ptr, cache._view = head, view
                cache._max_input_bytes = opts.max_input_bytes  # for _complete's parse
        return cache

    @classmethod
    def from_bytes(
        cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0
    ) -> "PoseCache":
        """Parses a cache held in memory (the bytes are copied). Raises FormatError; a str
        (not bytes) raises TypeError."""
        data = _check.data("data", data)
        name = _check.text("name", name)
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        opts = _options(max_input_bytes)
        check(
            lib.onescope_pose_cache_parse(
                data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(out),
                ctypes.byref(err),
            ),
            err,
        )
        return cls(out, name)

    @classmethod
    def create(
        cls,
        positions: "np.ndarray",
        rotations: Optional["np.ndarray"] = None,
        *,
        dimensions: int = 3,
        start_step: int = 0,
        metres_per_unit: Optional[float] = None,
        unit: Optional[Union[str, float]] = None,
        ids: Optional[Sequence[int]] = None,
        shapes: Optional[Sequence[str]] = None,
        sizes: Optional["np.ndarray"] = None,
        names: Optional[Sequence[str]] = None,
        name: str = "<created>",
        **texts: str,
    ) -> "PoseCache":
        """Builds a cache from arrays: ``positions`` (frames x entities x 3, NaN x marks an
        absent entity), ``rotations`` (frames x entities x 4, x y z w; None: identity).
        Entities default to ids 1..n, shape point, size 0, empty name. ``texts`` are the
        six text fields by name (unit_name="mm", label="...").

        The unit: ``unit`` as the CLI's ``--unit`` takes it ("m", "cm", "mm", or a number of
        metres per unit) sets metres_per_unit and, for the three names, unit_name;
        ``metres_per_unit`` sets the number alone (0: unknown, the default). Values are
        checked when the cache is written (:meth:`validate`); texts and names at once (Raises
        FormatError); arguments of the wrong type or range raise TypeError or ValueError."""
        pos = np.asarray(positions, dtype=np.float32)
        if pos.ndim != 3 or pos.shape[2] != 3:
            raise ValueError(f"positions must be frames x entities x 3, not shape {pos.shape}")
        frames, entities = pos.shape[0], pos.shape[1]
        rot = None
        if rotations is not None:
            rot = np.asarray(rotations, dtype=np.float32)
            if rot.shape != (frames, entities, 4):
                raise ValueError(f"rotations must be frames x entities x 4 = "
                                 f"{(frames, entities, 4)}, not shape {rot.shape}")
        dimensions = _check.integer("dimensions", dimensions, U8)
        start_step = _check.integer("start_step", start_step, (0, I64[1]))
        mpu = 0.0
        unit_name = None
        if unit is not None:
            if metres_per_unit is not None:
                raise TypeError("give unit or metres_per_unit, not both")
            mpu = _check.unit("unit", unit)
            unit_name = unit if isinstance(unit, str) else None
        elif metres_per_unit is not None:
            mpu = _check.real("metres_per_unit", metres_per_unit, lo=0.0)
        if unit_name is not None and "unit_name" in texts:
            raise TypeError("give unit or unit_name, not both")
        for key in texts:
            _check.choice("text field", key, TEXT_FIELDS)
        columns = {}
        for key, seq in (("ids", ids), ("shapes", shapes), ("sizes", sizes), ("names", names)):
            if seq is not None:
                if len(seq) != entities:
                    raise ValueError(f"{key} must have one item per entity ({entities}), not "
                                     f"{len(seq)}")
                columns[key] = seq
        id_values = [_check.integer(f"ids[{i}]", v, (1, U64[1]))
                     for i, v in enumerate(columns.get("ids", ()))]
        shape_values = [_check.choice(f"shapes[{i}]", v, SHAPES)
                        for i, v in enumerate(columns.get("shapes", ()))]
        size_values = []
        for i, v in enumerate(columns.get("sizes", ())):
            if len(v) != 3:
                raise ValueError(f"sizes[{i}] must be 3 numbers, not {len(v)}")
            size_values.append([_check.real(f"sizes[{i}][{k}]", v[k]) for k in range(3)])
        name_values = [_check.text(f"names[{i}]", v) for i, v in enumerate(columns.get("names", ()))]
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        check(
            lib.onescope_pose_cache_create(
                dimensions, _check.integer("entities", entities, U32),
                _check.integer("frames", frames, U32), None, ctypes.byref(out),
                ctypes.byref(err),
            ),
            err,
        )
        cache = cls(out, _check.text("name", name))
        c = out.contents
        c.start_step = start_step
        c.metres_per_unit = mpu
        block = cache.poses
        block[:, :, 0:3] = pos
        if rot is not None:
            block[:, :, 3:7] = rot
        for i in range(entities):
            e = c.entities[i]
            if id_values:
                e.id = id_values[i]
            if shape_values:
                e.shape = shape_values[i]
            if size_values:
                e.size[:] = size_values[i]
            if name_values:
                cache.set_entity_name(i, name_values[i])
        if unit_name is not None:
            cache.set_text("unit_name", unit_name)
        for key, value in texts.items():
            cache.set_text(key, value)
        return cache

    # ---- header and entities ----

    @property
    def _c(self) -> _lib.PoseCacheStruct:
        return self._ptr.contents

    @property
    def dimensions(self) -> int:
        """2 or 3."""
        return self._c.dimensions

    @property
    def entity_count(self) -> int:
        return self._c.entity_count

    @property
    def frame_count(self) -> int:
        return self._view.frames if self._view is not None else self._c.frame_count

    @property
    def start_step(self) -> int:
        """The step of frame 0 (frame k is step start_step + k)."""
        return self._c.start_step

    @property
    def metres_per_unit(self) -> float:
        """0 (unknown) or the metres one position unit stands for. Settable on a cache that
        is not mapped (checked, with every other value, when the cache is written)."""
        return self._c.metres_per_unit

    @metres_per_unit.setter
    def metres_per_unit(self, value: float) -> None:
        value = _check.real("metres_per_unit", value, lo=0.0)
        self._writable("metres_per_unit")
        self._c.metres_per_unit = value

    def set_unit(self, unit: Union[str, float]) -> None:
        """Sets the unit as the CLI's ``--unit`` takes it: "m", "cm" or "mm" set
        metres_per_unit and unit_name; a number sets metres_per_unit (unit_name is left)."""
        mpu = _check.unit("unit", unit)
        self._writable("metres_per_unit")
        if isinstance(unit, str):
            self.set_text("unit_name", unit)
        self._c.metres_per_unit = mpu

    @property
    def mapped(self) -> bool:
        """True when the poses are viewed in a read-only mapping of the file (the library's,
        or, for a pose section that is not 4-byte aligned, this package's)."""
        return bool(self._c.mapping) or self._view is not None

    def _writable(self, function: str) -> None:
        if self.mapped:
            raise _refuse_mapped(function)

    def _complete(self) -> "PoseCache":
        """A cache the library can read poses from: this one, or for a view of the file a
        cache parsed from the mapping's bytes (a copy, freed with the returned object)."""
        if self._view is None:
            return self
        m = self._view.mapping
        raw = np.frombuffer(m, dtype=np.uint8)
        opts = _options(self._max_input_bytes)  # the limit the file was opened under
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        check(lib.onescope_pose_cache_parse(raw.ctypes.data, raw.size, self.name.encode(),
                                            ctypes.byref(opts), ctypes.byref(out),
                                            ctypes.byref(err)), err)
        return PoseCache(out, self.name)

    @property
    def texts(self) -> dict:
        """The six text fields by name (TEXT_FIELDS)."""
        c = self._c
        return {k: _text(c.text[i]) for i, k in enumerate(TEXT_FIELDS)}

    def _text_field(index: int, doc: str):  # noqa: N805 (a helper run in the class body)
        def get(self: "PoseCache") -> str:
            return _text(self._c.text[index])

        def put(self: "PoseCache", value: str) -> None:
            self.set_text(TEXT_FIELDS[index], value)

        return property(get, put, doc=doc + " Settable (set_text).")

    unit_name = _text_field(0, "The unit of positions, e.g. \"mm\" (text field 0).")
    module_id = _text_field(1, "The module that recorded the cache (text field 1).")
    library_version = _text_field(2, "The library version that wrote it (text field 2).")
    scene = _text_field(3, "A description of the scene (text field 3).")
    replay = _text_field(4, "The file name of the replay it came from, if any (text field 4).")
    label = _text_field(5, "A free label (text field 5).")
    del _text_field

    @property
    def entities(self) -> List[Entity]:
        c = self._c
        out = []
        for i in range(c.entity_count):
            e = c.entities[i]
            out.append(Entity(e.id, SHAPES[e.shape], tuple(e.size), _text(e.name)))
        return out

    def set_text(self, field: str, value: str) -> None:
        """Replaces a text field (a name from TEXT_FIELDS: ValueError naming them
        otherwise). Raises FormatError (a mapped cache, a text the format refuses)."""
        index = _check.choice("field", field, TEXT_FIELDS)
        data = _check.text("value", value).encode("utf-8")
        self._writable("onescope_pose_cache_set_text")
        err = _lib.Error()
        check(
            lib.onescope_pose_cache_set_text(self._ptr, index, data, len(data), ctypes.byref(err)),
            err,
        )

    def set_entity_name(self, entity: int, value: str) -> None:
        """Replaces the name of entity `entity` (0-based). Raises FormatError (an index past
        the entity count, a mapped cache)."""
        entity = _check.integer("entity", entity, U32)
        data = _check.text("value", value).encode("utf-8")
        self._writable("onescope_pose_cache_set_entity_name")
        err = _lib.Error()
        check(
            lib.onescope_pose_cache_set_entity_name(
                self._ptr, entity, data, len(data), ctypes.byref(err)
            ),
            err,
        )

    # ---- the pose arrays: views of the library's memory ----

    @property
    def poses(self) -> "np.ndarray":
        """Every pose, frames x entities x 7 float32 (position x y z, rotation x y z w): a
        view of the library's block that keeps this cache alive."""
        if self._view is not None:
            return self._view.block()
        c = self._c
        count = c.frame_count * c.entity_count * _FLOATS_PER_POSE
        address = ctypes.cast(c.poses, ctypes.c_void_p).value
        raw = (ctypes.c_float * count).from_address(address)
        raw._onescope_owner = self  # the view's base chain ends here and holds the cache
        # A mapped cache's block is viewed through a read-only memoryview: NumPy then refuses
        # writes and refuses ``flags.writeable = True`` (the pages are PROT_READ: a write
        # would kill the process). A cache of the library's memory is writable.
        buffer = memoryview(raw).toreadonly() if c.mapping else raw
        return np.frombuffer(buffer, dtype=np.float32).reshape(
            c.frame_count, c.entity_count, _FLOATS_PER_POSE
        )

    @property
    def positions(self) -> "np.ndarray":
        """frames x entities x 3 float32, a view (x is NaN where the entity is absent)."""
        return self.poses[:, :, 0:3]

    @property
    def rotations(self) -> "np.ndarray":
        """frames x entities x 4 float32 (x y z w), a view; all zero reads as the identity."""
        return self.poses[:, :, 3:7]

    @property
    def present(self) -> "np.ndarray":
        """frames x entities bool, computed (a new array): position x is not NaN."""
        return ~np.isnan(self.poses[:, :, 0])

    # ---- checking and writing ----

    def validate(self) -> None:
        """Checks every rule the parser checks. Raises FormatError."""
        full = self._complete()
        err = _lib.Error()
        check(lib.onescope_pose_cache_validate(full._ptr, self.name.encode(), ctypes.byref(err)), err)

    def to_bytes(self) -> bytes:
        """The file's bytes (checked first). Raises FormatError."""
        full = self._complete()
        buf = _lib.Buffer()
        err = _lib.Error()
        check(lib.onescope_pose_cache_write(full._ptr, None, ctypes.byref(buf), ctypes.byref(err)), err)
        try:
            return ctypes.string_at(buf.data, buf.size)
        finally:
            lib.onescope_buffer_free(ctypes.byref(buf))

    def write(self, path: PathLike) -> None:
        """Writes the cache to path atomically (a temporary file, fsync, rename)."""
        full = self._complete()
        err = _lib.Error()
        check(lib.onescope_pose_cache_write_file(full._ptr, path_bytes(path), ctypes.byref(err)), err)

    def to_anm(
        self,
        *,
        fps: float = 24.0,
        source: str = "blender",
        unit: Optional[Union[str, float]] = None,
        up: Optional[str] = None,
        keys: str = "needed",
    ) -> bytes:
        """The cache as .anm text (one peg per entity; onescope_ots_pose_cache_to_anm), with
        the options of ``onescope convert CACHE OUT.anm``: ``fps`` (--fps), ``source``
        (--source: harmony, blender or maya), ``unit`` (--unit: "m", "cm", "mm" or metres
        per unit, for a cache without a unit of its own; None: the cache's), ``up`` (--up:
        "x", "y" or "z"; None: the cache's label, else y), ``keys`` (--keys: "needed" or
        "all")."""
        from .ots import _from_cache_options

        opts = _from_cache_options(fps, source, self.name, unit=unit, up=up, keys=keys)
        full = self._complete()
        buf = _lib.Buffer()
        err = _lib.Error()
        check(
            lib.onescope_ots_pose_cache_to_anm(
                full._ptr, ctypes.byref(opts), None, ctypes.byref(buf), ctypes.byref(err)
            ),
            err,
        )
        try:
            return ctypes.string_at(buf.data, buf.size)
        finally:
            lib.onescope_buffer_free(ctypes.byref(buf))

    def __repr__(self) -> str:
        return (
            f"<onescope.PoseCache {self.name!r}: {self.dimensions}D, {self.entity_count} "
            f"entities, {self.frame_count} frames from step {self.start_step}"
            f"{', mapped' if self.mapped else ''}>"
        )


class PoseWriter:
    """A recording in progress (onescope_pose_writer): frames go to PATH.partial, and
    :meth:`close` renames it to PATH.

    ``head`` is a PoseCache giving dimensions, start step, metres per unit, texts and
    entities (its poses are ignored). As a context manager the writer closes on a normal
    exit; when the block raises, the frames appended so far are written out and PATH.partial
    stays for :func:`recover` (nothing is lost, as when the process dies; delete the partial to
    abandon the recording), and the exception goes on.

        with onescope.PoseWriter("run.ospc", head) as w:
            for frame in frames:
                w.append(positions, rotations)
    """

    def __init__(
        self,
        path: PathLike,
        head: PoseCache,
        *,
        segments: bool = False,
        buffer_bytes: int = 0,
        max_segment_bytes: int = 0,
    ) -> None:
        if not isinstance(head, PoseCache):
            raise TypeError(f"head must be a PoseCache, not {type(head).__name__}")
        self._entities = head.entity_count
        self._handle = ctypes.c_void_p()
        opts = _lib.PoseWriterOptions(
            _check.integer("buffer_bytes", buffer_bytes, _check.SIZE),
            _check.integer("max_segment_bytes", max_segment_bytes, U64),
            _check.flag("segments", segments),
        )
        err = _lib.Error()
        check(
            lib.onescope_pose_writer_open(
                path_bytes(path), head._ptr, ctypes.byref(opts), None,
                ctypes.byref(self._handle), ctypes.byref(err),
            ),
            err,
        )
        self.path = os.fsdecode(path)
        self.frames_written: Optional[int] = None

    def append(self, positions: "np.ndarray", rotations: Optional["np.ndarray"] = None) -> None:
        """Appends one frame: positions entities x 3 (NaN x: absent), rotations entities x
        4 (x y z w; None: identity). The shapes must be exactly these (ValueError otherwise:
        one 3-vector is not broadcast to every entity). Every value is checked before anything
        is written; a failure latches the writer. Raises FormatError."""
        n = self._entities
        pos = np.asarray(positions, dtype=np.float32)
        if pos.shape != (n, 3):
            raise ValueError(f"positions must be entities x 3 = {(n, 3)}, not shape {pos.shape}")
        frame = np.zeros((n, _FLOATS_PER_POSE), dtype=np.float32)
        frame[:, 0:3] = pos
        if rotations is not None:
            rot = np.asarray(rotations, dtype=np.float32)
            if rot.shape != (n, 4):
                raise ValueError(f"rotations must be entities x 4 = {(n, 4)}, not shape "
                                 f"{rot.shape}")
            frame[:, 3:7] = rot
        err = _lib.Error()
        check(
            lib.onescope_pose_writer_append(
                self._handle, frame.ctypes.data, self._entities, ctypes.byref(err)
            ),
            err,
        )

    def flush(self) -> None:
        """Makes every frame appended so far survive a killed process (write(2); fsync too
        only when the C options ask for flush_fsync). The writer also flushes by itself every
        64 frames and at the first append 100 ms after the last flush."""
        err = _lib.Error()
        check(lib.onescope_pose_writer_flush(self._handle, ctypes.byref(err)), err)

    @property
    def frames(self) -> int:
        """Frames appended so far, over every segment."""
        return lib.onescope_pose_writer_frames(self._handle)

    def close(self) -> int:
        """Finishes the recording and returns the frames written. Raises FormatError."""
        frames = ctypes.c_uint64()
        err = _lib.Error()
        rc = lib.onescope_pose_writer_close(self._handle, ctypes.byref(frames), ctypes.byref(err))
        check(rc, err)
        self.frames_written = frames.value
        return frames.value

    def __enter__(self) -> "PoseWriter":
        return self

    def __exit__(self, kind, value, tb) -> None:
        try:
            if kind is None:
                self.close()
        finally:
            self._release()

    def _release(self) -> None:
        if self._handle:
            lib.onescope_pose_writer_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self._release()


def recover(partial_path: PathLike, out_path: Optional[PathLike] = None) -> int:
    """Turns a partial recording into a cache of its complete frames, written to out_path
    (None: partial_path without ".partial"); returns the frames kept. Raises FormatError."""
    partial = path_bytes(partial_path)
    out = None if out_path is None else path_bytes(out_path)
    kept = ctypes.c_uint64()
    err = _lib.Error()
    check(
        lib.onescope_pose_cache_recover(
            partial,
            out,
            None,
            ctypes.byref(kept),
            ctypes.byref(err),
        ),
        err,
    )
    return kept.value


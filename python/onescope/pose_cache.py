"""OSPC pose caches: reading (memory-mapped where the library can), NumPy views, writing,
the streaming writer and recovery. Format: docs/pose-cache.md."""

from __future__ import annotations

import ctypes
import os
from typing import List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _lib
from ._lib import lib
from .errors import check, path_bytes

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


def _options(max_input_bytes: int) -> _lib.ParseOptions:
    return _lib.ParseOptions(max_input_bytes, None)


class PoseCache:
    """An OSPC v1 pose cache.

    Open one with :meth:`open` (a file; memory-mapped when the library can map it) or
    :meth:`from_bytes`, or build one with :meth:`create`. The header fields and the entities
    are plain attributes; :attr:`positions` (frames x entities x 3), :attr:`rotations`
    (frames x entities x 4, x y z w; all zero means the identity) and :attr:`poses` (frames x
    entities x 7) are NumPy views of the library's own memory, without a copy.

    Lifetime: each view keeps its cache alive, so an array may outlive the name it came
    from (``del cache`` then reading the array is safe); the memory is released when the
    cache and every view of it are gone. A mapped cache is read-only: its views refuse
    writes (copy with ``np.array(view)`` to change values). Views of a cache made by
    :meth:`create` or :meth:`from_bytes` are writable; :meth:`to_bytes` and :meth:`write`
    check every value as the parser would before writing.
    """

    def __init__(self, ptr: "ctypes._Pointer[_lib.PoseCacheStruct]", name: str) -> None:
        """Takes ownership of a cache pointer from the library; use the class methods."""
        self._ptr = ptr
        self.name = name

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            lib.onescope_pose_cache_free(ptr)
            self._ptr = None

    # ---- opening ----

    @classmethod
    def open(cls, path: PathLike, *, mmap: bool = True, max_input_bytes: int = 0) -> "PoseCache":
        """Reads a cache file. With ``mmap`` (the default) the library maps the file and its
        poses are viewed in place where the host and the file allow (little-endian IEEE
        host, pose section 4-byte aligned): then :attr:`mapped` is true. Otherwise the file is
        read and parsed into memory. Every rule is checked either way. max_input_bytes 0: the
        library's default limit (256 MiB). Raises FormatError."""
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        fn = lib.onescope_pose_cache_map if mmap else lib.onescope_pose_cache_read_file
        opts = _options(max_input_bytes)
        check(fn(path_bytes(path), ctypes.byref(opts), ctypes.byref(out), ctypes.byref(err)), err)
        return cls(out, os.fsdecode(path))

    @classmethod
    def from_bytes(
        cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0
    ) -> "PoseCache":
        """Parses a cache held in memory (the bytes are copied). Raises FormatError."""
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
        metres_per_unit: float = 0.0,
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
        six text fields by name (unit_name="mm", label="..."). Values are checked when the
        cache is written (:meth:`validate`); texts and names at once. Raises FormatError."""
        pos = np.asarray(positions, dtype=np.float32)
        if pos.ndim != 3 or pos.shape[2] != 3:
            raise ValueError("positions must be frames x entities x 3")
        frames, entities = pos.shape[0], pos.shape[1]
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        check(
            lib.onescope_pose_cache_create(
                dimensions, entities, frames, None, ctypes.byref(out), ctypes.byref(err)
            ),
            err,
        )
        cache = cls(out, name)
        c = out.contents
        c.start_step = start_step
        c.metres_per_unit = metres_per_unit
        block = cache.poses
        block[:, :, 0:3] = pos
        if rotations is not None:
            rot = np.asarray(rotations, dtype=np.float32)
            if rot.shape != (frames, entities, 4):
                raise ValueError("rotations must be frames x entities x 4")
            block[:, :, 3:7] = rot
        for i in range(entities):
            e = c.entities[i]
            if ids is not None:
                e.id = int(ids[i])
            if shapes is not None:
                e.shape = SHAPES.index(shapes[i])
            if sizes is not None:
                for k in range(3):
                    e.size[k] = float(sizes[i][k])
            if names is not None:
                cache.set_entity_name(i, names[i])
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
        return self._c.frame_count

    @property
    def start_step(self) -> int:
        """The step of frame 0 (frame k is step start_step + k)."""
        return self._c.start_step

    @property
    def metres_per_unit(self) -> float:
        """0 (unknown) or the metres one position unit stands for."""
        return self._c.metres_per_unit

    @property
    def mapped(self) -> bool:
        """True when the poses are viewed in a read-only mapping of the file."""
        return bool(self._c.mapping)

    @property
    def texts(self) -> dict:
        """The six text fields by name (TEXT_FIELDS)."""
        c = self._c
        return {k: _text(c.text[i]) for i, k in enumerate(TEXT_FIELDS)}

    def _text_field(index: int, doc: str):  # noqa: N805 (a helper run in the class body)
        def get(self: "PoseCache") -> str:
            return _text(self._c.text[index])

        return property(get, doc=doc)

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
        """Replaces a text field (a name from TEXT_FIELDS). Raises FormatError."""
        data = value.encode("utf-8")
        err = _lib.Error()
        check(
            lib.onescope_pose_cache_set_text(
                self._ptr, TEXT_FIELDS.index(field), data, len(data), ctypes.byref(err)
            ),
            err,
        )

    def set_entity_name(self, entity: int, value: str) -> None:
        """Replaces the name of entity `entity` (0-based). Raises FormatError."""
        data = value.encode("utf-8")
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
        c = self._c
        count = c.frame_count * c.entity_count * _FLOATS_PER_POSE
        address = ctypes.cast(c.poses, ctypes.c_void_p).value
        raw = (ctypes.c_float * count).from_address(address)
        raw._onescope_owner = self  # the view's base chain ends here and holds the cache
        block = np.frombuffer(raw, dtype=np.float32).reshape(
            c.frame_count, c.entity_count, _FLOATS_PER_POSE
        )
        if c.mapping:
            block.flags.writeable = False
        return block

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
        err = _lib.Error()
        check(lib.onescope_pose_cache_validate(self._ptr, self.name.encode(), ctypes.byref(err)), err)

    def to_bytes(self) -> bytes:
        """The file's bytes (checked first). Raises FormatError."""
        buf = _lib.Buffer()
        err = _lib.Error()
        check(lib.onescope_pose_cache_write(self._ptr, None, ctypes.byref(buf), ctypes.byref(err)), err)
        try:
            return ctypes.string_at(buf.data, buf.size)
        finally:
            lib.onescope_buffer_free(ctypes.byref(buf))

    def write(self, path: PathLike) -> None:
        """Writes the cache to path atomically (a temporary file, fsync, rename)."""
        err = _lib.Error()
        check(lib.onescope_pose_cache_write_file(self._ptr, path_bytes(path), ctypes.byref(err)), err)

    def to_anm(self, *, fps: float = 24.0, source: str = "blender") -> bytes:
        """The cache as .anm text (one peg per entity; onescope_ots_pose_cache_to_anm)."""
        from .ots import _from_cache_options

        opts = _from_cache_options(fps, source, self.name)
        buf = _lib.Buffer()
        err = _lib.Error()
        check(
            lib.onescope_ots_pose_cache_to_anm(
                self._ptr, ctypes.byref(opts), None, ctypes.byref(buf), ctypes.byref(err)
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
        self._entities = head.entity_count
        self._handle = ctypes.c_void_p()
        opts = _lib.PoseWriterOptions(buffer_bytes, max_segment_bytes, segments)
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
        4 (x y z w; None: identity). Every value is checked before anything is written; a
        failure latches the writer. Raises FormatError."""
        frame = np.zeros((self._entities, _FLOATS_PER_POSE), dtype=np.float32)
        frame[:, 0:3] = positions
        if rotations is not None:
            frame[:, 3:7] = rotations
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
    kept = ctypes.c_uint64()
    err = _lib.Error()
    check(
        lib.onescope_pose_cache_recover(
            path_bytes(partial_path),
            None if out_path is None else path_bytes(out_path),
            None,
            ctypes.byref(kept),
            ctypes.byref(err),
        ),
        err,
    )
    return kept.value


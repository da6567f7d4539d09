"""OTS v4 exchange files: .pvt rigs and .anm clips (JSON), peg sampling and conversion to
and from pose caches. Format: docs/ots.md. Every rule, the Bézier and the slerp are the C
library's."""

from __future__ import annotations

import ctypes
import os
from typing import List, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _check, _lib
from ._lib import lib
from .errors import check
from .pose_cache import PoseCache

__all__ = ["Rig", "Clip", "Bone", "Peg", "euler_to_quat", "quat_to_euler_xyz", "SOURCES"]

PathLike = Union[str, bytes, "os.PathLike[str]"]
SOURCES = ("harmony", "blender", "maya")
ROT_ORDERS = ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx")
#: The up axes (onescope_ots_up) and the keyframe choices of a cache -> .anm conversion.
UP_AXES = ("x", "y", "z")
KEYS = ("needed", "all")


def _s(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8")


def _read(path: PathLike, max_input_bytes: int) -> bytes:
    """The file's bytes through the library's one read path (its size limit applies)."""
    limit = _check.integer("max_input_bytes", max_input_bytes, _check.SIZE)
    buf = _lib.Buffer()
    err = _lib.Error()
    check(
        lib.onescope_file_read(
            os.fsencode(path), limit, None, ctypes.byref(buf), ctypes.byref(err)
        ),
        err,
    )
    try:
        return ctypes.string_at(buf.data, buf.size)
    finally:
        lib.onescope_buffer_free(ctypes.byref(buf))


def _from_cache_options(
    fps: float,
    source: str,
    name: str,
    *,
    unit: "Optional[Union[str, float]]" = None,
    up: Optional[str] = None,
    keys: str = "needed",
) -> _lib.OtsFromCacheOptions:
    """onescope_ots_from_cache_options as `onescope convert CACHE OUT.anm` sets them from
    --fps, --source, --unit, --up and --keys (tools/onescope/cmd_convert.c)."""
    opts = lib.onescope_ots_from_cache_options_default()
    opts.fps = _check.real("fps", fps, above=0.0)
    opts.source = _check.choice("source", source, SOURCES)
    if unit is not None:
        opts.metres_per_unit = _check.unit("unit", unit)
    if up is not None:
        opts.up_given = True
        opts.up = _check.choice("up", up, UP_AXES)
    opts.keys_all = _check.choice("keys", keys, KEYS) == 1
    opts.name = name.encode()  # ctypes keeps the bytes alive with the struct
    return opts


def _buffer_bytes(buf: _lib.Buffer) -> bytes:
    try:
        return ctypes.string_at(buf.data, buf.size)
    finally:
        lib.onescope_buffer_free(ctypes.byref(buf))


class Bone(NamedTuple):
    name: str
    parent: Optional[str]
    pivot: tuple  # rest position, without the rig's scale factor
    rotation: tuple  # rest rotation w x y z


class Peg(NamedTuple):
    name: str
    parent: Optional[str]
    rest_pivot: tuple
    rest_rotation: tuple  # w x y z
    keyframe_count: int


class Rig:
    """A .pvt rig: ``name``, ``scale_factor``, ``bones`` (Bone tuples), ``fps``, ``source``."""

    def __init__(self, ptr, name: str) -> None:
        self._ptr = ptr
        self.name_of_input = name

    def __del__(self) -> None:
        if getattr(self, "_ptr", None):
            lib.onescope_ots_rig_free(self._ptr)
            self._ptr = None

    @classmethod
    def open(cls, path: PathLike, *, max_input_bytes: int = 0) -> "Rig":
        return cls.from_bytes(_read(path, max_input_bytes), os.fsdecode(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0) -> "Rig":
        data = _check.data("data", data)
        name = _check.text("name", name)
        opts = _check.parse_options(max_input_bytes)
        out = ctypes.POINTER(_lib.OtsRigStruct)()
        err = _lib.Error()
        check(
            lib.onescope_ots_rig_parse(
                data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(out),
                ctypes.byref(err),
            ),
            err,
        )
        return cls(out, name)

    @property
    def name(self) -> str:
        return _s(self._ptr.contents.name) or ""

    @property
    def scale_factor(self) -> float:
        return self._ptr.contents.scale_factor

    @property
    def fps(self) -> float:
        return self._ptr.contents.header.fps

    @property
    def source(self) -> str:
        return SOURCES[self._ptr.contents.header.source]

    @property
    def bones(self) -> List[Bone]:
        r = self._ptr.contents
        return [
            Bone(_s(b.name) or "", _s(b.parent), tuple(b.pivot), tuple(b.rotation))
            for b in (r.bones[i] for i in range(r.bone_count))
        ]

    def to_bytes(self) -> bytes:
        """The rig as .pvt JSON (validated first; spec key order)."""
        buf = _lib.Buffer()
        err = _lib.Error()
        check(lib.onescope_ots_rig_write(self._ptr, None, ctypes.byref(buf), ctypes.byref(err)), err)
        return _buffer_bytes(buf)

    def write(self, path: PathLike) -> None:
        _write_atomic(path, self.to_bytes())


class Clip:
    """An .anm clip: ``frame_range``, ``fps``, ``source``, ``rot_order``, ``pegs``.

    :meth:`sample` evaluates every peg at a frame with the library's Bézier and slerp;
    :meth:`to_pose_cache` bakes the clip (parents composed unless ``world_space``)."""

    def __init__(self, ptr, name: str) -> None:
        self._ptr = ptr
        self.name = name

    def __del__(self) -> None:
        if getattr(self, "_ptr", None):
            lib.onescope_ots_clip_free(self._ptr)
            self._ptr = None

    @classmethod
    def open(cls, path: PathLike, *, max_input_bytes: int = 0) -> "Clip":
        return cls.from_bytes(_read(path, max_input_bytes), os.fsdecode(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0) -> "Clip":
        data = _check.data("data", data)
        name = _check.text("name", name)
        opts = _check.parse_options(max_input_bytes)
        out = ctypes.POINTER(_lib.OtsClipStruct)()
        err = _lib.Error()
        check(
            lib.onescope_ots_clip_parse(
                data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(out),
                ctypes.byref(err),
            ),
            err,
        )
        return cls(out, name)

    @classmethod
    def from_pose_cache(
        cls,
        cache: PoseCache,
        *,
        fps: float = 24.0,
        source: str = "blender",
        unit: "Optional[Union[str, float]]" = None,
        up: Optional[str] = None,
        keys: str = "needed",
    ) -> "Clip":
        """One root peg per entity with the keyframes that give back every present pose
        (``keys="all"``: one per present frame). The options are those of ``onescope
        convert CACHE OUT.anm`` (see :meth:`PoseCache.to_anm`)."""
        if not isinstance(cache, PoseCache):
            raise TypeError(f"cache must be a PoseCache, not {type(cache).__name__}")
        opts = _from_cache_options(fps, source, cache.name, unit=unit, up=up, keys=keys)
        full = cache._complete()
        out = ctypes.POINTER(_lib.OtsClipStruct)()
        err = _lib.Error()
        check(
            lib.onescope_ots_clip_from_pose_cache(
                full._ptr, ctypes.byref(opts), None, ctypes.byref(out), ctypes.byref(err)
            ),
            err,
        )
        return cls(out, cache.name)

    @property
    def frame_range(self) -> Tuple[int, int]:
        r = self._ptr.contents.frame_range
        return (r[0], r[1])

    @property
    def fps(self) -> float:
        return self._ptr.contents.header.fps

    @property
    def source(self) -> str:
        return SOURCES[self._ptr.contents.header.source]

    @property
    def rot_order(self) -> str:
        return ROT_ORDERS[self._ptr.contents.header.coordinate_system.rot_order]

    @property
    def pegs(self) -> List[Peg]:
        c = self._ptr.contents
        return [
            Peg(_s(p.name) or "", _s(p.parent), tuple(p.rest_pivot), tuple(p.rest_rotation),
                p.keyframe_count)
            for p in (c.pegs[i] for i in range(c.peg_count))
        ]

    def sample(self, frame: float) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
        """Every peg's local transform at `frame` (parents not composed): positions pegs x 3,
        rotations pegs x 4 (w x y z, unit), scales pegs x 3, float64."""
        frame = _check.real("frame", frame)
        c = self._ptr.contents
        n = c.peg_count
        pos = np.zeros((n, 3))
        rot = np.zeros((n, 4))
        scl = np.zeros((n, 3))
        s = _lib.OtsSample()
        order = c.header.coordinate_system.rot_order
        base = ctypes.cast(c.pegs, ctypes.c_void_p).value
        step = ctypes.sizeof(_lib.OtsPeg)
        for i in range(n):
            peg = ctypes.cast(base + i * step, ctypes.POINTER(_lib.OtsPeg))
            lib.onescope_ots_peg_sample(peg, order, float(frame), ctypes.byref(s))
            pos[i] = s.pos
            rot[i] = s.rot_quat
            scl[i] = s.scl
        return pos, rot, scl

    def to_pose_cache(
        self, *, world_space: bool = False, unit: "Optional[Union[str, float]]" = None
    ) -> PoseCache:
        """Bakes every frame of frame_range into a cache (one point entity per peg), as
        ``onescope convert CLIP OUT.ospc`` does: ``world_space`` (--world: values are already
        world space, parents not composed), ``unit`` (--unit: "m", "cm", "mm" or metres per
        unit; None: metres). An up axis other than y is kept in the cache's label."""
        opts = lib.onescope_ots_bake_options_default()
        opts.world_space = _check.flag("world_space", world_space)
        if unit is not None:
            opts.metres_per_unit = _check.unit("unit", unit)
        opts.name = self.name.encode()
        out = ctypes.POINTER(_lib.PoseCacheStruct)()
        err = _lib.Error()
        check(
            lib.onescope_ots_clip_to_pose_cache(
                self._ptr, ctypes.byref(opts), None, ctypes.byref(out), ctypes.byref(err)
            ),
            err,
        )
        return PoseCache(out, self.name)

    def to_bytes(self) -> bytes:
        """The clip as .anm JSON (validated first; spec key order)."""
        buf = _lib.Buffer()
        err = _lib.Error()
        check(lib.onescope_ots_clip_write(self._ptr, None, ctypes.byref(buf), ctypes.byref(err)), err)
        return _buffer_bytes(buf)

    def write(self, path: PathLike) -> None:
        _write_atomic(path, self.to_bytes())


def _write_atomic(path: PathLike, data: bytes) -> None:
    """Writes through the library's one write path (temporary file, fsync, rename)."""
    err = _lib.Error()
    check(lib.onescope_file_write(os.fsencode(path), data, len(data), ctypes.byref(err)), err)


def _numbers(name: str, values, count: int) -> List[float]:
    """Exactly `count` numbers (ctypes would zero-fill a shorter list)."""
    values = list(values)
    if len(values) != count:
        raise ValueError(f"{name} must be {count} numbers, not {len(values)}")
    return [_check.real(f"{name}[{i}]", v, finite=False) for i, v in enumerate(values)]


def euler_to_quat(degrees, order: str = "xyz") -> "np.ndarray":
    """Euler degrees applied in `order` to a w x y z quaternion (the library's)."""
    d = (ctypes.c_double * 3)(*_numbers("degrees", degrees, 3))
    q = (ctypes.c_double * 4)()
    lib.onescope_ots_euler_to_quat(d, _check.choice("order", order, ROT_ORDERS), q)
    return np.array(q[:])


def quat_to_euler_xyz(wxyz) -> "np.ndarray":
    """A w x y z quaternion to xyz Euler degrees (the library's)."""
    q = (ctypes.c_double * 4)(*_numbers("wxyz", wxyz, 4))
    d = (ctypes.c_double * 3)()
    lib.onescope_ots_quat_to_euler_xyz(q, d)
    return np.array(d[:])

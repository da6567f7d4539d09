"""diff: why two runs differ, as a result object (the library's onescope_diff_* calls).

Two replays are run in lockstep and stopped at the first stage where their worlds differ; two
pose caches are compared frame by frame per entity; a replay is compared with a pose cache by
host step. Every comparison is the library's (src/diff.c, src/diff_cache.c, docs/diff.md):
this module only turns arguments into onescope_diff_options and the C result into plain
Python objects, then frees the C result.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from . import _check, _lib
from ._check import I32, U32
from ._lib import lib
from .errors import check, path_bytes
from .numbers import format_number
from .pose_cache import PoseCache
from .recording import Module, Recording, RecordingDiff, diff_recordings
from .replay import Op, Replay

__all__ = [
    "diff",
    "HeaderItem",
    "Value",
    "ReplayDiff",
    "EntityDiff",
    "FirstPast",
    "CacheDiff",
    "RecordingDiff",
]

_FORMAT_OSPC = 1
_FORMAT_OSTM = 2
_FORMAT_RECORDING = 6  # ONESCOPE_FORMAT_RECORDING: an OSTM v2 module recording


@dataclass
class HeaderItem:
    """One header field that differs, both values as text (hex for seeds and hashes)."""

    field: str
    a: str
    b: str


@dataclass
class Value:
    """One value that differs where two replays diverge, as the test module names it.

    ``name`` is a body's value ("alive", "still_count", "position.x" ... "velocity.z") or a
    world value ("gravity", "density", "occupancy"; ``world`` is then True); ``index`` is the
    body, or the element of a world value (a grid vertex or triangle; 0 for gravity);
    ``entity_id`` the body's stable id (None for a world value); ``unit`` "" when none."""

    name: str
    unit: str
    world: bool
    index: int
    entity_id: Optional[int]
    a: float
    b: float

    def __str__(self) -> str:
        """One line, the values as the CLI prints them: "body 2 position.x: a 0.5, b 0.25 (m)"
        (a world value with its element: "density[3]: a 1, b 2")."""
        where = f"{self.name}[{self.index}]" if self.world else f"body {self.index} {self.name}"
        unit = f" ({self.unit})" if self.unit else ""
        return f"{where}: a {format_number(self.a)}, b {format_number(self.b)}{unit}"


@dataclass
class ReplayDiff:
    """Two replays compared (onescope_diff_replay).

    The fields that only mean something once the worlds diverged (``step``, ``host_step_a``,
    ``host_step_b``, ``stage``) are None when ``diverged`` is false; ``op_a``/``op_b`` are None
    when that input has no operation at ``op_index``; ``first_input_step`` is None when no
    step's inputs differ. ``stage`` is "input", "gravity", "move" or "bookkeeping" (the stage
    after which the worlds first differ; read ``at_start`` for a difference before step 0)."""

    different: bool
    header: List[HeaderItem]
    steps_compared: int
    diverged: bool
    at_start: bool
    step: Optional[int]
    host_step_a: Optional[int]
    host_step_b: Optional[int]
    stage: Optional[str]
    value_total: int
    values: List[Value]
    inputs_differ: bool
    op_index: Optional[int]
    op_a: Optional[Op]
    op_b: Optional[Op]
    first_input_step: Optional[int]
    #: (bodies in a, bodies in b) where the worlds diverged with different body counts
    entity_counts: Optional[Tuple[int, int]] = None
    kind: str = "replays"

    def __bool__(self) -> bool:
        """True when the replays differ (so ``if onescope.diff(a, b): ...`` reads as asked)."""
        return self.different


@dataclass
class EntityDiff:
    """One entity of a cache comparison, matched by id. Steps are -1 for "none"; distances in
    metres (units when the result is ``unitless``), angles in degrees."""

    id: int
    in_a: bool
    in_b: bool
    index_a: int
    index_b: int
    frames_compared: int
    presence_flips: int
    max_distance: float
    max_distance_step: int
    rms_distance: float
    max_angle: float
    max_angle_step: int
    max_ulps: int
    past_tolerance: bool
    first_past_step: int


@dataclass
class FirstPast:
    """The first (step, entity) past tolerance; ``presence`` when it is a presence flip."""

    step: int
    id: int
    presence: bool
    distance: float
    angle: float


@dataclass
class CacheDiff:
    """Two pose caches, or a replay (side a) and a cache, compared (onescope_diff_cache).

    ``entities`` lists every id of either side (matched first in a's order, then a's own, then
    b's own) as :class:`EntityDiff`; ``table`` holds the same per-entity summary as a NumPy
    structured array (fields named as in EntityDiff), e.g. ``d.table["max_distance"].max()``.
    ``overlap`` is (first, last) or None when no step is in both; ``first`` is None when nothing
    is past tolerance. ``kind`` is "caches" or "replay_cache"."""

    kind: str
    different: bool
    past_tolerance: bool
    header: List[HeaderItem]
    unitless: bool
    exact: bool
    compares_rotation: bool
    steps_a: Tuple[int, int]
    steps_b: Tuple[int, int]
    overlap_frames: int
    overlap: Optional[Tuple[int, int]]
    only_in_a: int
    only_in_b: int
    entities: List[EntityDiff]
    table: np.ndarray = field(repr=False)
    first: Optional[FirstPast]
    max_ulps: int

    def __bool__(self) -> bool:
        return self.different

    def entity(self, id: int) -> EntityDiff:
        """The summary of the entity with this id (KeyError when neither side has it)."""
        for e in self.entities:
            if e.id == id:
                return e
        raise KeyError(id)


Input = Union[str, "os.PathLike[str]", Replay, PoseCache, Recording]


def _headers(items: Any, count: int) -> List[HeaderItem]:
    return [
        HeaderItem(
            items[i].field.decode(),
            items[i].a.decode("utf-8", "replace"),
            items[i].b.decode("utf-8", "replace"),
        )
        for i in range(count)
    ]


def _replay_result(c: _lib.DiffReplay) -> ReplayDiff:
    div = c.diverged
    values = [
        Value(
            v.name.decode("ascii"),
            v.unit.decode("ascii"),
            v.world,
            v.index,
            None if v.world else v.entity_id,
            v.a,
            v.b,
        )
        for v in (c.values[i] for i in range(c.value_count))
    ]
    return ReplayDiff(
        different=c.different,
        header=_headers(c.header, c.header_count),
        steps_compared=c.steps_compared,
        diverged=div,
        at_start=c.at_start,
        step=c.step if div else None,
        host_step_a=c.host_step_a if div else None,
        host_step_b=c.host_step_b if div else None,
        stage=lib.onescope_sim_stage_name(c.stage).decode() if div else None,
        value_total=c.value_total,
        values=values,
        inputs_differ=c.inputs_differ,
        op_index=c.op_index if c.inputs_differ else None,
        op_a=Op._from_c(c.op_a) if c.inputs_differ and c.has_op_a else None,
        op_b=Op._from_c(c.op_b) if c.inputs_differ and c.has_op_b else None,
        first_input_step=c.first_input_step if c.has_input_step else None,
        entity_counts=(c.entity_count_a, c.entity_count_b)
        if div and c.entity_counts_differ
        else None,
    )


_ENTITY_FIELDS = [name for name, _ in _lib.DiffEntity._fields_]
_NP_OF_CTYPE = {
    ctypes.c_uint64: "u8",
    ctypes.c_int64: "i8",
    ctypes.c_uint32: "u4",
    ctypes.c_double: "f8",
    ctypes.c_bool: "?",
}
# onescope_diff_entity as a NumPy dtype, every field at the C offset (the ABI test checks the
# ctypes mirror these come from).
ENTITY_DTYPE = np.dtype(
    {
        "names": _ENTITY_FIELDS,
        "formats": [_NP_OF_CTYPE[t] for _, t in _lib.DiffEntity._fields_],
        "offsets": [getattr(_lib.DiffEntity, k).offset for k in _ENTITY_FIELDS],
        "itemsize": ctypes.sizeof(_lib.DiffEntity),
    }
)


def _cache_result(c: _lib.DiffCache, kind: str) -> CacheDiff:
    n = c.entity_count
    # One copy (native byte order) of the C array, which is freed right after.
    raw = ctypes.string_at(c.entities, n * ENTITY_DTYPE.itemsize) if n else b""
    table = np.frombuffer(raw, dtype=ENTITY_DTYPE).copy()
    entities = [
        EntityDiff(**{k: row[k].item() for k in _ENTITY_FIELDS}) for row in table
    ]
    first = (
        FirstPast(c.first_step, c.first_id, c.first_presence, c.first_distance, c.first_angle)
        if c.has_first
        else None
    )
    return CacheDiff(
        kind=kind,
        different=c.different,
        past_tolerance=c.past_tolerance,
        header=_headers(c.header, c.header_count),
        unitless=c.unitless,
        exact=c.exact,
        compares_rotation=c.compares_rotation,
        steps_a=(c.first_step_a, c.last_step_a),
        steps_b=(c.first_step_b, c.last_step_b),
        overlap_frames=c.overlap_frames,
        overlap=(c.overlap_first, c.overlap_last) if c.overlap_frames else None,
        only_in_a=c.only_in_a,
        only_in_b=c.only_in_b,
        entities=entities,
        table=table,
        first=first,
        max_ulps=c.max_ulps,
    )


def _kind(x: Any, max_input_bytes: int) -> Tuple[int, Any]:
    """(format, x) for an opened object, or a path's format from its first bytes (the
    library's detection). A path that is neither a replay nor a cache raises the library's
    error for it (FormatError), or TypeError when it is a valid file of another format."""
    if isinstance(x, Replay):
        return _FORMAT_OSTM, x
    if isinstance(x, PoseCache):
        return _FORMAT_OSPC, x
    if isinstance(x, Recording):
        return _FORMAT_RECORDING, x
    if not isinstance(x, (str, bytes, os.PathLike)):
        raise TypeError(f"diff compares replays, pose caches and module recordings (paths or "
                        f"opened), not {x!r}")
    raw = path_bytes(x)
    head = b""
    try:
        with open(raw, "rb") as f:
            head = f.read(8)
    except OSError:
        pass  # the library's validation below names the failure
    fmt = lib.onescope_format_detect(head, len(head))
    if fmt in (_FORMAT_OSPC, _FORMAT_OSTM, _FORMAT_RECORDING):
        return fmt, x
    err = _lib.Error()
    found = ctypes.c_int(0)
    opts = _check.parse_options(max_input_bytes)
    check(lib.onescope_file_validate(raw, ctypes.byref(opts), ctypes.byref(found),
                                     ctypes.byref(err)), err)
    raise TypeError(
        f"{os.fsdecode(raw)}: diff compares replays, pose caches and module recordings, not "
        f"{lib.onescope_format_name(found.value).decode()} files"
    )


def _name(x: Any, given: Optional[str], default: str) -> bytes:
    if given is not None:
        return given.encode()
    if isinstance(x, (Replay, PoseCache)):
        return x.name.encode()
    if isinstance(x, (str, bytes, os.PathLike)):
        return path_bytes(x)
    return default.encode()


def diff(
    a: Input,
    b: Input,
    *,
    max_items: int = 0,
    position_tolerance: float = 0.0,
    angle_tolerance: float = 0.0,
    offset: Tuple[int, int, int] = (0, 0, 0),
    name_a: Optional[str] = None,
    name_b: Optional[str] = None,
    max_input_bytes: int = 0,
    module: Optional[Module] = None,
) -> Union[ReplayDiff, CacheDiff, RecordingDiff]:
    """Compares two replays, two pose caches, a replay (a) with a pose cache (b), or two
    module recordings (OSTM v2).

    Each input is a path or an opened :class:`Replay` / :class:`PoseCache` /
    :class:`Recording`; a path's kind comes from its first bytes. Two module recordings run
    through ``module`` (an :class:`onescope.Module`; None: the built-in module the first file
    names, ValueError for a plug-in's id) and give a :class:`RecordingDiff`, the library's
    onescope_recording_diff_result (the options below other than the names and
    ``max_input_bytes`` are for replays and caches). Two cache paths are streamed by the library (memory grows with
    the entities, not the frames). Options mirror onescope_diff_options: ``max_items`` values
    listed at most (0: 16), ``position_tolerance`` in metres and ``angle_tolerance`` in degrees
    (both 0: exact), ``offset`` in mm added to every replay position (replay vs cache),
    ``name_a``/``name_b`` the inputs' names in the library's messages (default: the paths or
    the objects' names; a file's own error always names its path),
    ``max_input_bytes`` the parser's limit for files read here (0: the library's).

    Returns a :class:`ReplayDiff`, a :class:`CacheDiff` or a :class:`RecordingDiff` (truthy
    when different). Raises :class:`FormatError` for an input the library refuses (its line
    names the file and offset), TypeError for a cache before a replay, a module recording
    beside another kind, or a file of another format.

        d = onescope.diff("run.ostm", "run-fixed.ostm")
        if d.diverged:
            print(d.step, d.stage, d.values[0])
    """
    max_items = _check.integer("max_items", max_items, U32)
    # NaN passes every "> tol" test as false, so a NaN tolerance would make anything "same".
    position_tolerance = _check.real("position_tolerance", position_tolerance, lo=0.0)
    angle_tolerance = _check.real("angle_tolerance", angle_tolerance, lo=0.0)
    offset = tuple(offset)
    if len(offset) != 3:
        raise ValueError(f"offset must be 3 integers (mm), not {len(offset)}")
    offset = tuple(_check.integer(f"offset[{i}]", v, I32) for i, v in enumerate(offset))
    parse = _check.parse_options(max_input_bytes)
    for label, given in (("name_a", name_a), ("name_b", name_b)):
        if given is not None:
            _check.text(label, given)
    fa, xa = _kind(a, max_input_bytes)
    fb, xb = _kind(b, max_input_bytes)
    if _FORMAT_RECORDING in (fa, fb):
        if fa != fb:
            raise TypeError("a module recording is compared with another module recording, "
                            "not with a replay or a pose cache")
        ra = xa if isinstance(xa, Recording) else Recording.open(
            xa, max_input_bytes=max_input_bytes)
        rb = xb if isinstance(xb, Recording) else Recording.open(
            xb, max_input_bytes=max_input_bytes)
        return diff_recordings(ra, rb, module, name_a=name_a, name_b=name_b)
    if module is not None:
        raise TypeError("module= is for two module recordings; replays and pose caches need "
                        "none")
    if fa == _FORMAT_OSPC and fb == _FORMAT_OSTM:
        raise TypeError("a replay and a pose cache go in that order: diff(replay, cache)")
    keep = (_name(a, name_a, "a"), _name(b, name_b, "b"))  # alive until the call returns
    opts = _lib.DiffOptions()
    opts.max_items = max_items
    opts.position_tolerance = position_tolerance
    opts.angle_tolerance = angle_tolerance
    opts.offset = (ctypes.c_int32 * 3)(*offset)
    opts.name_a, opts.name_b = keep
    opts.parse = parse
    err = _lib.Error()
    replays: List[Replay] = []  # opened here, freed with this frame
    for fmt, x in ((fa, xa), (fb, xb)):
        if fmt == _FORMAT_OSTM and not isinstance(x, Replay):
            replays.append(Replay.open(x, max_input_bytes=max_input_bytes))
        elif isinstance(x, Replay):
            replays.append(x)
    if fa == _FORMAT_OSTM and fb == _FORMAT_OSTM:
        out = ctypes.POINTER(_lib.DiffReplay)()
        check(lib.onescope_diff_replays(replays[0]._handle, replays[1]._handle,
                                        ctypes.byref(opts), None, ctypes.byref(out),
                                        ctypes.byref(err)), err)
        try:
            return _replay_result(out.contents)
        finally:
            lib.onescope_diff_replay_free(out)
    out_c = ctypes.POINTER(_lib.DiffCache)()
    if fa == _FORMAT_OSTM:
        kind = "replay_cache"
        if isinstance(xb, PoseCache):
            cb = xb._complete()
            rc = lib.onescope_diff_replay_cache(replays[0]._handle, cb._ptr, ctypes.byref(opts),
                                                None, ctypes.byref(out_c), ctypes.byref(err))
        else:
            rc = lib.onescope_diff_replay_cache_file(replays[0]._handle, path_bytes(xb),
                                                     ctypes.byref(opts), None,
                                                     ctypes.byref(out_c), ctypes.byref(err))
    else:
        kind = "caches"
        if isinstance(xa, PoseCache) or isinstance(xb, PoseCache):
            ca = xa if isinstance(xa, PoseCache) else PoseCache.open(
                xa, max_input_bytes=max_input_bytes)
            cb = xb if isinstance(xb, PoseCache) else PoseCache.open(
                xb, max_input_bytes=max_input_bytes)
            ca, cb = ca._complete(), cb._complete()
            rc = lib.onescope_diff_caches(ca._ptr, cb._ptr, ctypes.byref(opts), None,
                                          ctypes.byref(out_c), ctypes.byref(err))
        else:
            rc = lib.onescope_diff_cache_files(path_bytes(xa), path_bytes(xb),
                                               ctypes.byref(opts), None, ctypes.byref(out_c),
                                               ctypes.byref(err))
    check(rc, err)
    try:
        return _cache_result(out_c.contents, kind)
    finally:
        lib.onescope_diff_cache_free(out_c)

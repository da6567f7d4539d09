"""libonescope from Python: pose caches as NumPy views, replays, the integer simulation, module
recordings verified with the test module or a plug-in, OTS .pvt/.anm files and the diff of two
runs, over the installed shared library (ctypes; every
rule stays in C).

Find the library: $ONESCOPE_LIBRARY, else ctypes.util.find_library("onescope"), else
/usr/local/lib. Errors raise :class:`FormatError`. Guide: docs/python.md.
"""

from ._lib import library_path
from .errors import Code, FormatError
from .files import validate
from .numbers import format_float, format_number
from .diff import CacheDiff, EntityDiff, FirstPast, HeaderItem, ReplayDiff, Value, diff
from .ots import Bone, Clip, Peg, Rig, euler_to_quat, quat_to_euler_xyz
from .pose_cache import SHAPES, TEXT_FIELDS, Entity, PoseCache, PoseWriter, recover
from .recording import (
    EntityDifference,
    Explanation,
    Keyframe,
    KeyframeUse,
    Module,
    ModuleCheckFailure,
    ModuleCheckOutcome,
    ModuleCheckResult,
    Recording,
    RecordingDiff,
    ValueDifference,
    diff_recordings,
    verify_file as verify_recording_file,
)
from .replay import Link, Op, Replay, RunResult, Setup, Sim, Verdict, VerifyResult

__all__ = [
    "Code",
    "FormatError",
    "validate",
    "PoseCache",
    "PoseWriter",
    "Entity",
    "recover",
    "SHAPES",
    "TEXT_FIELDS",
    "Replay",
    "Recording",
    "Module",
    "ModuleCheckResult",
    "ModuleCheckOutcome",
    "ModuleCheckFailure",
    "verify_recording_file",
    "RecordingDiff",
    "diff_recordings",
    "Explanation",
    "EntityDifference",
    "ValueDifference",
    "Keyframe",
    "KeyframeUse",
    "Sim",
    "Op",
    "Setup",
    "Link",
    "RunResult",
    "VerifyResult",
    "Verdict",
    "Rig",
    "Clip",
    "Bone",
    "Peg",
    "euler_to_quat",
    "quat_to_euler_xyz",
    "diff",
    "ReplayDiff",
    "CacheDiff",
    "EntityDiff",
    "FirstPast",
    "HeaderItem",
    "Value",
    "library_path",
    "format_number",
    "format_float",
    "library_version",
]


def library_version() -> str:
    """The running library's version, e.g. "0.4.0"."""
    from ._lib import lib

    return lib.onescope_version_string().decode()

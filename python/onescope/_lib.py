"""Loading libonescope.so and the ctypes mirror of the few C structs Python must see.

Only what the wrappers touch is mirrored; every other struct stays opaque behind a pointer.
tests/test_abi.py compiles a small C program against include/onescope/ and compares its
sizeof/offsetof numbers with the ones below, so a header change that moves a field fails there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (
    POINTER,
    Structure,
    c_bool,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

__all__ = ["lib", "library_path"]


def _find() -> str:
    """$ONESCOPE_LIBRARY, else the system's libonescope, else /usr/local/lib."""
    env = os.environ.get("ONESCOPE_LIBRARY")
    if env:
        return env
    found = ctypes.util.find_library("onescope")
    if found:
        return found
    for candidate in ("/usr/local/lib/libonescope.so", "/usr/local/lib64/libonescope.so"):
        if os.path.exists(candidate):
            return candidate
    raise OSError(
        "libonescope.so not found: install the library (cmake --install) or set "
        "ONESCOPE_LIBRARY to its path"
    )


# ---- common.h / error.h ----


class Allocator(Structure):
    _fields_ = [("alloc", c_void_p), ("free", c_void_p), ("user", c_void_p)]


class ParseOptions(Structure):
    _fields_ = [
        ("max_input_bytes", c_size_t),
        ("allocator", POINTER(Allocator)),
        ("on_error", c_void_p),  # an ErrorCallback, or None
        ("on_error_user", c_void_p),
        ("max_errors", c_uint32),
    ]


class Buffer(Structure):
    _fields_ = [("data", POINTER(c_uint8)), ("size", c_size_t), ("allocator", c_void_p)]


class Error(Structure):
    _fields_ = [
        ("code", c_int),
        ("input", c_char * 256),
        ("offset", c_uint64),
        ("has_offset", c_bool),
        ("line", c_uint32),
        ("column", c_uint32),
        ("field", c_char * 96),
        ("expected", c_char * 160),
        ("found", c_char * 160),
    ]

# void onescope_error_fn(void *user, const onescope_error *error)
ErrorCallback = ctypes.CFUNCTYPE(None, c_void_p, POINTER(Error))

# ---- pose_cache.h ----

POSE_TEXT_COUNT = 6


class Text(Structure):
    _fields_ = [("data", POINTER(c_char)), ("length", c_uint16)]


class PoseEntity(Structure):
    _fields_ = [("id", c_uint64), ("shape", c_uint8), ("size", c_float * 3), ("name", Text)]


class Pose(Structure):
    _fields_ = [("position", c_float * 3), ("rotation", c_float * 4)]


class PoseCacheStruct(Structure):
    _fields_ = [
        ("dimensions", c_uint8),
        ("entity_count", c_uint32),
        ("frame_count", c_uint32),
        ("start_step", c_int64),
        ("metres_per_unit", c_double),
        ("text", Text * POSE_TEXT_COUNT),
        ("entities", POINTER(PoseEntity)),
        ("poses", POINTER(Pose)),
        ("allocator", c_void_p),
        ("mapping", c_void_p),
        ("mapping_size", c_size_t),
        ("release_mapping", c_void_p),
    ]


class PoseWriterOptions(Structure):
    _fields_ = [
        ("buffer_bytes", c_size_t),
        ("max_segment_bytes", c_uint64),
        ("segments", c_bool),
        ("flush_every", c_uint32),
        ("flush_every_ms", c_uint32),
        ("flush_fsync", c_bool),
    ]


# ---- sim.h / replay.h ----


class SimSetup(Structure):
    _fields_ = [("dimensions", c_uint8), ("body_count", c_uint8), ("seed", c_uint32)]


class LinkBlock(Structure):
    _fields_ = [("role", c_uint8), ("body", c_uint8), ("transfer_step", c_uint16)]


class SimDef(Structure):
    _fields_ = [("setup", SimSetup), ("link", LinkBlock), ("internal_cookie", c_uint32)]


class Op(Structure):
    _fields_ = [("code", c_uint8), ("body", c_uint8), ("value", c_int32 * 3)]


class OpReader(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("size", c_size_t),
        ("pos", c_size_t),
        ("dimensions", c_uint8),
        ("base_offset", c_uint64),
        ("name", c_char_p),
    ]


class BodyState(Structure):
    _fields_ = [
        ("alive", c_int32),
        ("still_count", c_int32),
        ("position", c_int32 * 3),
        ("velocity", c_int32 * 3),
    ]


class ReplayRow(Structure):
    _fields_ = [
        ("index", c_uint32),
        ("host_step", c_uint64),
        ("hash", c_uint64),
        ("has_expected", c_bool),
        ("expected", c_uint64),
        ("sim", c_void_p),
    ]


class VerifyResult(Structure):
    _fields_ = [
        ("matched", c_bool),
        ("rows_checked", c_uint32),
        ("first_row", c_uint32),
        ("first_step", c_uint64),
        ("expected", c_uint64),
        ("actual", c_uint64),
        # added in 0.5.0
        ("verdict", c_int),  # onescope_verdict
        ("keyframes_checked", c_uint32),
        ("table_differing", c_uint32),
        ("table_entity", c_uint64),
        ("table_value", c_uint32),
        ("table_in_file", c_bool),
        ("table_in_world", c_bool),
        ("table_recorded", c_double),
        ("table_found", c_double),
    ]


ReplayCallback = ctypes.CFUNCTYPE(c_bool, c_void_p, POINTER(ReplayRow))

# ---- module.h: the table's metadata, the first members of every ABI's onescope_module (the
# table is otherwise opaque here; not in MIRRORED, since the whole struct is larger) ----


class EntityRow(Structure):
    _fields_ = [
        ("count", c_uint32),
        ("group_count", c_uint32),
        ("ids", POINTER(c_uint8)),
        ("hashes", POINTER(c_uint8)),
        ("groups", POINTER(c_uint8)),
    ]


class Keyframe(Structure):
    _fields_ = [
        ("row", c_uint32),
        ("snapshot", POINTER(c_uint8)),
        ("snapshot_size", c_size_t),
        ("entity_count", c_uint32),
        ("value_count", c_uint32),
        ("ids", POINTER(c_uint8)),
        ("values", POINTER(c_uint8)),
    ]


class EntityDifference(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("recorded", c_bool),
        ("found", c_bool),
        ("recorded_hash", c_uint32),
        ("found_hash", c_uint32),
        ("groups", c_uint64),
    ]


class ValueDifference(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("value", c_uint32),
        ("found", c_bool),
        ("recorded", c_double),
        ("found_value", c_double),
        ("in_file", c_bool),  # added in 0.5.0
    ]


class Explanation(Structure):
    _fields_ = [
        ("row", c_uint32),
        ("entities_recorded", c_uint32),
        ("entities_found", c_uint32),
        ("differing", c_uint32),
        ("listed", c_uint32),
        ("entities", POINTER(EntityDifference)),
        ("allocator", c_void_p),
        ("start_row", c_uint32),
        ("from_keyframe", c_bool),
        ("restore_failed", c_bool),
        ("steps_run", c_uint32),
        ("has_table", c_bool),
        ("table_row", c_uint32),
        ("values_compared", c_uint32),
        ("values_differing", c_uint32),
        ("values_listed", c_uint32),
        ("values", POINTER(ValueDifference)),
        ("restore_error", Error),
        # added in 0.5.0
        ("keyframe_use", c_int),  # onescope_keyframe_use
        ("keyframe_row", c_uint32),
        ("keyframe_hashes_differ", c_bool),
        ("keyframe_hash_recorded", c_uint64),
        ("keyframe_hash_restored", c_uint64),
        ("keyframe_has_entity", c_bool),
        ("keyframe_entity", EntityDifference),
        ("keyframe_has_value", c_bool),
        ("keyframe_value", ValueDifference),
        ("has_hash", c_bool),
        ("hash_recorded", c_uint64),
        ("hash_found", c_uint64),
    ]


class RecordingDiffResult(Structure):
    _fields_ = [
        ("different", c_bool),
        ("setup_differs", c_bool),
        ("steps_a", c_uint32),
        ("steps_b", c_uint32),
        ("rows_compared", c_uint32),
        ("worlds_differ", c_bool),
        ("row", c_uint32),
        ("hash_a", c_uint64),
        ("hash_b", c_uint64),
        ("input_differs", c_bool),
        ("stage", c_int32),
        ("stage_name", c_char_p),
        ("value_differs", c_bool),
        ("entity", c_uint32),
        ("entity_id", c_uint64),
        ("value", c_uint32),
        ("value_a", c_double),
        ("value_b", c_double),
        ("entities_differing", c_uint32),
        ("entity_counts_differ", c_bool),
        ("rows_differ", c_bool),
        ("rows_row", c_uint32),
        ("value_total", c_uint32),
        ("world_value_differs", c_bool),
        ("world_value", c_uint32),
        ("world_index", c_uint32),
        ("world_value_a", c_double),
        ("world_value_b", c_double),
        ("from_keyframes", c_bool),
        ("start_row", c_uint32),
        ("steps_run", c_uint32),
        ("value_ulps", c_uint64),
        ("restore_failed", c_bool),
        ("restore_error", Error),
        ("keyframe_disproved", c_bool),  # added in 0.5.0
    ]


class ModuleHead(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("abi", c_uint32),
        ("id", c_char_p),
        ("version", c_char_p),
    ]


class ValueInfo(Structure):
    _fields_ = [("name", c_char_p), ("unit", c_char_p), ("type", c_int), ("group", c_uint32)]


class WorldValueInfo(Structure):
    _fields_ = [("name", c_char_p), ("unit", c_char_p), ("type", c_int), ("count", c_uint32)]


# The whole table (module.h), for the names a result gives by index (a value's, a world
# value's). A plug-in's table may be older and shorter: read a member only below its
# struct_size (ModuleTable.holds).
class ModuleTable(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("abi", c_uint32),
        ("id", c_char_p),
        ("version", c_char_p),
        ("context", c_void_p),
        ("create", c_void_p),
        ("free", c_void_p),
        ("step", c_void_p),
        ("hash", c_void_p),
        ("check_setup", c_void_p),
        ("check_input", c_void_p),
        ("stage_count", c_uint32),
        ("stage_names", POINTER(c_char_p)),
        ("run_stage", c_void_p),
        ("snapshot", c_void_p),
        ("restore", c_void_p),
        ("entity_count", c_void_p),
        ("entity_id", c_void_p),
        ("entity_pose", c_void_p),
        ("value_count", c_uint32),
        ("values", POINTER(ValueInfo)),
        ("group_count", c_uint32),
        ("group_names", POINTER(c_char_p)),
        ("entity_values", c_void_p),
        ("describe_input", c_void_p),
        ("metres_per_unit", c_double),
        ("unit_name", c_char_p),
        ("dimensions", c_uint32),
        ("world_value_count", c_uint32),
        ("world_values", POINTER(WorldValueInfo)),
        ("read_world_values", c_void_p),
        ("flags", c_uint32),
    ]

    def holds(self, member: str) -> bool:
        """The table was compiled with this member (its struct_size reaches past it)."""
        f = getattr(type(self), member)
        return self.struct_size >= f.offset + f.size


# ---- module.h: onescope_module_check_run's def and result ----

MODULE_NO_OFFSET = 2**64 - 1  # ONESCOPE_MODULE_NO_OFFSET
MODULE_CHECK_COUNT = 5  # ONESCOPE_MODULE_CHECK_COUNT
NUMBER_MAX_LENGTH = 24  # ONESCOPE_NUMBER_MAX_LENGTH (common.h; python/tests/test_numbers.py)
MODULE_CHECK_NO_STAGE = 2**32 - 1  # ONESCOPE_MODULE_CHECK_NO_STAGE
MODULE_CHECK_NO_ENTITY = 2**32 - 1  # ONESCOPE_MODULE_CHECK_NO_ENTITY


class ModuleCheckDef(Structure):
    _fields_ = [
        ("steps", c_uint64),
        ("horizon", c_uint32),
        ("restore_every", c_uint32),
        ("input", c_void_p),  # a ModuleCheckInputFn, or None: every step's input is empty
        ("input_user", c_void_p),
        ("start_snapshot", c_void_p),
        ("start_snapshot_size", c_size_t),
        ("hash_probes", c_uint32),  # added in 0.5.0
    ]


# onescope_code onescope_module_check_input_fn(void *user, uint64_t step, const void **input,
#                                              size_t *size, onescope_error *error)
ModuleCheckInputFn = ctypes.CFUNCTYPE(
    c_int, c_void_p, c_uint64, POINTER(c_void_p), POINTER(c_size_t), POINTER(Error)
)


class ModuleCheckFailure(Structure):
    _fields_ = [
        ("step", c_uint64),
        ("stage", c_uint32),
        ("entity", c_uint32),
        ("entity_id", c_uint64),
        ("value", c_char * 80),
        ("values", c_double * 2),
        ("hashes", c_uint64 * 2),
        ("has_offset", c_bool),
        ("offset", c_uint64),
        ("what", c_char * 200),
    ]


class ModuleCheckOutcome(Structure):
    _fields_ = [
        ("status", c_int),
        ("skipped_for", c_char * 48),
        ("failure", ModuleCheckFailure),
    ]


class ModuleCheckResult(Structure):
    _fields_ = [
        ("steps", c_uint64),
        ("failed", c_uint32),
        ("checks", ModuleCheckOutcome * MODULE_CHECK_COUNT),
    ]


# ---- ots.h (only the parts a wrapper reads) ----


class OtsCoordinateSystem(Structure):
    _fields_ = [
        ("up", c_int),
        ("hand", c_int),
        ("unit", c_int),
        ("rot_order", c_int),
        ("rot_repr_anim", c_int),
        ("rot_repr_rest", c_int),
    ]


class OtsHeader(Structure):
    _fields_ = [("source", c_int), ("fps", c_double), ("coordinate_system", OtsCoordinateSystem)]


class OtsBone(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("parent", c_char_p),
        ("pivot", c_double * 3),
        ("rotation", c_double * 4),
        ("path", c_char_p),
        ("rig", c_char_p),
        ("is_camera", c_bool),
    ]


class OtsRigStruct(Structure):
    _fields_ = [
        ("header", OtsHeader),
        ("name", c_char_p),
        ("scale_factor", c_double),
        ("pivot_space", c_int),
        ("bones", POINTER(OtsBone)),
        ("bone_count", c_size_t),
        ("cameras", c_void_p),
        ("camera_count", c_size_t),
        ("allocator", c_void_p),
    ]


class OtsSourceModes(Structure):
    _fields_ = [
        ("position", c_char_p),
        ("rotation", c_char_p),
        ("scale", c_char_p),
        ("enable_3d", c_bool),
    ]


class OtsPeg(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("path", c_char_p),
        ("parent", c_char_p),
        ("rest_pivot", c_double * 3),
        ("rest_rotation", c_double * 4),
        ("rig", c_char_p),
        ("is_camera", c_bool),
        ("has_source_modes", c_bool),
        ("source_modes", OtsSourceModes),
        ("keyframes", c_void_p),
        ("keyframe_count", c_size_t),
    ]


class OtsClipStruct(Structure):
    _fields_ = [
        ("header", OtsHeader),
        ("frame_range", c_int32 * 2),
        ("pegs", POINTER(OtsPeg)),
        ("peg_count", c_size_t),
        ("cameras", c_void_p),
        ("camera_count", c_size_t),
        ("allocator", c_void_p),
    ]


class OtsSample(Structure):
    _fields_ = [("pos", c_double * 3), ("rot_quat", c_double * 4), ("scl", c_double * 3)]


class OtsBakeOptions(Structure):
    _fields_ = [("world_space", c_bool), ("name", c_char_p), ("metres_per_unit", c_double)]


class OtsFromCacheOptions(Structure):
    _fields_ = [
        ("fps", c_double),
        ("source", c_int),
        ("name", c_char_p),
        ("metres_per_unit", c_double),
        ("up_given", c_bool),
        ("up", c_int),
        ("keys_all", c_bool),
        ("private_cookie", c_uint32),
    ]


# ---- diff.h ----

DIFF_MAX_HEADERS = 16


class DiffOptions(Structure):
    _fields_ = [
        ("max_items", c_uint32),
        ("position_tolerance", c_double),
        ("angle_tolerance", c_double),
        ("offset", c_int32 * 3),
        ("name_a", c_char_p),
        ("name_b", c_char_p),
        ("parse", ParseOptions),
    ]


class DiffHeader(Structure):
    _fields_ = [("field", c_char_p), ("a", c_char * 80), ("b", c_char * 80)]


class DiffValue(Structure):
    _fields_ = [
        ("world", c_bool),
        ("index", c_uint32),
        ("entity_id", c_uint64),
        ("value", c_uint32),
        ("name", c_char_p),
        ("unit", c_char_p),
        ("a", c_double),
        ("b", c_double),
    ]


class DiffReplay(Structure):
    _fields_ = [
        ("different", c_bool),
        ("header_count", c_uint32),
        ("header", DiffHeader * DIFF_MAX_HEADERS),
        ("steps_compared", c_uint32),
        ("diverged", c_bool),
        ("at_start", c_bool),
        ("step", c_uint32),
        ("host_step_a", c_uint64),
        ("host_step_b", c_uint64),
        ("stage", c_int),
        ("value_total", c_uint32),
        ("value_count", c_uint32),
        ("values", POINTER(DiffValue)),
        ("inputs_differ", c_bool),
        ("op_index", c_uint32),
        ("has_op_a", c_bool),
        ("has_op_b", c_bool),
        ("op_a", Op),
        ("op_b", Op),
        ("has_input_step", c_bool),
        ("first_input_step", c_uint32),
        ("allocator", c_void_p),
        ("hash_rows_differ", c_bool),
        ("hash_row", c_uint32),
        ("hash_a", c_uint64),
        ("hash_b", c_uint64),
        ("entity_counts_differ", c_bool),
        ("entity_count_a", c_uint32),
        ("entity_count_b", c_uint32),
    ]


class DiffEntity(Structure):
    _fields_ = [
        ("id", c_uint64),
        ("in_a", c_bool),
        ("in_b", c_bool),
        ("index_a", c_uint32),
        ("index_b", c_uint32),
        ("frames_compared", c_uint32),
        ("presence_flips", c_uint32),
        ("max_distance", c_double),
        ("max_distance_step", c_int64),
        ("rms_distance", c_double),
        ("max_angle", c_double),
        ("max_angle_step", c_int64),
        ("max_ulps", c_uint64),
        ("past_tolerance", c_bool),
        ("first_past_step", c_int64),
    ]


class DiffCache(Structure):
    _fields_ = [
        ("different", c_bool),
        ("past_tolerance", c_bool),
        ("header_count", c_uint32),
        ("header", DiffHeader * DIFF_MAX_HEADERS),
        ("unitless", c_bool),
        ("exact", c_bool),
        ("compares_rotation", c_bool),
        ("first_step_a", c_int64),
        ("last_step_a", c_int64),
        ("first_step_b", c_int64),
        ("last_step_b", c_int64),
        ("overlap_frames", c_uint32),
        ("overlap_first", c_int64),
        ("overlap_last", c_int64),
        ("only_in_a", c_uint32),
        ("only_in_b", c_uint32),
        ("entity_count", c_uint32),
        ("entities", POINTER(DiffEntity)),
        ("has_first", c_bool),
        ("first_step", c_int64),
        ("first_id", c_uint64),
        ("first_distance", c_double),
        ("first_angle", c_double),
        ("first_presence", c_bool),
        ("max_ulps", c_uint64),
        ("allocator", c_void_p),
    ]


# Every mirrored struct with the C name it mirrors, for the ABI test.
MIRRORED = {
    "onescope_allocator": Allocator,
    "onescope_parse_options": ParseOptions,
    "onescope_buffer": Buffer,
    "onescope_error": Error,
    "onescope_text": Text,
    "onescope_pose_entity": PoseEntity,
    "onescope_pose": Pose,
    "onescope_pose_cache": PoseCacheStruct,
    "onescope_pose_writer_options": PoseWriterOptions,
    "onescope_sim_setup": SimSetup,
    "onescope_link_block": LinkBlock,
    "onescope_sim_def": SimDef,
    "onescope_op": Op,
    "onescope_op_reader": OpReader,
    "onescope_sim_body_state": BodyState,
    "onescope_replay_row": ReplayRow,
    "onescope_verify_result": VerifyResult,
    "onescope_ots_coordinate_system": OtsCoordinateSystem,
    "onescope_ots_header": OtsHeader,
    "onescope_ots_bone": OtsBone,
    "onescope_ots_rig": OtsRigStruct,
    "onescope_ots_source_modes": OtsSourceModes,
    "onescope_ots_peg": OtsPeg,
    "onescope_ots_clip": OtsClipStruct,
    "onescope_ots_sample": OtsSample,
    "onescope_ots_bake_options": OtsBakeOptions,
    "onescope_ots_from_cache_options": OtsFromCacheOptions,
    "onescope_diff_options": DiffOptions,
    "onescope_diff_header": DiffHeader,
    "onescope_diff_value": DiffValue,
    "onescope_entity_row": EntityRow,
    "onescope_entity_difference": EntityDifference,
    "onescope_recording_explanation": Explanation,
    "onescope_recording_diff_result": RecordingDiffResult,
    "onescope_value_info": ValueInfo,
    "onescope_world_value_info": WorldValueInfo,
    "onescope_module": ModuleTable,
    "onescope_keyframe": Keyframe,
    "onescope_value_difference": ValueDifference,
    "onescope_module_check_def": ModuleCheckDef,
    "onescope_module_check_failure": ModuleCheckFailure,
    "onescope_module_check_outcome": ModuleCheckOutcome,
    "onescope_module_check_result": ModuleCheckResult,
    "onescope_diff_replay": DiffReplay,
    "onescope_diff_entity": DiffEntity,
    "onescope_diff_cache": DiffCache,
}

library_path = _find()
# RTLD_GLOBAL: a module plug-in takes libonescope's functions from the process that loads it
# (docs/module.md, "Plug-ins"), so the plug-ins the CLI loads load here as they are. Every
# global the library exports carries the onescope_ prefix.
lib = ctypes.CDLL(library_path, mode=ctypes.RTLD_GLOBAL)

_P = POINTER
_E = _P(Error)
_cache_pp = _P(_P(PoseCacheStruct))
_opts = _P(ParseOptions)

# name: (restype, argtypes)
_PROTOTYPES = {
    "onescope_version_string": (c_char_p, []),
    "onescope_error_format": (c_size_t, [_E, c_char_p, c_size_t]),
    "onescope_error_name": (c_char_p, [c_int]),
    "onescope_buffer_free": (None, [_P(Buffer)]),
    "onescope_number_format": (c_size_t, [c_double, c_char_p, c_size_t]),
    "onescope_number_format_float": (c_size_t, [c_float, c_char_p, c_size_t]),
    # pose_cache.h
    "onescope_pose_cache_parse": (c_int, [c_void_p, c_size_t, c_char_p, _opts, _cache_pp, _E]),
    "onescope_pose_cache_create": (
        c_int,
        [c_uint8, c_uint32, c_uint32, c_void_p, _cache_pp, _E],
    ),
    "onescope_pose_cache_set_text": (
        c_int,
        [_P(PoseCacheStruct), c_int, c_char_p, c_size_t, _E],
    ),
    "onescope_pose_cache_set_entity_name": (
        c_int,
        [_P(PoseCacheStruct), c_uint32, c_char_p, c_size_t, _E],
    ),
    "onescope_pose_cache_free": (None, [_P(PoseCacheStruct)]),
    "onescope_pose_cache_validate": (c_int, [_P(PoseCacheStruct), c_char_p, _E]),
    "onescope_pose_cache_write": (c_int, [_P(PoseCacheStruct), c_void_p, _P(Buffer), _E]),
    "onescope_pose_cache_head_size": (c_int, [_P(PoseCacheStruct), _P(c_uint64), _E]),
    "onescope_pose_cache_read_file": (c_int, [c_char_p, _opts, _cache_pp, _E]),
    "onescope_pose_cache_map": (c_int, [c_char_p, _opts, _cache_pp, _E]),
    "onescope_pose_cache_write_file": (c_int, [_P(PoseCacheStruct), c_char_p, _E]),
    "onescope_pose_cache_set_pose": (
        c_int,
        [_P(PoseCacheStruct), c_uint32, c_uint32, _P(Pose), _E],
    ),
    "onescope_pose_writer_open": (
        c_int,
        [c_char_p, _P(PoseCacheStruct), _P(PoseWriterOptions), c_void_p, _P(c_void_p), _E],
    ),
    "onescope_pose_writer_append": (c_int, [c_void_p, c_void_p, c_size_t, _E]),
    "onescope_pose_writer_flush": (c_int, [c_void_p, _E]),
    "onescope_pose_writer_frames": (c_uint64, [c_void_p]),
    "onescope_pose_writer_close": (c_int, [c_void_p, _P(c_uint64), _E]),
    "onescope_pose_writer_free": (None, [c_void_p]),
    "onescope_pose_cache_recover": (
        c_int,
        [c_char_p, c_char_p, c_void_p, _P(c_uint64), _E],
    ),
    # sim.h
    "onescope_sim_def_default": (SimDef, []),
    "onescope_sim_create": (c_int, [_P(SimDef), c_void_p, _P(c_void_p), _E]),
    "onescope_sim_create_from_snapshot": (
        c_int,
        [_P(SimDef), c_void_p, c_size_t, c_char_p, c_void_p, _P(c_void_p), _E],
    ),
    "onescope_sim_free": (None, [c_void_p]),
    "onescope_sim_step": (c_int, [c_void_p, c_void_p, c_size_t, _E]),
    "onescope_sim_dimensions": (c_uint8, [c_void_p]),
    "onescope_sim_host_step": (c_uint64, [c_void_p]),
    "onescope_sim_gravity": (c_int32, [c_void_p]),
    "onescope_sim_body_count": (c_uint32, [c_void_p]),
    "onescope_sim_body": (c_int, [c_void_p, c_uint32, _P(BodyState)]),
    "onescope_sim_snapshot_size": (c_size_t, [c_void_p]),
    "onescope_sim_snapshot": (c_size_t, [c_void_p, c_void_p, c_size_t]),
    "onescope_sim_hash": (c_uint64, [c_void_p]),
    "onescope_sim_has_fields": (c_bool, [c_void_p]),
    "onescope_sim_field": (c_int, [c_void_p, c_int, c_void_p, c_size_t, _E]),
    "onescope_op_size": (c_size_t, [c_uint8]),
    "onescope_op_name": (c_char_p, [c_uint8]),
    "onescope_op_encode": (c_size_t, [c_uint8, _P(Op), c_void_p, c_size_t, _E]),
    "onescope_op_reader_init": (
        None,
        [_P(OpReader), c_uint8, c_void_p, c_size_t, c_char_p, c_uint64],
    ),
    "onescope_op_reader_next": (c_int, [_P(OpReader), _P(Op), _E]),
    # replay.h
    "onescope_replay_flags": (c_uint16, [c_void_p]),
    "onescope_replay_setup": (SimSetup, [c_void_p]),
    "onescope_replay_link": (LinkBlock, [c_void_p]),
    "onescope_replay_step_count": (c_uint32, [c_void_p]),
    "onescope_replay_has_start_snapshot": (c_bool, [c_void_p]),
    "onescope_replay_start_snapshot": (_P(c_uint8), [c_void_p, _P(c_size_t)]),
    "onescope_replay_start_step": (c_uint64, [c_void_p]),
    "onescope_replay_has_hash_rows": (c_bool, [c_void_p]),
    "onescope_replay_hash_rows": (_P(c_uint64), [c_void_p]),
    "onescope_replay_input_bytes": (c_uint64, [c_void_p]),
    "onescope_replay_parse": (c_int, [c_void_p, c_size_t, c_char_p, _opts, _P(c_void_p), _E]),
    "onescope_replay_read_file": (c_int, [c_char_p, _opts, _P(c_void_p), _E]),
    "onescope_replay_create": (
        c_int,
        [_P(SimSetup), _P(LinkBlock), c_void_p, _P(c_void_p), _E],
    ),
    "onescope_replay_set_start_snapshot": (c_int, [c_void_p, c_void_p, c_size_t, _E]),
    "onescope_replay_append_step": (c_int, [c_void_p, c_void_p, c_size_t, _E]),
    "onescope_replay_append_ops": (c_int, [c_void_p, _P(Op), c_size_t, _E]),
    "onescope_replay_set_hash_rows": (c_int, [c_void_p, _P(c_uint64), c_size_t, _E]),
    "onescope_replay_compute_hash_rows": (c_int, [c_void_p, _E]),
    "onescope_replay_step_input": (
        c_int,
        [c_void_p, c_uint32, _P(_P(c_uint8)), _P(c_size_t)],
    ),
    "onescope_replay_free": (None, [c_void_p]),
    "onescope_replay_write": (c_int, [c_void_p, c_void_p, _P(Buffer), _E]),
    "onescope_replay_write_file": (c_int, [c_void_p, c_char_p, _E]),
    "onescope_replay_start_world": (c_int, [c_void_p, c_void_p, _P(c_void_p), _E]),
    "onescope_replay_run": (c_int, [c_void_p, c_void_p, ReplayCallback, c_void_p, _E]),
    "onescope_replay_verify": (c_int, [c_void_p, c_void_p, _P(VerifyResult), c_char_p, _E]),
    # ots.h
    "onescope_ots_rig_parse": (
        c_int,
        [c_void_p, c_size_t, c_char_p, _opts, _P(_P(OtsRigStruct)), _E],
    ),
    "onescope_ots_clip_parse": (
        c_int,
        [c_void_p, c_size_t, c_char_p, _opts, _P(_P(OtsClipStruct)), _E],
    ),
    "onescope_ots_rig_free": (None, [_P(OtsRigStruct)]),
    "onescope_ots_clip_free": (None, [_P(OtsClipStruct)]),
    "onescope_ots_rig_write": (c_int, [_P(OtsRigStruct), c_void_p, _P(Buffer), _E]),
    "onescope_ots_clip_write": (c_int, [_P(OtsClipStruct), c_void_p, _P(Buffer), _E]),
    "onescope_ots_peg_sample": (None, [_P(OtsPeg), c_int, c_double, _P(OtsSample)]),
    "onescope_ots_euler_to_quat": (None, [_P(c_double), c_int, _P(c_double)]),
    "onescope_ots_quat_to_euler_xyz": (None, [_P(c_double), _P(c_double)]),
    "onescope_ots_bake_options_default": (OtsBakeOptions, []),
    "onescope_ots_from_cache_options_default": (OtsFromCacheOptions, []),
    "onescope_ots_clip_to_pose_cache": (
        c_int,
        [_P(OtsClipStruct), _P(OtsBakeOptions), c_void_p, _cache_pp, _E],
    ),
    "onescope_ots_clip_from_pose_cache": (
        c_int,
        [_P(PoseCacheStruct), _P(OtsFromCacheOptions), c_void_p, _P(_P(OtsClipStruct)), _E],
    ),
    "onescope_ots_pose_cache_to_anm": (
        c_int,
        [_P(PoseCacheStruct), _P(OtsFromCacheOptions), c_void_p, _P(Buffer), _E],
    ),
    "onescope_format_detect": (c_int, [c_void_p, c_size_t]),
    "onescope_format_name": (c_char_p, [c_int]),
    "onescope_file_read": (c_int, [c_char_p, c_size_t, c_void_p, _P(Buffer), _E]),
    "onescope_file_write": (c_int, [c_char_p, c_void_p, c_size_t, _E]),
    "onescope_file_validate": (c_int, [c_char_p, _opts, _P(c_int), _E]),
    "onescope_sim_stage_name": (c_char_p, [c_int]),
    # diff.h
    "onescope_diff_replays": (
        c_int,
        [c_void_p, c_void_p, _P(DiffOptions), c_void_p, _P(_P(DiffReplay)), _E],
    ),
    "onescope_diff_replay_free": (None, [_P(DiffReplay)]),
    "onescope_diff_caches": (
        c_int,
        [
            _P(PoseCacheStruct),
            _P(PoseCacheStruct),
            _P(DiffOptions),
            c_void_p,
            _P(_P(DiffCache)),
            _E,
        ],
    ),
    "onescope_diff_cache_files": (
        c_int,
        [c_char_p, c_char_p, _P(DiffOptions), c_void_p, _P(_P(DiffCache)), _E],
    ),
    "onescope_diff_replay_cache": (
        c_int,
        [c_void_p, _P(PoseCacheStruct), _P(DiffOptions), c_void_p, _P(_P(DiffCache)), _E],
    ),
    "onescope_diff_replay_cache_file": (
        c_int,
        [c_void_p, c_char_p, _P(DiffOptions), c_void_p, _P(_P(DiffCache)), _E],
    ),
    "onescope_diff_cache_free": (None, [_P(DiffCache)]),
    # module.h, recording.h
    "onescope_module_test": (c_void_p, []),
    "onescope_module_load": (c_int, [c_char_p, _P(c_void_p), _E]),
    "onescope_module_fail": (c_int, [_E, c_int, c_uint64, c_char_p, c_char_p, c_char_p]),
    "onescope_module_check_def_default": (ModuleCheckDef, []),
    "onescope_module_check_name": (c_char_p, [c_int]),
    "onescope_module_check_run": (
        c_int,
        [c_void_p, c_void_p, c_size_t, _P(ModuleCheckDef), c_void_p, _P(ModuleCheckResult), _E],
    ),
    "onescope_recording_parse": (c_int, [c_void_p, c_size_t, c_char_p, _opts, _P(c_void_p), _E]),
    "onescope_recording_read_file": (c_int, [c_char_p, _opts, _P(c_void_p), _E]),
    "onescope_recording_free": (None, [c_void_p]),
    "onescope_recording_module_id": (c_char_p, [c_void_p]),
    "onescope_recording_module_version": (c_char_p, [c_void_p]),
    "onescope_recording_flags": (c_uint16, [c_void_p]),
    "onescope_recording_step_count": (c_uint32, [c_void_p]),
    "onescope_recording_setup": (_P(c_uint8), [c_void_p, _P(c_size_t)]),
    "onescope_recording_start_snapshot": (_P(c_uint8), [c_void_p, _P(c_size_t)]),
    "onescope_recording_write": (c_int, [c_void_p, c_void_p, _P(Buffer), _E]),
    "onescope_recording_hash_row": (c_uint64, [c_void_p, c_uint32]),
    "onescope_recording_step_input": (
        c_int,
        [c_void_p, c_uint32, _P(_P(c_uint8)), _P(c_size_t)],
    ),
    "onescope_recording_check": (c_int, [c_void_p, c_void_p, c_char_p, _E]),
    "onescope_recording_entity_row": (c_int, [c_void_p, c_uint32, _P(EntityRow)]),
    "onescope_recording_keyframe_every": (c_uint32, [c_void_p]),
    "onescope_recording_keyframe_count": (c_uint32, [c_void_p]),
    "onescope_recording_keyframe": (c_int, [c_void_p, c_uint32, _P(Keyframe)]),
    "onescope_recording_value_name": (c_int, [c_void_p, c_uint32, c_char_p]),
    "onescope_recording_explain": (
        c_int, [c_void_p, c_void_p, c_uint32, c_uint32, c_void_p, _P(_P(Explanation)), c_char_p, _E]
    ),
    "onescope_recording_explanation_free": (None, [_P(Explanation)]),
    "onescope_recording_verify_file": (c_int, [c_char_p, c_void_p, _opts, _P(VerifyResult), _E]),
    "onescope_recording_verify": (
        c_int,
        [c_void_p, c_void_p, c_void_p, _P(VerifyResult), c_char_p, _E],
    ),
    "onescope_recording_diff": (
        c_int,
        [c_void_p, c_void_p, c_void_p, c_void_p, _P(RecordingDiffResult), c_char_p, c_char_p, _E],
    ),
    "onescope_module_box3d": (c_void_p, []),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


/* OTS v4 exchange files: .pvt (a rig: bones and their rest pivots) and .anm (an animation:
 * pegs with keyframes), both JSON. Reader, validator, writer, and conversion to and from
 * OSPC pose caches. Format and every rule: docs/ots.md. Sources: src/ots.c (building,
 * setters, freeing), src/ots_rules.c (the rules reader and writer share), src/ots_read.c
 * (JSON -> structs), src/ots_write.c (structs -> JSON), src/ots_convert.c (sampling, and
 * clips <-> pose caches). */
#ifndef ONESCOPE_OTS_H
#define ONESCOPE_OTS_H

#include <stdbool.h>

#include "onescope/error.h"
#include "onescope/pose_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_OTS_VERSION 4

typedef enum onescope_ots_kind {
    ONESCOPE_OTS_NONE = 0, /* not an OTS file */
    ONESCOPE_OTS_PVT = 1,  /* "format": "octo_pvt" */
    ONESCOPE_OTS_ANM = 2   /* "format": "octo_anm" */
} onescope_ots_kind;

/* Which application wrote the file ("source"). */
typedef enum onescope_ots_source {
    ONESCOPE_OTS_SOURCE_HARMONY = 0,
    ONESCOPE_OTS_SOURCE_BLENDER = 1,
    ONESCOPE_OTS_SOURCE_MAYA = 2
} onescope_ots_source;

typedef enum onescope_ots_up {
    ONESCOPE_OTS_UP_X = 0,
    ONESCOPE_OTS_UP_Y = 1,
    ONESCOPE_OTS_UP_Z = 2
} onescope_ots_up;
typedef enum onescope_ots_hand {
    ONESCOPE_OTS_HAND_RIGHT = 0,
    ONESCOPE_OTS_HAND_LEFT = 1
} onescope_ots_hand;
typedef enum onescope_ots_unit { ONESCOPE_OTS_UNIT_METERS = 0 } onescope_ots_unit;
/* Euler order: the axis applied first comes first ("xyz": x, then y, then z). */
typedef enum onescope_ots_rot_order {
    ONESCOPE_OTS_ROT_XYZ = 0,
    ONESCOPE_OTS_ROT_XZY = 1,
    ONESCOPE_OTS_ROT_YXZ = 2,
    ONESCOPE_OTS_ROT_YZX = 3,
    ONESCOPE_OTS_ROT_ZXY = 4,
    ONESCOPE_OTS_ROT_ZYX = 5
} onescope_ots_rot_order;
typedef enum onescope_ots_rot_repr {
    ONESCOPE_OTS_REPR_EULER_DEG = 0, /* "euler_deg" */
    ONESCOPE_OTS_REPR_QUAT_WXYZ = 1  /* "quat_wxyz" */
} onescope_ots_rot_repr;

typedef struct onescope_ots_coordinate_system {
    onescope_ots_up up;
    onescope_ots_hand hand;
    onescope_ots_unit unit;
    onescope_ots_rot_order rot_order;
    onescope_ots_rot_repr rot_repr_anim;
    onescope_ots_rot_repr rot_repr_rest;
} onescope_ots_coordinate_system;

/* The keys both formats start with (format and version are implied by the struct). */
typedef struct onescope_ots_header {
    onescope_ots_source source;
    double fps; /* > 0 */
    onescope_ots_coordinate_system coordinate_system;
} onescope_ots_header;

/* source harmony, fps 24, y up, right-handed, meters, xyz, euler_deg, quat_wxyz. */
ONESCOPE_API onescope_ots_header onescope_ots_header_default(void);

/* Strings are NUL-terminated UTF-8 owned by the struct's allocator (JSON text cannot hold
 * U+0000 here). Optional strings (path, rig) may be NULL, which means the same as "". */

/* A camera block, the same in both formats. */
typedef enum onescope_ots_fov_axis {
    ONESCOPE_OTS_FOV_VERTICAL = 0,
    ONESCOPE_OTS_FOV_HORIZONTAL = 1
} onescope_ots_fov_axis;

typedef struct onescope_ots_camera {
    char *name; /* not empty, unique among the file's cameras */
    char *peg;  /* the bone or peg that animates it (may name none) */
    char *path; /* optional */
    bool is_default;
    double fov; /* degrees */
    onescope_ots_fov_axis fov_axis;
    bool override_fov;
    double near_plane, far_plane; /* canonical distances */
    double near_field, far_field; /* Harmony's original values in fields */
    double angle;                 /* roll, degrees about z */
    double offset_x, offset_y, offset_z;
    double pivot_x, pivot_y;
    char *rig; /* optional */
} onescope_ots_camera;

/* ---- .pvt ---- */

typedef enum onescope_ots_pivot_space {
    ONESCOPE_OTS_PIVOT_LOCAL = 0,   /* relative to the parent */
    ONESCOPE_OTS_PIVOT_ARMATURE = 1 /* relative to the armature */
} onescope_ots_pivot_space;

typedef struct onescope_ots_bone {
    char *name;         /* not empty; unique per rig tag */
    char *parent;       /* NULL: JSON null (a root) */
    double pivot[3];    /* rest position, WITHOUT scale_factor (the file holds pivot * scale) */
    double rotation[4]; /* rest rotation, quaternion w x y z, not all zero */
    char *path;         /* optional */
    char *rig;          /* optional */
    bool is_camera;     /* optional, false omitted */
} onescope_ots_bone;

typedef struct onescope_ots_rig {
    onescope_ots_header header;
    char *name;
    double scale_factor; /* > 0: pivots are multiplied by it on write, divided on read */
    onescope_ots_pivot_space pivot_space;
    onescope_ots_bone *bones;
    size_t bone_count;
    onescope_ots_camera *cameras;
    size_t camera_count;
    const onescope_allocator *allocator;
} onescope_ots_rig;

/* ---- .anm ---- */

typedef enum onescope_ots_interp {
    ONESCOPE_OTS_BEZIER = 0,
    ONESCOPE_OTS_LINEAR = 1,
    ONESCOPE_OTS_CONSTANT = 2
} onescope_ots_interp;

typedef enum onescope_ots_channel {
    ONESCOPE_OTS_CHANNEL_POS = 0,
    ONESCOPE_OTS_CHANNEL_ROT = 1,
    ONESCOPE_OTS_CHANNEL_SCL = 2
} onescope_ots_channel;

/* One axis's bezier handles: absolute (frame, value) points. */
typedef struct onescope_ots_handle {
    bool present;   /* false: the axis's entry is [] */
    double left[2]; /* [frame, value] */
    double right[2];
} onescope_ots_handle;

typedef struct onescope_ots_keyframe {
    int32_t frame;
    double pos[3];
    bool has_rot;       /* "rot" present */
    double rot[3];      /* Euler degrees in the coordinate system's rot_order */
    bool has_rot_quat;  /* "rot_quat" present; wins over rot */
    double rot_quat[4]; /* w x y z, not all zero */
    double scl[3];
    onescope_ots_interp interp;
    /* handles.pos/.rot/.scl: axes 0 (written []) or 3 (one entry per axis). */
    uint8_t handle_axes[3];
    onescope_ots_handle handles[3][3]; /* [channel][axis] */
} onescope_ots_keyframe;

/* A diagnostic record of how the peg was built in its source application. Never changes a
 * value; any strings are kept as they are. */
typedef struct onescope_ots_source_modes {
    char *position;
    char *rotation;
    char *scale;
    bool enable_3d;
} onescope_ots_source_modes;

typedef struct onescope_ots_peg {
    char *name;   /* not empty; unique per rig tag */
    char *path;   /* optional */
    char *parent; /* NULL: JSON null */
    double rest_pivot[3];
    double rest_rotation[4]; /* w x y z, not all zero */
    char *rig;               /* optional */
    bool is_camera;          /* optional */
    bool has_source_modes;
    onescope_ots_source_modes source_modes;
    onescope_ots_keyframe *keyframes; /* frames strictly increasing */
    size_t keyframe_count;
} onescope_ots_peg;

typedef struct onescope_ots_clip {
    onescope_ots_header header;
    int32_t frame_range[2]; /* first <= last */
    onescope_ots_peg *pegs;
    size_t peg_count;
    onescope_ots_camera *cameras;
    size_t camera_count;
    const onescope_allocator *allocator;
} onescope_ots_clip;

/* ---- reading ---- */

/* The kind named by the first "format" key of a text that starts with '{', looking no
 * further than the first ONESCOPE_FORMAT_DETECT_BYTES bytes (onescope/format.h; a quick look,
 * not a validation): ONESCOPE_OTS_NONE when there is none. */
ONESCOPE_API onescope_ots_kind onescope_ots_detect(const void *data, size_t size);

/* Parse and validate a whole file, in one pass with the library's own JSON reader (no tree).
 * options may be NULL. Every error carries the line, column and offset where it is; errors
 * about a value also the JSON path in error->field. Errors come in file order; with
 * options->on_error, every error is handed over, not only the first (docs/ots.md section 6).
 * Every allocation, the reader's included, goes through options->allocator. */
ONESCOPE_API onescope_code onescope_ots_rig_parse(const void *data, size_t size, const char *name,
                                                  const onescope_parse_options *options,
                                                  onescope_ots_rig **out, onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_parse(const void *data, size_t size, const char *name,
                                                   const onescope_parse_options *options,
                                                   onescope_ots_clip **out, onescope_error *error);

/* ---- building ---- */

/* Allocate a rig/clip with header defaults and the given array sizes. Entries start zeroed
 * except: rotations are the identity, scale_factor 1, scl 1, and every camera gets fov 40
 * (degrees, vertical), near_plane 0.1 and far_plane 1000 (names stay NULL: set them).
 * Fill, validate, write. */
ONESCOPE_API onescope_code onescope_ots_rig_create(size_t bone_count, size_t camera_count,
                                                   const onescope_allocator *allocator,
                                                   onescope_ots_rig **out, onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_create(size_t peg_count, size_t camera_count,
                                                    const onescope_allocator *allocator,
                                                    onescope_ots_clip **out, onescope_error *error);
/* The text fields of a rig's or a clip's elements, for the setters below. */
typedef enum onescope_ots_text {
    ONESCOPE_OTS_TEXT_NAME = 0,            /* bone, peg, camera */
    ONESCOPE_OTS_TEXT_PARENT = 1,          /* bone, peg (NULL: JSON null, a root) */
    ONESCOPE_OTS_TEXT_PATH = 2,            /* bone, peg, camera */
    ONESCOPE_OTS_TEXT_RIG = 3,             /* bone, peg, camera */
    ONESCOPE_OTS_TEXT_PEG = 4,             /* camera */
    ONESCOPE_OTS_TEXT_SOURCE_POSITION = 5, /* peg: source_modes.position */
    ONESCOPE_OTS_TEXT_SOURCE_ROTATION = 6, /* peg: source_modes.rotation */
    ONESCOPE_OTS_TEXT_SOURCE_SCALE = 7     /* peg: source_modes.scale */
} onescope_ots_text;

/* Setters: copy text (NULL sets NULL) into the field of element `index` through the
 * object's own allocator; the old text is freed. RANGE for an index past the count,
 * ARGUMENT for a field the element does not have; on any failure the field is unchanged. */
ONESCOPE_API onescope_code onescope_ots_rig_set_name(onescope_ots_rig *rig, const char *text,
                                                     onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_rig_set_bone_text(onescope_ots_rig *rig, size_t bone,
                                                          onescope_ots_text field, const char *text,
                                                          onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_rig_set_camera_text(onescope_ots_rig *rig, size_t camera,
                                                            onescope_ots_text field,
                                                            const char *text,
                                                            onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_set_peg_text(onescope_ots_clip *clip, size_t peg,
                                                          onescope_ots_text field, const char *text,
                                                          onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_set_camera_text(onescope_ots_clip *clip, size_t camera,
                                                             onescope_ots_text field,
                                                             const char *text,
                                                             onescope_error *error);
/* Gives peg `peg` count keyframes (frames 0.. count-1, identity rot_quat, scl 1, LINEAR). */
ONESCOPE_API onescope_code onescope_ots_clip_set_keyframe_count(onescope_ots_clip *clip, size_t peg,
                                                                size_t count,
                                                                onescope_error *error);

ONESCOPE_API void onescope_ots_rig_free(onescope_ots_rig *rig);
ONESCOPE_API void onescope_ots_clip_free(onescope_ots_clip *clip);

/* Check every rule the parser checks (name labels the error; field holds the JSON path). */
ONESCOPE_API onescope_code onescope_ots_rig_validate(const onescope_ots_rig *rig, const char *name,
                                                     onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_validate(const onescope_ots_clip *clip,
                                                      const char *name, onescope_error *error);

/* ---- writing: validated first; indented JSON, spec key order, shortest round-trip numbers ---- */

ONESCOPE_API onescope_code onescope_ots_rig_write(const onescope_ots_rig *rig,
                                                  const onescope_allocator *allocator,
                                                  onescope_buffer *out, onescope_error *error);
ONESCOPE_API onescope_code onescope_ots_clip_write(const onescope_ots_clip *clip,
                                                   const onescope_allocator *allocator,
                                                   onescope_buffer *out, onescope_error *error);

/* ---- evaluation and conversion ---- */

/* A peg's local transform at a frame, from its keyframes (rest pose when it has none). */
typedef struct onescope_ots_sample {
    double pos[3];
    double rot_quat[4]; /* w x y z, unit length */
    double scl[3];
} onescope_ots_sample;

ONESCOPE_API void onescope_ots_peg_sample(const onescope_ots_peg *peg, onescope_ots_rot_order order,
                                          double frame, onescope_ots_sample *out);

/* Euler angles in degrees (applied in `order`) to a w x y z quaternion, and the reverse for
 * the xyz order. */
ONESCOPE_API void onescope_ots_euler_to_quat(const double deg[3], onescope_ots_rot_order order,
                                             double wxyz[4]);
ONESCOPE_API void onescope_ots_quat_to_euler_xyz(const double wxyz[4], double deg[3]);

/* A zeroed struct is the default (compose parents, the default name);
 * onescope_ots_bake_options_default() returns exactly that. */
typedef struct onescope_ots_bake_options {
    /* false (default): keyframe values are local to the parent peg and are composed up the
     * parent chain to world space; true: they are already world space (CLI --world). */
    bool world_space;
    const char *name; /* input name for error messages (e.g. the .anm path); NULL: "anm to ospc" */
    /* The cache's unit: positions (metres in OTS) are divided by it. 0 (default): 1, metres.
     * 1, 0.01 and 0.001 get the unit names "m", "cm" and "mm"; other values none. */
    double metres_per_unit;
} onescope_ots_bake_options;
ONESCOPE_API onescope_ots_bake_options onescope_ots_bake_options_default(void);

/* .anm -> OSPC: one point entity per peg (id index + 1, name = peg name), every frame of
 * frame_range sampled (frame k = frame_range[0] + k, start_step = frame_range[0], which must
 * be >= 0), metres_per_unit from the options (default 1, unit name "m"). An up axis other
 * than y is recorded as the cache's label "up=x" or "up=z". Scale and cameras are not
 * carried. */
ONESCOPE_API onescope_code onescope_ots_clip_to_pose_cache(const onescope_ots_clip *clip,
                                                           const onescope_ots_bake_options *options,
                                                           const onescope_allocator *allocator,
                                                           onescope_pose_cache **out,
                                                           onescope_error *error);

/* Its defaults are not zero (24 fps, blender), so the struct must come from
 * onescope_ots_from_cache_options_default(): that sets a private cookie, and a conversion
 * given a struct without it (e.g. zeroed) refuses it with ARGUMENT. NULL means the defaults. */
typedef struct onescope_ots_from_cache_options {
    double fps;                 /* default 24 */
    onescope_ots_source source; /* default blender */
    const char *name;           /* input name for error messages; NULL: "ospc to anm" */
    /* The cache's metres per unit when it has none (metres_per_unit 0, "unitless"); 0
     * (default): the cache's own, and a unitless cache is refused. A cache with a unit of its
     * own refuses a different value. Positions are multiplied by it into OTS metres. */
    double metres_per_unit;
    /* The .anm's up axis: up_given false (default) takes it from the cache's label ("up=x",
     * "up=y" or "up=z", what the bake records), else y; true sets `up`, and a cache whose
     * label names another axis is refused. */
    bool up_given;
    onescope_ots_up up;
    /* false (default): only the keyframes needed to give back every present pose exactly;
     * true: one keyframe per present frame. */
    bool keys_all;
    uint32_t private_cookie; /* set by _default(); do not touch */
} onescope_ots_from_cache_options;
ONESCOPE_API onescope_ots_from_cache_options onescope_ots_from_cache_options_default(void);

/* OSPC -> .anm: one root peg per entity, positions in metres (times the cache's metres per
 * unit), keyframes with rot_quat and the matching Euler xyz degrees. By default only the
 * keyframes that sampling (LINEAR, or CONSTANT over a still run) needs to give back every
 * present pose bit for bit; with keys_all one LINEAR keyframe per present frame. The last
 * keyframe before an absent frame is CONSTANT, so nothing interpolates across a gap. */
ONESCOPE_API onescope_code onescope_ots_clip_from_pose_cache(
    const onescope_pose_cache *cache, const onescope_ots_from_cache_options *options,
    const onescope_allocator *allocator, onescope_ots_clip **out, onescope_error *error);

/* ---- one-shot conversions: the clip is checked once ---- */

/* The fewest bytes the .anm writer spends on one keyframe (every number at its shortest,
 * "0.0"), which sizes a cache's .anm before it is built. tests/test_ots.c holds the writer to
 * it. */
#define ONESCOPE_OTS_KEYFRAME_MIN_BYTES 300u

/* .anm text -> OSPC: onescope_ots_clip_parse then onescope_ots_clip_to_pose_cache, except
 * that the clip the parser has just checked is not checked again. The cache is made with
 * options->allocator; parse failures name `name`, conversion failures bake->name (or name
 * when that is NULL). options and bake may be NULL. */
ONESCOPE_API onescope_code onescope_ots_anm_to_pose_cache(
    const void *data, size_t size, const char *name, const onescope_parse_options *options,
    const onescope_ots_bake_options *bake, onescope_pose_cache **out, onescope_error *error);

/* .anm text -> an OSPC file at path, baked frame by frame through a streaming pose writer
 * (onescope_pose_writer_open): memory is the clip, one frame and the writer's buffer, however
 * long the frame range; the file is byte for byte what onescope_ots_anm_to_pose_cache then
 * onescope_pose_cache_write_file would write. Without writer->segments (writer NULL: the
 * defaults) a bake whose file would pass the segment limit (256 MiB, or max_segment_bytes when
 * smaller) is refused with ONESCOPE_E_TOO_LARGE naming bake->name (or name) and the limit,
 * from the peg count and the frame range, before a frame is sampled or a file created; with
 * segments it rolls over (docs/pose-cache.md, "Segments"). Failures leave no partial and path
 * as it was. *frames (may be NULL) gets the frames written. "-" is refused. */
ONESCOPE_API onescope_code onescope_ots_anm_to_pose_cache_file(
    const void *data, size_t size, const char *name, const onescope_parse_options *options,
    const onescope_ots_bake_options *bake, const char *path,
    const onescope_pose_writer_options *writer, uint64_t *frames, onescope_error *error);

/* An .anm file -> an OSPC file at path, in memory bounded by the pegs, not the file: in_path
 * ("-": standard input) is read in 1 MiB chunks through the reader, each keyframe, once
 * checked, goes to an unnamed scratch file ($TMPDIR or /tmp; removed however the call ends)
 * and the bake reads it back through a window of two keyframes per peg (docs/ots.md,
 * "Converting in constant memory"). The file written, every error (code, offset, line and
 * message) and the order they come in are those of onescope_file_read of in_path then
 * onescope_ots_anm_to_pose_cache_file on its bytes with name in_path ("<stdin>" for "-"),
 * options, bake, path and writer as given; a failure of the scratch file itself is an
 * ONESCOPE_E_IO naming the input and the folder. */
ONESCOPE_API onescope_code onescope_ots_anm_file_to_pose_cache_file(
    const char *in_path, const onescope_parse_options *options,
    const onescope_ots_bake_options *bake, const char *path,
    const onescope_pose_writer_options *writer, uint64_t *frames, onescope_error *error);

/* OSPC -> .anm text: onescope_ots_clip_from_pose_cache then onescope_ots_clip_write, except
 * that the clip checked after it is built is not checked again before it is written. The
 * JSON's size is bounded from below by the cache first (every keyframe it will write takes at
 * least ONESCOPE_OTS_KEYFRAME_MIN_BYTES): a cache whose .anm would certainly pass the
 * 256 MiB output limit is refused with ONESCOPE_E_TOO_LARGE naming options->name before the
 * clip or the JSON is built. */
ONESCOPE_API onescope_code onescope_ots_pose_cache_to_anm(
    const onescope_pose_cache *cache, const onescope_ots_from_cache_options *options,
    const onescope_allocator *allocator, onescope_buffer *out, onescope_error *error);

/* OSPC -> an .anm file at path, the same bytes as onescope_ots_pose_cache_to_anm then
 * onescope_file_write, written one peg at a time: memory is one peg's keyframes, the peg
 * names and a fixed 1 MiB output buffer, however many frames the cache holds (allocations
 * through cache->allocator). The same checks as onescope_ots_pose_cache_to_anm, in this
 * order: the options, the cache, its unit and up axis and the output's size from below
 * (ONESCOPE_OTS_KEYFRAME_MIN_BYTES) before anything is built; the header and the names across
 * pegs before the file is created; each peg's keyframes before its bytes are written; the
 * file's real size against the 256 MiB output limit as it grows (ONESCOPE_E_TOO_LARGE naming
 * options->name and the limit). A cache breaking several rules may so report another of them
 * first than the in-memory call. The file lands as onescope_file_write lands one (a temporary
 * beside it, fsync, rename; symlinks followed, an existing file's mode and owner kept, a
 * device written in place): a failure leaves no partial file and path as it was. Failures of
 * the cache or the rules name options->name, the file's own path. "-" is refused (use
 * onescope_ots_pose_cache_to_anm). */
ONESCOPE_API onescope_code onescope_ots_pose_cache_to_anm_file(
    const onescope_pose_cache *cache, const onescope_ots_from_cache_options *options,
    const char *path, onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

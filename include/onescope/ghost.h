/* Ghosts: a test-module run drawn as a pose cache (a stand-in for a reference engine's dump),
 * optionally shifted by an offset so it can be shown beside the live world. docs/ghost.md. */
#ifndef ONESCOPE_GHOST_H
#define ONESCOPE_GHOST_H

#include "onescope/pose_cache.h"
#include "onescope/recording.h"
#include "onescope/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The test module's bodies are points; a ghost draws each as a sphere of this radius (mm). */
#define ONESCOPE_GHOST_BODY_RADIUS 100
/* Each offset component is limited to +-this (mm), so position + offset stays exact in a float. */
#define ONESCOPE_GHOST_MAX_OFFSET 1000000
#define ONESCOPE_GHOST_MODULE_ID "onescope.test-module"

/* Zero cannot be the default of `frames` (0 frames is refused with RANGE), so options must
 * start from onescope_ghost_options_default() (or be NULL for the defaults): it sets a private
 * cookie that onescope_ghost_create checks, refusing options made without it with
 * ONESCOPE_E_ARGUMENT ("onescope_ghost_options: ..."). */
typedef struct onescope_ghost_options {
    uint32_t from;            /* hash row (steps run since the replay's start) of frame 0 */
    uint32_t frames;          /* >= 1; from + frames - 1 <= step_count */
    int32_t offset[3];        /* mm added to every present position; z must be 0 in 2D */
    const char *replay_name;  /* stored as the origin's replay when it is a plain file name
                                 (the basename of a path is taken); NULL: none */
    const char *label;        /* origin label; NULL: empty */
    const char *name;         /* input name for error messages (the replay's path); NULL: "ghost" */
    uint32_t internal_cookie; /* set by onescope_ghost_options_default(); do not touch */
} onescope_ghost_options;

ONESCOPE_API onescope_ghost_options onescope_ghost_options_default(void);

/* Runs the replay and writes frames `frames` of its bodies from row `from` into a new pose
 * cache: one sphere entity per body the world holds at the last frame (id = index + 1, name
 * "body N"), absent (NaN x) in frames where the body is removed or not spawned yet, positions
 * + offset in mm (metres per unit 0.001, unit "mm"), identity rotations, start step = the host
 * step of row `from`. RANGE for frames 0, from + frames past the last row, an offset outside
 * +-ONESCOPE_GHOST_MAX_OFFSET, a non-zero z offset in 2D, or steps past INT64_MAX (a pose
 * cache's last step, start + frames - 1, must fit int64_t).
 * TOO_LARGE, before the poses are allocated, for a cache whose file would pass 256 MiB (it
 * could not be written; onescope_ghost_write with segments can). */
ONESCOPE_API onescope_code onescope_ghost_create(const onescope_replay *replay,
                                                 const onescope_ghost_options *options,
                                                 const onescope_allocator *allocator,
                                                 onescope_pose_cache **out, onescope_error *error);

/* What onescope_ghost_write wrote. */
typedef struct onescope_ghost_result {
    uint32_t entity_count; /* bodies at the last frame: one entity each */
    uint32_t frame_count;  /* frames written, over every segment */
    int64_t start_step;    /* the first file's start step */
} onescope_ghost_result;

/* The ghost onescope_ghost_create would make, written frame by frame to path through a
 * streaming pose writer (onescope_pose_writer_open) while the replay runs, so memory is one
 * world, one frame and the writer's buffer, whatever the frame count; the file is byte for
 * byte what onescope_pose_cache_write_file would write of the ghost. writer_options NULL
 * means the defaults. Without writer_options->segments a ghost whose file would pass the
 * segment limit (256 MiB, or max_segment_bytes when smaller) is refused with
 * ONESCOPE_E_TOO_LARGE naming options->name and the limit, from the body count and the frame
 * count, before a pose is computed or a file created; with segments it rolls over into
 * PATH-0001.ospc, ... (docs/pose-cache.md, "Segments"). The refusals of onescope_ghost_create
 * apply. A failure leaves no partial file and path as it was (except a failed final rename,
 * whose partial is kept for onescope_pose_cache_recover). result may be NULL. "-" is refused
 * (the writer needs a file): write onescope_ghost_create's cache instead. */
ONESCOPE_API onescope_code onescope_ghost_write(
    const onescope_replay *replay, const onescope_ghost_options *options, const char *path,
    const onescope_pose_writer_options *writer_options, const onescope_allocator *allocator,
    onescope_ghost_result *result, onescope_error *error);

/* A module recording's entities as a pose cache (docs/ghost.md, "Module recordings"): the
 * recording is checked against module (onescope_recording_check) and run from its start;
 * frame k is the world at row from + k. The entities are every id (entity_id) the world has
 * in any of the frames, in the order they first appear (each frame in index order), as points
 * with cache ids 1, 2, ... in that order and named "entity ID" with the module's id; in a frame
 * where the world lacks an id, or entity_pose says it is absent, its pose is absent (NaN x).
 * Positions are the module's plus offset, in the module's units; metres per unit, the unit's name
 * and 2D come from the table (metres_per_unit, unit_name, dimensions: 1, "unit" and 3D when it does
 * not say); the start step is from. The options and refusals are onescope_ghost_create's, with
 * offsets in the module's units, and also UNSUPPORTED for a module without entities, RANGE for more
 * than 65536 entities, and a module's failure at a step naming the file, the module and the step.
 */
ONESCOPE_API onescope_code onescope_ghost_recording_create(const onescope_recording *recording,
                                                           const onescope_module *module,
                                                           const onescope_ghost_options *options,
                                                           const onescope_allocator *allocator,
                                                           onescope_pose_cache **out,
                                                           onescope_error *error);
/* That ghost written frame by frame to path, as onescope_ghost_write writes a replay's: memory
 * is one world, one frame, the entity ids and the writer's buffer. */
ONESCOPE_API onescope_code onescope_ghost_recording_write(
    const onescope_recording *recording, const onescope_module *module,
    const onescope_ghost_options *options, const char *path,
    const onescope_pose_writer_options *writer_options, const onescope_allocator *allocator,
    onescope_ghost_result *result, onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

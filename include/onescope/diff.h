/* Why two runs differ: replays run in lockstep, pose caches compared frame by frame, and a
 * replay against a pose cache. Algorithm, result fields and CLI output: docs/diff.md. */
#ifndef ONESCOPE_DIFF_H
#define ONESCOPE_DIFF_H

#include "onescope/pose_cache.h"
#include "onescope/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A zeroed struct (or NULL) is the defaults: 16 values or entities listed, exact comparison,
 * no offset, inputs named "a" and "b". */
typedef struct onescope_diff_options {
    uint32_t max_items;           /* values (replays) listed at most; 0: 16. Counts stay whole */
    double position_tolerance;    /* metres (units when a cache has no metres per unit); 0: exact */
    double angle_tolerance;       /* degrees; 0: exact */
    int32_t offset[3];            /* replay vs cache: mm added to every replay position */
    const char *name_a;           /* input names for errors and header items; NULL: "a" */
    const char *name_b;           /* NULL: "b" */
    onescope_parse_options parse; /* limits and allocator for files read by _files calls */
} onescope_diff_options;

#define ONESCOPE_DIFF_DEFAULT_ITEMS 16u

/* One header field that differs. Values as text (numbers in decimal, seeds and hashes in
 * hex), so that every kind of field fits one shape. field is a static string. */
typedef struct onescope_diff_header {
    const char *field;
    char a[80];
    char b[80];
} onescope_diff_header;
#define ONESCOPE_DIFF_MAX_HEADERS 16u

/* One value that differs between the two worlds, as the module names it (docs/module.md):
 * an entity's named value (position.x of body 3) or an element of a world value (gravity,
 * density[12]). name and unit point into the module's table (static text). */
typedef struct onescope_diff_value {
    bool world;         /* a world value; false: an entity's */
    uint32_t index;     /* world: the element (0 for a single value); entity: its index */
    uint64_t entity_id; /* entity values: the entity's stable id (in a); 0 for world values */
    uint32_t value;     /* the entry in the module's table (world_values, or values) */
    const char *name;
    const char *unit; /* "" when none */
    double a, b;
} onescope_diff_value;

/* Two replays run in lockstep. Owned by the library; onescope_diff_replay_free releases it. */
typedef struct onescope_diff_replay {
    bool different;        /* any header item, world value or step count differs */
    uint32_t header_count; /* setup, link, start snapshot, step count */
    onescope_diff_header header[ONESCOPE_DIFF_MAX_HEADERS];
    uint32_t steps_compared;           /* whole steps both ran before the divergence (or all) */
    bool diverged;                     /* the worlds differ (values and entity counts below) */
    bool at_start;                     /* ... already before the first step (start worlds) */
    uint32_t step;                     /* the step (0-based index into both replays) */
    uint64_t host_step_a, host_step_b; /* the host step of that step in each world */
    onescope_sim_stage stage;          /* the stage after which the worlds first differ */
    uint32_t value_total;              /* every differing value there */
    uint32_t value_count;              /* those listed: min(total, max_items) */
    onescope_diff_value *values;
    bool inputs_differ;      /* the input bytes of `step` differ */
    uint32_t op_index;       /* first differing operation of that step (0-based) */
    bool has_op_a, has_op_b; /* false: that input has no operation there */
    onescope_op op_a, op_b;
    bool has_input_step;       /* some step's inputs differ (at or before `step`, or anywhere
                                  when the worlds never diverge) */
    uint32_t first_input_step; /* the first such step */
    const onescope_allocator *allocator;
    /* The recorded hash rows (both replays hold them) differ at a row whose worlds agree:
     * rows 0..steps_compared (all of them when the worlds never diverge). A replay whose
     * worlds match another's but whose recorded rows do not is not "the same" (one of them
     * fails verify). After `allocator` so that the fields before keep their offsets. */
    bool hash_rows_differ;
    uint32_t hash_row;       /* the first such row (row 0: the start, row i: after step i-1) */
    uint64_t hash_a, hash_b; /* the recorded hashes there */
    /* The worlds hold different numbers of bodies where they differ (only the common ones
     * are compared value by value). */
    bool entity_counts_differ;
    uint32_t entity_count_a, entity_count_b;
} onescope_diff_replay;

/* Runs a and b through the test module's worlds (onescope_module_test) in lockstep, finds the
 * first step after which their worlds differ (every named value compared, the host step left
 * out, so replays that start at different host steps still line up), runs that step again
 * stage by stage to find the stage, lists the values that differ there (the bodies', then the
 * world's: gravity, density, occupancy), and compares the recorded hash rows where the worlds
 * agree. OK when the comparison ran (read result->different); an error only when a replay
 * cannot run. */
ONESCOPE_API onescope_code onescope_diff_replays(const onescope_replay *a, const onescope_replay *b,
                                                 const onescope_diff_options *options,
                                                 const onescope_allocator *allocator,
                                                 onescope_diff_replay **out, onescope_error *error);
ONESCOPE_API void onescope_diff_replay_free(onescope_diff_replay *result);

/* One entity of a pose cache comparison (matched by id). */
typedef struct onescope_diff_entity {
    uint64_t id;
    bool in_a, in_b;           /* false: the other file does not have it */
    uint32_t index_a, index_b; /* entity index in each file (when in it) */
    uint32_t frames_compared;  /* overlapping frames where both are present */
    uint32_t presence_flips;   /* overlapping frames where exactly one is present */
    double max_distance;       /* metres (units when unitless) */
    int64_t max_distance_step; /* step of the max (-1: none) */
    double rms_distance;
    double max_angle; /* degrees */
    int64_t max_angle_step;
    uint64_t max_ulps; /* the largest ULP distance of one coordinate (exact mode) */
    bool past_tolerance;
    int64_t first_past_step; /* -1: never */
} onescope_diff_entity;

/* Two pose caches (or a replay and a cache). Owned by the library. */
typedef struct onescope_diff_cache {
    bool different;      /* a header item, an entity set or anything past tolerance */
    bool past_tolerance; /* a frame past tolerance (or a presence flip) */
    uint32_t header_count;
    onescope_diff_header header[ONESCOPE_DIFF_MAX_HEADERS];
    bool unitless;          /* a side has metres per unit 0: distances are in units */
    bool exact;             /* both tolerances are 0 */
    bool compares_rotation; /* false for replay vs cache (the test module has none) */
    int64_t first_step_a, last_step_a, first_step_b, last_step_b;
    uint32_t overlap_frames; /* frames whose step both hold (0: none) */
    int64_t overlap_first, overlap_last;
    uint32_t only_in_a, only_in_b; /* entities one side lacks */
    uint32_t entity_count;         /* every id of either side: matched first (a's order), then a's
                                      own, then b's own */
    onescope_diff_entity *entities;
    bool has_first; /* the first frame and entity past tolerance */
    int64_t first_step;
    uint64_t first_id;
    double first_distance, first_angle;
    bool first_presence; /* the first is a presence flip */
    uint64_t max_ulps;
    const onescope_allocator *allocator;
} onescope_diff_cache;

/* Compares two caches in memory (parsed or mapped). A tolerance that is not a finite number
 * >= 0 (NaN, negative, infinite) is ONESCOPE_E_ARGUMENT, for every diff call. A distance that
 * is not finite (metres per unit so large that the product overflows) is past every
 * tolerance, never "the same". */
ONESCOPE_API onescope_code onescope_diff_caches(const onescope_pose_cache *a,
                                                const onescope_pose_cache *b,
                                                const onescope_diff_options *options,
                                                const onescope_allocator *allocator,
                                                onescope_diff_cache **out, onescope_error *error);
/* The same for two files, streamed frame by frame through a fixed buffer each: memory grows
 * with the entities, not the frames. A file the parser refuses is an error (its line). */
ONESCOPE_API onescope_code onescope_diff_cache_files(const char *path_a, const char *path_b,
                                                     const onescope_diff_options *options,
                                                     const onescope_allocator *allocator,
                                                     onescope_diff_cache **out,
                                                     onescope_error *error);
/* A replay's bodies (entity id = body index + 1, millimetres, + options->offset) against a
 * cache's frames, aligned by host step; the replay is side a. Positions and presence only. */
ONESCOPE_API onescope_code onescope_diff_replay_cache(const onescope_replay *replay,
                                                      const onescope_pose_cache *cache,
                                                      const onescope_diff_options *options,
                                                      const onescope_allocator *allocator,
                                                      onescope_diff_cache **out,
                                                      onescope_error *error);
/* The same with the cache streamed from a file. */
ONESCOPE_API onescope_code onescope_diff_replay_cache_file(
    const onescope_replay *replay, const char *cache_path, const onescope_diff_options *options,
    const onescope_allocator *allocator, onescope_diff_cache **out, onescope_error *error);
ONESCOPE_API void onescope_diff_cache_free(onescope_diff_cache *result);

#ifdef __cplusplus
}
#endif

#endif

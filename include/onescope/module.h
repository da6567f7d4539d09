/* The module interface: the seam between libonescope's tools (record, verify, diff, ghost, live,
 * plot) and a simulation they run. A module is one table of function pointers and metadata; the
 * integer test module (onescope_module_test) is the first implementation. The contract,
 * ownership and threads: docs/module.md. */
#ifndef ONESCOPE_MODULE_H
#define ONESCOPE_MODULE_H

#include <stdbool.h>

#include "onescope/error.h"
#include "onescope/pose_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table layout this header describes. A table names the ABI it was built for; a library
 * refuses another number. Within one ABI, members are only ever appended: struct_size tells
 * which ones a table has, and a member that does not end within it reads as absent (NULL / 0):
 * a size that ends inside a member leaves that member out whole. */
#define ONESCOPE_MODULE_ABI 1u

/* Most bytes of a module id ([a-z0-9._-], starting with a letter) and of its version text. */
#define ONESCOPE_MODULE_ID_MAX 64u
#define ONESCOPE_MODULE_VERSION_MAX 64u

/* Where a module hands bytes or text to the library (a snapshot, an input description): the
 * buffer is the library's, grown with the library's allocator under the library's limit.
 * Append may be called any number of times during the one call that lent the sink. */
typedef struct onescope_module_sink onescope_module_sink;
ONESCOPE_API onescope_code onescope_module_sink_append(onescope_module_sink *sink, const void *data,
                                                       size_t size);

/* A module fills the error of a failed call with this (input name and file offset are added by
 * the library: offset is the position inside the blob the module was lent, or
 * ONESCOPE_MODULE_NO_OFFSET). field, expected and found may be NULL. Returns code. */
#define ONESCOPE_MODULE_NO_OFFSET UINT64_MAX
ONESCOPE_API onescope_code onescope_module_fail(onescope_error *error, onescope_code code,
                                                uint64_t offset, const char *field,
                                                const char *expected, const char *found);

/* How a named value is stored in the world (all of them are read as double: each of these
 * types converts to double exactly). */
typedef enum onescope_value_type {
    ONESCOPE_VALUE_I32 = 0,
    ONESCOPE_VALUE_U32 = 1,
    ONESCOPE_VALUE_F32 = 2,
    ONESCOPE_VALUE_F64 = 3,
    ONESCOPE_VALUE_BOOL = 4
} onescope_value_type;

/* One quantity every entity has, e.g. {"position.x", "mm", ONESCOPE_VALUE_I32, 1}. */
typedef struct onescope_value_info {
    const char *name; /* unique in the table, 1-64 printable ASCII bytes */
    const char *unit; /* "" when none; at most 64 printable ASCII bytes */
    onescope_value_type type;
    uint32_t group; /* index into the module's groups */
} onescope_value_info;

/* A quantity of the whole world rather than of one entity (a gravity), or an array of count
 * such quantities (the cells of a grid). Read as doubles, entry after entry. */
typedef struct onescope_world_value_info {
    const char *name; /* unique among the world values, 1-64 printable ASCII bytes */
    const char *unit; /* "" when none; at most 64 printable ASCII bytes */
    onescope_value_type type;
    uint32_t count; /* elements: 1 for a single value, at most ONESCOPE_MODULE_MAX_WORLD_VALUES */
} onescope_world_value_info;

/* Every world value's elements together, at most (a module_check rule). */
#define ONESCOPE_MODULE_MAX_WORLD_VALUES 65536u

/* The bounds onescope_module_check enforces besides the id's and the version's, each what a
 * file or a result can hold (docs/module.md, "Bounds"), so that a table the check passes
 * records files every tool reads back:
 * - named values: at most 1024 (a keyframe head's value count, docs/recording.md);
 * - groups: at most 64 (an entity row's group count is one byte; a verify's explanation names
 *   the groups that differ in a 64-bit mask, onescope_entity_difference.groups);
 * - stages: at most 1024;
 * - world values: their elements at most ONESCOPE_MODULE_MAX_WORLD_VALUES in all;
 * - every name (a value's, a group's, a stage's, a world value's): 1 to 64 printable ASCII
 *   bytes (a keyframe head stores value names with a length byte of 1..64), unique among its
 *   kind; every unit: 0 to 64 printable ASCII bytes. */
#define ONESCOPE_MODULE_MAX_VALUES 1024u
#define ONESCOPE_MODULE_MAX_GROUPS 64u
#define ONESCOPE_MODULE_MAX_STAGES 1024u
#define ONESCOPE_MODULE_NAME_MAX 64u

/* A module world is the module's own object; the library only passes the pointer back. */
typedef struct onescope_module onescope_module;

struct onescope_module {
    /* ---- metadata (all required) ---- */
    uint32_t struct_size; /* sizeof(onescope_module) where the table was compiled */
    uint32_t abi;         /* ONESCOPE_MODULE_ABI */
    const char *id;       /* stored in every recording, e.g. "onescope.test" */
    const char *version;  /* stored too; a recording made by another version is refused */
    void *context;        /* handed to every call; outlives every world made from the table */

    /* ---- required ---- */
    /* A world from a setup blob (bytes lent for the call). allocator may be NULL (libc). */
    onescope_code (*create)(void *context, const void *setup, size_t setup_size,
                            const onescope_allocator *allocator, void **world,
                            onescope_error *error);
    void (*free)(void *context, void *world);
    /* One whole step with one step's input blob (size 0: no input). On error the module says
     * whether the world is still usable in docs of its own; the library never steps it again. */
    onescope_code (*step)(void *context, void *world, const void *input, size_t input_size,
                          onescope_error *error);
    /* The world hash: the authority every recording row is compared with. A pure observer. */
    uint64_t (*hash)(void *context, const void *world);

    /* ---- optional: checks (a recording's rules become the module's) ---- */
    /* Checks a setup / an input without making anything; errors carry the blob's offset. */
    onescope_code (*check_setup)(void *context, const void *setup, size_t setup_size,
                                 onescope_error *error);
    onescope_code (*check_input)(void *context, const void *setup, size_t setup_size,
                                 const void *input, size_t input_size, onescope_error *error);

    /* ---- optional: stages (diff finds the stage where two runs part) ---- */
    uint32_t stage_count;           /* 0: no stages; at most ONESCOPE_MODULE_MAX_STAGES */
    const char *const *stage_names; /* stage_count names */
    /* Runs stage `stage` of the current step; stages run in order 0..stage_count-1 and
     * together equal one step. input is read by whichever stages need it. */
    onescope_code (*run_stage)(void *context, void *world, uint32_t stage, const void *input,
                               size_t input_size, onescope_error *error);

    /* ---- optional: snapshot and restore (start mid-run, live attach, keyframes) ---- */
    onescope_code (*snapshot)(void *context, const void *world, onescope_module_sink *out,
                              onescope_error *error);
    onescope_code (*restore)(void *context, const void *setup, size_t setup_size,
                             const void *snapshot, size_t snapshot_size,
                             const onescope_allocator *allocator, void **world,
                             onescope_error *error);

    /* ---- optional: entities (ghost, plot, diff against a cache) ---- */
    uint32_t (*entity_count)(void *context, const void *world);
    /* A stable id: the same entity keeps it for the world's life and in every run. */
    uint64_t (*entity_id)(void *context, const void *world, uint32_t index);
    /* false: the entity is absent now (removed, not yet born). Units are the module's. */
    bool (*entity_pose)(void *context, const void *world, uint32_t index, onescope_pose *out);

    /* ---- optional: named values (diff says which quantity differs, and by how much) ---- */
    uint32_t value_count;              /* at most ONESCOPE_MODULE_MAX_VALUES */
    const onescope_value_info *values; /* value_count entries */
    uint32_t group_count;              /* at most ONESCOPE_MODULE_MAX_GROUPS */
    const char *const *group_names;    /* group_count names, e.g. "position", "velocity" */
    /* Writes entity `index`'s value_count values into out. A pure observer. */
    void (*entity_values)(void *context, const void *world, uint32_t index, double *out);

    /* ---- optional: a person's text for one input (the operation printer) ---- */
    onescope_code (*describe_input)(void *context, const void *setup, size_t setup_size,
                                    const void *input, size_t input_size,
                                    onescope_module_sink *text, onescope_error *error);
    /* ---- optional: what an entity pose's numbers mean (ghost) ---- */
    double metres_per_unit; /* of a position; 0: not said (a ghost writes 1) */
    const char *unit_name;  /* 1-64 printable ASCII bytes; NULL: "unit" */
    uint32_t dimensions;    /* 2: every pose has z = 0 (a flat world); 3, or 0: not said */
    /* ---- optional: world values (diff names a quantity of the whole world) ---- */
    uint32_t world_value_count;
    const onescope_world_value_info *world_values; /* world_value_count entries */
    /* Writes every entry's elements, entry after entry (the sum of the counts in all). An
     * element the world does not hold now (a grid of a world without one) is NaN. A pure
     * observer. */
    void (*read_world_values)(void *context, const void *world, double *out);
    /* ---- optional, added in 0.5.0: how the tools show the module ---- */
    uint32_t flags; /* ONESCOPE_MODULE_* bits below; 0: none */
};

/* The module's entity ids count from 0 (they are indexes, say): a pose cache, whose ids are
 * never 0, shows id + 1 (a ghost). Without it a ghost keeps the module's ids as they are,
 * with 0 written as 2^64 - 1 (docs/ghost.md). */
#define ONESCOPE_MODULE_IDS_FROM_ZERO 0x1u

/* What a plug-in exports: `const onescope_module *onescope_module_entry(uint32_t abi)`,
 * returning its table for that ABI or NULL when it has none for it. */
#define ONESCOPE_MODULE_ENTRY_SYMBOL "onescope_module_entry"
typedef const onescope_module *onescope_module_entry_fn(uint32_t abi);

/* How a plug-in exports its entry: visible from the shared library even when the plug-in is
 * built with -fvisibility=hidden. */
#if defined(_WIN32)
#define ONESCOPE_MODULE_EXPORT __declspec(dllexport)
#else
#define ONESCOPE_MODULE_EXPORT __attribute__((visibility("default")))
#endif

/* The entry's prototype, with C linkage (this header's extern "C" block): a plug-in that
 * includes this header and defines the function at global scope with this signature exports
 * the C name the loader looks for, in C and in C++ alike (a C++ definition without this
 * declaration in scope would export a mangled name, which no loader finds). libonescope
 * itself defines no entry: each plug-in does, once. */
ONESCOPE_MODULE_EXPORT const onescope_module *onescope_module_entry(uint32_t abi);

/* Loads a plug-in: dlopen(path) (a name without '/' is ./name, never searched for on the
 * library path), its entry symbol called with ONESCOPE_MODULE_ABI, the table checked with
 * onescope_module_check. The shared library stays loaded for the process: the table and its
 * functions live in it. Refusals name path, field "module": ONESCOPE_E_MODULE for a file
 * dlopen refuses (with its reason) or one without the entry symbol, ONESCOPE_E_VERSION for no
 * table for this ABI, and onescope_module_check's own. */
ONESCOPE_API onescope_code onescope_module_load(const char *path, const onescope_module **out,
                                                onescope_error *error);

/* Checks a table: abi, struct_size at least ABI 1's, the id and version texts, every required
 * slot, each optional group complete (stages with names and run_stage; snapshot with
 * restore; entities with count, id and pose; values with their table, groups and reader), and
 * every bound above (counts, names, units). name
 * is the table's origin for the message (a plug-in's path, say). ONESCOPE_E_ARGUMENT naming
 * the member, ONESCOPE_E_VERSION for another ABI. */
ONESCOPE_API onescope_code onescope_module_check(const onescope_module *module, const char *name,
                                                 onescope_error *error);

/* The integer test module (include/onescope/sim.h) as a module: id "onescope.test", version
 * "1". Setup: the 6 setup bytes of an OSTM file, then its 4-byte link block when it has one.
 * Input: one step's operations. Snapshot: the world snapshot. Stages: input, gravity, move,
 * bookkeeping. Entities: the bodies, id = body index. Values: alive, still_count, position x y
 * z (mm), velocity x y z (mm/step), in groups state, position, velocity. */
ONESCOPE_API const onescope_module *onescope_module_test(void);

/* The Box3D SoA world as a module, "onescope.box3d" (docs/box3d-module.md): a scene document as
 * the setup, actions on bodies as inputs, stages "input" and "step". NULL in a build without
 * Box3D. */
ONESCOPE_API const onescope_module *onescope_module_box3d(void);

/* ---- a module world as the tools hold it ----
 * Every call goes through these, which check that the slot exists (a missing one is
 * ONESCOPE_E_UNSUPPORTED: "module 'ID' has no SLOT (needed to ...)"), keep a copy of the table
 * and add the module's id to its errors. */
typedef struct onescope_world onescope_world;

ONESCOPE_API onescope_code onescope_world_create(const onescope_module *module, const void *setup,
                                                 size_t setup_size,
                                                 const onescope_allocator *allocator,
                                                 onescope_world **out, onescope_error *error);
ONESCOPE_API onescope_code onescope_world_restore(const onescope_module *module, const void *setup,
                                                  size_t setup_size, const void *snapshot,
                                                  size_t snapshot_size,
                                                  const onescope_allocator *allocator,
                                                  onescope_world **out, onescope_error *error);
ONESCOPE_API void onescope_world_free(onescope_world *world);
/* The copy of the table the world runs (valid for the world's life). */
ONESCOPE_API const onescope_module *onescope_world_module(const onescope_world *world);
/* A whole step; at a step boundary only (BAD_STATE after run_stage left a step open). */
ONESCOPE_API onescope_code onescope_world_step(onescope_world *world, const void *input,
                                               size_t input_size, onescope_error *error);
/* The next stage of the current step (onescope_world_next_stage says which). */
ONESCOPE_API onescope_code onescope_world_run_stage(onescope_world *world, const void *input,
                                                    size_t input_size, onescope_error *error);
ONESCOPE_API uint32_t onescope_world_next_stage(const onescope_world *world);
ONESCOPE_API uint64_t onescope_world_hash(const onescope_world *world);
/* The snapshot bytes into out (the allocator's buffer; free with onescope_buffer_free). */
ONESCOPE_API onescope_code onescope_world_snapshot(const onescope_world *world,
                                                   const onescope_allocator *allocator,
                                                   onescope_buffer *out, onescope_error *error);
/* 0 when the module has no entities. */
ONESCOPE_API uint32_t onescope_world_entity_count(const onescope_world *world);
ONESCOPE_API uint64_t onescope_world_entity_id(const onescope_world *world, uint32_t index);
ONESCOPE_API bool onescope_world_entity_pose(const onescope_world *world, uint32_t index,
                                             onescope_pose *out);
/* value_count doubles into out (count must be >= value_count): ARGUMENT otherwise, UNSUPPORTED
 * without named values. */
ONESCOPE_API onescope_code onescope_world_entity_values(const onescope_world *world, uint32_t index,
                                                        double *out, size_t count,
                                                        onescope_error *error);
/* The world values' elements in all (0 when the module has none). */
ONESCOPE_API uint32_t onescope_world_value_total(const onescope_world *world);
/* Every world value's elements into out (count must be >= onescope_world_value_total):
 * ARGUMENT otherwise, UNSUPPORTED without world values. */
ONESCOPE_API onescope_code onescope_world_values(const onescope_world *world, double *out,
                                                 size_t count, onescope_error *error);
/* An entity's digest, as entity rows record it (docs/recording.md, "Entity rows"): hash is the
 * low 32 bits of XXH3-64 (seed 0) over the entity's named values, each as its IEEE double's
 * bits in little-endian order, in table order; groups[g] the low 8 bits of XXH3-64 over the
 * values of group g the same way, for the module's group_count groups (group_room must hold
 * them). A module without named values digests the entity's presence byte (1 present, 0
 * absent) and pose (seven floats' bits, little-endian: position, rotation x y z w) and has no
 * group. UNSUPPORTED without entities, ARGUMENT for an index past the count. */
ONESCOPE_API onescope_code onescope_world_entity_digest(const onescope_world *world, uint32_t index,
                                                        uint32_t *hash, uint8_t *groups,
                                                        size_t group_room, onescope_error *error);
/* The input's description as NUL-terminated text in out (free with onescope_buffer_free). */
ONESCOPE_API onescope_code onescope_world_describe_input(const onescope_world *world,
                                                         const void *input, size_t input_size,
                                                         const onescope_allocator *allocator,
                                                         onescope_buffer *out,
                                                         onescope_error *error);

/* ---- checking a module before trusting it (docs/module.md, "Checking a module") ----
 * Runs a module from a setup for some steps through the world API only and checks, step by
 * step, what the tools assume of it: two worlds from one setup agree; snapshot -> restore ->
 * snapshot gives the same bytes; a restored world continues as the original; stages run one by
 * one equal a whole step; and any one named value that changes changes the hash (a step, a
 * stage, or one snapshot byte spliced in from another step). */
typedef enum onescope_module_check_kind {
    ONESCOPE_MODULE_CHECK_DETERMINISM = 0, /* "determinism": two worlds, one setup, one input */
    ONESCOPE_MODULE_CHECK_SNAPSHOT = 1,    /* "snapshot": snapshot -> restore -> snapshot */
    ONESCOPE_MODULE_CHECK_RESTORE = 2,     /* "restore": restored and continued = never restored */
    ONESCOPE_MODULE_CHECK_STAGES = 3,      /* "stages": stage by stage = one whole step */
    ONESCOPE_MODULE_CHECK_HASH = 4,        /* "hash": a named value changes, so does the hash */
    ONESCOPE_MODULE_CHECK_COUNT = 5
} onescope_module_check_kind;

typedef enum onescope_module_check_status {
    ONESCOPE_MODULE_CHECK_PASSED = 0,
    ONESCOPE_MODULE_CHECK_FAILED = 1,
    ONESCOPE_MODULE_CHECK_SKIPPED = 2 /* the module lacks a slot the check needs (skipped_for) */
} onescope_module_check_status;

/* Step `step`'s input: *input and *size (valid until the next call; size 0: no input).
 * A code other than OK stops the check with that code and error. */
typedef onescope_code onescope_module_check_input_fn(void *user, uint64_t step, const void **input,
                                                     size_t *size, onescope_error *error);

typedef struct onescope_module_check_def {
    uint64_t steps;         /* N: steps run (default 100) */
    uint32_t horizon;       /* S: steps a restored world runs beside the original (default 4) */
    uint32_t restore_every; /* K: a snapshot round trip and a restored world start at steps 0,
                               K, 2K, ... (default 32; 1: every step) */
    onescope_module_check_input_fn *input; /* NULL: every step's input is empty */
    void *input_user;
    /* A start snapshot: both worlds are restored from it instead of made from the setup. */
    const void *start_snapshot;
    size_t start_snapshot_size;
    /* ---- added in 0.5.0 ---- */
    /* The hash check's probes at each round trip after the first (default 256; 0: the
     * default): worlds restored from this round trip's snapshot with one differing byte taken
     * from the previous one's, so each named value changes on its own however the stages are
     * cut (docs/module.md, "Checking a module"). */
    uint32_t hash_probes;
} onescope_module_check_def;

ONESCOPE_API onescope_module_check_def onescope_module_check_def_default(void);

#define ONESCOPE_MODULE_CHECK_NO_STAGE UINT32_MAX
#define ONESCOPE_MODULE_CHECK_NO_ENTITY UINT32_MAX

/* The first failure of one check. */
typedef struct onescope_module_check_failure {
    uint64_t step;   /* the step (0-based) after which, or during which, it was seen */
    uint32_t stage;  /* the stage just run, or ONESCOPE_MODULE_CHECK_NO_STAGE */
    uint32_t entity; /* index, or ONESCOPE_MODULE_CHECK_NO_ENTITY */
    uint64_t entity_id;
    char value[80];   /* the named value that differs ("" when none: only the hash tells) */
    double values[2]; /* the value in the first and in the second world (or before, after) */
    uint64_t hashes[2];
    bool has_offset; /* snapshot: the first differing byte of the two snapshots */
    uint64_t offset;
    char what[200]; /* one printable line saying what differs */
} onescope_module_check_failure;

typedef struct onescope_module_check_outcome {
    onescope_module_check_status status;
    char skipped_for[48]; /* the missing slot (or the check that failed first), when skipped */
    onescope_module_check_failure failure; /* when failed */
} onescope_module_check_outcome;

typedef struct onescope_module_check_result {
    uint64_t steps;  /* steps run */
    uint32_t failed; /* checks that failed */
    onescope_module_check_outcome checks[ONESCOPE_MODULE_CHECK_COUNT];
} onescope_module_check_result;

/* A check's name ("determinism", "snapshot", "restore", "stages", "hash"); "?" past the last. */
ONESCOPE_API const char *onescope_module_check_name(onescope_module_check_kind kind);

/* Runs the checks (def NULL: the defaults). OK when the run finished, whatever the checks
 * found (out says); the module's own error when creating or stepping the first world fails
 * or the input callback fails, NOMEM, ARGUMENT for NULL module or out. */
ONESCOPE_API onescope_code onescope_module_check_run(const onescope_module *module,
                                                     const void *setup, size_t setup_size,
                                                     const onescope_module_check_def *def,
                                                     const onescope_allocator *allocator,
                                                     onescope_module_check_result *out,
                                                     onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

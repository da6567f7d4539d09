/* Module recordings (OSTM v2): the steps of any module's world, with the module's id and
 * version, its setup blob, an optional start snapshot, each step's input blob and, per step,
 * the world hash. The bytes and every rule: docs/recording.md. OSTM v1 files (the test module's
 * replays, include/onescope/replay.h) stay as they are. */
#ifndef ONESCOPE_RECORDING_H
#define ONESCOPE_RECORDING_H

#include "onescope/module.h"
#include "onescope/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_RECORDING_VERSION 2u
#define ONESCOPE_RECORDING_FLAG_HASH_ROWS 0x0001u      /* a hash row before and after each step */
#define ONESCOPE_RECORDING_FLAG_START_SNAPSHOT 0x0002u /* the world starts from a snapshot */
#define ONESCOPE_RECORDING_FLAG_ENTITY_ROWS 0x0004u    /* an entity row beside each hash row */
#define ONESCOPE_RECORDING_FLAG_KEYFRAMES 0x0008u      /* a keyframe every K steps */
/* Named values a keyframe's value table holds per entity, at most: the table check's bound on
 * a module's values (module.h). */
#define ONESCOPE_RECORDING_MAX_KEY_VALUES ONESCOPE_MODULE_MAX_VALUES
/* Entities in one entity row, at most. */
#define ONESCOPE_RECORDING_MAX_ENTITIES 1048576u
/* The step count of a partial file still being written (docs/recording.md, "Writing"). */
#define ONESCOPE_RECORDING_OPEN_COUNT 0xFFFFFFFFu
#define ONESCOPE_RECORDING_MAX_STEPS 16777216u

typedef struct onescope_recording onescope_recording;

/* Parses a whole OSTM v2 file (the container's rules only: the blobs are the module's, checked
 * by onescope_recording_check). options may be NULL (defaults: 256 MiB input limit). The bytes
 * are copied; *out is freed with onescope_recording_free. */
ONESCOPE_API onescope_code onescope_recording_parse(const void *data, size_t size, const char *name,
                                                    const onescope_parse_options *options,
                                                    onescope_recording **out,
                                                    onescope_error *error);
ONESCOPE_API onescope_code onescope_recording_read_file(const char *path,
                                                        const onescope_parse_options *options,
                                                        onescope_recording **out,
                                                        onescope_error *error);
ONESCOPE_API void onescope_recording_free(onescope_recording *recording);

/* The module a recording names, from its first bytes alone (magic through the version text: at
 * most ONESCOPE_RECORDING_PEEK_BYTES), so a tool can pick the module before reading the file:
 * id and version get NUL-terminated texts. The container's error when those bytes break its
 * rules or end too soon. A partial's open count is accepted. */
#define ONESCOPE_RECORDING_PEEK_BYTES 142u
ONESCOPE_API onescope_code onescope_recording_peek_module(const void *data, size_t size,
                                                          const char *name, char id[65],
                                                          char version[65], onescope_error *error);

ONESCOPE_API const char *onescope_recording_module_id(const onescope_recording *recording);
ONESCOPE_API const char *onescope_recording_module_version(const onescope_recording *recording);
ONESCOPE_API uint16_t onescope_recording_flags(const onescope_recording *recording);
ONESCOPE_API uint32_t onescope_recording_step_count(const onescope_recording *recording);
/* The setup blob and the start snapshot (NULL/0 without one); valid while recording lives. */
ONESCOPE_API const uint8_t *onescope_recording_setup(const onescope_recording *recording,
                                                     size_t *size);
ONESCOPE_API const uint8_t *onescope_recording_start_snapshot(const onescope_recording *recording,
                                                              size_t *size);
/* The file's bytes again (the allocator's buffer: free with onescope_buffer_free):
 * write(parse(bytes)) == bytes. */
ONESCOPE_API onescope_code onescope_recording_write(const onescope_recording *recording,
                                                    const onescope_allocator *allocator,
                                                    onescope_buffer *out, onescope_error *error);
/* Hash row index (0..step_count): row 0 is the start world's, row i the world's after step
 * i - 1. 0 when the file has no hash rows or index is past the last. */
ONESCOPE_API uint64_t onescope_recording_hash_row(const onescope_recording *recording,
                                                  uint32_t index);
/* Step index's input (0-based); ARGUMENT past the last step. */
/* One entity row (docs/recording.md, "Entity rows"): count entities, each with its id (u64),
 * its digest (u32) and group_count group bytes, all little-endian in the file's bytes. ids are
 * the row's own or the last row's before it that wrote them. */
typedef struct onescope_entity_row {
    uint32_t count;
    uint32_t group_count;
    const uint8_t *ids;    /* count x u64 */
    const uint8_t *hashes; /* count x u32 */
    const uint8_t *groups; /* count x group_count bytes, entity after entity */
} onescope_entity_row;

/* Row index's entity row (0..step_count). ARGUMENT when the file has none or index is past the
 * last row. */
ONESCOPE_API onescope_code onescope_recording_entity_row(const onescope_recording *recording,
                                                         uint32_t index, onescope_entity_row *out);
ONESCOPE_API onescope_code onescope_recording_step_input(const onescope_recording *recording,
                                                         uint32_t index, const uint8_t **data,
                                                         size_t *size);

/* A keyframe (docs/recording.md, "Keyframes"): at row (index + 1) x K, the module's snapshot
 * of the world there (none when the module has no snapshot slot) and a value table that needs
 * no module to read: every entity's id and its value_count named values, the names in the
 * file's head (onescope_recording_value_name). */
typedef struct onescope_keyframe {
    uint32_t row;
    const uint8_t *snapshot; /* NULL when snapshot_size is 0 */
    size_t snapshot_size;
    uint32_t entity_count;
    uint32_t value_count;
    const uint8_t *ids;    /* entity_count x u64 */
    const uint8_t *values; /* entity_count x value_count IEEE doubles, entity after entity */
} onescope_keyframe;

/* K, the steps between keyframes (0: the file has none), and how many the file holds. */
ONESCOPE_API uint32_t onescope_recording_keyframe_every(const onescope_recording *recording);
ONESCOPE_API uint32_t onescope_recording_keyframe_count(const onescope_recording *recording);
/* Keyframe index (0..count-1); ARGUMENT past the last or without keyframes. */
ONESCOPE_API onescope_code onescope_recording_keyframe(const onescope_recording *recording,
                                                       uint32_t index, onescope_keyframe *out);
/* Entity `entity`'s value `value` in a keyframe's table (0 outside it). */
ONESCOPE_API double onescope_recording_keyframe_value(const onescope_keyframe *keyframe,
                                                      uint32_t entity, uint32_t value);
/* The name of the value table's value `value` as the file holds it (NUL-terminated); ARGUMENT
 * past the last or without keyframes. */
ONESCOPE_API onescope_code onescope_recording_value_name(const onescope_recording *recording,
                                                         uint32_t value, char out[65]);

/* Checks that module is the one the file names (id and version, ONESCOPE_E_MODULE with both
 * in the line otherwise), then the setup and every input with the module's checks when it has
 * them, each error at its file offset. */
ONESCOPE_API onescope_code onescope_recording_check(const onescope_recording *recording,
                                                    const onescope_module *module, const char *name,
                                                    onescope_error *error);

/* onescope_recording_check, then the run: the start world (from the setup or the start
 * snapshot), each row against the world's hash, each step through the module. A module error
 * at step k names the file, the module and the step. result may be NULL. */
ONESCOPE_API onescope_code onescope_recording_verify(const onescope_recording *recording,
                                                     const onescope_module *module,
                                                     const onescope_allocator *allocator,
                                                     onescope_verify_result *result,
                                                     const char *name, onescope_error *error);

/* The same for a file, read as it runs: a regular file goes through one 1 MiB buffer, the
 * container's rules first, then the module's checks of the setup and every input, then the
 * run, so memory does not grow with the file (an input longer than the buffer is read into
 * one of its own). Standard input ("-") and pipes are read whole. The verdict, the result and
 * every error are those of onescope_recording_read_file and onescope_recording_verify. */
ONESCOPE_API onescope_code onescope_recording_verify_file(const char *path,
                                                          const onescope_module *module,
                                                          const onescope_parse_options *options,
                                                          onescope_verify_result *result,
                                                          onescope_error *error);

/* One row of a recording's run: the world at a step boundary, lent for the callback. */
typedef struct onescope_recording_row {
    uint32_t index;              /* 0..step_count: row 0 the start world, row i after step i - 1 */
    bool has_expected;           /* the file holds hash rows */
    uint64_t expected;           /* the recorded row, when has_expected */
    const onescope_world *world; /* valid during the callback; onescope_world_hash for its hash */
} onescope_recording_row;

/* Called once per row, in order; returning true stops the run (the run returns OK). */
typedef bool (*onescope_recording_callback)(void *user, const onescope_recording_row *row);

/* onescope_recording_check, then the run (as onescope_replay_run runs a replay): the start
 * world (from the setup or the start snapshot), callback at every row, each step's input
 * through the module. The world's hash is not computed for the callback: a tool that wants it
 * asks. A module error at step k names the file, the module and the step. callback may be
 * NULL. */
/* One entity the recorded row and the world found disagree on. */
typedef struct onescope_entity_difference {
    uint64_t id;
    bool recorded; /* the recorded row holds it */
    bool found;    /* the world holds it at that row */
    uint32_t recorded_hash, found_hash;
    uint64_t groups; /* bit g: group g's byte differs (the first 64 groups) */
} onescope_entity_difference;

/* One named value a keyframe's table and the world found disagree on. */
typedef struct onescope_value_difference {
    uint64_t id;     /* the entity */
    uint32_t value;  /* the value's index in the file's table (onescope_recording_value_name);
                        UINT32_MAX for an entity only the world holds */
    bool found;      /* the world holds the entity (else found_value is 0) */
    double recorded; /* the table's value */
    double found_value;
    bool in_file; /* added in 0.5.0: the table holds the entity (else recorded is 0) */
} onescope_value_difference;

/* How an explanation judged the keyframe before its row (docs/recording.md, "Keyframes"): a
 * keyframe is used only once it proves itself. */
typedef enum onescope_keyframe_use {
    ONESCOPE_KEYFRAME_NONE = 0,    /* none before the row, no snapshot in it, or no restore slot */
    ONESCOPE_KEYFRAME_USED = 1,    /* restored, proven and used: the run started at its row */
    ONESCOPE_KEYFRAME_REFUSED = 2, /* the module refused its snapshot (restore_error) */
    /* the world restored from it is not the recorded world at its row: its hash, an entity's
     * digest or a value of its table differs (keyframe_*): the module's snapshot leaves state
     * out (or this build hashes another way) */
    ONESCOPE_KEYFRAME_SNAPSHOT_INCOMPLETE = 3,
    /* it proved itself, but the run from it reproduces the recording at the row: this build's
     * world parted from the recorded one before the keyframe, in state the hash misses */
    ONESCOPE_KEYFRAME_NOT_REPRODUCED = 4
} onescope_keyframe_use;

/* Which entities differ at a row, from the recording's entity rows alone, and with keyframes
 * which values, recorded against found. */
typedef struct onescope_recording_explanation {
    uint32_t row;
    uint32_t entities_recorded, entities_found;
    uint32_t differing; /* entities whose digests differ, or that one side lacks */
    uint32_t listed;    /* the first of them (in the recorded row's order, then the world's) */
    onescope_entity_difference *entities;
    const onescope_allocator *allocator;
    /* Where the run started: row 0, or the last keyframe before row restored from its
     * snapshot; restore_failed: the module refused that snapshot (its layout changed), so the
     * run started at row 0. steps_run: the steps the module ran for this explanation. */
    uint32_t start_row;
    bool from_keyframe;
    bool restore_failed;
    uint32_t steps_run;
    /* The first keyframe at or after row, its table compared with the world there. */
    bool has_table;
    uint32_t table_row;
    uint32_t values_compared;
    uint32_t values_differing; /* values that differ bit for bit, or whose entity is missing */
    uint32_t values_listed;
    onescope_value_difference *values;
    /* With restore_failed: why the module refused the keyframe's snapshot. */
    onescope_error restore_error;
    /* ---- added in 0.5.0 ---- */
    /* The keyframe before row, judged (keyframe_row its row, when not NONE); with
     * SNAPSHOT_INCOMPLETE what disproved it: the restored world's hash against the recorded
     * row (keyframe_hashes_differ), else an entity whose digest differs (keyframe_entity),
     * else the first value of its table (keyframe_value). Every run from row 0 after a
     * keyframe was not used is counted in steps_run too. */
    onescope_keyframe_use keyframe_use;
    uint32_t keyframe_row;
    bool keyframe_hashes_differ;
    uint64_t keyframe_hash_recorded, keyframe_hash_restored;
    bool keyframe_has_entity;
    onescope_entity_difference keyframe_entity;
    bool keyframe_has_value;
    onescope_value_difference keyframe_value;
    /* The world's hash at row against the recorded row (has_hash: the file holds hash rows). */
    bool has_hash;
    uint64_t hash_recorded, hash_found;
    /* The table compared is the first keyframe table on the way that differs from the world
     * (possibly before row: the hash missed it), else the first at or after row. Values of
     * entities the entity rows name come first in values. */
} onescope_recording_explanation;

/* Runs the recording through the module to row (0..step_count) and compares every entity's
 * digest with the recorded entity row there, listing at most max_listed (0: 16) of those that
 * differ. With keyframes the run goes on to the first keyframe at or after row, whose value
 * table it compares (and every keyframe table on the way), listing at most max_listed values.
 * It starts from the last keyframe before row only when that keyframe proves itself (the
 * restored world reproduces the file's hash row, entity row and table at its row) and the run
 * from it does not reproduce the recording at row: at most K + 1 steps then; else from row 0
 * (keyframe_use says why). FLAGS when the file has neither entity rows nor keyframes; free
 * with _explanation_free. */
ONESCOPE_API onescope_code onescope_recording_explain(const onescope_recording *recording,
                                                      const onescope_module *module, uint32_t row,
                                                      uint32_t max_listed,
                                                      const onescope_allocator *allocator,
                                                      onescope_recording_explanation **out,
                                                      const char *name, onescope_error *error);
ONESCOPE_API void onescope_recording_explanation_free(onescope_recording_explanation *e);

ONESCOPE_API onescope_code onescope_recording_run(const onescope_recording *recording,
                                                  const onescope_module *module,
                                                  const onescope_allocator *allocator,
                                                  onescope_recording_callback callback, void *user,
                                                  const char *name, onescope_error *error);

/* ---- where two recordings of one module part ---- */

/* What onescope_recording_diff found. Rows are as in a recording: row 0 is the start world,
 * row i + 1 the world after step i. */
typedef struct onescope_recording_diff_result {
    bool different;     /* any of the below */
    bool setup_differs; /* the setup blobs (or the start snapshots) differ */
    uint32_t steps_a;   /* each file's step count */
    uint32_t steps_b;
    uint32_t rows_compared; /* rows whose two worlds were compared and agreed */
    /* The worlds: both run in lockstep, each with its own inputs, hashes compared per row. */
    bool worlds_differ;
    uint32_t row;    /* the first row whose worlds' hashes differ */
    uint64_t hash_a; /* the two hashes there */
    uint64_t hash_b;
    bool input_differs; /* the inputs of the step before that row differ (row > 0) */
    /* Stage by stage through that step (modules with stages): the first stage after which a
     * named value (or else the hash) differs; -1 at row 0, without stages, or when no stage
     * shows it. stage_name is the module's text. */
    int32_t stage;
    const char *stage_name;
    /* The first differing named value there (modules with values and entities): the entity's
     * index and id, the value's index in module->values, both values, and how many entities
     * have any value different. entity_counts_differ: the two worlds hold different counts
     * (only the common indices are compared). */
    bool value_differs;
    uint32_t entity;
    uint64_t entity_id;
    uint32_t value;
    double value_a;
    double value_b;
    uint32_t entities_differing;
    bool entity_counts_differ;
    /* The recorded hash rows disagree where the worlds agree (one file was made by another
     * build of the module, or edited): the first such row. */
    bool rows_differ;
    uint32_t rows_row;
    /* Every value that differs there (the entities' and the world's), and the first world
     * value that does (modules with world values): its entry in module->world_values, the
     * element, both values. */
    uint32_t value_total;
    bool world_value_differs;
    uint32_t world_value;
    uint32_t world_index;
    double world_value_a;
    double world_value_b;
    /* Both files with keyframes every K steps (the same K) and the same setup: a speed-up that
     * never changes the verdict. With the same inputs and recorded rows throughout, the worlds
     * are the same and none runs (steps_run 0). Else the worlds run, in the same lockstep to
     * the end, from the last keyframe before the first row whose recorded hashes differ or that
     * follows the first differing input, when both files' keyframes there prove themselves
     * (restored: their hash rows and tables hold) and hold one world. Rows before start_row
     * count as compared through their recorded hashes. */
    bool from_keyframes;
    uint32_t start_row;
    uint32_t steps_run;
    /* With value_differs and a value of type F32: the floats between value_a and value_b
     * (else 0). */
    uint64_t value_ulps;
    /* Keyframes both files hold that the module would not restore (from_keyframes false):
     * restore_error says why, and the worlds ran from row 0. */
    bool restore_failed;
    onescope_error restore_error;
    /* ---- added in 0.5.0 ---- */
    /* The keyframes restored but did not prove themselves (a restored world's hash, or its
     * table, is not its file's at that row, or the two files' keyframes hold different worlds
     * where their inputs agree): the worlds ran from row 0. */
    bool keyframe_disproved;
} onescope_recording_diff_result;

/* Runs both recordings through one module in lockstep (both are checked first, as
 * onescope_recording_check does), compares the worlds' hashes at every row both hold, and at
 * the first row that differs runs that step again stage by stage to name the stage, the entity
 * and the value. Values are compared bit for bit. With keyframes, only from the last keyframe
 * before the first recorded row that differs (from_keyframes, above). OK whether or not they differ
 * (see result->different); a module error names the file, the module and the step. */
ONESCOPE_API onescope_code onescope_recording_diff(
    const onescope_recording *a, const onescope_recording *b, const onescope_module *module,
    const onescope_allocator *allocator, onescope_recording_diff_result *result, const char *name_a,
    const char *name_b, onescope_error *error);

/* ---- the streaming writer ---- */

/* What a recording starts from. Zeroed fields are the defaults (onescope_recording_def_default). */
typedef struct onescope_recording_def {
    const onescope_module *module; /* required: its id and version are stored */
    const void *setup;             /* the setup blob (may be empty) */
    size_t setup_size;
    const void *start_snapshot; /* NULL: the world starts from the setup */
    size_t snapshot_size;
    /* Engine mode: the engine runs its own world and hands the writer every hash (start_hash
     * for row 0, one with each append); the writer runs no world. Tool mode (false): the
     * writer makes the module's world and steps it with each input to compute the rows. */
    bool engine_mode;
    uint64_t start_hash;
    /* An entity row beside each hash row (the module needs entities): in tool mode from the
     * writer's world; in engine mode from the engine's own world, start_world here for row 0
     * and onescope_recording_writer_append_world for each step. */
    bool entity_rows;
    const void *start_world;
    /* A keyframe every keyframe_every steps (0: none): the module's snapshot of the world there
     * (when the module has the slot) and every entity's named values (the module needs
     * entities). In engine mode each step then needs the engine's world, as for entity rows. */
    uint32_t keyframe_every;
    /* The most bytes the file may take (0: ONESCOPE_RECORDING_DEFAULT_MAX_BYTES): the append
     * that would take it past them is refused (E_TOO_LARGE, latched; the partial keeps every
     * step before it). The default is the readers' default input limit, so a file written
     * under it reads everywhere; a larger file reads with max_input_bytes raised as far (the
     * streamed verify and validate of a file hold one buffer, whatever its size). */
    uint64_t max_bytes;
} onescope_recording_def;

/* A recording writer's default size limit: 256 MiB, the readers' default input limit
 * (ONESCOPE_MAX_INPUT_BYTES). */
#define ONESCOPE_RECORDING_DEFAULT_MAX_BYTES ((uint64_t)ONESCOPE_MAX_INPUT_BYTES)

ONESCOPE_API onescope_recording_def onescope_recording_def_default(void);

typedef struct onescope_recording_writer onescope_recording_writer;

/* Starts a recording to path. Until close the bytes go to "PATH.partial" (created anew, an
 * existing one refused); close writes the step count, fsyncs and renames it onto path. options
 * as the replay writer's (buffer, flush rule); NULL: defaults. */
ONESCOPE_API onescope_code onescope_recording_writer_open(
    const char *path, const onescope_recording_def *def,
    const onescope_replay_writer_options *options, const onescope_allocator *allocator,
    onescope_recording_writer **out, onescope_error *error);
/* One step: its input (checked by the module's check_input when it has one) and, in engine
 * mode, the hash after it (required there; refused in tool mode, where the world computes
 * it). Any error latches; the partial keeps every step before it. */
ONESCOPE_API onescope_code onescope_recording_writer_append(onescope_recording_writer *writer,
                                                            const void *input, size_t size,
                                                            const uint64_t *hash,
                                                            onescope_error *error);
/* The same, in engine mode with entity rows or keyframes: world is the engine's own world after
 * the step (the module's world pointer, as its callbacks take it), read through the table's
 * callbacks for the step's entity row and keyframe. */
ONESCOPE_API onescope_code onescope_recording_writer_append_world(onescope_recording_writer *writer,
                                                                  const void *input, size_t size,
                                                                  const uint64_t *hash,
                                                                  const void *world,
                                                                  onescope_error *error);
ONESCOPE_API onescope_code onescope_recording_writer_flush(onescope_recording_writer *writer,
                                                           onescope_error *error);
ONESCOPE_API onescope_code onescope_recording_writer_close(onescope_recording_writer *writer,
                                                           uint64_t *steps, onescope_error *error);
ONESCOPE_API uint64_t onescope_recording_writer_steps(const onescope_recording_writer *writer);
/* Releases the writer; one not closed leaves its partial for onescope_recording_recover. */
ONESCOPE_API void onescope_recording_writer_free(onescope_recording_writer *writer);
/* Abandons the recording: the partial is removed. */
ONESCOPE_API void onescope_recording_writer_discard(onescope_recording_writer *writer);

/* Turns a partial recording into a finished file holding every complete step, written
 * atomically to out_path (NULL: partial_path without ".partial"); the partial is only read.
 * A torn last record (cut by the end of the file) is dropped and said in *dropped_bytes (may
 * be NULL); damage before the end is refused at its offset. */
ONESCOPE_API onescope_code onescope_recording_recover(const char *partial_path,
                                                      const char *out_path,
                                                      const onescope_allocator *allocator,
                                                      uint64_t *steps_kept, uint64_t *dropped_bytes,
                                                      onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

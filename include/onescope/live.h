/* The live stream: a host runs a world and writes records (probe, step, end) into a byte pipe; a
 * viewer decodes them in whatever chunks the pipe delivers, starts its own world from a probe and
 * checks its hash after every step against the host's. Version 1 is the integer test module's
 * stream; version 2 names its module (id and version, as an OSTM v2 file does) and carries that
 * module's setup blob, snapshot bytes and input blobs. Framing and rules: docs/live-stream.md.
 * Sources: src/live_stream.c (records, decoding, encoding: bytes <-> records only) and
 * src/live_viewer.c (the viewer, which runs a world). */
#ifndef ONESCOPE_LIVE_H
#define ONESCOPE_LIVE_H

#include <stdbool.h>

#include "onescope/module.h"
#include "onescope/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_LIVE_VERSION 1              /* the test module's stream */
#define ONESCOPE_LIVE_MODULE_VERSION 2       /* a stream that names its module */
#define ONESCOPE_LIVE_HEADER_BYTES 8u        /* "OSLS", u16 version, u16 flags */
#define ONESCOPE_LIVE_RECORD_HEADER_BYTES 5u /* u8 type, u32 payload length */
/* Largest payload of each record type (the decoder refuses longer ones before allocating). */
#define ONESCOPE_LIVE_MAX_PROBE_PAYLOAD (1u + 4u + 6u + ONESCOPE_SIM_MAX_SNAPSHOT)
#define ONESCOPE_LIVE_MAX_STEP_PAYLOAD (8u + 2u + ONESCOPE_SIM_MAX_INPUT + 8u)
#define ONESCOPE_LIVE_END_PAYLOAD 8u
/* Version 2: the largest PROBE or STEP payload (a setup blob, a snapshot or an input of any
 * module), refused at the record header; the decoder's buffer grows only with the bytes that
 * have arrived, never to a declared length ahead of them. */
#define ONESCOPE_LIVE_MAX_MODULE_PAYLOAD (64u * 1024u * 1024u)

typedef enum onescope_live_record_type {
    ONESCOPE_LIVE_PROBE = 1, /* link flag, [link block], setup, world snapshot */
    ONESCOPE_LIVE_STEP = 2,  /* u64 host step, u16 input length, input, u64 hash after it */
    ONESCOPE_LIVE_END = 3    /* u64 host step the world ended at */
} onescope_live_record_type;

/* One decoded record. Pointers are into the decoder's (or encoder's) memory and stay valid
 * until the next call on it. */
typedef struct onescope_live_record {
    onescope_live_record_type type;
    uint64_t offset; /* stream offset of the record's type byte */
    uint64_t step;   /* PROBE: the snapshot's host step; STEP: the host step the step
                        starts from (the world is at step + 1 after it); END: the
                        host step the world ended at */
    /* PROBE */
    onescope_sim_setup setup;
    onescope_link_block link; /* role NONE: the world has no link block */
    const uint8_t *probe;     /* the probe snapshot: 6 setup bytes, then the world snapshot */
    size_t probe_size;
    const uint8_t *snapshot; /* the world snapshot (probe + 6) */
    size_t snapshot_size;
    /* STEP */
    const uint8_t *input;
    size_t input_size;
    uint64_t hash; /* the host's world hash after the step (at host step step + 1) */
    /* Every record: the stream's version and the module it names (version 1: the test module,
     * "onescope.test" "1"). The texts live as long as the decoder. */
    uint16_t version;
    const char *module_id;
    const char *module_version;
    /* PROBE of a version-2 stream (setup, link and probe are then zeroed): the module's setup
     * blob, and its snapshot when has_snapshot (false: the world the setup makes, at host step
     * 0). Version 1 probes have has_snapshot true and setup_blob NULL. */
    const uint8_t *setup_blob;
    size_t setup_blob_size;
    bool has_snapshot;
} onescope_live_record;

/* ---- decoding ---- */

typedef struct onescope_live_decoder onescope_live_decoder;

/* name labels errors (e.g. "<stdin>"); it is copied. */
ONESCOPE_API onescope_code onescope_live_decoder_create(const char *name,
                                                        const onescope_allocator *allocator,
                                                        onescope_live_decoder **out,
                                                        onescope_error *error);
ONESCOPE_API void onescope_live_decoder_free(onescope_live_decoder *decoder);

/* Reads from data[0..size): consumes bytes into *consumed until a whole record is decoded.
 * Returns 1 with *record filled (call again with the rest: data + *consumed), 0 when every
 * byte was consumed and more are needed, -1 on a framing error (error filled with the stream
 * offset; the decoder then refuses further use with BAD_STATE). Any chunking of the same bytes
 * yields the same records and the same errors. */
ONESCOPE_API int onescope_live_decoder_next(onescope_live_decoder *decoder, const void *data,
                                            size_t size, size_t *consumed,
                                            onescope_live_record *record, onescope_error *error);

/* Call at the end of the input: OK when the stream ended with its END record; TRUNCATED
 * (at the offset where bytes are missing) otherwise. */
ONESCOPE_API onescope_code onescope_live_decoder_finish(const onescope_live_decoder *decoder,
                                                        onescope_error *error);

/* Bytes consumed so far (the stream offset of the next byte). */
ONESCOPE_API uint64_t onescope_live_decoder_offset(const onescope_live_decoder *decoder);

/* Decodes a whole stream held in memory, calling back for every record (returning true stops
 * early with OK). data NULL with size > 0 is refused with ARGUMENT. */
typedef bool (*onescope_live_record_callback)(void *user, const onescope_live_record *record);
ONESCOPE_API onescope_code onescope_live_decode(const void *data, size_t size, const char *name,
                                                const onescope_allocator *allocator,
                                                onescope_live_record_callback callback, void *user,
                                                onescope_error *error);

/* ---- encoding ---- */

/* Appends records to a growing buffer; every record is checked by the decoder's own rules
 * (continuity included) before it is kept, so an encoder cannot write a stream the decoder
 * refuses. A refused record leaves the buffer as it was. */
typedef struct onescope_live_encoder onescope_live_encoder;

/* Creates the encoder and writes the stream header into its buffer. The encoder keeps the
 * allocator for its buffer and for what onescope_live_encoder_take hands out. */
ONESCOPE_API onescope_code onescope_live_encoder_create(const onescope_allocator *allocator,
                                                        onescope_live_encoder **out,
                                                        onescope_error *error);
/* The same for a version-2 stream of the module with this id and version (checked by the
 * decoder's own rule: 1-64 bytes, id [a-z][a-z0-9._-]*, version printable ASCII). */
ONESCOPE_API onescope_code onescope_live_encoder_create_module(const char *module_id,
                                                               const char *module_version,
                                                               const onescope_allocator *allocator,
                                                               onescope_live_encoder **out,
                                                               onescope_error *error);
ONESCOPE_API void onescope_live_encoder_free(onescope_live_encoder *encoder);

/* A probe of the world as it is now (at a step boundary): its setup, link and snapshot. */
ONESCOPE_API onescope_code onescope_live_encode_probe(onescope_live_encoder *encoder,
                                                      const onescope_sim *sim,
                                                      onescope_error *error);
/* A probe from parts (link may be NULL or role NONE). */
ONESCOPE_API onescope_code onescope_live_encode_probe_parts(onescope_live_encoder *encoder,
                                                            const onescope_sim_setup *setup,
                                                            const onescope_link_block *link,
                                                            const void *snapshot, size_t size,
                                                            onescope_error *error);
/* A version-2 probe at host step `step`: the module's setup blob and its snapshot of the world
 * (snapshot NULL with size 0: no snapshot, the world the setup makes, only at host step 0). A
 * version-1 encoder refuses it (BAD_STATE), as a version-2 one refuses the two calls above. */
ONESCOPE_API onescope_code onescope_live_encode_probe_blob(onescope_live_encoder *encoder,
                                                           uint64_t step, const void *setup,
                                                           size_t setup_size, const void *snapshot,
                                                           size_t snapshot_size,
                                                           onescope_error *error);
/* The step from host step `step` with this input, and the host's hash after it. */
ONESCOPE_API onescope_code onescope_live_encode_step(onescope_live_encoder *encoder, uint64_t step,
                                                     const void *input, size_t size, uint64_t hash,
                                                     onescope_error *error);
/* The END record: the world ended at host step `step`. */
ONESCOPE_API onescope_code onescope_live_encode_end(onescope_live_encoder *encoder, uint64_t step,
                                                    onescope_error *error);

/* The bytes written since the last clear (valid until the next encoder call). */
ONESCOPE_API void onescope_live_encoder_pending(const onescope_live_encoder *encoder,
                                                const uint8_t **data, size_t *size);
/* Forgets the pending bytes (after the caller has written them to its pipe). */
ONESCOPE_API void onescope_live_encoder_clear(onescope_live_encoder *encoder);
/* Hands the pending bytes to out (the encoder starts an empty buffer). */
ONESCOPE_API onescope_code onescope_live_encoder_take(onescope_live_encoder *encoder,
                                                      onescope_buffer *out, onescope_error *error);

/* ---- the viewer ---- */

typedef struct onescope_live_viewer onescope_live_viewer;

/* One world hash the viewer computed: at the probe it synced on, then after every step. */
typedef struct onescope_live_row {
    uint64_t step;           /* host step */
    uint64_t hash;           /* the viewer's own hash (equal to the host's, or the viewer fails) */
    const onescope_sim *sim; /* the test module's world at that step (valid during the
                                callback); NULL when the stream is another module's */
    const onescope_world *world; /* the viewer's world at that step, for any module */
} onescope_live_row;
typedef void (*onescope_live_row_callback)(void *user, const onescope_live_row *row);

/* A zeroed struct is the default (sync on the first probe, record nothing, no callback);
 * onescope_live_viewer_options_default() returns exactly that. */
typedef struct onescope_live_viewer_options {
    uint64_t from_step; /* sync on the first probe whose host step is >= this (default 0) */
    bool record;        /* true: keep inputs and hashes in memory for onescope_live_viewer_replay
                           (memory grows with the steps; save_path does not) */
    onescope_live_row_callback on_row; /* may be NULL */
    void *user;
    /* Non-NULL: record what the viewer saw into this OSTM file through the streaming replay
     * writer (include/onescope/replay.h): the writer opens at the probe the viewer syncs on
     * (PATH.partial from then on), every checked step is appended, and
     * onescope_live_viewer_finish closes it (PATH appears, atomically). A viewer that fails,
     * or is freed (or killed) before finish, leaves PATH untouched and PATH.partial holding
     * every checked step it wrote, for onescope_replay_recover. Memory does not grow with the
     * steps. The string is copied. */
    const char *save_path;
    onescope_replay_writer_options save_options; /* the writer's options; zeroed: defaults */
    /* A recording (record or save_path) is refused, E_TOO_LARGE at the record that would
     * take the OSTM file past this many bytes: 0 or more than ONESCOPE_MAX_INPUT_BYTES means
     * that limit, the format's. */
    uint64_t max_record_bytes;
    /* The module the viewer runs (NULL: the test module). A stream that names another module
     * id or version is refused, E_MODULE at the first record naming both; version-1 streams
     * are the test module's. To start from a probe with a snapshot the module needs
     * snapshot and restore. A version-2 stream is saved (save_path) as an OSTM v2 module
     * recording; record (in memory) takes version-1 streams only. */
    const onescope_module *module;
} onescope_live_viewer_options;

ONESCOPE_API onescope_live_viewer_options onescope_live_viewer_options_default(void);

/* name labels errors. options may be NULL (defaults). */
ONESCOPE_API onescope_code onescope_live_viewer_create(const onescope_live_viewer_options *options,
                                                       const char *name,
                                                       const onescope_allocator *allocator,
                                                       onescope_live_viewer **out,
                                                       onescope_error *error);
ONESCOPE_API void onescope_live_viewer_free(onescope_live_viewer *viewer);

/* Applies one decoded record. Before it syncs the viewer skips records; it syncs on the first
 * probe at or after from_step (world from its snapshot). Once synced: a STEP runs the step and
 * compares the hash (MISMATCH at the record's offset when they differ), a later PROBE must
 * equal the viewer's own snapshot byte for byte (MISMATCH), END ends. When recording, a STEP
 * that would take the replay past 16777216 steps (RANGE) or past the recording's byte limit
 * (TOO_LARGE) is refused at its offset before it runs. A failure latches. */
ONESCOPE_API onescope_code onescope_live_viewer_apply(onescope_live_viewer *viewer,
                                                      const onescope_live_record *record,
                                                      onescope_error *error);

/* Feeds raw stream bytes through the viewer's own decoder (any chunking). */
ONESCOPE_API onescope_code onescope_live_viewer_feed(onescope_live_viewer *viewer, const void *data,
                                                     size_t size, onescope_error *error);
/* At the end of the input: the stream must have ended (END) and the viewer must have synced
 * (RANGE "no probe at or after step N" otherwise). With options.save_path it then closes the
 * recording, which puts the file in place (a failure to, say E_IO, latches the viewer and
 * leaves the partial). */
ONESCOPE_API onescope_code onescope_live_viewer_finish(onescope_live_viewer *viewer,
                                                       onescope_error *error);

ONESCOPE_API bool onescope_live_viewer_synced(const onescope_live_viewer *viewer);
ONESCOPE_API bool onescope_live_viewer_ended(const onescope_live_viewer *viewer);
/* The viewer's world (NULL before it syncs): the test module's onescope_sim (NULL for another
 * module), or the world of any module. */
ONESCOPE_API const onescope_sim *onescope_live_viewer_sim(const onescope_live_viewer *viewer);
ONESCOPE_API const onescope_world *onescope_live_viewer_world(const onescope_live_viewer *viewer);
/* Steps the viewer has run and checked since it synced. */
ONESCOPE_API uint64_t onescope_live_viewer_steps(const onescope_live_viewer *viewer);

/* What the viewer saw as a new OSTM replay, made with allocator (options.record must be set): flag
 * bit 1 with the probe's snapshot as start snapshot, the link block, every input, and its hash
 * rows. RANGE when it has not synced or ran more than ONESCOPE_OSTM_MAX_STEPS steps. */
ONESCOPE_API onescope_code onescope_live_viewer_replay(const onescope_live_viewer *viewer,
                                                       const onescope_allocator *allocator,
                                                       onescope_replay **out,
                                                       onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

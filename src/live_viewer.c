/* The live viewer: feeds decoded records to its own simulation, checks the host's hashes and
 * can record what it saw as a replay, in memory or through the streaming replay writer. The
 * bytes themselves are decoded in live_stream.c. Rules: docs/live-stream.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "live_internal.h"
#include "onescope/live.h"
#include "onescope/recording.h"
#include "replay_internal.h" /* the OSTM head and file size, for the recording's limit */
#include "run_internal.h"    /* the test module's setup blob and world, a module's errors */

/* ---- viewer ---- */

struct onescope_live_viewer {
    const onescope_allocator *allocator;
    onescope_live_viewer_options options;
    char name[256];
    onescope_live_decoder *decoder; /* created by the first feed */
    const onescope_module *module;  /* options.module, or the test module */
    onescope_world *world;          /* from the sync on */
    uint64_t step;                  /* the world's host step */
    bool module_checked;            /* the stream's module was compared with module */
    bool synced;
    bool ended;
    bool failed;
    uint64_t steps;
    onescope_replay *replay; /* when recording: setup, link, start snapshot, inputs */
    uint64_t *rows;
    size_t row_count;
    size_t row_capacity;
    char *save_path;                          /* options.save_path, copied */
    onescope_replay_writer *writer;           /* a version-1 stream's, from the sync until finish */
    onescope_recording_writer *module_writer; /* a version-2 stream's (an OSTM v2 file) */
    uint64_t record_limit;                    /* bytes the recorded OSTM file may have */
    size_t head_size;     /* of that file: what precedes its hash rows or records */
    uint64_t input_bytes; /* recorded so far */
};

static bool recording(const onescope_live_viewer *v) {
    return v->options.record || v->save_path != NULL;
}

onescope_live_viewer_options onescope_live_viewer_options_default(void) {
    onescope_live_viewer_options o;
    memset(&o, 0, sizeof o);
    return o;
}

onescope_code onescope_live_viewer_create(const onescope_live_viewer_options *options,
                                          const char *name, const onescope_allocator *a,
                                          onescope_live_viewer **out, onescope_error *error) {
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_create",
                                OS_NO_OFFSET, NULL, NULL, "out must not be NULL");
    *out = NULL;
    if (options != NULL && options->module != NULL)
        OS_TRY(onescope_module_check(options->module, "options.module", error));
    onescope_live_viewer *v = onescope_os_calloc(a, 1, sizeof *v);
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name ? name : "live stream", OS_NO_OFFSET,
                                "viewer", NULL, "could not allocate memory");
    v->allocator = a;
    v->options = options ? *options : onescope_live_viewer_options_default();
    v->module = v->options.module != NULL ? v->options.module : onescope_module_test();
    onescope_os_copy_text(v->name, sizeof v->name, name ? name : "live stream");
    if (v->options.save_path != NULL &&
        (v->options.save_path[0] == '\0' || strcmp(v->options.save_path, "-") == 0)) {
        onescope_os_free(a, v);
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_create",
                                OS_NO_OFFSET, "options.save_path",
                                "a file name (a recording cannot go to standard output)", "\"%s\"",
                                options->save_path);
    }
    if (v->options.save_path != NULL) {
        size_t n = strlen(v->options.save_path) + 1;
        v->save_path = onescope_os_alloc(a, n);
        if (v->save_path == NULL) {
            onescope_os_free(a, v);
            return onescope_os_fail(error, ONESCOPE_E_NOMEM, name ? name : "live stream",
                                    OS_NO_OFFSET, "save path", NULL, "could not allocate memory");
        }
        memcpy(v->save_path, v->options.save_path, n);
        v->options.save_path = v->save_path;
    }
    uint64_t limit = v->options.max_record_bytes;
    v->record_limit =
        limit == 0 || limit > ONESCOPE_MAX_INPUT_BYTES ? ONESCOPE_MAX_INPUT_BYTES : limit;
    *out = v;
    return ONESCOPE_OK;
}

void onescope_live_viewer_free(onescope_live_viewer *v) {
    if (v == NULL) return;
    onescope_live_decoder_free(v->decoder);
    onescope_world_free(v->world);
    onescope_replay_free(v->replay);
    onescope_replay_writer_free(v->writer); /* not closed: its partial stays, for recovery */
    onescope_recording_writer_free(v->module_writer); /* the same */
    onescope_os_free(v->allocator, v->save_path);
    onescope_os_free(v->allocator, v->rows);
    onescope_os_free(v->allocator, v);
}

/* The test module's world inside the viewer's (NULL for another module's). */
static const onescope_sim *viewer_sim(const onescope_live_viewer *v) {
    if (v->world == NULL || v->module != onescope_module_test()) return NULL;
    return onescope_os_world_state(v->world);
}

static onescope_code viewer_push_row(onescope_live_viewer *v, uint64_t hash,
                                     onescope_error *error) {
    if (v->options.record) {
        if (v->row_count == v->row_capacity) {
            size_t cap = v->row_capacity ? v->row_capacity * 2 : 256;
            size_t bytes;
            if (!onescope_os_mul_size(cap, sizeof *v->rows, &bytes))
                return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, v->name, OS_NO_OFFSET,
                                        "hash rows", NULL, "too many");
            uint64_t *p = onescope_os_alloc(v->allocator, bytes);
            if (p == NULL)
                return onescope_os_fail(error, ONESCOPE_E_NOMEM, v->name, OS_NO_OFFSET, "hash rows",
                                        NULL, "could not allocate memory");
            if (v->row_count) memcpy(p, v->rows, v->row_count * sizeof *v->rows);
            onescope_os_free(v->allocator, v->rows);
            v->rows = p;
            v->row_capacity = cap;
        }
        v->rows[v->row_count++] = hash;
    }
    if (v->options.on_row != NULL) {
        onescope_live_row row = {v->step, hash, viewer_sim(v), v->world};
        v->options.on_row(v->options.user, &row);
    }
    return ONESCOPE_OK;
}

/* A module's failure at a record, said as the stream's: its name, the record's offset, the
 * module and the host step (the module's own text follows). */
static onescope_code module_failed(const onescope_live_viewer *v, const onescope_live_record *rec,
                                   onescope_code rc, onescope_error *error) {
    onescope_os_run_at_step(error, v->name, v->module->id, rec->step, OS_NO_OFFSET, 0);
    if (error != NULL) {
        error->has_offset = true;
        error->offset = rec->offset;
    }
    return rc;
}

/* The stream's module against the viewer's, at the first record: version 1 is the test
 * module's (named at the version field), version 2 names its own (at the id's length byte). */
static onescope_code viewer_check_module(onescope_live_viewer *v, const onescope_live_record *rec,
                                         onescope_error *error) {
    bool v2 = rec->version == ONESCOPE_LIVE_MODULE_VERSION;
    const char *id = v2 && rec->module_id ? rec->module_id : "onescope.test";
    const char *version = v2 && rec->module_version ? rec->module_version : "1";
    OS_TRY(onescope_os_module_match(v->module, id, version, v->name,
                                    v2 ? ONESCOPE_LIVE_HEADER_BYTES : 4u,
                                    "the module the viewer runs", error));
    v->module_checked = true;
    return ONESCOPE_OK;
}

/* A version-1 stream's sync: the test module's world from the probe's setup, link and world
 * snapshot, recorded as an OSTM v1 replay. */
static onescope_code sync_test_module(onescope_live_viewer *v, const onescope_live_record *rec,
                                      onescope_error *error) {
    const onescope_link_block *link = rec->link.role != ONESCOPE_LINK_ROLE_NONE ? &rec->link : NULL;
    uint8_t blob[10];
    size_t blob_size = onescope_os_test_setup_blob(&rec->setup, link, blob);
    onescope_code rc = onescope_world_restore(v->module, blob, blob_size, rec->snapshot,
                                              rec->snapshot_size, v->allocator, &v->world, error);
    if (rc != ONESCOPE_OK) return module_failed(v, rec, rc, error);
    if (recording(v)) {
        /* The head of the file the recording makes: the size it starts from. */
        uint8_t head[ONESCOPE_OS_OSTM_HEAD_MAX];
        OS_TRY(onescope_os_replay_head_build(&rec->setup, link, rec->snapshot, rec->snapshot_size,
                                             0, v->name, head, &v->head_size, error));
    }
    if (v->options.record) {
        OS_TRY(onescope_replay_create(&rec->setup, link, v->allocator, &v->replay, error));
        OS_TRY(onescope_replay_set_start_snapshot(v->replay, rec->snapshot, rec->snapshot_size,
                                                  error));
    }
    if (v->save_path != NULL)
        OS_TRY(onescope_replay_writer_open(v->save_path, &rec->setup, link, rec->snapshot,
                                           rec->snapshot_size, &v->options.save_options,
                                           v->allocator, &v->writer, error));
    return ONESCOPE_OK;
}

/* A version-2 stream's sync: the module's world from the setup blob, or restored from the
 * probe's snapshot (the module needs restore), recorded as an OSTM v2 module recording. */
static onescope_code sync_module(onescope_live_viewer *v, const onescope_live_record *rec,
                                 onescope_error *error) {
    if (v->options.record)
        return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, v->name, rec->offset, "record",
                                "options.save_path for a version-2 stream",
                                "options.record (an in-memory OSTM v1 replay)");
    onescope_code rc =
        rec->has_snapshot ? onescope_world_restore(v->module, rec->setup_blob, rec->setup_blob_size,
                                                   rec->snapshot, rec->snapshot_size, v->allocator,
                                                   &v->world, error)
                          : onescope_world_create(v->module, rec->setup_blob, rec->setup_blob_size,
                                                  v->allocator, &v->world, error);
    if (rc != ONESCOPE_OK) return module_failed(v, rec, rc, error);
    if (v->save_path == NULL) return ONESCOPE_OK;
    /* The OSTM v2 head: 12 fixed bytes, both texts with their lengths, the setup, the
     * snapshot and row 0 (docs/recording.md 2). */
    v->head_size = 14u + strlen(v->module->id) + strlen(v->module->version) + 4u +
                   rec->setup_blob_size + (rec->has_snapshot ? 4u + rec->snapshot_size : 0u) + 8u;
    if (v->head_size > v->record_limit)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, v->name, rec->offset,
                                "recorded replay", "a head within the recording's limit",
                                "%zu bytes", v->head_size);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = v->module;
    def.setup = rec->setup_blob;
    def.setup_size = rec->setup_blob_size;
    def.start_snapshot = rec->has_snapshot ? rec->snapshot : NULL;
    def.snapshot_size = rec->has_snapshot ? rec->snapshot_size : 0;
    def.engine_mode = true; /* the viewer's world gives the hashes */
    def.start_hash = onescope_world_hash(v->world);
    return onescope_recording_writer_open(v->save_path, &def, &v->options.save_options,
                                          v->allocator, &v->module_writer, error);
}

static onescope_code viewer_sync(onescope_live_viewer *v, const onescope_live_record *rec,
                                 onescope_error *error) {
    v->step = rec->step;
    OS_TRY(rec->version == ONESCOPE_LIVE_MODULE_VERSION ? sync_module(v, rec, error)
                                                        : sync_test_module(v, rec, error));
    v->synced = true;
    return viewer_push_row(v, onescope_world_hash(v->world), error);
}

/* A later probe is a full-state check: its snapshot must equal the viewer's byte for byte.
 * A version-2 probe without a snapshot (host step 0), or a module without snapshot, checks
 * nothing beyond the hashes. */
static onescope_code viewer_probe(onescope_live_viewer *v, const onescope_live_record *rec,
                                  onescope_error *error) {
    if (!rec->has_snapshot && rec->version == ONESCOPE_LIVE_MODULE_VERSION) return ONESCOPE_OK;
    if (onescope_world_module(v->world)->snapshot == NULL) return ONESCOPE_OK;
    onescope_buffer snap = {NULL, 0, NULL};
    onescope_code rc = onescope_world_snapshot(v->world, v->allocator, &snap, error);
    if (rc != ONESCOPE_OK) return module_failed(v, rec, rc, error);
    bool same = snap.size == rec->snapshot_size &&
                (snap.size == 0 || memcmp(snap.data, rec->snapshot, snap.size) == 0);
    uint64_t mine = onescope_hash_bytes(snap.data, snap.size);
    onescope_buffer_free(&snap);
    if (same) return ONESCOPE_OK;
    return onescope_os_fail(
        error, ONESCOPE_E_MISMATCH, v->name, rec->offset, "probe snapshot", NULL,
        "the host's world at step %" PRIu64 " (hash %016" PRIx64
        ") differs from the viewer's (hash %016" PRIx64 ")",
        rec->step, onescope_hash_bytes(rec->snapshot, rec->snapshot_size), mine);
}

/* Refused before the step runs, so what was recorded stays a whole file. */
static onescope_code viewer_record_limit(const onescope_live_viewer *v,
                                         const onescope_live_record *rec, onescope_error *error) {
    bool v2 = rec->version == ONESCOPE_LIVE_MODULE_VERSION;
    if (v->steps >= ONESCOPE_OSTM_MAX_STEPS)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, rec->offset, "recorded steps",
                                "at most 16777216 (an OSTM file's limit)", "one more");
    uint64_t total =
        v2 ? (uint64_t)v->head_size + (v->steps + 1) * 12u + v->input_bytes + rec->input_size
           : onescope_os_replay_file_size(v->head_size, (uint32_t)v->steps + 1,
                                          v->input_bytes + rec->input_size);
    if (total <= v->record_limit) return ONESCOPE_OK;
    char expected[96];
    snprintf(expected, sizeof expected, "at most %" PRIu64 " bytes (%s)", v->record_limit,
             v->record_limit == ONESCOPE_MAX_INPUT_BYTES ? "an OSTM file's limit"
                                                         : "the viewer's limit");
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, v->name, rec->offset, "recorded replay",
                            expected, "%" PRIu64 " bytes with the step from host step %" PRIu64,
                            total, rec->step);
}

static onescope_code viewer_apply(onescope_live_viewer *v, const onescope_live_record *rec,
                                  onescope_error *error) {
    if (!v->module_checked) OS_TRY(viewer_check_module(v, rec, error));
    if (rec->type == ONESCOPE_LIVE_END) {
        if (v->synced)
            OS_TRY(onescope_os_live_check_step(v->step, rec->step, rec->offset + 5, "end host step",
                                               v->name, error));
        v->ended = true;
        return ONESCOPE_OK;
    }
    if (!v->synced) {
        if (rec->type == ONESCOPE_LIVE_PROBE && rec->step >= v->options.from_step)
            return viewer_sync(v, rec, error);
        return ONESCOPE_OK; /* not there yet: skip */
    }
    uint64_t now = v->step;
    if (rec->type == ONESCOPE_LIVE_PROBE) return viewer_probe(v, rec, error);
    OS_TRY(
        onescope_os_live_check_step(now, rec->step, rec->offset + 5, "host step", v->name, error));
    if (recording(v)) OS_TRY(viewer_record_limit(v, rec, error));
    onescope_code rc = onescope_world_step(v->world, rec->input, rec->input_size, error);
    if (rc != ONESCOPE_OK) return module_failed(v, rec, rc, error);
    v->step++;
    uint64_t hash = onescope_world_hash(v->world);
    if (hash != rec->hash) {
        char field[96], expected[64];
        snprintf(field, sizeof field, "hash at step %" PRIu64, now + 1);
        snprintf(expected, sizeof expected, "%016" PRIx64 " (the host's)", rec->hash);
        return onescope_os_fail(error, ONESCOPE_E_MISMATCH, v->name, rec->offset, field, expected,
                                "%016" PRIx64 " (the viewer's)", hash);
    }
    if (v->options.record)
        OS_TRY(onescope_replay_append_step(v->replay, rec->input, rec->input_size, error));
    if (v->writer != NULL)
        OS_TRY(onescope_replay_writer_append(v->writer, rec->input, rec->input_size, &hash, error));
    if (v->module_writer != NULL)
        OS_TRY(onescope_recording_writer_append(v->module_writer, rec->input, rec->input_size,
                                                &hash, error));
    v->steps++;
    v->input_bytes += rec->input_size;
    return viewer_push_row(v, hash, error);
}

onescope_code onescope_live_viewer_apply(onescope_live_viewer *v, const onescope_live_record *rec,
                                         onescope_error *error) {
    if (v == NULL || rec == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_apply",
                                OS_NO_OFFSET, NULL, NULL, "viewer and record must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                                "the viewer failed earlier");
    if (v->ended)
        return onescope_os_fail(error, ONESCOPE_E_TRAILING, v->name, rec->offset, "record",
                                "nothing after the end record", "a record of type %s",
                                onescope_os_live_type_name((uint8_t)rec->type));
    onescope_code rc = viewer_apply(v, rec, error);
    if (rc != ONESCOPE_OK) v->failed = true;
    return rc;
}

onescope_code onescope_live_viewer_feed(onescope_live_viewer *v, const void *data, size_t size,
                                        onescope_error *error) {
    if (v == NULL || (data == NULL && size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_feed",
                                OS_NO_OFFSET, NULL, NULL, "viewer and data must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                                "the viewer failed earlier");
    if (v->decoder == NULL) {
        onescope_code rc = onescope_live_decoder_create(v->name, v->allocator, &v->decoder, error);
        if (rc != ONESCOPE_OK) return rc; /* nothing happened yet: a later feed may retry */
    }
    const uint8_t *p = data;
    size_t pos = 0;
    for (;;) {
        onescope_live_record rec;
        size_t used;
        int r = onescope_live_decoder_next(v->decoder, p ? p + pos : NULL, size - pos, &used, &rec,
                                           error);
        pos += used;
        if (r < 0) {
            v->failed = true;
            return onescope_os_live_decoder_code(v->decoder);
        }
        if (r == 0) return ONESCOPE_OK;
        OS_TRY(onescope_live_viewer_apply(v, &rec, error));
    }
}

onescope_code onescope_live_viewer_finish(onescope_live_viewer *v, onescope_error *error) {
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_finish",
                                OS_NO_OFFSET, NULL, NULL, "viewer must not be NULL");
    if (v->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, NULL, NULL,
                                "the viewer failed earlier");
    if (v->decoder != NULL)
        OS_TRY(onescope_live_decoder_finish(v->decoder, error));
    else if (!v->ended)
        return onescope_os_fail(error, ONESCOPE_E_TRUNCATED, v->name, 0, "stream header", "8 bytes",
                                "0 bytes");
    if (!v->synced)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, OS_NO_OFFSET, "probe", NULL,
                                "no probe at or after step %" PRIu64 " before the end",
                                v->options.from_step);
    if (v->writer != NULL) {
        onescope_code rc = onescope_replay_writer_close(v->writer, NULL, error);
        if (rc != ONESCOPE_OK) {
            v->failed = true; /* the writer keeps its partial; free leaves it there */
            return rc;
        }
        onescope_replay_writer_free(v->writer);
        v->writer = NULL;
    }
    if (v->module_writer != NULL) {
        onescope_code rc = onescope_recording_writer_close(v->module_writer, NULL, error);
        if (rc != ONESCOPE_OK) {
            v->failed = true; /* the same: the partial stays */
            return rc;
        }
        onescope_recording_writer_free(v->module_writer);
        v->module_writer = NULL;
    }
    return ONESCOPE_OK;
}

bool onescope_live_viewer_synced(const onescope_live_viewer *v) {
    return v && v->synced;
}
bool onescope_live_viewer_ended(const onescope_live_viewer *v) {
    return v && v->ended;
}
const onescope_sim *onescope_live_viewer_sim(const onescope_live_viewer *v) {
    return v ? viewer_sim(v) : NULL;
}
const onescope_world *onescope_live_viewer_world(const onescope_live_viewer *v) {
    return v ? v->world : NULL;
}
uint64_t onescope_live_viewer_steps(const onescope_live_viewer *v) {
    return v ? v->steps : 0;
}

onescope_code onescope_live_viewer_replay(const onescope_live_viewer *v,
                                          const onescope_allocator *a, onescope_replay **out,
                                          onescope_error *error) {
    if (v == NULL || out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_live_viewer_replay",
                                OS_NO_OFFSET, NULL, NULL, "viewer and out must not be NULL");
    *out = NULL;
    if (!v->options.record)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, v->name, OS_NO_OFFSET, "viewer",
                                "a viewer created with options.record", "one that did not record");
    if (!v->synced || v->replay == NULL)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, OS_NO_OFFSET, "probe", NULL,
                                "no probe at or after step %" PRIu64 " seen yet",
                                v->options.from_step);
    /* A copy through the writer and parser, so the viewer can go on recording. */
    onescope_buffer bytes = {NULL, 0, NULL};
    OS_TRY(onescope_replay_write(v->replay, a, &bytes, error));
    onescope_parse_options po = onescope_parse_options_default();
    po.allocator = a;
    onescope_code rc = onescope_replay_parse(bytes.data, bytes.size, v->name, &po, out, error);
    onescope_buffer_free(&bytes);
    if (rc != ONESCOPE_OK) return rc;
    rc = onescope_replay_set_hash_rows(*out, v->rows, v->row_count, error);
    if (rc != ONESCOPE_OK) {
        onescope_replay_free(*out);
        *out = NULL;
    }
    return rc;
}

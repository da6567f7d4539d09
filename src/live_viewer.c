/* The live viewer: feeds decoded records to its own simulation, checks the host's hashes and
 * can record what it saw as a replay, in memory or through the streaming replay writer. The
 * bytes themselves are decoded in live_stream.c. Rules: docs/live-stream.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "live_internal.h"
#include "onescope/live.h"
#include "replay_internal.h" /* the OSTM head and file size, for the recording's limit */

/* ---- viewer ---- */

struct onescope_live_viewer {
    const onescope_allocator *allocator;
    onescope_live_viewer_options options;
    char name[256];
    onescope_live_decoder *decoder; /* created by the first feed */
    onescope_sim *sim;
    bool synced;
    bool ended;
    bool failed;
    uint64_t steps;
    onescope_replay *replay; /* when recording: setup, link, start snapshot, inputs */
    uint64_t *rows;
    size_t row_count;
    size_t row_capacity;
    char *save_path;                /* options.save_path, copied */
    onescope_replay_writer *writer; /* from the sync until finish closes it */
    uint64_t record_limit;          /* bytes the recorded OSTM file may have */
    size_t head_size;               /* of that file: what precedes its hash rows */
    uint64_t input_bytes;           /* recorded so far */
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
    onescope_live_viewer *v = onescope_os_calloc(a, 1, sizeof *v);
    if (v == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name ? name : "live stream", OS_NO_OFFSET,
                                "viewer", NULL, "could not allocate memory");
    v->allocator = a;
    v->options = options ? *options : onescope_live_viewer_options_default();
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
    onescope_sim_free(v->sim);
    onescope_replay_free(v->replay);
    onescope_replay_writer_free(v->writer); /* not closed: its partial stays, for recovery */
    onescope_os_free(v->allocator, v->save_path);
    onescope_os_free(v->allocator, v->rows);
    onescope_os_free(v->allocator, v);
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
        onescope_live_row row = {onescope_sim_host_step(v->sim), hash, v->sim};
        v->options.on_row(v->options.user, &row);
    }
    return ONESCOPE_OK;
}

static onescope_code viewer_sync(onescope_live_viewer *v, const onescope_live_record *rec,
                                 onescope_error *error) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = rec->setup;
    def.link = rec->link;
    OS_TRY(onescope_sim_create_from_snapshot(&def, rec->snapshot, rec->snapshot_size, v->name,
                                             v->allocator, &v->sim, error));
    const onescope_link_block *link = rec->link.role != ONESCOPE_LINK_ROLE_NONE ? &rec->link : NULL;
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
    v->synced = true;
    return viewer_push_row(v, onescope_sim_hash(v->sim), error);
}

static onescope_code viewer_apply(onescope_live_viewer *v, const onescope_live_record *rec,
                                  onescope_error *error) {
    if (rec->type == ONESCOPE_LIVE_END) {
        if (v->synced)
            OS_TRY(onescope_os_live_check_step(onescope_sim_host_step(v->sim), rec->step,
                                               rec->offset + 5, "end host step", v->name, error));
        v->ended = true;
        return ONESCOPE_OK;
    }
    if (!v->synced) {
        if (rec->type == ONESCOPE_LIVE_PROBE && rec->step >= v->options.from_step)
            return viewer_sync(v, rec, error);
        return ONESCOPE_OK; /* not there yet: skip */
    }
    uint64_t now = onescope_sim_host_step(v->sim);
    if (rec->type == ONESCOPE_LIVE_PROBE) {
        uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
        size_t n = onescope_sim_snapshot(v->sim, snap, sizeof snap);
        if (n != rec->snapshot_size || memcmp(snap, rec->snapshot, n) != 0)
            return onescope_os_fail(
                error, ONESCOPE_E_MISMATCH, v->name, rec->offset, "probe snapshot", NULL,
                "the host's world at step %" PRIu64 " (hash %016" PRIx64
                ") differs from the viewer's (hash %016" PRIx64 ")",
                rec->step, onescope_hash_bytes(rec->snapshot, rec->snapshot_size),
                onescope_hash_bytes(snap, n));
        return ONESCOPE_OK;
    }
    OS_TRY(
        onescope_os_live_check_step(now, rec->step, rec->offset + 5, "host step", v->name, error));
    if (recording(v)) {
        /* Refused before the step runs, so what was recorded stays a whole replay. */
        if (v->steps >= ONESCOPE_OSTM_MAX_STEPS)
            return onescope_os_fail(error, ONESCOPE_E_RANGE, v->name, rec->offset, "recorded steps",
                                    "at most 16777216 (an OSTM file's limit)", "one more");
        uint64_t total = onescope_os_replay_file_size(v->head_size, (uint32_t)v->steps + 1,
                                                      v->input_bytes + rec->input_size);
        if (total > v->record_limit) {
            char expected[96];
            snprintf(expected, sizeof expected, "at most %" PRIu64 " bytes (%s)", v->record_limit,
                     v->record_limit == ONESCOPE_MAX_INPUT_BYTES ? "an OSTM file's limit"
                                                                 : "the viewer's limit");
            return onescope_os_fail(
                error, ONESCOPE_E_TOO_LARGE, v->name, rec->offset, "recorded replay", expected,
                "%" PRIu64 " bytes with the step from host step %" PRIu64, total, rec->step);
        }
    }
    OS_TRY(onescope_sim_step(v->sim, rec->input, rec->input_size, error));
    uint64_t hash = onescope_sim_hash(v->sim);
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
    return ONESCOPE_OK;
}

bool onescope_live_viewer_synced(const onescope_live_viewer *v) {
    return v && v->synced;
}
bool onescope_live_viewer_ended(const onescope_live_viewer *v) {
    return v && v->ended;
}
const onescope_sim *onescope_live_viewer_sim(const onescope_live_viewer *v) {
    return v ? v->sim : NULL;
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

/* The streaming writer of module recordings and the recovery of its partial. A partial is the
 * finished file with the open step count: each record (length, input, hash) is appended as it
 * comes, and close writes the count, fsyncs and renames. In engine mode no world runs here.
 * The file steps are src/file.c's onescope_os_file_* helpers. Rules: docs/recording.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "file_internal.h"
#include "onescope/file.h"
#include "recording_internal.h"
#include "run_internal.h"

#define DEFAULT_BUFFER (256u * 1024u)

struct onescope_recording_writer {
    const onescope_allocator *allocator;
    onescope_module module; /* the caller's table (its id and version go in the file) */
    onescope_world *world;  /* tool mode only */
    uint8_t *setup;         /* a copy, for check_input */
    size_t setup_size;
    onescope_os_target target;
    char *path;
    char *partial;
    onescope_os_out out; /* the partial, through the writers' one core */
    uint32_t steps;
    /* entity rows: the last row's ids (to write "the same ids" when they repeat), the row
     * being built, and room for one entity's digest */
    bool entity_rows;
    uint64_t *ids;
    uint32_t id_count, id_cap;
    bool ids_written;
    onescope_os_writer row;
    double *values;
    uint8_t *digest;
    uint32_t key_every; /* keyframes: every K steps, built in key */
    onescope_os_writer key;
    uint64_t max_bytes; /* the file's most bytes (def.max_bytes, or the default) */
};

static onescope_code nomem(onescope_error *error, const char *name) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "writer", NULL,
                            "could not allocate memory");
}

static onescope_code latch(onescope_recording_writer *w, onescope_code rc) {
    return onescope_os_out_latch(&w->out, rc);
}

static onescope_code feed(onescope_recording_writer *w, const void *data, size_t n,
                          onescope_error *error) {
    return onescope_os_out_feed(&w->out, data, n, w->path, error);
}

static onescope_code feed_u64(onescope_recording_writer *w, uint64_t v, onescope_error *error) {
    uint8_t b[8];
    onescope_os_put_u64(b, v);
    return feed(w, b, sizeof b, error);
}

onescope_recording_def onescope_recording_def_default(void) {
    onescope_recording_def d;
    memset(&d, 0, sizeof d);
    return d;
}

static void release(onescope_recording_writer *w) {
    const onescope_allocator *a = w->allocator;
    onescope_os_free(a, w->ids);
    onescope_os_free(a, w->values);
    onescope_os_free(a, w->digest);
    onescope_os_writer_discard(&w->row);
    onescope_os_writer_discard(&w->key);
    onescope_world_free(w->world);
    onescope_os_target_free(&w->target, a);
    onescope_os_free(a, w->setup);
    onescope_os_free(a, w->path);
    onescope_os_free(a, w->partial);
    onescope_os_free(a, w->out.buf);
    onescope_os_free(a, w);
}

/* The entity row of a world (the module's own pointer) into w->row: length, count, ids flag,
 * group count, the ids when they differ from the last row's, the digests, the group bytes. */
static onescope_code build_entity_row(onescope_recording_writer *w, const void *world,
                                      onescope_error *error) {
    const onescope_module *t = &w->module;
    uint32_t n = t->entity_count(t->context, world);
    if (n > ONESCOPE_RECORDING_MAX_ENTITIES)
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, w->path, OS_NO_OFFSET, "entities",
                                "at most 1048576 in an entity row", "%" PRIu32, n);
    uint32_t groups = t->value_count != 0 ? t->group_count : 0;
    if (n > w->id_cap) {
        uint64_t *ids = onescope_os_calloc(w->allocator, n, sizeof *ids);
        if (ids == NULL) return nomem(error, w->path);
        if (w->id_count) memcpy(ids, w->ids, w->id_count * sizeof *ids);
        onescope_os_free(w->allocator, w->ids);
        w->ids = ids;
        w->id_cap = n;
    }
    bool same = w->ids_written && n == w->id_count;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = t->entity_id(t->context, world, i);
        if (same && w->ids[i] != id) same = false;
        w->ids[i] = id;
    }
    w->id_count = n;
    w->ids_written = true;
    onescope_os_writer *b = &w->row;
    b->size = 0;
    uint64_t body = 6u + (uint64_t)n * ((same ? 0u : 8u) + 4u + groups);
    onescope_os_write_u32(b, (uint32_t)body);
    onescope_os_write_u32(b, n);
    onescope_os_write_u8(b, same ? 0 : 1);
    onescope_os_write_u8(b, (uint8_t)groups);
    if (!same)
        for (uint32_t i = 0; i < n; i++) onescope_os_write_u64(b, w->ids[i]);
    size_t at = b->size; /* the digests, then the group bytes after them */
    for (uint32_t i = 0; i < n; i++) onescope_os_write_u32(b, 0);
    for (uint32_t i = 0; i < n * groups; i++) onescope_os_write_u8(b, 0);
    if (b->failed) return nomem(error, w->path);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h;
        onescope_os_entity_digest(t, world, i, w->values, w->digest, &h,
                                  b->data + at + 4 * (size_t)n + (size_t)i * groups);
        onescope_os_put_u32(b->data + at + 4 * (size_t)i, h);
    }
    return ONESCOPE_OK;
}

/* The keyframe of a world (the module's own pointer) into w->key: length, the snapshot (none
 * without the slot), the entity count, the ids, every entity's values. */
static onescope_code build_keyframe(onescope_recording_writer *w, const void *world,
                                    onescope_error *error) {
    const onescope_module *t = &w->module;
    onescope_buffer snap = {NULL, 0, NULL};
    if (t->snapshot != NULL) {
        onescope_code rc = onescope_os_module_snapshot(t, world, w->allocator, &snap, error);
        if (rc != ONESCOPE_OK) {
            if (error != NULL) snprintf(error->input, sizeof error->input, "%s", w->path);
            return rc;
        }
    }
    uint32_t n = t->entity_count(t->context, world), nv = t->value_count;
    uint64_t len = 8u + (uint64_t)snap.size + (uint64_t)n * (8u + 8u * (uint64_t)nv);
    if (n > ONESCOPE_RECORDING_MAX_ENTITIES || len > ONESCOPE_MAX_INPUT_BYTES) {
        onescope_buffer_free(&snap);
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, w->path, OS_NO_OFFSET, "keyframe",
                                "at most 1048576 entities and 256 MiB",
                                "%" PRIu32 " entities in %" PRIu64 " bytes", n, len);
    }
    onescope_os_writer *b = &w->key;
    b->size = 0;
    onescope_os_write_u32(b, (uint32_t)len);
    onescope_os_write_u32(b, (uint32_t)snap.size);
    onescope_os_write_bytes(b, snap.data, snap.size);
    onescope_buffer_free(&snap);
    onescope_os_write_u32(b, n);
    for (uint32_t i = 0; i < n; i++) onescope_os_write_u64(b, t->entity_id(t->context, world, i));
    for (uint32_t i = 0; i < n && nv != 0; i++) {
        t->entity_values(t->context, world, i, w->values);
        for (uint32_t v = 0; v < nv; v++) {
            uint64_t bits;
            memcpy(&bits, &w->values[v], sizeof bits);
            onescope_os_write_u64(b, bits);
        }
    }
    return b->failed ? nomem(error, w->path) : ONESCOPE_OK;
}

/* The keyframe head: K, V and the module's value names (onescope_module_check's bounds: at
 * most ONESCOPE_MODULE_MAX_VALUES names of 1..64 printable bytes, what the head holds). */
static onescope_code feed_key_head(onescope_recording_writer *w, onescope_error *error) {
    onescope_os_writer *b = &w->key;
    b->size = 0;
    onescope_os_write_u32(b, w->key_every);
    onescope_os_write_u16(b, (uint16_t)w->module.value_count);
    for (uint32_t v = 0; v < w->module.value_count; v++) {
        const char *nm = w->module.values[v].name;
        size_t n = strlen(nm);
        onescope_os_write_u8(b, (uint8_t)n);
        onescope_os_write_bytes(b, nm, n);
    }
    if (b->failed) return nomem(error, w->path);
    return feed(w, b->data, b->size, error);
}

static char *copy_string(const onescope_allocator *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = onescope_os_alloc(a, n);
    if (p != NULL) memcpy(p, s, n);
    return p;
}

onescope_code onescope_recording_writer_open(const char *path, const onescope_recording_def *def,
                                             const onescope_replay_writer_options *options,
                                             const onescope_allocator *a,
                                             onescope_recording_writer **out,
                                             onescope_error *error) {
    const char *name = path != NULL ? path : "onescope_recording_writer_open";
    if (out != NULL) *out = NULL;
    if (path == NULL || path[0] == '\0' || strcmp(path, "-") == 0 || out == NULL || def == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "path (a file, not \"-\"), def and out must be given");
    if ((def->setup == NULL && def->setup_size != 0) ||
        (def->start_snapshot == NULL && def->snapshot_size != 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "def",
                                "bytes for every non-zero size", "NULL");
    OS_TRY(onescope_module_check(def->module, name, error));
    onescope_replay_writer_options defaults = onescope_replay_writer_options_default();
    if (options == NULL) options = &defaults;
    onescope_recording_writer *w = onescope_os_calloc(a, 1, sizeof *w);
    if (w == NULL) return nomem(error, name);
    w->allocator = a;
    w->out.fd = -1;
    w->max_bytes = def->max_bytes != 0 ? def->max_bytes : ONESCOPE_RECORDING_DEFAULT_MAX_BYTES;
    memset(&w->module, 0, sizeof w->module);
    memcpy(&w->module, def->module,
           def->module->struct_size < sizeof w->module ? def->module->struct_size
                                                       : sizeof w->module);
    w->out.cap = options->buffer_bytes != 0 ? options->buffer_bytes : DEFAULT_BUFFER;
    w->out.buf = onescope_os_alloc(a, w->out.cap);
    w->setup = onescope_os_alloc(a, def->setup_size ? def->setup_size : 1);
    w->path = copy_string(a, path);
    if (w->out.buf == NULL || w->setup == NULL || w->path == NULL) {
        release(w);
        return nomem(error, name);
    }
    if (def->setup_size) memcpy(w->setup, def->setup, def->setup_size);
    w->setup_size = def->setup_size;
    onescope_os_writer_init(&w->row, a);
    if (def->entity_rows) {
        if (w->module.entity_count == NULL) {
            release(w);
            return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, name, OS_NO_OFFSET,
                                    "entity_rows", "a module with entities",
                                    "module '%s' has no entity_count", def->module->id);
        }
        w->entity_rows = true;
    }
    onescope_os_writer_init(&w->key, a);
    if (def->keyframe_every != 0) {
        /* the value count and names a keyframe head holds are the table check's bounds */
        if (w->module.entity_count == NULL || def->keyframe_every > ONESCOPE_RECORDING_MAX_STEPS) {
            onescope_code rc =
                onescope_os_fail(/* said before w is gone: it names its table */
                                 error, ONESCOPE_E_UNSUPPORTED, name, OS_NO_OFFSET,
                                 "keyframe_every",
                                 "at most 16777216 steps, and a module with entities",
                                 "every %" PRIu32 " steps, module '%s' with %s",
                                 def->keyframe_every, def->module->id,
                                 w->module.entity_count ? "entities" : "no entity_count");
            release(w);
            return rc;
        }
        w->key_every = def->keyframe_every;
    }
    if ((w->entity_rows || w->key_every) && def->engine_mode && def->start_world == NULL) {
        release(w);
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "start_world",
                                "the engine's world for row 0's entity row", "NULL");
    }
    if (w->entity_rows || w->key_every) {
        uint32_t nd = onescope_os_digest_doubles(&w->module);
        w->values = onescope_os_calloc(a, nd, sizeof *w->values);
        w->digest = onescope_os_alloc(a, 16 * (size_t)nd + 32);
        if (w->values == NULL || w->digest == NULL) {
            release(w);
            return nomem(error, name);
        }
    }
    onescope_os_flush_rule_init(&w->out.flush, options->flush_every, options->flush_every_ms,
                                options->flush_fsync);
    /* The module's rules first: a setup it refuses never starts a file. */
    onescope_code rc = ONESCOPE_OK;
    if (w->module.check_setup != NULL) {
        onescope_error_clear(error);
        rc = w->module.check_setup(w->module.context, w->setup, w->setup_size, error);
        if (rc != ONESCOPE_OK && error != NULL) {
            snprintf(error->input, sizeof error->input, "%s", name);
            if (error->code == ONESCOPE_OK) error->code = rc;
        }
    }
    uint64_t row0 = def->start_hash;
    if (rc == ONESCOPE_OK && !def->engine_mode) {
        onescope_os_run_start s;
        memset(&s, 0, sizeof s);
        s.module = def->module;
        s.setup = w->setup;
        s.setup_size = w->setup_size;
        s.snapshot = def->start_snapshot;
        s.snapshot_size = def->snapshot_size;
        rc = onescope_os_run_start_world(&s, a, &w->world, error);
        if (rc == ONESCOPE_OK) row0 = onescope_world_hash(w->world);
    }
    uint16_t flags = ONESCOPE_RECORDING_FLAG_HASH_ROWS;
    if (def->start_snapshot != NULL) flags |= ONESCOPE_RECORDING_FLAG_START_SNAPSHOT;
    if (w->entity_rows) flags |= ONESCOPE_RECORDING_FLAG_ENTITY_ROWS;
    if (w->key_every) flags |= ONESCOPE_RECORDING_FLAG_KEYFRAMES;
    if (rc == ONESCOPE_OK && w->entity_rows)
        rc = build_entity_row(
            w, def->engine_mode ? def->start_world : onescope_os_world_state(w->world), error);
    onescope_buffer head = {NULL, 0, NULL};
    if (rc == ONESCOPE_OK) rc = onescope_os_rec_encode_head(def, flags, a, &head, name, error);
    if (rc == ONESCOPE_OK) { /* the head, row 0, its entity row and the keyframe head */
        uint64_t first = (uint64_t)head.size + 8u + w->row.size;
        if (w->key_every) {
            first += 6u;
            for (uint32_t v = 0; v < w->module.value_count; v++)
                first += 1u + strlen(w->module.values[v].name);
        }
        if (first > w->max_bytes)
            rc = onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "head",
                                  "a head within the writer's max_bytes",
                                  "%" PRIu64 " bytes (max_bytes %" PRIu64 ")", first, w->max_bytes);
    }
    if (rc == ONESCOPE_OK) rc = onescope_os_recording_target(path, a, &w->target, error);
    if (rc == ONESCOPE_OK) {
        w->partial = onescope_os_partial_name(w->target.path, a);
        if (w->partial == NULL) rc = nomem(error, name);
    }
    if (rc == ONESCOPE_OK) {
        w->out.fd = onescope_os_file_create_new(w->partial, name, error);
        if (w->out.fd < 0) rc = ONESCOPE_E_IO;
    }
    if (rc == ONESCOPE_OK) rc = onescope_os_target_adopt(&w->target, w->out.fd, name, error);
    /* The head and row 0 go out at once: from here on the partial is recoverable. */
    if (rc == ONESCOPE_OK) rc = feed(w, head.data, head.size, error);
    if (rc == ONESCOPE_OK) rc = feed_u64(w, row0, error);
    if (rc == ONESCOPE_OK && w->entity_rows) rc = feed(w, w->row.data, w->row.size, error);
    if (rc == ONESCOPE_OK && w->key_every) rc = feed_key_head(w, error);
    if (rc == ONESCOPE_OK) rc = onescope_os_out_drain(&w->out, w->path, error);
    onescope_buffer_free(&head);
    if (rc != ONESCOPE_OK) {
        if (w->out.fd >= 0) {
            onescope_os_file_close_fd(w->out.fd, name, NULL);
            onescope_os_file_remove(w->partial);
        }
        release(w);
        return rc;
    }
    *out = w;
    return ONESCOPE_OK;
}

static onescope_code refuse_state(const onescope_recording_writer *w, const char *call,
                                  onescope_error *error) {
    return onescope_os_out_refuse(&w->out, w->path, call, "step", error);
}

onescope_code onescope_recording_writer_append(onescope_recording_writer *w, const void *input,
                                               size_t size, const uint64_t *hash,
                                               onescope_error *error) {
    return onescope_recording_writer_append_world(w, input, size, hash, NULL, error);
}

onescope_code onescope_recording_writer_append_world(onescope_recording_writer *w,
                                                     const void *input, size_t size,
                                                     const uint64_t *hash, const void *world,
                                                     onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_recording_writer_append",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state != ONESCOPE_OS_OUT_OPEN) return refuse_state(w, "append", error);
    if (input == NULL && size != 0)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_ARGUMENT, w->path, OS_NO_OFFSET, "input",
                                         "bytes", "NULL"));
    bool engine = w->world == NULL;
    if (engine != (hash != NULL))
        return latch(w, onescope_os_fail(error, ONESCOPE_E_ARGUMENT, w->path, OS_NO_OFFSET, "hash",
                                         engine ? "the engine's hash (engine mode)"
                                                : "NULL (tool mode: the world computes it)",
                                         "%s", engine ? "NULL" : "a hash"));
    bool lent = engine && (w->entity_rows || w->key_every);
    if (lent != (world != NULL))
        return latch(w,
                     onescope_os_fail(error, ONESCOPE_E_ARGUMENT, w->path, OS_NO_OFFSET, "world",
                                      lent ? "the engine's world (entity rows or keyframes in "
                                             "engine mode: onescope_recording_writer_append_world)"
                                           : "NULL (a world is lent only in engine mode with "
                                             "entity rows or keyframes)",
                                      "%s", lent ? "NULL" : "a world"));
    if (w->steps == ONESCOPE_RECORDING_MAX_STEPS || size > UINT32_MAX ||
        w->out.size > w->max_bytes || size + 12 > w->max_bytes - w->out.size)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, w->path, OS_NO_OFFSET, "step",
                                         "at most 16777216 steps and the writer's max_bytes",
                                         "step %" PRIu32 " of %zu bytes after %" PRIu64
                                         " bytes (max_bytes %" PRIu64 ")",
                                         w->steps, size, w->out.size, w->max_bytes));
    if (w->module.check_input != NULL) {
        /* the module's rules first; its offset inside the input made the file's, as verify
         * reports the same input in a file written without the check (after its 4-byte size) */
        onescope_error_clear(error);
        onescope_code rc =
            w->module.check_input(w->module.context, w->setup, w->setup_size, input, size, error);
        if (rc != ONESCOPE_OK) {
            char what[48];
            snprintf(what, sizeof what, "step %" PRIu32 " input", w->steps);
            return latch(w, onescope_os_module_blob_error(rc, error, w->path, w->module.id,
                                                          w->out.size + 4, size, what));
        }
    }
    uint64_t row;
    if (engine) {
        row = *hash;
    } else {
        onescope_code rc = onescope_world_step(w->world, input, size, error);
        if (rc != ONESCOPE_OK) { /* at the offset the input would have had, as verify says it */
            onescope_os_run_at_step(error, w->path, w->module.id, w->steps, w->out.size + 4, size);
            return latch(w, rc);
        }
        row = onescope_world_hash(w->world);
    }
    const void *state = engine ? world : onescope_os_world_state(w->world);
    w->row.size = 0;
    w->key.size = 0;
    if (w->entity_rows) OS_TRY(latch(w, build_entity_row(w, state, error)));
    if (w->key_every && (w->steps + 1) % w->key_every == 0)
        OS_TRY(latch(w, build_keyframe(w, state, error)));
    if (w->row.size + w->key.size > w->max_bytes - w->out.size - size - 12)
        return latch(w, onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, w->path, OS_NO_OFFSET, "step",
                                         "at most the writer's max_bytes",
                                         "step %" PRIu32 "'s rows and keyframe of %zu bytes "
                                         "after %" PRIu64 " bytes (max_bytes %" PRIu64 ")",
                                         w->steps, w->row.size + w->key.size, w->out.size,
                                         w->max_bytes));
    uint8_t len[4];
    onescope_os_put_u32(len, (uint32_t)size);
    OS_TRY(latch(w, feed(w, len, 4, error)));
    if (size) OS_TRY(latch(w, feed(w, input, size, error)));
    OS_TRY(latch(w, feed_u64(w, row, error)));
    if (w->row.size) OS_TRY(latch(w, feed(w, w->row.data, w->row.size, error)));
    if (w->key.size) OS_TRY(latch(w, feed(w, w->key.data, w->key.size, error)));
    w->steps++;
    return onescope_os_out_appended(&w->out, w->path, error);
}

onescope_code onescope_recording_writer_flush(onescope_recording_writer *w, onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_recording_writer_flush",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state != ONESCOPE_OS_OUT_OPEN) return refuse_state(w, "flush", error);
    return latch(w, onescope_os_out_flush(&w->out, w->path, error));
}

uint64_t onescope_recording_writer_steps(const onescope_recording_writer *w) {
    return w != NULL ? w->steps : 0;
}

onescope_code onescope_recording_writer_close(onescope_recording_writer *w, uint64_t *steps,
                                              onescope_error *error) {
    if (steps != NULL) *steps = 0;
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_recording_writer_close",
                                OS_NO_OFFSET, NULL, NULL, "writer must not be NULL");
    if (w->out.state == ONESCOPE_OS_OUT_CLOSED) return refuse_state(w, "close", error);
    if (w->out.state == ONESCOPE_OS_OUT_LATCHED)
        return onescope_os_out_close_failed(&w->out, w->path, w->partial, "step", error);
    w->out.state = ONESCOPE_OS_OUT_CLOSED;
    uint8_t count[4];
    onescope_os_put_u32(count, w->steps);
    onescope_code rc =
        onescope_os_out_land(&w->out, 8, count, 4, w->partial, w->target.path, w->path, error);
    if (rc != ONESCOPE_OK) {
        w->out.bytes_lost = true; /* the target is untouched; the partial keeps the steps */
        return rc;
    }
    w->out.committed = true;
    if (steps != NULL) *steps = w->steps;
    return ONESCOPE_OK;
}

void onescope_recording_writer_free(onescope_recording_writer *w) {
    if (w == NULL) return;
    onescope_os_out_leave(&w->out, w->path);
    release(w);
}

void onescope_recording_writer_discard(onescope_recording_writer *w) {
    if (w == NULL) return;
    onescope_os_out_abandon(&w->out, w->path, w->partial);
    release(w);
}

onescope_code onescope_recording_recover(const char *partial, const char *out_path,
                                         const onescope_allocator *a, uint64_t *steps_kept,
                                         uint64_t *dropped_bytes, onescope_error *error) {
    if (steps_kept != NULL) *steps_kept = 0;
    if (dropped_bytes != NULL) *dropped_bytes = 0;
    char *derived;
    OS_TRY(onescope_os_recover_names(partial, out_path, "onescope_recording_recover", a, &out_path,
                                     &derived, error));
    uint64_t size;
    int fd = onescope_os_recover_open(partial, &size, error);
    onescope_os_rec_partial info;
    onescope_os_rec_partial_scanner scanner;
    onescope_code rc = ONESCOPE_E_IO;
    if (fd >= 0) {
        onescope_os_rec_partial_begin(&scanner, size, partial);
        rc = onescope_os_recover_scan(fd, partial, size, onescope_os_rec_partial_feed, &scanner, a,
                                      error);
        if (rc == ONESCOPE_OK) rc = onescope_os_rec_partial_end(&scanner, &info, error);
    }
    if (rc == ONESCOPE_OK) {
        /* The partial on disk is never written: the count goes into the copy. */
        uint8_t count[4];
        onescope_os_put_u32(count, info.steps);
        rc = onescope_os_recover_copy(fd, partial, info.kept_bytes, 8, count, 4, info.kept_bytes, 1,
                                      NULL, NULL, out_path, a, error);
    }
    if (rc == ONESCOPE_OK) {
        if (steps_kept != NULL) *steps_kept = info.steps;
        if (dropped_bytes != NULL) *dropped_bytes = info.dropped_bytes;
    }
    if (fd >= 0) onescope_os_file_close_fd(fd, partial, NULL);
    onescope_os_free(a, derived);
    return rc;
}

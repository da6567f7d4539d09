/* A module recording against a module: the module it names (id and version), the module's
 * checks of its blobs at their file offsets, the run that lends its world to a callback, and
 * the verify run (src/module_run.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "recording_internal.h"
#include "run_internal.h"

onescope_code onescope_os_recording_check_head(const onescope_module *module, const char *id,
                                               const char *version, const uint8_t *setup,
                                               size_t setup_size, uint64_t setup_at,
                                               const char *name, onescope_error *error) {
    OS_TRY(onescope_module_check(module, name, error));
    OS_TRY(onescope_os_module_match(module, id, version, name, 12, "the module that made the file",
                                    error));
    if (module->check_setup == NULL) return ONESCOPE_OK;
    onescope_error_clear(error);
    onescope_code rc = module->check_setup(module->context, setup, setup_size, error);
    return rc == ONESCOPE_OK ? rc
                             : onescope_os_module_blob_error(rc, error, name, module->id, setup_at,
                                                             setup_size, "setup");
}

onescope_code onescope_os_recording_check_input(const onescope_module *module, const uint8_t *setup,
                                                size_t setup_size, const uint8_t *input,
                                                size_t size, uint32_t index, uint64_t at,
                                                const char *name, onescope_error *error) {
    if (module->check_input == NULL) return ONESCOPE_OK;
    onescope_error_clear(error);
    onescope_code rc = module->check_input(module->context, setup, setup_size, input, size, error);
    if (rc == ONESCOPE_OK) return rc;
    char what[48];
    snprintf(what, sizeof what, "step %" PRIu32 " input", index);
    return onescope_os_module_blob_error(rc, error, name, module->id, at, size, what);
}

/* The module value named by n bytes at p, or -1. */
static int32_t value_named(const onescope_module *m, const uint8_t *p, size_t n) {
    for (uint32_t v = 0; v < m->value_count; v++)
        if (strlen(m->values[v].name) == n && memcmp(m->values[v].name, p, n) == 0)
            return (int32_t)v;
    return -1;
}

onescope_code onescope_os_recording_check_names(const onescope_module *module, const uint8_t *head,
                                                const onescope_os_rec_head *h, const char *name,
                                                onescope_error *error) {
    size_t at = 6;
    for (uint32_t v = 0; v < h->key_values; v++) {
        size_t n = head[at];
        if (value_named(module, head + at + 1, n) < 0) {
            char text[65];
            memcpy(text, head + at + 1, n);
            text[n] = '\0';
            return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, h->keys_head_at + at,
                                    "keyframe values", "a value of the module",
                                    "'%s', which module %s has not", text, module->id);
        }
        at += 1 + n;
    }
    return ONESCOPE_OK;
}

onescope_code onescope_recording_check(const onescope_recording *r, const onescope_module *module,
                                       const char *name, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "recording",
                                "non-NULL", NULL);
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    OS_TRY(onescope_os_recording_check_head(module, h->module_id, h->module_version, setup,
                                            setup_size, h->setup_at, name, error));
    if (h->flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES)
        OS_TRY(onescope_os_recording_check_names(module, onescope_os_rec_bytes(r) + h->keys_head_at,
                                                 h, name, error));
    if (module->check_input == NULL) return ONESCOPE_OK;
    for (uint32_t i = 0; i < h->step_count; i++) {
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n);
        OS_TRY(onescope_os_recording_check_input(module, setup, setup_size, p, n, i,
                                                 onescope_os_rec_input_at(r, i), name, error));
    }
    return ONESCOPE_OK;
}

static onescope_code rec_row(void *user, uint32_t index, uint64_t *expected,
                             onescope_error *error) {
    (void)error;
    *expected = onescope_recording_hash_row(user, index);
    return ONESCOPE_OK;
}

static onescope_code rec_input(void *user, uint32_t index, const uint8_t **data, size_t *size,
                               uint64_t *at, onescope_error *error) {
    (void)error;
    OS_TRY(onescope_recording_step_input(user, index, data, size));
    *at = onescope_os_rec_input_at(user, index);
    return ONESCOPE_OK;
}

/* A parsed recording's keyframes for the verify loop: the map from its names once. */
typedef struct rec_keys {
    const onescope_recording *r;
    const onescope_allocator *a;
    const char *name;
    int32_t map[ONESCOPE_RECORDING_MAX_KEY_VALUES];
} rec_keys;

static onescope_code rec_keyframe(void *user, uint32_t index, const onescope_world *w,
                                  onescope_verify_result *result, onescope_error *error) {
    rec_keys *k = user;
    uint32_t every = onescope_recording_keyframe_every(k->r);
    onescope_keyframe key;
    if (every == 0 || index == 0 || index % every != 0 ||
        onescope_recording_keyframe(k->r, index / every - 1, &key) != ONESCOPE_OK)
        return ONESCOPE_OK;
    const uint8_t *start = key.snapshot != NULL ? key.snapshot - 8 : key.ids - 12;
    uint64_t at = (uint64_t)(start - onescope_os_rec_bytes(k->r)); /* its length field */
    return onescope_os_verify_table(&key, k->map, at, w, k->a, result, k->name, error);
}

static onescope_code rec_row_k(void *user, uint32_t index, uint64_t *expected,
                               onescope_error *error) {
    return rec_row((void *)(uintptr_t)((rec_keys *)user)->r, index, expected, error);
}

static onescope_code rec_input_k(void *user, uint32_t index, const uint8_t **data, size_t *size,
                                 uint64_t *at, onescope_error *error) {
    return rec_input((void *)(uintptr_t)((rec_keys *)user)->r, index, data, size, at, error);
}

onescope_os_run_start onescope_os_recording_start(const onescope_recording *r,
                                                  const onescope_module *module) {
    onescope_os_run_start s;
    memset(&s, 0, sizeof s);
    s.module = module;
    s.setup = onescope_recording_setup(r, &s.setup_size);
    s.snapshot = onescope_recording_start_snapshot(r, &s.snapshot_size);
    s.step_count = onescope_recording_step_count(r);
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    s.at_known = true;
    s.setup_at = h->setup_at;
    s.snapshot_at = h->snapshot_at;
    return s;
}

onescope_code onescope_recording_verify(const onescope_recording *r, const onescope_module *module,
                                        const onescope_allocator *a, onescope_verify_result *result,
                                        const char *name, onescope_error *error) {
    if (result != NULL) memset(result, 0, sizeof *result);
    if (name == NULL) name = "<ostm>";
    OS_TRY(onescope_recording_check(r, module, name, error));
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    if (!(h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS)) {
        if (result != NULL) result->verdict = ONESCOPE_VERDICT_NO_HASH_ROWS;
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 0 set (hash rows to verify)", "0x%04x", (unsigned)h->flags);
    }
    onescope_os_run_start s = onescope_os_recording_start(r, module);
    rec_keys *keys = onescope_os_calloc(a, 1, sizeof *keys);
    if (keys == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "keyframes", NULL,
                                "could not allocate their map");
    keys->r = r, keys->a = a, keys->name = name;
    if (h->flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES)
        onescope_os_table_map(module, onescope_os_rec_bytes(r) + h->keys_head_at, h->key_values,
                              keys->map);
    onescope_os_replay_source source = {rec_row_k, rec_input_k, keys, rec_keyframe};
    onescope_code rc = onescope_os_run_verify(&s, &source, a, result, name, error);
    onescope_os_free(a, keys);
    return rc;
}

onescope_code onescope_recording_run(const onescope_recording *r, const onescope_module *module,
                                     const onescope_allocator *a,
                                     onescope_recording_callback callback, void *user,
                                     const char *name, onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    OS_TRY(onescope_recording_check(r, module, name, error));
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    onescope_os_run_start s = onescope_os_recording_start(r, module);
    onescope_world *w;
    onescope_code rc = onescope_os_run_start_world(&s, a, &w, error);
    if (rc != ONESCOPE_OK) {
        onescope_os_run_start_failed(&s, error, name, 0);
        return rc;
    }
    bool rows = (h->flags & ONESCOPE_RECORDING_FLAG_HASH_ROWS) != 0;
    for (uint32_t i = 0;; i++) {
        onescope_recording_row row = {i, rows, rows ? onescope_recording_hash_row(r, i) : 0, w};
        if (callback != NULL && callback(user, &row)) break;
        if (i == s.step_count) break;
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n); /* i < step_count: always there */
        rc = onescope_world_step(w, p, n, error);
        if (rc != ONESCOPE_OK) {
            onescope_os_run_at_step(error, name, module->id, i, onescope_os_rec_input_at(r, i), n);
            break;
        }
    }
    onescope_world_free(w);
    return rc;
}

/* ---- which entities differ at a row (entity rows) ---- */

typedef struct id_at {
    uint64_t id;
    uint32_t index;
} id_at;

static int by_id_only(const void *x, const void *y) {
    const id_at *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

static int by_id(const void *x, const void *y) {
    const id_at *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id ? 1 : (a->index > b->index) - (a->index < b->index);
}

static onescope_code compare_rows(const onescope_entity_row *rec, const onescope_world *w,
                                  const onescope_allocator *al, uint32_t room,
                                  onescope_recording_explanation *x, const char *name,
                                  onescope_error *error);

/* One difference into the list (and the count, whole). */
static void note(onescope_recording_explanation *x, uint32_t room, uint64_t id, bool recorded,
                 bool found, uint32_t rh, uint32_t fh, uint64_t groups) {
    if (x->differing++ >= room) return;
    onescope_entity_difference *d = &x->entities[x->listed++];
    d->id = id;
    d->recorded = recorded;
    d->found = found;
    d->recorded_hash = rh;
    d->found_hash = fh;
    d->groups = groups;
}

static uint64_t group_bits(const uint8_t *a, const uint8_t *b, uint32_t n) {
    uint64_t bits = 0;
    for (uint32_t g = 0; g < n && g < 64; g++)
        if (a[g] != b[g]) bits |= UINT64_C(1) << g;
    return bits;
}

/* Compares the world's entities with the recorded row: matched by id (both sides sorted by id,
 * each side's order kept for ties), recorded ones first in the list, then the world's own. */
static onescope_code compare_rows(const onescope_entity_row *rec, const onescope_world *w,
                                  const onescope_allocator *al, uint32_t room,
                                  onescope_recording_explanation *x, const char *name,
                                  onescope_error *error) {
    const onescope_module *m = onescope_world_module(w);
    uint32_t nf = onescope_world_entity_count(w), groups = m->value_count ? m->group_count : 0;
    x->entities_recorded = rec->count;
    x->entities_found = nf;
    id_at *ra = onescope_os_calloc(al, (size_t)rec->count + 1, sizeof *ra);
    id_at *fa = onescope_os_calloc(al, (size_t)nf + 1, sizeof *fa);
    uint32_t *fh = onescope_os_calloc(al, (size_t)nf + 1, sizeof *fh);
    uint8_t *fg = onescope_os_calloc(al, (size_t)nf * groups + 1, 1);
    onescope_code rc = ONESCOPE_OK;
    if (ra == NULL || fa == NULL || fh == NULL || fg == NULL)
        rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "entities", NULL,
                              "could not allocate room for %" PRIu32 " and %" PRIu32 " entities",
                              rec->count, nf);
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < nf; i++) {
        fa[i] = (id_at){onescope_world_entity_id(w, i), i};
        rc = onescope_world_entity_digest(w, i, &fh[i], fg + (size_t)i * groups, groups, error);
    }
    if (rc == ONESCOPE_OK) {
        for (uint32_t i = 0; i < rec->count; i++)
            ra[i] = (id_at){onescope_os_get_u64(rec->ids + 8 * (size_t)i), i};
        qsort(ra, rec->count, sizeof *ra, by_id);
        qsort(fa, nf, sizeof *fa, by_id);
        uint32_t i = 0, j = 0;
        while (i < rec->count || j < nf) {
            if (j == nf || (i < rec->count && ra[i].id < fa[j].id)) {
                uint32_t k = ra[i++].index;
                note(x, room, onescope_os_get_u64(rec->ids + 8 * (size_t)k), true, false,
                     onescope_os_get_u32(rec->hashes + 4 * (size_t)k), 0, 0);
            } else if (i == rec->count || fa[j].id < ra[i].id) {
                uint32_t k = fa[j++].index;
                note(x, room, fa[j - 1].id, false, true, 0, fh[k], 0);
            } else {
                uint32_t a = ra[i++].index, b = fa[j++].index;
                uint32_t h = onescope_os_get_u32(rec->hashes + 4 * (size_t)a);
                const uint8_t *g = rec->groups + (size_t)a * rec->group_count;
                bool same_groups = rec->group_count == groups;
                if (h != fh[b] || (same_groups && memcmp(g, fg + (size_t)b * groups, groups) != 0))
                    note(x, room, fa[j - 1].id, true, true, h, fh[b],
                         same_groups ? group_bits(g, fg + (size_t)b * groups, groups) : 0);
            }
        }
    }
    onescope_os_free(al, ra);
    onescope_os_free(al, fa);
    onescope_os_free(al, fh);
    onescope_os_free(al, fg);
    return rc;
}

void onescope_os_table_map(const onescope_module *m, const uint8_t *head, uint32_t nv,
                           int32_t *map) {
    size_t at = 6;
    for (uint32_t v = 0; v < nv; v++) {
        map[v] = value_named(m, head + at + 1, head[at]);
        at += 1 + (size_t)head[at];
    }
}

onescope_code onescope_os_table_compare(const onescope_keyframe *k, const int32_t *map,
                                        const onescope_world *w, const onescope_allocator *al,
                                        onescope_os_value_seen *seen, void *user,
                                        uint32_t *compared, uint32_t *differing, const char *name,
                                        onescope_error *error) {
    const onescope_module *m = onescope_world_module(w);
    uint32_t nf = onescope_world_entity_count(w), nv = k->value_count, ne = k->entity_count;
    id_at *fa = onescope_os_calloc(al, (size_t)nf + 1, sizeof *fa);
    id_at *ta = onescope_os_calloc(al, (size_t)ne + 1, sizeof *ta);
    double *found = onescope_os_calloc(al, (size_t)m->value_count + 1, sizeof *found);
    onescope_code rc = ONESCOPE_OK;
    *compared = *differing = 0;
    if (fa == NULL || ta == NULL || found == NULL)
        rc = onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "values", NULL,
                              "could not allocate room for %" PRIu32 " entities", nf);
    if (rc == ONESCOPE_OK) {
        for (uint32_t i = 0; i < nf; i++) fa[i] = (id_at){onescope_world_entity_id(w, i), i};
        for (uint32_t e = 0; e < ne; e++)
            ta[e] = (id_at){onescope_os_get_u64(k->ids + 8 * (size_t)e), e};
        qsort(fa, nf, sizeof *fa, by_id);
        qsort(ta, ne, sizeof *ta, by_id);
    }
    for (uint32_t e = 0; rc == ONESCOPE_OK && e < ne; e++) {
        id_at key = {onescope_os_get_u64(k->ids + 8 * (size_t)e), 0};
        const id_at *hit = bsearch(&key, fa, nf, sizeof *fa, by_id_only);
        if (hit != NULL && m->value_count != 0) /* without named values: the ids alone */
            rc = onescope_world_entity_values(w, hit->index, found, m->value_count, error);
        if (rc != ONESCOPE_OK) break;
        if (hit == NULL) { /* the whole entity: one difference */
            *compared += nv;
            (*differing)++;
            onescope_value_difference d = {key.id, UINT32_MAX, false, 0, 0, true};
            if (seen != NULL) seen(user, &d);
            continue;
        }
        for (uint32_t v = 0; v < nv; v++) {
            double rec = onescope_recording_keyframe_value(k, e, v), got = found[map[v]];
            (*compared)++;
            if (memcmp(&rec, &got, sizeof rec) == 0) continue;
            (*differing)++;
            onescope_value_difference d = {key.id, v, true, rec, got, true};
            if (seen != NULL) seen(user, &d);
        }
    }
    for (uint32_t i = 0; rc == ONESCOPE_OK && i < nf; i++) { /* the world's, the table lacks */
        id_at key = {onescope_world_entity_id(w, i), 0};
        if (bsearch(&key, ta, ne, sizeof *ta, by_id_only) != NULL) continue;
        (*differing)++;
        onescope_value_difference d = {key.id, UINT32_MAX, true, 0, 0, false};
        if (seen != NULL) seen(user, &d);
    }
    onescope_os_free(al, fa);
    onescope_os_free(al, ta);
    onescope_os_free(al, found);
    return rc;
}

/* A value as its type prints it (a float as the shortest float), or a word. */
static void number_or(char *out, bool number, const onescope_value_info *vi, double v,
                      const char *word) {
    if (!number)
        snprintf(out, OS_NUMBER_MAX + 16, "%s", word);
    else if (vi->type == ONESCOPE_VALUE_F32 && (double)(float)v == v)
        onescope_os_number_write_float(out, (float)v, 0);
    else
        onescope_os_number_write(out, v, 0);
}

/* verify's view of a table: the first difference, and the count */
static void first_seen(void *user, const onescope_value_difference *d) {
    onescope_verify_result *res = user;
    if (res->table_differing++ != 0) return;
    res->table_entity = d->id;
    res->table_value = d->value;
    res->table_in_file = d->in_file;
    res->table_in_world = d->found;
    res->table_recorded = d->recorded;
    res->table_found = d->found_value;
}

onescope_code onescope_os_verify_table(const onescope_keyframe *k, const int32_t *map, uint64_t at,
                                       const onescope_world *w, const onescope_allocator *al,
                                       onescope_verify_result *res, const char *name,
                                       onescope_error *error) {
    uint32_t compared, differing;
    res->table_differing = 0;
    OS_TRY(onescope_os_table_compare(k, map, w, al, first_seen, res, &compared, &differing, name,
                                     error));
    res->keyframes_checked++;
    if (differing == 0) return ONESCOPE_OK;
    res->verdict = ONESCOPE_VERDICT_TABLE_MISMATCH;
    const onescope_module *m = onescope_world_module(w);
    const onescope_value_info *vi =
        res->table_value == UINT32_MAX ? NULL : &m->values[map[res->table_value]];
    char field[160], want[OS_NUMBER_MAX + 16], got[OS_NUMBER_MAX + 16];
    snprintf(field, sizeof field, "keyframe table at row %" PRIu32 ", entity %" PRIu64 "%s%s",
             k->row, res->table_entity, vi != NULL ? " " : "", vi != NULL ? vi->name : "");
    number_or(want, vi != NULL && res->table_in_file, vi, res->table_recorded,
              res->table_in_file ? "the entity" : "no such entity");
    number_or(got, vi != NULL && res->table_in_world, vi, res->table_found,
              res->table_in_world ? "the entity" : "no such entity");
    return onescope_os_fail(error, ONESCOPE_E_MISMATCH, name, at, field, want,
                            "%s, with its hash row matched: the module's hash misses %s%s", got,
                            vi != NULL ? "this value" : "this entity",
                            differing > 1 ? " (and more differ)" : "");
}

void onescope_os_rec_keyframe_error(const onescope_recording *r, const onescope_keyframe *k,
                                    const char *name, onescope_error *error) {
    if (error->has_offset) error->offset += (uint64_t)(k->snapshot - onescope_os_rec_bytes(r));
    char field[sizeof error->field + 64];
    int n = snprintf(field, sizeof field, "keyframe at row %" PRIu32 "%s%s", k->row,
                     error->field[0] ? ": " : "", error->field);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len >= sizeof error->field) len = sizeof error->field - 1;
    memcpy(error->field, field, len);
    error->field[len] = '\0';
    snprintf(error->input, sizeof error->input, "%s", name);
}

/* ---- the explanation ---- */

/* One explanation run's lists: the first value of each entity the entity rows named, then
 * their other values, then the rest, so a named entity is never crowded out by another's. */
typedef struct explain_run {
    const onescope_recording *r;
    const onescope_allocator *al;
    uint32_t room;
    onescope_recording_explanation *x;
    onescope_value_difference *first, *named, *other; /* room each */
    uint32_t n_first, n_named, n_other;
    int32_t map[ONESCOPE_RECORDING_MAX_KEY_VALUES];
    const char *name;
} explain_run;

static bool is_named(const onescope_recording_explanation *x, uint64_t id) {
    for (uint32_t i = 0; i < x->listed; i++)
        if (x->entities[i].id == id) return true;
    return false;
}

static void value_seen(void *user, const onescope_value_difference *d) {
    explain_run *e = user;
    if (!is_named(e->x, d->id)) {
        if (e->n_other < e->room) e->other[e->n_other++] = *d;
        return;
    }
    bool seen = false;
    for (uint32_t i = 0; i < e->n_first && !seen; i++) seen = e->first[i].id == d->id;
    if (!seen && e->n_first < e->room)
        e->first[e->n_first++] = *d;
    else if (e->n_named < e->room)
        e->named[e->n_named++] = *d;
}

/* Keyframe k's table against the world into the explanation (named entities first). */
static onescope_code explain_table(explain_run *e, const onescope_keyframe *k,
                                   const onescope_world *w, onescope_error *error) {
    onescope_recording_explanation *x = e->x;
    e->n_first = e->n_named = e->n_other = 0;
    uint32_t compared, differing;
    OS_TRY(onescope_os_table_compare(k, e->map, w, e->al, value_seen, e, &compared, &differing,
                                     e->name, error));
    x->has_table = true;
    x->table_row = k->row;
    x->values_compared = compared;
    x->values_differing = differing;
    x->values_listed = 0;
    for (uint32_t i = 0; i < e->n_first && x->values_listed < e->room; i++)
        x->values[x->values_listed++] = e->first[i];
    for (uint32_t i = 0; i < e->n_named && x->values_listed < e->room; i++)
        x->values[x->values_listed++] = e->named[i];
    for (uint32_t i = 0; i < e->n_other && x->values_listed < e->room; i++)
        x->values[x->values_listed++] = e->other[i];
    return ONESCOPE_OK;
}

static void explain_reset(onescope_recording_explanation *x) {
    x->differing = x->listed = 0;
    x->entities_recorded = x->entities_found = 0;
    x->has_table = false;
    x->table_row = 0;
    x->values_compared = x->values_differing = x->values_listed = 0;
    x->has_hash = false;
    x->hash_recorded = x->hash_found = 0;
}

/* Runs w from start_row to row and on to the first keyframe at or after it: the entity rows
 * compared at row, the tables at every keyframe on the way until one differs (that one is
 * kept), else the last. */
static onescope_code explain_from(explain_run *e, const onescope_module *module, onescope_world *w,
                                  uint32_t start_row, uint32_t row, onescope_error *error) {
    const onescope_recording *r = e->r;
    onescope_recording_explanation *x = e->x;
    uint32_t every = onescope_recording_keyframe_every(r), last = row;
    onescope_keyframe k;
    /* keyframe j is at row (j + 1) K: the first at or after row (row 0: the first of all) */
    if (every != 0 && onescope_recording_keyframe(r, row == 0 ? 0 : (row + every - 1) / every - 1,
                                                  &k) == ONESCOPE_OK)
        last = k.row;
    bool table_parted = false;
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = start_row; rc == ONESCOPE_OK; i++) {
        onescope_entity_row rec;
        if (i == row) {
            x->has_hash = (onescope_recording_flags(r) & ONESCOPE_RECORDING_FLAG_HASH_ROWS) != 0;
            x->hash_recorded = onescope_recording_hash_row(r, i);
            x->hash_found = onescope_world_hash(w);
            if (onescope_recording_entity_row(r, i, &rec) == ONESCOPE_OK)
                rc = compare_rows(&rec, w, e->al, e->room, x, e->name, error);
        }
        if (rc == ONESCOPE_OK && every != 0 && i > start_row && i % every == 0 && !table_parted &&
            onescope_recording_keyframe(r, i / every - 1, &k) == ONESCOPE_OK) {
            rc = explain_table(e, &k, w, error);
            table_parted = x->values_differing != 0;
        }
        if (rc != ONESCOPE_OK || i == last) break;
        const uint8_t *p;
        size_t n;
        (void)onescope_recording_step_input(r, i, &p, &n); /* i < last <= step_count */
        rc = onescope_world_step(w, p, n, error);
        if (rc != ONESCOPE_OK)
            onescope_os_run_at_step(error, e->name, module->id, i, onescope_os_rec_input_at(r, i),
                                    n);
        x->steps_run++;
    }
    return rc;
}

/* Whether the world restored from keyframe k is the recorded world at its row: the hash row,
 * the entity row and the table. The first disagreement goes into x's keyframe_* fields. */
static onescope_code keyframe_proves(explain_run *e, const onescope_keyframe *k,
                                     const onescope_world *w, bool *proven, onescope_error *error) {
    const onescope_recording *r = e->r;
    onescope_recording_explanation *x = e->x;
    *proven = false;
    if (onescope_recording_flags(r) & ONESCOPE_RECORDING_FLAG_HASH_ROWS) {
        x->keyframe_hash_recorded = onescope_recording_hash_row(r, k->row);
        x->keyframe_hash_restored = onescope_world_hash(w);
        if (x->keyframe_hash_recorded != x->keyframe_hash_restored) {
            x->keyframe_hashes_differ = true;
            return ONESCOPE_OK;
        }
    }
    onescope_entity_row rec;
    if (onescope_recording_entity_row(r, k->row, &rec) == ONESCOPE_OK) {
        onescope_recording_explanation probe;
        onescope_entity_difference first;
        memset(&probe, 0, sizeof probe);
        probe.entities = &first;
        OS_TRY(compare_rows(&rec, w, e->al, 1, &probe, e->name, error));
        if (probe.differing != 0) {
            x->keyframe_has_entity = true;
            x->keyframe_entity = first;
            return ONESCOPE_OK;
        }
    }
    uint32_t compared, differing;
    e->n_first = e->n_named = e->n_other = 0;
    onescope_recording_explanation *keep = e->x;
    onescope_recording_explanation none; /* nothing is named while proving */
    memset(&none, 0, sizeof none);
    e->x = &none;
    onescope_code rc = onescope_os_table_compare(k, e->map, w, e->al, value_seen, e, &compared,
                                                 &differing, e->name, error);
    e->x = keep;
    OS_TRY(rc);
    if (differing != 0) {
        x->keyframe_has_value = true;
        x->keyframe_value = e->other[0];
        return ONESCOPE_OK;
    }
    *proven = true;
    return ONESCOPE_OK;
}

/* Did the run from the keyframe find this build's difference? Not when it reproduces the
 * recording at row: hash, entities and every table compared. */
static bool reproduces(const onescope_recording_explanation *x) {
    return (!x->has_hash || x->hash_recorded == x->hash_found) && x->differing == 0 &&
           x->values_differing == 0;
}

/* From the last keyframe before row, when it proves itself and explains something: true when
 * the explanation stands; false with x reset for a run from row 0. */
static onescope_code try_keyframe(explain_run *e, const onescope_module *module, uint32_t row,
                                  bool *done, onescope_error *error) {
    const onescope_recording *r = e->r;
    onescope_recording_explanation *x = e->x;
    uint32_t every = onescope_recording_keyframe_every(r);
    uint32_t before = row > 0 && every != 0 ? (row - 1) / every : 0; /* keyframes before row */
    *done = false;
    onescope_keyframe k;
    if (before == 0 || module->restore == NULL) return ONESCOPE_OK;
    (void)onescope_recording_keyframe(r, before - 1, &k); /* before <= the keyframe count */
    if (k.snapshot_size == 0) return ONESCOPE_OK;         /* a table only: nothing to restore */
    x->keyframe_row = k.row;
    size_t setup_size;
    const uint8_t *setup = onescope_recording_setup(r, &setup_size);
    onescope_world *w = NULL;
    onescope_error_clear(&x->restore_error);
    if (onescope_world_restore(module, setup, setup_size, k.snapshot, k.snapshot_size, e->al, &w,
                               &x->restore_error) != ONESCOPE_OK) {
        onescope_os_rec_keyframe_error(r, &k, e->name, &x->restore_error);
        x->keyframe_use = ONESCOPE_KEYFRAME_REFUSED;
        x->restore_failed = true;
        return ONESCOPE_OK;
    }
    bool proven;
    onescope_code rc = keyframe_proves(e, &k, w, &proven, error);
    if (rc == ONESCOPE_OK && !proven) x->keyframe_use = ONESCOPE_KEYFRAME_SNAPSHOT_INCOMPLETE;
    if (rc == ONESCOPE_OK && proven) rc = explain_from(e, module, w, k.row, row, error);
    onescope_world_free(w);
    if (rc != ONESCOPE_OK || !proven) return rc;
    if (reproduces(x)) {
        x->keyframe_use = ONESCOPE_KEYFRAME_NOT_REPRODUCED;
        explain_reset(x);
        return ONESCOPE_OK;
    }
    x->keyframe_use = ONESCOPE_KEYFRAME_USED;
    x->from_keyframe = true;
    x->start_row = k.row;
    *done = true;
    return ONESCOPE_OK;
}

static onescope_code explain(explain_run *e, const onescope_module *module, uint32_t row,
                             onescope_error *error) {
    bool done;
    OS_TRY(try_keyframe(e, module, row, &done, error));
    if (done) return ONESCOPE_OK;
    onescope_os_run_start s = onescope_os_recording_start(e->r, module);
    onescope_world *w = NULL;
    onescope_code rc = onescope_os_run_start_world(&s, e->al, &w, error);
    if (rc != ONESCOPE_OK) onescope_os_run_start_failed(&s, error, e->name, 0);
    if (rc == ONESCOPE_OK) rc = explain_from(e, module, w, 0, row, error);
    onescope_world_free(w);
    return rc;
}

onescope_code onescope_recording_explain(const onescope_recording *r, const onescope_module *module,
                                         uint32_t row, uint32_t max_listed,
                                         const onescope_allocator *al,
                                         onescope_recording_explanation **out, const char *name,
                                         onescope_error *error) {
    if (name == NULL) name = "<ostm>";
    if (out == NULL || r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "recording and out must be given");
    *out = NULL;
    uint16_t flags = onescope_recording_flags(r);
    if (!(flags & (ONESCOPE_RECORDING_FLAG_ENTITY_ROWS | ONESCOPE_RECORDING_FLAG_KEYFRAMES)))
        return onescope_os_fail(error, ONESCOPE_E_FLAGS, name, 6, "flags",
                                "bit 2 or 3 set (entity rows or keyframes to name the entities)",
                                "0x%04x", (unsigned)flags);
    if (row > onescope_recording_step_count(r))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "row",
                                "a row of the recording", "row %" PRIu32 " of %" PRIu32, row,
                                onescope_recording_step_count(r));
    OS_TRY(onescope_recording_check(r, module, name, error));
    explain_run *e = onescope_os_calloc(al, 1, sizeof *e);
    uint32_t room = max_listed ? max_listed : 16;
    onescope_recording_explanation *x = onescope_os_calloc(al, 1, sizeof *x);
    onescope_entity_difference *list = onescope_os_calloc(al, room, sizeof *list);
    onescope_value_difference *values = onescope_os_calloc(al, 4 * (size_t)room, sizeof *values);
    if (e == NULL || x == NULL || list == NULL || values == NULL) {
        onescope_os_free(al, e);
        onescope_os_free(al, x);
        onescope_os_free(al, list);
        onescope_os_free(al, values);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, "explanation", NULL,
                                "could not allocate it");
    }
    x->row = row;
    x->entities = list;
    x->values = values;
    x->allocator = al;
    *e = (explain_run){
        r, al, room, x,   values + room, values + 2 * (size_t)room, values + 3 * (size_t)room,
        0, 0,  0,    {0}, name};
    const onescope_os_rec_head *h = onescope_os_rec_head_of(r);
    if (flags & ONESCOPE_RECORDING_FLAG_KEYFRAMES)
        onescope_os_table_map(module, onescope_os_rec_bytes(r) + h->keys_head_at, h->key_values,
                              e->map);
    onescope_code rc = explain(e, module, row, error);
    onescope_os_free(al, e);
    if (rc != ONESCOPE_OK) {
        onescope_recording_explanation_free(x);
        return rc;
    }
    *out = x;
    return ONESCOPE_OK;
}

void onescope_recording_explanation_free(onescope_recording_explanation *x) {
    if (x == NULL) return;
    onescope_os_free(x->allocator, x->entities);
    onescope_os_free(x->allocator, x->values);
    onescope_os_free(x->allocator, x);
}

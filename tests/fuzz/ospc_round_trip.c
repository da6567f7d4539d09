/* Fuzz target: OSPC build -> write -> parse -> compare. A cache is built from the fuzz
 * bytes through the public building API; when it is valid, writing and parsing it must
 * give back the same cache, and writing that again the same bytes. When it is not valid,
 * validate and write must refuse it with the same code. */
#include <math.h>

#include "fuzz_helpers.h"

static void check_text_equal(const onescope_text *a, const onescope_text *b) {
    FUZZ_ASSERT(a->length == b->length);
    FUZZ_ASSERT(memcmp(a->data, b->data, a->length) == 0);
    FUZZ_ASSERT(b->data[b->length] == '\0');
}

static void check_equal(const onescope_pose_cache *a, const onescope_pose_cache *b) {
    FUZZ_ASSERT(a->dimensions == b->dimensions);
    FUZZ_ASSERT(a->entity_count == b->entity_count && a->frame_count == b->frame_count);
    FUZZ_ASSERT(a->start_step == b->start_step);
    FUZZ_ASSERT(memcmp(&a->metres_per_unit, &b->metres_per_unit, sizeof(double)) == 0);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) check_text_equal(&a->text[i], &b->text[i]);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const onescope_pose_entity *x = &a->entities[i], *y = &b->entities[i];
        FUZZ_ASSERT(x->id == y->id && x->shape == y->shape);
        FUZZ_ASSERT(memcmp(x->size, y->size, sizeof x->size) == 0);
        check_text_equal(&x->name, &y->name);
    }
    /* Bit for bit, so NaN payloads of absent entities survive too. */
    FUZZ_ASSERT(memcmp(a->poses, b->poses,
                       (size_t)a->entity_count * a->frame_count * sizeof(onescope_pose)) == 0);
}

/* A float that is usually ordinary but sometimes NaN, infinite or -0. */
static float pick_f32(fuzz_bytes *in) {
    uint8_t sel = fuzz_u8(in);
    switch (sel & 7) {
        case 0: return fuzz_f32(in); /* any bits */
        case 1: return sel & 8 ? NAN : -0.0f;
        default: return (float)(int8_t)fuzz_u8(in) / 4.0f; /* small, finite */
    }
}

/* text >= 0: that text field; -1: the name of entity `entity` (field points at it). */
static onescope_code set_text(fuzz_env *env, onescope_pose_cache *c, int text, uint32_t entity,
                              onescope_text *field, fuzz_bytes *in) {
    size_t want = fuzz_u8(in) & 0x1F, got;
    if (want == 0x1F) want = ONESCOPE_OSPC_MAX_TEXT + (fuzz_u8(in) & 1); /* at and over the limit */
    const uint8_t *p = fuzz_take(in, want, &got);
    char big[ONESCOPE_OSPC_MAX_TEXT + 1];
    memset(big, 'x', sizeof big);
    if (want > 0x1F) {
        memcpy(big, p, got);
        p = (const uint8_t *)big;
        got = want;
    }
    onescope_error err;
    onescope_code rc =
        text >= 0 ? onescope_pose_cache_set_text(c, (onescope_pose_text_field)text, (const char *)p,
                                                 got, &err)
                  : onescope_pose_cache_set_entity_name(c, entity, (const char *)p, got, &err);
    if (rc != ONESCOPE_OK) {
        fuzz_check_error(env, rc, &err,
                         text >= 0 ? "onescope_pose_cache_set_text"
                                   : "onescope_pose_cache_set_entity_name",
                         SIZE_MAX);
        FUZZ_ASSERT(rc == ONESCOPE_E_RANGE || rc == ONESCOPE_E_UTF8 || rc == ONESCOPE_E_NOMEM);
    } else {
        FUZZ_ASSERT(field->length == got && memcmp(field->data, p, got) == 0);
    }
    return rc;
}

/* Breaks one value of a valid cache in memory and the same value in its written bytes:
 * validate and parse must then report the same code at the same offset (validate names
 * the offset the value would have in the file). */
static void check_same_report(fuzz_env *env, onescope_pose_cache *c, const onescope_buffer *bytes,
                              uint8_t how) {
    size_t at = 36;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) at += 2 + (size_t)c->text[i].length;
    size_t entity_at = at;
    uint32_t which = how % c->entity_count;
    for (uint32_t i = 0; i < c->entity_count; i++) {
        if (i == which) entity_at = at;
        at += 24 + 2 + (size_t)c->entities[i].name.length;
    }
    uint8_t *copy = malloc(bytes->size);
    FUZZ_ASSERT(copy != NULL);
    memcpy(copy, bytes->data, bytes->size);
    uint64_t old_id = c->entities[which].id;
    size_t pose = which; /* frame 0 */
    onescope_pose old_pose = c->poses[pose];
    if (how & 0x80) {
        c->entities[which].id = 0;
        memset(copy + entity_at, 0, 8);
    } else {
        c->poses[pose].position[0] = INFINITY;
        memcpy(copy + at + pose * ONESCOPE_OSPC_POSE_BYTES, "\x00\x00\x80\x7f", 4);
    }
    onescope_error verr, perr;
    onescope_code vrc = onescope_pose_cache_validate(c, "same", &verr);
    onescope_pose_cache *back = NULL;
    onescope_code prc = onescope_pose_cache_parse(copy, bytes->size, "same", NULL, &back, &perr);
    onescope_pose_cache_free(back);
    free(copy);
    c->entities[which].id = old_id;
    c->poses[pose] = old_pose;
    if (vrc == ONESCOPE_E_NOMEM) return; /* the id set could not be allocated */
    FUZZ_ASSERT_MSG(vrc == prc, "validate says %d, parse says %d", (int)vrc, (int)prc);
    FUZZ_ASSERT(vrc != ONESCOPE_OK);
    FUZZ_ASSERT_MSG(verr.has_offset && perr.has_offset && verr.offset == perr.offset,
                    "validate reports offset %llu, parse %llu", (unsigned long long)verr.offset,
                    (unsigned long long)perr.offset);
    (void)env;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    fuzz_bytes in = fuzz_bytes_init(data, size);
    uint8_t dims = (uint8_t)fuzz_range(&in, 1, 4); /* 1 and 4 must be refused */
    uint32_t entities = fuzz_range(&in, 0, 9);     /* 0 must be refused */
    uint32_t frames = fuzz_range(&in, 0, 9);
    onescope_pose_cache *c = NULL;
    onescope_error err;
    onescope_code rc = onescope_pose_cache_create(dims, entities, frames, &env.allocator, &c, &err);
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(c == NULL);
        fuzz_check_error(&env, rc, &err, "onescope_pose_cache_create", SIZE_MAX);
        FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM || rc == ONESCOPE_E_RANGE);
        FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM || dims < 2 || dims > 3 || entities == 0 || frames == 0);
        fuzz_env_finish(&env);
        return 0;
    }
    c->start_step = (int64_t)fuzz_u64(&in);
    c->metres_per_unit = (fuzz_u8(&in) & 1) ? fuzz_f64(&in) : 0.001 * fuzz_u8(&in);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++)
        if (fuzz_u8(&in) & 1) (void)set_text(&env, c, i, 0, &c->text[i], &in);
    for (uint32_t i = 0; i < entities; i++) {
        onescope_pose_entity *e = &c->entities[i];
        uint8_t how = fuzz_u8(&in);
        if (how & 1) e->id = how & 2 ? fuzz_u8(&in) : fuzz_u64(&in); /* 0 or repeats: refused */
        if (how & 4) e->shape = fuzz_u8(&in) & 7;                    /* 4..7: refused */
        if (how & 8)
            for (int k = 0; k < 3; k++) e->size[k] = pick_f32(&in);
        if (how & 16) (void)set_text(&env, c, -1, i, &e->name, &in);
    }
    size_t pose_count = (size_t)entities * frames;
    for (size_t i = 0; i < pose_count && fuzz_remaining(&in) > 0; i++) {
        uint8_t how = fuzz_u8(&in);
        onescope_pose *p = &c->poses[i];
        if (how & 1) p->position[0] = NAN; /* absent: the rest may be anything */
        if (how & 2)
            for (int k = 0; k < 3; k++) p->position[k] = pick_f32(&in);
        if (how & 4)
            for (int k = 0; k < 4; k++) p->rotation[k] = pick_f32(&in);
    }

    onescope_code valid = onescope_pose_cache_validate(c, "built", &err);
    if (valid != ONESCOPE_OK) fuzz_check_error(&env, valid, &err, "built", SIZE_MAX);
    onescope_buffer bytes;
    rc = onescope_pose_cache_write(c, &env.allocator, &bytes, &err);
    if (valid != ONESCOPE_OK && valid != ONESCOPE_E_NOMEM)
        FUZZ_ASSERT_MSG(rc == valid || (rc == ONESCOPE_E_NOMEM && env.failed),
                        "validate says %d, write says %d", (int)valid, (int)rc);
    if (rc != ONESCOPE_OK) {
        fuzz_check_error(&env, rc, &err, "<ospc output>", SIZE_MAX);
        FUZZ_ASSERT(bytes.data == NULL);
    } else {
        FUZZ_ASSERT(valid == ONESCOPE_OK);
        onescope_pose_cache *back = NULL;
        onescope_parse_options options = env.options;
        options.max_input_bytes = ONESCOPE_MAX_INPUT_BYTES; /* the tail's limit is for parsers */
        rc = onescope_pose_cache_parse(bytes.data, bytes.size, "written", &options, &back, &err);
        if (rc != ONESCOPE_OK) {
            fuzz_check_error(&env, rc, &err, "written", bytes.size);
            FUZZ_ASSERT_MSG(rc == ONESCOPE_E_NOMEM,
                            "the parser refuses what the writer wrote: %s: %s", err.field,
                            err.found);
        } else {
            check_equal(c, back);
            check_same_report(&env, c, &bytes, fuzz_u8(&in));
            onescope_buffer again;
            rc = onescope_pose_cache_write(back, &env.allocator, &again, &err);
            if (rc == ONESCOPE_OK) {
                FUZZ_ASSERT(again.size == bytes.size &&
                            memcmp(again.data, bytes.data, bytes.size) == 0);
                onescope_buffer_free(&again);
            } else {
                FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM);
            }
            onescope_pose_cache_free(back);
        }
        onescope_buffer_free(&bytes);
    }
    onescope_pose_cache_free(c);
    fuzz_env_finish(&env);
    return 0;
}

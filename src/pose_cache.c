/* OSPC v1: parser, validator, writer. Layout and rules: docs/pose-cache.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "onescope/file.h"
#include "onescope/pose_cache.h"

_Static_assert(sizeof(onescope_pose) == ONESCOPE_OSPC_POSE_BYTES, "poses are 7 packed floats");

#define HEADER_BYTES 40u       /* magic .. metres per unit */
#define ENTITY_FIXED_BYTES 26u /* id, shape, padding, size, name length */

static const char *const text_names[ONESCOPE_POSE_TEXT_COUNT] = {
    "unit name", "module id", "library version", "scene", "replay", "label"};

static bool f32_finite(float v) { return isfinite(v) != 0; }

/* ---- building and freeing ---- */

static void free_text(const onescope_allocator *a, onescope_text *t) {
    os_free(a, t->data);
    t->data = NULL;
    t->length = 0;
}

void onescope_pose_cache_free(onescope_pose_cache *c) {
    if (c == NULL) return;
    const onescope_allocator *a = c->allocator;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) free_text(a, &c->text[i]);
    if (c->entities != NULL)
        for (uint32_t i = 0; i < c->entity_count; i++) free_text(a, &c->entities[i].name);
    os_free(a, c->entities);
    os_free(a, c->poses);
    os_free(a, c);
}

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                   "could not allocate memory");
}

/* Every text gets its own NUL-terminated block so empty text is never a NULL pointer. */
static onescope_code copy_text(const onescope_allocator *a, onescope_text *t, const char *src,
                               size_t length, onescope_error *error, const char *name) {
    char *p = os_alloc(a, length + 1);
    if (p == NULL) return nomem(error, name, "text");
    if (length) memcpy(p, src, length);
    p[length] = '\0';
    os_free(a, t->data);
    t->data = p;
    t->length = (uint16_t)length;
    return ONESCOPE_OK;
}

/* Allocates the cache and its arrays; texts are filled by the caller. */
static onescope_code alloc_cache(uint32_t entity_count, uint32_t frame_count,
                                 const onescope_allocator *a, onescope_pose_cache **out,
                                 onescope_error *error, const char *name) {
    size_t pose_count;
    if (!os_mul_size(entity_count, frame_count, &pose_count))
        return os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "pose count", NULL,
                       "overflows size_t");
    onescope_pose_cache *c = os_calloc(a, 1, sizeof *c);
    if (c == NULL) return nomem(error, name, "cache");
    c->allocator = a;
    c->entity_count = entity_count;
    c->frame_count = frame_count;
    c->entities = os_calloc(a, entity_count, sizeof *c->entities);
    c->poses = os_calloc(a, pose_count, sizeof *c->poses);
    if (c->entities == NULL || c->poses == NULL) {
        onescope_pose_cache_free(c);
        return nomem(error, name, "cache");
    }
    *out = c;
    return ONESCOPE_OK;
}

onescope_code onescope_pose_cache_create(uint8_t dimensions, uint32_t entity_count,
                                         uint32_t frame_count, const onescope_allocator *a,
                                         onescope_pose_cache **out, onescope_error *error) {
    const char *name = "onescope_pose_cache_create";
    if (out == NULL)
        return os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    *out = NULL;
    if (dimensions != 2 && dimensions != 3)
        return os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "dimensions", "2 or 3", "%u",
                       (unsigned)dimensions);
    if (entity_count < 1 || entity_count > ONESCOPE_OSPC_MAX_ENTITIES)
        return os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "entity count",
                       "1 to 65536", "%u", (unsigned)entity_count);
    if (frame_count < 1 || frame_count > ONESCOPE_OSPC_MAX_FRAMES)
        return os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "frame count",
                       "1 to 4194304", "%u", (unsigned)frame_count);
    onescope_pose_cache *c;
    OS_TRY(alloc_cache(entity_count, frame_count, a, &c, error, name));
    c->dimensions = dimensions;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        if (copy_text(a, &c->text[i], "", 0, error, name) != ONESCOPE_OK) goto fail;
    }
    for (uint32_t i = 0; i < entity_count; i++) {
        c->entities[i].id = (uint64_t)i + 1;
        if (copy_text(a, &c->entities[i].name, "", 0, error, name) != ONESCOPE_OK) goto fail;
    }
    size_t pose_count = (size_t)entity_count * frame_count;
    for (size_t i = 0; i < pose_count; i++) c->poses[i].rotation[3] = 1.0f;
    *out = c;
    return ONESCOPE_OK;
fail:
    onescope_pose_cache_free(c);
    return ONESCOPE_E_NOMEM;
}

onescope_code onescope_pose_cache_set_text(onescope_pose_cache *c, onescope_text *field,
                                           const char *text, size_t length,
                                           onescope_error *error) {
    const char *name = "onescope_pose_cache_set_text";
    if (c == NULL || field == NULL || (text == NULL && length > 0))
        return os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                       "cache, field and text must not be NULL");
    if (length > ONESCOPE_OSPC_MAX_TEXT)
        return os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "text length",
                       "at most 1024 bytes", "%zu", length);
    size_t bad;
    if (!os_utf8_valid((const uint8_t *)text, length, &bad))
        return os_fail(error, ONESCOPE_E_UTF8, name, OS_NO_OFFSET, "text", "valid UTF-8",
                       "an invalid sequence at byte %zu", bad);
    return copy_text(c->allocator, field, text, length, error, name);
}

/* ---- rules shared by the parser and the validator ---- */

/* Each check reports at `at` (the offset the value has in the file being parsed, or the
 * offset it would have when validating a cache before writing it). */

static onescope_code check_text(os_reader *r, size_t at, const char *field, const uint8_t *s,
                                size_t length) {
    if (length > ONESCOPE_OSPC_MAX_TEXT)
        return os_reader_fail_at(r, at, ONESCOPE_E_RANGE, field, "a length of at most 1024",
                                 "%zu", length);
    size_t bad;
    if (!os_utf8_valid(s, length, &bad))
        return os_reader_fail_at(r, at + 2 + bad, ONESCOPE_E_UTF8, field, "valid UTF-8",
                                 "byte 0x%02x", (unsigned)s[bad]);
    return ONESCOPE_OK;
}

static onescope_code check_header(os_reader *r, uint8_t dims, uint32_t entities, uint32_t frames,
                                  int64_t start_step, double mpu) {
    if (dims != 2 && dims != 3)
        return os_reader_fail_at(r, 8, ONESCOPE_E_RANGE, "dimensions", "2 or 3", "%u",
                                 (unsigned)dims);
    if (entities < 1 || entities > ONESCOPE_OSPC_MAX_ENTITIES)
        return os_reader_fail_at(r, 12, ONESCOPE_E_RANGE, "entity count", "1 to 65536", "%u",
                                 (unsigned)entities);
    if (frames < 1 || frames > ONESCOPE_OSPC_MAX_FRAMES)
        return os_reader_fail_at(r, 16, ONESCOPE_E_RANGE, "frame count", "1 to 4194304", "%u",
                                 (unsigned)frames);
    if (start_step < 0)
        return os_reader_fail_at(r, 20, ONESCOPE_E_RANGE, "start step", "0 or more", "%lld",
                                 (long long)start_step);
    if (isnan(mpu) || isinf(mpu))
        return os_reader_fail_at(r, 28, ONESCOPE_E_NOT_FINITE, "metres per unit",
                                 "0 or a positive finite number", "%g", mpu);
    if (mpu < 0)
        return os_reader_fail_at(r, 28, ONESCOPE_E_RANGE, "metres per unit",
                                 "0 or a positive finite number", "%g", mpu);
    return ONESCOPE_OK;
}

static onescope_code check_entity_fixed(os_reader *r, size_t at, uint64_t id, uint8_t shape,
                                        const float size[3]) {
    if (id == 0)
        return os_reader_fail_at(r, at, ONESCOPE_E_RANGE, "entity id", "a non-zero id", "0");
    if (shape > ONESCOPE_SHAPE_CAPSULE)
        return os_reader_fail_at(r, at + 8, ONESCOPE_E_RANGE, "entity shape",
                                 "0 point, 1 sphere, 2 box or 3 capsule", "%u", (unsigned)shape);
    for (int k = 0; k < 3; k++)
        if (!f32_finite(size[k]))
            return os_reader_fail_at(r, at + 12 + 4 * (size_t)k, ONESCOPE_E_NOT_FINITE,
                                     "entity size", "a finite number", "%g", (double)size[k]);
    return ONESCOPE_OK;
}

/* Open-addressed set of ids for the uniqueness check: O(n), no sorting of the caller's data. */
typedef struct id_set {
    uint64_t *slots;
    size_t mask;
} id_set;

static bool id_set_init(id_set *s, const onescope_allocator *a, uint32_t count) {
    size_t cap = 16;
    while (cap < (size_t)count * 2) cap *= 2;
    s->slots = os_calloc(a, cap, sizeof *s->slots);
    s->mask = cap - 1;
    return s->slots != NULL;
}

/* Returns false when id (non-zero) is already present. */
static bool id_set_insert(id_set *s, uint64_t id) {
    uint64_t h = id * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h >> 32) & s->mask;
    while (s->slots[i] != 0) {
        if (s->slots[i] == id) return false;
        i = (i + 1) & s->mask;
    }
    s->slots[i] = id;
    return true;
}

/* at: offset of the first pose, for messages. */
static onescope_code check_poses(os_reader *r, size_t at, const onescope_pose *poses, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const onescope_pose *p = &poses[i];
        if (isnan(p->position[0])) continue; /* absent: the other six values are ignored */
        for (int k = 0; k < 7; k++) {
            float x = k < 3 ? p->position[k] : p->rotation[k - 3];
            if (!f32_finite(x)) {
                static const char *const names[7] = {"position x", "position y", "position z",
                                                     "rotation x", "rotation y", "rotation z",
                                                     "rotation w"};
                return os_reader_fail_at(r, at + i * ONESCOPE_OSPC_POSE_BYTES + 4 * (size_t)k,
                                         ONESCOPE_E_NOT_FINITE, names[k],
                                         "a finite number (NaN only in position x)", "%g",
                                         (double)x);
            }
        }
    }
    return ONESCOPE_OK;
}

/* ---- parser ---- */

static onescope_code read_text(os_reader *r, const onescope_allocator *a, const char *field,
                               onescope_text *out) {
    size_t at = r->pos;
    uint16_t length;
    const uint8_t *bytes;
    OS_TRY(os_read_u16(r, field, &length));
    if (length > ONESCOPE_OSPC_MAX_TEXT) {
        r->pos = at;
        return check_text(r, at, field, NULL, length);
    }
    OS_TRY(os_read_bytes(r, field, length, &bytes));
    OS_TRY(check_text(r, at, field, bytes, length));
    return copy_text(a, out, (const char *)bytes, length, r->error, r->name);
}

onescope_code onescope_pose_cache_parse(const void *data, size_t size, const char *name,
                                        const onescope_parse_options *options,
                                        onescope_pose_cache **out, onescope_error *error) {
    onescope_parse_options defaults = onescope_parse_options_default();
    if (options == NULL) options = &defaults;
    if (name == NULL) name = "<ospc>";
    if (out == NULL || (data == NULL && size > 0))
        return os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                       "data and out must not be NULL");
    *out = NULL;
    if (size > options->max_input_bytes)
        return os_fail(error, ONESCOPE_E_TOO_LARGE, name, 0, "file size",
                       "at most the input limit", "%zu bytes (limit %zu)", size,
                       options->max_input_bytes);
    const onescope_allocator *a = options->allocator;
    os_reader r;
    os_reader_init(&r, data, size, name, error);

    const uint8_t *magic;
    uint16_t version, flags, reserved16;
    uint8_t dims, reserved8;
    uint32_t entities, frames;
    int64_t start_step;
    double mpu;
    OS_TRY(os_read_bytes(&r, "magic", 4, &magic));
    if (memcmp(magic, "OSPC", 4) != 0)
        return os_reader_fail_at(&r, 0, ONESCOPE_E_MAGIC, "magic", "\"OSPC\"",
                                 "%02x %02x %02x %02x", magic[0], magic[1], magic[2], magic[3]);
    OS_TRY(os_read_u16(&r, "version", &version));
    if (version != ONESCOPE_OSPC_VERSION)
        return os_reader_fail_at(&r, 4, ONESCOPE_E_VERSION, "version", "1", "%u",
                                 (unsigned)version);
    OS_TRY(os_read_u16(&r, "flags", &flags));
    if (flags != 0)
        return os_reader_fail_at(&r, 6, ONESCOPE_E_FLAGS, "flags", "0", "%u", (unsigned)flags);
    OS_TRY(os_read_u8(&r, "dimensions", &dims));
    if (dims != 2 && dims != 3) return check_header(&r, dims, 1, 1, 0, 0);
    OS_TRY(os_read_u8(&r, "reserved", &reserved8));
    if (reserved8 != 0)
        return os_reader_fail_at(&r, 9, ONESCOPE_E_RESERVED, "reserved", "0", "%u",
                                 (unsigned)reserved8);
    OS_TRY(os_read_u16(&r, "reserved", &reserved16));
    if (reserved16 != 0)
        return os_reader_fail_at(&r, 10, ONESCOPE_E_RESERVED, "reserved", "0", "%u",
                                 (unsigned)reserved16);
    OS_TRY(os_read_u32(&r, "entity count", &entities));
    OS_TRY(check_header(&r, dims, entities, 1, 0, 0));
    OS_TRY(os_read_u32(&r, "frame count", &frames));
    OS_TRY(check_header(&r, dims, entities, frames, 0, 0));
    OS_TRY(os_read_i64(&r, "start step", &start_step));
    OS_TRY(check_header(&r, dims, entities, frames, start_step, 0));
    OS_TRY(os_read_f64(&r, "metres per unit", &mpu));
    OS_TRY(check_header(&r, dims, entities, frames, start_step, mpu));

    /* The counts fix the smallest possible file: refuse counts that claim more than the
     * bytes that remain before allocating anything they size. */
    size_t pose_count, pose_bytes, least;
    if (!os_mul_size(entities, frames, &pose_count) ||
        !os_mul_size(pose_count, ONESCOPE_OSPC_POSE_BYTES, &pose_bytes) ||
        !os_add_size(pose_bytes, 6 * 2 + (size_t)entities * ENTITY_FIXED_BYTES, &least) ||
        least > os_reader_remaining(&r)) {
        char expected[96];
        snprintf(expected, sizeof expected, "counts that fit in the %zu bytes that remain",
                 os_reader_remaining(&r));
        return os_reader_fail_at(&r, 12, ONESCOPE_E_TRUNCATED, "entity count x frame count",
                                 expected, "%u entities x %u frames", (unsigned)entities,
                                 (unsigned)frames);
    }
    onescope_pose_cache *c;
    OS_TRY(alloc_cache(entities, frames, a, &c, error, name));
    c->dimensions = dims;
    c->start_step = start_step;
    c->metres_per_unit = mpu;
    onescope_code rc = ONESCOPE_OK;
    id_set ids = {NULL, 0};

    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT && rc == ONESCOPE_OK; i++)
        rc = read_text(&r, a, text_names[i], &c->text[i]);
    if (rc != ONESCOPE_OK) goto fail;
    rc = os_reader_reserve(&r, "entity count", entities, ENTITY_FIXED_BYTES);
    if (rc != ONESCOPE_OK) goto fail;
    if (!id_set_init(&ids, a, entities)) {
        rc = nomem(error, name, "entity ids");
        goto fail;
    }
    for (uint32_t i = 0; i < entities; i++) {
        onescope_pose_entity *e = &c->entities[i];
        size_t at = r.pos;
        const uint8_t *p;
        if ((rc = os_read_bytes(&r, "entity", 24, &p)) != ONESCOPE_OK) goto fail;
        e->id = os_get_u64(p);
        e->shape = p[8];
        for (int k = 0; k < 3; k++) e->size[k] = os_get_f32(p + 12 + 4 * k);
        if ((rc = check_entity_fixed(&r, at, e->id, e->shape, e->size)) != ONESCOPE_OK) goto fail;
        for (size_t k = 9; k < 12; k++) {
            if (p[k] != 0) {
                rc = os_reader_fail_at(&r, at + k, ONESCOPE_E_RESERVED, "entity padding", "0",
                                       "%u", (unsigned)p[k]);
                goto fail;
            }
        }
        if (!id_set_insert(&ids, e->id)) {
            rc = os_reader_fail_at(&r, at, ONESCOPE_E_DUPLICATE, "entity id", "a unique id",
                                   "%llu again", (unsigned long long)e->id);
            goto fail;
        }
        if ((rc = read_text(&r, a, "entity name", &e->name)) != ONESCOPE_OK) goto fail;
    }
    os_free(a, ids.slots);
    ids.slots = NULL;

    /* The pose section is the rest of the file and must match the counts exactly. */
    size_t remaining = os_reader_remaining(&r);
    if (remaining != pose_bytes) {
        char expected[96];
        snprintf(expected, sizeof expected, "%zu pose bytes (%u frames x %u entities x 28)",
                 pose_bytes, (unsigned)frames, (unsigned)entities);
        rc = os_reader_fail_at(&r, remaining < pose_bytes ? r.pos : r.pos + pose_bytes,
                               remaining < pose_bytes ? ONESCOPE_E_TRUNCATED : ONESCOPE_E_TRAILING,
                               "poses", expected, "%zu", remaining);
        goto fail;
    }
    size_t poses_at = r.pos;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(c->poses, r.data + r.pos, pose_bytes);
#else
    {
        float *dst = &c->poses[0].position[0];
        const uint8_t *src = r.data + r.pos;
        for (size_t i = 0; i < pose_count * 7; i++) dst[i] = os_get_f32(src + 4 * i);
    }
#endif
    r.pos += pose_bytes;
    if ((rc = check_poses(&r, poses_at, c->poses, pose_count)) != ONESCOPE_OK) goto fail;
    *out = c;
    return ONESCOPE_OK;
fail:
    os_free(a, ids.slots);
    onescope_pose_cache_free(c);
    return rc;
}

/* ---- validator and writer ---- */

static size_t text_bytes(const onescope_text *t) { return 2 + (size_t)t->length; }

onescope_code onescope_pose_cache_validate(const onescope_pose_cache *c, const char *name,
                                           onescope_error *error) {
    if (name == NULL) name = "<ospc>";
    if (c == NULL || c->entities == NULL || c->poses == NULL)
        return os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                       "cache, entities and poses must not be NULL");
    /* Offsets in messages are where the value would be written. */
    os_reader r;
    os_reader_init(&r, NULL, 0, name, error);
    OS_TRY(check_header(&r, c->dimensions, c->entity_count, c->frame_count, c->start_step,
                        c->metres_per_unit));
    size_t at = HEADER_BYTES;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        const onescope_text *t = &c->text[i];
        if (t->data == NULL && t->length > 0)
            return os_reader_fail_at(&r, at, ONESCOPE_E_ARGUMENT, text_names[i], "text",
                                     "NULL data");
        OS_TRY(check_text(&r, at, text_names[i], (const uint8_t *)t->data, t->length));
        at += text_bytes(t);
    }
    id_set ids;
    if (!id_set_init(&ids, c->allocator, c->entity_count)) return nomem(error, name, "entity ids");
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0; i < c->entity_count && rc == ONESCOPE_OK; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        rc = check_entity_fixed(&r, at, e->id, e->shape, e->size);
        if (rc == ONESCOPE_OK && !id_set_insert(&ids, e->id))
            rc = os_reader_fail_at(&r, at, ONESCOPE_E_DUPLICATE, "entity id", "a unique id",
                                   "%llu again", (unsigned long long)e->id);
        if (rc == ONESCOPE_OK && e->name.data == NULL && e->name.length > 0)
            rc = os_reader_fail_at(&r, at + 24, ONESCOPE_E_ARGUMENT, "entity name", "text",
                                   "NULL data");
        if (rc == ONESCOPE_OK)
            rc = check_text(&r, at + 24, "entity name", (const uint8_t *)e->name.data,
                            e->name.length);
        at += 24 + text_bytes(&e->name);
    }
    os_free(c->allocator, ids.slots);
    OS_TRY(rc);
    return check_poses(&r, at, c->poses, (size_t)c->entity_count * c->frame_count);
}

static void write_text(os_writer *w, const onescope_text *t) {
    os_write_u16(w, t->length);
    os_write_bytes(w, t->data, t->length);
}

onescope_code onescope_pose_cache_write(const onescope_pose_cache *c,
                                        const onescope_allocator *allocator,
                                        onescope_buffer *out, onescope_error *error) {
    const char *name = "<ospc output>";
    if (out == NULL)
        return os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL", NULL);
    memset(out, 0, sizeof *out);
    OS_TRY(onescope_pose_cache_validate(c, name, error));

    size_t total = HEADER_BYTES, pose_bytes;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) total += text_bytes(&c->text[i]);
    for (uint32_t i = 0; i < c->entity_count; i++) total += 24 + text_bytes(&c->entities[i].name);
    size_t pose_count = (size_t)c->entity_count * c->frame_count;
    if (!os_mul_size(pose_count, ONESCOPE_OSPC_POSE_BYTES, &pose_bytes) ||
        !os_add_size(total, pose_bytes, &total))
        return os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size", NULL,
                       "overflows size_t");

    os_writer w;
    os_writer_init(&w, allocator);
    os_writer_reserve_total(&w, total);
    os_write_bytes(&w, "OSPC", 4);
    os_write_u16(&w, ONESCOPE_OSPC_VERSION);
    os_write_u16(&w, 0);
    os_write_u8(&w, c->dimensions);
    os_write_u8(&w, 0);
    os_write_u16(&w, 0);
    os_write_u32(&w, c->entity_count);
    os_write_u32(&w, c->frame_count);
    os_write_i64(&w, c->start_step);
    os_write_f64(&w, c->metres_per_unit);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) write_text(&w, &c->text[i]);
    for (uint32_t i = 0; i < c->entity_count; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        os_write_u64(&w, e->id);
        os_write_u8(&w, e->shape);
        os_write_bytes(&w, "\0\0\0", 3);
        for (int k = 0; k < 3; k++) os_write_f32(&w, e->size[k]);
        write_text(&w, &e->name);
    }
    uint8_t *dst = os_writer_grow(&w, pose_bytes);
    if (dst != NULL) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(dst, c->poses, pose_bytes);
#else
        const float *src = &c->poses[0].position[0];
        for (size_t i = 0; i < pose_count * 7; i++) os_put_f32(dst + 4 * i, src[i]);
#endif
    }
    return os_writer_finish(&w, out, error, name);
}

/* ---- access ---- */

const onescope_pose *onescope_pose_cache_pose(const onescope_pose_cache *c, uint32_t frame,
                                              uint32_t entity) {
    if (c == NULL || frame >= c->frame_count || entity >= c->entity_count) return NULL;
    return &c->poses[(size_t)frame * c->entity_count + entity];
}

int onescope_pose_is_present(const onescope_pose *p) { return p != NULL && !isnan(p->position[0]); }

void onescope_pose_rotation(const onescope_pose *p, float out[4]) {
    const float *q = p->rotation;
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
        out[0] = out[1] = out[2] = 0;
        out[3] = 1;
        return;
    }
    memcpy(out, q, 4 * sizeof *q);
}

int64_t onescope_pose_cache_next_present(const onescope_pose_cache *c, uint32_t frame,
                                         uint32_t start) {
    if (c == NULL || frame >= c->frame_count) return -1;
    const onescope_pose *row = &c->poses[(size_t)frame * c->entity_count];
    for (uint32_t i = start; i < c->entity_count; i++)
        if (!isnan(row[i].position[0])) return i;
    return -1;
}

/* ---- files ---- */

onescope_code onescope_pose_cache_read_file(const char *path, const onescope_parse_options *options,
                                            onescope_pose_cache **out, onescope_error *error) {
    onescope_parse_options defaults = onescope_parse_options_default();
    if (options == NULL) options = &defaults;
    onescope_buffer buf;
    OS_TRY(onescope_read_file(path, options->max_input_bytes, options->allocator, &buf, error));
    onescope_code rc = onescope_pose_cache_parse(buf.data, buf.size,
                                                 strcmp(path, "-") == 0 ? "<stdin>" : path,
                                                 options, out, error);
    onescope_buffer_free(&buf);
    return rc;
}

onescope_code onescope_pose_cache_write_file(const onescope_pose_cache *c, const char *path,
                                             onescope_error *error) {
    onescope_buffer buf;
    OS_TRY(onescope_pose_cache_write(c, c ? c->allocator : NULL, &buf, error));
    onescope_code rc = onescope_write_file(path, buf.data, buf.size, error);
    onescope_buffer_free(&buf);
    return rc;
}

/* ---- the replay field ---- */

int onescope_is_plain_file_name(const char *s, size_t n) {
    if (s == NULL || n == 0) return 0;
    if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '/' || ch == '\\' || ch == ':' || ch < 0x20 || ch == 0x7F) return 0;
    }
    return 1;
}

int onescope_pose_cache_replay_path(const onescope_pose_cache *c, const char *cache_path,
                                    char *out, size_t out_size) {
    if (c == NULL || cache_path == NULL || out == NULL || out_size == 0) return 0;
    const onescope_text *replay = &c->text[ONESCOPE_POSE_TEXT_REPLAY];
    if (!onescope_is_plain_file_name(replay->data, replay->length)) return 0;
    const char *slash = strrchr(cache_path, '/');
    size_t dir = slash ? (size_t)(slash - cache_path) + 1 : 0;
    if (dir + replay->length + 1 > out_size) return 0;
    memcpy(out, cache_path, dir);
    memcpy(out + dir, replay->data, replay->length);
    out[dir + replay->length] = '\0';
    return 1;
}

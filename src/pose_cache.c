/* OSPC v1: bytes to structs and back (parser, validator, writer), building, setters and
 * accessors. No file I/O: the _read_file/_write_file conveniences are in src/file.c.
 * Layout and rules: docs/pose-cache.md. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "check_internal.h"
#include "internal.h"
#include "numfmt.h"
#include "onescope/pose_cache.h"
#include "pose_head.h"

_Static_assert(sizeof(onescope_pose) == ONESCOPE_OSPC_POSE_BYTES, "poses are 7 packed floats");

#define HEADER_BYTES 36u       /* magic .. metres per unit */
#define ENTITY_FIXED_BYTES 26u /* id, shape, padding, size, name length */

static const char *const text_names[ONESCOPE_POSE_TEXT_COUNT] = {
    "unit name", "module id", "library version", "scene", "replay", "label"};

/* ---- building and freeing ---- */

static void free_text(const onescope_allocator *a, onescope_text *t) {
    onescope_os_free(a, t->data);
    t->data = NULL;
    t->length = 0;
}

void onescope_pose_cache_free(onescope_pose_cache *c) {
    if (c == NULL) return;
    const onescope_allocator *a = c->allocator;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) free_text(a, &c->text[i]);
    if (c->entities != NULL)
        for (uint32_t i = 0; i < c->entity_count; i++) free_text(a, &c->entities[i].name);
    onescope_os_free(a, c->entities);
    if (c->mapping == NULL)
        onescope_os_free(a, c->poses);
    else if (c->release_mapping != NULL)
        c->release_mapping(c->mapping, c->mapping_size); /* poses point into it */
    onescope_os_free(a, c);
}

static onescope_code nomem(onescope_error *error, const char *name, const char *what) {
    return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, what, NULL,
                            "could not allocate memory");
}

/* Every text gets its own NUL-terminated block so empty text is never a NULL pointer. */
static onescope_code copy_text(const onescope_allocator *a, onescope_text *t, const char *src,
                               size_t length, onescope_error *error, const char *name) {
    char *p = onescope_os_alloc(a, length + 1);
    if (p == NULL) return nomem(error, name, "text");
    if (length) memcpy(p, src, length);
    p[length] = '\0';
    onescope_os_free(a, t->data);
    t->data = p;
    t->length = (uint16_t)length;
    return ONESCOPE_OK;
}

/* Allocates the cache and its arrays (the poses only when alloc_poses); texts are filled by
 * the caller. */
static onescope_code alloc_cache(uint32_t entity_count, uint32_t frame_count, bool alloc_poses,
                                 const onescope_allocator *a, onescope_pose_cache **out,
                                 onescope_error *error, const char *name) {
    size_t pose_count;
    if (!onescope_os_mul_size(entity_count, frame_count, &pose_count))
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "pose count", NULL,
                                "overflows size_t");
    onescope_pose_cache *c = onescope_os_calloc(a, 1, sizeof *c);
    if (c == NULL) return nomem(error, name, "cache");
    c->allocator = a;
    c->entity_count = entity_count;
    c->frame_count = frame_count;
    c->entities = onescope_os_calloc(a, entity_count, sizeof *c->entities);
    if (c->entities != NULL && alloc_poses)
        c->poses = onescope_os_calloc(a, pose_count, sizeof *c->poses);
    if (c->entities == NULL || (alloc_poses && c->poses == NULL)) {
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
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    if (dimensions != 2 && dimensions != 3)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "dimensions", "2 or 3",
                                "%u", (unsigned)dimensions);
    if (entity_count < 1 || entity_count > ONESCOPE_OSPC_MAX_ENTITIES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "entity count",
                                "1 to 65536", "%u", (unsigned)entity_count);
    if (frame_count < 1 || frame_count > ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "frame count",
                                "1 to 4194304", "%u", (unsigned)frame_count);
    onescope_pose_cache *c;
    OS_TRY(alloc_cache(entity_count, frame_count, true, a, &c, error, name));
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

/* A mapped cache (onescope_pose_cache_map) is read-only: its poses are the file's pages. */
static onescope_code refuse_mapped(onescope_error *error, const char *name) {
    return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, name, OS_NO_OFFSET, "cache",
                            "a cache from parse or create", "a read-only mapped cache");
}

/* The checks both setters make on the new text before it replaces the old one. */
static onescope_code set_text(onescope_pose_cache *c, onescope_text *field, const char *text,
                              size_t length, onescope_error *error, const char *name) {
    if (length > ONESCOPE_OSPC_MAX_TEXT)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "text length",
                                "at most 1024 bytes", "%zu", length);
    size_t bad;
    if (!onescope_os_utf8_valid((const uint8_t *)text, length, &bad))
        return onescope_os_fail(error, ONESCOPE_E_UTF8, name, OS_NO_OFFSET, "text", "valid UTF-8",
                                "an invalid sequence at byte %zu", bad);
    return copy_text(c->allocator, field, text, length, error, name);
}

onescope_code onescope_pose_cache_set_text(onescope_pose_cache *c, onescope_pose_text_field which,
                                           const char *text, size_t length, onescope_error *error) {
    const char *name = "onescope_pose_cache_set_text";
    if (c == NULL || (text == NULL && length > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "cache and text must not be NULL");
    if (c->mapping != NULL) return refuse_mapped(error, name);
    /* Compared as unsigned: an enum holding a negative value is out of range too. */
    if ((unsigned)which >= (unsigned)ONESCOPE_POSE_TEXT_COUNT)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "text field",
                                "0 to 5 (an onescope_pose_text_field)", "%d", (int)which);
    return set_text(c, &c->text[which], text, length, error, name);
}

onescope_code onescope_pose_cache_set_entity_name(onescope_pose_cache *c, uint32_t entity,
                                                  const char *text, size_t length,
                                                  onescope_error *error) {
    const char *name = "onescope_pose_cache_set_entity_name";
    if (c == NULL || c->entities == NULL || (text == NULL && length > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "cache, its entities and text must not be NULL");
    if (c->mapping != NULL) return refuse_mapped(error, name);
    if (entity >= c->entity_count) {
        char expected[64];
        snprintf(expected, sizeof expected, "below the entity count %lu",
                 (unsigned long)c->entity_count);
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "entity", expected,
                                "%lu", (unsigned long)entity);
    }
    return set_text(c, &c->entities[entity].name, text, length, error, name);
}

/* ---- rules shared by the parser and the validator ---- */

/* Each check reports at `at`: the offset the value has in the file being parsed, or the
 * offset it would have when a cache is validated before it is written. Callers run the
 * checks in file order, so the first error reported is always the earliest bad byte. */

#define F32_EXPONENT 0x7F800000u /* all ones: infinity or NaN */

static uint32_t f32_bits(float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

static bool bits_finite(uint32_t bits) {
    return (bits & F32_EXPONENT) != F32_EXPONENT;
}

/* Describes a non-finite float for messages without loading it as a float (which could
 * change a signalling NaN on some targets). */
static void describe_f32(char *buf, size_t size, uint32_t bits) {
    if ((bits & 0x7FFFFFFFu) == F32_EXPONENT)
        snprintf(buf, size, "%sinf", bits >> 31 ? "-" : "");
    else if (!bits_finite(bits))
        snprintf(buf, size, "NaN (bits 0x%08lx)", (unsigned long)bits);
    else {
        float v;
        memcpy(&v, &bits, sizeof v);
        snprintf(buf, size, "%s", onescope_os_num_float(v).s);
    }
}

static const char *const pose_value_names[7] = {"position x", "position y", "position z",
                                                "rotation x", "rotation y", "rotation z",
                                                "rotation w"};

/* The index (0..6) of the first value of a pose that breaks the rules, or -1. A NaN
 * position x (any NaN) marks the entity absent: the other six values are then ignored,
 * whatever their bits. Works on bit patterns only, so it is exact and fast. */
static inline int pose_bad_value(const uint32_t v[7]) {
    uint32_t nonfinite = 0;
    for (int k = 0; k < 7; k++) nonfinite |= (uint32_t)((v[k] & F32_EXPONENT) == F32_EXPONENT);
    if (nonfinite == 0) return -1;
    if ((v[0] & 0x7FFFFFFFu) > F32_EXPONENT) return -1; /* NaN position x: absent */
    for (int k = 0; k < 7; k++)
        if (!bits_finite(v[k])) return k;
    return -1;
}

static onescope_code fail_pose(onescope_os_reader *r, size_t poses_at, size_t index, int k,
                               uint32_t entity_count, uint32_t bits) {
    char field[96], found[48];
    snprintf(field, sizeof field, "frame %zu entity %zu %s", index / entity_count,
             index % entity_count, pose_value_names[k]);
    describe_f32(found, sizeof found, bits);
    return onescope_os_reader_fail_at(
        r, poses_at + index * ONESCOPE_OSPC_POSE_BYTES + 4 * (size_t)k, ONESCOPE_E_NOT_FINITE,
        field, "a finite number (NaN only in position x, for an absent entity)", "%s", found);
}

static onescope_code check_dimensions(onescope_os_reader *r, uint8_t dims) {
    if (dims == 2 || dims == 3) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, 8, ONESCOPE_E_RANGE, "dimensions", "2 or 3", "%u",
                                      (unsigned)dims);
}

static onescope_code check_entity_count(onescope_os_reader *r, uint32_t n) {
    if (n >= 1 && n <= ONESCOPE_OSPC_MAX_ENTITIES) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, 12, ONESCOPE_E_RANGE, "entity count", "1 to 65536", "%lu",
                                      (unsigned long)n);
}

static onescope_code check_frame_count(onescope_os_reader *r, uint32_t n) {
    if (n >= 1 && n <= ONESCOPE_OSPC_MAX_FRAMES) return ONESCOPE_OK;
    if (n == ONESCOPE_OS_OSPC_PARTIAL_MARK) /* what a recording leaves until close */
        return onescope_os_reader_fail_at(r, 16, ONESCOPE_E_RANGE, "frame count", "1 to 4194304",
                                          "%s", ONESCOPE_OS_PARTIAL_FOUND);
    return onescope_os_reader_fail_at(r, 16, ONESCOPE_E_RANGE, "frame count", "1 to 4194304", "%lu",
                                      (unsigned long)n);
}

bool onescope_os_ospc_steps_fit(int64_t start_step, uint64_t frames) {
    return start_step >= 0 && frames >= 1 &&
           frames - 1 <= (uint64_t)INT64_MAX - (uint64_t)start_step;
}

/* frames: the frame count (1 for a partial's head: its frames are checked once counted). */
static onescope_code check_start_step(onescope_os_reader *r, int64_t step, uint64_t frames) {
    if (step < 0)
        return onescope_os_reader_fail_at(r, 20, ONESCOPE_E_RANGE, "start step", "0 or more",
                                          "%lld", (long long)step);
    if (onescope_os_ospc_steps_fit(step, frames)) return ONESCOPE_OK;
    char expected[96];
    snprintf(expected, sizeof expected,
             "at most %lld (the last of %llu frames at step 9223372036854775807)",
             (long long)(INT64_MAX - (int64_t)(frames - 1)), (unsigned long long)frames);
    return onescope_os_reader_fail_at(r, 20, ONESCOPE_E_RANGE, "start step", expected, "%lld",
                                      (long long)step);
}

/* -0.0 compares equal to 0 and is accepted as zero (its bits are kept). */
static onescope_code check_metres_per_unit(onescope_os_reader *r, double mpu) {
    if (isnan(mpu) || isinf(mpu))
        return onescope_os_reader_fail_at(r, 28, ONESCOPE_E_NOT_FINITE, "metres per unit",
                                          "0 or a positive finite number", "%s",
                                          onescope_os_num(mpu).s);
    if (mpu < 0)
        return onescope_os_reader_fail_at(r, 28, ONESCOPE_E_RANGE, "metres per unit",
                                          "0 or a positive finite number", "%s",
                                          onescope_os_num(mpu).s);
    return ONESCOPE_OK;
}

/* at: offset of the text's u16 length. */
static onescope_code check_text_length(onescope_os_reader *r, size_t at, const char *field,
                                       size_t length) {
    if (length <= ONESCOPE_OSPC_MAX_TEXT) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_RANGE, field,
                                      "a length of at most 1024 bytes", "%zu", length);
}

static onescope_code check_text_bytes(onescope_os_reader *r, size_t at, const char *field,
                                      const uint8_t *s, size_t length) {
    size_t bad;
    if (length == 0 || onescope_os_utf8_valid(s, length, &bad)) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at + 2 + bad, ONESCOPE_E_UTF8, field, "valid UTF-8",
                                      "byte 0x%02x", (unsigned)s[bad]);
}

static onescope_code check_entity_id(onescope_os_reader *r, size_t at, const char *field,
                                     uint64_t id) {
    if (id != 0) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_RANGE, field, "a non-zero id", "0");
}

static onescope_code check_shape(onescope_os_reader *r, size_t at, const char *field,
                                 uint8_t shape) {
    if (shape <= ONESCOPE_SHAPE_CAPSULE) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_RANGE, field,
                                      "0 point, 1 sphere, 2 box or 3 capsule", "%u",
                                      (unsigned)shape);
}

static onescope_code check_size(onescope_os_reader *r, size_t at, const char *field,
                                uint32_t bits) {
    if (bits_finite(bits)) return ONESCOPE_OK;
    char found[48];
    describe_f32(found, sizeof found, bits);
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_NOT_FINITE, field, "a finite number", "%s",
                                      found);
}

/* Open-addressed set of ids for the uniqueness check: O(n), no sorting of the caller's data. */
typedef struct id_set {
    uint64_t *slots;
    size_t mask;
} id_set;

static bool id_set_init(id_set *s, const onescope_allocator *a, uint32_t count) {
    size_t cap = 16;
    while (cap < (size_t)count * 2) cap *= 2;
    s->slots = onescope_os_calloc(a, cap, sizeof *s->slots);
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

static onescope_code check_unique(onescope_os_reader *r, size_t at, const char *field, id_set *ids,
                                  uint64_t id) {
    if (id_set_insert(ids, id)) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_DUPLICATE, field, "a unique id",
                                      "%llu again", (unsigned long long)id);
}

static void entity_field(char *buf, size_t size, uint32_t index, const char *what) {
    snprintf(buf, size, "entity %lu %s", (unsigned long)index, what);
}

/* ---- parser: one pass that checks every rule in file order without allocating anything
 * sized by the file, then one pass that copies what the first pass proved valid ---- */

typedef struct ospc_header {
    uint8_t dimensions;
    uint32_t entity_count;
    uint32_t frame_count;
    int64_t start_step;
    double metres_per_unit;
    size_t pose_count;
    size_t pose_bytes;
} ospc_header;

/* The smallest file the counts allow: header, six empty texts, entities with empty names,
 * frames x entities poses. Counts are bounded, so this cannot overflow 64 bits. */
static uint64_t least_file_size(uint64_t entities, uint64_t frames) {
    return HEADER_BYTES + 12 + entities * ENTITY_FIXED_BYTES +
           entities * frames * ONESCOPE_OSPC_POSE_BYTES;
}

static onescope_code check_counts_fit(onescope_os_reader *r, size_t total, size_t at,
                                      const char *field, uint32_t count, uint64_t entities,
                                      uint64_t frames) {
    uint64_t least = least_file_size(entities, frames);
    if (least <= total) return ONESCOPE_OK;
    return onescope_os_reader_fail_at(r, at, ONESCOPE_E_TRUNCATED, field,
                                      "a count the file can hold",
                                      "%lu, which needs at least %llu bytes; the file has %zu",
                                      (unsigned long)count, (unsigned long long)least, total);
}

/* total: the size of the whole input, which may be more than the reader holds (the push
 * validator hands it the header alone). partial: the head of a partial recording
 * (src/pose_writer.c), whose frame count must be the marker instead. */
static onescope_code scan_header_as(onescope_os_reader *r, size_t total, ospc_header *h,
                                    bool partial) {
    const uint8_t *magic;
    if (r->size < 4 && r->size > 0 && memcmp(r->data, "OSPC", r->size) != 0)
        return onescope_os_reader_fail_at(r, 0, ONESCOPE_E_MAGIC, "magic", "\"OSPC\"",
                                          "%zu bytes that do not start it", r->size);
    OS_TRY(onescope_os_read_bytes(r, "magic", 4, &magic));
    if (memcmp(magic, "OSPC", 4) != 0)
        return onescope_os_reader_fail_at(r, 0, ONESCOPE_E_MAGIC, "magic", "\"OSPC\"",
                                          "%02x %02x %02x %02x", magic[0], magic[1], magic[2],
                                          magic[3]);
    uint16_t version, flags;
    OS_TRY(onescope_os_read_u16(r, "version", &version));
    if (version != ONESCOPE_OSPC_VERSION)
        return onescope_os_reader_fail_at(r, 4, ONESCOPE_E_VERSION, "version", "1", "%u",
                                          (unsigned)version);
    OS_TRY(onescope_os_read_u16(r, "flags", &flags));
    if (flags != 0)
        return onescope_os_reader_fail_at(r, 6, ONESCOPE_E_FLAGS, "flags", "0", "%u",
                                          (unsigned)flags);
    OS_TRY(onescope_os_read_u8(r, "dimensions", &h->dimensions));
    OS_TRY(check_dimensions(r, h->dimensions));
    OS_TRY(onescope_os_read_zeros(r, "reserved", 3));
    OS_TRY(onescope_os_read_u32(r, "entity count", &h->entity_count));
    OS_TRY(check_entity_count(r, h->entity_count));
    /* A partial may hold no complete frame yet: that is said at its first frame's offset. */
    OS_TRY(check_counts_fit(r, total, 12, "entity count", h->entity_count, h->entity_count,
                            partial ? 0 : 1));
    OS_TRY(onescope_os_read_u32(r, "frame count", &h->frame_count));
    if (partial) {
        /* The marker, or a count close has already written (a kill between that and the
         * rename): onescope_os_ospc_partial_scan checks it against the file's size. */
        if (h->frame_count != ONESCOPE_OS_OSPC_PARTIAL_MARK)
            OS_TRY(check_frame_count(r, h->frame_count));
    } else {
        OS_TRY(check_frame_count(r, h->frame_count));
        OS_TRY(check_counts_fit(r, total, 16, "frame count", h->frame_count, h->entity_count,
                                h->frame_count));
    }
    OS_TRY(onescope_os_read_i64(r, "start step", &h->start_step));
    OS_TRY(check_start_step(r, h->start_step, partial ? 1 : h->frame_count));
    OS_TRY(onescope_os_read_f64(r, "metres per unit", &h->metres_per_unit));
    OS_TRY(check_metres_per_unit(r, h->metres_per_unit));
    if (partial) return ONESCOPE_OK; /* its frames are counted from the file's size */
    /* Both fit in size_t: check_counts_fit bounded them by the input's size. */
    h->pose_count = (size_t)h->entity_count * h->frame_count;
    h->pose_bytes = h->pose_count * ONESCOPE_OSPC_POSE_BYTES;
    return ONESCOPE_OK;
}

static onescope_code scan_header(onescope_os_reader *r, size_t total, ospc_header *h) {
    return scan_header_as(r, total, h, false);
}

static onescope_code scan_text(onescope_os_reader *r, const char *field) {
    size_t at = r->pos;
    uint16_t length;
    const uint8_t *bytes;
    OS_TRY(onescope_os_read_u16(r, field, &length));
    OS_TRY(check_text_length(r, at, field, length));
    OS_TRY(onescope_os_read_bytes(r, field, length, &bytes));
    return check_text_bytes(r, at, field, bytes, length);
}

static onescope_code scan_entity(onescope_os_reader *r, uint32_t index, id_set *ids) {
    char field[96];
    size_t at = r->pos;
    uint64_t id;
    uint8_t shape;
    uint32_t bits;
    entity_field(field, sizeof field, index, "id");
    OS_TRY(onescope_os_read_u64(r, field, &id));
    OS_TRY(check_entity_id(r, at, field, id));
    if (ids->slots != NULL) OS_TRY(check_unique(r, at, field, ids, id));
    entity_field(field, sizeof field, index, "shape");
    OS_TRY(onescope_os_read_u8(r, field, &shape));
    OS_TRY(check_shape(r, at + 8, field, shape));
    entity_field(field, sizeof field, index, "padding");
    OS_TRY(onescope_os_read_zeros(r, field, 3));
    for (int k = 0; k < 3; k++) {
        entity_field(field, sizeof field, index, k == 0 ? "size x" : k == 1 ? "size y" : "size z");
        OS_TRY(onescope_os_read_u32(r, field, &bits));
        OS_TRY(check_size(r, at + 12 + 4 * (size_t)k, field, bits));
    }
    entity_field(field, sizeof field, index, "name");
    return scan_text(r, field);
}

/* First pass: every rule but the pose values, in file order. Leaves r at the poses. The
 * only allocation is the id set, sized by a count already checked against the input. */
static onescope_code scan(onescope_os_reader *r, const onescope_allocator *a, ospc_header *h) {
    OS_TRY(scan_header(r, r->size, h));
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) OS_TRY(scan_text(r, text_names[i]));
    id_set ids = {NULL, 0};
    if (h->entity_count > 1 && !id_set_init(&ids, a, h->entity_count))
        return nomem(r->error, r->name, "entity ids");
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0; i < h->entity_count && rc == ONESCOPE_OK; i++)
        rc = scan_entity(r, i, &ids);
    onescope_os_free(a, ids.slots);
    OS_TRY(rc);
    size_t remaining = onescope_os_reader_remaining(r);
    if (remaining < h->pose_bytes) {
        char expected[96];
        snprintf(expected, sizeof expected, "%zu bytes (%lu frames x %lu entities x 28)",
                 h->pose_bytes, (unsigned long)h->frame_count, (unsigned long)h->entity_count);
        return onescope_os_reader_fail_at(r, r->pos, ONESCOPE_E_TRUNCATED, "poses", expected,
                                          "%zu bytes", remaining);
    }
    return ONESCOPE_OK;
}

static void load_text(const onescope_allocator *a, const uint8_t **p, onescope_text *t,
                      onescope_code *rc, onescope_error *error, const char *name) {
    size_t length = onescope_os_get_u16(*p);
    if (*rc == ONESCOPE_OK) *rc = copy_text(a, t, (const char *)*p + 2, length, error, name);
    *p += 2 + length;
}

/* The top bit set when the pose at s (file byte layout) breaks the rules: some value's
 * exponent is all ones (an infinity or a NaN) while position x is not a NaN. Branch-free,
 * on bit patterns: (exponent bits) + 0x00800000 reaches bit 31 only from all ones, and
 * 0x7F800000 - |x| wraps past bit 31 only for a NaN. */
static inline uint32_t pose_bad_bit(const uint8_t *s) {
    uint32_t w[7];
    memcpy(w, s, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (int k = 0; k < 7; k++) w[k] = __builtin_bswap32(w[k]);
#endif
    uint32_t nonfinite = 0;
    for (int k = 0; k < 7; k++) nonfinite |= (w[k] & F32_EXPONENT) + 0x00800000u;
    uint32_t x_nan = F32_EXPONENT - (w[0] & 0x7FFFFFFFu);
    return nonfinite & ~x_nan & 0x80000000u;
}

#if defined(__SSE2__)
/* The same test for four poses (seven vectors) at s: each lane's value is refused when its
 * exponent is all ones unless the x of its pose is a NaN; the x words sit at lanes v0[0],
 * v1[3], v3[2] and v5[1], and each is spread over the lanes of its pose. Non-zero lanes where
 * a pose is bad. */
static inline __m128i poses4_bad(const uint8_t *s) {
    const __m128i e = _mm_set1_epi32((int)F32_EXPONENT), abs = _mm_set1_epi32(0x7FFFFFFF);
    const __m128i lane0 = _mm_set_epi32(0, 0, 0, -1), lane3 = _mm_set_epi32(-1, 0, 0, 0);
    __m128i v[7];
    for (int k = 0; k < 7; k++) v[k] = _mm_loadu_si128((const __m128i *)(s + 16 * k));
    /* |x| > exponent bits: a NaN (a signed compare is right: both are below 2^31). */
    __m128i n0 = _mm_shuffle_epi32(_mm_cmpgt_epi32(_mm_and_si128(v[0], abs), e), 0x00);
    __m128i n1 = _mm_shuffle_epi32(_mm_cmpgt_epi32(_mm_and_si128(v[1], abs), e), 0xFF);
    __m128i n2 = _mm_shuffle_epi32(_mm_cmpgt_epi32(_mm_and_si128(v[3], abs), e), 0xAA);
    __m128i n3 = _mm_shuffle_epi32(_mm_cmpgt_epi32(_mm_and_si128(v[5], abs), e), 0x55);
    __m128i ex[7] = {n0, _mm_or_si128(_mm_andnot_si128(lane3, n0), _mm_and_si128(lane3, n1)),
                     n1, _mm_unpacklo_epi64(n1, n2),
                     n2, _mm_or_si128(_mm_and_si128(lane0, n2), _mm_andnot_si128(lane0, n3)),
                     n3};
    __m128i acc = _mm_setzero_si128();
    for (int k = 0; k < 7; k++) {
        __m128i nonfinite = _mm_cmpeq_epi32(_mm_and_si128(v[k], e), e);
        acc = _mm_or_si128(acc, _mm_andnot_si128(ex[k], nonfinite));
    }
    return acc;
}

/* The test for the first multiple of four of count poses; *done says how many. Non-zero when
 * a pose is bad. Most caches hold no infinity or NaN at all (a NaN x marks an absent entity),
 * so 16 poses are first asked only whether any value's exponent is all ones (three operations
 * a vector, about a third of the exact test), and only a group that has one gets the exact
 * test. */
static uint32_t poses_bad_sse2(const uint8_t *src, size_t count, size_t *done) {
    const __m128i e = _mm_set1_epi32((int)F32_EXPONENT);
    __m128i acc = _mm_setzero_si128();
    size_t i = 0;
    for (; count - i >= 16; i += 16) {
        const uint8_t *s = src + i * ONESCOPE_OSPC_POSE_BYTES;
        __m128i any = _mm_setzero_si128();
        for (int k = 0; k < 28; k++) {
            __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(s + 16 * k)), e);
            any = _mm_or_si128(any, _mm_cmpeq_epi32(v, e));
        }
        if (_mm_movemask_epi8(any) == 0) continue;
        for (int k = 0; k < 16; k += 4)
            acc = _mm_or_si128(acc, poses4_bad(s + (size_t)k * ONESCOPE_OSPC_POSE_BYTES));
    }
    for (; count - i >= 4; i += 4)
        acc = _mm_or_si128(acc, poses4_bad(src + i * ONESCOPE_OSPC_POSE_BYTES));
    *done = i;
    return (uint32_t)_mm_movemask_epi8(acc);
}
#endif

/* The first bad value among count poses in the file's byte layout, as pose * 7 + k, or
 * SIZE_MAX. */
static size_t check_pose_bytes(const uint8_t *src, size_t count) {
    /* Fast path: one branch-free test per pose over the whole block (vectors where the host
     * has them); only a block holding a bad pose is searched for the first bad value. */
    uint32_t any = 0;
    size_t i = 0;
#if defined(__SSE2__)
    any = poses_bad_sse2(src, count, &i);
#endif
    for (; i < count; i++) any |= pose_bad_bit(src + i * ONESCOPE_OSPC_POSE_BYTES);
    if (any == 0) return SIZE_MAX;
    uint32_t v[7];
    for (i = 0;; i++) {
        const uint8_t *s = src + i * ONESCOPE_OSPC_POSE_BYTES;
        if (pose_bad_bit(s) == 0) continue;
        for (int k = 0; k < 7; k++) v[k] = onescope_os_get_u32(s + 4 * k);
        return i * 7 + (size_t)pose_bad_value(v);
    }
}

/* Turns poses held in the file's byte layout into native floats, in place: bit patterns
 * only, never float loads, so the ignored NaNs of absent entities keep every bit. */
static void poses_to_native(onescope_pose *poses, size_t count) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)poses;
    (void)count;
#else
    uint8_t *p = (uint8_t *)poses;
    for (size_t i = 0; i < count * 7; i++) {
        uint32_t bits = onescope_os_get_u32(p + 4 * i);
        memcpy(p + 4 * i, &bits, sizeof bits);
    }
#endif
}

/* Copies poses from the file's bytes, checking each block just before it is copied (while
 * it is in cache). Returns what check_pose_bytes returns. */
#define POSE_BLOCK 2048u
static size_t copy_poses(onescope_pose *dst, const uint8_t *src, size_t count) {
    for (size_t base = 0; base < count; base += POSE_BLOCK) {
        size_t n = count - base < POSE_BLOCK ? count - base : POSE_BLOCK;
        const uint8_t *s = src + base * ONESCOPE_OSPC_POSE_BYTES;
        size_t bad = check_pose_bytes(s, n);
        if (bad != SIZE_MAX) return base * 7 + bad;
        memcpy(dst + base, s, n * ONESCOPE_OSPC_POSE_BYTES);
        poses_to_native(dst + base, n);
    }
    return SIZE_MAX;
}

/* The parser: the first pass proves everything but the pose values valid, the second copies
 * it, checking the pose values block by block as they are copied. */
static onescope_code parse_impl(const uint8_t *data, size_t size, const char *name,
                                const onescope_allocator *a, bool *borrowed,
                                onescope_pose_cache **out, onescope_error *error) {
    onescope_os_reader r;
    onescope_os_reader_init(&r, data, size, name, error);
    ospc_header h;
    OS_TRY(scan(&r, a, &h));
    size_t poses_at = r.pos;
    /* Poses can point into the input only where the file's bytes are the host's floats and
     * sit where a float may be loaded from. */
    bool borrow_poses = false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && FLT_RADIX == 2 &&      \
    FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128
    borrow_poses = borrowed != NULL && (uintptr_t)(data + poses_at) % 4 == 0;
#endif
    if (borrowed != NULL) *borrowed = borrow_poses;

    onescope_pose_cache *c;
    OS_TRY(alloc_cache(h.entity_count, h.frame_count, !borrow_poses, a, &c, error, name));
    c->dimensions = h.dimensions;
    c->start_step = h.start_step;
    c->metres_per_unit = h.metres_per_unit;
    onescope_code rc = ONESCOPE_OK;
    const uint8_t *p = r.data + HEADER_BYTES;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++)
        load_text(a, &p, &c->text[i], &rc, error, name);
    for (uint32_t i = 0; i < h.entity_count && rc == ONESCOPE_OK; i++) {
        onescope_pose_entity *e = &c->entities[i];
        e->id = onescope_os_get_u64(p);
        e->shape = p[8];
        for (int k = 0; k < 3; k++) {
            uint32_t bits = onescope_os_get_u32(p + 12 + 4 * k);
            memcpy(&e->size[k], &bits, sizeof bits);
        }
        p += 24;
        load_text(a, &p, &e->name, &rc, error, name);
    }
    if (rc != ONESCOPE_OK) goto fail;
    const uint8_t *pose_bytes = r.data + poses_at;
    size_t bad = borrow_poses ? check_pose_bytes(pose_bytes, h.pose_count)
                              : copy_poses(c->poses, pose_bytes, h.pose_count);
    if (bad != SIZE_MAX) {
        size_t index = bad / 7;
        int k = (int)(bad % 7);
        rc = fail_pose(
            &r, poses_at, index, k, h.entity_count,
            onescope_os_get_u32(pose_bytes + index * ONESCOPE_OSPC_POSE_BYTES + 4 * (size_t)k));
        goto fail;
    }
    if (size - poses_at > h.pose_bytes) {
        char expected[96];
        snprintf(expected, sizeof expected, "end of file after %zu pose bytes", h.pose_bytes);
        rc = onescope_os_reader_fail_at(&r, poses_at + h.pose_bytes, ONESCOPE_E_TRAILING, "poses",
                                        expected, "%zu more bytes", size - poses_at - h.pose_bytes);
        goto fail;
    }
    if (borrow_poses) c->poses = (onescope_pose *)(uintptr_t)pose_bytes;
    *out = c;
    return ONESCOPE_OK;
fail:
    onescope_pose_cache_free(c);
    return rc;
}

onescope_code onescope_pose_cache_parse(const void *data, size_t size, const char *name,
                                        const onescope_parse_options *options,
                                        onescope_pose_cache **out, onescope_error *error) {
    onescope_parse_options defaults = onescope_parse_options_default();
    if (options == NULL) options = &defaults;
    if (name == NULL) name = "<ospc>";
    if (out != NULL) *out = NULL;
    if (out == NULL || (data == NULL && size > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "data and out must not be NULL");
    *out = NULL;
    OS_TRY(onescope_os_check_input_size(size, options, name, error));
    return parse_impl(data, size, name, options->allocator, NULL, out, error);
}

/* ---- validator and writer ---- */

static size_t text_bytes(const onescope_text *t) {
    return 2 + (size_t)t->length;
}

/* The encoded head: fixed fields, the six texts, every entity with its name. In 64 bits, so
 * even an unchecked cache (up to 2^32 entities of 65535-byte names) cannot overflow it. */
static uint64_t head_bytes(const onescope_pose_cache *c) {
    uint64_t total = HEADER_BYTES;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) total += text_bytes(&c->text[i]);
    for (uint32_t i = 0; i < c->entity_count; i++) total += 24 + text_bytes(&c->entities[i].name);
    return total;
}

static onescope_code validate_text(onescope_os_reader *r, size_t at, const char *field,
                                   const onescope_text *t) {
    OS_TRY(check_text_length(r, at, field, t->length));
    if (t->data == NULL && t->length > 0)
        return onescope_os_reader_fail_at(r, at + 2, ONESCOPE_E_ARGUMENT, field, "text",
                                          "NULL data");
    return check_text_bytes(r, at, field, (const uint8_t *)t->data, t->length);
}

onescope_code onescope_pose_cache_validate(const onescope_pose_cache *c, const char *name,
                                           onescope_error *error) {
    if (name == NULL) name = "<ospc>";
    if (c == NULL || c->entities == NULL || c->poses == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "cache, entities and poses must not be NULL");
    /* Offsets in messages are where the value would be written. */
    onescope_os_reader r;
    onescope_os_reader_init(&r, NULL, 0, name, error);
    OS_TRY(check_dimensions(&r, c->dimensions));
    OS_TRY(check_entity_count(&r, c->entity_count));
    OS_TRY(check_frame_count(&r, c->frame_count));
    OS_TRY(check_start_step(&r, c->start_step, c->frame_count));
    OS_TRY(check_metres_per_unit(&r, c->metres_per_unit));
    size_t at = HEADER_BYTES;
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) {
        OS_TRY(validate_text(&r, at, text_names[i], &c->text[i]));
        at += text_bytes(&c->text[i]);
    }
    id_set ids;
    if (!id_set_init(&ids, c->allocator, c->entity_count)) return nomem(error, name, "entity ids");
    onescope_code rc = ONESCOPE_OK;
    char field[96];
    for (uint32_t i = 0; i < c->entity_count && rc == ONESCOPE_OK; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        entity_field(field, sizeof field, i, "id");
        rc = check_entity_id(&r, at, field, e->id);
        if (rc == ONESCOPE_OK) rc = check_unique(&r, at, field, &ids, e->id);
        entity_field(field, sizeof field, i, "shape");
        if (rc == ONESCOPE_OK) rc = check_shape(&r, at + 8, field, e->shape);
        for (int k = 0; k < 3 && rc == ONESCOPE_OK; k++) {
            entity_field(field, sizeof field, i, k == 0 ? "size x" : k == 1 ? "size y" : "size z");
            rc = check_size(&r, at + 12 + 4 * (size_t)k, field, f32_bits(e->size[k]));
        }
        entity_field(field, sizeof field, i, "name");
        if (rc == ONESCOPE_OK) rc = validate_text(&r, at + 24, field, &e->name);
        at += 24 + text_bytes(&e->name);
    }
    onescope_os_free(c->allocator, ids.slots);
    OS_TRY(rc);
    size_t count = (size_t)c->entity_count * c->frame_count;
    uint32_t v[7];
    for (size_t i = 0; i < count; i++) {
        const onescope_pose *p = &c->poses[i];
        for (int k = 0; k < 3; k++) v[k] = f32_bits(p->position[k]);
        for (int k = 0; k < 4; k++) v[3 + k] = f32_bits(p->rotation[k]);
        int bad = pose_bad_value(v);
        if (bad >= 0) return fail_pose(&r, at, i, bad, c->entity_count, v[bad]);
    }
    return ONESCOPE_OK;
}

static void write_text(onescope_os_writer *w, const onescope_text *t) {
    onescope_os_write_u16(w, t->length);
    onescope_os_write_bytes(w, t->data, t->length);
}

onescope_code onescope_pose_cache_write(const onescope_pose_cache *c,
                                        const onescope_allocator *allocator, onescope_buffer *out,
                                        onescope_error *error) {
    const char *name = "<ospc output>";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    memset(out, 0, sizeof *out);
    OS_TRY(onescope_pose_cache_validate(c, name, error));

    size_t total = (size_t)head_bytes(c), pose_bytes; /* validated: at most about 69 MB */
    size_t pose_count = (size_t)c->entity_count * c->frame_count;
    if (!onescope_os_mul_size(pose_count, ONESCOPE_OSPC_POSE_BYTES, &pose_bytes) ||
        !onescope_os_add_size(total, pose_bytes, &total))
        return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size",
                                NULL, "overflows size_t");
    OS_TRY(onescope_os_check_output_size(total, name, error));

    onescope_os_writer w;
    onescope_os_writer_init(&w, allocator);
    onescope_os_writer_reserve_total(&w, total);
    onescope_os_write_bytes(&w, "OSPC", 4);
    onescope_os_write_u16(&w, ONESCOPE_OSPC_VERSION);
    onescope_os_write_u16(&w, 0);
    onescope_os_write_u8(&w, c->dimensions);
    onescope_os_write_u8(&w, 0);
    onescope_os_write_u16(&w, 0);
    onescope_os_write_u32(&w, c->entity_count);
    onescope_os_write_u32(&w, c->frame_count);
    onescope_os_write_i64(&w, c->start_step);
    onescope_os_write_f64(&w, c->metres_per_unit);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) write_text(&w, &c->text[i]);
    for (uint32_t i = 0; i < c->entity_count; i++) {
        const onescope_pose_entity *e = &c->entities[i];
        onescope_os_write_u64(&w, e->id);
        onescope_os_write_u8(&w, e->shape);
        onescope_os_write_bytes(&w, "\0\0\0", 3);
        for (int k = 0; k < 3; k++) onescope_os_write_u32(&w, f32_bits(e->size[k]));
        write_text(&w, &e->name);
    }
    uint8_t *dst = onescope_os_writer_grow(&w, pose_bytes);
    if (dst != NULL) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(dst, c->poses, pose_bytes);
#else
        const float *src = &c->poses[0].position[0];
        for (size_t i = 0; i < pose_count * 7; i++)
            onescope_os_put_u32(dst + 4 * i, f32_bits(src[i]));
#endif
    }
    return onescope_os_writer_finish(&w, out, error, name);
}

/* ---- access ---- */

const onescope_pose *onescope_pose_cache_pose(const onescope_pose_cache *c, uint32_t frame,
                                              uint32_t entity) {
    if (c == NULL || frame >= c->frame_count || entity >= c->entity_count) return NULL;
    return &c->poses[(size_t)frame * c->entity_count + entity];
}

bool onescope_pose_is_present(const onescope_pose *p) {
    return p != NULL && !isnan(p->position[0]);
}

void onescope_pose_rotation(const onescope_pose *p, float out[4]) {
    if (out == NULL) return;
    /* No pose has no rotation: the identity, like an all-zero one. */
    static const float none[4] = {0, 0, 0, 0};
    const float *q = p != NULL ? p->rotation : none;
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

/* ---- the replay field ---- */

bool onescope_file_name_is_plain(const char *s, size_t n) {
    if (s == NULL || n == 0) return false;
    bool only_dots_and_spaces = true;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '/' || ch == '\\' || ch == ':' || ch < 0x20 || ch == 0x7F) return false;
        if (ch != '.' && ch != ' ') only_dots_and_spaces = false;
    }
    /* ".", ".." and names Windows trims to them ("...", ". .") name a folder, not a file. */
    if (only_dots_and_spaces) return false;
    return onescope_os_utf8_valid((const uint8_t *)s, n, NULL);
}

bool onescope_pose_cache_replay_path(const onescope_pose_cache *c, const char *cache_path,
                                     char *out, size_t out_size) {
    if (c == NULL || cache_path == NULL || out == NULL || out_size == 0) return false;
    const onescope_text *replay = &c->text[ONESCOPE_POSE_TEXT_REPLAY];
    if (!onescope_file_name_is_plain(replay->data, replay->length)) return false;
    /* The directory part of cache_path, separator included ("" when there is none). */
    size_t dir = 0;
    for (size_t i = 0; cache_path[i] != '\0'; i++) {
#ifdef _WIN32
        if (cache_path[i] == '\\' || cache_path[i] == ':') dir = i + 1;
#endif
        if (cache_path[i] == '/') dir = i + 1;
    }
    if (dir + replay->length + 1 > out_size) return false;
    memcpy(out, cache_path, dir);
    memcpy(out + dir, replay->data, replay->length);
    out[dir + replay->length] = '\0';
    return true;
}

/* ---- push validator: the parser's checks over bytes fed in pieces (src/file.c feeds it
 * through one fixed buffer) ----
 * The file is cut into units the parser checks one after another: the 36-byte header, six
 * texts, the entities, then the poses. A unit's bytes are gathered in `unit` (at most one
 * entity with a 1024-byte name), then the parser's own scan function runs on them; its
 * offsets are relative to the unit and are moved by the unit's offset in the file. A file
 * that ends inside a unit gets that scan on the bytes there are, so it fails exactly where
 * and how the parser fails. Poses are checked in place as they stream past. */

enum { CHECK_HEADER, CHECK_TEXT, CHECK_ENTITY, CHECK_POSES, CHECK_END };

#define UNIT_MAX (ENTITY_FIXED_BYTES + ONESCOPE_OSPC_MAX_TEXT)

struct onescope_os_ospc_check {
    const char *name;
    const onescope_allocator *allocator;
    size_t total;   /* the whole input's size */
    size_t pos;     /* bytes fed so far */
    size_t unit_at; /* file offset of the unit being gathered */
    size_t have;    /* bytes of it in unit[] */
    size_t need;    /* bytes it has, once its length is known */
    uint32_t index; /* text or entity index */
    int phase;
    ospc_header h;
    id_set ids;
    size_t poses_at, poses_done;
    /* Of unknown size (total is then the limit): the bytes fed, errors or not; the header
     * once whole, scanned again at end with the real size; whether the poses were reached. */
    bool unknown;
    size_t seen;
    bool head_kept, poses_reached;
    uint8_t head[HEADER_BYTES];
    onescope_code rc;
    onescope_error error;
    uint8_t unit[UNIT_MAX];
};

onescope_code onescope_os_ospc_check_begin(size_t total, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_os_ospc_check **out, onescope_error *error) {
    if (name == NULL) name = "<ospc>";
    const onescope_allocator *a = options != NULL ? options->allocator : NULL;
    *out = NULL;
    bool unknown = total == ONESCOPE_OS_SIZE_UNKNOWN;
    /* First, as the parser: the size limit before anything else. */
    if (unknown)
        total = onescope_os_input_limit(options);
    else
        OS_TRY(onescope_os_check_input_size(total, options, name, error));
    onescope_os_ospc_check *c = onescope_os_calloc(a, 1, sizeof *c);
    if (c == NULL) return nomem(error, name, "validator");
    c->name = name;
    c->allocator = a;
    c->total = total;
    c->unknown = unknown;
    c->phase = CHECK_HEADER;
    c->need = HEADER_BYTES;
    *out = c;
    return ONESCOPE_OK;
}

void onescope_os_ospc_check_free(onescope_os_ospc_check *c) {
    if (c == NULL) return;
    onescope_os_free(c->allocator, c->ids.slots);
    onescope_os_free(c->allocator, c);
}

/* Records the first error, moved from unit-relative to file offsets by `base`. */
static onescope_code check_failed(onescope_os_ospc_check *c, onescope_code rc, size_t base) {
    if (c->error.has_offset) c->error.offset += base;
    c->rc = rc;
    c->phase = CHECK_END;
    return rc;
}

/* Runs the parser's scan of the current unit on the bytes gathered so far. */
static onescope_code scan_unit(onescope_os_ospc_check *c) {
    onescope_os_reader r;
    onescope_os_reader_init(&r, c->unit, c->have, c->name, &c->error);
    onescope_code rc;
    if (c->phase == CHECK_HEADER && c->have == HEADER_BYTES) {
        memcpy(c->head, c->unit, HEADER_BYTES);
        c->head_kept = true;
    }
    if (c->phase == CHECK_HEADER)
        rc = scan_header(&r, c->total, &c->h);
    else if (c->phase == CHECK_TEXT)
        rc = scan_text(&r, text_names[c->index]);
    else
        rc = scan_entity(&r, c->index, &c->ids);
    return rc == ONESCOPE_OK ? rc : check_failed(c, rc, c->unit_at);
}

/* The unit's full size once enough of it is here to know it (0: not yet). */
static size_t unit_size(const onescope_os_ospc_check *c) {
    if (c->phase == CHECK_HEADER) return HEADER_BYTES;
    size_t fixed = c->phase == CHECK_TEXT ? 2 : ENTITY_FIXED_BYTES;
    if (c->have < fixed) return fixed;
    size_t length = onescope_os_get_u16(c->unit + fixed - 2);
    /* Too long for the rule: scan now, it fails at the length (or earlier). */
    return length > ONESCOPE_OSPC_MAX_TEXT ? c->have : fixed + length;
}

static onescope_code poses_fit(onescope_os_ospc_check *c);

/* A unit passed its scan: on to the next one. */
static onescope_code next_unit(onescope_os_ospc_check *c) {
    if (c->phase == CHECK_HEADER) {
        if (c->h.entity_count > 1 && !id_set_init(&c->ids, c->allocator, c->h.entity_count))
            return check_failed(c, nomem(&c->error, c->name, "entity ids"), 0);
        c->phase = CHECK_TEXT;
        c->index = 0;
    } else if (c->phase == CHECK_TEXT && ++c->index == ONESCOPE_POSE_TEXT_COUNT) {
        c->phase = CHECK_ENTITY;
        c->index = 0;
    } else if (c->phase == CHECK_ENTITY && ++c->index == c->h.entity_count) {
        c->phase = CHECK_POSES;
    }
    c->unit_at = c->pos;
    c->have = 0;
    c->need = c->phase == CHECK_HEADER ? HEADER_BYTES
              : c->phase == CHECK_TEXT ? 2
                                       : ENTITY_FIXED_BYTES;
    if (c->phase != CHECK_POSES) return ONESCOPE_OK;
    c->poses_at = c->pos;
    c->poses_reached = true;
    return poses_fit(c);
}

/* The parser's check after the entities, with what the whole input has left. */
static onescope_code poses_fit(onescope_os_ospc_check *c) {
    size_t remaining = c->total - c->poses_at;
    if (remaining < c->h.pose_bytes) {
        char expected[96];
        snprintf(expected, sizeof expected, "%zu bytes (%lu frames x %lu entities x 28)",
                 c->h.pose_bytes, (unsigned long)c->h.frame_count,
                 (unsigned long)c->h.entity_count);
        onescope_os_reader r;
        onescope_os_reader_init(&r, NULL, 0, c->name, &c->error);
        return check_failed(c,
                            onescope_os_reader_fail_at(&r, c->poses_at, ONESCOPE_E_TRUNCATED,
                                                       "poses", expected, "%zu bytes", remaining),
                            0);
    }
    return ONESCOPE_OK;
}

/* Checks count whole poses at p, the poses_done-th onwards. */
static onescope_code check_poses(onescope_os_ospc_check *c, const uint8_t *p, size_t count) {
    size_t bad = check_pose_bytes(p, count);
    if (bad != SIZE_MAX) {
        size_t index = c->poses_done + bad / 7;
        int k = (int)(bad % 7);
        onescope_os_reader r;
        onescope_os_reader_init(&r, NULL, 0, c->name, &c->error);
        return check_failed(c,
                            fail_pose(&r, c->poses_at, index, k, c->h.entity_count,
                                      onescope_os_get_u32(p + (bad / 7) * ONESCOPE_OSPC_POSE_BYTES +
                                                          4 * (size_t)k)),
                            0);
    }
    c->poses_done += count;
    return ONESCOPE_OK;
}

static onescope_code trailing(onescope_os_ospc_check *c) {
    char expected[96];
    size_t end = c->poses_at + c->h.pose_bytes;
    snprintf(expected, sizeof expected, "end of file after %zu pose bytes", c->h.pose_bytes);
    onescope_os_reader r;
    onescope_os_reader_init(&r, NULL, 0, c->name, &c->error);
    return check_failed(c,
                        onescope_os_reader_fail_at(&r, end, ONESCOPE_E_TRAILING, "poses", expected,
                                                   "%zu more bytes", c->total - end),
                        0);
}

static onescope_code feed_bytes(onescope_os_ospc_check *c, const uint8_t *p, size_t n);

onescope_code onescope_os_ospc_check_feed(onescope_os_ospc_check *c, const void *data, size_t n) {
    if (!c->unknown) return feed_bytes(c, data, n);
    if (c->rc == ONESCOPE_E_TOO_LARGE) return c->rc;
    if (n > c->total - c->seen) {
        c->phase = CHECK_END;
        return c->rc = onescope_os_stream_too_large(c->total, c->name, &c->error);
    }
    c->seen += n;
    if (c->rc == ONESCOPE_OK) feed_bytes(c, data, n);
    return ONESCOPE_OK; /* an error waits for the size: end decides */
}

static onescope_code feed_bytes(onescope_os_ospc_check *c, const uint8_t *p, size_t n) {
    if (c->rc != ONESCOPE_OK) return c->rc;
    if (n > c->total - c->pos)
        return check_failed(c,
                            onescope_os_fail(&c->error, ONESCOPE_E_IO, c->name, OS_NO_OFFSET,
                                             "file size", "the size the file had when opened",
                                             "more bytes (it grew while being read)"),
                            0);
    while (n > 0) {
        if (c->phase == CHECK_POSES) {
            size_t left = c->h.pose_count - c->poses_done;
            if (left == 0) return trailing(c);
            if (c->have > 0 || n < ONESCOPE_OSPC_POSE_BYTES) {
                /* A pose split between two pieces: gather it. */
                size_t k = ONESCOPE_OSPC_POSE_BYTES - c->have;
                if (k > n) k = n;
                memcpy(c->unit + c->have, p, k);
                c->have += k;
                p += k;
                n -= k;
                c->pos += k;
                if (c->have == ONESCOPE_OSPC_POSE_BYTES) {
                    c->have = 0;
                    OS_TRY(check_poses(c, c->unit, 1));
                }
                continue;
            }
            size_t count = n / ONESCOPE_OSPC_POSE_BYTES;
            if (count > left) count = left;
            OS_TRY(check_poses(c, p, count));
            p += count * ONESCOPE_OSPC_POSE_BYTES;
            n -= count * ONESCOPE_OSPC_POSE_BYTES;
            c->pos += count * ONESCOPE_OSPC_POSE_BYTES;
            continue;
        }
        size_t k = c->need - c->have;
        if (k > n) k = n;
        memcpy(c->unit + c->have, p, k);
        c->have += k;
        p += k;
        n -= k;
        c->pos += k;
        if (c->have < c->need) continue;
        c->need = unit_size(c);
        if (c->have < c->need) continue;
        OS_TRY(scan_unit(c));
        OS_TRY(next_unit(c));
    }
    if (!c->unknown && c->phase == CHECK_POSES && c->poses_done == c->h.pose_count &&
        c->pos < c->total)
        return trailing(c);
    return ONESCOPE_OK;
}

size_t onescope_os_ospc_check_poses_at(const onescope_os_ospc_check *c) {
    return c->rc == ONESCOPE_OK && c->phase == CHECK_POSES ? c->poses_at : 0;
}

/* The end of an input of unknown size, now seen bytes long: the rules that need the size run
 * again, in the parser's order, and the first that fails replaces what the scan found. */
static void end_unknown(onescope_os_ospc_check *c) {
    c->total = c->seen;
    if (c->head_kept) {
        onescope_os_reader r;
        ospc_header h;
        onescope_os_reader_init(&r, c->head, HEADER_BYTES, c->name, &c->error);
        onescope_code rc = scan_header(&r, c->total, &h);
        if (rc != ONESCOPE_OK) {
            check_failed(c, rc, 0);
            return;
        }
    }
    if (c->poses_reached && poses_fit(c) != ONESCOPE_OK) return;
    if (c->rc == ONESCOPE_E_TRAILING) trailing(c); /* its count of bytes, now known */
}

onescope_code onescope_os_ospc_check_end(onescope_os_ospc_check *c, onescope_error *error) {
    if (c->unknown && c->rc != ONESCOPE_E_TOO_LARGE) end_unknown(c);
    if (c->rc == ONESCOPE_OK && c->pos != c->total)
        check_failed(c,
                     onescope_os_fail(&c->error, ONESCOPE_E_IO, c->name, OS_NO_OFFSET, "file size",
                                      "the size the file had when opened",
                                      "fewer bytes (it shrank while being read)"),
                     0);
    /* The input ended inside a unit: the parser's scan of what there is fails the same way.
     * (The header and the pose count were checked against the whole size, so an input that
     * is as long as it said ends after its last pose.) */
    if (c->rc == ONESCOPE_OK && c->phase != CHECK_POSES) scan_unit(c);
    if (c->rc != ONESCOPE_OK && error != NULL) *error = c->error;
    return c->rc;
}

/* ---- the mapped open's parse (the mapping itself is src/file.c's) ---- */

onescope_code onescope_os_pose_cache_parse_mapped(const void *data, size_t size, const char *name,
                                                  const onescope_parse_options *options,
                                                  bool *borrowed, onescope_pose_cache **out,
                                                  onescope_error *error) {
    *borrowed = false;
    *out = NULL;
    OS_TRY(onescope_os_check_input_size(size, options, name, error));
    return parse_impl(data, size, name, options != NULL ? options->allocator : NULL, borrowed, out,
                      error);
}

/* ---- recording: the pose setter, the head of a streaming write, partial files ----
 * Only bytes <-> structs here; the writer and recovery's file I/O are in src/pose_writer.c.
 * Declarations: include/onescope/pose_cache.h and src/pose_head.h. */

/* The first bad value of count native poses as pose * 7 + k, or SIZE_MAX. */
static size_t check_native_poses(const onescope_pose *poses, size_t count) {
    uint32_t v[7];
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 3; k++) v[k] = f32_bits(poses[i].position[k]);
        for (int k = 0; k < 4; k++) v[3 + k] = f32_bits(poses[i].rotation[k]);
        int bad = pose_bad_value(v);
        if (bad >= 0) return i * 7 + (size_t)bad;
    }
    return SIZE_MAX;
}

static uint32_t native_bits(const onescope_pose *p, int k) {
    return k < 3 ? f32_bits(p->position[k]) : f32_bits(p->rotation[k - 3]);
}

onescope_code onescope_pose_cache_set_pose(onescope_pose_cache *c, uint32_t frame, uint32_t entity,
                                           const onescope_pose *pose, onescope_error *error) {
    const char *name = "onescope_pose_cache_set_pose";
    if (c == NULL || c->poses == NULL || pose == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "cache, its poses and pose must not be NULL");
    if (c->mapping != NULL) return refuse_mapped(error, name);
    char expected[64];
    if (frame >= c->frame_count) {
        snprintf(expected, sizeof expected, "below the frame count %lu",
                 (unsigned long)c->frame_count);
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "frame", expected,
                                "%lu", (unsigned long)frame);
    }
    if (entity >= c->entity_count) {
        snprintf(expected, sizeof expected, "below the entity count %lu",
                 (unsigned long)c->entity_count);
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "entity", expected,
                                "%lu", (unsigned long)entity);
    }
    size_t bad = check_native_poses(pose, 1);
    if (bad != SIZE_MAX) {
        char field[96], found[48];
        snprintf(field, sizeof field, "frame %lu entity %lu %s", (unsigned long)frame,
                 (unsigned long)entity, pose_value_names[bad]);
        describe_f32(found, sizeof found, native_bits(pose, (int)bad));
        return onescope_os_fail(error, ONESCOPE_E_NOT_FINITE, name, OS_NO_OFFSET, field,
                                "a finite number (NaN only in position x, for an absent entity)",
                                "%s", found);
    }
    /* memcpy, not assignment: the ignored values of an absent pose keep every bit. */
    memcpy(&c->poses[(size_t)frame * c->entity_count + entity], pose, sizeof *pose);
    return ONESCOPE_OK;
}

onescope_code onescope_os_ospc_check_frame(const onescope_pose *poses, uint32_t entity_count,
                                           uint32_t frame, uint64_t poses_at, const char *name,
                                           onescope_error *error) {
    size_t bad = check_native_poses(poses, entity_count);
    if (bad == SIZE_MAX) return ONESCOPE_OK;
    size_t e = bad / 7;
    int k = (int)(bad % 7);
    char field[96], found[48];
    snprintf(field, sizeof field, "frame %lu entity %zu %s", (unsigned long)frame, e,
             pose_value_names[k]);
    describe_f32(found, sizeof found, native_bits(&poses[e], k));
    uint64_t at = poses_at + ((uint64_t)frame * entity_count + e) * ONESCOPE_OSPC_POSE_BYTES +
                  4 * (uint64_t)k;
    return onescope_os_fail(error, ONESCOPE_E_NOT_FINITE, name, at, field,
                            "a finite number (NaN only in position x, for an absent entity)", "%s",
                            found);
}

void onescope_os_ospc_put_poses(uint8_t *dst, const onescope_pose *poses, size_t count) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(dst, poses, count * ONESCOPE_OSPC_POSE_BYTES);
#else
    const float *src = &poses[0].position[0];
    for (size_t i = 0; i < count * 7; i++) onescope_os_put_u32(dst + 4 * i, f32_bits(src[i]));
#endif
}

onescope_code onescope_pose_cache_head_size(const onescope_pose_cache *cache, uint64_t *size,
                                            onescope_error *error) {
    if (size != NULL) *size = 0;
    if (cache == NULL || size == NULL || (cache->entities == NULL && cache->entity_count > 0))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "onescope_pose_cache_head_size",
                                OS_NO_OFFSET, NULL, NULL,
                                "cache, its entities and size must not be NULL");
    *size = head_bytes(cache);
    return ONESCOPE_OK;
}

/* The head is the writer's own output for a one-frame cache, cut before its poses: the same
 * checks and the same bytes as onescope_pose_cache_write, with no second encoder to drift. */
onescope_code onescope_os_ospc_encode_head(const onescope_pose_cache *head, uint32_t frame_count,
                                           const onescope_allocator *a, onescope_buffer *out,
                                           const char *name, onescope_error *error) {
    memset(out, 0, sizeof *out);
    if (head == NULL || head->entities == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, NULL, NULL,
                                "head and its entities must not be NULL");
    onescope_os_reader r;
    onescope_os_reader_init(&r, NULL, 0, name, error);
    OS_TRY(check_entity_count(&r, head->entity_count)); /* before it sizes an allocation */
    onescope_pose_cache one = *head;
    one.frame_count = 1;
    one.allocator = a;
    one.poses = onescope_os_calloc(a, head->entity_count, sizeof *one.poses);
    if (one.poses == NULL) return nomem(error, name, "head");
    onescope_code rc = onescope_pose_cache_write(&one, a, out, error); /* validates first */
    onescope_os_free(a, one.poses);
    if (rc != ONESCOPE_OK) {
        /* The writer names its output "<ospc output>": say which recording it was. */
        if (error != NULL) onescope_os_copy_text(error->input, sizeof error->input, name);
        return rc;
    }
    out->size -= (size_t)head->entity_count * ONESCOPE_OSPC_POSE_BYTES;
    onescope_os_put_u32(out->data + ONESCOPE_OS_OSPC_FRAME_COUNT_AT, frame_count);
    return ONESCOPE_OK;
}

/* A partial recording's head is a cache's head whose frame count is the marker. */
static onescope_code scan_partial_header(onescope_os_reader *r, ospc_header *h) {
    return scan_header_as(r, r->size, h, true);
}

onescope_code onescope_os_ospc_partial_head(const uint8_t *data, size_t n, uint64_t total,
                                            const char *name, bool accept_final,
                                            const onescope_allocator *a,
                                            onescope_os_ospc_partial *out, onescope_error *error) {
    if (name == NULL) name = "<ospc partial>";
    memset(out, 0, sizeof *out);
    onescope_os_reader r;
    onescope_os_reader_init(&r, data, n, name, error);
    ospc_header h;
    OS_TRY(scan_partial_header(&r, &h));
    if (h.frame_count != ONESCOPE_OS_OSPC_PARTIAL_MARK && !accept_final)
        return onescope_os_reader_fail_at(
            &r, 16, ONESCOPE_E_RANGE, "frame count",
            "the partial-recording marker 4294967295 (this is not a partial recording)", "%lu",
            (unsigned long)h.frame_count);
    for (int i = 0; i < ONESCOPE_POSE_TEXT_COUNT; i++) OS_TRY(scan_text(&r, text_names[i]));
    id_set ids = {NULL, 0};
    if (h.entity_count > 1 && !id_set_init(&ids, a, h.entity_count))
        return nomem(error, name, "entity ids");
    onescope_code rc = ONESCOPE_OK;
    for (uint32_t i = 0; i < h.entity_count && rc == ONESCOPE_OK; i++)
        rc = scan_entity(&r, i, &ids);
    onescope_os_free(a, ids.slots);
    OS_TRY(rc);
    /* From here on the rules count the file's bytes, not the prefix's. */
    size_t frame_bytes = (size_t)h.entity_count * ONESCOPE_OSPC_POSE_BYTES;
    uint64_t remaining = total - r.pos;
    uint64_t frames = remaining / frame_bytes; /* a torn last frame is left out */
    if (h.frame_count != ONESCOPE_OS_OSPC_PARTIAL_MARK && frames * frame_bytes != remaining) {
        /* A written count means close got as far as it: no frame can be torn. */
        return onescope_os_reader_fail_at(
            &r, 16, ONESCOPE_E_RANGE, "frame count",
            "the partial-recording marker 4294967295, or the count of the file's frames",
            "%lu with %" PRIu64 " pose bytes", (unsigned long)h.frame_count, remaining);
    }
    if (h.frame_count != ONESCOPE_OS_OSPC_PARTIAL_MARK && frames != h.frame_count)
        return onescope_os_reader_fail_at(
            &r, 16, ONESCOPE_E_RANGE, "frame count",
            "the partial-recording marker 4294967295, or the count of the file's frames",
            "%lu where the file holds %" PRIu64 " frames", (unsigned long)h.frame_count, frames);
    if (frames == 0) {
        char expected[96];
        snprintf(expected, sizeof expected, "at least one complete frame (%zu bytes)", frame_bytes);
        return onescope_os_reader_fail_at(&r, r.pos, ONESCOPE_E_TRUNCATED, "poses", expected,
                                          "%" PRIu64 " bytes", remaining);
    }
    if (frames > ONESCOPE_OSPC_MAX_FRAMES)
        return onescope_os_reader_fail_at(&r, r.pos + ONESCOPE_OSPC_MAX_FRAMES * frame_bytes,
                                          ONESCOPE_E_RANGE, "frame count",
                                          "at most 4194304 complete frames", "%" PRIu64, frames);
    /* The steps of the frames it holds: a writer never appends past the rule, so a partial
     * beyond it was not written by one; refused whole rather than cut. */
    OS_TRY(check_start_step(&r, h.start_step, (uint32_t)frames));
    out->poses_at = r.pos;
    out->entity_count = h.entity_count;
    out->frames = (uint32_t)frames;
    out->kept_bytes = r.pos + (size_t)frames * frame_bytes;
    return ONESCOPE_OK;
}

onescope_code onescope_os_ospc_partial_poses(const onescope_os_ospc_partial *info,
                                             const uint8_t *bytes, size_t first, size_t count,
                                             const char *name, onescope_error *error) {
    size_t bad = check_pose_bytes(bytes, count);
    if (bad == SIZE_MAX) return ONESCOPE_OK;
    size_t index = bad / 7;
    int k = (int)(bad % 7);
    onescope_os_reader r; /* only for its name and error: the offset is the file's */
    onescope_os_reader_init(&r, bytes, 0, name != NULL ? name : "<ospc partial>", error);
    return fail_pose(&r, info->poses_at, first + index, k, info->entity_count,
                     onescope_os_get_u32(bytes + index * ONESCOPE_OSPC_POSE_BYTES + 4 * (size_t)k));
}

onescope_code onescope_os_ospc_partial_scan(const uint8_t *data, size_t size, const char *name,
                                            bool accept_final, const onescope_allocator *a,
                                            onescope_os_ospc_partial *out, onescope_error *error) {
    OS_TRY(onescope_os_ospc_partial_head(data, size, size, name, accept_final, a, out, error));
    onescope_code rc = onescope_os_ospc_partial_poses(
        out, data + out->poses_at, 0, (size_t)out->frames * out->entity_count, name, error);
    if (rc != ONESCOPE_OK) memset(out, 0, sizeof *out);
    return rc;
}

/* ---- the OSPC codec (check_internal.h) ---- */

static onescope_code ospc_begin(size_t total, const char *name,
                                const onescope_parse_options *options, void **state,
                                onescope_error *error) {
    onescope_os_ospc_check *c = NULL;
    onescope_code rc = onescope_os_ospc_check_begin(total, name, options, &c, error);
    *state = c;
    return rc;
}

static onescope_code ospc_feed(void *state, const void *data, size_t n) {
    return onescope_os_ospc_check_feed(state, data, n);
}

static onescope_code ospc_end(void *state, onescope_error *error) {
    return onescope_os_ospc_check_end(state, error);
}

static void ospc_free(void *state) {
    onescope_os_ospc_check_free(state);
}

static onescope_code ospc_parse_only(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_error *error) {
    onescope_pose_cache *c;
    onescope_code rc = onescope_pose_cache_parse(data, size, name, options, &c, error);
    onescope_pose_cache_free(rc == ONESCOPE_OK ? c : NULL);
    return rc;
}

static const onescope_os_push_ops ospc_push = {ospc_begin, ospc_feed, ospc_end, ospc_free};
const onescope_os_codec onescope_os_ospc_codec = {&ospc_push, NULL, ospc_parse_only};

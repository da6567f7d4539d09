/* The module seam: checking a module's table and holding a world of any module for the tools.
 * Every call into a module goes through here, so a missing slot is one line naming the module
 * and what needed the slot, never a NULL call. The contract: docs/module.md. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "numfmt.h"
#include "onescope/module.h"
#include "run_internal.h"

/* A table's bytes up to and including member m: what struct_size must cover to hold it. */
#define MODULE_HAS(table, m)                                                                       \
    ((table)->struct_size >= offsetof(onescope_module, m) + sizeof((table)->m))

/* The bytes a snapshot or a description may take: what a parser would read back. */
#define SINK_LIMIT ONESCOPE_MAX_INPUT_BYTES

struct onescope_module_sink {
    onescope_os_writer writer;
    bool over; /* an append went past SINK_LIMIT */
};

struct onescope_world {
    onescope_module table; /* the caller's table, members past its struct_size zeroed */
    const onescope_allocator *allocator;
    void *world;
    uint8_t *setup; /* a copy, for describe_input and check_input */
    size_t setup_size;
    uint32_t world_values; /* every world value's elements (checked by the table's check) */
    uint32_t next_stage;   /* 0 at a step boundary */
    bool failed;           /* a step or stage failed: the module's world is not stepped again */
};

onescope_code onescope_module_sink_append(onescope_module_sink *sink, const void *data,
                                          size_t size) {
    if (sink == NULL || (data == NULL && size != 0)) return ONESCOPE_E_ARGUMENT;
    if (sink->over || sink->writer.failed) return ONESCOPE_E_NOMEM;
    if (size > SINK_LIMIT - sink->writer.size) {
        sink->over = true;
        return ONESCOPE_E_TOO_LARGE;
    }
    onescope_os_write_bytes(&sink->writer, data, size);
    return sink->writer.failed ? ONESCOPE_E_NOMEM : ONESCOPE_OK;
}

onescope_code onescope_module_fail(onescope_error *error, onescope_code code, uint64_t offset,
                                   const char *field, const char *expected, const char *found) {
    if (code == ONESCOPE_OK) code = ONESCOPE_E_ENGINE; /* a failure is never OK */
    return onescope_os_fail(error, code, "", offset, field, expected, found ? "%s" : NULL, found);
}

/* ---- checking a table ---- */

static onescope_code table_fail(onescope_error *error, const char *name, const char *member,
                                const char *expected, const char *found_fmt, ...) {
    va_list ap;
    va_start(ap, found_fmt);
    char member_field[96];
    snprintf(member_field, sizeof member_field, "module.%s", member);
    onescope_code rc = onescope_os_failv(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET,
                                         member_field, expected, found_fmt, ap);
    va_end(ap);
    return rc;
}

/* id: [a-z][a-z0-9._-]*, at most ONESCOPE_MODULE_ID_MAX bytes. */
static bool id_ok(const char *id) {
    size_t n = strnlen(id, ONESCOPE_MODULE_ID_MAX + 1);
    if (n == 0 || n > ONESCOPE_MODULE_ID_MAX || id[0] < 'a' || id[0] > 'z') return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool onescope_os_text_ok(const char *v, size_t max) {
    size_t n = strnlen(v, max + 1);
    if (n == 0 || n > max) return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e) return false;
    return true;
}

/* version: printable ASCII, 1..ONESCOPE_MODULE_VERSION_MAX bytes. */
static bool version_ok(const char *v) {
    return onescope_os_text_ok(v, ONESCOPE_MODULE_VERSION_MAX);
}

/* A value's, group's, stage's or world value's name: 1..64 printable ASCII bytes (a keyframe
 * head's length byte holds 1..64). A unit: "" or the same. */
static bool name_ok(const char *s) {
    return s != NULL && onescope_os_text_ok(s, ONESCOPE_MODULE_NAME_MAX);
}

static bool unit_ok(const char *s) {
    return s != NULL && (s[0] == '\0' || onescope_os_text_ok(s, ONESCOPE_MODULE_NAME_MAX));
}

/* Names n of a list unique (n is bounded by the caller: at most 1024): the first repeat's two
 * indices, or false. */
static bool names_repeat(const char *const *names, size_t stride, uint32_t n, uint32_t *first,
                         uint32_t *second) {
    for (uint32_t v = 1; v < n; v++)
        for (uint32_t w = 0; w < v; w++) {
            const char *a = *(const char *const *)((const char *)names + (size_t)w * stride);
            const char *b = *(const char *const *)((const char *)names + (size_t)v * stride);
            if (strcmp(a, b) == 0) {
                *first = w;
                *second = v;
                return true;
            }
        }
    return false;
}

/* The table with members past its struct_size zeroed (a table built for an older header). */
/* Where each member ends, in order: a table holds the members that end within its
 * struct_size, whole; a size that ends inside a member leaves that member out (a half pointer is
 * never read). */
#define MEMBER_END(m) (offsetof(onescope_module, m) + sizeof(((onescope_module *)0)->m))
static const size_t member_ends[] = {MEMBER_END(struct_size),
                                     MEMBER_END(abi),
                                     MEMBER_END(id),
                                     MEMBER_END(version),
                                     MEMBER_END(context),
                                     MEMBER_END(create),
                                     MEMBER_END(free),
                                     MEMBER_END(step),
                                     MEMBER_END(hash),
                                     MEMBER_END(check_setup),
                                     MEMBER_END(check_input),
                                     MEMBER_END(stage_count),
                                     MEMBER_END(stage_names),
                                     MEMBER_END(run_stage),
                                     MEMBER_END(snapshot),
                                     MEMBER_END(restore),
                                     MEMBER_END(entity_count),
                                     MEMBER_END(entity_id),
                                     MEMBER_END(entity_pose),
                                     MEMBER_END(value_count),
                                     MEMBER_END(values),
                                     MEMBER_END(group_count),
                                     MEMBER_END(group_names),
                                     MEMBER_END(entity_values),
                                     MEMBER_END(describe_input),
                                     MEMBER_END(metres_per_unit),
                                     MEMBER_END(unit_name),
                                     MEMBER_END(dimensions),
                                     MEMBER_END(world_value_count),
                                     MEMBER_END(world_values),
                                     MEMBER_END(read_world_values),
                                     MEMBER_END(flags)};
/* the list ends with the struct's last member: only padding may follow it */
_Static_assert(sizeof(onescope_module) - MEMBER_END(flags) < sizeof(void *),
               "member_ends lists every member of onescope_module");

static void table_copy(const onescope_module *module, onescope_module *out) {
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t k = 0; k < sizeof member_ends / sizeof *member_ends; k++)
        if (member_ends[k] <= module->struct_size) n = member_ends[k];
    memcpy(out, module, n);
    out->struct_size = (uint32_t)sizeof *out;
}

/* Each entry named once, with a unit, a known type and 1 or more elements, the elements in all
 * at most ONESCOPE_MODULE_MAX_WORLD_VALUES; a reader exactly when there are entries. */
static onescope_code check_world_values(const onescope_module *t, const char *name,
                                        onescope_error *error) {
    bool some = t->world_values != NULL || t->read_world_values != NULL;
    bool all = t->world_values != NULL && t->read_world_values != NULL;
    if (t->world_value_count != 0 ? !all : some)
        return table_fail(error, name, "world_values",
                          "world values with their table and read_world_values, or none",
                          "%" PRIu32 " world values, table %s, read_world_values %s",
                          t->world_value_count, t->world_values ? "set" : "NULL",
                          t->read_world_values ? "set" : "NULL");
    uint64_t total = 0;
    for (uint32_t v = 0; v < t->world_value_count; v++) {
        const onescope_world_value_info *vi = &t->world_values[v];
        if (!name_ok(vi->name) || !unit_ok(vi->unit) || vi->count == 0 ||
            (unsigned)vi->type > ONESCOPE_VALUE_BOOL)
            return table_fail(error, name, "world_values",
                              "a name of 1-64 printable ASCII bytes, a unit of 0-64, a known "
                              "type and 1 or more elements",
                              "world value %" PRIu32 " not so", v);
        total += vi->count;
        if (total > ONESCOPE_MODULE_MAX_WORLD_VALUES)
            return table_fail(error, name, "world_values", "at most 65536 elements in all",
                              "more at world value %" PRIu32, v);
    }
    uint32_t w, v;
    if (t->world_value_count != 0 && names_repeat(&t->world_values[0].name, sizeof *t->world_values,
                                                  t->world_value_count, &w, &v))
        return table_fail(error, name, "world_values", "unique names",
                          "world values %" PRIu32 " and %" PRIu32 " share one", w, v);
    return ONESCOPE_OK;
}

onescope_code onescope_module_check(const onescope_module *module, const char *name,
                                    onescope_error *error) {
    if (name == NULL) name = "module";
    if (module == NULL) return table_fail(error, name, "table", "a module table", "NULL");
    if (module->abi != ONESCOPE_MODULE_ABI)
        return onescope_os_fail(error, ONESCOPE_E_VERSION, name, OS_NO_OFFSET, "module.abi",
                                "ABI 1 (this library's ONESCOPE_MODULE_ABI)", "ABI %" PRIu32,
                                module->abi);
    if (!MODULE_HAS(module, hash))
        return table_fail(error, name, "struct_size", "at least the ABI 1 required members",
                          "%" PRIu32 " bytes", module->struct_size);
    onescope_module t;
    table_copy(module, &t);
    if (t.id == NULL || !id_ok(t.id))
        return table_fail(error, name, "id", "1-64 bytes of [a-z0-9._-], starting with a letter",
                          "%s", t.id == NULL ? "NULL" : "another text");
    if (t.version == NULL || !version_ok(t.version))
        return table_fail(error, name, "version", "1-64 printable ASCII bytes", "%s",
                          t.version == NULL ? "NULL" : "another text");
    if (t.create == NULL) return table_fail(error, name, "create", "a function", "NULL");
    if (t.free == NULL) return table_fail(error, name, "free", "a function", "NULL");
    if (t.step == NULL) return table_fail(error, name, "step", "a function", "NULL");
    if (t.hash == NULL) return table_fail(error, name, "hash", "a function", "NULL");
    if ((t.stage_count != 0) != (t.run_stage != NULL) || (t.stage_count && !t.stage_names))
        return table_fail(error, name, "stage_count", "stages with names and run_stage, or none",
                          "%" PRIu32 " stages, names %s, run_stage %s", t.stage_count,
                          t.stage_names ? "set" : "NULL", t.run_stage ? "set" : "NULL");
    if (t.stage_count > ONESCOPE_MODULE_MAX_STAGES)
        return table_fail(error, name, "stage_count", "at most 1024 stages", "%" PRIu32,
                          t.stage_count);
    for (uint32_t s = 0; s < t.stage_count; s++)
        if (!name_ok(t.stage_names[s]))
            return table_fail(
                error, name, "stage_names", "a name of 1-64 printable ASCII bytes per stage",
                "stage %" PRIu32 " %s", s, t.stage_names[s] == NULL ? "NULL" : "not so");
    uint32_t first, second;
    if (t.stage_count &&
        names_repeat(t.stage_names, sizeof *t.stage_names, t.stage_count, &first, &second))
        return table_fail(error, name, "stage_names", "unique names",
                          "stages %" PRIu32 " and %" PRIu32 " share one", first, second);
    if ((t.snapshot == NULL) != (t.restore == NULL))
        return table_fail(error, name, "restore", "snapshot and restore together", "only %s",
                          t.snapshot ? "snapshot" : "restore");
    bool any_entity = t.entity_count || t.entity_id || t.entity_pose;
    if (any_entity && !(t.entity_count && t.entity_id && t.entity_pose))
        return table_fail(error, name, "entity_count", "entity_count, entity_id, entity_pose",
                          "only some of them");
    if (t.value_count != 0) {
        if (!any_entity || t.values == NULL || t.entity_values == NULL || t.group_count == 0 ||
            t.group_names == NULL)
            return table_fail(error, name, "values",
                              "entities, the value table, groups and entity_values",
                              "%" PRIu32 " values without all of them", t.value_count);
        if (t.value_count > ONESCOPE_MODULE_MAX_VALUES)
            return table_fail(error, name, "value_count",
                              "at most 1024 named values (a keyframe head's count)", "%" PRIu32,
                              t.value_count);
        if (t.group_count > ONESCOPE_MODULE_MAX_GROUPS)
            return table_fail(error, name, "group_count",
                              "at most 64 groups (an entity row's one-byte count, an "
                              "explanation's 64-bit mask)",
                              "%" PRIu32, t.group_count);
        for (uint32_t g = 0; g < t.group_count; g++)
            if (!name_ok(t.group_names[g]))
                return table_fail(
                    error, name, "group_names", "a name of 1-64 printable ASCII bytes per group",
                    "group %" PRIu32 " %s", g, t.group_names[g] == NULL ? "NULL" : "not so");
        if (names_repeat(t.group_names, sizeof *t.group_names, t.group_count, &first, &second))
            return table_fail(error, name, "group_names", "unique names",
                              "groups %" PRIu32 " and %" PRIu32 " share one", first, second);
        for (uint32_t v = 0; v < t.value_count; v++) {
            const onescope_value_info *vi = &t.values[v];
            if (!name_ok(vi->name) || !unit_ok(vi->unit) || vi->group >= t.group_count ||
                (unsigned)vi->type > ONESCOPE_VALUE_BOOL)
                return table_fail(error, name, "values",
                                  "a name of 1-64 printable ASCII bytes, a unit of 0-64, a known "
                                  "type and a group below group_count",
                                  "value %" PRIu32 " not so", v);
        }
        if (names_repeat(&t.values[0].name, sizeof *t.values, t.value_count, &first, &second))
            return table_fail(error, name, "values", "unique names",
                              "values %" PRIu32 " and %" PRIu32 " share one", first, second);
    } else if (t.entity_values != NULL) {
        return table_fail(error, name, "value_count", "values for entity_values", "0");
    }
    OS_TRY(check_world_values(&t, name, error));
    /* a pose cache's metres per unit is finite and positive; 0 leaves it unsaid */
    if (!(t.metres_per_unit >= 0.0 && t.metres_per_unit <= 1e12))
        return table_fail(error, name, "metres_per_unit", "0 (not said) or a finite number > 0",
                          "%s", onescope_os_num(t.metres_per_unit).s);
    if (t.unit_name != NULL && !version_ok(t.unit_name))
        return table_fail(error, name, "unit_name", "1-64 printable ASCII bytes, or NULL",
                          "another text");
    if (t.dimensions != 0 && t.dimensions != 2 && t.dimensions != 3)
        return table_fail(error, name, "dimensions", "0, 2 or 3", "%" PRIu32, t.dimensions);
    if (t.flags & ~ONESCOPE_MODULE_IDS_FROM_ZERO)
        return table_fail(error, name, "flags", "only ONESCOPE_MODULE_IDS_FROM_ZERO (0x1)",
                          "0x%" PRIx32, t.flags);
    return ONESCOPE_OK;
}

/* ---- a world ---- */

/* ONESCOPE_E_UNSUPPORTED for a slot the module does not fill. */
static onescope_code no_slot(const onescope_module *t, onescope_error *error, const char *slot,
                             const char *needed_for) {
    char found[160];
    snprintf(found, sizeof found, "module '%s' has no %s", t->id, slot);
    return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, t->id, OS_NO_OFFSET, slot, needed_for,
                            "%s", found);
}

/* The module's error, with the module's id as the input when the module named none. */
static onescope_code module_error(const onescope_module *t, onescope_code rc,
                                  onescope_error *error) {
    if (rc == ONESCOPE_OK) return rc;
    if (error != NULL) {
        if (error->code == ONESCOPE_OK) /* the module failed without saying why */
            return onescope_os_fail(error, rc, t->id, OS_NO_OFFSET, NULL,
                                    "a module call to succeed", "%s", onescope_error_name(rc));
        if (error->input[0] == '\0') snprintf(error->input, sizeof error->input, "%s", t->id);
    }
    return rc;
}

/* The checks every world starts with, and its shell (the table's and the setup's copies).
 * *result is cleared first, so a failed call leaves NULL there. */
static onescope_code world_new(const onescope_module *module, const void *setup, size_t setup_size,
                               const onescope_allocator *allocator, onescope_world **result,
                               onescope_world **out, onescope_error *error) {
    if (result == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "out",
                                "a pointer", "NULL");
    *result = NULL;
    OS_TRY(onescope_module_check(module, NULL, error));
    if (setup == NULL && setup_size != 0)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, module->id, OS_NO_OFFSET, "setup",
                                "bytes", "NULL");
    onescope_world *w = onescope_os_calloc(allocator, 1, sizeof *w);
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, module->id, OS_NO_OFFSET, "world", NULL,
                                "could not allocate the world");
    table_copy(module, &w->table);
    for (uint32_t v = 0; v < w->table.world_value_count; v++)
        w->world_values += w->table.world_values[v].count;
    w->allocator = allocator;
    w->setup = onescope_os_alloc(allocator, setup_size);
    if (w->setup == NULL) {
        onescope_os_free(allocator, w);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, module->id, OS_NO_OFFSET, "setup", NULL,
                                "could not allocate a copy of the setup");
    }
    if (setup_size) memcpy(w->setup, setup, setup_size);
    w->setup_size = setup_size;
    *out = w;
    return ONESCOPE_OK;
}

/* After create or restore (`slot`) returned rc: the world handed to *out, or everything
 * released and the module's error completed. */
static onescope_code world_born(onescope_world *w, onescope_code rc, const char *slot,
                                onescope_world **out, onescope_error *error) {
    if (rc == ONESCOPE_OK && w->world == NULL)
        rc = onescope_os_fail(error, ONESCOPE_E_ENGINE, w->table.id, OS_NO_OFFSET, slot, "a world",
                              "NULL");
    if (rc != ONESCOPE_OK) {
        module_error(&w->table, rc, error);
        w->world = NULL;
        onescope_world_free(w);
        return rc;
    }
    *out = w;
    return ONESCOPE_OK;
}

onescope_code onescope_world_create(const onescope_module *module, const void *setup,
                                    size_t setup_size, const onescope_allocator *allocator,
                                    onescope_world **out, onescope_error *error) {
    onescope_world *w = NULL;
    OS_TRY(world_new(module, setup, setup_size, allocator, out, &w, error));
    onescope_error_clear(error);
    onescope_code rc =
        w->table.create(w->table.context, w->setup, setup_size, allocator, &w->world, error);
    return world_born(w, rc, "create", out, error);
}

onescope_code onescope_world_restore(const onescope_module *module, const void *setup,
                                     size_t setup_size, const void *snapshot, size_t snapshot_size,
                                     const onescope_allocator *allocator, onescope_world **out,
                                     onescope_error *error) {
    onescope_world *w = NULL;
    OS_TRY(world_new(module, setup, setup_size, allocator, out, &w, error));
    if (w->table.restore == NULL) {
        onescope_code rc = no_slot(&w->table, error, "restore", "a world made from a snapshot");
        onescope_world_free(w);
        return rc;
    }
    onescope_error_clear(error);
    onescope_code rc = w->table.restore(w->table.context, w->setup, setup_size, snapshot,
                                        snapshot_size, allocator, &w->world, error);
    return world_born(w, rc, "restore", out, error);
}

void onescope_world_free(onescope_world *world) {
    if (world == NULL) return;
    if (world->world != NULL) world->table.free(world->table.context, world->world);
    onescope_os_free(world->allocator, world->setup);
    onescope_os_free(world->allocator, world);
}

const onescope_module *onescope_world_module(const onescope_world *world) {
    return world ? &world->table : NULL;
}

static onescope_code usable(const onescope_world *w, onescope_error *error) {
    if (w == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "world",
                                "a world", "NULL");
    if (w->failed)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, w->table.id, OS_NO_OFFSET, "world",
                                "a world whose steps all succeeded", "an earlier step failed");
    return ONESCOPE_OK;
}

onescope_code onescope_world_step(onescope_world *world, const void *input, size_t input_size,
                                  onescope_error *error) {
    OS_TRY(usable(world, error));
    if (world->next_stage != 0)
        return onescope_os_fail(error, ONESCOPE_E_BAD_STATE, world->table.id, OS_NO_OFFSET, "stage",
                                "a step boundary", "stage %" PRIu32 " runs next",
                                world->next_stage);
    onescope_os_error_ready(error);
    onescope_code rc =
        world->table.step(world->table.context, world->world, input, input_size, error);
    if (rc != ONESCOPE_OK) world->failed = true;
    return module_error(&world->table, rc, error);
}

onescope_code onescope_world_run_stage(onescope_world *world, const void *input, size_t input_size,
                                       onescope_error *error) {
    OS_TRY(usable(world, error));
    if (world->table.run_stage == NULL)
        return no_slot(&world->table, error, "run_stage", "a step run stage by stage");
    onescope_os_error_ready(error);
    onescope_code rc = world->table.run_stage(world->table.context, world->world, world->next_stage,
                                              input, input_size, error);
    if (rc != ONESCOPE_OK) {
        world->failed = true;
        return module_error(&world->table, rc, error);
    }
    world->next_stage =
        world->next_stage + 1 == world->table.stage_count ? 0 : world->next_stage + 1;
    return ONESCOPE_OK;
}

uint32_t onescope_world_next_stage(const onescope_world *world) {
    return world ? world->next_stage : 0;
}

uint64_t onescope_world_hash(const onescope_world *world) {
    return world ? world->table.hash(world->table.context, world->world) : 0;
}

/* A sink lent to the module for one call, then handed to out. */
static onescope_code sink_finish(const onescope_module *t, onescope_module_sink *sink,
                                 onescope_code rc, bool terminate, onescope_buffer *out,
                                 onescope_error *error) {
    if (rc == ONESCOPE_OK && sink->over)
        rc = onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, t->id, OS_NO_OFFSET, "output",
                              "at most 256 MiB from one module call", "more");
    if (rc == ONESCOPE_OK && terminate) onescope_os_write_u8(&sink->writer, 0);
    if (rc != ONESCOPE_OK) {
        onescope_os_writer_discard(&sink->writer);
        return module_error(t, rc, error);
    }
    return onescope_os_writer_finish(&sink->writer, out, error, t->id);
}

onescope_code onescope_os_module_snapshot(const onescope_module *t, const void *state,
                                          const onescope_allocator *allocator, onescope_buffer *out,
                                          onescope_error *error) {
    onescope_module_sink sink = {0};
    onescope_os_writer_init(&sink.writer, allocator);
    onescope_error_clear(error);
    onescope_code rc = t->snapshot(t->context, state, &sink, error);
    return sink_finish(t, &sink, rc, false, out, error);
}

onescope_code onescope_world_snapshot(const onescope_world *world,
                                      const onescope_allocator *allocator, onescope_buffer *out,
                                      onescope_error *error) {
    if (out == NULL || world == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "out",
                                "a world and a buffer", "NULL");
    memset(out, 0, sizeof *out);
    if (world->table.snapshot == NULL)
        return no_slot(&world->table, error, "snapshot", "the world's state as bytes");
    return onescope_os_module_snapshot(&world->table, world->world, allocator, out, error);
}

uint32_t onescope_world_entity_count(const onescope_world *world) {
    if (world == NULL || world->table.entity_count == NULL) return 0;
    return world->table.entity_count(world->table.context, world->world);
}

uint64_t onescope_world_entity_id(const onescope_world *world, uint32_t index) {
    if (index >= onescope_world_entity_count(world)) return 0;
    return world->table.entity_id(world->table.context, world->world, index);
}

bool onescope_world_entity_pose(const onescope_world *world, uint32_t index, onescope_pose *out) {
    if (out == NULL || index >= onescope_world_entity_count(world)) return false;
    return world->table.entity_pose(world->table.context, world->world, index, out);
}

onescope_code onescope_world_entity_values(const onescope_world *world, uint32_t index, double *out,
                                           size_t count, onescope_error *error) {
    if (world == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "world",
                                "a world", "NULL");
    if (world->table.value_count == 0)
        return no_slot(&world->table, error, "values", "the entities' named values");
    uint32_t n = onescope_world_entity_count(world);
    if (index >= n)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, world->table.id, OS_NO_OFFSET, "entity",
                                "an entity index below the count", "%" PRIu32 " of %" PRIu32, index,
                                n);
    if (out == NULL || count < world->table.value_count)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, world->table.id, OS_NO_OFFSET, "out",
                                "room for every value", "%zu of %" PRIu32, out ? count : 0,
                                world->table.value_count);
    world->table.entity_values(world->table.context, world->world, index, out);
    return ONESCOPE_OK;
}

/* Room for one entity's digest: its values and their little-endian bytes. */
uint32_t onescope_os_digest_doubles(const onescope_module *t) {
    return t->value_count != 0 ? t->value_count : 8;
}

void onescope_os_entity_digest(const onescope_module *t, const void *world, uint32_t index,
                               double *values, uint8_t *bytes, uint32_t *hash, uint8_t *groups) {
    if (t->value_count == 0) { /* the presence byte and the pose's seven floats */
        onescope_pose pose;
        bool present = t->entity_pose(t->context, world, index, &pose);
        bytes[0] = present ? 1 : 0;
        const float *f[7] = {&pose.position[0], &pose.position[1], &pose.position[2],
                             &pose.rotation[0], &pose.rotation[1], &pose.rotation[2],
                             &pose.rotation[3]};
        for (int k = 0; k < 7; k++) {
            uint32_t u;
            memcpy(&u, f[k], 4);
            onescope_os_put_u32(bytes + 1 + 4 * k, present ? u : 0);
        }
        *hash = (uint32_t)onescope_hash_bytes(bytes, 29);
        return;
    }
    t->entity_values(t->context, world, index, values);
    for (uint32_t v = 0; v < t->value_count; v++) {
        uint64_t u;
        memcpy(&u, &values[v], 8);
        onescope_os_put_u64(bytes + 8 * (size_t)v, u);
    }
    *hash = (uint32_t)onescope_hash_bytes(bytes, 8 * (size_t)t->value_count);
    /* each group's values gathered in table order, after the whole entity's bytes */
    uint8_t *g = bytes + 8 * (size_t)t->value_count;
    for (uint32_t k = 0; k < t->group_count; k++) {
        size_t n = 0;
        for (uint32_t v = 0; v < t->value_count; v++)
            if (t->values[v].group == k) {
                memcpy(g + n, bytes + 8 * (size_t)v, 8);
                n += 8;
            }
        groups[k] = (uint8_t)onescope_hash_bytes(g, n);
    }
}

onescope_code onescope_world_entity_digest(const onescope_world *world, uint32_t index,
                                           uint32_t *hash, uint8_t *groups, size_t group_room,
                                           onescope_error *error) {
    if (world == NULL || hash == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "world",
                                "a world and a hash", "NULL");
    const onescope_module *t = &world->table;
    if (t->entity_count == NULL) return no_slot(t, error, "entity_count", "an entity's digest");
    uint32_t n = onescope_world_entity_count(world);
    if (index >= n)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, t->id, OS_NO_OFFSET, "entity",
                                "an entity index below the count", "%" PRIu32 " of %" PRIu32, index,
                                n);
    uint32_t groups_n = t->value_count != 0 ? t->group_count : 0;
    if (groups_n > group_room || (groups_n != 0 && groups == NULL))
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, t->id, OS_NO_OFFSET, "groups",
                                "room for every group", "%zu of %" PRIu32, group_room, groups_n);
    uint32_t nd = onescope_os_digest_doubles(t);
    double *values = onescope_os_calloc(world->allocator, nd, sizeof *values);
    uint8_t *bytes = onescope_os_alloc(world->allocator, 16 * (size_t)nd + 32);
    if (values == NULL || bytes == NULL) {
        onescope_os_free(world->allocator, values);
        onescope_os_free(world->allocator, bytes);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, t->id, OS_NO_OFFSET, "digest", NULL,
                                "could not allocate room for %" PRIu32 " values", nd);
    }
    onescope_os_entity_digest(t, world->world, index, values, bytes, hash, groups);
    onescope_os_free(world->allocator, values);
    onescope_os_free(world->allocator, bytes);
    return ONESCOPE_OK;
}

uint32_t onescope_world_value_total(const onescope_world *world) {
    return world ? world->world_values : 0;
}

onescope_code onescope_world_values(const onescope_world *world, double *out, size_t count,
                                    onescope_error *error) {
    if (world == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "world",
                                "a world", "NULL");
    if (world->world_values == 0)
        return no_slot(&world->table, error, "world_values", "the world's named values");
    if (out == NULL || count < world->world_values)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, world->table.id, OS_NO_OFFSET, "out",
                                "room for every world value", "%zu of %" PRIu32, out ? count : 0,
                                world->world_values);
    world->table.read_world_values(world->table.context, world->world, out);
    return ONESCOPE_OK;
}

onescope_code onescope_world_describe_input(const onescope_world *world, const void *input,
                                            size_t input_size, const onescope_allocator *allocator,
                                            onescope_buffer *out, onescope_error *error) {
    if (out == NULL || world == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, "world", OS_NO_OFFSET, "out",
                                "a world and a buffer", "NULL");
    memset(out, 0, sizeof *out);
    if (world->table.describe_input == NULL)
        return no_slot(&world->table, error, "describe_input", "an input shown as text");
    onescope_module_sink sink = {0};
    onescope_os_writer_init(&sink.writer, allocator);
    onescope_error_clear(error);
    onescope_code rc = world->table.describe_input(
        world->table.context, world->setup, world->setup_size, input, input_size, &sink, error);
    return sink_finish(&world->table, &sink, rc, true, out, error);
}

void onescope_os_blob_offset(onescope_error *error, uint64_t at, size_t size) {
    bool said = error->has_offset && error->offset != ONESCOPE_MODULE_NO_OFFSET;
    if (said && error->offset > size) { /* past the blob: the module's offset is wrong */
        said = false;
        size_t n = strlen(error->found);
        if (n + 40 < sizeof error->found)
            snprintf(error->found + n, sizeof error->found - n,
                     "%s(the module said offset %" PRIu64 ", past the blob)", n ? " " : "",
                     error->offset);
    }
    if (at == OS_NO_OFFSET) /* no file: the module's offset inside the blob stands */
        error->has_offset = said;
    else if (said && error->offset <= UINT64_MAX - at)
        error->offset += at;
    else {
        error->offset = at; /* the blob's start: all that is known */
        error->has_offset = true;
    }
}

onescope_code onescope_os_module_blob_error(onescope_code rc, onescope_error *error,
                                            const char *name, const char *module_id, uint64_t at,
                                            size_t size, const char *what) {
    if (error == NULL) return rc;
    if (error->code == ONESCOPE_OK)
        return onescope_os_fail(error, rc, name, at, what, "a blob the module accepts",
                                "module %s refused it", module_id);
    onescope_os_blob_offset(error, at, size);
    char field[sizeof error->field + 64];
    int n =
        snprintf(field, sizeof field, "%s%s%s", what, error->field[0] ? ": " : "", error->field);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (k >= sizeof error->field) k = sizeof error->field - 1;
    memcpy(error->field, field, k);
    error->field[k] = '\0';
    snprintf(error->input, sizeof error->input, "%s", name);
    return rc;
}

onescope_code onescope_os_world_check_input(const onescope_world *world, const void *input,
                                            size_t input_size, const char *name, const char *what,
                                            onescope_error *error) {
    if (world->table.check_input == NULL) return ONESCOPE_OK;
    onescope_error_clear(error);
    onescope_code rc = world->table.check_input(world->table.context, world->setup,
                                                world->setup_size, input, input_size, error);
    return rc == ONESCOPE_OK ? rc
                             : onescope_os_module_blob_error(rc, error, name, world->table.id,
                                                             OS_NO_OFFSET, input_size, what);
}

void *onescope_os_world_state(const onescope_world *world) {
    return world ? world->world : NULL;
}

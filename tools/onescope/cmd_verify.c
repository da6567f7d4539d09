/* onescope verify FILE.ostm...: re-simulates each replay and compares every hash row; built
 * for CI (worker threads, JSON, JUnit, shards, folders). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

enum { OPT_JOBS, OPT_JSON, OPT_JUNIT, OPT_SHARD, OPT_RECURSIVE };
static const cli_option options[] = {
    [OPT_JOBS] = {"jobs", 'j', "N", "verify N files at once, 1 to 256 (default 1)"},
    [OPT_JSON] = {"json", 0, NULL, "one JSON object per file, then a summary (docs/cli.md)"},
    [OPT_JUNIT] = {"junit", 0, "FILE", "also write a JUnit XML report to FILE"},
    [OPT_SHARD] = {"shard", 0, "K/N", "only the files i with i mod N = K - 1 (K in 1..N)"},
    [OPT_RECURSIVE] = {"recursive", 'r', NULL, "a folder stands for every *.ostm under it"},
};
const cli_spec cli_spec_verify = {
    .name = "verify",
    .operands = "FILE.ostm...",
    .about = "Re-simulates each replay from its setup or start snapshot and compares the world\n"
             "hash at every step with the file's hash rows (streamed: memory does not grow\n"
             "with the replay). Goes on through every file; results are printed in argument\n"
             "order whatever -j. A mismatch prints the error line on stderr, then on stdout\n"
             "the operations of the step that produced the differing row and the 'onescope\n"
             "diff' command that explains it. With -r a folder is replaced by its *.ostm files\n"
             "(all depths, sorted by path). --shard K/N keeps file i (0-based, in that\n"
             "expanded order) when i mod N is K - 1, so N runs with K = 1..N cover each file\n"
             "once. A file that cannot be read is invalid: nothing is ever skipped.\n",
    .exit_codes = "0 every file matches; 1 a mismatch, an invalid or unreadable file, a file "
                  "without hash rows, or the JUnit report not written; 2 usage",
    .options = options,
    .count = sizeof options / sizeof options[0],
    .writes = true,
};

/* Every status but ST_OK fails the run: a replay with no step (a recording that ended, or
 * was cut, before its first step) has nothing but its start world checked, so it is never a
 * pass (docs/cli.md). */
typedef enum {
    ST_OK,
    ST_MISMATCH,
    ST_INVALID,
    ST_NO_ROWS,
    ST_NO_STEPS,
    ST_MODULE_ERROR,
    ST_COUNT
} verify_status;
static const char *const status_names[] = {"ok",           "mismatch", "invalid",
                                           "no_hash_rows", "no_steps", "module_error"};
/* onescope_verdict's names, for the JSON's "verdict" */
static const char *const verdict_names[] = {"invalid",        "pass",         "hash_mismatch",
                                            "table_mismatch", "module_error", "no_hash_rows",
                                            "no_steps"};
static const char *const keyframe_use_names[] = {"none", "used", "refused", "snapshot_incomplete",
                                                 "not_reproduced"};

#define MAX_SHOWN_OPS 16
#define MAX_SHOWN_ENTITIES 8

/* What an entry of the file list is: a file to verify, or what -r found instead of one. */
typedef enum { PATH_FILE, PATH_EMPTY_FOLDER, PATH_NOT_REGULAR, PATH_UNLISTABLE } path_kind;

/* One file's verdict, filled by a worker and printed by the main thread. */
typedef struct verify_item {
    char *path; /* owned */
    verify_status status;
    onescope_verify_result v;
    char line[1024];   /* the error line (empty when ok) */
    bool has_step;     /* the differing row came after a step (row > 0) */
    bool ops_read;     /* the step's operations were read */
    uint32_t op_count; /* every operation of that step */
    onescope_op ops[MAX_SHOWN_OPS];
    char step_text[512]; /* a module recording's differing step, as its module describes it */
    bool recording;      /* a module recording (OSTM v2): diff does not read those yet */
    char src[32];        /* a stream's spooled copy, "/dev/fd/N", read in its place */
    /* a module recording's mismatch, from its entity rows (docs/recording.md) */
    bool entity_rows;                            /* the file has them */
    bool explained;                              /* and they were compared at the row */
    const onescope_module *module;               /* the module that ran it (lives for the run) */
    uint32_t differing, recorded, found, listed; /* entities (see the explanation) */
    onescope_entity_difference shown[MAX_SHOWN_ENTITIES];
    char entity_line[2048]; /* the text line (empty when none) */
    /* with keyframes: where the explanation ran from, and the values of the table after it */
    bool keyed;
    onescope_recording_explanation key; /* its counts (entities and values lists not kept) */
    onescope_value_difference values[MAX_SHOWN_ENTITIES];
    char value_names[MAX_SHOWN_ENTITIES][65];
    char value_line[2048];
    char table_value_name[65]; /* a table mismatch's value, by the file's name */
    bool done;
    path_kind kind; /* not PATH_FILE: reported invalid without being read */
    int err;        /* errno for PATH_UNLISTABLE */
} verify_item;

/* What to open for an item: its path, or a stream's copy. */
static const char *source(const verify_item *it) {
    return it->src[0] != '\0' ? it->src : it->path;
}

typedef struct verify_queue {
    verify_item *items;
    size_t count;
    size_t next; /* the next item a worker takes */
    pthread_mutex_t lock;
    pthread_cond_t changed;
} verify_queue;

/* Reads the operations of step index (the one whose result is hash row index + 1) through
 * the library's streamed step reader: memory stays that of the check, whatever the size. */
static void read_step_ops(verify_item *it, uint32_t index) {
    onescope_error err;
    onescope_sim_setup setup;
    onescope_buffer input;
    if (onescope_replay_step_input_file(source(it), NULL, index, &setup, &input, &err) !=
        ONESCOPE_OK)
        return;
    onescope_op_reader rd;
    onescope_op op;
    onescope_op_reader_init(&rd, setup.dimensions, input.data, input.size, cli_input_name(it->path),
                            0);
    it->ops_read = true;
    while (onescope_op_reader_next(&rd, &op, &err) == 1) {
        if (it->op_count < MAX_SHOWN_OPS) it->ops[it->op_count] = op;
        it->op_count++;
    }
    onescope_buffer_free(&input);
}

/* A module recording (OSTM v2) is told from a v1 replay by its first six bytes. */
static bool is_recording(const char *path) {
    if (strcmp(path, "-") == 0) return false; /* stdin: read once, by the v1 path's reader */
    /* Without blocking, and a regular file only: a FIFO would hold open(2) forever; anything
     * else goes the v1 path, which says why it cannot be read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    unsigned char head[6];
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head) : -1;
    close(fd);
    return n > 0 && onescope_format_detect(head, (size_t)n) == ONESCOPE_FORMAT_RECORDING;
}

/* An entity and the groups whose bytes differ: "id 2 (position, velocity)", "id 7 (not in
 * the recording)". */
static void entity_text(char *buf, size_t size, const onescope_entity_difference *d,
                        const onescope_module *m) {
    size_t n = (size_t)snprintf(buf, size, "id %" PRIu64, d->id);
    const char *why = !d->recorded ? " (not in the recording)"
                      : !d->found  ? " (not in the world)"
                                   : "";
    if (why[0] != '\0' || d->groups == 0 || m->value_count == 0) {
        if (n < size) snprintf(buf + n, size - n, "%s", why);
        return;
    }
    const char *sep = " (";
    for (uint32_t g = 0; g < m->group_count && g < 64 && n < size; g++) {
        if (!(d->groups & (UINT64_C(1) << g))) continue;
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, cli_shown(m->group_names[g]));
        sep = ", ";
    }
    if (n < size) snprintf(buf + n, size - n, ")");
}

/* A table's value as the module's value of that name prints it (a float as the shortest
 * float that reads back). */
static void value_text(char buf[CLI_NUMBER_SIZE], double v, const onescope_module *m,
                       const char *name) {
    for (uint32_t i = 0; i < m->value_count; i++)
        if (strcmp(m->values[i].name, name) == 0 && m->values[i].type == ONESCOPE_VALUE_F32 &&
            (double)(float)v == v) {
            cli_number_float(buf, (float)v);
            return;
        }
    cli_number(buf, v);
}

/* Where an explanation ran from, and why not from the keyframe before its row. */
static void keyframe_from(char *out, size_t size, const onescope_recording_explanation *x) {
    char why[1024];
    switch (x->keyframe_use) {
        case ONESCOPE_KEYFRAME_USED:
            snprintf(out, size, "from row %" PRIu32 "'s keyframe, proven", x->start_row);
            return;
        case ONESCOPE_KEYFRAME_REFUSED:
            onescope_error_format(&x->restore_error, why, sizeof why);
            snprintf(out, size, "from row 0: the keyframe at row %" PRIu32 " did not restore: %s",
                     x->keyframe_row, why);
            return;
        case ONESCOPE_KEYFRAME_SNAPSHOT_INCOMPLETE:
            if (x->keyframe_hashes_differ)
                snprintf(why, sizeof why,
                         "the world restored from it hashes %016" PRIx64
                         ", its row says %016" PRIx64,
                         x->keyframe_hash_restored, x->keyframe_hash_recorded);
            else if (x->keyframe_has_entity)
                snprintf(why, sizeof why,
                         "entity %" PRIu64
                         " of the restored world is not the one its entity row holds",
                         x->keyframe_entity.id);
            else
                snprintf(why, sizeof why,
                         "entity %" PRIu64 " of the restored world is not the one its table holds",
                         x->keyframe_value.id);
            snprintf(out, size,
                     "from row 0: the keyframe at row %" PRIu32 " is not the recorded world (%s): "
                     "the module's snapshot leaves state out, or this build hashes another way",
                     x->keyframe_row, why);
            return;
        case ONESCOPE_KEYFRAME_NOT_REPRODUCED:
            snprintf(out, size,
                     "from row 0: the run from the keyframe at row %" PRIu32 " reproduces the "
                     "recording, so this build's world parted before it, in state the hash misses",
                     x->keyframe_row);
            return;
        default: snprintf(out, size, "from row 0"); return;
    }
}

/* With keyframes: where the explanation ran from, and the table's values against the world's
 * ("id 5 position.y recorded 0.5 found 0.625"). */
static void explain_values(verify_item *it, const onescope_recording *r, const onescope_module *m,
                           const onescope_recording_explanation *x) {
    const char *name = cli_shown(it->path);
    if (onescope_recording_keyframe_every(r) == 0) return;
    it->keyed = true;
    it->key = *x;
    it->key.entities = NULL;
    it->key.values = NULL;
    memcpy(it->values, x->values, x->values_listed * sizeof *x->values);
    for (uint32_t k = 0; k < x->values_listed; k++)
        (void)onescope_recording_value_name(r, x->values[k].value, it->value_names[k]);
    char from[1200];
    keyframe_from(from, sizeof from, x);
    size_t n;
    if (!x->has_table) {
        snprintf(it->value_line, sizeof it->value_line,
                 "%s: no keyframe at or after row %" PRIu32 ": values not compared (ran %" PRIu32
                 " step%s %s)",
                 name, it->v.first_row, x->steps_run, x->steps_run == 1 ? "" : "s", from);
        return;
    }
    n = (size_t)snprintf(
        it->value_line, sizeof it->value_line,
        "%s: keyframe row %" PRIu32 "%s (ran %" PRIu32 " step%s %s): %" PRIu32 " of %" PRIu32
        " values differ",
        name, x->table_row, x->table_row < x->row ? " (before the row: its hash row matched)" : "",
        x->steps_run, x->steps_run == 1 ? "" : "s", from, x->values_differing, x->values_compared);
    for (uint32_t k = 0; k < x->values_listed && n < sizeof it->value_line; k++) {
        const onescope_value_difference *d = &x->values[k];
        char recorded[CLI_NUMBER_SIZE], found[CLI_NUMBER_SIZE];
        value_text(recorded, d->recorded, m, it->value_names[k]);
        value_text(found, d->found_value, m, it->value_names[k]);
        if (!d->in_file)
            n += (size_t)snprintf(it->value_line + n, sizeof it->value_line - n,
                                  "%sid %" PRIu64 " in the world, not in the table",
                                  k ? ", " : ": ", d->id);
        else if (d->value == UINT32_MAX)
            n += (size_t)snprintf(it->value_line + n, sizeof it->value_line - n,
                                  "%sid %" PRIu64 " in the table, not in the world",
                                  k ? ", " : ": ", d->id);
        else if (d->found)
            n += (size_t)snprintf(it->value_line + n, sizeof it->value_line - n,
                                  "%sid %" PRIu64 " %s recorded %s found %s", k ? ", " : ": ",
                                  d->id, cli_shown(it->value_names[k]), recorded, found);
        else
            n += (size_t)snprintf(it->value_line + n, sizeof it->value_line - n,
                                  "%sid %" PRIu64 " %s recorded %s, not in the world",
                                  k ? ", " : ": ", d->id, cli_shown(it->value_names[k]), recorded);
    }
    if (x->values_differing > x->values_listed && n < sizeof it->value_line)
        snprintf(it->value_line + n, sizeof it->value_line - n, ", ... %" PRIu32 " more",
                 x->values_differing - x->values_listed);
}

/* At a mismatch, the entities whose digests differ there, from the file's entity rows alone. */
static void explain_entities(verify_item *it, const onescope_recording *r,
                             const onescope_module *m) {
    const char *name = cli_shown(it->path);
    it->module = m;
    uint16_t flags = onescope_recording_flags(r);
    it->entity_rows = (flags & ONESCOPE_RECORDING_FLAG_ENTITY_ROWS) != 0;
    if (!(flags & (ONESCOPE_RECORDING_FLAG_ENTITY_ROWS | ONESCOPE_RECORDING_FLAG_KEYFRAMES))) {
        snprintf(it->entity_line, sizeof it->entity_line,
                 "%s: no entity rows in this recording: verified by world hash alone, its entities "
                 "cannot be named (record with entity rows)",
                 name);
        return;
    }
    onescope_recording_explanation *x = NULL;
    onescope_error err;
    if (onescope_recording_explain(r, m, it->v.first_row, MAX_SHOWN_ENTITIES, NULL, &x,
                                   cli_input_name(it->path), &err) != ONESCOPE_OK) {
        char line[512];
        onescope_error_format(&err, line, sizeof line);
        snprintf(it->entity_line, sizeof it->entity_line, "%s: entities not compared: %s", name,
                 line);
        return;
    }
    explain_values(it, r, m, x);
    name = cli_shown(it->path); /* explain_values used cli_shown's buffer */
    if (!it->entity_rows) {
        onescope_recording_explanation_free(x);
        return;
    }
    it->explained = true;
    it->differing = x->differing;
    it->recorded = x->entities_recorded;
    it->found = x->entities_found;
    it->listed = x->listed;
    memcpy(it->shown, x->entities, x->listed * sizeof *x->entities);
    onescope_recording_explanation_free(x);
    size_t n =
        it->recorded == it->found
            ? (size_t)snprintf(it->entity_line, sizeof it->entity_line,
                               "%s: row %" PRIu32 ": %" PRIu32 " of %" PRIu32 " entit%s differ%s",
                               name, it->v.first_row, it->differing, it->recorded,
                               it->recorded == 1 ? "y" : "ies", it->differing == 1 ? "s" : "")
            : (size_t)snprintf(it->entity_line, sizeof it->entity_line,
                               "%s: row %" PRIu32 ": %" PRIu32 " entit%s differ%s (%" PRIu32
                               " recorded, %" PRIu32 " in the world)",
                               name, it->v.first_row, it->differing,
                               it->differing == 1 ? "y" : "ies", it->differing == 1 ? "s" : "",
                               it->recorded, it->found);
    if (it->differing == 0 && n < sizeof it->entity_line)
        n += (size_t)snprintf(it->entity_line + n, sizeof it->entity_line - n,
                              " (the world hash covers state the entities' values do not)");
    for (uint32_t k = 0; k < it->listed && n < sizeof it->entity_line; k++) {
        char one[256];
        entity_text(one, sizeof one, &it->shown[k], m);
        n += (size_t)snprintf(it->entity_line + n, sizeof it->entity_line - n, "%s%s",
                              k ? ", " : ": ", one);
    }
    if (it->differing > it->listed && n < sizeof it->entity_line)
        snprintf(it->entity_line + n, sizeof it->entity_line - n, ", ... %" PRIu32 " more",
                 it->differing - it->listed);
}

/* At a module recording's mismatch, the step and the entities, from the file read whole. */
static void explain_recording(verify_item *it, const onescope_recording *r,
                              const onescope_module *m) {
    if (m == NULL || (it->v.verdict != ONESCOPE_VERDICT_HASH_MISMATCH &&
                      it->v.verdict != ONESCOPE_VERDICT_TABLE_MISMATCH))
        return;
    if (it->v.verdict == ONESCOPE_VERDICT_TABLE_MISMATCH && it->v.table_value != UINT32_MAX)
        (void)onescope_recording_value_name(r, it->v.table_value, it->table_value_name);
    if (it->v.first_row > 0)
        cli_recording_describe_step(r, m, it->v.first_row - 1, it->step_text, sizeof it->step_text);
    explain_entities(it, r, m);
}

/* The step whose result differs, as the module describes it (when it can). */
/* A module recording: streamed through its module (onescope_recording_verify_file, memory
 * that does not grow with the file); read whole only when it failed, to tell the step and the
 * entities, or when its module is not loaded (so a broken file still gets its own error). */
static onescope_code verify_recording(verify_item *it, onescope_error *err) {
    const char *name = cli_input_name(it->path);
    uint8_t head[ONESCOPE_RECORDING_PEEK_BYTES];
    char id[65], version[65];
    FILE *f = fopen(source(it), "rb");
    size_t n = f != NULL ? fread(head, 1, sizeof head, f) : 0;
    if (f != NULL) fclose(f);
    const onescope_module *m = NULL;
    onescope_code rc = onescope_recording_peek_module(head, n, name, id, version, err);
    if (rc == ONESCOPE_OK) rc = cli_module_for(id, version, name, &m, err);
    if (rc == ONESCOPE_OK) rc = onescope_recording_verify_file(source(it), m, NULL, &it->v, err);
    if (rc == ONESCOPE_OK) return rc;
    onescope_error whole_err;
    onescope_recording *r;
    onescope_code read = onescope_recording_read_file(source(it), NULL, &r, &whole_err);
    if (read != ONESCOPE_OK) {
        *err = whole_err;
        return read;
    }
    explain_recording(it, r, m);
    onescope_recording_free(r);
    return rc;
}

static void verify_item_check(verify_item *it) {
    onescope_error err;
    memset(&it->v, 0, sizeof it->v);
    if (it->kind != PATH_FILE) {
        it->status = ST_INVALID;
        snprintf(it->line, sizeof it->line, "%s: %s%s", cli_shown(it->path),
                 it->kind == PATH_EMPTY_FOLDER ? "no *.ostm replay under this folder (verify -r)"
                 : it->kind == PATH_NOT_REGULAR
                     ? "not a regular file (verify -r reads only regular files)"
                     : "cannot list this folder: ",
                 it->kind == PATH_UNLISTABLE ? strerror(it->err) : "");
        return;
    }
    it->recording = is_recording(source(it));
    onescope_code rc = it->recording ? verify_recording(it, &err)
                                     : onescope_replay_verify_file(source(it), NULL, &it->v, &err);
    /* a stream's copy is named as the input it was */
    if (rc != ONESCOPE_OK && it->src[0] != '\0' && strcmp(err.input, it->src) == 0)
        snprintf(err.input, sizeof err.input, "%s", cli_input_name(it->path));
    if (rc == ONESCOPE_OK && it->v.verdict == ONESCOPE_VERDICT_NO_STEPS) {
        it->status = ST_NO_STEPS;
        snprintf(it->line, sizeof it->line,
                 "%s: no step recorded: only the start world (row 0) could be checked, and a "
                 "replay with no step is never a pass",
                 cli_shown(it->path));
        return;
    }
    if (rc == ONESCOPE_OK) {
        it->status = ST_OK;
        return;
    }
    onescope_error_format(&err, it->line, sizeof it->line);
    switch (it->v.verdict) { /* the library's code, never the message's text */
        case ONESCOPE_VERDICT_HASH_MISMATCH:
        case ONESCOPE_VERDICT_TABLE_MISMATCH:
            it->status = ST_MISMATCH;
            it->has_step = it->v.first_row > 0;
            if (it->has_step && !it->recording) read_step_ops(it, it->v.first_row - 1);
            break;
        case ONESCOPE_VERDICT_NO_HASH_ROWS: it->status = ST_NO_ROWS; break;
        case ONESCOPE_VERDICT_MODULE_ERROR: it->status = ST_MODULE_ERROR; break;
        default: it->status = ST_INVALID; break;
    }
}

/* Each file is opened once (onescope_file_open_input): a regular file's own descriptor, a
 * stream (standard input, a pipe, a FIFO) copied from its one open to an unnamed scratch
 * file (the library's spool, under the input limit). Every read after that (the look at its
 * first bytes, the streamed check, the whole read that explains a mismatch) is of that one
 * open file, through /dev/fd/N, in the same memory. */
static void verify_item_run(verify_item *it) {
    int fd = -1;
    if (it->kind == PATH_FILE) {
        onescope_error err;
        memset(&it->v, 0, sizeof it->v);
        if (onescope_file_open_input(it->path, NULL, &fd, &err) != ONESCOPE_OK) {
            it->status = ST_INVALID;
            onescope_error_format(&err, it->line, sizeof it->line);
            return;
        }
        snprintf(it->src, sizeof it->src, "/dev/fd/%d", fd);
    }
    verify_item_check(it);
    if (fd >= 0) close(fd);
    it->src[0] = '\0';
}

static void *worker(void *arg) {
    verify_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next < q->count ? q->next++ : q->count;
        pthread_mutex_unlock(&q->lock);
        if (i == q->count) return NULL;
        verify_item_run(&q->items[i]);
        pthread_mutex_lock(&q->lock);
        q->items[i].done = true;
        pthread_cond_broadcast(&q->changed);
        pthread_mutex_unlock(&q->lock);
    }
}

/* ---- collecting the files ---- */

typedef struct path_entry {
    char *path; /* owned */
    path_kind kind;
    int err; /* errno for PATH_UNLISTABLE */
} path_entry;

typedef struct folder_id {
    dev_t dev;
    ino_t ino;
} folder_id;

typedef struct path_list {
    path_entry *paths;
    size_t count, capacity;
    folder_id *seen; /* every folder walked, so a link loop (or two links to one folder) is
                        walked once */
    size_t seen_count, seen_capacity;
} path_list;

static bool push_kind(path_list *l, const char *path, path_kind kind, int err) {
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 64;
        path_entry *p = realloc(l->paths, cap * sizeof *p);
        if (p == NULL) return false;
        l->paths = p;
        l->capacity = cap;
    }
    l->paths[l->count] = (path_entry){strdup(path), kind, err};
    return l->paths[l->count++].path != NULL;
}

static bool push(path_list *l, const char *path) {
    return push_kind(l, path, PATH_FILE, 0);
}

/* Marks the folder as walked; false when it was already. */
static bool first_visit(path_list *l, const struct stat *st, bool *nomem) {
    for (size_t i = 0; i < l->seen_count; i++)
        if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino) return false;
    if (l->seen_count == l->seen_capacity) {
        size_t cap = l->seen_capacity ? 2 * l->seen_capacity : 16;
        folder_id *p = realloc(l->seen, cap * sizeof *p);
        if (p == NULL) {
            *nomem = true;
            return false;
        }
        l->seen = p;
        l->seen_capacity = cap;
    }
    l->seen[l->seen_count++] = (folder_id){st->st_dev, st->st_ino};
    return true;
}

static int compare_paths(const void *a, const void *b) {
    return strcmp(((const path_entry *)a)->path, ((const path_entry *)b)->path);
}

static bool ends_with_ostm(const char *name) {
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".ostm") == 0;
}

/* Adds every *.ostm under dir (any depth). Symbolic links are followed, to folders too; a
 * folder is walked once, known by device and inode, so a link loop ends. A folder that cannot
 * be listed, and a *.ostm that is not a regular file (a FIFO would block a reader), are kept
 * as entries of their own, reported invalid rather than skipped. */
static bool walk(path_list *l, const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return push_kind(l, dir, PATH_UNLISTABLE, errno);
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(n);
        if (p == NULL) {
            ok = false;
            break;
        }
        snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        bool nomem = false;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (first_visit(l, &st, &nomem)) ok = walk(l, p);
            if (nomem) ok = false;
        } else if (ends_with_ostm(e->d_name)) {
            /* a dangling link is a file that cannot be opened: invalid, said by the reader */
            bool special = stat(p, &st) == 0 && !S_ISREG(st.st_mode);
            ok = push_kind(l, p, special ? PATH_NOT_REGULAR : PATH_FILE, 0);
        }
        free(p);
    }
    closedir(d);
    return ok;
}

/* ---- printing ---- */

static void print_op(FILE *out, const onescope_op *op, bool json) {
    const char *name = op->code < 6 ? onescope_op_name(op->code) : "?";
    char text[96];
    if (json)
        fprintf(out,
                "{\"op\": \"%s\", \"code\": %u, \"body\": %u, \"values\": [%" PRId32 ", %" PRId32
                ", %" PRId32 "]}",
                name, op->code, op->body, op->value[0], op->value[1], op->value[2]);
    else if (onescope_op_format(op, text, sizeof text) >= 0)
        fputs(text, out);
}

/* Whether every character of s shows as itself (the one escape leaves it alone): no
 * control, no byte that is not UTF-8, no invisible or bidirectional character. */
static bool shows_plain(const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = onescope_error_utf8_char(s + i, n - i, NULL);
        if (len == 0) return false;
        char shown[16];
        if (s[i] != '"' && s[i] != '\\' &&
            (onescope_error_escape(shown, sizeof shown, s + i, len) != len ||
             memcmp(shown, s + i, len) != 0))
            return false;
        i += len;
    }
    return true;
}

/* The path quoted for a POSIX shell when it holds anything but safe characters: '...', or
 * $'...' with \xNN for each byte that would not show as itself, so the line stays printable
 * and pasting it names the same file. */
static void print_shell_word(FILE *out, const char *s) {
    if (s[0] != '\0' &&
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789_-./+,:@%") == strlen(s) &&
        s[0] != '-') {
        fputs(s, out);
        return;
    }
    if (shows_plain(s)) {
        fputc('\'', out);
        for (; *s; s++) {
            if (*s == '\'')
                fputs("'\\''", out);
            else
                fputc(*s, out);
        }
        fputc('\'', out);
        return;
    }
    fputs("$'", out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\x%02X", c);
        else
            fputc(c, out);
    }
    fputc('\'', out);
}

/* The diff that explains a mismatch: this replay against the same inputs recorded where the
 * hash rows were written (one replay holds only hashes, not the other side's world). */
static void print_diff_command(FILE *out, const char *path) {
    fputs("onescope diff -- ", out);
    print_shell_word(out, path);
    fputs(" THEIRS.ostm", out);
}

static void print_text(const verify_item *it) {
    const char *name = cli_shown(it->path);
    if (it->status == ST_OK) {
        if (!cli.quiet) printf("%s: ok, %" PRIu32 " hash rows match\n", name, it->v.rows_checked);
        return;
    }
    fprintf(stderr, "%s\n", it->line);
    if (it->status == ST_MODULE_ERROR) {
        if (it->v.first_row == 0)
            printf("%s: row 0: the module refused to make the start world (no hash was "
                   "compared)\n",
                   name);
        else
            printf("%s: row %" PRIu32 ": the module refused step %" PRIu32 " (no hash was "
                   "compared there; every row before it matched)\n",
                   name, it->v.first_row, it->v.first_row - 1);
        return;
    }
    if (it->status != ST_MISMATCH) return;
    if (it->v.verdict == ONESCOPE_VERDICT_TABLE_MISMATCH)
        printf("%s: row %" PRIu32 ": every hash row through it matched, but the keyframe table "
               "there differs from the world: the module's hash misses what differs (run "
               "'onescope module check' on it)\n",
               name, it->v.first_row);
    if (!it->has_step) {
        printf("%s: row 0 is the world this build makes from the file's setup (or start "
               "snapshot), before any step: from the same bytes it makes another world (a build "
               "or module difference)\n",
               name);
    } else if (it->step_text[0] != '\0') {
        printf("%s: step %" PRIu32 " ran: %s\n", name, it->v.first_row - 1,
               cli_shown(it->step_text));
    } else if (it->ops_read) {
        printf("%s: step %" PRIu32 " (host step %" PRIu64 ") ran %" PRIu32 " operation%s%s", name,
               it->v.first_row - 1, it->v.first_step - 1, it->op_count,
               it->op_count == 1 ? "" : "s", it->op_count ? ":" : "");
        for (uint32_t k = 0; k < it->op_count && k < MAX_SHOWN_OPS; k++) {
            fputs(k ? ", " : " ", stdout);
            print_op(stdout, &it->ops[k], false);
        }
        if (it->op_count > MAX_SHOWN_OPS)
            printf(", ... %" PRIu32 " more", it->op_count - MAX_SHOWN_OPS);
        putchar('\n');
    }
    if (it->entity_line[0] != '\0') printf("%s\n", it->entity_line);
    if (it->value_line[0] != '\0') printf("%s\n", it->value_line);
    if (it->recording) return; /* diff of module recordings: not yet (docs/recording.md) */
    printf("%s: to see why: ", name);
    print_diff_command(stdout, it->path);
    printf("  (THEIRS.ostm: the same inputs recorded by the engine that wrote the hash rows)\n");
}

static void print_json(const verify_item *it) {
    const char *name = cli_input_name(it->path); /* as it is: cli_json_string keeps it valid */
    printf("{\"file\": ");
    cli_json_string(stdout, name, strlen(name));
    unsigned verdict = (unsigned)it->v.verdict;
    printf(", \"status\": \"%s\", \"verdict\": \"%s\", \"rows_checked\": %" PRIu32
           ", \"keyframes_checked\": %" PRIu32,
           status_names[it->status],
           verdict < sizeof verdict_names / sizeof *verdict_names ? verdict_names[verdict] : "?",
           it->v.rows_checked, it->v.keyframes_checked);
    /* rows and steps (docs/recording.md): row R is the world after step R - 1; host_step is
     * the world's own step count there (a replay that starts mid-run counts from its start) */
    if (it->status == ST_MISMATCH || it->status == ST_MODULE_ERROR) {
        printf(", \"row\": %" PRIu32 ", \"step\": ", it->v.first_row);
        if (it->v.first_row > 0)
            printf("%" PRIu32, it->v.first_row - 1);
        else
            printf("null");
        printf(", \"host_step\": %" PRIu64, it->v.first_step);
    } else {
        printf(", \"row\": null, \"step\": null, \"host_step\": null");
    }
    if (it->status == ST_MISMATCH)
        printf(", \"expected\": \"%016" PRIx64 "\", \"actual\": \"%016" PRIx64 "\"", it->v.expected,
               it->v.actual);
    else
        printf(", \"expected\": null, \"actual\": null");
    printf(", \"table\": ");
    if (it->v.verdict == ONESCOPE_VERDICT_TABLE_MISMATCH) {
        printf("{\"entity\": %" PRIu64 ", \"value\": ", it->v.table_entity);
        if (it->v.table_value != UINT32_MAX && it->table_value_name[0] != '\0')
            cli_json_string(stdout, it->table_value_name, strlen(it->table_value_name));
        else
            printf("null");
        printf(", \"in_recording\": %s, \"in_world\": %s, \"recorded\": ",
               it->v.table_in_file ? "true" : "false", it->v.table_in_world ? "true" : "false");
        cli_json_double(stdout, it->v.table_recorded);
        printf(", \"found\": ");
        cli_json_double(stdout, it->v.table_found);
        printf(", \"differing\": %" PRIu32 "}", it->v.table_differing);
    } else {
        printf("null");
    }
    printf(", \"error\": ");
    if (it->status == ST_OK)
        printf("null");
    else
        cli_json_string(stdout, it->line, strlen(it->line));
    printf(", \"ops\": ");
    if (it->status == ST_MISMATCH && it->ops_read) {
        printf("[");
        for (uint32_t k = 0; k < it->op_count && k < MAX_SHOWN_OPS; k++) {
            if (k) printf(", ");
            print_op(stdout, &it->ops[k], true);
        }
        printf("], \"op_count\": %" PRIu32, it->op_count);
    } else {
        printf("null, \"op_count\": null");
    }
    printf(", \"entity_rows\": ");
    if (it->status == ST_MISMATCH && it->recording)
        printf("%s", it->entity_rows ? "true" : "false");
    else
        printf("null");
    printf(", \"entities\": ");
    if (it->explained) {
        printf("{\"differing\": %" PRIu32 ", \"recorded\": %" PRIu32 ", \"found\": %" PRIu32
               ", \"listed\": [",
               it->differing, it->recorded, it->found);
        for (uint32_t k = 0; k < it->listed; k++) {
            const onescope_entity_difference *d = &it->shown[k];
            printf("%s{\"id\": %" PRIu64 ", \"in_recording\": %s, \"in_world\": %s, \"groups\": [",
                   k ? ", " : "", d->id, d->recorded ? "true" : "false",
                   d->found ? "true" : "false");
            const onescope_module *m = it->module;
            bool first = true;
            for (uint32_t g = 0; m->value_count && g < m->group_count && g < 64; g++) {
                if (!(d->groups & (UINT64_C(1) << g))) continue;
                if (!first) printf(", ");
                cli_json_string(stdout, m->group_names[g], strlen(m->group_names[g]));
                first = false;
            }
            printf("]}");
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf(", \"keyframe\": ");
    if (it->keyed) {
        const onescope_recording_explanation *x = &it->key;
        unsigned use = (unsigned)x->keyframe_use;
        printf(
            "{\"start_row\": %" PRIu32 ", \"restored\": %s, \"restore_failed\": %s, "
            "\"use\": \"%s\", \"judged_row\": ",
            x->start_row, x->from_keyframe ? "true" : "false", x->restore_failed ? "true" : "false",
            use < sizeof keyframe_use_names / sizeof *keyframe_use_names ? keyframe_use_names[use]
                                                                         : "?");
        if (x->keyframe_use != ONESCOPE_KEYFRAME_NONE)
            printf("%" PRIu32, x->keyframe_row);
        else
            printf("null");
        printf(", \"steps_run\": %" PRIu32 ", \"restore_error\": ", x->steps_run);
        if (x->restore_failed) {
            char why[1024];
            onescope_error_format(&x->restore_error, why, sizeof why);
            cli_json_string(stdout, why, strlen(why));
        } else {
            printf("null");
        }
        printf(", \"row\": ");
        if (x->has_table)
            printf("%" PRIu32, x->table_row);
        else
            printf("null");
        printf(", \"values_compared\": %" PRIu32 ", \"differing\": %" PRIu32 ", \"listed\": [",
               x->values_compared, x->values_differing);
        for (uint32_t k = 0; k < x->values_listed; k++) {
            const onescope_value_difference *d = &it->values[k];
            printf("%s{\"id\": %" PRIu64 ", \"value\": ", k ? ", " : "", d->id);
            if (d->value == UINT32_MAX)
                printf("null");
            else
                cli_json_string(stdout, it->value_names[k], strlen(it->value_names[k]));
            printf(", \"in_recording\": %s, \"in_world\": %s, \"recorded\": ",
                   d->in_file ? "true" : "false", d->found ? "true" : "false");
            if (d->in_file && d->value != UINT32_MAX)
                cli_json_double(stdout, d->recorded);
            else
                printf("null");
            printf(", \"found\": ");
            if (d->found && d->value != UINT32_MAX)
                cli_json_double(stdout, d->found_value);
            else
                printf("null");
            printf("}");
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf(", \"diff\": ");
    if (it->status == ST_MISMATCH && !it->recording) {
        char *buf = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&buf, &n);
        if (m != NULL) {
            print_diff_command(m, it->path);
            fclose(m);
            cli_json_string(stdout, buf, n);
        } else {
            printf("null");
        }
        free(buf);
    } else {
        printf("null");
    }
    printf("}\n");
}

static void xml_text(FILE *out, const char *s) {
    cli_xml_text(out, s, strlen(s));
}

/* What an empty shard says, on stderr, in the JSON summary and in the JUnit report. */
static void empty_shard_text(char *buf, size_t size, uint64_t k, uint64_t n, size_t files) {
    snprintf(buf, size,
             "shard %" PRIu64 "/%" PRIu64 " holds none of the %zu file%s: nothing verified here "
             "(the other shards cover them)",
             k, n, files, files == 1 ? "" : "s");
}

/* The JUnit report, built in memory and written atomically with onescope_file_write. An
 * empty shard is one skipped test case, so the report shows it. */
static bool write_junit(const char *path, const verify_item *items, size_t n,
                        const size_t counts[ST_COUNT], const char *empty_shard) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (m == NULL) {
        fprintf(stderr, "onescope verify: %s: out of memory\n", cli_shown(path));
        return false;
    }
    size_t errors =
        counts[ST_INVALID] + counts[ST_NO_ROWS] + counts[ST_NO_STEPS] + counts[ST_MODULE_ERROR];
    size_t tests = n + (empty_shard != NULL), skipped = empty_shard != NULL;
    fprintf(m,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"onescope verify\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n"
            "  <testsuite name=\"onescope verify\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\">\n",
            tests, counts[ST_MISMATCH], errors, tests, counts[ST_MISMATCH], errors, skipped);
    if (empty_shard != NULL) {
        fputs("    <testcase classname=\"onescope.verify\" name=\"empty shard\">\n"
              "      <skipped message=\"",
              m);
        xml_text(m, empty_shard);
        fputs("\"/>\n    </testcase>\n", m);
    }
    for (size_t i = 0; i < n; i++) {
        const verify_item *it = &items[i];
        fputs("    <testcase classname=\"onescope.verify\" name=\"", m);
        xml_text(m, cli_input_name(it->path));
        if (it->status == ST_OK) {
            fputs("\"/>\n", m);
            continue;
        }
        fprintf(m, "\">\n      <%s type=\"%s\" message=\"",
                it->status == ST_MISMATCH ? "failure" : "error", status_names[it->status]);
        xml_text(m, it->line);
        fputs("\">", m);
        xml_text(m, it->line);
        for (int k = 0; k < 2; k++) {
            const char *extra = k ? it->value_line : it->entity_line;
            if (extra[0] == '\0') continue;
            fputc('\n', m);
            xml_text(m, extra);
        }
        fprintf(m, "</%s>\n    </testcase>\n", it->status == ST_MISMATCH ? "failure" : "error");
    }
    fputs("  </testsuite>\n</testsuites>\n", m);
    if (fclose(m) != 0) {
        free(buf);
        fprintf(stderr, "onescope verify: %s: out of memory\n", cli_shown(path));
        return false;
    }
    onescope_error err;
    bool ok = onescope_file_write(path, buf, size, &err) == ONESCOPE_OK;
    if (!ok) cli_print_error(&err);
    free(buf);
    return ok;
}

/* "K/N" with 1 <= K <= N. */
static bool parse_shard(const char *s, uint64_t *k, uint64_t *n) {
    const char *slash = strchr(s, '/');
    if (slash == NULL || slash - s > 20) return false;
    char left[24];
    memcpy(left, s, (size_t)(slash - s));
    left[slash - s] = '\0';
    return cli_parse_u64(left, UINT32_MAX, k) && cli_parse_u64(slash + 1, UINT32_MAX, n) &&
           *k >= 1 && *k <= *n;
}

int cmd_verify(int argc, char **argv) {
    cli_args a;
    int status = cli_parse(&cli_spec_verify, argc, argv, 1, -1, &a);
    if (status != CLI_PARSE_RUN) return status;
    uint64_t jobs = 1, shard_k = 1, shard_n = 1;
    if (a.seen[OPT_JOBS] && (!cli_parse_u64(a.value[OPT_JOBS], 256, &jobs) || jobs == 0))
        return cli_usage_error("verify", "-j must be 1 to 256, not '%s'", a.value[OPT_JOBS]);
    if (a.seen[OPT_SHARD] && !parse_shard(a.value[OPT_SHARD], &shard_k, &shard_n))
        return cli_usage_error("verify", "--shard must be K/N with 1 <= K <= N, not '%s'",
                               a.value[OPT_SHARD]);
    bool json = a.seen[OPT_JSON];
    const char *junit = a.seen[OPT_JUNIT] ? a.value[OPT_JUNIT] : NULL;
    if (json && junit != NULL && strcmp(junit, "-") == 0)
        return cli_usage_error("verify", "--json and --junit - cannot both take standard output");

    path_list all = {0};
    bool ok = true;
    for (int i = 0; ok && i < a.operand_count; i++) {
        const char *p = a.operands[i];
        struct stat st;
        if (a.seen[OPT_RECURSIVE] && strcmp(p, "-") != 0 && stat(p, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            size_t from = all.count;
            bool nomem = false;
            if (first_visit(&all, &st, &nomem)) ok = walk(&all, p);
            if (nomem) ok = false;
            /* a folder without one replay is an error, not an empty pass */
            if (ok && all.count == from) ok = push_kind(&all, p, PATH_EMPTY_FOLDER, 0);
            if (ok) qsort(all.paths + from, all.count - from, sizeof *all.paths, compare_paths);
        } else {
            ok = push(&all, p); /* a folder without -r fails to read: invalid, never skipped */
        }
    }
    free(all.seen);
    /* The output rule (docs/cli.md): the report may name no input, in this shard or another,
     * found under a folder or named, and it is checked before any file is read. */
    const char **ins = ok ? malloc((all.count ? all.count : 1) * sizeof *ins) : NULL;
    verify_item *items = ins != NULL ? calloc(all.count ? all.count : 1, sizeof *items) : NULL;
    if (items == NULL) {
        for (size_t i = 0; i < all.count; i++) free(all.paths[i].path);
        free(all.paths);
        free(ins);
        fprintf(stderr, "onescope verify: out of memory\n");
        return CLI_FAIL;
    }
    for (size_t i = 0; i < all.count; i++) ins[i] = all.paths[i].path;
    /* a report that would replace an input is a usage error (exit 2, docs/cli.md); an existing
     * report under --no-clobber is refused as every command refuses it (exit 1) */
    bool names_input = false;
    for (size_t i = 0; junit != NULL && !names_input && i < all.count; i++)
        names_input = cli_refuse_same_file("verify", ins[i], junit);
    bool allowed =
        !names_input && (junit == NULL || cli_check_outputs("verify", ins, all.count, junit));
    free(ins);
    size_t n = 0;
    for (size_t i = 0; i < all.count; i++) {
        if (allowed && i % shard_n == shard_k - 1) {
            items[n].kind = all.paths[i].kind;
            items[n].err = all.paths[i].err;
            items[n++].path = all.paths[i].path;
        } else {
            free(all.paths[i].path);
        }
    }
    free(all.paths);
    if (!allowed) {
        free(items);
        return names_input ? CLI_USAGE : CLI_FAIL;
    }
    char empty_shard[160];
    bool shard_empty = n == 0;
    if (shard_empty) {
        /* legitimate (a CI matrix wider than the file list), so exit 0, but never silent */
        empty_shard_text(empty_shard, sizeof empty_shard, shard_k, shard_n, all.count);
        fprintf(stderr, "onescope verify: %s\n", empty_shard);
    }

    verify_queue q = {.items = items, .count = n};
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.changed, NULL);
    pthread_t threads[256];
    size_t started = 0;
    for (size_t i = 0; jobs > 1 && i + 1 < jobs && i < n; i++) {
        if (pthread_create(&threads[started], NULL, worker, &q) != 0) break;
        started++;
    }
    size_t counts[ST_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        /* the main thread works too, and prints each file once every earlier one is printed */
        pthread_mutex_lock(&q.lock);
        while (!items[i].done) {
            size_t mine = q.next < q.count ? q.next++ : q.count;
            if (mine < q.count) {
                pthread_mutex_unlock(&q.lock);
                verify_item_run(&items[mine]);
                pthread_mutex_lock(&q.lock);
                items[mine].done = true;
                pthread_cond_broadcast(&q.changed);
            } else {
                pthread_cond_wait(&q.changed, &q.lock);
            }
        }
        pthread_mutex_unlock(&q.lock);
        counts[items[i].status]++;
        if (json)
            print_json(&items[i]);
        else
            print_text(&items[i]);
        fflush(stdout);
    }
    for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&q.lock);
    pthread_cond_destroy(&q.changed);

    size_t failed = n - counts[ST_OK];
    if (json) {
        printf(
            "{\"files\": %zu, \"ok\": %zu, \"mismatch\": %zu, \"invalid\": %zu, "
            "\"no_hash_rows\": %zu, \"no_steps\": %zu, \"module_error\": %zu, \"shard\": \"%" PRIu64
            "/%" PRIu64 "\", \"empty_shard\": %s",
            n, counts[ST_OK], counts[ST_MISMATCH], counts[ST_INVALID], counts[ST_NO_ROWS],
            counts[ST_NO_STEPS], counts[ST_MODULE_ERROR], shard_k, shard_n,
            shard_empty ? "true" : "false");
        printf(", \"message\": "); /* always there, so every summary has one shape */
        if (shard_empty)
            cli_json_string(stdout, empty_shard, strlen(empty_shard));
        else
            printf("null");
        printf("}\n");
    }
    if (failed) {
        fprintf(stderr, "onescope verify: %zu of %zu files failed:", failed, n);
        for (size_t i = 0; i < n; i++)
            if (items[i].status != ST_OK) fprintf(stderr, " %s", cli_shown(items[i].path));
        fputc('\n', stderr);
    }
    bool junit_ok =
        junit == NULL || write_junit(junit, items, n, counts, shard_empty ? empty_shard : NULL);
    for (size_t i = 0; i < n; i++) free(items[i].path);
    free(items);
    return failed || !junit_ok ? CLI_FAIL : CLI_OK;
}

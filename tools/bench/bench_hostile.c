/* bench_hostile: time and peak memory of every parser on crafted inputs at n and 4n (issue 14),
 * and the ratios: near 4 means linear, near 16 quadratic. Each input is made in one child
 * process and written to a temporary file; a second child (forked from this small parent, so
 * it inherits no big heap) reads it and parses it once. Time is the parse call alone; memory
 * is the child's peak resident set (getrusage, wait4) minus what it had before reading the
 * input, so it counts the input buffer and everything the parse holds at its peak. Prints
 * numbers only: nothing here asserts a time.
 *
 * Round three (issue 21) adds items 9-12: a long still entity converted to .anm in process, and
 * three cases that run the onescope CLI as the child (plot of a long replay, verify of a
 * replay whose last hash row is wrong and of the same replay intact, validate of an .anm with
 * many pegs); for those the time is the whole process and the memory its peak resident set.
 * The CLI is $ONESCOPE_CLI, else the onescope beside this binary; without one those cases
 * print "skipped".
 *
 * usage: bench_hostile [SCALE [CASE]]   SCALE multiplies every n (default 1); CASE runs one. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fnv_names.h"
#include "onescope/onescope.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static void die(const char *what, const onescope_error *err) {
    char line[512] = "";
    if (err != NULL) onescope_error_format(err, line, sizeof line);
    fprintf(stderr, "bench_hostile: %s: %s\n", what, line);
    exit(1);
}

/* ---- the crafted inputs: each writes its bytes for size parameter n to f ---- */

static void put_buffer(FILE *f, onescope_buffer *b) {
    if (fwrite(b->data, 1, b->size, f) != b->size) die("fwrite", NULL);
    onescope_buffer_free(b);
}

/* n frames of 64 entities with names, a pose in every slot. */
static void make_ospc(size_t n, FILE *f) {
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, 64, (uint32_t)n, NULL, &c, &err) != ONESCOPE_OK)
        die("ospc", &err);
    for (uint32_t e = 0; e < 64; e++) {
        char name[32];
        int k = snprintf(name, sizeof name, "body %u", (unsigned)e);
        onescope_pose_cache_set_entity_name(c, e, name, (size_t)k, &err);
    }
    for (size_t i = 0; i < n * 64; i++) c->poses[i].position[0] = (float)i;
    onescope_buffer b;
    if (onescope_pose_cache_write(c, NULL, &b, &err) != ONESCOPE_OK) die("ospc", &err);
    onescope_pose_cache_free(c);
    put_buffer(f, &b);
}

/* n empty steps: the smallest bytes per step an OSTM file can have. */
static void make_ostm(size_t n, FILE *f) {
    onescope_sim_setup setup = {3, 64, 7};
    onescope_replay *r;
    onescope_error err;
    if (onescope_replay_create(&setup, NULL, NULL, &r, &err) != ONESCOPE_OK) die("ostm", &err);
    for (size_t i = 0; i < n; i++)
        if (onescope_replay_append_step(r, NULL, 0, &err) != ONESCOPE_OK) die("ostm", &err);
    onescope_buffer b;
    if (onescope_replay_write(r, NULL, &b, &err) != ONESCOPE_OK) die("ostm", &err);
    onescope_replay_free(r);
    put_buffer(f, &b);
}

/* A probe, then n empty steps of a 64-body world, then END. */
static void make_osls(size_t n, FILE *f) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 3;
    def.setup.body_count = 64;
    onescope_sim *sim;
    onescope_live_encoder *enc;
    onescope_error err;
    if (onescope_sim_create(&def, NULL, &sim, &err) != ONESCOPE_OK ||
        onescope_live_encoder_create(NULL, &enc, &err) != ONESCOPE_OK ||
        onescope_live_encode_probe(enc, sim, &err) != ONESCOPE_OK)
        die("osls", &err);
    uint64_t hash = onescope_sim_hash(sim);
    for (size_t i = 0; i < n; i++)
        if (onescope_live_encode_step(enc, i, NULL, 0, hash, &err) != ONESCOPE_OK)
            die("osls", &err);
    if (onescope_live_encode_end(enc, n, &err) != ONESCOPE_OK) die("osls", &err);
    onescope_buffer b;
    if (onescope_live_encoder_take(enc, &b, &err) != ONESCOPE_OK) die("osls", &err);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    put_buffer(f, &b);
}

static int stages_for(size_t n) {
    int s = 1;
    while (((size_t)1 << s) < n) s++;
    return s;
}

/* n bones whose names all collide under the old unseeded FNV-1a. */
static void make_pvt(size_t n, FILE *f) {
    fnv_names names;
    if (fnv_names_make(&names, stages_for(n)) != 0) die("pvt: out of memory", NULL);
    onescope_ots_rig *r;
    onescope_error err;
    if (onescope_ots_rig_create(n, 0, NULL, &r, &err) != ONESCOPE_OK ||
        onescope_ots_rig_set_name(r, "flood", &err) != ONESCOPE_OK)
        die("pvt", &err);
    char name[4 * FNV_NAMES_MAX_STAGES + 1];
    for (size_t i = 0; i < n; i++) {
        fnv_names_get(&names, i, name);
        onescope_ots_rig_set_bone_text(r, i, ONESCOPE_OTS_TEXT_NAME, name, &err);
    }
    onescope_buffer b;
    if (onescope_ots_rig_write(r, NULL, &b, &err) != ONESCOPE_OK) die("pvt", &err);
    onescope_ots_rig_free(r);
    put_buffer(f, &b);
}

/* n pegs with colliding names; dup: the last peg takes the first peg's name (so the check
 * runs to the end and reports a duplicate), random: plain names (the control). */
static void make_anm_named(size_t n, FILE *f, int variant) {
    fnv_names names;
    if (fnv_names_make(&names, stages_for(n)) != 0) die("anm: out of memory", NULL);
    onescope_ots_clip *c;
    onescope_error err;
    if (onescope_ots_clip_create(n, 0, NULL, &c, &err) != ONESCOPE_OK) die("anm", &err);
    c->frame_range[1] = 0;
    char name[4 * FNV_NAMES_MAX_STAGES + 1], first[sizeof name];
    fnv_names_get(&names, 0, first);
    for (size_t i = 0; i < n; i++) {
        if (variant == 2)
            snprintf(name, sizeof name, "peg-%016zx-%zu", i * 0x9E3779B97F4A7C15u, i);
        else
            fnv_names_get(&names, i, name);
        onescope_ots_clip_set_peg_text(c, i, ONESCOPE_OTS_TEXT_NAME, name, &err);
    }
    onescope_buffer b;
    if (onescope_ots_clip_write(c, NULL, &b, &err) != ONESCOPE_OK) die("anm", &err);
    onescope_ots_clip_free(c);
    if (variant == 1) { /* every name has the same length: overwrite the last in place */
        fnv_names_get(&names, n - 1, name);
        size_t len = strlen(name);
        for (size_t p = b.size - len; p-- > 0;)
            if (memcmp(b.data + p, name, len) == 0) {
                memcpy(b.data + p, first, len);
                break;
            }
    }
    put_buffer(f, &b);
}
static void make_anm(size_t n, FILE *f) {
    make_anm_named(n, f, 0);
}
static void make_anm_dup(size_t n, FILE *f) {
    make_anm_named(n, f, 1);
}
static void make_anm_random(size_t n, FILE *f) {
    make_anm_named(n, f, 2);
}

/* Two bodies and n joints between them, one object per line; bad: the last joint's kind is
 * unknown, so the one error is reported at the end of the text. */
static void make_scene_text(size_t n, FILE *f, bool bad) {
    fprintf(f, "{\n  \"bodies\": [\n    {\"kind\": \"box\", \"size\": [1, 1, 1]},\n"
               "    {\"kind\": \"sphere\", \"size\": [0.5, 0, 0], \"position\": [0, 2, 0]}\n"
               "  ],\n  \"joints\": [\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f,
                "    {\"kind\": \"%s\", \"body_a\": 0, \"body_b\": 1, \"anchor\": [0, 1, 0], "
                "\"axis\": [0, 0, 1], \"limit\": [-1, 1]}%s\n",
                bad && i == n - 1 ? "hinge" : "revolute", i + 1 < n ? "," : "");
    fprintf(f, "  ]\n}\n");
}
static void make_scene(size_t n, FILE *f) {
    make_scene_text(n, f, false);
}
static void make_scene_bad(size_t n, FILE *f) {
    make_scene_text(n, f, true);
}

/* Item 9: one entity standing still for n frames (every pose the same), metres. */
static void make_still(size_t n, FILE *f) {
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, 1, (uint32_t)n, NULL, &c, &err) != ONESCOPE_OK)
        die("still", &err);
    c->metres_per_unit = 1;
    c->entities[0].id = 1;
    for (size_t i = 0; i < n; i++) {
        c->poses[i].position[0] = 1.5f;
        c->poses[i].position[1] = 0.25f;
        c->poses[i].rotation[3] = 1;
    }
    onescope_buffer b;
    if (onescope_pose_cache_write(c, NULL, &b, &err) != ONESCOPE_OK) die("still", &err);
    onescope_pose_cache_free(c);
    put_buffer(f, &b);
}

/* Item 10: n empty steps of a 3D world of 64 bodies, no hash rows (what the issue plotted). */
static void make_plot_replay(size_t n, FILE *f) {
    onescope_sim_setup setup = {3, 64, 21};
    onescope_replay *r;
    onescope_error err;
    if (onescope_replay_create(&setup, NULL, NULL, &r, &err) != ONESCOPE_OK) die("plot", &err);
    for (size_t i = 0; i < n; i++)
        if (onescope_replay_append_step(r, NULL, 0, &err) != ONESCOPE_OK) die("plot", &err);
    onescope_buffer b;
    if (onescope_replay_write(r, NULL, &b, &err) != ONESCOPE_OK) die("plot", &err);
    onescope_replay_free(r);
    put_buffer(f, &b);
}

/* Item 11: n empty steps of 4 bodies with hash rows; bad: the last row flipped, so verify
 * fails at the last step and prints that step. */
static void make_verify_replay(size_t n, FILE *f, bool bad) {
    onescope_sim_setup setup = {3, 4, 11};
    onescope_replay *r;
    onescope_error err;
    if (onescope_replay_create(&setup, NULL, NULL, &r, &err) != ONESCOPE_OK) die("verify", &err);
    for (size_t i = 0; i < n; i++)
        if (onescope_replay_append_step(r, NULL, 0, &err) != ONESCOPE_OK) die("verify", &err);
    if (onescope_replay_compute_hash_rows(r, &err) != ONESCOPE_OK) die("verify", &err);
    onescope_buffer b;
    if (onescope_replay_write(r, NULL, &b, &err) != ONESCOPE_OK) die("verify", &err);
    onescope_replay_free(r);
    /* magic, version, flags, setup length (12), setup (6), step count (4), then n + 1 rows
     * of 8 bytes, then the steps of 2 bytes each */
    size_t last_row = 22 + 8 * n;
    if (b.size != last_row + 8 + 2 * n) die("verify: unexpected layout", NULL);
    if (bad) b.data[last_row] ^= 1;
    put_buffer(f, &b);
}
static void make_verify_bad(size_t n, FILE *f) {
    make_verify_replay(n, f, true);
}
static void make_verify_good(size_t n, FILE *f) {
    make_verify_replay(n, f, false);
}

/* ---- the parsers ---- */

static bool count_record(void *user, const onescope_live_record *r) {
    (void)r;
    (*(uint64_t *)user)++;
    return false;
}

static onescope_code parse_ospc(const void *d, size_t n, onescope_error *e) {
    onescope_pose_cache *c = NULL;
    onescope_code rc = onescope_pose_cache_parse(d, n, "x.ospc", NULL, &c, e);
    onescope_pose_cache_free(c);
    return rc;
}
static onescope_code parse_ostm(const void *d, size_t n, onescope_error *e) {
    onescope_replay *r = NULL;
    onescope_code rc = onescope_replay_parse(d, n, "x.ostm", NULL, &r, e);
    onescope_replay_free(r);
    return rc;
}
static onescope_code parse_osls(const void *d, size_t n, onescope_error *e) {
    uint64_t records = 0;
    return onescope_live_decode(d, n, "x.osls", NULL, count_record, &records, e);
}
static onescope_code parse_pvt(const void *d, size_t n, onescope_error *e) {
    onescope_ots_rig *r = NULL;
    onescope_code rc = onescope_ots_rig_parse(d, n, "x.pvt", NULL, &r, e);
    onescope_ots_rig_free(r);
    return rc;
}
static onescope_code parse_anm(const void *d, size_t n, onescope_error *e) {
    onescope_ots_clip *c = NULL;
    onescope_code rc = onescope_ots_clip_parse(d, n, "x.anm", NULL, &c, e);
    onescope_ots_clip_free(c);
    return rc;
}
static onescope_code parse_scene(const void *d, size_t n, onescope_error *e) {
    onescope_soa_scene *s = NULL;
    onescope_code rc = onescope_soa_scene_parse(d, n, "x.json", NULL, &s, e);
    onescope_soa_scene_free(s);
    return rc;
}

/* Item 9: the cache parsed, then written as .anm a peg at a time (the convert path). */
static onescope_code parse_still_to_anm(const void *d, size_t n, onescope_error *e) {
    onescope_pose_cache *c = NULL;
    onescope_code rc = onescope_pose_cache_parse(d, n, "x.ospc", NULL, &c, e);
    char path[64];
    snprintf(path, sizeof path, "/tmp/bench_hostile-%ld.anm", (long)getpid());
    onescope_ots_from_cache_options o = onescope_ots_from_cache_options_default();
    if (rc == ONESCOPE_OK) rc = onescope_ots_pose_cache_to_anm_file(c, &o, path, e);
    unlink(path);
    onescope_pose_cache_free(c);
    return rc;
}

typedef struct bench_case {
    const char *name, *what; /* what n counts */
    size_t n;
    void (*make)(size_t n, FILE *f);
    onescope_code (*parse)(const void *data, size_t size, onescope_error *error);
    onescope_code want;
    /* CLI cases: parse is NULL, the child runs `onescope ARGS` (INPUT for the input's path,
     * OUT for a temporary output) and must exit with want_exit */
    const char *args[6];
    int want_exit;
} bench_case;

static const bench_case cases[] = {
    {"ospc", "frames x 64", 2000, make_ospc, parse_ospc, ONESCOPE_OK, {NULL}, 0},
    {"ostm", "empty steps", 500000, make_ostm, parse_ostm, ONESCOPE_OK, {NULL}, 0},
    {"osls", "steps", 200000, make_osls, parse_osls, ONESCOPE_OK, {NULL}, 0},
    {"pvt-collide", "bones", 16384, make_pvt, parse_pvt, ONESCOPE_OK, {NULL}, 0},
    {"anm-collide", "pegs", 16384, make_anm, parse_anm, ONESCOPE_OK, {NULL}, 0},
    {"anm-collide-dup", "pegs", 16384, make_anm_dup, parse_anm, ONESCOPE_E_DUPLICATE, {NULL}, 0},
    {"anm-random", "pegs", 16384, make_anm_random, parse_anm, ONESCOPE_OK, {NULL}, 0},
    {"scene-joints", "joints", 10000, make_scene, parse_scene, ONESCOPE_OK, {NULL}, 0},
    {"scene-joints-bad", "joints", 10000, make_scene_bad, parse_scene, ONESCOPE_E_RANGE, {NULL}, 0},
    /* round three (issue 21): items 9, 10, 11 (and its control), 12 */
    {"still-to-anm", "frames", 250000, make_still, parse_still_to_anm, ONESCOPE_OK, {NULL}, 0},
    {"plot-long",
     "steps x 64",
     50000,
     make_plot_replay,
     NULL,
     ONESCOPE_OK,
     {"-q", "plot", "INPUT", "-o", "OUT.svg"},
     0},
    {"verify-lastrow",
     "steps",
     250000,
     make_verify_bad,
     NULL,
     ONESCOPE_OK,
     {"-q", "verify", "INPUT"},
     1},
    {"verify-match",
     "steps",
     250000,
     make_verify_good,
     NULL,
     ONESCOPE_OK,
     {"-q", "verify", "INPUT"},
     0},
    {"validate-pegs",
     "pegs",
     50000,
     make_anm_random,
     NULL,
     ONESCOPE_OK,
     {"-q", "validate", "INPUT"},
     0},
};

static const char *cli_path(void) {
    static char path[4096];
    const char *env = getenv("ONESCOPE_CLI");
    if (env != NULL && *env) return env;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
    if (n <= 0) return NULL;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash == NULL) return NULL;
    strcpy(slash + 1, "onescope");
    return access(path, X_OK) == 0 ? path : NULL;
}

typedef struct result {
    double seconds, input_mb, peak_mb;
} result;

static void wait_child(pid_t pid, struct rusage *ru, const char *what) {
    int status;
    while (wait4(pid, &status, 0, ru) < 0)
        if (errno != EINTR) die("wait4", NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die(what, NULL);
}

/* Makes the input in one child and parses it in another. */
static result run(const bench_case *bc, size_t n) {
    char path[] = "/tmp/bench_hostile-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) die("mkstemp", NULL);
    close(fd);
    struct rusage ru;
    fflush(NULL); /* children must not inherit unwritten output */
    pid_t pid = fork();
    if (pid < 0) die("fork", NULL);
    if (pid == 0) {
        FILE *f = fopen(path, "wb");
        if (f == NULL) die("fopen", NULL);
        bc->make(n, f);
        if (fclose(f) != 0) die("fclose", NULL);
        _exit(0);
    }
    wait_child(pid, &ru, "making the input");
    if (bc->parse == NULL) {
        /* the CLI as the child: time is the whole process, memory its peak */
        char out[64];
        snprintf(out, sizeof out, "%s.svg", path);
        const char *argv[8] = {cli_path()};
        int k = 1;
        for (int i = 0; i < 6 && bc->args[i] != NULL; i++)
            argv[k++] = strcmp(bc->args[i], "INPUT") == 0     ? path
                        : strcmp(bc->args[i], "OUT.svg") == 0 ? out
                                                              : bc->args[i];
        argv[k] = NULL;
        struct stat st;
        double size = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
        double t0 = now();
        pid = fork();
        if (pid < 0) die("fork", NULL);
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) { /* the CLI's own lines (plot's note) would break the table */
                dup2(null, 1);
                dup2(null, 2);
            }
            execv(argv[0], (char *const *)argv);
            _exit(127);
        }
        int status;
        while (wait4(pid, &status, 0, &ru) < 0)
            if (errno != EINTR) die("wait4", NULL);
        double t1 = now();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != bc->want_exit) die(bc->name, NULL);
        struct stat os;
        if (stat(out, &os) == 0)
            printf("  (%s: %.2f MB written)\n", bc->name, (double)os.st_size / 1e6);
        unlink(out);
        unlink(path);
        return (result){t1 - t0, size, (double)ru.ru_maxrss / 1024.0};
    }
    int fds[2];
    if (pipe(fds) != 0) die("pipe", NULL);
    pid = fork();
    if (pid < 0) die("fork", NULL);
    if (pid == 0) {
        close(fds[0]);
        long before = peak_kib();
        FILE *f = fopen(path, "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0) die("fopen", NULL);
        long size = ftell(f);
        rewind(f);
        uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
        if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) die("fread", NULL);
        fclose(f);
        onescope_error err;
        double t0 = now();
        onescope_code rc = bc->parse(data, (size_t)size, &err);
        double t1 = now();
        if (rc != bc->want) die(bc->name, rc ? &err : NULL);
        free(data);
        result r = {t1 - t0, (double)size / 1e6, 0};
        r.peak_mb = (double)before; /* the parent reads the peak from wait4 */
        if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    result r = {0, 0, 0};
    if (read(fds[0], &r, sizeof r) != (ssize_t)sizeof r) die("read", NULL);
    close(fds[0]);
    wait_child(pid, &ru, bc->name);
    r.peak_mb = (double)(ru.ru_maxrss - (long)r.peak_mb) / 1024.0;
    unlink(path);
    return r;
}

int main(int argc, char **argv) {
    double scale = argc > 1 ? strtod(argv[1], NULL) : 1.0;
    if (!(scale > 0) || argc > 3) {
        fprintf(stderr, "usage: bench_hostile [SCALE [CASE]]\n");
        return 2;
    }
    printf("%-17s %-12s %8s %8s %8s %8s | %8s %8s %8s %8s | %6s %6s\n", "case", "n counts", "n",
           "in MB", "s", "MB", "4n", "in MB", "s", "MB", "time", "mem");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bench_case *bc = &cases[i];
        if (argc > 2 && strcmp(argv[2], bc->name) != 0) continue;
        if (bc->parse == NULL && cli_path() == NULL) {
            printf("%-17s skipped: no onescope CLI (set ONESCOPE_CLI)\n", bc->name);
            continue;
        }
        size_t n = (size_t)((double)bc->n * scale);
        if (n < 2) n = 2;
        result a = run(bc, n), b = run(bc, 4 * n);
        printf("%-17s %-12s %8zu %8.2f %8.3f %8.1f | %8zu %8.2f %8.3f %8.1f | %5.1fx %5.1fx\n",
               bc->name, bc->what, n, a.input_mb, a.seconds, a.peak_mb, 4 * n, b.input_mb,
               b.seconds, b.peak_mb, b.seconds / a.seconds,
               a.peak_mb > 0 ? b.peak_mb / a.peak_mb : 0.0);
        fflush(stdout);
    }
    printf("ratios are 4n over n: about 4 is linear, about 16 quadratic; MB is the parse's peak "
           "resident memory, the input buffer included (for the CLI cases 10-12 the whole "
           "process's peak and time)\n");
    return 0;
}

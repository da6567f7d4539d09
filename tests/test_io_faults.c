/* Every I/O call of the file layer fails in turn. The test is linked with --wrap for the
 * system calls src/file.c makes (tests/CMakeLists.txt), so each call can be made to fail
 * (EIO, ENOSPC), be interrupted (EINTR), move fewer bytes than asked, or find the file ended
 * (a file shrinking under the reader). Each scenario first runs once to count its calls, then
 * once per call and way of failing, and checks what the caller is promised:
 *
 * - an interruption or a short transfer is invisible: the same result as without it;
 * - any other failure is one printable line naming the file, and never a pass: a verifier or a
 *   validator that returns OK after a failed read has checked what it read;
 * - nothing is lost: an output either holds the new bytes or is what it was before, no
 *   temporary is left behind, and a writer's partial recovers to frames it was given, never
 *   more; a recover never changes its partial.
 *
 * Leaks are the sanitizer and valgrind stages' part. docs/hardening.md, "I/O faults". */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

/* ---- the seam: every wrapped call asks fault() first ---- */

enum kind {
    K_OPEN,
    K_READ,
    K_PREAD,
    K_WRITE,
    K_PWRITE,
    K_FSYNC,
    K_RENAME,
    K_FSTAT,
    K_MMAP,
    K_CLOSE,
    K_COUNT
};
static const char *const kind_names[K_COUNT] = {"open",  "read",   "pread", "write", "pwrite",
                                                "fsync", "rename", "fstat", "mmap",  "close"};
enum mode { M_NONE, M_ERR, M_INTR, M_SHORT, M_ENDED };
static const char *const mode_names[] = {"none", "error", "EINTR", "short", "ended"};

static struct {
    bool counting;
    unsigned count[K_COUNT];
    enum kind kind;
    unsigned at; /* the call (0-based) of kind that fails */
    enum mode mode;
    bool fired;
} plan;

static enum mode fault(enum kind k) {
    unsigned n = plan.count[k]++;
    if (plan.counting || plan.mode == M_NONE || plan.kind != k || plan.at != n) return M_NONE;
    plan.fired = true;
    return plan.mode;
}

int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t at);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t at);
int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
int __real_fstat(int fd, struct stat *st);
void *__real_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t at);
int __real_close(int fd);

int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (fault(K_OPEN) == M_ERR) return errno = EACCES, -1;
    return __real_open(path, flags, mode);
}

/* A read that fails, is interrupted, gets half, or finds the end early. */
static ssize_t read_fault(enum kind k, size_t *n) {
    switch (fault(k)) {
        case M_ERR: return errno = EIO, -1;
        case M_INTR: return errno = EINTR, -1;
        case M_SHORT:
            if (*n > 1) *n /= 2;
            return -2;
        case M_ENDED: return 0;
        default: return -2;
    }
}

ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n) {
    ssize_t r = read_fault(K_READ, &n);
    return r != -2 ? r : __real_read(fd, buf, n);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t at);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t at) {
    ssize_t r = read_fault(K_PREAD, &n);
    return r != -2 ? r : __real_pread(fd, buf, n, at);
}

static ssize_t write_fault(enum kind k, size_t *n) {
    switch (fault(k)) {
        case M_ERR: return errno = ENOSPC, -1;
        case M_INTR: return errno = EINTR, -1;
        case M_SHORT:
            if (*n > 1) *n /= 2;
            return -2;
        default: return -2;
    }
}

ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n) {
    ssize_t r = write_fault(K_WRITE, &n);
    return r != -2 ? r : __real_write(fd, buf, n);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t at);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t at) {
    ssize_t r = write_fault(K_PWRITE, &n);
    return r != -2 ? r : __real_pwrite(fd, buf, n, at);
}

int __wrap_fsync(int fd);
int __wrap_fsync(int fd) {
    if (fault(K_FSYNC) == M_ERR) return errno = EIO, -1;
    return __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to) {
    if (fault(K_RENAME) == M_ERR) return errno = EIO, -1;
    return __real_rename(from, to);
}

int __wrap_fstat(int fd, struct stat *st);
int __wrap_fstat(int fd, struct stat *st) {
    if (fault(K_FSTAT) == M_ERR) return errno = EIO, -1;
    return __real_fstat(fd, st);
}

void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t at);
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t at) {
    if (fault(K_MMAP) == M_ERR) return errno = ENOMEM, MAP_FAILED;
    return __real_mmap(addr, n, prot, flags, fd, at);
}

/* A failed close still closes (Linux): the descriptor is released, the error reported. */
int __wrap_close(int fd);
int __wrap_close(int fd) {
    bool fail = fault(K_CLOSE) == M_ERR;
    int r = __real_close(fd);
    if (fail) return errno = EIO, -1;
    return r;
}

/* ---- files the scenarios use ---- */

static char dir[256];

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static uint8_t *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    *size = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static void put(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static bool same_bytes(const char *path, const void *data, size_t size) {
    size_t n = 0;
    uint8_t *p = slurp(path, &n);
    bool same = p != NULL && n == size && memcmp(p, data, size) == 0;
    free(p);
    return same;
}

/* The names in dir other than the ones listed (NULL-terminated): a leftover temporary. */
static void only_these_files(const char *const *allowed) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        bool ok = false;
        for (const char *const *a = allowed; *a != NULL && !ok; a++)
            ok = strcmp(e->d_name, *a) == 0;
        if (!ok) fail_msg("a file left behind in %s: %s", dir, e->d_name);
    }
    closedir(d);
}

static void clear_dir(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char p[512];
        path_in(p, sizeof p, e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* ---- the scenarios ---- */

static char current[160]; /* the run a check failure names */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) fail_msg("%s: %s", current, #cond);                                           \
    } while (0)

typedef struct scenario {
    const char *name;
    void (*prepare)(void);
    onescope_code (*run)(onescope_error *error);
    const char *named; /* what the error line must name (a file's base name) */
    /* What the outputs hold after run returned rc (transparent: no fault or an invisible one). */
    void (*check)(onescope_code rc, bool transparent);
} scenario;

static const char *cache_path = ONESCOPE_TESTDATA "/test-2d-ghost.ospc";
static const char *replay_path = ONESCOPE_TESTDATA "/test-2d-600.ostm";
static uint8_t *cache_bytes;
static size_t cache_size;

static void nothing(void) {}

/* onescope_file_read: OK only with the file's bytes. */
static onescope_buffer got;
static onescope_code run_read(onescope_error *error) {
    return onescope_file_read(cache_path, 0, NULL, &got, error);
}
static void check_read(onescope_code rc, bool transparent) {
    (void)transparent;
    if (rc == ONESCOPE_OK)
        CHECK(got.size == cache_size && memcmp(got.data, cache_bytes, cache_size) == 0);
    onescope_buffer_free(&got);
}

/* onescope_file_validate of a cache and of a replay: their verdict, or a failure. */
static onescope_code run_validate_cache(onescope_error *error) {
    onescope_format f;
    return onescope_file_validate(cache_path, NULL, &f, error);
}
static onescope_code run_validate_replay(onescope_error *error) {
    onescope_format f;
    return onescope_file_validate(replay_path, NULL, &f, error);
}
static void check_none(onescope_code rc, bool transparent) {
    (void)rc, (void)transparent;
}

/* onescope_pose_cache_map: the mapped cache holds the file's frames. */
static onescope_code run_map(onescope_error *error) {
    onescope_pose_cache *c = NULL;
    onescope_code rc = onescope_pose_cache_map(cache_path, NULL, &c, error);
    if (rc == ONESCOPE_OK) {
        onescope_pose_cache *ref;
        onescope_error e;
        assert_int_equal(onescope_pose_cache_parse(cache_bytes, cache_size, "ref", NULL, &ref, &e),
                         ONESCOPE_OK);
        assert_int_equal(c->frame_count, ref->frame_count);
        onescope_pose_cache_free(ref);
    }
    onescope_pose_cache_free(c);
    return rc;
}

/* onescope_replay_verify_file: a pass is a replay verified to its end. */
static onescope_verify_result vr;
static onescope_code run_verify(onescope_error *error) {
    return onescope_replay_verify_file(replay_path, NULL, &vr, error);
}
static void check_verify(onescope_code rc, bool transparent) {
    (void)transparent;
    if (rc == ONESCOPE_OK) CHECK(vr.matched && vr.rows_checked == 601);
}

/* onescope_file_write over an existing file: the new bytes or the old, nothing else left. */
static char out_path[512];
static uint8_t new_bytes[300000];
static void prepare_write(void) {
    clear_dir();
    path_in(out_path, sizeof out_path, "out.bin");
    put(out_path, "old", 3);
}
static onescope_code run_write(onescope_error *error) {
    return onescope_file_write(out_path, new_bytes, sizeof new_bytes, error);
}
static void check_write(onescope_code rc, bool transparent) {
    (void)transparent;
    if (rc == ONESCOPE_OK)
        CHECK(same_bytes(out_path, new_bytes, sizeof new_bytes));
    else
        CHECK(same_bytes(out_path, "old", 3));
    const char *const allowed[] = {"out.bin", NULL};
    only_these_files(allowed);
}

/* The pose writer: 40 frames, a flush after each, close. */
#define FRAMES 40u
static char rec_path[512], partial_path[600];
static uint32_t appended;
static void prepare_writer(void) {
    clear_dir();
    path_in(rec_path, sizeof rec_path, "rec.ospc");
    snprintf(partial_path, sizeof partial_path, "%s.partial", rec_path);
}
static void frame(onescope_pose *p, uint32_t f) {
    for (uint32_t e = 0; e < 2; e++) {
        p[e].position[0] = (float)f, p[e].position[1] = (float)e, p[e].position[2] = 0;
        p[e].rotation[0] = p[e].rotation[1] = p[e].rotation[2] = 0, p[e].rotation[3] = 1;
    }
}
static onescope_code run_writer(onescope_error *error) {
    onescope_pose_cache *head;
    onescope_error e;
    assert_int_equal(onescope_pose_cache_create(3, 2, 1, NULL, &head, &e), ONESCOPE_OK);
    onescope_pose_writer_options o = onescope_pose_writer_options_default();
    o.flush_every = 1;
    o.buffer_bytes = 64;
    onescope_pose_writer *w = NULL;
    appended = 0;
    onescope_code rc = onescope_pose_writer_open(rec_path, head, &o, NULL, &w, error);
    onescope_pose_cache_free(head);
    for (uint32_t f = 0; f < FRAMES && rc == ONESCOPE_OK; f++) {
        onescope_pose p[2];
        frame(p, f);
        rc = onescope_pose_writer_append(w, p, 2, error);
        if (rc == ONESCOPE_OK) appended++;
    }
    if (rc == ONESCOPE_OK) {
        uint64_t frames = 0;
        rc = onescope_pose_writer_close(w, &frames, error);
        if (rc == ONESCOPE_OK) assert_int_equal(frames, FRAMES);
    }
    onescope_pose_writer_free(w); /* after a failure: the partial stays, for recover */
    return rc;
}
static void check_writer(onescope_code rc, bool transparent) {
    (void)transparent;
    struct stat st;
    if (rc == ONESCOPE_OK) {
        onescope_pose_cache *c;
        onescope_error e;
        assert_int_equal(onescope_pose_cache_read_file(rec_path, NULL, &c, &e), ONESCOPE_OK);
        assert_int_equal(c->frame_count, FRAMES);
        onescope_pose_cache_free(c);
        assert_int_not_equal(stat(partial_path, &st), 0);
        return;
    }
    assert_int_not_equal(stat(rec_path, &st), 0); /* never a file that is not whole */
    if (stat(partial_path, &st) == 0) {
        /* the partial recovers to frames that were given, never more */
        char back[600];
        path_in(back, sizeof back, "back.ospc");
        uint64_t kept = 0;
        onescope_error e;
        onescope_code r = onescope_pose_cache_recover(partial_path, back, NULL, &kept, &e);
        if (r == ONESCOPE_OK) CHECK(kept <= appended);
        unlink(back);
    }
    const char *const allowed[] = {"rec.ospc.partial", NULL};
    only_these_files(allowed);
}

/* recover of a 40-frame partial: the partial is never changed; OUT whole or absent. */
static uint8_t *partial_bytes;
static size_t partial_size;
static char back_path[512];
static void prepare_recover(void) {
    clear_dir();
    prepare_writer();
    put(partial_path, partial_bytes, partial_size);
    path_in(back_path, sizeof back_path, "back.ospc");
}
static onescope_code run_recover(onescope_error *error) {
    uint64_t kept = 0;
    onescope_code rc = onescope_pose_cache_recover(partial_path, back_path, NULL, &kept, error);
    if (rc == ONESCOPE_OK) assert_int_equal(kept, FRAMES);
    return rc;
}
static void check_recover(onescope_code rc, bool transparent) {
    (void)transparent;
    CHECK(same_bytes(partial_path, partial_bytes, partial_size));
    struct stat st;
    if (rc != ONESCOPE_OK) assert_int_not_equal(stat(back_path, &st), 0);
    const char *const allowed[] = {"rec.ospc.partial", "back.ospc", NULL};
    only_these_files(allowed);
}

/* The recording writer (the test module, tool mode, entity rows, a keyframe every 16 steps),
 * then verify of its file and recover of its partial. */
#define STEPS 60u
static const uint8_t setup_blob[6] = {3, 5, 9, 0, 0, 0};
static char ostm_path[512], ostm_partial[600];
static uint32_t stepped;
static uint8_t *ostm_partial_bytes;
static size_t ostm_partial_size;

static onescope_code record(bool close, onescope_error *error) {
    onescope_recording_def def = onescope_recording_def_default();
    def.module = onescope_module_test();
    def.setup = setup_blob;
    def.setup_size = sizeof setup_blob;
    def.entity_rows = true;
    def.keyframe_every = 16;
    onescope_replay_writer_options o;
    memset(&o, 0, sizeof o);
    o.flush_every = 1;
    onescope_recording_writer *w = NULL;
    stepped = 0;
    onescope_code rc = onescope_recording_writer_open(ostm_path, &def, &o, NULL, &w, error);
    for (uint32_t i = 0; i < STEPS && rc == ONESCOPE_OK; i++) {
        rc = onescope_recording_writer_append(w, NULL, 0, NULL, error);
        if (rc == ONESCOPE_OK) stepped++;
    }
    if (rc == ONESCOPE_OK && close) rc = onescope_recording_writer_close(w, NULL, error);
    onescope_recording_writer_free(w);
    return rc;
}
static void prepare_recording(void) {
    clear_dir();
    path_in(ostm_path, sizeof ostm_path, "run.ostm");
    snprintf(ostm_partial, sizeof ostm_partial, "%s.partial", ostm_path);
}
static onescope_code run_recording(onescope_error *error) {
    return record(true, error);
}
static void check_recording(onescope_code rc, bool transparent) {
    (void)transparent;
    struct stat st;
    onescope_error e;
    onescope_verify_result v;
    if (rc == ONESCOPE_OK) {
        CHECK(onescope_recording_verify_file(ostm_path, onescope_module_test(), NULL, &v, &e) ==
              ONESCOPE_OK);
        CHECK(v.matched && v.rows_checked == STEPS + 1);
        CHECK(stat(ostm_partial, &st) != 0);
        return;
    }
    CHECK(stat(ostm_path, &st) != 0);
    if (stat(ostm_partial, &st) == 0) {
        char back[600];
        path_in(back, sizeof back, "back.ostm");
        uint64_t kept = 0, dropped = 0;
        if (onescope_recording_recover(ostm_partial, back, NULL, &kept, &dropped, &e) ==
            ONESCOPE_OK)
            CHECK(kept <= stepped);
        unlink(back);
    }
    const char *const allowed[] = {"run.ostm.partial", NULL};
    only_these_files(allowed);
}

static void prepare_recorded(void) {
    prepare_recording();
    onescope_error e;
    assert_int_equal(record(true, &e), ONESCOPE_OK);
}
static onescope_code run_recording_verify(onescope_error *error) {
    onescope_code rc =
        onescope_recording_verify_file(ostm_path, onescope_module_test(), NULL, &vr, error);
    if (rc == ONESCOPE_OK) CHECK(vr.matched && vr.rows_checked == STEPS + 1);
    return rc;
}

static char ostm_back[512];
static void prepare_recording_partial(void) {
    prepare_recording();
    put(ostm_partial, ostm_partial_bytes, ostm_partial_size);
    path_in(ostm_back, sizeof ostm_back, "back.ostm");
}
static onescope_code run_recording_recover(onescope_error *error) {
    uint64_t kept = 0, dropped = 0;
    onescope_code rc =
        onescope_recording_recover(ostm_partial, ostm_back, NULL, &kept, &dropped, error);
    if (rc == ONESCOPE_OK) CHECK(kept == STEPS && dropped == 0);
    return rc;
}
static void check_recording_recover(onescope_code rc, bool transparent) {
    (void)transparent;
    CHECK(same_bytes(ostm_partial, ostm_partial_bytes, ostm_partial_size));
    struct stat st;
    if (rc != ONESCOPE_OK) CHECK(stat(ostm_back, &st) != 0);
    const char *const allowed[] = {"run.ostm.partial", "back.ostm", NULL};
    only_these_files(allowed);
}

/* The streamed .anm -> OSPC conversion: the input read in chunks, the keyframes through a
 * scratch file in dir (TMPDIR), the cache written through the pose writer. OK only with the
 * in-memory conversion's bytes; else OUT is what it was, and no file is left. */
static char anm_in[512], anm_out[512];
static strbuf anm_text;
static onescope_buffer anm_want;
static void make_anm(void) {
    sb_printf(&anm_text,
              "{\"format\": \"octo_anm\", \"version\": 4, \"source\": \"maya\", "
              "\"frame_range\": [0, 40], \"fps\": 24.0, \"coordinate_system\": {\"up\": \"y\", "
              "\"hand\": \"right\", \"unit\": \"meters\", \"rot_order\": \"xyz\", "
              "\"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"}, \"pegs\": [");
    for (int p = 0; p < 3; p++) {
        sb_printf(&anm_text,
                  "%s{\"name\": \"p%d\", \"parent\": %s, \"rest_pivot\": [0, 0, 0], "
                  "\"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [",
                  p ? ", " : "", p, p ? "\"p0\"" : "null");
        for (int k = 0; k < 30; k++)
            sb_printf(&anm_text,
                      "%s{\"frame\": %d, \"pos\": [%d.5, 0, 1], \"rot\": [0, %d, 0], "
                      "\"scl\": [1, 1, 1], \"interp\": \"LINEAR\"}",
                      k ? ", " : "", k + p, k, k * 3);
        sb_printf(&anm_text, "]}");
    }
    sb_printf(&anm_text, "], \"cameras\": []}\n");
    onescope_pose_cache *c;
    onescope_error e;
    assert_int_equal(
        onescope_ots_anm_to_pose_cache(anm_text.s, anm_text.n, "ref", NULL, NULL, &c, &e),
        ONESCOPE_OK);
    assert_int_equal(onescope_pose_cache_write(c, NULL, &anm_want, &e), ONESCOPE_OK);
    onescope_pose_cache_free(c);
}
static void prepare_convert(void) {
    clear_dir();
    path_in(anm_in, sizeof anm_in, "conv.anm");
    path_in(anm_out, sizeof anm_out, "conv.ospc");
    put(anm_in, anm_text.s, anm_text.n);
    put(anm_out, "old", 3);
}
static onescope_code run_convert(onescope_error *error) {
    return onescope_ots_anm_file_to_pose_cache_file(anm_in, NULL, NULL, anm_out, NULL, NULL, error);
}
static void check_convert(onescope_code rc, bool transparent) {
    (void)transparent;
    if (rc == ONESCOPE_OK)
        CHECK(same_bytes(anm_out, anm_want.data, anm_want.size));
    else
        CHECK(same_bytes(anm_out, "old", 3));
    const char *const allowed[] = {"conv.anm", "conv.ospc", NULL};
    only_these_files(allowed);
}

static const scenario scenarios[] = {
    {"file_read", nothing, run_read, "test-2d-ghost.ospc", check_read},
    {"validate a cache", nothing, run_validate_cache, "test-2d-ghost.ospc", check_none},
    {"validate a replay", nothing, run_validate_replay, "test-2d-600.ostm", check_none},
    {"map", nothing, run_map, "test-2d-ghost.ospc", check_none},
    {"verify a replay", nothing, run_verify, "test-2d-600.ostm", check_verify},
    {"file_write", prepare_write, run_write, "out.bin", check_write},
    {"pose writer", prepare_writer, run_writer, "rec.ospc", check_writer},
    {"recover", prepare_recover, run_recover, ".ospc", check_recover}, /* PARTIAL or OUT */
    {"recording writer", prepare_recording, run_recording, "run.ostm", check_recording},
    {"verify a recording", prepare_recorded, run_recording_verify, "run.ostm", check_none},
    {"recover a recording", prepare_recording_partial, run_recording_recover, ".ostm",
     check_recording_recover},
    {"convert an .anm file", prepare_convert, run_convert, "conv.", check_convert},
};

/* The ways a call of kind k can go wrong. */
static int modes_of(enum kind k, enum mode out[4]) {
    int n = 0;
    out[n++] = M_ERR;
    if (k == K_READ || k == K_PREAD) out[n++] = M_INTR, out[n++] = M_SHORT, out[n++] = M_ENDED;
    if (k == K_WRITE || k == K_PWRITE) out[n++] = M_INTR, out[n++] = M_SHORT;
    return n;
}

static void one_line_naming(const onescope_error *e, const char *named, const char *what) {
    char line[1024];
    onescope_error_format(e, line, sizeof line);
    for (const char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            fail_msg("%s: an unprintable byte in: %s", what, line);
    if (strstr(line, named) == NULL)
        fail_msg("%s: the line does not name %s: %s", what, named, line);
}

static unsigned runs, failures_seen;

static void every_call_fails_in_turn(void **state) {
    (void)state;
    for (size_t s = 0; s < sizeof scenarios / sizeof scenarios[0]; s++) {
        const scenario *sc = &scenarios[s];
        memset(&plan, 0, sizeof plan);
        plan.counting = true;
        snprintf(current, sizeof current, "%s without faults", sc->name);
        sc->prepare();
        onescope_error err;
        onescope_code rc0 = sc->run(&err);
        plan.counting = false;
        if (rc0 != ONESCOPE_OK) {
            char line[512];
            onescope_error_format(&err, line, sizeof line);
            fail_msg("%s without faults: %s", sc->name, line);
        }
        sc->check(rc0, true);
        unsigned calls[K_COUNT];
        memcpy(calls, plan.count, sizeof calls);
        for (int k = 0; k < K_COUNT; k++) {
            enum mode modes[4];
            int nm = modes_of((enum kind)k, modes);
            for (unsigned at = 0; at < calls[k]; at++) {
                for (int m = 0; m < nm; m++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s, %s call %u: %s", sc->name, kind_names[k], at,
                             mode_names[modes[m]]);
                    snprintf(current, sizeof current, "%s", what);
                    sc->prepare();
                    memset(&plan, 0, sizeof plan);
                    plan.kind = (enum kind)k, plan.at = at, plan.mode = modes[m];
                    onescope_error_clear(&err);
                    onescope_code rc = sc->run(&err);
                    bool fired = plan.fired;
                    plan.mode = M_NONE;
                    runs++;
                    bool invisible = modes[m] == M_INTR || modes[m] == M_SHORT;
                    if (fired && invisible && rc != ONESCOPE_OK) {
                        char line[512];
                        onescope_error_format(&err, line, sizeof line);
                        fail_msg("%s: not invisible: %s", what, line);
                    }
                    if (rc != ONESCOPE_OK) {
                        failures_seen++;
                        one_line_naming(&err, sc->named, what);
                    }
                    sc->check(rc, invisible || !fired);
                }
            }
        }
    }
    printf("io faults: %u runs, %u reported failures\n", runs, failures_seen);
    assert_true(failures_seen > 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/onescope-io-faults-%ld", (long)getpid());
    if (mkdir(dir, 0700) != 0) return -1;
    cache_bytes = slurp(cache_path, &cache_size);
    if (cache_bytes == NULL) return -1;
    for (size_t i = 0; i < sizeof new_bytes; i++) new_bytes[i] = (uint8_t)(i * 7u);
    /* the recover scenario's partial: a writer freed before close */
    prepare_writer();
    onescope_pose_cache *head;
    onescope_error e;
    if (onescope_pose_cache_create(3, 2, 1, NULL, &head, &e) != ONESCOPE_OK) return -1;
    onescope_pose_writer *w;
    if (onescope_pose_writer_open(rec_path, head, NULL, NULL, &w, &e) != ONESCOPE_OK) return -1;
    onescope_pose_cache_free(head);
    for (uint32_t f = 0; f < FRAMES; f++) {
        onescope_pose p[2];
        frame(p, f);
        if (onescope_pose_writer_append(w, p, 2, &e) != ONESCOPE_OK) return -1;
    }
    onescope_pose_writer_free(w);
    partial_bytes = slurp(partial_path, &partial_size);
    /* the recording recover scenario's partial: a recording writer freed before close */
    prepare_recording();
    if (record(false, &e) != ONESCOPE_OK) return -1;
    ostm_partial_bytes = slurp(ostm_partial, &ostm_partial_size);
    make_anm();
    setenv("TMPDIR", dir, 1); /* the conversion's scratch file: a named fallback shows */
    return partial_bytes != NULL && ostm_partial_bytes != NULL ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    clear_dir();
    rmdir(dir);
    free(cache_bytes);
    free(partial_bytes);
    free(ostm_partial_bytes);
    free(anm_text.s);
    onescope_buffer_free(&anm_want);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_call_fails_in_turn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Fuzz target: diff in memory against diff streamed from files (issue 21). The input is split
 * in two: byte 0 chooses the mode and the tolerances, bytes 1-4 the length of A, then A's
 * bytes, then B's. Mode "caches": A and B go through the OSPC parser; mode "replay": A through
 * the OSTM parser, B the OSPC one. Whenever both sides are valid:
 *   - onescope_diff_caches and onescope_diff_cache_files (or onescope_diff_replay_cache and
 *     onescope_diff_replay_cache_file) return the same code, verdict, first difference and
 *     per-entity figures, bit for bit;
 *   - diff(x, x) is never "different", in memory and streamed, for caches and replays;
 *   - "different" does not depend on the order of the two inputs.
 * A side the parser refuses must be refused by the streamed call too. The files are memfds,
 * named through /proc/self/fd, so nothing touches the disk. */
#define _GNU_SOURCE
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_helpers.h"

#define MAX_RUN_STEPS 4096u /* a replay runs once per diff: keep each input quick */

typedef struct memfile {
    int fd;
    char path[64];
} memfile;

static memfile mem_file(const uint8_t *data, size_t size) {
    memfile m;
    m.fd = memfd_create("diff_stream", 0);
    FUZZ_ASSERT(m.fd >= 0);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(m.fd, data + done, size - done);
        FUZZ_ASSERT(n > 0);
        done += (size_t)n;
    }
    snprintf(m.path, sizeof m.path, "/proc/self/fd/%d", m.fd);
    return m;
}

/* The same double, NaN payloads aside. */
static bool same_double(double x, double y) {
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}

static void check_same_result(const onescope_diff_cache *m, const onescope_diff_cache *s) {
    FUZZ_ASSERT_MSG(m->different == s->different, "in memory different=%d, streamed %d",
                    (int)m->different, (int)s->different);
    FUZZ_ASSERT(m->past_tolerance == s->past_tolerance);
    FUZZ_ASSERT(m->header_count == s->header_count);
    for (uint32_t i = 0; i < m->header_count && i < ONESCOPE_DIFF_MAX_HEADERS; i++) {
        FUZZ_ASSERT(strcmp(m->header[i].field, s->header[i].field) == 0);
        FUZZ_ASSERT(strcmp(m->header[i].a, s->header[i].a) == 0);
        FUZZ_ASSERT(strcmp(m->header[i].b, s->header[i].b) == 0);
    }
    FUZZ_ASSERT(m->unitless == s->unitless && m->exact == s->exact);
    FUZZ_ASSERT(m->compares_rotation == s->compares_rotation);
    FUZZ_ASSERT(m->first_step_a == s->first_step_a && m->last_step_a == s->last_step_a);
    FUZZ_ASSERT(m->first_step_b == s->first_step_b && m->last_step_b == s->last_step_b);
    FUZZ_ASSERT(m->overlap_frames == s->overlap_frames);
    if (m->overlap_frames)
        FUZZ_ASSERT(m->overlap_first == s->overlap_first && m->overlap_last == s->overlap_last);
    FUZZ_ASSERT(m->only_in_a == s->only_in_a && m->only_in_b == s->only_in_b);
    FUZZ_ASSERT(m->entity_count == s->entity_count);
    FUZZ_ASSERT_MSG(m->has_first == s->has_first, "first difference in memory %d, streamed %d",
                    (int)m->has_first, (int)s->has_first);
    if (m->has_first) {
        FUZZ_ASSERT_MSG(m->first_step == s->first_step && m->first_id == s->first_id,
                        "first difference at step %lld id %llu in memory, %lld id %llu streamed",
                        (long long)m->first_step, (unsigned long long)m->first_id,
                        (long long)s->first_step, (unsigned long long)s->first_id);
        FUZZ_ASSERT(same_double(m->first_distance, s->first_distance));
        FUZZ_ASSERT(same_double(m->first_angle, s->first_angle));
        FUZZ_ASSERT(m->first_presence == s->first_presence);
    }
    FUZZ_ASSERT(m->max_ulps == s->max_ulps);
    for (uint32_t i = 0; i < m->entity_count; i++) {
        const onescope_diff_entity *x = &m->entities[i], *y = &s->entities[i];
        FUZZ_ASSERT(x->id == y->id && x->in_a == y->in_a && x->in_b == y->in_b);
        FUZZ_ASSERT(x->index_a == y->index_a && x->index_b == y->index_b);
        FUZZ_ASSERT(x->frames_compared == y->frames_compared);
        FUZZ_ASSERT(x->presence_flips == y->presence_flips);
        FUZZ_ASSERT(same_double(x->max_distance, y->max_distance));
        FUZZ_ASSERT(x->max_distance_step == y->max_distance_step);
        FUZZ_ASSERT(same_double(x->rms_distance, y->rms_distance));
        FUZZ_ASSERT(same_double(x->max_angle, y->max_angle));
        FUZZ_ASSERT(x->max_ulps == y->max_ulps);
        FUZZ_ASSERT(x->past_tolerance == y->past_tolerance);
        FUZZ_ASSERT(x->first_past_step == y->first_past_step);
    }
}

/* A refusal (an error) is only allowed when memory ran out (the trailer's failing allocator). */
static bool ran(fuzz_env *env, onescope_code rc, const onescope_error *err, const char *what) {
    if (rc == ONESCOPE_OK) return true;
    fuzz_check_error(env, rc, err, "", SIZE_MAX);
    FUZZ_ASSERT_MSG(rc == ONESCOPE_E_NOMEM, "%s refused two valid inputs: %s: %s", what, err->field,
                    err->found);
    return false;
}

static void never_different(fuzz_env *env, onescope_code rc, const onescope_error *err,
                            onescope_diff_cache *d, const char *what) {
    if (ran(env, rc, err, what))
        FUZZ_ASSERT_MSG(!d->different && !d->past_tolerance && !d->has_first,
                        "%s: an input differs from itself (first step %lld, distance %g)", what,
                        (long long)d->first_step, d->first_distance);
    onescope_diff_cache_free(d);
}

static void caches(fuzz_env *env, const onescope_diff_options *o, const uint8_t *a, size_t na,
                   const uint8_t *b, size_t nb) {
    onescope_error err;
    onescope_pose_cache *ca = NULL, *cb = NULL;
    onescope_code ra = onescope_pose_cache_parse(a, na, "a", &env->options, &ca, &err);
    onescope_code rb = onescope_pose_cache_parse(b, nb, "b", &env->options, &cb, &err);
    memfile fa = mem_file(a, na), fb = mem_file(b, nb);
    onescope_diff_cache *m = NULL, *s = NULL;
    onescope_code rs = onescope_diff_cache_files(fa.path, fb.path, o, &env->allocator, &s, &err);
    if ((ra != ONESCOPE_OK || rb != ONESCOPE_OK) && !env->failed)
        FUZZ_ASSERT_MSG(rs != ONESCOPE_OK, "the streamed diff reads a file the parser refuses");
    if (ra == ONESCOPE_OK && rb == ONESCOPE_OK) {
        onescope_code rm = onescope_diff_caches(ca, cb, o, &env->allocator, &m, &err);
        if (rm == ONESCOPE_OK && rs == ONESCOPE_OK) {
            check_same_result(m, s);
            onescope_diff_cache *back = NULL;
            onescope_code rr = onescope_diff_caches(cb, ca, o, &env->allocator, &back, &err);
            if (ran(env, rr, &err, "diff b a"))
                FUZZ_ASSERT_MSG(back->different == m->different,
                                "diff a b says different=%d, diff b a %d", (int)m->different,
                                (int)back->different);
            onescope_diff_cache_free(back);
        } else if (!env->failed) {
            FUZZ_ASSERT_MSG(rm == rs, "in memory %d, streamed %d", (int)rm, (int)rs);
        }
        onescope_diff_cache *d = NULL;
        rm = onescope_diff_caches(ca, ca, o, &env->allocator, &d, &err);
        never_different(env, rm, &err, d, "diff a a");
        d = NULL;
        rm = onescope_diff_cache_files(fa.path, fa.path, o, &env->allocator, &d, &err);
        never_different(env, rm, &err, d, "streamed diff a a");
    }
    onescope_diff_cache_free(m);
    onescope_diff_cache_free(s);
    onescope_pose_cache_free(ca);
    onescope_pose_cache_free(cb);
    close(fa.fd);
    close(fb.fd);
}

static void replay_and_cache(fuzz_env *env, const onescope_diff_options *o, const uint8_t *a,
                             size_t na, const uint8_t *b, size_t nb) {
    onescope_error err;
    onescope_replay *r = NULL;
    onescope_pose_cache *cb = NULL;
    if (onescope_replay_parse(a, na, "a", &env->options, &r, &err) != ONESCOPE_OK) return;
    if (onescope_replay_step_count(r) > MAX_RUN_STEPS) {
        onescope_replay_free(r);
        return;
    }
    onescope_diff_replay *dr = NULL;
    onescope_code rc = onescope_diff_replays(r, r, o, &env->allocator, &dr, &err);
    if (rc == ONESCOPE_OK)
        FUZZ_ASSERT_MSG(!dr->different && !dr->diverged && !dr->hash_rows_differ,
                        "a replay differs from itself at step %llu", (unsigned long long)dr->step);
    else
        fuzz_check_error(env, rc, &err, "", SIZE_MAX);
    onescope_diff_replay_free(dr);

    onescope_code rb = onescope_pose_cache_parse(b, nb, "b", &env->options, &cb, &err);
    memfile fb = mem_file(b, nb);
    onescope_diff_cache *m = NULL, *s = NULL;
    onescope_code rs = onescope_diff_replay_cache_file(r, fb.path, o, &env->allocator, &s, &err);
    if (rb != ONESCOPE_OK && !env->failed)
        FUZZ_ASSERT_MSG(rs != ONESCOPE_OK, "the streamed diff reads a cache the parser refuses");
    if (rb == ONESCOPE_OK) {
        onescope_code rm = onescope_diff_replay_cache(r, cb, o, &env->allocator, &m, &err);
        if (rm == ONESCOPE_OK && rs == ONESCOPE_OK)
            check_same_result(m, s);
        else if (!env->failed)
            FUZZ_ASSERT_MSG(rm == rs, "in memory %d, streamed %d", (int)rm, (int)rs);
    }
    onescope_diff_cache_free(m);
    onescope_diff_cache_free(s);
    onescope_pose_cache_free(cb);
    onescope_replay_free(r);
    close(fb.fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    fuzz_bytes in = fuzz_bytes_init(data, size);
    uint8_t mode = fuzz_u8(&in);
    uint32_t len_a = fuzz_u32(&in);
    size_t rest = fuzz_remaining(&in);
    if (len_a > rest) len_a = (uint32_t)(rest ? len_a % (rest + 1) : 0);
    size_t got;
    const uint8_t *a = fuzz_take(&in, len_a, &got);
    const uint8_t *b = fuzz_take(&in, fuzz_remaining(&in), &got);
    size_t nb = got;

    static const double position[4] = {0, 1e-3, 0.5, 1e30};
    static const double angle[4] = {0, 0.1, 10, 360};
    onescope_diff_options o;
    memset(&o, 0, sizeof o);
    o.position_tolerance = position[(mode >> 1) & 3];
    o.angle_tolerance = angle[(mode >> 3) & 3];
    o.max_items = (mode >> 5) & 7; /* 0: the default */
    o.parse = env.options;
    if (mode & 1)
        replay_and_cache(&env, &o, a, len_a, b, nb);
    else
        caches(&env, &o, a, len_a, b, nb);
    fuzz_env_finish(&env);
    return 0;
}

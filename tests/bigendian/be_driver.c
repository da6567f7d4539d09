/* Prints hash rows of fixed scenarios and the bytes of a written replay, so that a native run
 * and a big-endian (s390x under qemu) run can be compared line by line. No cmocka, no files:
 * only the library's sources. Used by scripts/test_cross.sh (determinism). */
#include <inttypes.h>
#include <stdio.h>

#include "onescope/onescope.h"

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int fail(const char *what, const onescope_error *e) {
    char line[512];
    onescope_error_format(e, line, sizeof line);
    printf("FAIL %s: %s\n", what, line);
    return 1;
}

/* Builds a replay with every operation kind, computes its rows, writes, parses and verifies. */
static int scenario(uint8_t dims, uint8_t count, uint32_t seed, onescope_link_block link,
                    int steps) {
    onescope_sim_setup setup = {dims, count, seed};
    onescope_replay *r, *back;
    onescope_error e;
    if (onescope_replay_create(&setup, link.role ? &link : NULL, NULL, &r, &e))
        return fail("create", &e);
    uint64_t st = seed;
    for (int i = 0; i < steps; i++) {
        uint64_t x = rng(&st);
        int32_t a = (int32_t)(x % 4001) - 2000, b = (int32_t)((x >> 16) % 12001) - 1000;
        int32_t z = dims == 3 ? (int32_t)((x >> 32) % 3001) - 1500 : 0;
        onescope_op ops[2];
        size_t k = 0;
        switch (x % 8) {
            case 0: ops[k++] = (onescope_op){1, (uint8_t)((x >> 8) % 64), {a, b, z}}; break;
            case 1:
                ops[k++] =
                    (onescope_op){2, (uint8_t)((x >> 8) % count), {b, a + 5000, z < 0 ? -z : z}};
                break;
            case 2: ops[k++] = (onescope_op){3, (uint8_t)((x >> 8) % 64), {0, 0, 0}}; break;
            case 3: ops[k++] = (onescope_op){4, 0, {a / 40, 0, 0}}; break;
            case 4: ops[k++] = (onescope_op){5, 0, {b, b / 2, z < 0 ? 0 : z}}; break;
            case 5:
                ops[k++] = (onescope_op){1, 0, {INT32_MAX, INT32_MIN, dims == 3 ? INT32_MAX : 0}};
                ops[k++] = (onescope_op){4, 0, {INT32_MIN, 0, 0}};
                break;
            default: break;
        }
        if (onescope_replay_append_ops(r, ops, k, &e)) return fail("append", &e);
    }
    if (onescope_replay_compute_hash_rows(r, &e)) return fail("rows", &e);
    onescope_buffer buf;
    if (onescope_replay_write(r, NULL, &buf, &e)) return fail("write", &e);
    if (onescope_replay_parse(buf.data, buf.size, "be", NULL, &back, &e)) return fail("parse", &e);
    if (onescope_replay_verify(back, NULL, NULL, "be", &e)) return fail("verify", &e);
    printf("scenario %u %u %" PRIu32 " link %u/%u/%u: file %zu bytes, xxh3 %016" PRIx64 "\n", dims,
           count, seed, link.role, link.body, link.transfer_step, buf.size,
           onescope_hash_bytes(buf.data, buf.size));
    for (uint32_t i = 0; i <= onescope_replay_step_count(r); i += 25)
        printf("  row %" PRIu32 " %016" PRIx64 "\n", i, onescope_replay_hash_rows(r)[i]);
    printf("  last %016" PRIx64 "\n", onescope_replay_hash_rows(r)[onescope_replay_step_count(r)]);
    /* Restart from a snapshot taken at the end and take 50 more steps. */
    onescope_sim *sim, *copy;
    if (onescope_replay_start_world(r, NULL, &sim, &e)) return fail("world", &e);
    for (uint32_t i = 0; i < onescope_replay_step_count(r); i++) {
        const uint8_t *p;
        size_t n;
        onescope_replay_step_input(r, i, &p, &n);
        if (onescope_sim_step(sim, p, n, &e)) return fail("step", &e);
    }
    uint8_t snap[ONESCOPE_SIM_MAX_SNAPSHOT];
    size_t n = onescope_sim_snapshot(sim, snap, sizeof snap);
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = setup;
    def.link = link;
    if (onescope_sim_create_from_snapshot(&def, snap, n, "snap", NULL, &copy, &e))
        return fail("restore", &e);
    for (int i = 0; i < 50; i++) {
        onescope_sim_step(sim, NULL, 0, &e);
        onescope_sim_step(copy, NULL, 0, &e);
    }
    printf("  restored %016" PRIx64 " %016" PRIx64 "\n", onescope_sim_hash(sim),
           onescope_sim_hash(copy));
    if (onescope_sim_has_fields(sim)) {
        int32_t d[81], o[128];
        onescope_sim_field(sim, ONESCOPE_FIELD_DENSITY, d, 81, &e);
        onescope_sim_field(sim, ONESCOPE_FIELD_OCCUPANCY, o, 128, &e);
        /* Integer checksums: the field values themselves, not their host bytes. */
        int64_t cd = 0, co = 0;
        for (int i = 0; i < 81; i++) cd += (int64_t)d[i] * (i + 1);
        for (int i = 0; i < 128; i++) co += (int64_t)o[i] * (i + 1);
        printf("  fields %" PRId64 " %" PRId64 "\n", cd, co);
    }
    onescope_sim_free(sim);
    onescope_sim_free(copy);
    onescope_buffer_free(&buf);
    onescope_replay_free(r);
    onescope_replay_free(back);
    return 0;
}

int main(void) {
    int bad = 0;
    bad |= scenario(3, 24, 12345, (onescope_link_block){0, 0, 0}, 400);
    bad |= scenario(2, 5, 7, (onescope_link_block){0, 0, 0}, 400);
    bad |= scenario(2, 8, 1, (onescope_link_block){2, 3, 150}, 300);
    bad |= scenario(3, 10, 42, (onescope_link_block){1, 3, 150}, 300);
    bad |= scenario(3, 64, 0xFFFFFFFFu, (onescope_link_block){3, 0, 0}, 200);
    printf("%s\n", bad ? "FAILED" : "done");
    return bad;
}

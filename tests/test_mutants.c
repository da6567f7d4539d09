/* Tests added for the mutants of scripts/mutants.txt that the suites first let through
 * (scripts/mutate.sh): each pins the exact boundary a plausible slip would move. One file,
 * so the figure's history stays in one place; each test names the module it guards. */
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* bytes.c: reserving exactly the capacity already held allocates nothing. */
static void writer_reserve_exact(void **state) {
    (void)state;
    test_alloc t;
    test_alloc_init(&t, 0);
    onescope_os_writer w;
    onescope_os_writer_init(&w, &t.allocator);
    onescope_os_write_u64(&w, 7);
    long before = t.count;
    assert_true(onescope_os_writer_reserve_total(&w, w.capacity));
    assert_int_equal(t.count, before);
    onescope_buffer out;
    onescope_error err;
    assert_int_equal(onescope_os_writer_finish(&w, &out, &err, "w"), ONESCOPE_OK);
    onescope_buffer_free(&out);
    assert_int_equal(t.live, 0);
}

/* error.c: a text that fits is copied whole; one a byte too long is cut with "..." and
 * terminated inside the buffer, nothing written past it. */
static void copy_text_exact(void **state) {
    (void)state;
    char buf[10];
    memset(buf, 'X', sizeof buf);
    onescope_os_copy_text(buf, 8, "abcdefg");
    assert_string_equal(buf, "abcdefg");
    memset(buf, 'X', sizeof buf);
    onescope_os_copy_text(buf, 8, "abcdefgh");
    assert_string_equal(buf, "abcd...");
    assert_int_equal(buf[8], 'X'); /* nothing written past the 8 bytes given */
}

/* limits.c: a writer may produce exactly the default input limit, not a byte more. */
static void output_limit_exact(void **state) {
    (void)state;
    onescope_error err;
    assert_int_equal(onescope_os_check_output_size(ONESCOPE_MAX_INPUT_BYTES, "o", &err),
                     ONESCOPE_OK);
    assert_int_equal(
        onescope_os_check_output_size((uint64_t)ONESCOPE_MAX_INPUT_BYTES + 1, "o", &err),
        ONESCOPE_E_TOO_LARGE);
}

/* ghost.c: frames = the OSPC maximum passes the frames rule (and meets the row rule). */
static void ghost_frames_maximum(void **state) {
    (void)state;
    onescope_sim_setup setup = {2, 2, 1};
    onescope_replay *r;
    onescope_error err;
    assert_int_equal(onescope_replay_create(&setup, NULL, NULL, &r, &err), ONESCOPE_OK);
    assert_int_equal(onescope_replay_append_step(r, NULL, 0, &err), ONESCOPE_OK);
    onescope_ghost_options o = onescope_ghost_options_default();
    onescope_pose_cache *c;
    o.frames = ONESCOPE_OSPC_MAX_FRAMES;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "from + frames");
    o.frames = ONESCOPE_OSPC_MAX_FRAMES + 1;
    assert_int_equal(onescope_ghost_create(r, &o, NULL, &c, &err), ONESCOPE_E_RANGE);
    assert_string_equal(err.field, "frames");
    onescope_replay_free(r);
}

/* live_stream.c: record type 4, one past END, is refused at the type byte. */
static void live_type_past_end(void **state) {
    (void)state;
    onescope_sim_def def = onescope_sim_def_default();
    def.setup = (onescope_sim_setup){2, 2, 1};
    onescope_sim *sim;
    onescope_live_encoder *enc;
    onescope_error err;
    assert_int_equal(onescope_sim_create(&def, NULL, &sim, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encoder_create(NULL, &enc, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_probe(enc, sim, &err), ONESCOPE_OK);
    assert_int_equal(onescope_live_encode_end(enc, 0, &err), ONESCOPE_OK);
    onescope_buffer b;
    assert_int_equal(onescope_live_encoder_take(enc, &b, &err), ONESCOPE_OK);
    size_t end = 8 + 5 + onescope_os_get_u32(b.data + 9);
    assert_int_equal(b.data[end], ONESCOPE_LIVE_END);
    b.data[end] = ONESCOPE_LIVE_END + 1;
    assert_int_equal(onescope_live_decode(b.data, b.size, "s", NULL, NULL, NULL, &err),
                     ONESCOPE_E_RANGE);
    assert_error_at(err, ONESCOPE_E_RANGE, end);
    assert_string_equal(err.field, "record type");
    onescope_buffer_free(&b);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
}

/* soa_scene.c: dt 1 is inside (0, 1]; a 4-number gravity is the wrong length. */
static void scene_bounds(void **state) {
    (void)state;
    onescope_soa_scene *s;
    onescope_error err;
    const char *one = "{\"dt\": 1, \"bodies\": [{\"kind\": \"sphere\"}]}";
    assert_int_equal(onescope_soa_scene_parse(one, strlen(one), "s", NULL, &s, &err), ONESCOPE_OK);
    onescope_soa_scene_free(s);
    const char *four = "{\"gravity\": [0, -10, 0, 0], \"bodies\": [{\"kind\": \"sphere\"}]}";
    assert_int_equal(onescope_soa_scene_parse(four, strlen(four), "s", NULL, &s, &err),
                     ONESCOPE_E_LENGTH);
    assert_string_equal(err.field, "gravity");
}

/* soa_world.c: a body kind one past the last is refused. */
static void world_kind_past_last(void **state) {
    (void)state;
    if (!onescope_soa_world_available()) skip();
    onescope_soa_world_def d = onescope_soa_world_def_default();
    onescope_soa_world *w;
    onescope_error err;
    assert_int_equal(onescope_soa_world_create(&d, NULL, &w, &err), ONESCOPE_OK);
    onescope_soa_body_def b = onescope_soa_body_def_default();
    b.kind = (onescope_soa_kind)(ONESCOPE_SOA_STATIC_BOX + 1);
    uint32_t index = 99;
    assert_int_equal(onescope_soa_world_add_body(w, &b, &index, &err), ONESCOPE_E_RANGE);
    onescope_soa_world_free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_reserve_exact), cmocka_unit_test(copy_text_exact),
        cmocka_unit_test(output_limit_exact),   cmocka_unit_test(ghost_frames_maximum),
        cmocka_unit_test(live_type_past_end),   cmocka_unit_test(scene_bounds),
        cmocka_unit_test(world_kind_past_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* OSPC v1: every rule that makes a file invalid, round trips, allocation failure. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

/* A small valid cache: 2 entities, 3 frames, one absent pose. */
static onescope_pose_cache *make_cache(void) {
    onescope_pose_cache *c;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_create(3, 2, 3, NULL, &c, &err), ONESCOPE_OK);
    c->start_step = 100;
    c->metres_per_unit = 0.001;
    assert_int_equal(onescope_pose_cache_set_text(c, &c->text[ONESCOPE_POSE_TEXT_UNIT_NAME], "mm", 2, &err), 0);
    assert_int_equal(onescope_pose_cache_set_text(c, &c->text[ONESCOPE_POSE_TEXT_REPLAY], "a.ostm", 6, &err), 0);
    c->entities[0].shape = ONESCOPE_SHAPE_SPHERE;
    c->entities[0].size[0] = 50;
    c->entities[1].id = 77;
    c->entities[1].shape = ONESCOPE_SHAPE_CAPSULE;
    c->entities[1].size[0] = 10;
    c->entities[1].size[1] = 30;
    assert_int_equal(onescope_pose_cache_set_text(c, &c->entities[1].name, "arm", 3, &err), 0);
    for (uint32_t f = 0; f < 3; f++)
        for (uint32_t e = 0; e < 2; e++) {
            onescope_pose *p = &c->poses[f * 2 + e];
            p->position[0] = (float)f;
            p->position[1] = (float)e;
            p->position[2] = 0.5f;
        }
    c->poses[1 * 2 + 1].position[0] = NAN;
    return c;
}

static onescope_buffer write_ok(const onescope_pose_cache *c) {
    onescope_buffer b;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_write(c, NULL, &b, &err), ONESCOPE_OK);
    return b;
}

static void round_trip_is_byte_exact(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    onescope_buffer b = write_ok(c);
    onescope_pose_cache *d;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(b.data, b.size, "rt", NULL, &d, &err), ONESCOPE_OK);
    assert_int_equal(d->entity_count, 2);
    assert_int_equal(d->frame_count, 3);
    assert_true(d->start_step == 100);
    assert_true(d->entities[1].id == 77);
    assert_string_equal(d->entities[1].name.data, "arm");
    assert_false(onescope_pose_is_present(onescope_pose_cache_pose(d, 1, 1)));
    assert_true(onescope_pose_is_present(onescope_pose_cache_pose(d, 2, 1)));
    assert_int_equal(onescope_pose_cache_next_present(d, 1, 1), -1);
    onescope_buffer b2 = write_ok(d);
    assert_int_equal(b.size, b2.size);
    assert_memory_equal(b.data, b2.data, b.size);
    onescope_buffer_free(&b);
    onescope_buffer_free(&b2);
    onescope_pose_cache_free(c);
    onescope_pose_cache_free(d);
}

static void flags_must_be_zero(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    onescope_buffer b = write_ok(c);
    b.data[6] = 3;
    onescope_pose_cache *d;
    onescope_error err;
    assert_int_equal(onescope_pose_cache_parse(b.data, b.size, "test.ospc", NULL, &d, &err),
                     ONESCOPE_E_FLAGS);
    char line[256];
    onescope_error_format(&err, line, sizeof line);
    assert_string_equal(line, "test.ospc: offset 6: flags: expected 0, found 3");
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

static void allocation_failure_everywhere(void **state) {
    (void)state;
    onescope_pose_cache *c = make_cache();
    onescope_buffer b = write_ok(c);
    for (long n = 1;; n++) {
        test_alloc t;
        test_alloc_init(&t, n);
        onescope_parse_options o = onescope_parse_options_default();
        o.allocator = &t.allocator;
        onescope_pose_cache *d = NULL;
        onescope_error err;
        onescope_code rc = onescope_pose_cache_parse(b.data, b.size, "a", &o, &d, &err);
        if (rc == ONESCOPE_OK) {
            onescope_pose_cache_free(d);
            assert_int_equal(t.live, 0);
            assert_true(n > 3);
            break;
        }
        assert_int_equal(rc, ONESCOPE_E_NOMEM);
        assert_null(d);
        assert_int_equal(t.live, 0);
    }
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_is_byte_exact),
        cmocka_unit_test(flags_must_be_zero),
        cmocka_unit_test(allocation_failure_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

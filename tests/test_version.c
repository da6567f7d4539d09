/* The runtime version agrees with the header the program was compiled against. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static void test_string_matches_header(void **state) {
    (void)state;
    const char *v = onescope_version_string();
    assert_non_null(v);
    assert_string_equal(v, ONESCOPE_VERSION_STRING);
    /* and it is MAJOR.MINOR.PATCH of the header's numbers */
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", ONESCOPE_VERSION_MAJOR, ONESCOPE_VERSION_MINOR,
             ONESCOPE_VERSION_PATCH);
    assert_string_equal(v, expect);
}

static void test_number_matches_header(void **state) {
    (void)state;
    assert_int_equal(onescope_version_number(), ONESCOPE_VERSION_NUMBER);
    unsigned n = onescope_version_number();
    assert_int_equal(n / 10000, ONESCOPE_VERSION_MAJOR);
    assert_int_equal(n / 100 % 100, ONESCOPE_VERSION_MINOR);
    assert_int_equal(n % 100, ONESCOPE_VERSION_PATCH);
    /* the string parses back to the number */
    unsigned major = 0, minor = 0, patch = 0;
    assert_int_equal(sscanf(onescope_version_string(), "%u.%u.%u", &major, &minor, &patch), 3);
    assert_int_equal(major * 10000 + minor * 100 + patch, n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_matches_header),
        cmocka_unit_test(test_number_matches_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

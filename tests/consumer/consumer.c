/* A program outside the project that only sees the installed package. It also checks that the
 * library it runs with is the version of the header it was compiled against. */
#include <onescope/onescope.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    if (strcmp(onescope_version_string(), ONESCOPE_VERSION_STRING) != 0 ||
        onescope_version_number() != ONESCOPE_VERSION_NUMBER) {
        fprintf(stderr, "consumer: library %s (%u), header %s (%u)\n", onescope_version_string(),
                onescope_version_number(), ONESCOPE_VERSION_STRING,
                (unsigned)ONESCOPE_VERSION_NUMBER);
        return 1;
    }
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, 1, 1, NULL, &c, &err) != ONESCOPE_OK) return 1;
    onescope_buffer b;
    if (onescope_pose_cache_write(c, NULL, &b, &err) != ONESCOPE_OK) return 1;
    printf("libonescope %s (%u) wrote %zu bytes\n", onescope_version_string(),
           onescope_version_number(), b.size);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
    return 0;
}

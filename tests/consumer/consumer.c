/* A program outside the project that only sees the installed package. */
#include <onescope/onescope.h>
#include <stdio.h>

int main(void) {
    onescope_pose_cache *c;
    onescope_error err;
    if (onescope_pose_cache_create(3, 1, 1, NULL, &c, &err) != ONESCOPE_OK) return 1;
    onescope_buffer b;
    if (onescope_pose_cache_write(c, NULL, &b, &err) != ONESCOPE_OK) return 1;
    printf("libonescope %s wrote %zu bytes\n", ONESCOPE_VERSION_STRING, b.size);
    onescope_buffer_free(&b);
    onescope_pose_cache_free(c);
    return 0;
}

/* The smallest program of a cross build: scripts/test_cross.sh runs it first, natively and
 * then under qemu-user, to learn how this host can run the target's programs at all, so a
 * target that cannot run is reported as such and never as a target whose output differs. */
#include <stdio.h>

int main(void) {
    printf("probe %u-bit\n", (unsigned)(sizeof(void *) * 8));
    return 0;
}

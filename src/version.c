/* The runtime version: compiled into the library, so a program linked against a shared
 * libonescope can tell the library it runs with from the header it was built with. */
#include "onescope/version.h"

/* The string is built from the numbers, so the two cannot disagree with each other. */
#define OS_STR2(x) #x
#define OS_STR(x) OS_STR2(x)
#define OS_VERSION_FROM_PARTS                                                                      \
    OS_STR(ONESCOPE_VERSION_MAJOR)                                                                 \
    "." OS_STR(ONESCOPE_VERSION_MINOR) "." OS_STR(ONESCOPE_VERSION_PATCH)

_Static_assert(sizeof OS_VERSION_FROM_PARTS == sizeof ONESCOPE_VERSION_STRING,
               "ONESCOPE_VERSION_STRING must be MAJOR.MINOR.PATCH");

const char *onescope_version_string(void) {
    return OS_VERSION_FROM_PARTS;
}

unsigned onescope_version_number(void) {
    return ONESCOPE_VERSION_NUMBER;
}

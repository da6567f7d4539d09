/* libonescope version: the one place it is written; CMake parses these lines. The macros
 * give the version a program was compiled against; the functions the version of the
 * library it runs with (a shared library may have been replaced since). */
#ifndef ONESCOPE_VERSION_H
#define ONESCOPE_VERSION_H

#define ONESCOPE_VERSION_MAJOR 0
#define ONESCOPE_VERSION_MINOR 4
#define ONESCOPE_VERSION_PATCH 0
/* "0.2.0", made from the three numbers above so it cannot disagree with them. */
#define ONESCOPE_VERSION_TEXT_(n) #n
#define ONESCOPE_VERSION_TEXT(n) ONESCOPE_VERSION_TEXT_(n)
#define ONESCOPE_VERSION_STRING                                                                    \
    ONESCOPE_VERSION_TEXT(ONESCOPE_VERSION_MAJOR)                                                  \
    "." ONESCOPE_VERSION_TEXT(ONESCOPE_VERSION_MINOR) "." ONESCOPE_VERSION_TEXT(                   \
        ONESCOPE_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH: compares with < and > */
#define ONESCOPE_VERSION_NUMBER                                                                    \
    (ONESCOPE_VERSION_MAJOR * 10000 + ONESCOPE_VERSION_MINOR * 100 + ONESCOPE_VERSION_PATCH)

#include "onescope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The running library's version as "MAJOR.MINOR.PATCH" (static storage, never NULL). */
ONESCOPE_API const char *onescope_version_string(void);

/* The running library's ONESCOPE_VERSION_NUMBER. */
ONESCOPE_API unsigned onescope_version_number(void);

#ifdef __cplusplus
}
#endif

#endif

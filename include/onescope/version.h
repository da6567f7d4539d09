/* libonescope version: the one place it is written; CMake parses these lines. The macros
 * give the version a program was compiled against; the functions the version of the
 * library it runs with (a shared library may have been replaced since). */
#ifndef ONESCOPE_VERSION_H
#define ONESCOPE_VERSION_H

#define ONESCOPE_VERSION_MAJOR 0
#define ONESCOPE_VERSION_MINOR 1
#define ONESCOPE_VERSION_PATCH 0
#define ONESCOPE_VERSION_STRING "0.1.0"
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

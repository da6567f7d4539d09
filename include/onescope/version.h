/* libonescope version: the one place it is written; CMake parses these lines. */
#ifndef ONESCOPE_VERSION_H
#define ONESCOPE_VERSION_H

#define ONESCOPE_VERSION_MAJOR 0
#define ONESCOPE_VERSION_MINOR 2
#define ONESCOPE_VERSION_PATCH 0
/* "0.2.0", made from the three numbers above so it cannot disagree with them. */
#define ONESCOPE_VERSION_TEXT_(n) #n
#define ONESCOPE_VERSION_TEXT(n) ONESCOPE_VERSION_TEXT_(n)
#define ONESCOPE_VERSION_STRING                                                                    \
    ONESCOPE_VERSION_TEXT(ONESCOPE_VERSION_MAJOR)                                                  \
    "." ONESCOPE_VERSION_TEXT(ONESCOPE_VERSION_MINOR) "." ONESCOPE_VERSION_TEXT(                   \
        ONESCOPE_VERSION_PATCH)

#endif

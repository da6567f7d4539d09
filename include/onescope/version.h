/* libonescope version: the one place it is written; CMake parses these lines. */
#ifndef ONESCOPE_VERSION_H
#define ONESCOPE_VERSION_H

#define ONESCOPE_VERSION_MAJOR 0
#define ONESCOPE_VERSION_MINOR 1
#define ONESCOPE_VERSION_PATCH 0
#define ONESCOPE_VERSION_STRING "0.1.0"

#endif

/* Which of the library's formats a block of bytes is: the one detection the CLI and any
 * caller use, built from the binary magics and the OTS JSON "format" key. */
#ifndef ONESCOPE_FORMAT_H
#define ONESCOPE_FORMAT_H

#include "onescope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values are part of the ABI: never renumber, never reuse. */
typedef enum onescope_format {
    ONESCOPE_FORMAT_UNKNOWN = 0,
    ONESCOPE_FORMAT_OSPC = 1,     /* pose cache: starts with "OSPC" */
    ONESCOPE_FORMAT_OSTM = 2,     /* replay: starts with "OSTM" */
    ONESCOPE_FORMAT_OSLS = 3,     /* live stream: starts with "OSLS" */
    ONESCOPE_FORMAT_PVT = 4,      /* OTS rig: JSON whose first "format" key is "octo_pvt" */
    ONESCOPE_FORMAT_ANM = 5,      /* OTS clip: JSON whose first "format" key is "octo_anm" */
    ONESCOPE_FORMAT_RECORDING = 6 /* module recording: "OSTM" then version 2 (recording.h) */
} onescope_format;

/* How far detection looks: the first 1 MiB, what validate reads before it picks a format's
 * streamed validator. An OTS file's first "format" key must lie inside it, written without
 * escapes; the .pvt and .anm readers refuse (ONESCOPE_E_MAGIC) a file whose "format" member
 * detection does not see, so every reader gives such a file the same verdict. */
#define ONESCOPE_FORMAT_DETECT_BYTES ((size_t)1 << 20)

/* The format the bytes claim to be, from the first four bytes or, for text starting with
 * '{' (after white space), the first "format" key in the first ONESCOPE_FORMAT_DETECT_BYTES
 * (onescope_ots_detect). "OSTM" is a module recording when the next two bytes are version 2
 * (six bytes are needed to tell). A quick look, not a validation: the format's parser has the
 * last word. Fewer than four bytes, NULL data or anything else: ONESCOPE_FORMAT_UNKNOWN. */
ONESCOPE_API onescope_format onescope_format_detect(const void *data, size_t size);

/* The short lower-case name of a format ("ospc", "ostm", "osls", "pvt", "anm", "ostm2"), "unknown"
 * for ONESCOPE_FORMAT_UNKNOWN and any value outside the enum. Never NULL. */
ONESCOPE_API const char *onescope_format_name(onescope_format format);

#ifdef __cplusplus
}
#endif

#endif

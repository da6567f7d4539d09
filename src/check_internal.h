/* Shared by the format files and src/file.c: the push validators (bytes in, a verdict out,
 * no I/O) that let file.c check a file through one fixed buffer, and the pieces of the
 * memory-mapped pose cache open. Not part of the public API. */
#ifndef ONESCOPE_CHECK_INTERNAL_H
#define ONESCOPE_CHECK_INTERNAL_H

#include "onescope/pose_cache.h"

/* ---- OSPC push validator (src/pose_cache.c) ----
 * begin with the input's whole size (known up front: file.c has it from fstat), feed the
 * bytes in order in pieces of any size, then end. The verdict, offset and message are the
 * parser's on the same bytes, because the same scan functions run on each unit (header, a
 * text, an entity, a block of poses). Memory: the struct and the id set (at most 1 MiB). */
typedef struct onescope_os_ospc_check onescope_os_ospc_check;

onescope_code onescope_os_ospc_check_begin(size_t total, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_os_ospc_check **out, onescope_error *error);
/* Returns the verdict so far: ONESCOPE_OK while the bytes are good, the first error (also
 * on every later call) once one is found. Feeding more than total bytes is an error. */
onescope_code onescope_os_ospc_check_feed(onescope_os_ospc_check *c, const void *data, size_t n);
/* After the last byte: the final verdict, filled into error. */
onescope_code onescope_os_ospc_check_end(onescope_os_ospc_check *c, onescope_error *error);
void onescope_os_ospc_check_free(onescope_os_ospc_check *c);
/* The offset of the first pose once the head (header, texts, entities) has passed every
 * check; 0 before that or after a failure. Lets a reader stream the poses (src/file.c). */
size_t onescope_os_ospc_check_poses_at(const onescope_os_ospc_check *c);

/* ---- the mapped open (parse in src/pose_cache.c, the mapping in src/file.c) ----
 * Parses data (a mapping of the whole file) like onescope_pose_cache_parse; where the host
 * allows, the cache's poses point into data and *borrowed is set, else they are copied. */
onescope_code onescope_os_pose_cache_parse_mapped(const void *data, size_t size, const char *name,
                                                  const onescope_parse_options *options,
                                                  bool *borrowed, onescope_pose_cache **out,
                                                  onescope_error *error);
/* Releases a mapping made by onescope_pose_cache_map (src/file.c). */
void onescope_os_unmap(void *mapping, size_t size);

#endif

/* Private to src/file.c and the running layer: a pose cache read frame by frame from a file
 * through one buffer, so a comparison's memory does not grow with the number of frames; and
 * a byte sink, so a converter writes its output in pieces through the one write path. */
#ifndef ONESCOPE_FILE_INTERNAL_H
#define ONESCOPE_FILE_INTERNAL_H

#include "onescope/pose_cache.h"

typedef struct onescope_os_pose_stream onescope_os_pose_stream;

/* Opens path ("-", pipes and devices are read whole) and checks its head. *head gets a cache
 * holding the head (texts, entities) and its first frame only; *frames the file's real frame
 * count. Every byte goes through the parser's push validator as it is read, so the verdict,
 * offset and message are the parser's. */
onescope_code onescope_os_pose_stream_open(const char *path, const onescope_parse_options *options,
                                           onescope_os_pose_stream **out,
                                           const onescope_pose_cache **head, uint32_t *frames,
                                           onescope_error *error);
/* Decodes the next frame (head entity_count poses) into out. An error latches. */
onescope_code onescope_os_pose_stream_next(onescope_os_pose_stream *s, onescope_pose *out,
                                           onescope_error *error);
/* Reads and checks whatever is left after the frames taken: the file's final verdict. */
onescope_code onescope_os_pose_stream_finish(onescope_os_pose_stream *s, onescope_error *error);
void onescope_os_pose_stream_free(onescope_os_pose_stream *s);

/* A byte sink: one output written in pieces that lands as onescope_file_write lands one
 * buffer (docs/hardening.md, "### files"): bytes go to a temporary beside the file path ends
 * at (symlinks followed, a dangling one's target created) with an existing file's mode and
 * owner, and commit syncs, closes and renames it into place; a device, FIFO or socket is
 * written in place. Until commit nothing exists at path (a device excepted); discard removes
 * the temporary. No buffering here: each write goes to the descriptor, so the caller's own
 * buffer decides the write size. Errors name path. "-" is refused (standard output cannot be
 * taken back). */
typedef struct onescope_os_file_sink onescope_os_file_sink;
onescope_code onescope_os_file_sink_open(const char *path, const onescope_allocator *a,
                                         onescope_os_file_sink **out, onescope_error *error);
onescope_code onescope_os_file_sink_write(onescope_os_file_sink *s, const void *data, size_t n,
                                          onescope_error *error);
/* Syncs, closes and renames; frees s whatever happens (a failure removes the temporary). */
onescope_code onescope_os_file_sink_commit(onescope_os_file_sink *s, onescope_error *error);
/* Closes, removes the temporary and frees s; NULL is fine. */
void onescope_os_file_sink_discard(onescope_os_file_sink *s);

/* ---- src/file_stream.c: an input in chunks, and a scratch file ---- */

/* An input read through one 1 MiB buffer: path ("-" standard input) opened as the read path
 * opens it, a regular file's size checked against limit first (onescope_file_read's
 * E_TOO_LARGE line), anything else counted against it as it comes; an end before a regular
 * file's size when opened is an error (it shrank). *first gets the first chunk (all of the
 * input, or at least ONESCOPE_FORMAT_DETECT_BYTES of it), valid until the next call; errors
 * name name. */
typedef struct onescope_os_file_chunks onescope_os_file_chunks;
onescope_code onescope_os_file_chunks_open(const char *path, const char *name, size_t limit,
                                           const onescope_allocator *a,
                                           onescope_os_file_chunks **out, const uint8_t **first,
                                           size_t *first_size, onescope_error *error);
/* The next chunk (user: the chunks), size 0 at the end: an onescope_os_jr_more. */
bool onescope_os_file_chunks_more(void *user, const uint8_t **data, size_t *size,
                                  onescope_error *error);
/* Reads on to the end, for the read path's verdicts on what is left (the limit, a file that
 * shrank, a read error); OK when none, or when an error was said already. */
onescope_code onescope_os_file_chunks_drain(onescope_os_file_chunks *c, onescope_error *error);
void onescope_os_file_chunks_free(onescope_os_file_chunks *c);

/* A scratch file: unnamed (O_TMPFILE, or a name removed at once) in $TMPDIR or /tmp, gone
 * when closed or when the process dies. Appends go through a 256 KiB buffer; a read (pread,
 * not a mapping, so no page of it counts in the process's memory) flushes it first. Errors
 * name name and the folder. */
typedef struct onescope_os_scratch onescope_os_scratch;
onescope_code onescope_os_scratch_open(const char *name, const onescope_allocator *a,
                                       onescope_os_scratch **out, onescope_error *error);
onescope_code onescope_os_scratch_append(onescope_os_scratch *s, const void *data, size_t n,
                                         onescope_error *error);
onescope_code onescope_os_scratch_flush(onescope_os_scratch *s, onescope_error *error);
/* The bytes appended so far. */
uint64_t onescope_os_scratch_size(const onescope_os_scratch *s);
/* Exactly n bytes at offset (a short file is an error). */
onescope_code onescope_os_scratch_read(onescope_os_scratch *s, uint64_t offset, void *data,
                                       size_t n, onescope_error *error);
void onescope_os_scratch_free(onescope_os_scratch *s);

#endif

/* The library's file I/O (src/file.c): the one whole-file read and the one atomic write.
 * Every format's _read_file/_write_file (declared in the format's header) is built on these
 * two: onescope_file_read under the options' limit, then the format's parser on the bytes. */
#ifndef ONESCOPE_FILE_H
#define ONESCOPE_FILE_H

#include "onescope/error.h"
#include "onescope/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a whole file ("-" is standard input) into out. Refuses files over max_bytes
 * (0: ONESCOPE_MAX_INPUT_BYTES, as for onescope_parse_options) with ONESCOPE_E_TOO_LARGE, at offset
 * max_bytes (the first byte past the limit), before reading them whole. */
ONESCOPE_API onescope_code onescope_file_read(const char *path, size_t max_bytes,
                                              const onescope_allocator *allocator,
                                              onescope_buffer *out, onescope_error *error);

/* Writes bytes to path atomically: a temporary file in the same directory, fsync, rename.
 * On failure the temporary is removed and any existing file at path is untouched.
 * "-" writes to standard output. */
ONESCOPE_API onescope_code onescope_file_write(const char *path, const void *data, size_t size,
                                               onescope_error *error);

/* Checks a file ("-" is standard input) against its format, found from its content with
 * onescope_format_detect, and stores the format in *format (when format is not NULL;
 * ONESCOPE_FORMAT_UNKNOWN when it is none of them, with ONESCOPE_E_MAGIC). The verdict and the
 * error are exactly those of onescope_file_read followed by the format's parser, but every
 * input (regular files, standard input, pipes, devices) is streamed through one fixed 1 MiB
 * buffer and the format's push validator, so memory does not grow with the input. A stream's
 * size is learnt at its end: a bad one is read on to it (or to one byte past the limit), so
 * that the verdict is still the parser's. (OTS JSON from a stream: errors handed to on_error
 * before the text proves longer than the limit stay handed.) A directory is E_IO. */
ONESCOPE_API onescope_code onescope_file_validate(const char *path,
                                                  const onescope_parse_options *options,
                                                  onescope_format *format, onescope_error *error);

/* Copies an input ("-" is standard input; a pipe, a FIFO or a device too) into an unnamed
 * scratch file in $TMPDIR (else /tmp) and returns a descriptor of it at offset 0 in *fd, for
 * a caller that must look at a stream before choosing how to read it, or read it twice: the
 * copy is a regular file, so every _file call streams it when given "/dev/fd/N". The input
 * limit of options (0: ONESCOPE_MAX_INPUT_BYTES) is counted as the bytes arrive, with
 * onescope_file_read's verdicts and lines; the copy takes the input's size on disk, never in
 * memory. The file is gone when *fd is closed or the process ends. *fd is -1 on failure. */
ONESCOPE_API onescope_code onescope_file_spool(const char *path,
                                               const onescope_parse_options *options, int *fd,
                                               onescope_error *error);

/* Opens an input exactly once, for a caller that must look at it before choosing how to read
 * it, or read it more than once: path ("-" is standard input) is opened once (a FIFO waits for
 * its writer, as any reader of a named pipe does). A regular file gives its own descriptor; a
 * stream (standard input, a pipe, a FIFO, /dev/fd/N of a pipe, a device) is copied from that one
 * descriptor as onescope_file_spool copies it. Either way *fd is a regular file at offset 0,
 * the caller's to close, and every _file call reads that same open file when given
 * "/dev/fd/N" (which names the open file, not the path): the input's name is looked up once, so
 * a file renamed or replaced meanwhile cannot change what is read. A regular file's size is
 * checked against the options' limit here (onescope_file_read's line). *fd is -1 on failure. */
ONESCOPE_API onescope_code onescope_file_open_input(const char *path,
                                                    const onescope_parse_options *options, int *fd,
                                                    onescope_error *error);

/* true when both paths name the same existing file (same device and inode). */
ONESCOPE_API bool onescope_file_same(const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif

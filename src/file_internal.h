/* Private to the file layer and the layers above it: the file steps each format's file glue
 * is built from; a pose cache read frame by frame through one buffer, so a comparison's
 * memory does not grow with the number of frames; a byte sink, so a converter writes its
 * output in pieces through the one write path; the writers' core and the one recovery. */
#ifndef ONESCOPE_FILE_INTERNAL_H
#define ONESCOPE_FILE_INTERNAL_H

#include <sys/types.h>

#include "check_internal.h"
#include "internal.h"
#include "onescope/pose_cache.h"

/* ---- src/file.c for each format's file glue (src/pose_cache_file.c, src/replay_file.c,
 * src/recording_file.c): the file steps, so the glue holds the format's part only ---- */

/* The read buffer every streamed read uses (validate's pump, the verify cursors). */
#define ONESCOPE_OS_READ_BUFFER ((size_t)1 << 20)
/* size bytes starting on a page (read(2) into it is faster); *raw is what to free. */
uint8_t *onescope_os_read_buffer(const onescope_allocator *a, size_t size, void **raw);
/* An I/O failure: "what: strerror(errno)" naming name. */
onescope_code onescope_os_io_fail(onescope_error *error, const char *name, const char *what);
/* "<stdin>" for "-", else path: the name messages use for an input. */
const char *onescope_os_input_name(const char *path);
/* onescope_file_read under the options' limit and allocator. */
onescope_code onescope_os_file_read_input(const char *path, const onescope_parse_options *options,
                                          onescope_buffer *buf, onescope_error *error);
/* onescope_file_write of a writer's buffer, which is freed whatever happens. */
onescope_code onescope_os_file_write_buffer(const char *path, onescope_buffer *buf,
                                            onescope_error *error);
/* Opens an input ("-" standard input) once, for reading: a FIFO waits for its writer.
 * Returns the descriptor (STDIN_FILENO for "-", never closed by the caller), or -1 with the
 * "cannot open" line naming name. Every read of a named input goes through here. */
int onescope_os_file_open_input(const char *path, const char *name, onescope_error *error);
typedef struct onescope_os_scratch onescope_os_scratch;
/* Opens an input once for reading at any offset: a regular file (not standard input) within
 * the options' limit gives its own descriptor and size (the read path's size line otherwise);
 * anything else (standard input, a pipe, a FIFO, /dev/fd/N of a pipe, a device) is spooled
 * from that one descriptor into a scratch file (onescope_os_fd_spool), *spool owning *fd.
 * Without a spool the caller closes *fd. Errors name the input ("<stdin>" for "-"). */
onescope_code onescope_os_file_open_seekable(const char *path,
                                             const onescope_parse_options *options, int *fd,
                                             uint64_t *size, onescope_os_scratch **spool,
                                             onescope_error *error);
/* A regular file of size total, from its start, through a push validator (buf holds
 * ONESCOPE_OS_READ_BUFFER bytes), kept as onescope_os_push_run keeps it. */
onescope_code onescope_os_file_push(const onescope_os_push_ops *ops, int fd, uint8_t *buf,
                                    uint64_t total, const char *name,
                                    const onescope_parse_options *options, void **keep,
                                    onescope_error *error);
/* A cursor over a file already validated: reads with pread through buf, so an end before the
 * validated size is the file shrinking (one line saying so). */
typedef struct onescope_os_cursor {
    int fd;
    uint8_t *buf;
    size_t cap, at, end; /* buf[at..end) holds the file from offset next - (end - at) */
    uint64_t next;       /* file offset of the byte after buf[end - 1] */
    const char *name;
} onescope_os_cursor;
onescope_os_cursor onescope_os_cursor_at(int fd, uint8_t *buf, size_t cap, uint64_t offset,
                                         const char *name);
/* Points *p at the next n bytes (n <= cap), valid until the next call. */
onescope_code onescope_os_cursor_take(onescope_os_cursor *c, size_t n, const uint8_t **p,
                                      onescope_error *error);
/* Copies the next n bytes (any n) into out. */
onescope_code onescope_os_cursor_copy(onescope_os_cursor *c, size_t n, uint8_t *out,
                                      onescope_error *error);
/* The file offset of the cursor's next byte; n bytes on without reading them. */
uint64_t onescope_os_cursor_offset(const onescope_os_cursor *c);
void onescope_os_cursor_skip(onescope_os_cursor *c, uint64_t n);
/* n bytes at offset at into a new buffer of a's (*out, freed by the caller even on failure). */
onescope_code onescope_os_file_read_new(int fd, uint64_t at, size_t n, const onescope_allocator *a,
                                        uint8_t **out, const char *name, onescope_error *error);
/* A read-only private mapping of a regular file's size bytes (NULL for 0); unmap takes NULL. */
onescope_code onescope_os_file_map(int fd, size_t size, void **map, const char *name,
                                   onescope_error *error);
void onescope_os_file_unmap(void *map, size_t size);

typedef struct onescope_os_pose_stream onescope_os_pose_stream;

/* Opens path ("-", pipes and devices spooled to a scratch file) and checks its head. *head gets a
 * cache holding the head (texts, entities) and its first frame only; *frames the file's real frame
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

/* ---- the one streamed recovery (both streaming writers' recover) ----
 * A partial is read through one buffer and never held whole. The format's scan runs first
 * (onescope_os_recover_scan: every byte fed in order to a push scanner); then
 * onescope_os_recover_copy copies the kept bytes into out_path through the sink, with the
 * count written over patch_at, and hands every piece from body_at on to check (when not NULL)
 * before it is written: a piece is then a whole number of units (kept - body_at is one). A
 * failure leaves no output. */
/* Reads up to n bytes from fd (fewer only at its end), retrying EINTR; -1 on a read error.
 * The one read loop of the file layer. */
ssize_t onescope_os_file_read_some(int fd, uint8_t *p, size_t n);

/* Opens a partial for recovery: a regular file within the input limit, its size in *size;
 * -1 with error filled otherwise. */
int onescope_os_recover_open(const char *partial, uint64_t *size, onescope_error *error);
typedef onescope_code onescope_os_recover_check(void *user, uint64_t offset, const uint8_t *piece,
                                                size_t size, onescope_error *error);
onescope_code
onescope_os_recover_scan(int fd, const char *partial, uint64_t size,
                         onescope_code (*feed)(void *user, const void *data, size_t n), void *user,
                         const onescope_allocator *a, onescope_error *error);
onescope_code onescope_os_recover_copy(int fd, const char *partial, uint64_t kept,
                                       uint64_t patch_at, const void *patch, size_t patch_size,
                                       uint64_t body_at, size_t unit,
                                       onescope_os_recover_check *check, void *user,
                                       const char *out_path, const onescope_allocator *a,
                                       onescope_error *error);

/* ---- the streaming writers' one core (src/writer_core.c) ----
 * A partial written through a buffer: each writer embeds one and names its own files. fd is
 * the partial (-1 when none), buf/cap the writer's buffer, size the bytes of the partial so far
 * (buffered ones included). A failure latches the writer (OPEN -> LATCHED): later calls are
 * refused in one line, close keeps what can be kept, and an I/O failure also stops every
 * write (bytes_lost). */
typedef enum onescope_os_out_state {
    ONESCOPE_OS_OUT_OPEN,
    ONESCOPE_OS_OUT_LATCHED,
    ONESCOPE_OS_OUT_CLOSED
} onescope_os_out_state;

typedef struct onescope_os_out {
    int fd;
    uint8_t *buf;
    size_t cap, used;
    uint64_t size;
    onescope_os_flush_rule flush;
    onescope_os_out_state state;
    bool bytes_lost; /* an I/O failure: the buffer may not follow the file's bytes */
    bool committed;  /* close succeeded: the partial is now the target */
} onescope_os_out;

/* rc, latching the writer when it is a failure. */
onescope_code onescope_os_out_latch(onescope_os_out *o, onescope_code rc);
/* n bytes through the buffer, written out each time it fills. */
onescope_code onescope_os_out_feed(onescope_os_out *o, const void *data, size_t n, const char *name,
                                   onescope_error *error);
/* The buffer out. */
onescope_code onescope_os_out_drain(onescope_os_out *o, const char *name, onescope_error *error);
/* A flush as the options define it (common.h): the buffer out, and fsync if asked. */
onescope_code onescope_os_out_flush(onescope_os_out *o, const char *name, onescope_error *error);
/* The three calls every record makes are inline: a writer's step costs about a hundred
 * nanoseconds, and three calls more per record were 2 to 3 % of it (bench_writers). */
/* n bytes of room in the buffer (n <= cap), writing it out first if needed; NULL on failure.
 * onescope_os_out_wrote then counts what was put there. */
static inline uint8_t *onescope_os_out_room(onescope_os_out *o, size_t n, const char *name,
                                            onescope_error *error) {
    if (o->cap - o->used < n && onescope_os_out_drain(o, name, error) != ONESCOPE_OK) return NULL;
    return o->buf + o->used;
}
static inline void onescope_os_out_wrote(onescope_os_out *o, size_t n) {
    o->used += n;
    o->size += n;
}
/* After a record: the flush the rule says is due (latching on failure). */
static inline onescope_code onescope_os_out_appended(onescope_os_out *o, const char *name,
                                                     onescope_error *error) {
    if (!onescope_os_flush_due(&o->flush)) return ONESCOPE_OK;
    return onescope_os_out_latch(o, onescope_os_out_flush(o, name, error));
}
/* The refusal of a call on a writer that is not open; unit: what its partial keeps. */
onescope_code onescope_os_out_refuse(const onescope_os_out *o, const char *name, const char *call,
                                     const char *unit, onescope_error *error);
/* close of a latched writer: what can be kept goes out, the partial stays, the refusal. */
onescope_code onescope_os_out_close_failed(onescope_os_out *o, const char *name,
                                           const char *partial, const char *unit,
                                           onescope_error *error);
/* The close: the buffer out, count_size bytes of count written at count_at (none when 0),
 * then the one landing of the partial onto target. The descriptor is gone either way. */
onescope_code onescope_os_out_land(onescope_os_out *o, uint64_t count_at, const void *count,
                                   size_t count_size, const char *partial, const char *target,
                                   const char *name, onescope_error *error);
/* Free without close: the buffered records out (unless bytes were lost), the partial kept. */
void onescope_os_out_leave(onescope_os_out *o, const char *name);
/* Discard: the descriptor closed, the partial removed unless close committed it. */
void onescope_os_out_abandon(onescope_os_out *o, const char *name, const char *partial);

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

/* A stream (standard input, a pipe, a device) copied into a scratch file as it comes, under
 * the chunked reader's rules (the limit counted as the bytes arrive, a folder refused), then
 * handed back as a descriptor at offset 0 and its size: a verify or a frame reader then reads
 * it as it reads a regular file, in the same memory, at the cost of its size in $TMPDIR.
 * *out owns the descriptor (onescope_os_scratch_free closes it). onescope_os_file_spool opens
 * path once (onescope_os_file_open_input); onescope_os_fd_spool reads an input already open,
 * closing in when owned is true, whatever happens. */
onescope_code onescope_os_file_spool(const char *path, const char *name, size_t limit,
                                     const onescope_allocator *a, onescope_os_scratch **out,
                                     int *fd, uint64_t *size, onescope_error *error);
onescope_code onescope_os_fd_spool(int in, bool owned, const char *name, size_t limit,
                                   const onescope_allocator *a, onescope_os_scratch **out, int *fd,
                                   uint64_t *size, onescope_error *error);

#endif

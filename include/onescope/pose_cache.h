/* OSPC v1 pose caches: positions and orientations of a fixed set of entities over
 * consecutive steps. Format: docs/pose-cache.md. */
#ifndef ONESCOPE_POSE_CACHE_H
#define ONESCOPE_POSE_CACHE_H

#include "onescope/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONESCOPE_OSPC_VERSION 1
#define ONESCOPE_OSPC_MAX_ENTITIES 65536u
#define ONESCOPE_OSPC_MAX_FRAMES 4194304u
#define ONESCOPE_OSPC_MAX_TEXT 1024u
#define ONESCOPE_OSPC_POSE_BYTES 28u

typedef enum onescope_shape {
    ONESCOPE_SHAPE_POINT = 0,
    ONESCOPE_SHAPE_SPHERE = 1,
    ONESCOPE_SHAPE_BOX = 2,
    ONESCOPE_SHAPE_CAPSULE = 3
} onescope_shape;

/* UTF-8 text with an explicit length; data is NUL-terminated for convenience but may hold
 * U+0000 itself, so trust length. */
typedef struct onescope_text {
    char *data;
    uint16_t length;
} onescope_text;

typedef struct onescope_pose_entity {
    uint64_t id;   /* not 0, unique within the cache */
    uint8_t shape; /* onescope_shape */
    float size[3]; /* sphere: radius in x; box: half extents; capsule: radius x, half length y */
    onescope_text name;
} onescope_pose_entity;

/* One entity in one frame. position[0] NaN: absent in that frame (the rest is ignored). */
typedef struct onescope_pose {
    float position[3];
    float rotation[4]; /* x y z w; all zero reads as the identity */
} onescope_pose;

typedef enum onescope_pose_text_field {
    ONESCOPE_POSE_TEXT_UNIT_NAME = 0,
    ONESCOPE_POSE_TEXT_MODULE_ID = 1,
    ONESCOPE_POSE_TEXT_LIBRARY_VERSION = 2,
    ONESCOPE_POSE_TEXT_SCENE = 3,
    ONESCOPE_POSE_TEXT_REPLAY = 4,
    ONESCOPE_POSE_TEXT_LABEL = 5,
    ONESCOPE_POSE_TEXT_COUNT = 6
} onescope_pose_text_field;

/* A parsed or built cache. Frame k is step start_step + k; poses are frame-major:
 * poses[frame * entity_count + entity]. Owned by the library's allocator. */
typedef struct onescope_pose_cache {
    uint8_t dimensions; /* 2 or 3 */
    uint32_t entity_count;
    uint32_t frame_count;
    int64_t start_step;     /* >= 0 */
    double metres_per_unit; /* 0, or positive and finite */
    onescope_text text[ONESCOPE_POSE_TEXT_COUNT];
    onescope_pose_entity *entities;
    onescope_pose *poses;
    const onescope_allocator *allocator;
    /* Set by onescope_pose_cache_map when poses point into a read-only mapping of the file
     * (never write through poses then; the setters refuse such a cache); NULL otherwise.
     * Owned by the cache: onescope_pose_cache_free hands it to release_mapping, which the
     * mapped open sets with it (the file code releases what it mapped; do not touch). */
    void *mapping;
    size_t mapping_size;
    void (*release_mapping)(void *mapping, size_t size);
} onescope_pose_cache;

/* Parses an OSPC v1 file from memory. options may be NULL (defaults). On success *out
 * owns a copy of everything it needs; data may be freed afterwards. */
ONESCOPE_API onescope_code onescope_pose_cache_parse(const void *data, size_t size,
                                                     const char *name,
                                                     const onescope_parse_options *options,
                                                     onescope_pose_cache **out,
                                                     onescope_error *error);

/* Allocates an empty cache of the given shape: every entity has id index+1, shape point,
 * empty name; every pose is at the origin with identity rotation; all text empty.
 * Fill it, then write it. */
ONESCOPE_API onescope_code onescope_pose_cache_create(uint8_t dimensions, uint32_t entity_count,
                                                      uint32_t frame_count,
                                                      const onescope_allocator *allocator,
                                                      onescope_pose_cache **out,
                                                      onescope_error *error);

/* Replaces one of the cache's text fields with a copy of length bytes (at most 1024, valid
 * UTF-8; text may be NULL when length is 0). A `which` outside the enum: ONESCOPE_E_RANGE.
 * On any failure the old text stays. */
ONESCOPE_API onescope_code onescope_pose_cache_set_text(onescope_pose_cache *cache,
                                                        onescope_pose_text_field which,
                                                        const char *text, size_t length,
                                                        onescope_error *error);

/* The same for the name of entity `entity` (0-based, below entity_count, else
 * ONESCOPE_E_RANGE). */
ONESCOPE_API onescope_code onescope_pose_cache_set_entity_name(onescope_pose_cache *cache,
                                                               uint32_t entity, const char *text,
                                                               size_t length,
                                                               onescope_error *error);

/* Frees a cache from parse or create; NULL is fine. */
ONESCOPE_API void onescope_pose_cache_free(onescope_pose_cache *cache);

/* Checks every rule the parser checks; the writer calls it first. name labels the error. */
ONESCOPE_API onescope_code onescope_pose_cache_validate(const onescope_pose_cache *cache,
                                                        const char *name, onescope_error *error);

/* Serialises a valid cache; parse(write(c)) == c and write(parse(b)) == b. */
ONESCOPE_API onescope_code onescope_pose_cache_write(const onescope_pose_cache *cache,
                                                     const onescope_allocator *allocator,
                                                     onescope_buffer *out, onescope_error *error);

/* The bytes the written file holds before its first pose (the fixed fields, the six texts,
 * the entities and their names), from the cache's counts and lengths alone: a file of F
 * frames is *size + F * entity_count * 28 bytes. So a caller can refuse an output past a
 * limit before computing a pose. Nothing is validated (onescope_pose_cache_validate does);
 * a NULL cache or size, or NULL entities with a count: ONESCOPE_E_ARGUMENT, *size 0. */
ONESCOPE_API onescope_code onescope_pose_cache_head_size(const onescope_pose_cache *cache,
                                                         uint64_t *size, onescope_error *error);

/* The pose of an entity in a frame, or NULL when either index is out of range. */
ONESCOPE_API const onescope_pose *onescope_pose_cache_pose(const onescope_pose_cache *cache,
                                                           uint32_t frame, uint32_t entity);

/* true when the entity is present in that pose (position x is not NaN); false for NULL. */
ONESCOPE_API bool onescope_pose_is_present(const onescope_pose *pose);

/* The pose's rotation with the all-zero quaternion read as the identity (x y z w). A NULL
 * pose (what onescope_pose_cache_pose returns out of range) reads as the identity too; a
 * NULL out is ignored. */
ONESCOPE_API void onescope_pose_rotation(const onescope_pose *pose, float out[4]);

/* Iterates the present entities of a frame: returns the first present entity index
 * >= start, or -1 when there is none. for (i = next(c,f,0); i >= 0; i = next(c,f,i+1)). */
ONESCOPE_API int64_t onescope_pose_cache_next_present(const onescope_pose_cache *cache,
                                                      uint32_t frame, uint32_t start);

/* Reads a file ("-": standard input) with onescope_file_read under options' limit and
 * allocator, then parses it with onescope_pose_cache_parse: the result and any error are
 * exactly those of the parser on the file's bytes (src/file.c). */
ONESCOPE_API onescope_code onescope_pose_cache_read_file(const char *path,
                                                         const onescope_parse_options *options,
                                                         onescope_pose_cache **out,
                                                         onescope_error *error);

/* Opens a pose cache file read-only through a memory mapping. Everything is checked once,
 * as onescope_pose_cache_parse checks it (the same verdict, offset and message on the same
 * bytes; the input limit applies), so a mapped cache never holds a pose the parser would
 * refuse. Zero copy where the host is little-endian with IEEE-754 floats and the pose section
 * starts at a multiple of 4 in the file: poses then point into the mapping and
 * cache->mapping is set. Otherwise (other hosts, an unaligned pose section) the poses are
 * copied and the mapping released before returning. "-" and what is not a regular file (a
 * pipe, a FIFO, a device) is opened once and spooled to a scratch file (as onescope_file_spool
 * does), whose copy is mapped. A mapped cache is read-only:
 * the setters refuse it with ONESCOPE_E_BAD_STATE. onescope_pose_cache_free unmaps it. The
 * file must not shrink while mapped (the system would then fault on the lost pages). */
ONESCOPE_API onescope_code onescope_pose_cache_map(const char *path,
                                                   const onescope_parse_options *options,
                                                   onescope_pose_cache **out,
                                                   onescope_error *error);

/* Writes a cache to a file atomically (onescope_pose_cache_write, then onescope_file_write). */
ONESCOPE_API onescope_code onescope_pose_cache_write_file(const onescope_pose_cache *cache,
                                                          const char *path, onescope_error *error);

/* true when text[0..length) is a plain file name: not empty, valid UTF-8, not made only of
 * dots and spaces (".", "..", "..." and the like), no '/', '\\' or ':' (so no directory
 * part, absolute path, drive letter or UNC share on any platform), no NUL, no control
 * characters (below 0x20, and 0x7F). */
ONESCOPE_API bool onescope_file_name_is_plain(const char *text, size_t length);

/* When the cache's replay field is a plain file name, writes the directory of cache_path
 * joined with it into out and returns true; otherwise returns false and leaves out as it was
 * (also when out is too small). */
ONESCOPE_API bool onescope_pose_cache_replay_path(const onescope_pose_cache *cache,
                                                  const char *cache_path, char *out,
                                                  size_t out_size);

/* ---- setting poses, streaming writes, recovery (docs/pose-cache.md, "Recording") ---- */

/* Stores *pose as (frame, entity) after the checks the parser makes: every value finite, or
 * position x any NaN (absent: the other six are then kept as given). Out-of-range indices:
 * ONESCOPE_E_RANGE; a bad value: ONESCOPE_E_NOT_FINITE naming the value. On failure the
 * stored pose is unchanged. */
ONESCOPE_API onescope_code onescope_pose_cache_set_pose(onescope_pose_cache *cache, uint32_t frame,
                                                        uint32_t entity, const onescope_pose *pose,
                                                        onescope_error *error);

/* How a streaming writer behaves. All zero (or NULL) means the defaults. */
typedef struct onescope_pose_writer_options {
    size_t buffer_bytes;        /* bytes held before a write(2); 0: 1 MiB */
    uint64_t max_segment_bytes; /* largest file; 0 or above 256 MiB: 256 MiB */
    bool segments;              /* roll over into PATH-0001.ext, ... instead of refusing */
    /* Durability (common.h): a flush after every flush_every frames (0: 64; 1: each frame;
     * ONESCOPE_FLUSH_NEVER: off) and at the first append flush_every_ms milliseconds or more
     * after the last flush (0: 100; ONESCOPE_FLUSH_NEVER: off), besides a full buffer. */
    uint32_t flush_every;
    uint32_t flush_every_ms;
    bool flush_fsync; /* every flush also fsyncs (close always does) */
} onescope_pose_writer_options;

/* The defaults spelled out (what a zeroed struct means). */
ONESCOPE_API onescope_pose_writer_options onescope_pose_writer_options_default(void);

/* A recording in progress: frames go to PATH.partial, close renames it to PATH. */
typedef struct onescope_pose_writer onescope_pose_writer;

/* Starts a recording at path. head gives everything but the poses: dimensions, start step,
 * metres per unit, the six texts and the entities (its frame_count and poses are ignored,
 * so a cache from onescope_pose_cache_create(dims, n, 1, ...) is a head). The head is
 * checked like the parser checks a file and copied: it may be freed after open. Creates
 * PATH.partial with O_EXCL (an existing one is refused: a crash's leftover is recovered, not
 * overwritten). A target that is a directory, device, FIFO or socket is refused here, before
 * any partial exists. options may be NULL. */
ONESCOPE_API onescope_code onescope_pose_writer_open(
    const char *path, const onescope_pose_cache *head, const onescope_pose_writer_options *options,
    const onescope_allocator *allocator, onescope_pose_writer **out, onescope_error *error);

/* Appends one frame: count must equal the head's entity count; every pose is checked as by
 * onescope_pose_cache_set_pose before anything is written. A frame that would take the file
 * past the segment limit starts the next segment (options.segments) or is refused with the
 * file's name and the limit. Any failure latches: later calls get ONESCOPE_E_BAD_STATE. */
ONESCOPE_API onescope_code onescope_pose_writer_append(onescope_pose_writer *writer,
                                                       const onescope_pose *poses, size_t count,
                                                       onescope_error *error);

/* Flushes now (common.h): the frames appended so far survive a killed process (recover keeps
 * them), and a power loss too when the options ask for flush_fsync. Not needed before close. */
ONESCOPE_API onescope_code onescope_pose_writer_flush(onescope_pose_writer *writer,
                                                      onescope_error *error);

/* Frames appended so far, over every segment. */
ONESCOPE_API uint64_t onescope_pose_writer_frames(const onescope_pose_writer *writer);

/* Finishes: writes the frame count, fsyncs, renames PATH.partial to PATH, and stores the
 * frames written (all segments) in *frames (may be NULL). A recording without a frame is
 * refused (a cache holds at least one) and its partial removed. On a latched writer close
 * writes nothing more, leaves the partial for onescope_pose_cache_recover and returns
 * ONESCOPE_E_BAD_STATE. A second close: ONESCOPE_E_BAD_STATE. */
ONESCOPE_API onescope_code onescope_pose_writer_close(onescope_pose_writer *writer,
                                                      uint64_t *frames, onescope_error *error);

/* Releases the writer; NULL is fine. It closes nothing: a writer freed before close writes
 * out the complete frames it still buffers and leaves its partial for
 * onescope_pose_cache_recover (nothing is lost, as after a crash; remove it to abandon the
 * recording); one freed after close removes nothing. */
ONESCOPE_API void onescope_pose_writer_free(onescope_pose_writer *writer);

/* Abandons the recording and releases the writer: its partial is removed (segments already
 * closed stay). What a command that failed uses, so it leaves nothing behind; after a
 * successful close it is the same as free. NULL is fine. */
ONESCOPE_API void onescope_pose_writer_discard(onescope_pose_writer *writer);

/* Turns a partial recording (what a writer leaves when its process dies) into a pose cache
 * of every complete frame, dropping a torn last frame, written atomically to out_path (NULL:
 * partial_path without its ".partial"). *frames_kept (may be NULL) gets the count. The
 * partial is never changed. A file that is not a partial, or holds no complete frame, is
 * refused with its name and the offset; a file named *.partial whose count close already wrote
 * (killed before its rename) is kept as it is when the count is exactly its frames. "-" is
 * refused as either name. allocator may be NULL (libc). */
ONESCOPE_API onescope_code onescope_pose_cache_recover(const char *partial_path,
                                                       const char *out_path,
                                                       const onescope_allocator *allocator,
                                                       uint64_t *frames_kept,
                                                       onescope_error *error);

#ifdef __cplusplus
}
#endif

#endif

/* Private to the OSPC module (src/pose_cache.c and src/pose_writer.c): the pieces of the
 * format a streaming writer and recovery need, as bytes <-> structs only. */
#ifndef ONESCOPE_POSE_HEAD_H
#define ONESCOPE_POSE_HEAD_H

#include "internal.h"
#include "onescope/pose_cache.h"

/* The frame count a partial recording carries until close: no real cache has it (the most
 * is 4194304), so a partial is never mistaken for a finished file. */
#define ONESCOPE_OS_OSPC_PARTIAL_MARK 0xFFFFFFFFu
#define ONESCOPE_OS_OSPC_FRAME_COUNT_AT 16u
#define ONESCOPE_OS_OSPC_START_STEP_AT 20u

/* Checks everything of head but frame_count and poses as the parser would, and encodes the
 * file's bytes up to the first pose with frame_count written in its field. name labels
 * errors. */
onescope_code onescope_os_ospc_encode_head(const onescope_pose_cache *head, uint32_t frame_count,
                                           const onescope_allocator *allocator,
                                           onescope_buffer *out, const char *name,
                                           onescope_error *error);

/* Checks one frame of entity_count poses as the parser would; errors name frame (within
 * its file) and the offset the value would have, poses_at being the file's first pose. */
onescope_code onescope_os_ospc_check_frame(const onescope_pose *poses, uint32_t entity_count,
                                           uint32_t frame, uint64_t poses_at, const char *name,
                                           onescope_error *error);

/* Writes count poses in the file's byte layout (28 little-endian bytes each). */
void onescope_os_ospc_put_poses(uint8_t *dst, const onescope_pose *poses, size_t count);

/* What a partial recording holds. */
typedef struct onescope_os_ospc_partial {
    size_t poses_at;       /* offset of the first pose */
    uint32_t entity_count; /* from the head */
    uint32_t frames;       /* complete frames, each checked; at least 1 */
    size_t kept_bytes;     /* poses_at + frames * frame bytes: the bytes a cache keeps */
} onescope_os_ospc_partial;

/* Checks that data is a partial recording (a valid head whose frame count is the marker) and
 * counts its complete frames, checking every pose in them; a torn last frame is ignored.
 * A cache whose frame count is not the marker, or a partial without a complete frame, is
 * refused at the offset that shows it. accept_final (the file is named PATH.partial): a count
 * already written is accepted when it is exactly the file's frames, the state a kill inside
 * close leaves between writing the count and the rename. */
onescope_code onescope_os_ospc_partial_scan(const uint8_t *data, size_t size, const char *name,
                                            bool accept_final, const onescope_allocator *allocator,
                                            onescope_os_ospc_partial *out, onescope_error *error);
/* The same in two parts, for a partial read in pieces. The head: data holds the file's first
 * n bytes of total; every rule but the pose values, the frames counted from total. E_TRUNCATED
 * while n < total may only mean the head goes on past n (read more and call again). */
onescope_code onescope_os_ospc_partial_head(const uint8_t *data, size_t n, uint64_t total,
                                            const char *name, bool accept_final,
                                            const onescope_allocator *allocator,
                                            onescope_os_ospc_partial *out, onescope_error *error);
/* The pose values: count poses in the file's layout, the first of them pose number first. */
onescope_code onescope_os_ospc_partial_poses(const onescope_os_ospc_partial *info,
                                             const uint8_t *bytes, size_t first, size_t count,
                                             const char *name, onescope_error *error);

#endif

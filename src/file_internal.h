/* Private to src/file.c and the running layer: a pose cache read frame by frame from a file
 * through one buffer, so a comparison's memory does not grow with the number of frames. */
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

#endif

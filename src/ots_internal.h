/* Private pieces shared by the OTS sources: ots.c (objects), ots_rules.c (the rules),
 * ots_read.c (reader), ots_write.c (writer) and ots_convert.c (pose cache conversion). */
#ifndef ONESCOPE_OTS_INTERNAL_H
#define ONESCOPE_OTS_INTERNAL_H

#include "internal.h"
#include "check_internal.h" /* onescope_os_ots_check_stream */
#include "json_pos.h"
#include "onescope/ots.h"

#define OTS_MAX_DEPTH ONESCOPE_OS_JSON_MAX_DEPTH
#define OTS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The JSON path context (json_pos.h), shared with the scene parser. */
typedef onescope_os_json_ctx ots_ctx;

/* The text of every enumerated value, in enum order (ots_rules.c). */
extern const char *const onescope_os_ots_source_names[3];
extern const char *const onescope_os_ots_up_names[3];
extern const char *const onescope_os_ots_hand_names[2];
extern const char *const onescope_os_ots_unit_names[1];
extern const char *const onescope_os_ots_rot_order_names[6];
extern const char *const onescope_os_ots_repr_names[2];
extern const char *const onescope_os_ots_pivot_space_names[2];
extern const char *const onescope_os_ots_interp_names[3];
extern const char *const onescope_os_ots_fov_axis_names[2];
extern const char *const onescope_os_ots_channel_names[3];

/* A NUL-terminated copy of s[0..n) through a (NULL when it cannot allocate). */
char *onescope_os_ots_strdup_n(const onescope_allocator *a, const char *s, size_t n);

/* ---- the rules (ots_rules.c) ---- */

/* NOT_FINITE at key (and index, when n > 1) for the first value that is not finite. */
onescope_code onescope_os_ots_check_finite(ots_ctx *c, const char *key, const double *v, int n);

/* The rules one element at a time, for a reader that checks each element as it passes (the
 * path to the element is pushed by the caller; each pushes its own keys). */
onescope_code onescope_os_ots_check_text(ots_ctx *c, const char *key, const char *s, bool required);
onescope_code onescope_os_ots_check_quat(ots_ctx *c, const char *key, const double *q);
onescope_code onescope_os_ots_check_fps(ots_ctx *c, double fps);
onescope_code onescope_os_ots_check_scale_factor(ots_ctx *c, double scale);
onescope_code onescope_os_ots_check_frame_range(ots_ctx *c, const int32_t range[2]);
onescope_code onescope_os_ots_check_bone(ots_ctx *c, const onescope_ots_bone *b, double scale);
/* A peg's own fields, not its keyframes. */
onescope_code onescope_os_ots_check_peg(ots_ctx *c, const onescope_ots_peg *p);
onescope_code onescope_os_ots_check_keyframe(ots_ctx *c, const onescope_ots_keyframe *k);
/* Every keyframe of a peg and their order (pushing "keyframes"), for a peg held whole. */
onescope_code onescope_os_ots_check_keyframes(ots_ctx *c, const onescope_ots_peg *p);
/* A keyframe's frame after the one before it in the same peg. */
onescope_code onescope_os_ots_check_frame_order(ots_ctx *c, int32_t previous, int32_t frame);
onescope_code onescope_os_ots_check_camera(ots_ctx *c, const onescope_ots_camera *k);
/* The checks across a whole array (pushing its key): camera names, and names, parents and
 * loops of bones or pegs (parents as for onescope_os_ots_clip_rules). With a sink on c they
 * report every failure, not only the first. */
onescope_code onescope_os_ots_check_camera_names(ots_ctx *c, const onescope_ots_camera *cams,
                                                 size_t n);
onescope_code onescope_os_ots_check_bones(ots_ctx *c, const onescope_ots_bone *bones, size_t n);
onescope_code onescope_os_ots_check_pegs(ots_ctx *c, const onescope_ots_peg *pegs, size_t n,
                                         size_t *parents);

/* Every rule of a rig, or of a clip. For a clip, parents (peg_count entries, or NULL)
 * receives each peg's parent index or SIZE_MAX (a root, or a parent naming no peg), from
 * the same single pass of the hierarchy check, so a caller that needs the hierarchy does
 * not run the check again. */
onescope_code onescope_os_ots_rig_rules(ots_ctx *c, const onescope_ots_rig *rig);
onescope_code onescope_os_ots_clip_rules(ots_ctx *c, const onescope_ots_clip *clip,
                                         size_t *parents);

/* How often the clip rules and the hierarchy check (of bones or pegs) have run in this
 * process: a test hook (tests/test_ots.c proves that a conversion checks a clip once).
 * Relaxed atomic counters, so concurrent calls stay well defined. */
unsigned long onescope_os_ots_clip_rule_runs(void);
/* Counts one run of the clip rules: the reader's, which checks a clip as it reads it. */
void onescope_os_ots_clip_rules_ran(void);
unsigned long onescope_os_ots_hierarchy_runs(void);
/* Name comparisons made by the uniqueness and parent checks in this process (a test hook:
 * tests/test_ots.c bounds them by n log n for names crafted to collide under any hash). */
unsigned long onescope_os_ots_name_compares(void);

/* ---- reading (ots_read.c) ---- */

/* onescope_ots_clip_parse, also handing back the peg parents its one rules pass found
 * (*parents: peg_count entries through options->allocator, at least one; the caller frees
 * it). parents NULL: the public call. */
onescope_code onescope_os_ots_clip_parse(const void *data, size_t size, const char *name,
                                         const onescope_parse_options *options,
                                         onescope_ots_clip **out, size_t **parents,
                                         onescope_error *error);

/* A keyframe of peg `peg` (its index in the pegs array), handed over once it has passed its
 * own rules and its order after the one before; not kept by the reader. A failure (error
 * filled) ends the reading with that error. */
typedef onescope_code onescope_os_ots_key_fn(void *user, size_t peg, const onescope_ots_keyframe *k,
                                             onescope_error *error);

/* onescope_os_ots_clip_parse over a text read in chunks (first, then more), its keyframes
 * handed to on_key instead of kept (every peg's keyframe_count stays 0). detected is what
 * onescope_ots_detect makes of the text's first ONESCOPE_FORMAT_DETECT_BYTES (or all of it
 * when shorter): with it the verdict, offset and message of every error are the whole text's
 * parse's on the same bytes. The input limit is the caller's to count (the source's). */
onescope_code onescope_os_ots_clip_parse_stream(const void *first, size_t size,
                                                onescope_os_jr_more *more, void *user,
                                                onescope_ots_kind detected, const char *name,
                                                const onescope_parse_options *options,
                                                onescope_os_ots_key_fn *on_key, void *key_user,
                                                onescope_ots_clip **out, size_t **parents,
                                                onescope_error *error);

/* ---- writing (ots_write.c) ---- */

/* onescope_ots_clip_write for a clip that has just passed the rules (not checked again). */
onescope_code onescope_os_ots_clip_write_checked(const onescope_ots_clip *clip,
                                                 const onescope_allocator *allocator,
                                                 onescope_buffer *out, onescope_error *error);

/* ---- writing a clip a peg at a time (ots_write.c) ----
 * The bytes of onescope_os_ots_clip_write_checked, built from the same pieces, handed to a
 * sink in chunks of about 1 MiB as they are made: open writes everything before the first peg
 * (from clip's header and frame range; its pegs are not read), each peg call one peg, finish
 * the pegs' close, clip's cameras and the end. Memory is one fixed buffer. The bytes handed
 * on never pass limit: a chunk that would is refused with ONESCOPE_E_TOO_LARGE naming name
 * before the sink sees it. Nothing here checks the rules (the caller runs them before each
 * piece). A failure (the sink's, the limit's, NOMEM) latches: later calls return it. */
typedef onescope_code (*onescope_os_ots_sink)(void *user, const void *data, size_t size,
                                              onescope_error *error);
typedef struct onescope_os_ots_clip_stream onescope_os_ots_clip_stream;
onescope_code onescope_os_ots_clip_stream_open(const onescope_ots_clip *clip, uint64_t limit,
                                               const char *name, onescope_os_ots_sink sink,
                                               void *user, const onescope_allocator *a,
                                               onescope_os_ots_clip_stream **out,
                                               onescope_error *error);
onescope_code onescope_os_ots_clip_stream_peg(onescope_os_ots_clip_stream *s,
                                              const onescope_ots_peg *peg, onescope_error *error);
/* *total (may be NULL) gets the bytes handed to the sink. */
onescope_code onescope_os_ots_clip_stream_finish(onescope_os_ots_clip_stream *s,
                                                 const onescope_ots_clip *clip, uint64_t *total,
                                                 onescope_error *error);
void onescope_os_ots_clip_stream_free(onescope_os_ots_clip_stream *s);

/* onescope_ots_pose_cache_to_anm_file with a lower output limit than 256 MiB (ots_convert.c):
 * a test hook for a refusal half way through the file. */
onescope_code onescope_os_ots_pose_cache_to_anm_file_limit(
    const onescope_pose_cache *cache, const onescope_ots_from_cache_options *options,
    const char *path, uint64_t limit, onescope_error *error);

#endif

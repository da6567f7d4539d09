/* The cross builds leave the JSON sources (OTS, the SoA scene) out, but
 * the generic file and format code still names the OTS entry points. These stand-ins refuse, so
 * the drivers link; the cross checks never read JSON. Built only when ONESCOPE_CROSS_JSON is off.
 */
#include "check_internal.h"
#include "internal.h"
#include "onescope/ots.h"

onescope_ots_kind onescope_ots_detect(const void *data, size_t size) {
    (void)data;
    (void)size;
    return ONESCOPE_OTS_NONE;
}

static onescope_code no_json(const char *name, onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_UNSUPPORTED, name, OS_NO_OFFSET, NULL, NULL,
                            "this cross build has no JSON support");
}

onescope_code onescope_ots_rig_parse(const void *data, size_t size, const char *name,
                                     const onescope_parse_options *options, onescope_ots_rig **out,
                                     onescope_error *error) {
    (void)data;
    (void)size;
    (void)options;
    if (out != NULL) *out = NULL;
    return no_json(name, error);
}

onescope_code onescope_ots_clip_parse(const void *data, size_t size, const char *name,
                                      const onescope_parse_options *options,
                                      onescope_ots_clip **out, onescope_error *error) {
    (void)data;
    (void)size;
    (void)options;
    if (out != NULL) *out = NULL;
    return no_json(name, error);
}

void onescope_ots_rig_free(onescope_ots_rig *rig) {
    (void)rig;
}
void onescope_ots_clip_free(onescope_ots_clip *clip) {
    (void)clip;
}

onescope_code onescope_os_ots_check_stream(onescope_ots_kind kind, const void *first, size_t size,
                                           onescope_os_jr_more *more, void *user, const char *name,
                                           const onescope_parse_options *options,
                                           onescope_error *error) {
    (void)kind;
    (void)first;
    (void)size;
    (void)more;
    (void)user;
    (void)options;
    return no_json(name, error);
}

/* The .pvt and .anm codecs (check_internal.h) that format.c finds: they refuse too. */
static onescope_code no_json_pull(const void *first, size_t n, size_t total,
                                  onescope_os_jr_more *more, void *user, const char *name,
                                  const onescope_parse_options *options, onescope_error *error) {
    (void)first, (void)n, (void)total, (void)more, (void)user, (void)options;
    return no_json(name, error);
}

static onescope_code no_json_parse(const void *data, size_t size, const char *name,
                                   const onescope_parse_options *options, onescope_error *error) {
    (void)data, (void)size, (void)options;
    return no_json(name, error);
}

const onescope_os_codec onescope_os_pvt_codec = {NULL, no_json_pull, no_json_parse};
const onescope_os_codec onescope_os_anm_codec = {NULL, no_json_pull, no_json_parse};

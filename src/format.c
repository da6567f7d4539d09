/* Format detection (the binary magics, then the OTS JSON detection of src/ots.c), each
 * format's codec, and the one frame the push validators run in. */
#include <string.h>

#include "check_internal.h"
#include "internal.h"
#include "onescope/format.h"
#include "onescope/ots.h"
#include "onescope/recording.h"

onescope_format onescope_format_detect(const void *data, size_t size) {
    if (data == NULL) return ONESCOPE_FORMAT_UNKNOWN;
    if (size >= 4) {
        if (memcmp(data, "OSPC", 4) == 0) return ONESCOPE_FORMAT_OSPC;
        if (memcmp(data, "OSTM", 4) == 0) {
            const uint8_t *p = data;
            bool v2 = size >= 6 && p[4] == ONESCOPE_RECORDING_VERSION && p[5] == 0;
            return v2 ? ONESCOPE_FORMAT_RECORDING : ONESCOPE_FORMAT_OSTM;
        }
        if (memcmp(data, "OSLS", 4) == 0) return ONESCOPE_FORMAT_OSLS;
    }
    switch (onescope_ots_detect(data, size)) {
        case ONESCOPE_OTS_PVT: return ONESCOPE_FORMAT_PVT;
        case ONESCOPE_OTS_ANM: return ONESCOPE_FORMAT_ANM;
        default: return ONESCOPE_FORMAT_UNKNOWN;
    }
}

const char *onescope_format_name(onescope_format format) {
    switch (format) {
        case ONESCOPE_FORMAT_OSPC: return "ospc";
        case ONESCOPE_FORMAT_OSTM: return "ostm";
        case ONESCOPE_FORMAT_OSLS: return "osls";
        case ONESCOPE_FORMAT_PVT: return "pvt";
        case ONESCOPE_FORMAT_ANM: return "anm";
        case ONESCOPE_FORMAT_RECORDING: return "ostm2";
        case ONESCOPE_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

const onescope_os_codec *onescope_os_codec_of(onescope_format format) {
    switch (format) {
        case ONESCOPE_FORMAT_OSPC: return &onescope_os_ospc_codec;
        case ONESCOPE_FORMAT_OSTM: return &onescope_os_ostm_codec;
        case ONESCOPE_FORMAT_OSLS: return &onescope_os_osls_codec;
        case ONESCOPE_FORMAT_PVT: return &onescope_os_pvt_codec;
        case ONESCOPE_FORMAT_ANM: return &onescope_os_anm_codec;
        case ONESCOPE_FORMAT_RECORDING: return &onescope_os_recording_codec;
        case ONESCOPE_FORMAT_UNKNOWN: break;
    }
    return NULL;
}

onescope_code onescope_os_format_unknown(const void *data, size_t size, const char *name,
                                         onescope_error *error) {
    static const char expected[] = "a known format (OSPC, OSTM or OSLS magic, or a JSON "
                                   "\"format\" of octo_pvt or octo_anm)";
    const uint8_t *p = data;
    if (size >= 4)
        return onescope_os_fail(error, ONESCOPE_E_MAGIC, name, 0, "format", expected,
                                "bytes %02x %02x %02x %02x", p[0], p[1], p[2], p[3]);
    return onescope_os_fail(error, ONESCOPE_E_MAGIC, name, 0, "format", expected, "%zu bytes",
                            size);
}

onescope_code onescope_os_push_run(const onescope_os_push_ops *ops, const void *first, size_t n,
                                   size_t total, onescope_os_jr_more *more, void *user,
                                   const char *name, const onescope_parse_options *options,
                                   void **keep, onescope_error *error) {
    void *state = NULL;
    OS_TRY(ops->begin(total, name, options, &state, error));
    const uint8_t *p = first;
    onescope_code rc = ops->feed(state, p, n);
    /* a validator that has its verdict reads no further */
    while (rc == ONESCOPE_OK && n > 0) {
        if (!more(user, &p, &n, error)) {
            ops->free(state);
            return error->code;
        }
        rc = ops->feed(state, p, n);
    }
    rc = ops->end(state, error);
    if (rc == ONESCOPE_OK && keep != NULL)
        *keep = state;
    else
        ops->free(state);
    return rc;
}

onescope_code onescope_os_codec_check(const onescope_os_codec *codec, const void *first, size_t n,
                                      size_t total, onescope_os_jr_more *more, void *user,
                                      const char *name, const onescope_parse_options *options,
                                      onescope_error *error) {
    if (codec->push != NULL)
        return onescope_os_push_run(codec->push, first, n, total, more, user, name, options, NULL,
                                    error);
    return codec->pull(first, n, total, more, user, name, options, error);
}

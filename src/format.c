/* Format detection: the binary magics, then the OTS JSON detection of src/ots.c. */
#include <string.h>

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

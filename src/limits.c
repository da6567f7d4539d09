/* Input limits: the parse options' defaults and the size checks every parser and writer
 * makes before anything else. A zeroed onescope_parse_options means the defaults, so every
 * reader of max_input_bytes goes through onescope_os_input_limit(). */
#include <string.h>
#include <stdio.h>

#include "internal.h"

onescope_parse_options onescope_parse_options_default(void) {
    onescope_parse_options o;
    memset(&o, 0, sizeof o);
    o.max_input_bytes = ONESCOPE_MAX_INPUT_BYTES; /* 0 would mean the same */
    o.max_errors = 1;
    return o;
}

size_t onescope_os_input_limit(const onescope_parse_options *o) {
    return o != NULL && o->max_input_bytes != 0 ? o->max_input_bytes : ONESCOPE_MAX_INPUT_BYTES;
}

onescope_code onescope_os_check_input_size(size_t size, const onescope_parse_options *o,
                                           const char *name, onescope_error *error) {
    size_t limit = onescope_os_input_limit(o);
    if (size <= limit) return ONESCOPE_OK;
    char expected[64];
    snprintf(expected, sizeof expected, "at most %zu bytes", limit);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)limit, "input size",
                            expected, "%zu bytes", size);
}

onescope_code onescope_os_stream_too_large(size_t limit, const char *name, onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)limit, "file size",
                            "at most the input limit", "more than %zu bytes", limit);
}

onescope_code onescope_os_check_output_size(uint64_t total, const char *name,
                                            onescope_error *error) {
    if (total <= ONESCOPE_MAX_INPUT_BYTES) return ONESCOPE_OK;
    char expected[96];
    snprintf(expected, sizeof expected, "at most %zu bytes (the parsers' default input limit)",
             ONESCOPE_MAX_INPUT_BYTES);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size",
                            expected, "%llu bytes", (unsigned long long)total);
}

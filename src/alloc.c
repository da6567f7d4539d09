/* The one place the library allocates; tests swap the allocator to make any call fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void *onescope_os_alloc(const onescope_allocator *a, size_t size) {
    if (size == 0) size = 1; /* a zero-byte request must still be a distinct, freeable block */
    if (a != NULL && a->alloc != NULL) return a->alloc(a->user, size);
    return malloc(size);
}

void *onescope_os_calloc(const onescope_allocator *a, size_t count, size_t size) {
    size_t total;
    if (!onescope_os_mul_size(count, size, &total)) return NULL;
    void *p = onescope_os_alloc(a, total);
    if (p != NULL) memset(p, 0, total);
    return p;
}

void onescope_os_free(const onescope_allocator *a, void *ptr) {
    if (ptr == NULL) return;
    if (a != NULL && a->free != NULL) a->free(a->user, ptr);
    else free(ptr);
}

onescope_parse_options onescope_parse_options_default(void) {
    onescope_parse_options o;
    o.max_input_bytes = ONESCOPE_MAX_INPUT_BYTES;
    o.allocator = NULL;
    return o;
}

size_t onescope_os_input_limit(const onescope_parse_options *o) {
    return o != NULL && o->max_input_bytes != 0 ? o->max_input_bytes : ONESCOPE_MAX_INPUT_BYTES;
}

onescope_code onescope_os_check_input_size(size_t size, const onescope_parse_options *o, const char *name,
                                  onescope_error *error) {
    size_t limit = onescope_os_input_limit(o);
    if (size <= limit) return ONESCOPE_OK;
    char expected[64];
    snprintf(expected, sizeof expected, "at most %zu bytes", limit);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, (uint64_t)limit, "input size", expected,
                   "%zu bytes", size);
}

onescope_code onescope_os_check_output_size(uint64_t total, const char *name, onescope_error *error) {
    if (total <= ONESCOPE_MAX_INPUT_BYTES) return ONESCOPE_OK;
    char expected[96];
    snprintf(expected, sizeof expected, "at most %zu bytes (the parsers' default input limit)",
             ONESCOPE_MAX_INPUT_BYTES);
    return onescope_os_fail(error, ONESCOPE_E_TOO_LARGE, name, OS_NO_OFFSET, "output size", expected,
                   "%llu bytes", (unsigned long long)total);
}

void onescope_buffer_free(onescope_buffer *buffer) {
    if (buffer == NULL) return;
    onescope_os_free(buffer->allocator, buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
}

/* The one place the library allocates (tests swap the allocator to make any call fail), and
 * the buffers it hands out. Checked size arithmetic is in internal.h; limits in limits.c. */
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
    if (a != NULL && a->free != NULL)
        a->free(a->user, ptr);
    else
        free(ptr);
}

void onescope_buffer_free(onescope_buffer *buffer) {
    if (buffer == NULL) return;
    onescope_os_free(buffer->allocator, buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
}

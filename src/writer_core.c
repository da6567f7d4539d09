/* The streaming writers' one core: the pose writer, the replay writer and the recording
 * writer each append records to a partial through this, so the buffer, the flush rule, the
 * latch after a failure, the refusals, the close of a failed writer and the landing are
 * written once (file_internal.h). The writers keep their own names and their own formats. */
#include <string.h>

#include "file_internal.h"
#include "internal.h"

onescope_code onescope_os_out_latch(onescope_os_out *o, onescope_code rc) {
    if (rc != ONESCOPE_OK && o->state == ONESCOPE_OS_OUT_OPEN) o->state = ONESCOPE_OS_OUT_LATCHED;
    if (rc == ONESCOPE_E_IO) o->bytes_lost = true;
    return rc;
}

onescope_code onescope_os_out_drain(onescope_os_out *o, const char *name, onescope_error *error) {
    onescope_code rc = onescope_os_file_write_fd(o->fd, o->buf, o->used, name, error);
    o->used = 0;
    return rc;
}

onescope_code onescope_os_out_feed(onescope_os_out *o, const void *data, size_t n, const char *name,
                                   onescope_error *error) {
    const uint8_t *p = data;
    o->size += n;
    while (n > 0) {
        size_t room = o->cap - o->used, k = n < room ? n : room;
        memcpy(o->buf + o->used, p, k);
        o->used += k;
        p += k;
        n -= k;
        if (o->used == o->cap) OS_TRY(onescope_os_out_drain(o, name, error));
    }
    return ONESCOPE_OK;
}

onescope_code onescope_os_out_flush(onescope_os_out *o, const char *name, onescope_error *error) {
    OS_TRY(onescope_os_out_drain(o, name, error));
    if (o->flush.fsync) OS_TRY(onescope_os_file_sync_fd(o->fd, name, error));
    onescope_os_flush_done(&o->flush);
    return ONESCOPE_OK;
}

onescope_code onescope_os_out_refuse(const onescope_os_out *o, const char *name, const char *call,
                                     const char *unit, onescope_error *error) {
    return onescope_os_writer_refuse(error, name, call, o->state == ONESCOPE_OS_OUT_CLOSED, unit);
}

onescope_code onescope_os_out_close_failed(onescope_os_out *o, const char *name,
                                           const char *partial, const char *unit,
                                           onescope_error *error) {
    /* Keep what can be kept: after a refused record the buffer holds only whole, checked
     * records; after an I/O failure nothing more is written. The partial stays. */
    if (o->fd >= 0) {
        if (!o->bytes_lost && onescope_os_out_drain(o, name, NULL) == ONESCOPE_OK)
            (void)onescope_os_file_sync_fd(o->fd, name, NULL);
        onescope_os_file_close_fd(o->fd, name, NULL);
    }
    o->fd = -1;
    o->state = ONESCOPE_OS_OUT_CLOSED;
    return onescope_os_writer_refuse(error, partial, "close", false, unit);
}

onescope_code onescope_os_out_land(onescope_os_out *o, uint64_t count_at, const void *count,
                                   size_t count_size, const char *partial, const char *target,
                                   const char *name, onescope_error *error) {
    onescope_code rc = onescope_os_out_drain(o, name, error);
    if (rc == ONESCOPE_OK && count_size != 0)
        rc = onescope_os_file_patch_fd(o->fd, count_at, count, count_size, name, error);
    int fd = o->fd;
    o->fd = -1;
    if (rc == ONESCOPE_OK) return onescope_os_file_land(fd, partial, target, true, name, error);
    onescope_os_file_close_fd(fd, name, NULL);
    return rc;
}

void onescope_os_out_leave(onescope_os_out *o, const char *name) {
    if (o->state == ONESCOPE_OS_OUT_CLOSED || o->fd < 0) return;
    /* Freed without close (an engine unwinding after an error, say): the whole records still
     * buffered go out and the partial stays for recover, as after a crash. */
    if (!o->bytes_lost) (void)onescope_os_out_drain(o, name, NULL);
    onescope_os_file_close_fd(o->fd, name, NULL);
    o->fd = -1;
}

void onescope_os_out_abandon(onescope_os_out *o, const char *name, const char *partial) {
    if (o->fd >= 0) onescope_os_file_close_fd(o->fd, name, NULL);
    o->fd = -1;
    if (!o->committed) onescope_os_file_remove(partial);
}

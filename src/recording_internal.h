/* Shared by the module recording's files: its bytes (recording.c), its run (recording_run.c)
 * and its writer and recovery (recording_writer.c). Not part of the public API. */
#ifndef ONESCOPE_RECORDING_INTERNAL_H
#define ONESCOPE_RECORDING_INTERNAL_H

#include "internal.h"
#include "onescope/recording.h"

/* The head of an OSTM v2 file: everything before the first step record. */
typedef struct onescope_os_rec_head {
    uint16_t flags;
    uint32_t step_count; /* ONESCOPE_RECORDING_OPEN_COUNT while open */
    bool open;
    char module_id[65];
    char module_version[65];
    uint64_t setup_at;
    uint32_t setup_size;
    uint64_t snapshot_at; /* with flag bit 1 */
    uint32_t snapshot_size;
    uint64_t row0_at; /* with flag bit 0 */
    uint64_t records_at;
} onescope_os_rec_head;

/* Reads and checks the head; open_ok accepts the open count of a partial. */
onescope_code onescope_os_rec_read_head(onescope_os_reader *rd, bool open_ok,
                                        onescope_os_rec_head *h);
/* The fewest bytes a step record takes (its length, and its row with flag bit 0). */
size_t onescope_os_rec_record_min(const onescope_os_rec_head *h);
/* Reads and checks step index's record (length, input, row). */
onescope_code onescope_os_rec_read_record(onescope_os_reader *rd, const onescope_os_rec_head *h,
                                          uint32_t index);
/* The head bytes a writer starts a partial with (the open count, no row 0). */
onescope_code onescope_os_rec_encode_head(const onescope_recording_def *def, uint16_t flags,
                                          const onescope_allocator *a, onescope_buffer *out,
                                          const char *name, onescope_error *error);
/* A parsed recording's head, and the file offset of step index's input. */
const onescope_os_rec_head *onescope_os_rec_head_of(const onescope_recording *r);
uint64_t onescope_os_rec_input_at(const onescope_recording *r, uint32_t index);

typedef struct onescope_os_rec_partial {
    onescope_os_rec_head head;
    uint32_t steps;         /* whole records */
    uint64_t kept_bytes;    /* the head and those records */
    uint64_t dropped_at;    /* a torn last record's offset (when dropped_bytes != 0) */
    uint64_t dropped_bytes; /* its bytes */
} onescope_os_rec_partial;

/* Scans a partial (or a finished file whose count matches its records): whole records are
 * kept, a record cut by the end is dropped (and said), anything else is refused at its offset. */
onescope_code onescope_os_rec_partial_scan(const uint8_t *data, size_t size, const char *name,
                                           onescope_os_rec_partial *info, onescope_error *error);

#endif

/* Shared by the module recording's files: its bytes (recording.c), its run (recording_run.c)
 * and its writer and recovery (recording_writer.c). Not part of the public API. */
#ifndef ONESCOPE_RECORDING_INTERNAL_H
#define ONESCOPE_RECORDING_INTERNAL_H

#include "check_internal.h"
#include "internal.h"
#include "onescope/module.h"
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
    uint64_t row0_at;       /* with flag bit 0 */
    uint64_t row0_block_at; /* with flag bit 2: row 0's entity row */
    uint64_t keys_head_at;  /* with flag bit 3: the keyframe interval, then the value names */
    uint32_t key_every;     /* K */
    uint32_t key_values;    /* V, the names that follow */
    uint64_t records_at;
} onescope_os_rec_head;

/* The one scan of the container's rules, fed in pieces of any size (recording.c): the parser
 * feeds a whole buffer, recovery a partial's bytes, onescope_file_validate a file through one
 * buffer. total is the input's size, known up front; partial accepts the open count and reads
 * records to the end of the input whatever the count says. The verdict, offset and message
 * are the same however the bytes are cut. Memory: this struct. */
typedef struct onescope_os_rec_scan {
    const char *name;
    uint64_t total;
    bool partial;
    int state;
    uint64_t pos;     /* the input offset of the next byte */
    uint8_t unit[65]; /* the unit being gathered: at most a text's length byte and 64 bytes */
    size_t have, want;
    uint64_t unit_at;    /* its offset */
    uint64_t skip;       /* blob bytes still to pass */
    uint32_t records;    /* whole records so far */
    uint64_t record_at;  /* the offset of the record being read */
    bool block_of_head;  /* the entity row being read is row 0's */
    bool rows_seen;      /* an entity row has been read: the next may reuse its ids */
    uint32_t rows_count; /* its entity count */
    uint8_t rows_groups; /* and group count (the same in every row) */
    uint32_t names_left; /* value names of the keyframe head still to read */
    uint64_t key_at;     /* the keyframe being read: its offset, length, snapshot length */
    uint32_t key_len, key_snap;
    onescope_os_rec_head h; /* filled as the head passes */
    /* Of unknown size (onescope_os_rec_scan_init_unknown; total is then the limit): the bytes
     * fed, errors or not; whether the head passed; the last unit whose length had to fit in
     * what was left, with what its check reads, so end can check it again with the real size. */
    bool unknown, head_passed;
    uint64_t seen;
    int fit_state;
    uint8_t fit_unit[10];
    size_t fit_have;
    uint64_t fit_at;
    bool fit_rows_seen;
    uint32_t fit_rows_count;
    uint8_t fit_rows_groups;
    onescope_code rc;
    onescope_error error;
} onescope_os_rec_scan;

void onescope_os_rec_scan_init(onescope_os_rec_scan *s, uint64_t total, bool partial,
                               const char *name);
/* A finished file of unknown size (a pipe), at most limit bytes: feed answers OK until more
 * than limit bytes have come (E_TOO_LARGE, final), holding any other error for end, which
 * checks the rules that need the size (the step count, every length that must fit in what is
 * left, the trailing bytes) again with it, so the verdict is the same as with the size known. */
void onescope_os_rec_scan_init_unknown(onescope_os_rec_scan *s, uint64_t limit, const char *name);
/* The verdict so far: OK while the bytes are good, the first error once one is found. */
onescope_code onescope_os_rec_scan_feed(onescope_os_rec_scan *s, const void *data, size_t n);
/* After the last byte: the final verdict, filled into error. */
onescope_code onescope_os_rec_scan_end(onescope_os_rec_scan *s, onescope_error *error);
/* The recording codec's push calls (check_internal.h), and the head its kept state learnt. */
extern const onescope_os_push_ops onescope_os_recording_push;
const onescope_os_rec_head *onescope_os_rec_check_head(const void *state);
/* The head bytes a writer starts a partial with (the open count, no row 0). */
onescope_code onescope_os_rec_encode_head(const onescope_recording_def *def, uint16_t flags,
                                          const onescope_allocator *a, onescope_buffer *out,
                                          const char *name, onescope_error *error);
/* onescope_recording_parse of a buffer from the options' allocator that the recording takes
 * over on success (in is then empty); on failure in is left as it was. */
onescope_code onescope_os_recording_parse_owned(onescope_buffer *in, const char *name,
                                                const onescope_parse_options *options,
                                                onescope_recording **out, onescope_error *error);
/* The module's checks of a recording (recording_run.c), whole or streamed: the table, the
 * module the file names (E_MODULE at 12) and its setup check; one input's check. Errors at
 * the blob's file offset (setup_at, at). */
onescope_code onescope_os_recording_check_head(const onescope_module *module, const char *id,
                                               const char *version, const uint8_t *setup,
                                               size_t setup_size, uint64_t setup_at,
                                               const char *name, onescope_error *error);
onescope_code onescope_os_recording_check_input(const onescope_module *module, const uint8_t *setup,
                                                size_t setup_size, const uint8_t *input,
                                                size_t size, uint32_t index, uint64_t at,
                                                const char *name, onescope_error *error);
/* Every value name of a keyframe head (head: its bytes from keys_head_at) must be one of the
 * module's values: E_MISMATCH at the first that is not. */
onescope_code onescope_os_recording_check_names(const onescope_module *module, const uint8_t *head,
                                                const onescope_os_rec_head *h, const char *name,
                                                onescope_error *error);
/* A parsed recording's head, and the file offset of step index's input. */
const onescope_os_rec_head *onescope_os_rec_head_of(const onescope_recording *r);
const uint8_t *onescope_os_rec_bytes(const onescope_recording *r);
uint64_t onescope_os_rec_input_at(const onescope_recording *r, uint32_t index);
/* A keyframe whose bytes passed the container's scan, from its length field on (k), at row. */
void onescope_os_keyframe_at(const uint8_t *k, uint32_t row, uint32_t value_count,
                             onescope_keyframe *out);
/* The module value each of a keyframe head's V names is (head: the bytes from keys_head_at,
 * names checked by onescope_os_recording_check_names): map[v] for file value v. */
void onescope_os_table_map(const onescope_module *module, const uint8_t *head, uint32_t value_count,
                           int32_t *map);
/* A keyframe's table against a world, entities by id, values by map, bit for bit: each
 * difference goes to seen (may be NULL), table entities first in the table's order (in_file),
 * then the world's entities the table lacks (in_file false, value UINT32_MAX); *compared and
 * *differing count values (an entity one side lacks counts once). */
typedef void onescope_os_value_seen(void *user, const onescope_value_difference *d);
onescope_code onescope_os_table_compare(const onescope_keyframe *k, const int32_t *map,
                                        const onescope_world *world,
                                        const onescope_allocator *allocator,
                                        onescope_os_value_seen *seen, void *user,
                                        uint32_t *compared, uint32_t *differing, const char *name,
                                        onescope_error *error);
/* verify's check of keyframe k's table (at: its file offset) against the world: OK when they
 * agree, else E_MISMATCH with result's verdict TABLE_MISMATCH and table_* filled. */
onescope_code onescope_os_verify_table(const onescope_keyframe *k, const int32_t *map, uint64_t at,
                                       const onescope_world *world,
                                       const onescope_allocator *allocator,
                                       onescope_verify_result *result, const char *name,
                                       onescope_error *error);
/* A keyframe's snapshot the module refused, in the file's terms (src/recording_run.c): input
 * becomes name, the offset the file's, and the field says which keyframe. */
void onescope_os_rec_keyframe_error(const onescope_recording *r, const onescope_keyframe *k,
                                    const char *name, onescope_error *error);

typedef struct onescope_os_rec_partial {
    onescope_os_rec_head head;
    uint32_t steps;         /* whole records */
    uint64_t kept_bytes;    /* the head and those records */
    uint64_t dropped_at;    /* a torn last record's offset (when dropped_bytes != 0) */
    uint64_t dropped_bytes; /* its bytes */
} onescope_os_rec_partial;

/* Scans a partial (or a finished file whose count matches its records) fed in pieces: begin
 * with the file's size, feed every byte in order (the verdict so far; feeding may stop at the
 * first non-OK), end. Whole records are kept, a record cut by the end is dropped (and said),
 * anything else is refused at its offset. */
typedef struct onescope_os_rec_partial_scanner {
    onescope_os_rec_scan s;
    uint64_t size;
} onescope_os_rec_partial_scanner;
void onescope_os_rec_partial_begin(onescope_os_rec_partial_scanner *p, uint64_t size,
                                   const char *name);
onescope_code onescope_os_rec_partial_feed(void *scanner, const void *data, size_t n);
onescope_code onescope_os_rec_partial_end(onescope_os_rec_partial_scanner *p,
                                          onescope_os_rec_partial *info, onescope_error *error);

#endif

/* Private to src/diff.c and src/diff_cache.c: header items shared by both comparisons. */
#ifndef ONESCOPE_DIFF_INTERNAL_H
#define ONESCOPE_DIFF_INTERNAL_H

#include "onescope/diff.h"

/* The input names of the options ("a" and "b" when not given). */
void onescope_os_diff_names(const onescope_diff_options *o, const char **a, const char **b);
/* Appends a header item when a and b differ (and there is room). */
void onescope_os_diff_header(onescope_diff_header *items, uint32_t *count, const char *field,
                             const char *a, const char *b);
void onescope_os_diff_header_u64(onescope_diff_header *items, uint32_t *count, const char *field,
                                 uint64_t a, uint64_t b);

#endif

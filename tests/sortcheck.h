/* sortcheck.h - one sort through the public API, checked against the
 * reference: the helper every sorting test uses. */
#ifndef CLSORT_TEST_SORTCHECK_H
#define CLSORT_TEST_SORTCHECK_H

#include "harness.h"

typedef enum check_mode { CHECK_KEYS, CHECK_PAIRS, CHECK_ARGSORT } check_mode;

typedef struct sort_case {
    clsort_type type;
    data_dist dist;
    size_t n;
    check_mode mode;
    size_t value_size;      /* pairs */
    clsort_type index_type; /* argsort */
    clsort_options opt;
    uint64_t seed;
    const void *input; /* n keys to sort instead of the distribution's (NULL: dist) */
} sort_case;

/* Generates the input, sorts it with the host-array API, compares with the
 * reference permutation. Returns false (and reports) on a mismatch or an
 * error. label names the case in messages. */
bool sort_and_check(clsort_context *ctx, const sort_case *c, const char *label);

/* The same through the device-buffer API, with `guard` poisoned elements
 * before and after the range that must come back untouched. */
bool sort_and_check_buffer(clsort_context *ctx, const sort_case *c, size_t guard,
                           const char *label);

#endif

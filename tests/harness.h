/* harness.h - what every test file uses: checks, contexts, the reference. */
#ifndef CLSORT_TEST_HARNESS_H
#define CLSORT_TEST_HARNESS_H

#include <clsort.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

#define T(name) void test_##name(void);
#include "tests.def"
#undef T

/* Failed checks so far in this process. */
extern int test_failures;
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (!(cond))                                         \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);      \
    } while (0)

/* Fails the test (and returns from it) when s is not CLSORT_SUCCESS. */
#define CHECK_OK(ctx, s)                                                                   \
    do {                                                                                   \
        clsort_status s_ = (s);                                                            \
        if (s_ != CLSORT_SUCCESS) {                                                        \
            test_fail(__FILE__, __LINE__, "%s -> %s\n%s", #s, clsort_status_string(s_),     \
                      clsort_context_last_error(ctx));                                     \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/* A context on the test device ($CLSORT_TEST_DEVICE, else the default)
 * with a tuning spec (NULL: tuned). Exits 77 (skipped) when there is no
 * OpenCL platform; fails the test on any other error (returns NULL). */
clsort_context *test_context(const char *tuning);

/* The kernel shapes a sort test runs under on the test device: the tuned
 * one first, then the other strategies and rankings that the device can
 * run. Returns the count; specs[i] is a tuning spec ("" = tuned). */
size_t test_shapes(clsort_context *probe, const char **specs, size_t cap);
/* True on GPUs or with CLSORT_TEST_FULL set: the cases that cost minutes of
 * kernel builds or n^2 work on a CPU device run in full. */
bool test_thorough(clsort_context *ctx);
/* True when the test device is on NVIDIA's platform (the warp rankings run
 * there); false when there is no device. */
bool test_on_nvidia(void);
/* True when the test device is a CPU; false when there is no device. */
bool test_on_cpu(void);
/* the test device's local memory in bytes (0: no device) */
uint64_t test_local_mem(void);

/* Independent reference (reference.c): the stable sorting permutation of
 * keys under the documented order, by merge sort with a comparator written
 * from the definition (numeric order; for floats, NaN last and -0 == +0).
 * With a bit window it compares the window bits of the order-preserving
 * image. */
void ref_stable_perm(clsort_type type, const void *keys, size_t n, unsigned begin_bit,
                     unsigned end_bit, int descending, size_t *perm);

/* Checks that out[i] == in[perm[i]] byte for byte (size bytes each);
 * reports the first mismatch. */
bool check_permuted(const char *what, const void *in, const void *out, const size_t *perm,
                    size_t n, size_t size);

/* A fixed seed per test point. */
uint64_t test_seed(const char *name, size_t n, unsigned extra);

#endif

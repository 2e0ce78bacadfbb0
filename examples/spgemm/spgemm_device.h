/* spgemm_device.h - the sparse matrix product C = A * B on an OpenCL device
 * by expand, sort and compress (Polok, Ila and Smrz 2014, section 5):
 *   1. count: the products of every entry a_ik of A (the length of row k
 *      of B) and their exclusive scan (clsort_scan_buffer), which gives
 *      each entry's place;
 *   2. expand: every product a_ik * b_kj becomes a (key, value) pair with
 *      key = i * ncols(B) + j (u32 when nrows(A) * ncols(B) fits 32 bits,
 *      else u64) and value the double product;
 *   3. sort the pairs by key with clsort_sort_pairs_buffer, over the key's
 *      significant bits only (clsort_options.end_bit);
 *   4. reduce: flag the first pair of every run of equal keys, scan the
 *      flags to number the runs, and let each run's first pair sum its run
 *      (in sorted order, which is the order of k) into entry number
 *      flag-scan of C;
 *   5. csr: split each key of C into row and column and fill the row
 *      pointers, where a row's first entry writes the start of every row
 *      from the one after the previous entry's row up to its own.
 * All five run on the device; the host uploads A and B and reads C back. */
#ifndef SPGEMM_DEVICE_H
#define SPGEMM_DEVICE_H

#include <clsort.h>
#include <stdint.h>

#include "sparse.h"

/* Seconds spent in each phase (clFinish after each, monotonic clock). */
typedef struct spgemm_times {
    double upload;   /* A and B to the device */
    double count;    /* products per entry of A and their scan */
    double expand;   /* the (key, value) pairs */
    double sort;     /* clsort_sort_pairs_buffer: the median of the repetitions */
    double reduce;   /* head flags, their scan, the segment sums */
    double csr;      /* row pointers and columns of C */
    double download; /* C to the host */
} spgemm_times;

typedef struct spgemm_stats {
    uint64_t products;    /* pairs expanded and sorted */
    clsort_type key_type; /* CLSORT_U32 or CLSORT_U64 */
    unsigned key_bits;    /* the bits the sort orders: keys < 2^key_bits */
    uint64_t key_range;   /* keys < nrows(A) * ncols(B) */
    spgemm_times t;
} spgemm_stats;

typedef struct spgemm_device spgemm_device;

/* Prepares the kernels on the context's device (built per key type on
 * first use). Exits with a message if the device lacks double precision. */
spgemm_device *spgemm_device_create(clsort_context *ctx);
void spgemm_device_release(spgemm_device *d);

/* c = a * b on the device (a->ncols == b->nrows). The sort is timed
 * sort_reps times on the same input (restored from a copy in between);
 * stats->t.sort is the median. Exits with a message on any failure. */
void spgemm_multiply(spgemm_device *d, const csr_matrix *a, const csr_matrix *b, int sort_reps,
                     csr_matrix *c, spgemm_stats *stats);

/* For comparison: the median time of sorting n (key, double) pairs whose
 * keys are uniformly random in [0, key_range), of the same type and over
 * the same bits as a product's keys. Checks that the result is sorted. */
double spgemm_sort_random(spgemm_device *d, clsort_type key_type, unsigned key_bits,
                          uint64_t key_range, size_t n, int reps, uint64_t seed);

#endif

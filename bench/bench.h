/* bench.h - the benchmark harness behind `clsort bench` (and used by the
 * tests on small sizes). Public API of clsort only.
 *
 * Each case sorts the same generated input with clsort (device buffers,
 * device time from OpenCL profiling events: from the end of the copy that
 * restores the input to the start of a tiny copy enqueued after the sort,
 * so launch gaps inside the sort count) and with the C library's qsort on
 * the host, checks clsort's result against qsort's, and reports medians. */
#ifndef CLSORT_BENCH_H
#define CLSORT_BENCH_H

#include <clsort.h>
#include <stdio.h>

#include "data.h"

typedef struct bench_case {
    const char *name;       /* "u32 keys" */
    clsort_type key_type;
    size_t value_size;      /* 0: keys only; else values = input index (u32 or u64) */
    unsigned begin_bit, end_bit;
    data_dist dist;
    clsort_algorithm algorithm; /* CLSORT_ALGORITHM_AUTO: the tuned choice */
    size_t seg_len;             /* > 0: sort n / seg_len segments of seg_len keys
                                   with clsort_sort_segments_buffer */
} bench_case;

typedef struct bench_row {
    char name[64];
    char device[128];
    size_t n;
    double ms;        /* median device time of one clsort sort */
    double ms_min;
    double mkeys;     /* n / median time, millions of keys per second */
    double qsort_ms;  /* qsort of the same input (0: not measured) */
    double speedup;   /* qsort_ms / ms */
    int reps;
    int correct;      /* 1: result checked and right */
    int host;         /* 1: ms is the wall clock of the host-array API */
    char profile[1024]; /* per-kernel device times of one sort (with profile) */
} bench_row;

typedef struct bench_config {
    const char *device;  /* as clsort_context_create; NULL: default */
    const char *tuning;  /* NULL: tuned */
    const size_t *sizes;
    size_t nsizes;
    const bench_case *cases;
    size_t ncases;
    int min_reps;        /* at least this many timed sorts (after a warm-up) */
    double min_seconds;  /* and keep timing until this much time passed */
    int qsort;           /* also time qsort (the speed-up column) and compare with
                            its result element by element; without it the
                            check is O(n): order, key multiset, permutation */
    uint64_t seed;
    int profile;         /* fill bench_row.profile */
    int keep_pool;       /* keep the context's pool from case to case; by
                            default it is freed before each, so that each
                            case's temporaries are allocated after its own
                            buffers, as the CUB harness does (where they
                            lie in memory measured up to 5% on an H100) */
    FILE *log;           /* if set: build logs of the kernels built */
    int host;            /* time the host-array API instead: host arrays in,
                            sorted host arrays out, wall clock (the input
                            copied back into the array before each sort,
                            untimed) */
    FILE *stream;        /* if set: each row printed there as soon as it is
                            measured (bench_print's lines), so that a run
                            cut short keeps its rows */
} bench_config;

/* The headline cases: u32 keys, and u32 keys with u32 values. */
extern const bench_case bench_default_cases[2];

/* Parses a case string KEY[+VALUE_BYTES][:BEGIN:END][@DIST], e.g. "u32",
 * "u64+4", "u32:0:10", "u32+4@0-1023" (unsigned key types; value bytes 4 or
 * 8; DIST a data_dist_name). The name points into spec. Returns 0 or -1. */
int bench_parse_case(const char *spec, bench_case *out);

/* Device-to-device copy bandwidth of clEnqueueCopyBuffer on the device, in
 * GB/s counting bytes read plus written (median of several 1 GiB copies, or
 * less where the device's largest buffer is smaller). */
double bench_copy_bandwidth(const char *device, char *err, size_t errsize);

/* Runs every case at every size; rows gets ncases * nsizes entries. Returns
 * CLSORT_SUCCESS or the first failure (message in err). A wrong result is
 * not a failure of the run: its row says correct = 0. */
clsort_status bench_run(const bench_config *cfg, bench_row *rows, size_t cap, size_t *nrows,
                        char *err, size_t errsize);

/* bench_run of one case at one size (the other settings as their zero in
 * bench_config); *row is set when it returns CLSORT_SUCCESS. */
clsort_status bench_run_one(const char *device, const char *tuning, const bench_case *c, size_t n,
                            int min_reps, double min_seconds, int qsort, uint64_t seed,
                            bench_row *row, char *err, size_t errsize);

/* The table of rows: the header (the device, from the first row where
 * there is one), then a line per row (and its profile). */
void bench_print(FILE *f, const bench_row *rows, size_t nrows);
void bench_print_header(FILE *f, const bench_row *first);
void bench_print_row(FILE *f, const bench_row *r);

/* `clsort bench --algorithms`: Bainville's table (rate against log2 N for
 * the selection sorts, the bitonic sorts and the radix sort, u32 keys with
 * u32 values) and Zucchi's batch (count arrays of len u32 keys: plain
 * bitonic, bitonic in local memory, radix of (segment, key), and qsort of
 * each array on the host). Prints both tables; returns 0 or a status. */
clsort_status bench_algorithms(const char *device, const char *tuning, unsigned log2_min,
                               unsigned log2_max, unsigned sel_log2_max, size_t batch_count,
                               size_t batch_len, FILE *out, FILE *json, char *err,
                               size_t errsize);
void bench_print_json(FILE *f, const bench_row *rows, size_t nrows);

/* `clsort bench --scan`: exclusive scans of u32, u64 and f32 device buffers
 * at the given sizes: median device time, GB/s (one read and one write per
 * element) and a check against a host scan. Prints the table (and JSON if
 * json is set); returns 0 or a status. */
clsort_status bench_scan(const char *device, const char *tuning, const size_t *sizes,
                         size_t nsizes, uint64_t seed, FILE *out, FILE *json, char *err,
                         size_t errsize);

#endif

/* bucket_sort.h - what the C models (bucket_model.c, msd_model.c) share: a
 * millisecond clock, and one bucket [lo, hi) of a, after an MSD split,
 * sorted alone as clsort_radix_buckets sorts it: one count of all its
 * in-bucket digits (nw of them, widths w[] up to 12 bits, low first), then
 * one LSD pass per digit, a -> b -> a ... -> u. */
#ifndef BUCKET_SORT_H
#define BUCKET_SORT_H
#include <stdint.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void bucket_sort(uint32_t *a, uint32_t *b, uint32_t *u, size_t lo, size_t hi, int nw,
                        const int *w)
{
    static uint32_t h[4][4096], pos[4096];
    memset(h, 0, sizeof h);
    int sh[4], s = 0;
    for (int j = 0; j < nw; j++) {
        sh[j] = s;
        s += w[j];
    }
    for (size_t i = lo; i < hi; i++) {
        uint32_t k = a[i];
        for (int j = 0; j < nw; j++)
            h[j][(k >> sh[j]) & ((1u << w[j]) - 1)]++;
    }
    uint32_t *src = a, *dst;
    for (int j = 0; j < nw; j++) {
        dst = j == nw - 1 ? u : (src == a ? b : a);
        uint32_t run = (uint32_t)lo;
        unsigned m = (1u << w[j]) - 1;
        for (unsigned e = 0; e <= m; e++) {
            pos[e] = run;
            run += h[j][e];
        }
        for (size_t i = lo; i < hi; i++) {
            uint32_t k = src[i];
            dst[pos[(k >> sh[j]) & m]++] = k;
        }
        src = dst;
    }
}
#endif

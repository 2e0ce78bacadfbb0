#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
/* host_radix.c - the host tier's sort (tier.c): a stable LSD radix sort in
 * C of the caller's host arrays, on the calling thread, in the device's
 * order (clsort.h, "Key order"), so that its results are the device's,
 * byte for byte.
 *
 * Each key becomes a record: its order-preserving image over the bit
 * window (inverted for descending order) and a payload, the key's own bits
 * when keys alone are sorted, else its input position. The records are
 * sorted by the image, least significant digit first, stably; a pass whose
 * digit is the same for every key is skipped, as on the device. The
 * payloads then give the output: the sorted keys, the argsort positions,
 * or the permutation that moves keys and values. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Digits of 8 bits; 11 where that saves a pass (32-bit images: 3 passes
 * instead of 4), as the CPU rows' large_bits. */
#define DIGIT_MAX 11
#define MAX_PASSES 8

/* Large arrays on 2 MiB boundaries, with transparent huge pages asked for
 * before their first touch (as the pool does: a first sort's page faults). */
static void *big_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 4 * huge)
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
#endif
    return p;
}

/* Turns a pass's digit counts c[0, radix) into where each digit starts;
 * false (c left as it is) when digit d0, some key's, has all n keys: the
 * pass would move nothing. */
static inline bool digit_starts(size_t *c, size_t radix, size_t n, size_t d0)
{
    if (c[d0] == n)
        return false;
    size_t sum = 0;
    for (size_t d = 0; d < radix; d++) {
        const size_t x = c[d];
        c[d] = sum;
        sum += x;
    }
    return true;
}

/* What the typed sorts share: the window, the digits and the counts. */
typedef struct radix_plan {
    const clsort_host_radix_job *job;
    bool carry_keys; /* payload: the key's bits (keys alone), else its position */
    unsigned pack;   /* pairs: bytes of value packed above the key's bits instead */
    uint64_t wmask;  /* the window's width in ones */
    unsigned r, passes;
    size_t *counts;  /* passes x 2^r */
} radix_plan;

/* The typed sort of records {image, payload} of T (uint32_t for keys up to
 * 4 bytes, uint64_t for 8): fills a from the keys, counts every pass's
 * digits in the same read, runs the passes that vary between a and b, and
 * returns where the sorted records are. */
#define CLSORT_DEFINE_HOST_RADIX(NAME, T)                                                        \
    typedef struct NAME##_rec {                                                                  \
        T k, v;                                                                                  \
    } NAME##_rec;                                                                                \
    static NAME##_rec *NAME(const radix_plan *pl, NAME##_rec *a, NAME##_rec *b)                  \
    {                                                                                            \
        const clsort_host_radix_job *j = pl->job;                                                \
        const size_t n = j->n, radix = (size_t)1 << pl->r;                                       \
        const unsigned kb = j->key.bytes, kind = j->key.kind, begin = j->begin_bit;              \
        const unsigned r = pl->r, passes = pl->passes;                                           \
        const uint64_t wmask = pl->wmask, flip = j->descending ? wmask : 0;                      \
        const char *in = j->keys_in, *vals = j->values;                                          \
        size_t *cnt = pl->counts;                                                                \
        for (size_t i = 0; i < n; i++) {                                                         \
            const uint64_t u = clsort_load_bits(in + i * kb, kb);                                \
            const T img = (T)(((clsort_key_image(u, kb, kind) >> begin) & wmask) ^ flip);        \
            a[i].k = img;                                                                        \
            const uint64_t packed = pl->pack ? clsort_load_bits(vals + i * pl->pack, pl->pack)   \
                                             : 0;                                                \
            a[i].v = pl->carry_keys ? (T)u                                                       \
                     : pl->pack ? (T)(u | packed << (kb * 8))                                    \
                                : (T)i;                                                          \
            for (unsigned p = 0; p < passes; p++)                                                \
                cnt[p * radix + ((img >> (p * r)) & (radix - 1))]++;                             \
        }                                                                                        \
        for (unsigned p = 0; p < passes; p++) {                                                  \
            size_t *c = cnt + p * radix;                                                         \
            const unsigned shift = p * r;                                                        \
            if (!digit_starts(c, radix, n, (a[0].k >> shift) & (radix - 1)))                    \
                continue; /* the same digit in every key */                                      \
            for (size_t i = 0; i < n; i++)                                                       \
                b[c[(a[i].k >> shift) & (radix - 1)]++] = a[i];                                  \
            NAME##_rec *t = a;                                                                   \
            a = b;                                                                               \
            b = t;                                                                               \
        }                                                                                        \
        return a;                                                                                \
    }
CLSORT_DEFINE_HOST_RADIX(sort32, uint32_t)
CLSORT_DEFINE_HOST_RADIX(sort64, uint64_t)

/* Keys alone of 4 or 8 bytes over their whole width, whose images give
 * the keys back (integers; floats without -0.0 and NaN, which the image
 * merges): the images alone are sorted, half the records' bytes, in out
 * and tmp, and turned back into keys in out. false (nothing written to
 * the caller's arrays) for a float key that needs the records. */
#define CLSORT_DEFINE_HOST_IMAGES(NAME, T)                                                       \
    static bool NAME(const radix_plan *pl, T *out, T *tmp)                                       \
    {                                                                                            \
        const clsort_host_radix_job *j = pl->job;                                                \
        const size_t n = j->n, radix = (size_t)1 << pl->r;                                       \
        const unsigned kb = sizeof(T), kind = j->key.kind, r = pl->r, passes = pl->passes;       \
        const T sign = (T)1 << (kb * 8 - 1), flip = j->descending ? (T)~(T)0 : 0;                \
        const T *in = j->keys_in;                                                                \
        size_t *cnt = pl->counts;                                                                \
        /* the images first in tmp: the caller's arrays stay as they are until                   \
         * no float needs the records */                                                         \
        T *a = tmp, *b = out;                                                                    \
        bool merged = false; /* a -0.0 or a NaN */                                               \
        for (size_t i = 0; i < n; i++) {                                                         \
            const T u = in[i];                                                                   \
            const T img = (T)((T)clsort_key_image(u, kb, kind) ^ flip);                          \
            merged |= kind == 2 && ((T)(u << 1) == 0 ? u != 0 : (T)(img ^ flip) == (T)~(T)0);    \
            a[i] = img;                                                                          \
            for (unsigned p = 0; p < passes; p++)                                                \
                cnt[p * radix + ((img >> (p * r)) & (radix - 1))]++;                             \
        }                                                                                        \
        if (merged)                                                                              \
            return false;                                                                        \
        for (unsigned p = 0; p < passes; p++) {                                                  \
            size_t *c = cnt + p * radix;                                                         \
            const unsigned shift = p * r;                                                        \
            if (!digit_starts(c, radix, n, (a[0] >> shift) & (radix - 1)))                       \
                continue;                                                                        \
            for (size_t i = 0; i < n; i++)                                                       \
                b[c[(a[i] >> shift) & (radix - 1)]++] = a[i];                                    \
            T *t = a;                                                                            \
            a = b;                                                                               \
            b = t;                                                                               \
        }                                                                                        \
        /* the image back to the key: the flips undone */                                        \
        for (size_t i = 0; i < n; i++) {                                                         \
            T v = a[i] ^ flip;                                                                   \
            if (kind == 1)                                                                       \
                v ^= sign;                                                                       \
            else if (kind == 2)                                                                  \
                v = (v & sign) ? (T)(v ^ sign) : (T)~v;                                          \
            out[i] = v;                                                                          \
        }                                                                                        \
        return true;                                                                             \
    }
CLSORT_DEFINE_HOST_IMAGES(images32, uint32_t)
CLSORT_DEFINE_HOST_IMAGES(images64, uint64_t)

/* Moves n records of size bytes by the permutation in the payloads
 * (stride bytes apart): dst[i] = src[perm[i]]. */
static void gather(char *dst, const char *src, size_t size, const char *payloads, size_t stride,
                   unsigned pbytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t p = clsort_load_bits(payloads + i * stride, pbytes);
        memcpy(dst + i * size, src + p * size, size);
    }
}

clsort_status clsort_host_radix_sort(clsort_context *ctx, const char *fn,
                                     const clsort_host_radix_job *j)
{
    const size_t n = j->n;
    const unsigned kb = j->key.bytes;
    const unsigned w = j->end_bit - j->begin_bit;
    radix_plan pl = {j, j->keys_out && !j->values, 0,
                     w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1, 8, 0, NULL};
    /* small values travel in the records: no gathers by position */
    const size_t vs = j->value_size;
    if (j->values && (vs == 1 || vs == 2 || vs == 4) && kb + vs <= 8)
        pl.pack = (unsigned)j->value_size;
    if ((w + DIGIT_MAX - 1) / DIGIT_MAX < (w + 7) / 8)
        pl.r = DIGIT_MAX;
    pl.passes = (w + pl.r - 1) / pl.r;
    const size_t counts_bytes = ((size_t)MAX_PASSES << DIGIT_MAX) * sizeof *pl.counts;
    if (pl.carry_keys && (kb == 4 || kb == 8) && w == kb * 8 &&
        ((uintptr_t)j->keys_in | (uintptr_t)j->keys_out) % kb == 0) {
        void *tmp = big_alloc(n * kb);
        pl.counts = calloc(1, counts_bytes);
        bool done = false;
        if (tmp && pl.counts)
            done = kb == 4 ? images32(&pl, j->keys_out, tmp) : images64(&pl, j->keys_out, tmp);
        free(tmp);
        free(pl.counts);
        if (done)
            return CLSORT_SUCCESS;
    }
    /* 32-bit records hold the image of keys up to 4 bytes and positions
     * below 2^32 (or a key and value of 4 bytes together) */
    const bool narrow = kb <= 4 && n <= 0xffffffffull && kb + pl.pack <= 4;
    const size_t rec = narrow ? 8 : 16;
    const size_t tmp_bytes =
        j->values && !pl.pack ? n * (j->value_size > kb ? j->value_size : kb) : 0;
    /* everything allocated first: a shortage changes nothing */
    pl.counts = calloc(1, counts_bytes);
    char *a = big_alloc(n * rec), *b = big_alloc(n * rec);
    char *tmp = tmp_bytes ? big_alloc(tmp_bytes) : NULL;
    if (!pl.counts || !a || !b || (tmp_bytes && !tmp)) {
        free(pl.counts);
        free(a);
        free(b);
        free(tmp);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "%s: no host memory for the host sort's %zu bytes", fn,
                           2 * n * rec + tmp_bytes);
    }
    const char *out = narrow ? (const char *)sort32(&pl, (sort32_rec *)(void *)a,
                                                    (sort32_rec *)(void *)b)
                             : (const char *)sort64(&pl, (sort64_rec *)(void *)a,
                                                    (sort64_rec *)(void *)b);
    const size_t half = rec / 2; /* the payload follows the image */
    const char *pay = out + half;
    if (pl.carry_keys) {
        for (size_t i = 0; i < n; i++)
            clsort_store_bits((char *)j->keys_out + i * kb,
                              clsort_load_bits(pay + i * rec, (unsigned)half), kb);
    } else if (j->indices) {
        for (size_t i = 0; i < n; i++)
            clsort_store_bits((char *)j->indices + i * j->index_bytes,
                              clsort_load_bits(pay + i * rec, (unsigned)half), j->index_bytes);
    } else if (pl.pack) {
        for (size_t i = 0; i < n; i++) {
            const uint64_t v = clsort_load_bits(pay + i * rec, (unsigned)half);
            clsort_store_bits((char *)j->keys_out + i * kb, v, kb);
            clsort_store_bits((char *)j->values + i * pl.pack, v >> (kb * 8), pl.pack);
        }
    } else { /* pairs, in place: keys then values through tmp */
        gather(tmp, j->keys_in, kb, pay, rec, (unsigned)half, n);
        memcpy(j->keys_out, tmp, n * kb);
        gather(tmp, j->values, j->value_size, pay, rec, (unsigned)half, n);
        memcpy(j->values, tmp, n * j->value_size);
    }
    free(pl.counts);
    free(a);
    free(b);
    free(tmp);
    return CLSORT_SUCCESS;
}

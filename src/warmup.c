/* warmup.c - compiling a device's kernels ahead of their first use.
 *
 * Drivers compile a program when it is built and, PoCL, each kernel at its
 * first launch (for the work-group size it runs with). The sure way to
 * have every kernel a sort takes compiled and in the caches is to run that
 * sort: so the warmup sorts small random arrays, at the sizes where the
 * tuning changes the route or the digit width. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define WARMUP_MAX_N ((size_t)8 << 20)

static const clsort_type all_types[] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64,
                                        CLSORT_I8,  CLSORT_I16, CLSORT_I32, CLSORT_I64,
                                        CLSORT_F32, CLSORT_F64};

/* The sizes to sort: small (one work-group), a few tiles, and the tuned
 * thresholds from which another program runs; ascending, distinct. */
static size_t warmup_sizes(const clsort_tuning *t, size_t *out)
{
    size_t cand[] = {1000, 100000, 0, 0, 0};
    if (t->large_bits && t->large_bits != t->radix_bits && t->large_min)
        cand[2] = t->large_min;
    cand[3] = t->big_min;
    cand[4] = t->big_min_pairs;
    size_t n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        size_t v = cand[i];
        if (v == 0 || v > WARMUP_MAX_N)
            continue;
        size_t k = n;
        while (k > 0 && out[k - 1] > v)
            k--;
        if (k > 0 && out[k - 1] == v)
            continue;
        memmove(out + k + 1, out + k, (n - k) * sizeof *out);
        out[k] = v;
        n++;
    }
    return n;
}

/* Random bits: every pass of every key type runs (no digit is constant). */
static void random_bits(unsigned char *p, size_t words)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < words; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(p + 8 * i, &x, 8);
    }
}

clsort_status clsort_warm_kind(clsort_context *ctx, const clsort_tier_request *rq,
                               const _Atomic bool *cancel)
{
    size_t sizes[8];
    const size_t nsizes = warmup_sizes(&ctx->tuning, sizes);
    const size_t maxn = sizes[nsizes - 1];
    const size_t ks = clsort_type_size(rq->key_type);
    /* records of any size other than the passes' take the same programs:
     * 3-byte ones stand for them all */
    size_t vs = rq->mode == 1 ? rq->value_size : rq->mode == 2 ? rq->index_bytes : 0;
    if (vs > 16 || (vs && (vs & (vs - 1))))
        vs = 3;
    unsigned char *keys = malloc(maxn * 8), *save = malloc(maxn * 8);
    unsigned char *vals = vs ? malloc(maxn * vs) : NULL;
    if (!keys || !save || (vs && !vals)) {
        free(keys);
        free(vals);
        free(save);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    random_bits(save, maxn);
    const bool bypass = ctx->tier_bypass;
    ctx->tier_bypass = true; /* these sorts are for the device */
    clsort_status s = CLSORT_SUCCESS;
    for (size_t k = 0; k < nsizes && s == CLSORT_SUCCESS; k++) {
        const size_t n = sizes[k];
        if (cancel && *cancel)
            break;
        if (n * ks > ctx->facts.max_alloc_bytes / 4 || n * vs > ctx->facts.max_alloc_bytes / 4)
            continue;
        memcpy(keys, save, n * ks);
        if (rq->mode == 0)
            s = clsort_sort_keys(ctx, rq->key_type, keys, n, NULL);
        else if (rq->mode == 1)
            s = clsort_sort_pairs(ctx, rq->key_type, keys, vals, vs, n, NULL);
        else
            s = clsort_argsort(ctx, rq->key_type, save, n,
                               rq->index_bytes == 8 ? CLSORT_U64 : CLSORT_U32, vals, NULL);
    }
    ctx->tier_bypass = bypass;
    free(keys);
    free(vals);
    free(save);
    return s;
}

clsort_status clsort_context_warmup(clsort_context *ctx, const clsort_type *types, size_t ntypes,
                                    unsigned flags)
{
    if (!ctx || (ntypes && !types) || (flags & ~(unsigned)(CLSORT_WARMUP_PAIRS |
                                                            CLSORT_WARMUP_ARGSORT)))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_context_warmup: ctx NULL, types NULL with ntypes > 0, or "
                           "unknown flags");
    if (!types) {
        types = all_types;
        ntypes = sizeof all_types / sizeof all_types[0];
    }
    for (size_t i = 0; i < ntypes; i++)
        if (clsort_type_size(types[i]) == 0)
            return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED_TYPE,
                               "clsort_context_warmup: key type %d is not one of clsort's",
                               (int)types[i]);
    CLSORT_TRY(clsort_tier_join(ctx, false));
    /* keys alone, then what flags adds, each kind marked warm once done */
    clsort_status s = CLSORT_SUCCESS;
    for (size_t t = 0; t < ntypes && s == CLSORT_SUCCESS; t++) {
        const clsort_tier_request kinds[] = {{types[t], 0, 0, 0, 0, true},
                                             {types[t], 1, 4, 0, 0, true},
                                             {types[t], 2, 0, 4, 0, true}};
        const bool wanted[] = {true, (flags & CLSORT_WARMUP_PAIRS) != 0,
                               (flags & CLSORT_WARMUP_ARGSORT) != 0};
        for (size_t k = 0; k < 3 && s == CLSORT_SUCCESS; k++) {
            if (!wanted[k])
                continue;
            s = clsort_warm_kind(ctx, &kinds[k], NULL);
            if (s == CLSORT_SUCCESS)
                clsort_tier_mark_warm(ctx, &kinds[k]);
        }
    }
    return s;
}

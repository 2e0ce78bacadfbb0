/* radix_classic.c - the classic passes (radix_classic.cl): three kernels
 * per pass, a per-group histogram, a one-group scan of the groups' counts
 * and a ranked scatter. They need no forward progress between work-groups,
 * so they run on any OpenCL device (the default tuning row).
 */
#include "radix.h"

#include <stdio.h>

static size_t cl_local_bytes(const radix_shape *s, unsigned items)
{
    if (s->cl_wg == 1)
        return 0;
    size_t tile = (size_t)s->cl_wg * items, R = s->radix, ib = s->idx_bytes;
    return tile * s->key_bytes + tile + 2 * tile * 2 + (size_t)RANK_CNT_WORDS(s->cl_wg) * 2 +
           R * 4 + 2 * R * ib + (size_t)SCAN_LOCAL_WORDS(s->cl_wg) * 4;
}

/* The classic part of a shape: the scatter's tile, the groups and their
 * chunks, and the words of scratch and bases. */
clsort_status radix_classic_shape(clsort_context *ctx, const clsort_radix_job *job,
                                  radix_shape *s)
{
    const clsort_tuning *t = &ctx->tuning;
    const clsort_device_facts *f = &ctx->facts;
    const size_t lmem = f->local_mem_bytes;
    const size_t R = s->radix, P = s->passes, n = job->n;
    s->cl_wg = t->cl_wg;
    unsigned items = t->cl_items;
    while (items > 1 && cl_local_bytes(s, items) > lmem)
        items--;
    if (cl_local_bytes(s, items) > lmem)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                           "the classic scatter kernel does not fit the device's %zu bytes "
                           "of local memory (cl_wg=%u)",
                           lmem, s->cl_wg);
    s->cl_items = items;
    /* The upfront counts are 32-bit per portion as well. */
    s->portion = PORTION_LIMIT;
    s->portions = div_up(n, s->portion);
    size_t ctile = s->cl_wg == 1 ? 1 : (size_t)s->cl_wg * items;
    size_t groups = (size_t)t->cl_groups * f->compute_units;
    size_t max_groups = div_up(n, ctile);
    if (groups > max_groups)
        groups = max_groups;
    size_t min_groups = div_up(n, (size_t)1 << 31); /* 32-bit per-group counts */
    if (groups < min_groups)
        groups = min_groups;
    if (groups == 0)
        groups = 1;
    size_t chunk = div_up(div_up(n, groups), ctile) * ctile;
    s->cl_chunk = chunk;
    s->cl_groups = div_up(n, chunk);
    s->counts_at = 0;
    s->hist_at = s->portions * P * R;
    s->scratch_words = s->hist_at + R * s->cl_groups;
    s->offsets_at = s->portions * P * R;
    s->bases_words = s->offsets_at + R * s->cl_groups;
    return CLSORT_SUCCESS;
}

int radix_classic_options(const radix_shape *s, char *opts, int len, size_t size)
{
    return len + snprintf(opts + len, size - (size_t)len, " -DCLSORT_CL_WG=%u -DCLSORT_CL_ITEMS=%u",
                          s->cl_wg, s->cl_items);
}

/* Every pass: count per group, offsets in one group, ranked scatter. */
clsort_status radix_run_classic(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel kc, ko, ks;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_count", &kc));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_offsets", &ko));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_scatter", &ks));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off;
    cl_uint begin = job->begin_bit, end = job->end_bit, desc = job->descending;
    cl_uint m = (cl_uint)(s->radix * s->cl_groups);
    cl_ulong hist_off = s->hist_at, offs_off = s->offsets_at;
    for (cl_uint p = 0; p < s->passes; p++) {
        idx_arg a_n, a_chunk;
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, kc, clsort_radix_count, .ku = CLSORT_ARG(b->ku),
                                   .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                                   .kb = CLSORT_ARG(b->kb), .n = idx_of(s, &a_n, job->n),
                                   .chunk = idx_of(s, &a_chunk, s->cl_chunk), .pass = CLSORT_ARG(p),
                                   .begin_bit = CLSORT_ARG(begin), .end_bit = CLSORT_ARG(end),
                                   .descending = CLSORT_ARG(desc), .state = CLSORT_ARG(b->state),
                                   .hist = CLSORT_ARG(b->scratch),
                                   .hist_off = CLSORT_ARG(hist_off)));
        CLSORT_TRY(clsort_launch(ctx, kc, "clsort_radix_count", s->cl_groups * s->cl_wg, s->cl_wg,
                                 seq));
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, ko, clsort_radix_offsets, .hist = CLSORT_ARG(b->scratch),
                                   .hist_off = CLSORT_ARG(hist_off), .m = CLSORT_ARG(m),
                                   .pass = CLSORT_ARG(p), .state = CLSORT_ARG(b->state),
                                   .offsets = CLSORT_ARG(b->bases),
                                   .offsets_off = CLSORT_ARG(offs_off)));
        CLSORT_TRY(clsort_launch(ctx, ko, "clsort_radix_offsets", s->plan_wg, s->plan_wg, seq));
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, ks, clsort_radix_scatter, .ku = CLSORT_ARG(b->ku),
                                   .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                                   .kb = CLSORT_ARG(b->kb), .vu = CLSORT_ARG(b->vu),
                                   .vu_off = CLSORT_ARG(vu_off), .va = CLSORT_ARG(b->va),
                                   .vb = CLSORT_ARG(b->vb), .n = idx_of(s, &a_n, job->n),
                                   .chunk = idx_of(s, &a_chunk, s->cl_chunk),
                                   .pass = CLSORT_ARG(p), .begin_bit = CLSORT_ARG(begin),
                                   .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                                   .state = CLSORT_ARG(b->state), .offsets = CLSORT_ARG(b->bases),
                                   .offsets_off = CLSORT_ARG(offs_off)));
        CLSORT_TRY(clsort_launch(ctx, ks, "clsort_radix_scatter", s->cl_groups * s->cl_wg, s->cl_wg,
                                 seq));
    }
    return CLSORT_SUCCESS;
}

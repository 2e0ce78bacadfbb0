/* bitonic.c - bitonic networks (Zucchi) for segments that fit a work-group,
 * for small sorts in one launch and for whole arrays; the comparison sorts'
 * program (bitonic.cl with selection.cl: their order keys are shared); and
 * segments too long for a work-group, sorted by one radix sort of (segment,
 * key). The selection sort is selection.c. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static size_t pow2_floor(size_t x)
{
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

/* Stable (indices carried) unless integer keys alone over every bit. */
static bool needs_index(const clsort_radix_job *job)
{
    return job->vals || job->key.kind == 2 || job->begin_bit != 0 ||
           job->end_bit != job->key.bytes * 8;
}

size_t clsort_bitonic_capacity(const clsort_context *ctx, unsigned key_bytes, bool stable)
{
    const size_t reserve = 512; /* the compiler's own local memory */
    size_t lmem = ctx->facts.local_mem_bytes > reserve ? ctx->facts.local_mem_bytes - reserve : 0;
    size_t cap = pow2_floor(lmem / (key_bytes + (stable ? 4 : 0)));
    if (ctx->tuning.bt_cap && cap > ctx->tuning.bt_cap)
        cap = pow2_floor(ctx->tuning.bt_cap);
    return cap < 2 ? 0 : cap;
}

/* The bitonic program: capacity and work-group size from the tuning, or,
 * with bt_fit_wg and fit_len > 0 (a lone segment of that many elements that
 * fits), a program of the segment's own power of two, at least FIT_MIN (so
 * that tiny sorts do not each build a program of their own): no work-item
 * then loops over pairs that do not exist (decision log, GPU small:
 * "bitonic programs fitted"). */
#define FIT_MIN 512
clsort_status clsort_bitonic_program(clsort_context *ctx, const clsort_radix_job *job,
                                     bool stable, size_t fit_len, clsort_bt_variant *v,
                                     clsort_program **prog)
{
    v->stable = stable;
    v->cap = (unsigned)clsort_bitonic_capacity(ctx, job->key.bytes, stable);
    if (v->cap < 2)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                           "the device's local memory is too small for the bitonic kernels");
    unsigned wg = ctx->tuning.bt_wg;
    const size_t fit = pow2_ceil(fit_len > FIT_MIN ? fit_len : FIT_MIN);
    if (ctx->tuning.bt_fit_wg && fit_len >= 2 && fit <= v->cap) {
        v->cap = (unsigned)fit;
        wg = ctx->tuning.bt_fit_wg;
    }
    if (wg > v->cap / 2)
        wg = v->cap / 2;
    if (wg > ctx->facts.max_work_group_size)
        wg = (unsigned)pow2_floor(ctx->facts.max_work_group_size);
    v->wg = wg ? wg : 1;
    char opts[1024];
    snprintf(opts, sizeof opts,
             "-cl-std=CL1.2 -DCLSORT_KEY_BYTES=%u -DCLSORT_KEY_KIND=%u -DCLSORT_VAL_BYTES=%u "
             "-DCLSORT_INDEX64=0 -DCLSORT_NVIDIA=%d -DCLSORT_BT_CAP=%u -DCLSORT_BT_WG=%u "
             "-DCLSORT_BT_STABLE=%d -DCLSORT_BT_REGS=%u -DCLSORT_SEL_WG=%u -DCLSORT_SEL_BLOCK=%u",
             job->key.bytes, job->key.kind, job->vals ? job->val_bytes : 0,
             ctx->facts.vendor == CLSORT_VENDOR_NVIDIA ? 1 : 0, v->cap, v->wg, stable ? 1 : 0,
             ctx->tuning.bt_regs, ctx->tuning.sel_wg, ctx->tuning.sel_block);
    static const char *const files[] = {"layout.h", "common.cl", "bitonic.cl", "selection.cl"};
    return clsort_program_get(ctx, files, sizeof files / sizeof files[0], opts, prog);
}

clsort_order_args clsort_order_of(const clsort_radix_job *job)
{
    clsort_order_args o;
    unsigned w = job->end_bit - job->begin_bit;
    o.begin = job->begin_bit;
    o.wmask = w >= 64 ? ~0ull : (1ull << w) - 1;
    o.desc = job->descending;
    o.kb = job->key.bytes;
    return o;
}

/* A 1-D grid for element loops: at most 64 groups per compute unit. */
static size_t loop_groups(const clsort_context *ctx, size_t n, size_t per_group)
{
    size_t g = div_up(n, per_group);
    size_t cap = (size_t)ctx->facts.compute_units * 64;
    return g == 0 ? 1 : (g > cap ? cap : g);
}

clsort_status clsort_bitonic_run(clsort_context *ctx, const clsort_radix_job *job,
                                 const clsort_seg_desc *seg, bool plain, clsort_seq *seq)
{
    /* (covered is unknown, 0, when the caller gave max_length instead of
     * letting the offsets be read back; only the one-launch path runs then) */
    if (seg->count == 0 || seg->maxlen < 2)
        return CLSORT_SUCCESS;
    const bool stable = needs_index(job);
    clsort_bt_variant v;
    clsort_program *prog;
    clsort_order_args o = clsort_order_of(job);
    cl_ulong koff = job->keys_off, voff = job->vals_off, ooff = seg->offsets_off;
    cl_ulong first = seg->first, seg_len = seg->seg_len;
    cl_uint use_off = seg->use_offsets, gen = job->gen_index;
    cl_mem offs = seg->offsets;
    cl_mem vals = job->vals;

    /* Every segment fits a work-group: one launch. Short segments share a
     * work-group, each in a block of the longest one's power of two, as
     * many as fill the group's local memory, fewer where that would leave
     * under 4 groups per compute unit and the blocks still give every
     * work-item a pair to compare. */
    if (!plain) {
        CLSORT_TRY(clsort_bitonic_program(ctx, job, stable, seg->count == 1 ? seg->maxlen : 0, &v, &prog));
        if (seg->maxlen <= v.cap) {
            cl_kernel k;
            CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_bitonic_segments", &k));
            const size_t block = pow2_ceil(seg->maxlen);
            const size_t teams = v.wg & (0u - v.wg); /* the largest power of two dividing wg */
            size_t per = v.cap / block < teams ? v.cap / block : teams;
            while (per > 1 && per * block > 2 * (size_t)v.wg &&
                   div_up(seg->count, per) < 4 * (size_t)ctx->facts.compute_units)
                per /= 2;
            cl_ulong n_all = job->n, count = seg->count;
            cl_uint per_group = (cl_uint)per, block_arg = (cl_uint)block;
            CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_bitonic_segments,
                                       .keys = CLSORT_ARG(job->keys),
                                       .keys_off = CLSORT_ARG(koff), .vals = CLSORT_ARG(vals),
                                       .vals_off = CLSORT_ARG(voff), .offsets = CLSORT_ARG(offs),
                                       .offsets_off = CLSORT_ARG(ooff),
                                       .use_offsets = CLSORT_ARG(use_off),
                                       .first = CLSORT_ARG(first), .seg_len = CLSORT_ARG(seg_len),
                                       .begin_bit = CLSORT_ARG(o.begin), .wmask = {o.kb, &o.wmask},
                                       .desc = CLSORT_ARG(o.desc), .gen_index = CLSORT_ARG(gen),
                                       .n = CLSORT_ARG(n_all), .count = CLSORT_ARG(count),
                                       .per_group = CLSORT_ARG(per_group),
                                       .block = CLSORT_ARG(block_arg)));
            return clsort_launch(ctx, k, "clsort_bitonic_segments",
                                 div_up(seg->count, per) * v.wg, v.wg, seq);
        }
    }

    /* Padded network in temporaries: global steps where the distance
     * exceeds a work-group's block, local-memory phases below it (or only
     * global steps for the plain version). */
    CLSORT_TRY(clsort_bitonic_program(ctx, job, true, 0, &v, &prog));
    const size_t seg_pad = pow2_ceil(seg->maxlen < 2 ? 2 : seg->maxlen);
    const size_t npad = seg_pad * seg->count;
    if (npad > 0xffffffffull || seg_pad > 0x80000000ull)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "the bitonic sort handles at most 2^31 elements a segment and 2^32 "
                           "padded in all (here %zu)",
                           npad);
    cl_mem ok, oi, dk, dv = NULL;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_KEYS, npad * job->key.bytes, &ok));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_INDEX, npad * 4, &oi));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_KEYS, seg->covered * job->key.bytes, &dk));
    if (vals)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_VALS, seg->covered * job->val_bytes, &dv));
    cl_kernel kp, ks, kl, ku;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_bitonic_pack", &kp));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_bitonic_step", &ks));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_bitonic_local", &kl));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_bitonic_unpack", &ku));
    cl_ulong a_pad = seg_pad, a_npad = npad;
    {
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, kp, clsort_bitonic_pack, .keys = CLSORT_ARG(job->keys),
                                   .keys_off = CLSORT_ARG(koff), .offsets = CLSORT_ARG(offs),
                                   .offsets_off = CLSORT_ARG(ooff),
                                   .use_offsets = CLSORT_ARG(use_off), .first = CLSORT_ARG(first),
                                   .seg_len = CLSORT_ARG(seg_len), .seg_pad = CLSORT_ARG(a_pad),
                                   .npad = CLSORT_ARG(a_npad), .begin_bit = CLSORT_ARG(o.begin),
                                   .wmask = {o.kb, &o.wmask}, .desc = CLSORT_ARG(o.desc),
                                   .ok = CLSORT_ARG(ok), .oi = CLSORT_ARG(oi)));
        CLSORT_TRY(clsort_launch(ctx, kp, "clsort_bitonic_pack", loop_groups(ctx, npad, 1024) * 256,
                                 256, seq));
    }
    const cl_uint block = (cl_uint)(seg_pad < v.cap ? seg_pad : v.cap);
    const size_t step_global = loop_groups(ctx, npad / 2, 1024) * 256;
    cl_uint kfrom = 2;
    if (!plain) { /* sequences up to a block, entirely in local memory */
        cl_uint kto = block, jfrom = block;
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, kl, clsort_bitonic_local, .ok = CLSORT_ARG(ok),
                                   .oi = CLSORT_ARG(oi), .seg_pad = CLSORT_ARG(a_pad),
                                   .block = CLSORT_ARG(block), .kfrom = CLSORT_ARG(kfrom),
                                   .kto = CLSORT_ARG(kto), .jfrom = CLSORT_ARG(jfrom)));
        CLSORT_TRY(clsort_launch(ctx, kl, "clsort_bitonic_local", npad / block * v.wg, v.wg, seq));
        kfrom = block * 2;
    }
    for (size_t kk = kfrom; kk <= seg_pad; kk <<= 1) {
        cl_uint k32 = (cl_uint)kk;
        size_t jstop = plain ? 1 : block;
        for (size_t jj = kk >> 1; jj >= jstop; jj >>= 1) {
            cl_uint j32 = (cl_uint)jj;
            CLSORT_TRY(CLSORT_SET_ARGS(ctx, ks, clsort_bitonic_step, .ok = CLSORT_ARG(ok),
                                       .oi = CLSORT_ARG(oi), .npad = CLSORT_ARG(a_npad),
                                       .seg_pad = CLSORT_ARG(a_pad), .k = CLSORT_ARG(k32),
                                       .j = CLSORT_ARG(j32)));
            CLSORT_TRY(clsort_launch(ctx, ks, "clsort_bitonic_step", step_global, 256, seq));
            if (jj == 1)
                break;
        }
        if (!plain) {
            cl_uint jfrom = block / 2;
            CLSORT_TRY(CLSORT_SET_ARGS(ctx, kl, clsort_bitonic_local, .ok = CLSORT_ARG(ok),
                                       .oi = CLSORT_ARG(oi), .seg_pad = CLSORT_ARG(a_pad),
                                       .block = CLSORT_ARG(block), .kfrom = CLSORT_ARG(k32),
                                       .kto = CLSORT_ARG(k32), .jfrom = CLSORT_ARG(jfrom)));
            CLSORT_TRY(clsort_launch(ctx, kl, "clsort_bitonic_local", npad / block * v.wg, v.wg,
                                     seq));
        }
    }
    {
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, ku, clsort_bitonic_unpack, .keys = CLSORT_ARG(job->keys),
                                   .keys_off = CLSORT_ARG(koff), .vals = CLSORT_ARG(vals),
                                   .vals_off = CLSORT_ARG(voff), .offsets = CLSORT_ARG(offs),
                                   .offsets_off = CLSORT_ARG(ooff),
                                   .use_offsets = CLSORT_ARG(use_off), .first = CLSORT_ARG(first),
                                   .seg_len = CLSORT_ARG(seg_len), .seg_pad = CLSORT_ARG(a_pad),
                                   .npad = CLSORT_ARG(a_npad), .oi = CLSORT_ARG(oi),
                                   .dk = CLSORT_ARG(dk), .dv = CLSORT_ARG(dv),
                                   .gen_index = CLSORT_ARG(gen)));
        CLSORT_TRY(clsort_launch(ctx, ku, "clsort_bitonic_unpack",
                                 loop_groups(ctx, npad, 1024) * 256, 256, seq));
    }
    CLSORT_TRY(clsort_copy(ctx, dk, 0, job->keys, (job->keys_off + seg->base0) * job->key.bytes,
                           seg->covered * job->key.bytes, seq));
    if (vals)
        CLSORT_TRY(clsort_copy(ctx, dv, 0, vals, (job->vals_off + seg->base0) * job->val_bytes,
                               seg->covered * job->val_bytes, seq));
    return CLSORT_SUCCESS;
}

/* Whether the segments can be sorted by one radix sort of (segment,
 * window) keys: the segment number and the window fit 64 bits together, no
 * indices are generated, and the offsets are on the host (the sort covers
 * [base0, base0 + covered)). */
static unsigned segment_bits(size_t count)
{
    unsigned sbits = 0;
    while (sbits < 64 && ((size_t)1 << sbits) < count)
        sbits++;
    return sbits;
}

bool clsort_segments_packable(const clsort_radix_job *job, const clsort_seg_desc *seg)
{
    return segment_bits(seg->count) + (job->end_bit - job->begin_bit) <= 64 && !job->gen_index &&
           (!seg->use_offsets || seg->host_offsets);
}

/* Segments longer than a work-group holds: one radix sort of 64-bit keys
 * (segment << window bits | order key) with the permutation, then the keys
 * and values gathered by it. When the segment number and the window do not
 * fit 64 bits together, each segment gets a radix sort of its own. */
clsort_status clsort_segments_radix(clsort_context *ctx, const clsort_radix_job *job,
                                    const clsort_seg_desc *seg, clsort_seq *seq)
{
    if (seg->count == 0 || seg->covered == 0)
        return CLSORT_SUCCESS;
    const unsigned wbits = job->end_bit - job->begin_bit, sbits = segment_bits(seg->count);
    if (!clsort_segments_packable(job, seg)) {
        /* One radix sort per segment (segment starts known on the host). */
        if (seg->use_offsets && !seg->host_offsets)
            return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "segment offsets not on the host");
        for (size_t s = 0; s < seg->count; s++) {
            size_t start = seg->use_offsets ? seg->host_offsets[s] : seg->first + s * seg->seg_len;
            size_t end = seg->use_offsets ? seg->host_offsets[s + 1] : start + seg->seg_len;
            if (end - start < 2)
                continue;
            clsort_radix_job sub = *job;
            sub.keys_off = job->keys_off + start;
            sub.vals_off = job->vals_off + start;
            sub.n = end - start;
            CLSORT_TRY(clsort_radix_sort(ctx, &sub, seq));
        }
        return CLSORT_SUCCESS;
    }
    const size_t m = seg->covered;
    clsort_bt_variant v;
    clsort_program *prog;
    CLSORT_TRY(clsort_bitonic_program(ctx, job, true, 0, &v, &prog));
    cl_mem pk, perm, dk, dv = NULL;
    const unsigned ib = m > 0xffffffffull ? 8 : 4;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_KEYS, m * 8, &pk));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_INDEX, m * ib, &perm));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_KEYS, m * job->key.bytes, &dk));
    if (job->vals)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_VALS, m * job->val_bytes, &dv));
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_segments_pack64", &k));
    clsort_order_args o = clsort_order_of(job);
    cl_ulong koff = job->keys_off, ooff = seg->offsets_off, first = seg->first,
             seg_len = seg->seg_len;
    cl_uint use_off = seg->use_offsets, wb = wbits;
    cl_mem offs = seg->offsets;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_segments_pack64, .keys = CLSORT_ARG(job->keys),
                               .keys_off = CLSORT_ARG(koff), .offsets = CLSORT_ARG(offs),
                               .offsets_off = CLSORT_ARG(ooff), .use_offsets = CLSORT_ARG(use_off),
                               .first = CLSORT_ARG(first), .seg_len = CLSORT_ARG(seg_len),
                               .begin_bit = CLSORT_ARG(o.begin), .wmask = {o.kb, &o.wmask},
                               .wbits = CLSORT_ARG(wb), .desc = CLSORT_ARG(o.desc),
                               .pk = CLSORT_ARG(pk)));
    CLSORT_TRY(clsort_launch(ctx, k, "clsort_segments_pack64", seg->count * 256, 256, seq));
    /* (segment, order key) pairs with the permutation, radix sorted. */
    clsort_radix_job r;
    memset(&r, 0, sizeof r);
    r.key.bytes = 8;
    r.key.kind = 0;
    r.keys = pk;
    r.vals = perm;
    r.val_bytes = ib;
    r.gen_index = true;
    r.n = m;
    r.begin_bit = 0;
    r.end_bit = sbits + wbits;
    r.algorithm = ctx->tuning.algorithm;
    r.radix_bits = 0; /* the tuned width */
    CLSORT_TRY(clsort_radix_sort(ctx, &r, seq));
    /* Gather: dk[i] = keys[base0 + perm[i]], the same for values. */
    const size_t kb = job->key.bytes;
    CLSORT_TRY(clsort_radix_gather(ctx, &r, job->keys, (job->keys_off + seg->base0) * kb, dk, perm,
                                   kb, seq));
    if (job->vals)
        CLSORT_TRY(clsort_radix_gather(ctx, &r, job->vals, (job->vals_off + seg->base0) * job->val_bytes,
                                       dv, perm, job->val_bytes, seq));
    CLSORT_TRY(clsort_copy(ctx, dk, 0, job->keys, (job->keys_off + seg->base0) * kb, m * kb, seq));
    if (job->vals)
        CLSORT_TRY(clsort_copy(ctx, dv, 0, job->vals, (job->vals_off + seg->base0) * job->val_bytes,
                               m * job->val_bytes, seq));
    return CLSORT_SUCCESS;
}

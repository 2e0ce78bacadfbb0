/* radix.c - the radix sort driver: shapes, programs, buffers, launches.
 *
 * Two strategies share the upfront histogram, the plan and the finish
 * kernels of radix.cl (onesweep folds the finish into its last pass's
 * launch where it can: radix_shape.fold):
 *   onesweep  one kernel per pass (radix_onesweep.cl): ranks a tile, finds
 *             its global offsets by decoupled look-back, writes it out. Reads
 *             and writes the keys once per pass. Needs work-groups that,
 *             once started, keep running (GPUs, PoCL).
 *   classic   three kernels per pass (radix_classic.cl): per-group
 *             histogram, one-group scan, ranked scatter. Runs anywhere.
 * Passes whose digit is the same for every key are skipped on the device
 * (clsort_radix_plan), and the plan routes the passes through the caller's
 * buffer U and temporaries A and B so that the result lands in U.
 */
#include "internal.h"
#include "kernels/radix_layout.h"

#include <stdio.h>
#include <string.h>

/* Look-back counts are 30 bits: portions stay below 2^30 keys. */
#define PORTION_LIMIT ((1u << 30) - 1u)

typedef struct radix_shape {
    unsigned r, radix, passes, max_passes;
    unsigned algorithm, rank;
    unsigned key_bytes, val_bytes, idx_bytes;
    bool index64;
    /* onesweep */
    unsigned os_wg, os_items, lb_batch;
    unsigned persist; /* persistent work-groups per compute unit (0: one per tile) */
    size_t tile, portion, portions, tiles_pp;
    /* classic */
    unsigned cl_wg, cl_items;
    size_t cl_groups, cl_chunk;
    /* shared */
    unsigned hist_wg, plan_wg;
    bool allow_skip, need_b;
    /* onesweep in LSD order, separate pass launches, at least two passes,
     * skipping allowed: the last pass's launch does the finish's work when
     * its pass is skipped, and the plan keeps that pass from being a lone
     * active one (ALLOW_FOLD in radix.cl): no finish launch */
    bool fold;
    bool msd; /* the plan may choose MSD order (serial onesweep, tuning msd) */
    bool tiled; /* MSD order may take the top digit from tiles (tuning tile_min) */
    /* ORDER_ bits: the upfront count checks whether the keys are in order
     * or in reverse order, and the plan may then skip every pass (0: no
     * check) */
    unsigned order;
    /* sizes of the pool slots, bytes */
    size_t keys_bytes, vals_bytes, scratch_words, bases_words, state_words;
    /* word offsets in scratch / bases */
    size_t counts_at, counters_at, lookback_at, hist_at, offsets_at, bits_at, carry_at, chain_at,
        bucket_at, tiled_at, table_at, order_at;
} radix_shape;

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* The CPU shape in MSD order: the bytes of local memory a bucket's passes
 * may use (clsort_radix_buckets): tuning bucket_local, at most three
 * quarters of the device's (PoCL rows: 1.5 MiB, about what a core's L2
 * holds) */
static size_t bucket_local_bytes(const clsort_context *ctx)
{
    const size_t budget = ctx->facts.local_mem_bytes / 4 * 3;
    return budget < ctx->tuning.bucket_local ? budget : ctx->tuning.bucket_local;
}
static size_t pow2ceil(size_t x)
{
    size_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}
static size_t scan_words(unsigned wg) { return pow2ceil(wg) + pow2ceil(wg) / 16 + 1; }
static size_t rank_cnt_words(unsigned wg) { return 16u * wg + wg + 1; }

/* Local memory of the onesweep kernel, mirroring the declarations in
 * radix_onesweep.cl: rank, work-group size, keys per work-item, RADIX, and
 * the bytes of a key, a value (0: none) and an index. */
size_t clsort_onesweep_local_bytes(unsigned rank, unsigned wg, unsigned items, size_t R,
                                   size_t key_bytes, size_t val_bytes, size_t idx_bytes)
{
    size_t tile = (size_t)wg * items;
    switch (rank) {
    case CLSORT_RANK_SERIAL: /* the tile, staged in digit order */
        return tile * (key_bytes + val_bytes);
    case CLSORT_RANK_LOCAL:
        return tile * key_bytes + tile + 2 * tile * 2 + rank_cnt_words(wg) * 2 + R * 8 +
               R * idx_bytes + scan_words(wg) * 4 + 8; /* + the tile's number and the next */
    default: {
        size_t sb = key_bytes > val_bytes ? key_bytes : val_bytes;
        /* the warps' counters (and, for atomic_or, their digit masks) */
        size_t wh_words = (wg / 32) * R * (rank == CLSORT_RANK_ATOMIC_OR ? 2 : 1);
        size_t stage = div_up(tile * sb, 16) * 16, wh = div_up(wh_words * 4, 16) * 16;
        size_t wsum = R % 32 == 0 && R <= wg ? R / 32 * 4 : 0; /* the digit scan's warp sums */
        return (stage > wh ? stage : wh) + R * 8 + R * idx_bytes + scan_words(wg) * 4 + 8 + wsum;
    }
    }
}

/* The kernels' struct of a tile's local memory (os_mem): the tile number
 * and up to 28 bytes of padding (before 16-byte values, and at the end). */
static size_t os_mem_bytes(const radix_shape *s, unsigned items)
{
    return clsort_onesweep_local_bytes(s->rank, s->os_wg, items, s->radix, s->key_bytes,
                                       s->val_bytes, s->idx_bytes) +
           32;
}

/* clsort_radix_single: the tile's memory, or the counts of every pass with
 * the plan's scan, whichever is larger (a union). */
static size_t single_local_bytes(const radix_shape *s)
{
    size_t tile = os_mem_bytes(s, s->os_items);
    size_t plan = scan_words(s->os_wg) * 8 + (size_t)s->max_passes * (s->radix + 1) * 4 + 16;
    return tile > plan ? tile : plan;
}

static size_t cl_local_bytes(const radix_shape *s, unsigned items)
{
    if (s->cl_wg == 1)
        return 0;
    size_t tile = (size_t)s->cl_wg * items, R = s->radix, ib = s->idx_bytes;
    return tile * s->key_bytes + tile + 2 * tile * 2 + rank_cnt_words(s->cl_wg) * 2 + R * 4 +
           2 * R * ib + scan_words(s->cl_wg) * 4;
}

/* segments: the shape of the segments' work-groups (seg_wg, seg_items;
 * never small_items: their tile must hold a whole segment), else of a sort
 * of job->n keys. */
static clsort_status shape_of(clsort_context *ctx, const clsort_radix_job *job, bool segments,
                              radix_shape *s)
{
    const clsort_tuning *t = &ctx->tuning;
    const clsort_device_facts *f = &ctx->facts;
    memset(s, 0, sizeof *s);
    s->r = job->radix_bits ? job->radix_bits
                           : clsort_tuned_radix_bits(t, job->n, job->end_bit - job->begin_bit,
                                                     job->algorithm);
    s->radix = 1u << s->r;
    s->key_bytes = job->key.bytes;
    s->max_passes = (unsigned)div_up(job->key.bytes * 8, s->r);
    s->passes = (unsigned)div_up(job->end_bit - job->begin_bit, s->r);
    s->val_bytes = job->vals ? job->val_bytes : 0;
    s->index64 = job->n > 0xffffffffull;
    s->idx_bytes = s->index64 ? 8 : 4;
    s->algorithm = job->algorithm;
    s->hist_wg = t->hist_wg;
    s->plan_wg = t->plan_wg;
    s->allow_skip = job->n >= t->skip_min;
    s->need_b = s->passes >= 3;
    /* MSD order (serial onesweep) needs three passes (see clsort_plan) */
    s->msd = t->msd && job->algorithm == CLSORT_ALGORITHM_ONESWEEP &&
             t->os_rank == CLSORT_RANK_SERIAL && s->passes >= 3;
    const size_t lmem = f->local_mem_bytes;

    /* Upfront histogram (its local memory is the same for both). */
    if (s->hist_wg > 1 && (size_t)s->max_passes * s->radix * 4 > lmem)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                           "the upfront histogram needs %zu bytes of local memory, the device "
                           "has %zu",
                           (size_t)s->max_passes * s->radix * 4, lmem);

    const size_t R = s->radix, P = s->passes, n = job->n;
    if (s->r > 8 && !((s->algorithm == CLSORT_ALGORITHM_ONESWEEP && t->os_rank == CLSORT_RANK_SERIAL) ||
                      (s->algorithm == CLSORT_ALGORITHM_CLASSIC && t->cl_wg == 1)))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                           "radix_bits %u: digits wider than 8 bits need the CPU shapes "
                           "(os_rank=serial, or classic with cl_wg=1); this device's tuning uses "
                           "work-groups",
                           s->r);
    if (s->algorithm == CLSORT_ALGORITHM_ONESWEEP) {
        s->rank = s->val_bytes && t->os_rank_pairs ? t->os_rank_pairs - 1 : t->os_rank;
        s->lb_batch = s->val_bytes && t->lb_batch_pairs ? t->lb_batch_pairs : t->lb_batch;
        if (!s->lb_batch)
            s->lb_batch = 1;
        s->persist = s->key_bytes == 8 && !s->val_bytes && t->os_persist_wide
                         ? t->os_persist_wide
                         : t->os_persist;
        if (s->rank == CLSORT_RANK_SERIAL)
            s->persist = 0; /* one-work-item groups: the CPU shape has no loop of tiles */
        s->os_wg = s->val_bytes && t->os_wg_pairs ? t->os_wg_pairs : t->os_wg;
        unsigned items = s->val_bytes && t->os_items_pairs ? t->os_items_pairs : t->os_items;
        if (s->key_bytes == 8) { /* the shape for 8-byte keys, where the tuning has one */
            s->os_wg = t->os_wg_wide ? t->os_wg_wide : s->os_wg;
            items = t->os_items_wide ? t->os_items_wide : items;
        }
        /* Large sorts of keys up to 4 bytes, alone or with values up to 4
         * bytes: a larger tile, where there are tiles enough to fill the
         * device (big_min, big_min_pairs; 8-byte values keep their shape,
         * whose local memory is another). */
        const bool pairs = s->val_bytes != 0;
        const unsigned big_min = !pairs ? t->big_min : s->val_bytes <= 4 ? t->big_min_pairs : 0;
        if (!segments && s->key_bytes <= 4 && big_min && job->n >= big_min) {
            const unsigned bw = pairs ? t->big_wg_pairs : t->big_wg;
            const unsigned bi = pairs ? t->big_items_pairs : t->big_items;
            s->os_wg = bw ? bw : s->os_wg;
            items = bi ? bi : items;
        }
        /* Small sorts: fewer keys per work-item, so more and shorter tiles
         * (a lone tile's ranking is a chain of steps per key). */
        if (!segments && t->small_items && job->n <= t->small_items_max && items > t->small_items)
            items = t->small_items;
        /* Segments of keys alone up to 4 bytes: a shape of their own. */
        if (segments && !s->val_bytes && s->key_bytes <= 4) {
            s->os_wg = t->seg_wg ? t->seg_wg : s->os_wg;
            items = t->seg_items ? t->seg_items : items;
        }
        /* Segments (job->n is the longest): a tile just large enough for
         * the longest, since a segment's passes cost its tile's work: half,
         * a quarter ... of the work-group (down to 128 work-items) while
         * that holds it, then as few keys per work-item as hold it, in
         * steps of 4 (H100, 2000 x 4096 u32: 0.50 ms with 512 x 20 tiles,
         * 0.198 with 256 x 20, 0.151 with 256 x 16; 2000 x 2048: 0.115 with
         * 128 x 20, 0.082 with 128 x 16) */
        if (segments && job->n > 0 && s->os_wg >= 32) { /* (work-group shapes) */
            while (s->os_wg >= 256 && s->os_wg % 2 == 0 &&
                   (size_t)(s->os_wg / 2) * items >= job->n)
                s->os_wg /= 2;
            const size_t need = (div_up(job->n, s->os_wg) + 3) / 4 * 4;
            if (need < items)
                items = (unsigned)need;
        }
        /* Fewer keys per work-item until the kernel's local memory fits. */
        while (items > 1 && os_mem_bytes(s, items) > lmem)
            items--;
        if (os_mem_bytes(s, items) > lmem)
            return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                               "the onesweep kernel does not fit the device's %zu bytes of "
                               "local memory (os_wg=%u)",
                               lmem, s->os_wg);
        s->os_items = items;
        s->tile = (size_t)s->os_wg * items;
        size_t limit = PORTION_LIMIT;
        if (t->portion_max && t->portion_max < limit)
            limit = t->portion_max;
        s->portion = (limit / s->tile ? limit / s->tile : 1) * s->tile;
        s->portions = div_up(n, s->portion);
        s->tiles_pp = div_up(n < s->portion ? n : s->portion, s->tile);
        s->counts_at = 0;
        s->counters_at = s->portions * P * R;
        s->bits_at = s->counters_at + P * s->portions; /* 4 words, MSD order */
        s->tiled_at = s->bits_at + BITS_TILE_FLAG; /* 2 words: the tile pass's flag, its tiles */
        s->chain_at = s->tiled_at + 2; /* 1 + P words, clsort_radix_chain */
        s->bucket_at = s->chain_at + 1 + P; /* 1 word: MSD order's next bucket */
        s->order_at = s->bucket_at + 1; /* 1 word: the order flags, where a fill zeroes them */
        /* the look-back areas last, in whole 16-byte words (the upfront
         * count zeroes them: run_upfront), each tile's row starting on a
         * 256-byte boundary: a warp's 32 words then lie in one 128-byte
         * line, where rows 64 bytes off the line straddled two */
        s->lookback_at = div_up(s->order_at + 1, 64) * 64;
        s->scratch_words = s->lookback_at + div_up(P * s->tiles_pp * R, 4) * 4;
        /* MSD order from tiles (clsort_radix_tiles): sorts of tile_min bytes
         * and more that stream their lines (nt_min), in one portion of
         * 32-bit indices, whose buckets, were the keys spread evenly, would
         * take the streamed route through local memory: twice a bucket, or
         * once and its largest sub-bucket where it splits first (the other
         * routes would first gather the bucket from the tiles to memory:
         * pairs at 64M on the PoCL rows do not take the tiles); 8-bit
         * digits only (with 11 bits a bucket's runs are 8 times shorter:
         * on the Xeon-2's row at 32M, u32 keys 125.7 -> 129.0 ms, pairs
         * 198.7 -> 206.9). The table of each tile's digit starts after the
         * look-back areas. */
        const size_t kv = (size_t)s->key_bytes + s->val_bytes, mb = n / R * kv;
        const bool split = s->r == 8 && s->passes == 4 && t->bucket_split &&
                           mb >= t->bucket_split;
        s->tiled = s->msd && s->r == 8 && t->tile_min && t->nt_min && s->portions == 1 &&
                   n <= 0xffffffffu && n * kv >= t->tile_min && n * kv >= t->nt_min &&
                   (split ? mb + mb / 64 : 2 * mb) <= bucket_local_bytes(ctx);
        s->table_at = s->scratch_words;
        if (s->tiled)
            s->scratch_words += s->tiles_pp * R;
        s->carry_at = s->portions * P * R; /* one row: see clsort_radix_carry */
        s->bases_words = s->carry_at + R;
    } else {
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
    }
    s->keys_bytes = n * s->key_bytes;
    s->vals_bytes = n * s->val_bytes;
    s->state_words = ST_PASS((size_t)P);
    return CLSORT_SUCCESS;
}

static clsort_status make_shape(clsort_context *ctx, const clsort_radix_job *job, radix_shape *s)
{
    return shape_of(ctx, job, false, s);
}

/* Words of the sync slot (all zero between sorts): the fused start's
 * sign-off counter, then its running counts, or the counts of every
 * portion where they are kept zero (radix_buffers), then the order flags. */
static size_t sync_words(const radix_shape *s)
{
    return SYNC_COUNTS + s->portions * s->passes * s->radix + 1;
}

static size_t shape_bytes(const radix_shape *s)
{
    size_t b = s->keys_bytes + s->vals_bytes;
    if (s->need_b)
        b += s->keys_bytes + s->vals_bytes;
    b += s->scratch_words * 4 + s->bases_words * s->idx_bytes + s->state_words * 4;
    return s->algorithm == CLSORT_ALGORITHM_ONESWEEP ? b + sync_words(s) * 4 : b;
}

int clsort_radix_last_tiled(clsort_context *ctx)
{
    cl_uint w = 0;
    if (!ctx || !ctx->pool[CLSORT_SLOT_STATE] ||
        clEnqueueReadBuffer(ctx->queue, ctx->pool[CLSORT_SLOT_STATE], CL_TRUE, ST_TILED * sizeof w,
                            sizeof w, &w, 0, NULL, NULL) != CL_SUCCESS)
        return -1;
    return w != 0;
}

int clsort_radix_last_order(clsort_context *ctx)
{
    cl_uint w[ST_PASS(1)]; /* the plan's words up to pass 0's */
    if (!ctx || !ctx->pool[CLSORT_SLOT_STATE] ||
        clEnqueueReadBuffer(ctx->queue, ctx->pool[CLSORT_SLOT_STATE], CL_TRUE, 0, sizeof w, w, 0,
                            NULL, NULL) != CL_SUCCESS)
        return -1;
    if (w[ST_PASS(0) + ST_PASS_ACTIVE] == PASS_REVERSE)
        return 2;
    return w[ST_ACTIVE_PASSES] == 0;
}

clsort_status clsort_radix_temp_bytes(clsort_context *ctx, const clsort_radix_job *job,
                                      size_t *bytes)
{
    radix_shape s;
    CLSORT_TRY(make_shape(ctx, job, &s));
    *bytes = shape_bytes(&s);
    return CLSORT_SUCCESS;
}

static clsort_status get_program(clsort_context *ctx, const radix_shape *s,
                                 const clsort_key_kind *key, clsort_program **prog)
{
    char opts[1024];
    const bool nvidia = ctx->facts.vendor == CLSORT_VENDOR_NVIDIA;
    int len = snprintf(opts, sizeof opts,
                       "-cl-std=CL1.2 -DCLSORT_KEY_BYTES=%u -DCLSORT_KEY_KIND=%u "
                       "-DCLSORT_VAL_BYTES=%u -DCLSORT_INDEX64=%d -DCLSORT_NVIDIA=%d "
                       "-DCLSORT_RADIX_BITS=%u -DCLSORT_HIST_WG=%u -DCLSORT_HIST_ITEMS=%u "
                       "-DCLSORT_PLAN_WG=%u -DCLSORT_NV_SM70=%d",
                       key->bytes, key->kind, s->val_bytes, s->index64 ? 1 : 0, nvidia ? 1 : 0,
                       s->r, s->hist_wg, ctx->tuning.hist_items, s->plan_wg,
                       nvidia && ctx->facts.nv_cc_major >= 7 ? 1 : 0);
    if (s->algorithm == CLSORT_ALGORITHM_ONESWEEP) {
        len += snprintf(opts + len, sizeof opts - (size_t)len,
                        " -DCLSORT_OS_WG=%u -DCLSORT_OS_ITEMS=%u -DCLSORT_OS_RANK=%u"
                        " -DCLSORT_LB_BATCH=%u -DCLSORT_OS_PERSIST=%d",
                        s->os_wg, s->os_items, s->rank, s->lb_batch, s->persist ? 1 : 0);
        if (s->rank == CLSORT_RANK_SERIAL) {
            /* MSD order's buckets up to this many keys pass through local
             * memory (bucket_local_bytes), and buckets from tuning bucket_split bytes split first
             * (CLSORT_IN_SPLIT keys), sorts from tuning nt_min bytes
             * stream their lines (CLSORT_NT_MIN keys; x86-64 builds by
             * clang only); 0: never */
            const size_t split = ctx->tuning.bucket_split, nt = ctx->tuning.nt_min,
                         kv = key->bytes + s->val_bytes;
            len += snprintf(opts + len, sizeof opts - (size_t)len,
                            " -DCLSORT_IN_LOCAL=%zu -DCLSORT_IN_SPLIT=%zu -DCLSORT_NT_MIN=%zu"
                            " -DCLSORT_TILED=%d",
                            bucket_local_bytes(ctx) / kv, split ? (split + kv - 1) / kv : 0,
                            nt ? (nt + kv - 1) / kv : 0, ctx->tuning.tile_min ? 1 : 0);
        }
        if (nvidia && ctx->tuning.nv_maxreg)
            snprintf(opts + len, sizeof opts - (size_t)len, " -cl-nv-maxrregcount=%u",
                     ctx->tuning.nv_maxreg);
        /* the tile's shape (the CPU's serial tile and MSD order, or the
         * GPU's work-group tile) between the look-back and the kernels
         * that run tiles */
        const char *files[] = {"common.cl", "radix_layout.h", "radix.cl", "radix_lookback.cl",
                               s->rank == CLSORT_RANK_SERIAL ? "radix_msd.cl"
                                                             : "radix_onesweep.cl",
                               "radix_passes.cl"};
        return clsort_program_get(ctx, files, 6, opts, prog);
    }
    snprintf(opts + len, sizeof opts - (size_t)len, " -DCLSORT_CL_WG=%u -DCLSORT_CL_ITEMS=%u",
             s->cl_wg, s->cl_items);
    static const char *const files[] = {"common.cl", "radix_layout.h", "radix.cl",
                                        "radix_classic.cl"};
    return clsort_program_get(ctx, files, 4, opts, prog);
}

/* Kernel arguments of index type follow the program variant. */
typedef union idx_arg {
    cl_uint u32;
    cl_ulong u64;
} idx_arg;
static clsort_arg idx_of(const radix_shape *s, idx_arg *a, size_t v)
{
    if (s->index64) {
        a->u64 = v;
        return (clsort_arg){sizeof(cl_ulong), &a->u64};
    }
    a->u32 = (cl_uint)v;
    return (clsort_arg){sizeof(cl_uint), &a->u32};
}

typedef struct radix_buffers {
    cl_mem ku, ka, kb, vu, va, vb, scratch, bases, state;
    /* where the upfront count adds up and the plan reads the counts:
     * scratch at counts_at, zeroed by a fill before the count; or, with
     * counts_kept_zero (onesweep in LSD order), the sync slot at SYNC_COUNTS,
     * all zero between sorts: the plan clears the counts as it reads them,
     * so that no fill is needed (one command less, about 6 us on NVIDIA) */
    cl_mem counts;
    cl_ulong counts_at;
    bool counts_kept_zero;
    /* the order flags: scratch at order_at (zeroed by the fill), or with
     * counts_kept_zero the sync slot's word after the counts (the plan
     * clears it) */
    cl_mem order;
    cl_ulong order_at;
} radix_buffers;

static clsort_status get_buffers(clsort_context *ctx, const clsort_radix_job *job,
                                 const radix_shape *s, radix_buffers *b)
{
    memset(b, 0, sizeof *b);
    b->ku = job->keys;
    b->vu = job->vals;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_KEYS_A, s->keys_bytes, &b->ka));
    b->kb = b->ka;
    if (s->need_b)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_KEYS_B, s->keys_bytes, &b->kb));
    if (s->val_bytes) {
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_VALS_A, s->vals_bytes, &b->va));
        b->vb = b->va;
        if (s->need_b)
            CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_VALS_B, s->vals_bytes, &b->vb));
    }
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_SCRATCH, s->scratch_words * 4, &b->scratch));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BASES, s->bases_words * s->idx_bytes, &b->bases));
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_STATE, s->state_words * 4, &b->state));
    b->counts = b->scratch;
    b->counts_at = s->counts_at;
    b->order = b->scratch;
    b->order_at = s->order_at;
    return CLSORT_SUCCESS;
}

/* The plan's allow_skip argument: bit 0 skips constant digits, bit 1
 * (ALLOW_FOLD) lets the last onesweep launch finish the sort. */
static cl_uint plan_skip(const radix_shape *s)
{
    return (s->allow_skip ? 1u : 0u) | (s->fold ? 2u : 0u);
}

/* Work-groups of the upfront count of len keys: hist_groups per compute
 * unit, fewer where they would have less than one round each. */
static size_t upfront_groups(const clsort_context *ctx, const radix_shape *s, size_t len)
{
    size_t groups = (size_t)ctx->tuning.hist_groups * ctx->facts.compute_units;
    size_t max_groups = div_up(len, (size_t)s->hist_wg * ctx->tuning.hist_items);
    if (groups > max_groups)
        groups = max_groups;
    return groups ? groups : 1;
}

/* Counts passes [p_lo, p_hi) into b->counts; want_bits: also the bits that
 * vary (MSD order's first plan); gated: when the count does nothing (GATE_
 * codes, radix_layout.h); zero_lookback: the launch of the first portion also zeroes the
 * onesweep look-back areas, and with counts kept apart all of scratch (tile
 * counters too; one launch and one pass over memory less than a fill: the
 * stores overlap the count's loads). */
static clsort_status run_upfront(clsort_context *ctx, clsort_program *prog, const clsort_radix_job *job,
                                 const radix_shape *s, const radix_buffers *b, cl_uint p_lo,
                                 cl_uint p_hi, cl_uint want_bits, cl_uint gated,
                                 bool zero_lookback, bool check_order, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_upfront", &k));
    const size_t n = job->n;
    for (size_t q = 0; q < s->portions; q++) {
        size_t start = q * s->portion;
        size_t len = n - start < s->portion ? n - start : s->portion;
        size_t groups = upfront_groups(ctx, s, len);
        size_t chunk = div_up(len, groups);
        cl_ulong koff = job->keys_off + start, coff = b->counts_at + q * s->passes * s->radix;
        cl_uint begin = job->begin_bit, end = job->end_bit, desc = job->descending;
        cl_ulong bits_off = s->bits_at;
        /* lookback_at and scratch_words are whole 16-byte words */
        cl_ulong zero_off = b->counts_kept_zero ? 0 : s->lookback_at, zero_vec = 0;
        if (zero_lookback && q == 0)
            zero_vec = (s->scratch_words - zero_off) / 4;
        /* the order check of a later portion starts at its first key,
         * against the last of the portion before */
        cl_uint order_check = !check_order || !s->order ? 0 : q > 0 ? 2 : 1;
        cl_ulong order_at = b->order_at;
        idx_arg a_len, a_chunk;
        clsort_arg args[] = {CLSORT_ARG(b->ku),      CLSORT_ARG(koff),     idx_of(s, &a_len, len),
                             idx_of(s, &a_chunk, chunk), CLSORT_ARG(p_lo),  CLSORT_ARG(p_hi),
                             CLSORT_ARG(begin),      CLSORT_ARG(end),      CLSORT_ARG(desc),
                             CLSORT_ARG(b->counts),  CLSORT_ARG(coff),     CLSORT_ARG(b->scratch),
                             CLSORT_ARG(bits_off),   CLSORT_ARG(want_bits), CLSORT_ARG(b->state),
                             CLSORT_ARG(gated),      CLSORT_ARG(b->scratch), CLSORT_ARG(zero_off),
                             CLSORT_ARG(zero_vec),   CLSORT_ARG(b->order), CLSORT_ARG(order_at),
                             CLSORT_ARG(order_check)};
        CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_upfront", args, 22));
        CLSORT_TRY(clsort_launch(ctx, k, "clsort_radix_upfront", groups * s->hist_wg, s->hist_wg,
                                 seq));
    }
    return CLSORT_SUCCESS;
}

/* MSD order only where the top digit makes buckets enough (at least 4 per
 * compute unit were none larger) to keep every compute unit busy */
static size_t msd_max_of(const clsort_context *ctx, const clsort_radix_job *job,
                         const radix_shape *s)
{
    if (!s->msd)
        return 0;
    return job->n / (4 * (size_t)(ctx->facts.compute_units ? ctx->facts.compute_units : 1));
}

/* phase: PLAN_ALL, PLAN_TOP, PLAN_PENDING or PLAN_TILES (radix_layout.h) */
static clsort_status run_plan(clsort_context *ctx, clsort_program *prog, const clsort_radix_job *job,
                              const radix_shape *s, const radix_buffers *b, cl_uint phase,
                              clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_plan", &k));
    cl_uint portions = (cl_uint)s->portions, passes = s->passes, skip = plan_skip(s),
            gen = job->gen_index;
    const size_t msd_max = msd_max_of(ctx, job, s);
    cl_uint begin = job->begin_bit, end = job->end_bit, clear = b->counts_kept_zero,
            order = s->order;
    cl_ulong bits_off = s->bits_at, counts_at = b->counts_at, order_at = b->order_at;
    idx_arg a_n, a_msd;
    clsort_arg args[] = {CLSORT_ARG(b->counts),  CLSORT_ARG(counts_at), CLSORT_ARG(portions),
                         CLSORT_ARG(passes),     idx_of(s, &a_n, job->n), CLSORT_ARG(begin),
                         CLSORT_ARG(end),        CLSORT_ARG(skip),     CLSORT_ARG(gen),
                         idx_of(s, &a_msd, msd_max), CLSORT_ARG(phase), CLSORT_ARG(clear),
                         CLSORT_ARG(b->scratch), CLSORT_ARG(bits_off), CLSORT_ARG(b->state),
                         CLSORT_ARG(b->bases),   CLSORT_ARG(b->order), CLSORT_ARG(order_at),
                         CLSORT_ARG(order)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_plan", args, 19));
    return clsort_launch(ctx, k, "clsort_radix_plan", s->plan_wg, s->plan_wg, seq);
}

/* MSD order from tiles (radix_msd.cl, clsort_radix_tiles): the sample
 * that decides whether the tile pass runs, then that pass over U by the top
 * pass's digit, into A, one work-item per tile. */
static clsort_status run_tiles(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel ks, kt;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_sample", &ks));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_tiles", &kt));
    cl_ulong koff = job->keys_off, voff = job->vals_off, flag_off = s->tiled_at,
             bits_off = s->bits_at, table_off = s->table_at,
             counts_off = b->counts_at + (s->passes - 1) * s->radix;
    cl_uint pass = s->passes - 1, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, gen = job->gen_index, len = (cl_uint)job->n;
    idx_arg a_n, a_max;
    cl_uint order_check = s->order != 0;
    clsort_arg sargs[] = {CLSORT_ARG(b->ku),     CLSORT_ARG(koff),  idx_of(s, &a_n, job->n),
                          CLSORT_ARG(pass),      CLSORT_ARG(begin), CLSORT_ARG(end),
                          CLSORT_ARG(desc),      idx_of(s, &a_max, msd_max_of(ctx, job, s)),
                          CLSORT_ARG(b->scratch), CLSORT_ARG(flag_off), CLSORT_ARG(order_check)};
    CLSORT_TRY(clsort_set_args(ctx, ks, "clsort_radix_sample", sargs, 11));
    CLSORT_TRY(clsort_launch(ctx, ks, "clsort_radix_sample", 1, 1, seq));
    clsort_arg targs[] = {CLSORT_ARG(b->ku),      CLSORT_ARG(koff),     CLSORT_ARG(b->ka),
                          CLSORT_ARG(b->vu),      CLSORT_ARG(voff),     CLSORT_ARG(b->va),
                          CLSORT_ARG(len),        CLSORT_ARG(pass),     CLSORT_ARG(begin),
                          CLSORT_ARG(end),        CLSORT_ARG(desc),     CLSORT_ARG(gen),
                          CLSORT_ARG(b->counts),  CLSORT_ARG(counts_off), CLSORT_ARG(b->scratch),
                          CLSORT_ARG(flag_off),   CLSORT_ARG(bits_off), CLSORT_ARG(table_off)};
    CLSORT_TRY(clsort_set_args(ctx, kt, "clsort_radix_tiles", targs, 18));
    return clsort_launch(ctx, kt, "clsort_radix_tiles", s->tiles_pp, 1, seq);
}

static clsort_status run_prologue(clsort_context *ctx, clsort_program *prog,
                                  const clsort_radix_job *job, const radix_shape *s,
                                  const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_prologue", &k));
    cl_ulong koff = job->keys_off;
    cl_ulong zero_from = s->counters_at, zero_words = 0;
    if (s->algorithm == CLSORT_ALGORITHM_ONESWEEP)
        zero_words = s->scratch_words - s->counters_at;
    cl_uint passes = s->passes, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, skip = plan_skip(s), gen = job->gen_index;
    idx_arg a_n;
    clsort_arg args[] = {CLSORT_ARG(b->ku),    CLSORT_ARG(koff),      idx_of(s, &a_n, job->n),
                         CLSORT_ARG(passes),   CLSORT_ARG(begin),     CLSORT_ARG(end),
                         CLSORT_ARG(desc),     CLSORT_ARG(skip),      CLSORT_ARG(gen),
                         CLSORT_ARG(b->scratch), CLSORT_ARG(zero_from), CLSORT_ARG(zero_words),
                         CLSORT_ARG(b->state), CLSORT_ARG(b->bases)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_prologue", args, 14));
    return clsort_launch(ctx, k, "clsort_radix_prologue", s->plan_wg, s->plan_wg, seq);
}

/* The fused start of a one-portion LSD sort (clsort_radix_upfront_plan):
 * the upfront count (which zeroes all of scratch) and the plan in one
 * launch, with the counts in the sync slot (b->counts, kept zero between
 * sorts), after its sign-off word. */
static clsort_status run_upfront_plan(clsort_context *ctx, clsort_program *prog,
                                      const clsort_radix_job *job, const radix_shape *s,
                                      const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_upfront_plan", &k));
    const size_t n = job->n;
    size_t groups = upfront_groups(ctx, s, n);
    idx_arg a_n, a_chunk;
    /* scratch_words is a whole number of 16-byte words */
    cl_ulong koff = job->keys_off, zero_vec = s->scratch_words / 4;
    cl_uint passes = s->passes, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, skip = plan_skip(s), gen = job->gen_index, order = s->order;
    clsort_arg args[] = {CLSORT_ARG(b->ku),      CLSORT_ARG(koff),     idx_of(s, &a_n, n),
                         idx_of(s, &a_chunk, div_up(n, groups)),
                         CLSORT_ARG(passes),     CLSORT_ARG(begin),    CLSORT_ARG(end),
                         CLSORT_ARG(desc),       CLSORT_ARG(skip),     CLSORT_ARG(gen),
                         CLSORT_ARG(b->scratch), CLSORT_ARG(zero_vec), CLSORT_ARG(b->counts),
                         CLSORT_ARG(b->state),   CLSORT_ARG(b->bases), CLSORT_ARG(order)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_upfront_plan", args, 16));
    return clsort_launch(ctx, k, "clsort_radix_upfront_plan", groups * s->hist_wg, s->hist_wg,
                         seq);
}

/* The whole sort of at most one tile in one work-group (clsort_radix_single):
 * counts, plan, passes and finish in one launch. Constant digits are always
 * skipped: here that costs nothing. */
static clsort_status run_single(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_single", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off;
    cl_uint n = (cl_uint)job->n, passes = s->passes, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, gen = job->gen_index;
    clsort_arg args[] = {CLSORT_ARG(b->ku),    CLSORT_ARG(ku_off),  CLSORT_ARG(b->ka),
                         CLSORT_ARG(b->kb),    CLSORT_ARG(b->vu),   CLSORT_ARG(vu_off),
                         CLSORT_ARG(b->va),    CLSORT_ARG(b->vb),   CLSORT_ARG(n),
                         CLSORT_ARG(passes),   CLSORT_ARG(begin),   CLSORT_ARG(end),
                         CLSORT_ARG(desc),     CLSORT_ARG(gen),     CLSORT_ARG(b->scratch),
                         CLSORT_ARG(b->state), CLSORT_ARG(b->bases)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_single", args, 17));
    return clsort_launch(ctx, k, "clsort_radix_single", s->os_wg, s->os_wg, seq);
}

/* One onesweep launch per portion for pass p (pass_arg: p, or MSD_LAUNCH for
 * the pass the plan chooses, which uses pass 0's counters and look-back
 * area: the LSD launches then do nothing). After each portion but the last,
 * clsort_radix_carry sets the carry row to where the next portion's digits
 * start, and the next portion takes its bases from there. */
static clsort_status run_onesweep_pass(clsort_context *ctx, cl_kernel k, cl_kernel kc,
                                       const clsort_radix_job *job, const radix_shape *s,
                                       const radix_buffers *b, cl_uint pass_arg, cl_uint finish,
                                       clsort_seq *seq)
{
    const size_t n = job->n, R = s->radix;
    const cl_uint p = pass_arg == MSD_LAUNCH ? 0 : pass_arg;
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off, carry_off = s->carry_at;
    cl_ulong lb_off = s->lookback_at + (size_t)p * s->tiles_pp * R;
    cl_uint begin = job->begin_bit, end = job->end_bit, desc = job->descending;
    for (size_t q = 0; q < s->portions; q++) {
        size_t start = q * s->portion;
        cl_uint len = (cl_uint)(n - start < s->portion ? n - start : s->portion);
        cl_ulong bases_off = q > 0                     ? carry_off
                             : pass_arg == MSD_LAUNCH ? BASES_OF_PASS
                                                      : (cl_ulong)p * R;
        if (q > 0) /* the pass's look-back area served the previous portion */
            CLSORT_TRY(clsort_fill(ctx, b->scratch, lb_off * 4, s->tiles_pp * R * 4, seq));
        cl_uint counter = (cl_uint)(s->counters_at + p * s->portions + q);
        idx_arg a_start;
        clsort_arg args[] = {CLSORT_ARG(b->ku),      CLSORT_ARG(ku_off),
                             CLSORT_ARG(b->ka),      CLSORT_ARG(b->kb),
                             CLSORT_ARG(b->vu),      CLSORT_ARG(vu_off),
                             CLSORT_ARG(b->va),      CLSORT_ARG(b->vb),
                             idx_of(s, &a_start, start), CLSORT_ARG(len),
                             CLSORT_ARG(pass_arg),   CLSORT_ARG(begin),
                             CLSORT_ARG(end),        CLSORT_ARG(desc),
                             CLSORT_ARG(b->state),   CLSORT_ARG(b->bases),
                             CLSORT_ARG(bases_off),  CLSORT_ARG(b->scratch),
                             CLSORT_ARG(lb_off),     CLSORT_ARG(b->scratch),
                             CLSORT_ARG(counter),    CLSORT_ARG(finish)};
        CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_onesweep", args, 22));
        size_t tiles = div_up(len, s->tile), groups = tiles;
        if (s->persist && (size_t)s->persist * ctx->facts.compute_units < groups)
            groups = (size_t)s->persist * ctx->facts.compute_units;
        CLSORT_TRY(
            clsort_launch(ctx, k, "clsort_radix_onesweep", groups * s->os_wg, s->os_wg, seq));
        if (q + 1 < s->portions) {
            cl_uint last = (cl_uint)(tiles - 1), first = q == 0;
            clsort_arg cargs[] = {CLSORT_ARG(b->state),   CLSORT_ARG(pass_arg),
                                  CLSORT_ARG(first),      CLSORT_ARG(b->scratch),
                                  CLSORT_ARG(lb_off),     CLSORT_ARG(last),
                                  CLSORT_ARG(b->bases),   CLSORT_ARG(carry_off)};
            CLSORT_TRY(clsort_set_args(ctx, kc, "clsort_radix_carry", cargs, 8));
            size_t wg = R < 64 ? R : 64;
            CLSORT_TRY(
                clsort_launch(ctx, kc, "clsort_radix_carry", div_up(R, wg) * wg, wg, seq));
        }
    }
    return CLSORT_SUCCESS;
}

/* Whether every pass runs in one launch (clsort_radix_chain): LSD order,
 * one portion, up to the tuning's chain_max keys. */
static bool chained(const clsort_context *ctx, const clsort_radix_job *job, const radix_shape *s)
{
    return !s->msd && s->portions == 1 && job->n <= ctx->tuning.chain_max &&
           (uint64_t)s->tiles_pp * s->passes <= 0xffffffffull;
}

static clsort_status run_chain(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_chain", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off, lb_off = s->lookback_at,
             chain_off = s->chain_at;
    cl_uint n = (cl_uint)job->n, tiles = (cl_uint)s->tiles_pp, begin = job->begin_bit,
            end = job->end_bit, desc = job->descending;
    clsort_arg args[] = {CLSORT_ARG(b->ku),      CLSORT_ARG(ku_off), CLSORT_ARG(b->ka),
                         CLSORT_ARG(b->kb),      CLSORT_ARG(b->vu),  CLSORT_ARG(vu_off),
                         CLSORT_ARG(b->va),      CLSORT_ARG(b->vb),  CLSORT_ARG(n),
                         CLSORT_ARG(tiles),      CLSORT_ARG(begin),  CLSORT_ARG(end),
                         CLSORT_ARG(desc),       CLSORT_ARG(b->state), CLSORT_ARG(b->bases),
                         CLSORT_ARG(b->scratch), CLSORT_ARG(lb_off), CLSORT_ARG(chain_off)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_chain", args, 18));
    return clsort_launch(ctx, k, "clsort_radix_chain", s->tiles_pp * s->passes * s->os_wg,
                         s->os_wg, seq);
}

/* With s->msd, first MSD order's launches: the top pass, then the buckets
 * (both do nothing when the plan chose LSD order), then the LSD passes
 * (which do nothing when it chose MSD order). */
static clsort_status run_onesweep(clsort_context *ctx, clsort_program *prog,
                                  const clsort_radix_job *job, const radix_shape *s,
                                  const radix_buffers *b, clsort_seq *seq)
{
    if (chained(ctx, job, s))
        return run_chain(ctx, prog, job, s, b, seq);
    cl_kernel k, kc = NULL;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_onesweep", &k));
    if (s->portions > 1)
        CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_carry", &kc));
    if (s->msd) {
        CLSORT_TRY(run_onesweep_pass(ctx, k, kc, job, s, b, MSD_LAUNCH, 0, seq));
        cl_kernel kbk;
        CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_buckets", &kbk));
        cl_ulong ku_off = job->keys_off, vu_off = job->vals_off, next_off = s->bucket_at,
                 table_off = s->table_at;
        cl_uint begin = job->begin_bit, desc = job->descending;
        idx_arg a_n;
        clsort_arg bargs[] = {CLSORT_ARG(b->ku),    CLSORT_ARG(ku_off), CLSORT_ARG(b->ka),
                              CLSORT_ARG(b->kb),    CLSORT_ARG(b->vu),  CLSORT_ARG(vu_off),
                              CLSORT_ARG(b->va),    CLSORT_ARG(b->vb),  idx_of(s, &a_n, job->n),
                              CLSORT_ARG(begin),    CLSORT_ARG(desc),   CLSORT_ARG(b->state),
                              CLSORT_ARG(b->bases), CLSORT_ARG(b->scratch), CLSORT_ARG(next_off),
                              CLSORT_ARG(table_off)};
        CLSORT_TRY(clsort_set_args(ctx, kbk, "clsort_radix_buckets", bargs, 16));
        CLSORT_TRY(clsort_launch(ctx, kbk, "clsort_radix_buckets", s->radix, 1, seq));
    }
    for (cl_uint p = 0; p < s->passes; p++)
        CLSORT_TRY(run_onesweep_pass(ctx, k, kc, job, s, b, p, s->fold && p + 1 == s->passes,
                                     seq));
    return CLSORT_SUCCESS;
}

static clsort_status run_classic(clsort_context *ctx, clsort_program *prog,
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
        idx_arg a_n, a_chunk, a_n2, a_chunk2;
        clsort_arg cargs[] = {CLSORT_ARG(b->ku),  CLSORT_ARG(ku_off), CLSORT_ARG(b->ka),
                              CLSORT_ARG(b->kb),  idx_of(s, &a_n, job->n),
                              idx_of(s, &a_chunk, s->cl_chunk), CLSORT_ARG(p),
                              CLSORT_ARG(begin),  CLSORT_ARG(end), CLSORT_ARG(desc),
                              CLSORT_ARG(b->state), CLSORT_ARG(b->scratch), CLSORT_ARG(hist_off)};
        clsort_arg oargs[] = {CLSORT_ARG(b->scratch), CLSORT_ARG(hist_off), CLSORT_ARG(m),
                              CLSORT_ARG(p), CLSORT_ARG(b->state), CLSORT_ARG(b->bases),
                              CLSORT_ARG(offs_off)};
        clsort_arg sargs[] = {CLSORT_ARG(b->ku),    CLSORT_ARG(ku_off), CLSORT_ARG(b->ka),
                              CLSORT_ARG(b->kb),    CLSORT_ARG(b->vu),  CLSORT_ARG(vu_off),
                              CLSORT_ARG(b->va),    CLSORT_ARG(b->vb),  idx_of(s, &a_n2, job->n),
                              idx_of(s, &a_chunk2, s->cl_chunk), CLSORT_ARG(p),
                              CLSORT_ARG(begin),    CLSORT_ARG(end),    CLSORT_ARG(desc),
                              CLSORT_ARG(b->state), CLSORT_ARG(b->bases), CLSORT_ARG(offs_off)};
        CLSORT_TRY(clsort_set_args(ctx, kc, "clsort_radix_count", cargs, 13));
        CLSORT_TRY(clsort_launch(ctx, kc, "clsort_radix_count", s->cl_groups * s->cl_wg, s->cl_wg,
                                 seq));
        CLSORT_TRY(clsort_set_args(ctx, ko, "clsort_radix_offsets", oargs, 7));
        CLSORT_TRY(clsort_launch(ctx, ko, "clsort_radix_offsets", s->plan_wg, s->plan_wg, seq));
        CLSORT_TRY(clsort_set_args(ctx, ks, "clsort_radix_scatter", sargs, 17));
        CLSORT_TRY(clsort_launch(ctx, ks, "clsort_radix_scatter", s->cl_groups * s->cl_wg, s->cl_wg,
                                 seq));
    }
    return CLSORT_SUCCESS;
}

/* Element-wise kernels (FOR_EACH_CHUNKED): on GPUs groups of 64 that stride
 * through their chunk; on CPUs one work-item per group, so that each walks
 * a contiguous chunk (PoCL runs a group's work-items one after another:
 * strided work-items measured several times slower for a copy). */
static clsort_status launch_elementwise(clsort_context *ctx, cl_kernel k, const char *name,
                                        size_t n, size_t per_item, clsort_seq *seq)
{
    const size_t cu = ctx->facts.compute_units ? ctx->facts.compute_units : 1;
    const size_t wg = ctx->facts.is_cpu ? 1 : 64;
    size_t groups = div_up(n, wg * per_item);
    size_t max_groups = ctx->facts.is_cpu ? 4 * cu : 64 * cu;
    if (groups > max_groups)
        groups = max_groups;
    if (groups == 0)
        groups = 1;
    return clsort_launch(ctx, k, name, groups * wg, wg, seq);
}

static clsort_status run_finish(clsort_context *ctx, clsort_program *prog, const clsort_radix_job *job,
                                const radix_shape *s, const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_finish", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off;
    idx_arg a_n;
    clsort_arg args[] = {CLSORT_ARG(b->ku), CLSORT_ARG(ku_off), CLSORT_ARG(b->ka),
                         CLSORT_ARG(b->vu), CLSORT_ARG(vu_off), CLSORT_ARG(b->va),
                         idx_of(s, &a_n, job->n), CLSORT_ARG(b->state)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_finish", args, 8));
    return launch_elementwise(ctx, k, "clsort_radix_finish", job->n, 16, seq);
}

/* The order check (see radix_shape.order): onesweep sorts from the tuning's
 * order_min keys on, where passes may be skipped, outside the prologue's
 * one work-group. Reversal needs, where neighbours may be equal, integer
 * keys alone over all their
 * bits: equal keys are then identical, so the reversal keeps the sort
 * stable (floats are not: -0.0 and +0.0, and every NaN, sort as equal). */
static unsigned order_mode(const clsort_context *ctx, const clsort_radix_job *job,
                           const radix_shape *s)
{
    const clsort_tuning *t = &ctx->tuning;
    if (!t->order_min || job->n < t->order_min || !s->allow_skip ||
        s->algorithm != CLSORT_ALGORITHM_ONESWEEP ||
        (s->portions == 1 && job->n <= t->prologue_max))
        return 0;
    unsigned mode = ORDER_SORTED | ORDER_REVERSE;
    if (!job->vals && job->key.kind != 2 && job->begin_bit == 0 &&
        job->end_bit == job->key.bytes * 8)
        mode |= ORDER_REVERSE_TIES;
    return mode;
}

clsort_status clsort_radix_sort(clsort_context *ctx, const clsort_radix_job *job, clsort_seq *seq)
{
    if (job->n == 0)
        return CLSORT_SUCCESS;
    radix_shape s;
    CLSORT_TRY(make_shape(ctx, job, &s));
    clsort_program *prog;
    CLSORT_TRY(get_program(ctx, &s, &job->key, &prog));
    radix_buffers b;
    CLSORT_TRY(get_buffers(ctx, job, &s, &b));
    s.fold = s.algorithm == CLSORT_ALGORITHM_ONESWEEP && !s.msd && s.allow_skip &&
             s.passes >= 2 && !chained(ctx, job, &s);
    s.order = order_mode(ctx, job, &s);
    if (s.algorithm == CLSORT_ALGORITHM_ONESWEEP && job->n <= ctx->tuning.single_max &&
        job->n <= s.tile && single_local_bytes(&s) <= ctx->facts.local_mem_bytes)
        return run_single(ctx, prog, job, &s, &b, seq);
    if (s.portions == 1 && job->n <= ctx->tuning.prologue_max &&
        (size_t)s.max_passes * s.radix * 4 + 8192 <= ctx->facts.local_mem_bytes) {
        /* One work-group zeroes, counts and plans: one launch, not three. */
        CLSORT_TRY(run_prologue(ctx, prog, job, &s, &b, seq));
    } else if (s.algorithm == CLSORT_ALGORITHM_ONESWEEP && !s.msd) {
        /* No fill: the counts are kept zero between sorts in the sync slot
         * (radix_buffers), the upfront count zeroes the rest of scratch;
         * up to fused_max keys its last work-group also plans (one launch) */
        CLSORT_TRY(clsort_pool_get_zeroed(ctx, CLSORT_SLOT_SYNC, sync_words(&s) * 4, &b.counts));
        b.counts_at = SYNC_COUNTS;
        b.counts_kept_zero = true;
        b.order = b.counts;
        b.order_at = SYNC_COUNTS + s.portions * s.passes * s.radix;
        clsort_status st;
        if (s.portions == 1 && job->n <= ctx->tuning.fused_max) {
            st = run_upfront_plan(ctx, prog, job, &s, &b, seq);
        } else {
            st = run_upfront(ctx, prog, job, &s, &b, 0, s.passes, 0, GATE_NONE, true, true, seq);
            if (st == CLSORT_SUCCESS)
                st = run_plan(ctx, prog, job, &s, &b, PLAN_ALL, seq);
        }
        if (st != CLSORT_SUCCESS) {
            /* maybe counted but not cleared: the next sort gets a new slot */
            clsort_pool_drop(ctx, CLSORT_SLOT_SYNC);
            return st;
        }
    } else {
        /* Zero the counts, tile counters and MSD words in one fill; the
         * first upfront count zeroes the look-back areas (with tiles the
         * fill does, since that count may not run). */
        const bool onesweep = s.algorithm == CLSORT_ALGORITHM_ONESWEEP;
        size_t zero_words = onesweep ? s.lookback_at : s.portions * s.passes * s.radix;
        if (s.tiled)
            zero_words = s.table_at;
        CLSORT_TRY(clsort_fill(ctx, b.scratch, 0, zero_words * 4, seq));
        if (s.tiled) {
            /* the tile pass counts the top pass and notes the bits where
             * the sample lets it run; the upfront count only where not */
            CLSORT_TRY(run_tiles(ctx, prog, job, &s, &b, seq));
            CLSORT_TRY(run_upfront(ctx, prog, job, &s, &b, s.passes - 1, s.passes, 1,
                                   GATE_UNTILED, false, true, seq));
            CLSORT_TRY(run_plan(ctx, prog, job, &s, &b, PLAN_TILES, seq));
        } else if (s.msd) {
            /* MSD order needs the top pass's counts and which bits vary */
            CLSORT_TRY(run_upfront(ctx, prog, job, &s, &b, s.passes - 1, s.passes, 1, GATE_NONE,
                                   onesweep, true, seq));
            CLSORT_TRY(run_plan(ctx, prog, job, &s, &b, PLAN_TOP, seq));
        }
        if (s.msd) {
            /* the other passes are counted only when that does not decide */
            CLSORT_TRY(run_upfront(ctx, prog, job, &s, &b, 0, s.passes - 1, 0, GATE_PENDING, false,
                                   false, seq));
            CLSORT_TRY(run_plan(ctx, prog, job, &s, &b, PLAN_PENDING, seq));
        } else {
            CLSORT_TRY(run_upfront(ctx, prog, job, &s, &b, 0, s.passes, 0, GATE_NONE, onesweep,
                                   true, seq));
            CLSORT_TRY(run_plan(ctx, prog, job, &s, &b, PLAN_ALL, seq));
        }
    }
    if (s.algorithm == CLSORT_ALGORITHM_ONESWEEP)
        CLSORT_TRY(run_onesweep(ctx, prog, job, &s, &b, seq));
    else
        CLSORT_TRY(run_classic(ctx, prog, job, &s, &b, seq));
    /* The finish kernel only acts when one pass ran (copy back) or none
     * (argsort's identity): possible only with one pass or with skipping;
     * with fold the last pass's launch has done it. */
    if ((s.allow_skip || s.passes == 1) && !s.fold)
        CLSORT_TRY(run_finish(ctx, prog, job, &s, &b, seq));
    return CLSORT_SUCCESS;
}

/* The shape of segments sorted a work-group each: the onesweep shape of a
 * sort as long as the longest segment (its digit width, its tile). */
static clsort_status segment_shape(clsort_context *ctx, const clsort_radix_job *job,
                                   size_t maxlen, radix_shape *s)
{
    clsort_radix_job j = *job;
    j.n = maxlen;
    j.algorithm = CLSORT_ALGORITHM_ONESWEEP;
    return shape_of(ctx, &j, true, s);
}

size_t clsort_radix_segment_tile(clsort_context *ctx, const clsort_radix_job *job, size_t maxlen)
{
    radix_shape s;
    if (segment_shape(ctx, job, maxlen, &s) != CLSORT_SUCCESS) {
        /* the shape does not fit this device: the other paths run, and the
         * call has not failed (public calls start with no message) */
        clsort_clear_error(ctx);
        return 0;
    }
    return s.tile;
}

clsort_status clsort_radix_segments_wg(clsort_context *ctx, const clsort_radix_job *job,
                                       const clsort_seg_desc *seg, clsort_seq *seq)
{
    if (seg->count == 0 || seg->maxlen < 2)
        return CLSORT_SUCCESS;
    radix_shape s;
    CLSORT_TRY(segment_shape(ctx, job, seg->maxlen, &s));
    if (seg->maxlen > s.tile)
        return clsort_fail(ctx, CLSORT_ERROR_INTERNAL,
                           "a segment of %zu elements is longer than the tile (%zu)", seg->maxlen,
                           s.tile);
    clsort_program *prog;
    CLSORT_TRY(get_program(ctx, &s, &job->key, &prog));
    cl_mem ka, va = NULL;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_KEYS_A, job->n * s.key_bytes, &ka));
    if (s.val_bytes)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_VALS_A, job->n * s.val_bytes, &va));
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_segments", &k));
    cl_ulong koff = job->keys_off, voff = job->vals_off, ooff = seg->offsets_off,
             first = seg->first, seg_len = seg->seg_len, n = job->n;
    cl_uint use_off = seg->use_offsets, passes = s.passes, begin = job->begin_bit,
            end = job->end_bit, desc = job->descending, gen = job->gen_index;
    clsort_arg args[] = {CLSORT_ARG(job->keys), CLSORT_ARG(koff),    CLSORT_ARG(ka),
                         CLSORT_ARG(job->vals), CLSORT_ARG(voff),    CLSORT_ARG(va),
                         CLSORT_ARG(seg->offsets), CLSORT_ARG(ooff), CLSORT_ARG(use_off),
                         CLSORT_ARG(first),     CLSORT_ARG(seg_len), CLSORT_ARG(n),
                         CLSORT_ARG(passes),    CLSORT_ARG(begin),   CLSORT_ARG(end),
                         CLSORT_ARG(desc),      CLSORT_ARG(gen)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_radix_segments", args, 17));
    return clsort_launch(ctx, k, "clsort_radix_segments", seg->count * s.os_wg, s.os_wg, seq);
}

/* The gather lives in the radix program of the permutation's type
 * (whatever algorithm made the permutation). */
static clsort_status gather_kernel(clsort_context *ctx, const clsort_radix_job *sort_job,
                                   clsort_radix_job *rj, radix_shape *s, cl_kernel *k)
{
    /* The tuned strategy and digit width, whatever made the permutation:
     * clsort_radix_gather_prepare and the gather then use the same program
     * (a segmented sort settles its algorithm only when it runs). */
    *rj = *sort_job;
    rj->algorithm = ctx->tuning.algorithm;
    rj->radix_bits = ctx->tuning.radix_bits;
    CLSORT_TRY(make_shape(ctx, rj, s));
    clsort_program *prog;
    CLSORT_TRY(get_program(ctx, s, &rj->key, &prog));
    return clsort_program_kernel(ctx, prog, "clsort_gather_records", k);
}

clsort_status clsort_radix_gather_prepare(clsort_context *ctx, const clsort_radix_job *sort_job)
{
    clsort_radix_job rj;
    radix_shape s;
    cl_kernel k;
    return gather_kernel(ctx, sort_job, &rj, &s, &k);
}

clsort_status clsort_radix_gather(clsort_context *ctx, const clsort_radix_job *sort_job,
                                  cl_mem src, size_t src_off_bytes, cl_mem dst, cl_mem perm,
                                  size_t rec_bytes, clsort_seq *seq)
{
    clsort_radix_job rj;
    const clsort_radix_job *job = &rj;
    radix_shape s;
    cl_kernel k;
    CLSORT_TRY(gather_kernel(ctx, sort_job, &rj, &s, &k));
    cl_ulong off = src_off_bytes;
    cl_uint rec = (cl_uint)rec_bytes;
    idx_arg a_n;
    clsort_arg args[] = {CLSORT_ARG(src), CLSORT_ARG(off), CLSORT_ARG(dst), CLSORT_ARG(perm),
                         idx_of(&s, &a_n, job->n), CLSORT_ARG(rec)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_gather_records", args, 6));
    return launch_elementwise(ctx, k, "clsort_gather_records", job->n, 4, seq);
}

clsort_status clsort_radix_reserve(clsort_context *ctx, const clsort_radix_job *job,
                                   size_t records_bytes, size_t perm_bytes)
{
    radix_shape s;
    CLSORT_TRY(make_shape(ctx, job, &s));
    radix_buffers b;
    CLSORT_TRY(get_buffers(ctx, job, &s, &b));
    cl_mem m;
    if (s.algorithm == CLSORT_ALGORITHM_ONESWEEP) /* the fused start's */
        CLSORT_TRY(clsort_pool_get_zeroed(ctx, CLSORT_SLOT_SYNC, sync_words(&s) * 4, &m));
    if (records_bytes)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_RECORDS, records_bytes, &m));
    if (perm_bytes)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_PERM, perm_bytes, &m));
    return CLSORT_SUCCESS;
}

clsort_status clsort_radix_iota(clsort_context *ctx, const clsort_radix_job *sort_job, cl_mem v,
                                clsort_seq *seq)
{
    clsort_radix_job rj = *sort_job;
    if (rj.algorithm != CLSORT_ALGORITHM_ONESWEEP && rj.algorithm != CLSORT_ALGORITHM_CLASSIC) {
        rj.algorithm = ctx->tuning.algorithm;
        rj.radix_bits = ctx->tuning.radix_bits;
    }
    radix_shape s;
    CLSORT_TRY(make_shape(ctx, &rj, &s));
    clsort_program *prog;
    CLSORT_TRY(get_program(ctx, &s, &rj.key, &prog));
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_iota", &k));
    cl_ulong off = 0;
    idx_arg a_n;
    clsort_arg args[] = {CLSORT_ARG(v), CLSORT_ARG(off), idx_of(&s, &a_n, rj.n)};
    CLSORT_TRY(clsort_set_args(ctx, k, "clsort_iota", args, 3));
    return launch_elementwise(ctx, k, "clsort_iota", rj.n, 16, seq);
}

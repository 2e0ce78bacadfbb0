/* radix.c - the radix sort driver's core: shapes, programs, buffers, the
 * upfront count and the plan, the routes, the finish.
 *
 * Two strategies share the upfront histogram, the plan and the finish
 * kernels of radix.cl (onesweep folds the finish into its last pass's
 * launch where it can: radix_shape.fold):
 *   onesweep  one kernel per pass (radix_onesweep.c): ranks a tile, finds
 *             its global offsets by decoupled look-back, writes it out. Reads
 *             and writes the keys once per pass. Needs work-groups that,
 *             once started, keep running (GPUs, PoCL). Its CPU shape may
 *             sort in MSD order (radix_msd.c).
 *   classic   three kernels per pass (radix_classic.c): per-group
 *             histogram, one-group scan, ranked scatter. Runs anywhere.
 * Passes whose digit is the same for every key are skipped on the device
 * (clsort_radix_plan), and the plan routes the passes through the caller's
 * buffer U and temporaries A and B so that the result lands in U.
 */
#include "radix.h"

#include <limits.h>

#include <stdio.h>
#include <string.h>

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
    s->float_keys = job->key.kind == 2;
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

    const size_t P = s->passes, n = job->n;
    const bool cpu_shape =
        (s->algorithm == CLSORT_ALGORITHM_ONESWEEP && t->os_rank == CLSORT_RANK_SERIAL) ||
        (s->algorithm == CLSORT_ALGORITHM_CLASSIC && t->cl_wg == 1);
    if (s->r > 8 && !cpu_shape)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                           "radix_bits %u: digits wider than 8 bits need the CPU shapes "
                           "(os_rank=serial, or classic with cl_wg=1); this device's tuning uses "
                           "work-groups",
                           s->r);
    if (s->algorithm == CLSORT_ALGORITHM_ONESWEEP)
        CLSORT_TRY(radix_onesweep_shape(ctx, job, segments, s));
    else
        CLSORT_TRY(radix_classic_shape(ctx, job, s));
    s->keys_bytes = n * s->key_bytes;
    s->vals_bytes = n * s->val_bytes;
    s->state_words = ST_PASS((size_t)P) + (s->fill ? FILL_TABLE_WORDS((size_t)s->radix) : 0);
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

/* The plan's state word `word` of the context's last radix sort (at most
 * INT_MAX), none to read: -1 (tests; blocks). */
static int last_state_word(clsort_context *ctx, size_t word)
{
    cl_uint w = 0;
    if (!ctx || !ctx->pool[CLSORT_SLOT_STATE] ||
        clEnqueueReadBuffer(ctx->queue, ctx->pool[CLSORT_SLOT_STATE], CL_TRUE, word * sizeof w,
                            sizeof w, &w, 0, NULL, NULL) != CL_SUCCESS)
        return -1;
    return w > INT_MAX ? INT_MAX : (int)w;
}

int clsort_radix_last_tiled(clsort_context *ctx) { return last_state_word(ctx, ST_TILED); }

int clsort_radix_last_msd(clsort_context *ctx)
{
    const int w = last_state_word(ctx, ST_MSD);
    return w > 0 ? 1 : w;
}

int clsort_radix_last_fill(clsort_context *ctx) { return last_state_word(ctx, ST_FILL_KEYS); }

int clsort_radix_last_fill_check(clsort_context *ctx) { return last_state_word(ctx, ST_FILL); }

int clsort_radix_last_few_refused(clsort_context *ctx)
{
    return last_state_word(ctx, ST_FEW_REFUSED);
}

int clsort_radix_last_common(clsort_context *ctx) { return last_state_word(ctx, ST_COMMON); }

int clsort_radix_last_by_set(clsort_context *ctx) { return last_state_word(ctx, ST_BY_SET); }

int clsort_radix_last_by_ranks(clsort_context *ctx) { return last_state_word(ctx, ST_BY_RANKS); }

int clsort_radix_last_shared(clsort_context *ctx) { return last_state_word(ctx, ST_SHARED); }

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
        radix_onesweep_options(ctx, s, key, opts, len, sizeof opts);
        /* the tile's shape (the CPU's serial tile and MSD order, or the
         * GPU's work-group tile) between the look-back and the kernels
         * that run tiles */
        const char *files[] = {"layout.h", "common.cl", "radix_layout.h", "radix.cl",
                               "radix_lookback.cl",
                               s->rank == CLSORT_RANK_SERIAL ? "radix_msd.cl"
                                                             : "radix_onesweep.cl",
                               "radix_passes.cl"};
        return clsort_program_get(ctx, files, sizeof files / sizeof files[0], opts, prog);
    }
    radix_classic_options(s, opts, len, sizeof opts);
    static const char *const files[] = {"layout.h", "common.cl", "radix_layout.h", "radix.cl",
                                        "radix_classic.cl"};
    return clsort_program_get(ctx, files, sizeof files / sizeof files[0], opts, prog);
}

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
static clsort_status run_upfront(clsort_context *ctx, clsort_program *prog,
                                 const clsort_radix_job *job, const radix_shape *s,
                                 const radix_buffers *b, cl_uint p_lo, cl_uint p_hi,
                                 cl_uint want_bits, cl_uint gated,
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
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_upfront, .keys = CLSORT_ARG(b->ku),
                                   .keys_off = CLSORT_ARG(koff), .n = idx_of(s, &a_len, len),
                                   .chunk = idx_of(s, &a_chunk, chunk), .p_lo = CLSORT_ARG(p_lo),
                                   .p_hi = CLSORT_ARG(p_hi), .begin_bit = CLSORT_ARG(begin),
                                   .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                                   .counts = CLSORT_ARG(b->counts), .counts_off = CLSORT_ARG(coff),
                                   .bitwords = CLSORT_ARG(b->scratch),
                                   .bits_off = CLSORT_ARG(bits_off),
                                   .want_bits = CLSORT_ARG(want_bits),
                                   .state = CLSORT_ARG(b->state), .gated = CLSORT_ARG(gated),
                                   .zero = CLSORT_ARG(b->scratch), .zero_off = CLSORT_ARG(zero_off),
                                   .zero_vec = CLSORT_ARG(zero_vec), .order = CLSORT_ARG(b->order),
                                   .order_off = CLSORT_ARG(order_at),
                                   .order_check = CLSORT_ARG(order_check)));
        CLSORT_TRY(clsort_launch(ctx, k, "clsort_radix_upfront", groups * s->hist_wg, s->hist_wg,
                                 seq));
    }
    return CLSORT_SUCCESS;
}

/* phase: PLAN_ALL, PLAN_TOP, PLAN_PENDING or PLAN_TILES (radix_layout.h) */
static clsort_status run_plan(clsort_context *ctx, clsort_program *prog,
                              const clsort_radix_job *job, const radix_shape *s,
                              const radix_buffers *b, cl_uint phase, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_plan", &k));
    cl_uint portions = (cl_uint)s->portions, passes = s->passes, skip = plan_skip(s),
            gen = job->gen_index;
    const size_t msd_max = radix_msd_max(ctx, job, s);
    cl_uint begin = job->begin_bit, end = job->end_bit, clear = b->counts_kept_zero,
            order = s->order, fill = s->fill;
    /* the map's counts (radix_msd.c), in scratch, which holds the counts
     * where the tiles run */
    cl_ulong bits_off = s->bits_at, counts_at = b->counts_at, order_at = b->order_at,
             map_counts = s->tiled && b->counts == b->scratch ? s->map_at + MAP_COUNTS(s->radix)
                                                               : 0;
    idx_arg a_n, a_msd;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_plan, .counts = CLSORT_ARG(b->counts),
                               .counts_off = CLSORT_ARG(counts_at),
                               .portions = CLSORT_ARG(portions), .passes = CLSORT_ARG(passes),
                               .n = idx_of(s, &a_n, job->n), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .allow_skip = CLSORT_ARG(skip),
                               .gen_index = CLSORT_ARG(gen), .msd_max = idx_of(s, &a_msd, msd_max),
                               .phase = CLSORT_ARG(phase), .clear = CLSORT_ARG(clear),
                               .bitwords = CLSORT_ARG(b->scratch), .bits_off = CLSORT_ARG(bits_off),
                               .state = CLSORT_ARG(b->state), .bases = CLSORT_ARG(b->bases),
                               .order = CLSORT_ARG(b->order), .order_off = CLSORT_ARG(order_at),
                               .order_mode = CLSORT_ARG(order),
                               .map_counts_off = CLSORT_ARG(map_counts),
                               .fill = CLSORT_ARG(fill)));
    return clsort_launch(ctx, k, "clsort_radix_plan", s->plan_wg, s->plan_wg, seq);
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
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_prologue, .keys = CLSORT_ARG(b->ku),
                               .keys_off = CLSORT_ARG(koff), .n = idx_of(s, &a_n, job->n),
                               .passes = CLSORT_ARG(passes), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .allow_skip = CLSORT_ARG(skip), .gen_index = CLSORT_ARG(gen),
                               .scratch = CLSORT_ARG(b->scratch),
                               .zero_from = CLSORT_ARG(zero_from),
                               .zero_words = CLSORT_ARG(zero_words), .state = CLSORT_ARG(b->state),
                               .bases = CLSORT_ARG(b->bases)));
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
            desc = job->descending, skip = plan_skip(s), gen = job->gen_index, order = s->order,
            fill = s->fill;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_upfront_plan, .keys = CLSORT_ARG(b->ku),
                               .keys_off = CLSORT_ARG(koff), .n = idx_of(s, &a_n, n),
                               .chunk = idx_of(s, &a_chunk, div_up(n, groups)),
                               .passes = CLSORT_ARG(passes), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .allow_skip = CLSORT_ARG(skip), .gen_index = CLSORT_ARG(gen),
                               .zero = CLSORT_ARG(b->scratch), .zero_vec = CLSORT_ARG(zero_vec),
                               .sync = CLSORT_ARG(b->counts), .state = CLSORT_ARG(b->state),
                               .bases = CLSORT_ARG(b->bases), .order_mode = CLSORT_ARG(order),
                               .fill = CLSORT_ARG(fill)));
    return clsort_launch(ctx, k, "clsort_radix_upfront_plan", groups * s->hist_wg, s->hist_wg,
                         seq);
}

/* The few keys' check (clsort_radix_fill_check), between the plan and the
 * passes: it does nothing unless the plan asked for it (ST_FILL). */
static clsort_status run_fill_check(clsort_context *ctx, clsort_program *prog,
                                    const clsort_radix_job *job, const radix_shape *s,
                                    const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_fill_check", &k));
    const size_t groups = upfront_groups(ctx, s, job->n);
    cl_ulong koff = job->keys_off, voff = job->vals_off, fill_off = s->fill_at;
    cl_uint passes = s->passes, desc = job->descending;
    idx_arg a_n;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_fill_check, .keys = CLSORT_ARG(b->ku),
                               .keys_off = CLSORT_ARG(koff), .vals = CLSORT_ARG(b->vu),
                               .vals_off = CLSORT_ARG(voff), .ka = CLSORT_ARG(b->ka),
                               .va = CLSORT_ARG(b->va), .n = idx_of(s, &a_n, job->n),
                               .passes = CLSORT_ARG(passes), .descending = CLSORT_ARG(desc),
                               .state = CLSORT_ARG(b->state), .bases = CLSORT_ARG(b->bases),
                               .scratch = CLSORT_ARG(b->scratch),
                               .fill_off = CLSORT_ARG(fill_off)));
    return clsort_launch(ctx, k, "clsort_radix_fill_check", groups * s->hist_wg, s->hist_wg,
                         seq);
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

static clsort_status run_finish(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_finish", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off;
    idx_arg a_n;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_finish, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                               .vu = CLSORT_ARG(b->vu), .vu_off = CLSORT_ARG(vu_off),
                               .va = CLSORT_ARG(b->va), .n = idx_of(s, &a_n, job->n),
                               .state = CLSORT_ARG(b->state)));
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
    if (radix_keys_alone_whole(job))
        mode |= ORDER_REVERSE_TIES;
    return mode;
}

/* How a radix sort counts its keys and plans its passes, before the passes
 * run (clsort_radix_sort); each route is justified by its row of the
 * decision log in docs/PERFORMANCE.md, named here. */
typedef enum radix_route {
    /* onesweep, one tile of at most single_max keys: one work-group counts,
     * plans and runs every pass, all in one launch (clsort_radix_single;
     * PoCL rows: "the whole sort of one tile in one work-group") */
    ROUTE_SINGLE,
    /* one portion of at most prologue_max keys: one work-group zeroes,
     * counts and plans, one launch instead of three (clsort_radix_prologue;
     * AMD, Intel and default rows: "one-launch prologue") */
    ROUTE_PROLOGUE,
    /* onesweep in LSD order, one portion of at most fused_max keys: the
     * counts stay zero between sorts, and the count's last work-group
     * plans (clsort_radix_upfront_plan; NVIDIA rows: "the fused start") */
    ROUTE_FUSED,
    /* onesweep in LSD order: the count (the counts kept zero between
     * sorts, no buffer fill), then the plan */
    ROUTE_LSD,
    /* the CPU shape that may sort in MSD order (msd) with the top digit
     * from tiles (tile_min): the sample decides whether the tiles sort by
     * the top digit; the upfront count of the top pass only where they do
     * not (PoCL rows: "MSD order from tiles") */
    ROUTE_MSD_TILES,
    /* the CPU shape that may sort in MSD order (msd): the top pass is
     * counted and planned first, the other passes only where that does not
     * decide (PoCL rows: "MSD order counts only the top pass up front") */
    ROUTE_MSD,
    /* the classic passes: one fill, the count of every pass, the plan */
    ROUTE_CLASSIC,
} radix_route;

static radix_route choose_route(const clsort_context *ctx, const clsort_radix_job *job,
                                const radix_shape *s)
{
    const bool onesweep = s->algorithm == CLSORT_ALGORITHM_ONESWEEP;
    if (onesweep && job->n <= ctx->tuning.single_max && job->n <= s->tile &&
        radix_single_local_bytes(s) <= ctx->facts.local_mem_bytes)
        return ROUTE_SINGLE;
    if (s->portions == 1 && job->n <= ctx->tuning.prologue_max &&
        (size_t)s->max_passes * s->radix * 4 + 8192 <= ctx->facts.local_mem_bytes)
        return ROUTE_PROLOGUE;
    if (onesweep && !s->msd)
        return s->portions == 1 && job->n <= ctx->tuning.fused_max ? ROUTE_FUSED : ROUTE_LSD;
    if (s->tiled)
        return ROUTE_MSD_TILES;
    return s->msd ? ROUTE_MSD : ROUTE_CLASSIC;
}

/* The count and plan of the LSD routes: no buffer fill (clsort_fill), the
 * counts are kept zero between sorts in the sync slot (radix_buffers), the
 * upfront count zeroes the rest of scratch. */
static clsort_status count_and_plan_lsd(clsort_context *ctx, clsort_program *prog,
                                        const clsort_radix_job *job, const radix_shape *s,
                                        radix_buffers *b, radix_route route, clsort_seq *seq)
{
    CLSORT_TRY(clsort_pool_get_zeroed(ctx, CLSORT_SLOT_SYNC, sync_words(s) * 4, &b->counts));
    b->counts_at = SYNC_COUNTS;
    b->counts_kept_zero = true;
    b->order = b->counts;
    b->order_at = SYNC_COUNTS + s->portions * s->passes * s->radix;
    clsort_status st;
    if (route == ROUTE_FUSED) {
        st = run_upfront_plan(ctx, prog, job, s, b, seq);
    } else {
        st = run_upfront(ctx, prog, job, s, b, 0, s->passes, 0, GATE_NONE, true, true, seq);
        if (st == CLSORT_SUCCESS)
            st = run_plan(ctx, prog, job, s, b, PLAN_ALL, seq);
    }
    if (st != CLSORT_SUCCESS) /* maybe counted but not cleared: the next sort gets a new slot */
        clsort_pool_drop(ctx, CLSORT_SLOT_SYNC);
    return st;
}

/* The count and plan of the routes that start with a fill (MSD order and
 * classic): the counts, tile counters and MSD words zeroed in one fill;
 * the first upfront count zeroes the look-back areas (from tiles the fill
 * does, since that count may not run). */
static clsort_status count_and_plan_filled(clsort_context *ctx, clsort_program *prog,
                                           const clsort_radix_job *job, const radix_shape *s,
                                           radix_buffers *b, radix_route route,
                                           clsort_seq *seq)
{
    const bool onesweep = s->algorithm == CLSORT_ALGORITHM_ONESWEEP;
    size_t zero_words = onesweep ? s->lookback_at : s->portions * s->passes * s->radix;
    /* the tiles' route zeroes the look-back areas here, but where the
     * tiles are there to fill (fill_only): there the count that runs
     * zeroes them (the first, unless the tiles ran; else the pending one,
     * should the plan leave the decision to it), as without tiles */
    if (route == ROUTE_MSD_TILES && !s->fill_only)
        zero_words = s->table_at;
    CLSORT_TRY(clsort_fill(ctx, b->scratch, 0, zero_words * 4, seq));
    if (route == ROUTE_CLASSIC) {
        CLSORT_TRY(run_upfront(ctx, prog, job, s, b, 0, s->passes, 0, GATE_NONE, onesweep, true,
                               seq));
        return run_plan(ctx, prog, job, s, b, PLAN_ALL, seq);
    }
    if (route == ROUTE_MSD_TILES) {
        /* the tile pass counts the top pass and notes the bits where the
         * sample lets it run; the upfront count only where not */
        CLSORT_TRY(radix_run_tiles(ctx, prog, job, s, b, seq));
        CLSORT_TRY(run_upfront(ctx, prog, job, s, b, s->passes - 1, s->passes, 1, GATE_UNTILED,
                               s->fill_only, true, seq));
        CLSORT_TRY(run_plan(ctx, prog, job, s, b, PLAN_TILES, seq));
    } else {
        /* MSD order needs the top pass's counts and which bits vary, and
         * the sample whether buckets past the bound are one key each */
        if (route == ROUTE_MSD && radix_samples(job, s))
            CLSORT_TRY(radix_run_sample(ctx, prog, job, s, b, seq));
        CLSORT_TRY(run_upfront(ctx, prog, job, s, b, s->passes - 1, s->passes, 1, GATE_FIRST,
                               onesweep, true, seq));
        CLSORT_TRY(run_plan(ctx, prog, job, s, b, PLAN_TOP, seq));
    }
    /* where the sample found the keys few (TILE_FEW), the check by the
     * set before any count (it does nothing otherwise); where it holds,
     * nothing is left pending */
    if (radix_samples(job, s) && radix_sample_asks_few(ctx, s))
        CLSORT_TRY(run_fill_check(ctx, prog, job, s, b, seq));
    /* the other passes are counted only when that does not decide */
    CLSORT_TRY(run_upfront(ctx, prog, job, s, b, 0, s->passes - 1, 0, GATE_PENDING,
                           route == ROUTE_MSD_TILES && s->fill_only, false, seq));
    return run_plan(ctx, prog, job, s, b, PLAN_PENDING, seq);
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
    const bool chained = radix_chained(ctx, job, &s);
    s.fold = s.algorithm == CLSORT_ALGORITHM_ONESWEEP && !s.msd && s.allow_skip &&
             s.passes >= 2 && !chained;
    s.order = order_mode(ctx, job, &s);
    const radix_route route = choose_route(ctx, job, &s);
    /* the few keys' check: LSD order's own count and plan, or the CPU
     * shape's pending plan (MSD order refused) or, where the sample's keys
     * look few, its first plan; the passes in their own launches */
    if (route == ROUTE_SINGLE || route == ROUTE_PROLOGUE || route == ROUTE_CLASSIC || chained)
        s.fill = 0;
    switch (route) {
    case ROUTE_SINGLE:
        return radix_run_single(ctx, prog, job, &s, &b, seq);
    case ROUTE_PROLOGUE:
        CLSORT_TRY(run_prologue(ctx, prog, job, &s, &b, seq));
        break;
    case ROUTE_FUSED:
    case ROUTE_LSD:
        CLSORT_TRY(count_and_plan_lsd(ctx, prog, job, &s, &b, route, seq));
        break;
    case ROUTE_MSD_TILES:
    case ROUTE_MSD:
    case ROUTE_CLASSIC:
        CLSORT_TRY(count_and_plan_filled(ctx, prog, job, &s, &b, route, seq));
        break;
    }
    if (s.fill)
        CLSORT_TRY(run_fill_check(ctx, prog, job, &s, &b, seq));
    if (s.algorithm == CLSORT_ALGORITHM_ONESWEEP)
        CLSORT_TRY(radix_run_onesweep(ctx, prog, job, &s, &b, seq));
    else
        CLSORT_TRY(radix_run_classic(ctx, prog, job, &s, &b, seq));
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
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_segments, .ku = CLSORT_ARG(job->keys),
                               .ku_off = CLSORT_ARG(koff), .ka = CLSORT_ARG(ka),
                               .vu = CLSORT_ARG(job->vals), .vu_off = CLSORT_ARG(voff),
                               .va = CLSORT_ARG(va), .offsets = CLSORT_ARG(seg->offsets),
                               .offsets_off = CLSORT_ARG(ooff), .use_offsets = CLSORT_ARG(use_off),
                               .first = CLSORT_ARG(first), .seg_len = CLSORT_ARG(seg_len),
                               .n = CLSORT_ARG(n), .passes = CLSORT_ARG(passes),
                               .begin_bit = CLSORT_ARG(begin), .end_bit = CLSORT_ARG(end),
                               .descending = CLSORT_ARG(desc), .gen_index = CLSORT_ARG(gen)));
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
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_gather_records, .src = CLSORT_ARG(src),
                               .src_off = CLSORT_ARG(off), .dst = CLSORT_ARG(dst),
                               .perm = CLSORT_ARG(perm), .n = idx_of(&s, &a_n, job->n),
                               .rec = CLSORT_ARG(rec)));
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
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_iota, .v = CLSORT_ARG(v), .v_off = CLSORT_ARG(off),
                               .n = idx_of(&s, &a_n, rj.n)));
    return launch_elementwise(ctx, k, "clsort_iota", rj.n, 16, seq);
}

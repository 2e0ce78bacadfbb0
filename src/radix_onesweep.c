/* radix_onesweep.c - the onesweep passes (radix_lookback.cl, then the
 * tile's shape, radix_onesweep.cl on GPUs or radix_msd.cl on CPUs, then
 * radix_passes.cl): one kernel per pass ranks a tile, finds its global
 * offsets by decoupled look-back and writes it out, reading and writing the
 * keys once per pass. Needs work-groups that, once started, keep running
 * (GPUs, PoCL). Also the sorts of one tile in one launch
 * (clsort_radix_single) and every pass in one launch (clsort_radix_chain).
 */
#include "radix.h"

#include <stdio.h>

/* Local memory of the onesweep kernel (os_mem; OS_MEM_BYTES, radix_layout.h,
 * less its slack): rank, work-group size, keys per work-item, RADIX, the
 * bytes of a key, a value (0: none) and an index, and whether the keys are
 * floats. */
size_t clsort_onesweep_local_bytes(unsigned rank, unsigned wg, unsigned items, size_t R,
                                   size_t key_bytes, size_t val_bytes, size_t idx_bytes,
                                   bool float_keys)
{
    const size_t w = wg, tile = w * items;
    return OS_MEM_BYTES(rank, w, tile, R, key_bytes, val_bytes, idx_bytes, float_keys ? 1 : 0);
}

/* The kernels' struct of a tile's local memory (os_mem), its padding
 * included. */
static size_t os_mem_bytes(const radix_shape *s, unsigned items)
{
    return clsort_onesweep_local_bytes(s->rank, s->os_wg, items, s->radix, s->key_bytes,
                                       s->val_bytes, s->idx_bytes, s->float_keys) +
           OS_MEM_SLACK;
}

/* clsort_radix_single: the tile's memory, or its plan's (the counts of
 * every pass with the plan's scan), whichever is larger (a union). */
size_t radix_single_local_bytes(const radix_shape *s)
{
    size_t tile = os_mem_bytes(s, s->os_items);
    size_t plan = SINGLE_PLAN_BYTES((size_t)s->os_wg, (size_t)s->max_passes, (size_t)s->radix);
    return tile > plan ? tile : plan;
}

/* The onesweep part of a shape: the tile (work-group size and keys per
 * work-item, by key and value width, size and local memory), the portions,
 * and the words of scratch and bases. */
clsort_status radix_onesweep_shape(clsort_context *ctx, const clsort_radix_job *job,
                                   bool segments, radix_shape *s)
{
    const clsort_tuning *t = &ctx->tuning;
    const size_t lmem = ctx->facts.local_mem_bytes;
    const size_t R = s->radix, P = s->passes, n = job->n;
    s->rank = s->val_bytes && t->os_rank_pairs ? t->os_rank_pairs - 1 : t->os_rank;
    s->lb_batch = s->val_bytes && t->lb_batch_pairs ? t->lb_batch_pairs : t->lb_batch;
    if (!s->lb_batch)
        s->lb_batch = 1;
    /* match.any needs sm_70 */
    s->match_max = s->rank == CLSORT_RANK_ATOMIC_OR && ctx->facts.nv_cc_major >= 7
                       ? t->os_match_max
                       : 0;
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
     * steps of 4 (decision log, segments: "sized tiles") */
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
    s->one_at = s->order_at + 1; /* MSD order's big one-key buckets (ONE_WORDS) */
    /* the few keys' check (LSD order, from fill_min 4-byte keys' worth of
     * bytes on: the check's launch costs the same, wider keys' passes more;
     * clsort_radix_sort keeps it for the routes of separate pass launches):
     * keys alone of an integer type over all their bits (on the CPU shape
     * where MSD order is refused, after the pending plan, or where the
     * sample's keys look few, before any count), and such keys
     * with values on the GPU shape in one portion, sorted in one pass by
     * their ranks where the check holds (FILL_GATE_REMAP) */
    const bool check = t->fill_min && n * s->key_bytes >= (size_t)t->fill_min * 4 &&
                       !segments && P >= 2 && s->allow_skip &&
                       (s->hist_wg > 1 || lmem >= FILL_ONE_LOCAL_BYTES(R));
    s->fill = !check ? 0u
              : radix_keys_alone_whole(job) ? FILL_GATE_KEYS
              : radix_keys_whole(job) && s->rank != CLSORT_RANK_SERIAL && s->portions == 1 &&
                        R <= 256
                  ? FILL_GATE_REMAP
                  : 0u;
    s->fill_at = div_up(s->one_at + (s->msd ? ONE_WORDS(R) : 0), 2) * 2; /* 8-byte keys' slots */
    /* the look-back areas last, in whole 16-byte words (the upfront
     * count zeroes them: run_upfront), each tile's row starting on a
     * 256-byte boundary: a warp's 32 words then lie in one 128-byte
     * line, where rows 64 bytes off the line straddled two */
    s->lookback_at = div_up(s->fill_at + (s->fill ? FILL_SCRATCH_WORDS(R) : 0), 64) * 64;
    s->scratch_words = s->lookback_at + div_up(P * s->tiles_pp * R, 4) * 4;
    /* MSD order's tiles and their table, after the look-back areas */
    radix_msd_shape(ctx, job, s);
    s->carry_at = s->portions * P * R; /* one row: see clsort_radix_carry */
    s->bases_words = s->carry_at + R;
    return CLSORT_SUCCESS;
}

/* The onesweep program's defines; the CPU shape's MSD order adds its own
 * (radix_msd_options). */
int radix_onesweep_options(const clsort_context *ctx, const radix_shape *s,
                           const clsort_key_kind *key, char *opts, int len, size_t size)
{
    len += snprintf(opts + len, size - (size_t)len,
                    " -DCLSORT_OS_WG=%u -DCLSORT_OS_ITEMS=%u -DCLSORT_OS_RANK=%u"
                    " -DCLSORT_LB_BATCH=%u -DCLSORT_OS_PERSIST=%d",
                    s->os_wg, s->os_items, s->rank, s->lb_batch, s->persist ? 1 : 0);
    if (s->match_max)
        len += snprintf(opts + len, size - (size_t)len, " -DCLSORT_OS_MATCH_MAX=%u", s->match_max);
    if (s->rank == CLSORT_RANK_SERIAL)
        len = radix_msd_options(ctx, s, key, opts, len, size);
    return len;
}

/* The whole sort of at most one tile in one work-group (clsort_radix_single):
 * counts, plan, passes and finish in one launch. Constant digits are always
 * skipped: here that costs nothing. */
clsort_status radix_run_single(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_single", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off;
    cl_uint n = (cl_uint)job->n, passes = s->passes, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, gen = job->gen_index;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_single, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                               .kb = CLSORT_ARG(b->kb), .vu = CLSORT_ARG(b->vu),
                               .vu_off = CLSORT_ARG(vu_off), .va = CLSORT_ARG(b->va),
                               .vb = CLSORT_ARG(b->vb), .n = CLSORT_ARG(n),
                               .passes = CLSORT_ARG(passes), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .gen_index = CLSORT_ARG(gen), .counts = CLSORT_ARG(b->scratch),
                               .state = CLSORT_ARG(b->state), .bases = CLSORT_ARG(b->bases)));
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
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_onesweep, .ku = CLSORT_ARG(b->ku),
                                   .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                                   .kb = CLSORT_ARG(b->kb), .vu = CLSORT_ARG(b->vu),
                                   .vu_off = CLSORT_ARG(vu_off), .va = CLSORT_ARG(b->va),
                                   .vb = CLSORT_ARG(b->vb),
                                   .portion_start = idx_of(s, &a_start, start),
                                   .portion_len = CLSORT_ARG(len), .pass_arg = CLSORT_ARG(pass_arg),
                                   .begin_bit = CLSORT_ARG(begin), .end_bit = CLSORT_ARG(end),
                                   .descending = CLSORT_ARG(desc), .state = CLSORT_ARG(b->state),
                                   .bases = CLSORT_ARG(b->bases),
                                   .bases_off = CLSORT_ARG(bases_off),
                                   .lookback = CLSORT_ARG(b->scratch), .lb_off = CLSORT_ARG(lb_off),
                                   .tile_counter = CLSORT_ARG(b->scratch),
                                   .counter_idx = CLSORT_ARG(counter),
                                   .finish = CLSORT_ARG(finish)));
        size_t tiles = div_up(len, s->tile), groups = tiles;
        if (s->persist && (size_t)s->persist * ctx->facts.compute_units < groups)
            groups = (size_t)s->persist * ctx->facts.compute_units;
        CLSORT_TRY(
            clsort_launch(ctx, k, "clsort_radix_onesweep", groups * s->os_wg, s->os_wg, seq));
        if (q + 1 < s->portions) {
            cl_uint last = (cl_uint)(tiles - 1), first = q == 0;
            CLSORT_TRY(CLSORT_SET_ARGS(ctx, kc, clsort_radix_carry, .state = CLSORT_ARG(b->state),
                                       .pass_arg = CLSORT_ARG(pass_arg), .first = CLSORT_ARG(first),
                                       .lookback = CLSORT_ARG(b->scratch),
                                       .lb_off = CLSORT_ARG(lb_off), .last_tile = CLSORT_ARG(last),
                                       .bases = CLSORT_ARG(b->bases),
                                       .carry_off = CLSORT_ARG(carry_off)));
            size_t wg = R < 64 ? R : 64;
            CLSORT_TRY(
                clsort_launch(ctx, kc, "clsort_radix_carry", div_up(R, wg) * wg, wg, seq));
        }
    }
    return CLSORT_SUCCESS;
}

/* Whether every pass runs in one launch (clsort_radix_chain): LSD order,
 * one portion, up to the tuning's chain_max keys. */
bool radix_chained(const clsort_context *ctx, const clsort_radix_job *job, const radix_shape *s)
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
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_chain, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                               .kb = CLSORT_ARG(b->kb), .vu = CLSORT_ARG(b->vu),
                               .vu_off = CLSORT_ARG(vu_off), .va = CLSORT_ARG(b->va),
                               .vb = CLSORT_ARG(b->vb), .n = CLSORT_ARG(n),
                               .tiles = CLSORT_ARG(tiles), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .state = CLSORT_ARG(b->state), .bases = CLSORT_ARG(b->bases),
                               .scratch = CLSORT_ARG(b->scratch), .lb_off = CLSORT_ARG(lb_off),
                               .chain_off = CLSORT_ARG(chain_off)));
    return clsort_launch(ctx, k, "clsort_radix_chain", s->tiles_pp * s->passes * s->os_wg,
                         s->os_wg, seq);
}

/* With s->msd, first MSD order's launches: the top pass, the copy of the
 * sample's big one-key buckets, then the buckets (all do nothing when the
 * plan chose LSD order), then the LSD passes (which do nothing when it
 * chose MSD order). */
clsort_status radix_run_onesweep(clsort_context *ctx, clsort_program *prog,
                                 const clsort_radix_job *job, const radix_shape *s,
                                 const radix_buffers *b, clsort_seq *seq)
{
    if (radix_chained(ctx, job, s))
        return run_chain(ctx, prog, job, s, b, seq);
    cl_kernel k, kc = NULL;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_onesweep", &k));
    if (s->portions > 1)
        CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_carry", &kc));
    if (s->msd) {
        CLSORT_TRY(run_onesweep_pass(ctx, k, kc, job, s, b, MSD_LAUNCH, 0, seq));
        /* where the sample ran: its big one-key buckets (if any) */
        if (radix_samples(job, s))
            CLSORT_TRY(radix_run_one_copy(ctx, prog, job, s, b, seq));
        CLSORT_TRY(radix_run_buckets(ctx, prog, job, s, b, seq));
    }
    for (cl_uint p = 0; p < s->passes; p++)
        CLSORT_TRY(run_onesweep_pass(ctx, k, kc, job, s, b, p, s->fold && p + 1 == s->passes,
                                     seq));
    return CLSORT_SUCCESS;
}

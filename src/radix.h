/* radix.h - what the radix sort's host files share: radix.c, the core
 * (shapes, programs, buffers, the upfront count and the plan, the routes,
 * the finish), and one file per shape of the passes: radix_onesweep.c (the
 * onesweep passes, the GPU's work-group tile and the CPU's serial tile),
 * radix_msd.c (the CPU shape's MSD order) and radix_classic.c (the classic
 * passes). radix_layout.h, shared with the kernels, holds the words of the
 * plan's state, the codes of passes, launches and plan phases, and the
 * onesweep tile's local memory.
 */
#ifndef CLSORT_RADIX_H
#define CLSORT_RADIX_H

#include "internal.h"
#include "kernels/radix_layout.h"

/* Look-back counts are 30 bits: portions stay below 2^30 keys. */
#define PORTION_LIMIT ((1u << 30) - 1u)

typedef struct radix_shape {
    unsigned r, radix, passes, max_passes;
    unsigned algorithm, rank;
    unsigned key_bytes, val_bytes, idx_bytes;
    bool float_keys;
    bool index64;
    /* onesweep */
    unsigned os_wg, os_items, lb_batch;
    unsigned match_max; /* atomic_or ranking: match.any for tiles of so few digits */
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
    /* the tiles only where they count few distinct values, each bucket
     * written from its key (TILE_FILL), or (1) where the sample finds big
     * buckets of one key or two: buckets of an even spread would not take
     * the streamed route; (2) with 11-bit digits, whose runs in the tiles
     * would be too short (0: the tiles for every input) */
    unsigned fill_only;
    /* ORDER_ bits: the upfront count checks whether the keys are in order
     * or in reverse order, and the plan may then skip every pass (0: no
     * check) */
    unsigned order;
    /* the few keys' check may run, and what it may do where it holds
     * (FILL_GATE_KEYS, FILL_GATE_REMAP; 0: no check; tuning fill_min;
     * clsort_plan's fill_gate, clsort_radix_fill_check) */
    unsigned fill;
    /* sizes of the pool slots, bytes */
    size_t keys_bytes, vals_bytes, scratch_words, bases_words, state_words;
    /* word offsets in scratch / bases */
    size_t counts_at, counters_at, lookback_at, hist_at, offsets_at, bits_at, carry_at, chain_at,
        bucket_at, tiled_at, table_at, order_at, one_at, map_at, fill_at, share_at;
} radix_shape;

typedef struct radix_buffers {
    cl_mem ku, ka, kb, vu, va, vb, scratch, bases, state;
    /* where the upfront count adds up and the plan reads the counts:
     * scratch at counts_at, zeroed by a fill before the count; or, with
     * counts_kept_zero (onesweep in LSD order), the sync slot at SYNC_COUNTS,
     * all zero between sorts: the plan clears the counts as it reads them,
     * so that no fill is needed (one command less) */
    cl_mem counts;
    cl_ulong counts_at;
    bool counts_kept_zero;
    /* the order flags: scratch at order_at (zeroed by the fill), or with
     * counts_kept_zero the sync slot's word after the counts (the plan
     * clears it) */
    cl_mem order;
    cl_ulong order_at;
} radix_buffers;

/* Kernel arguments of index type follow the program variant. */
typedef union idx_arg {
    cl_uint u32;
    cl_ulong u64;
} idx_arg;
/* Keys of an integer type sorted by all their bits: keys that sort alike
 * are one bit pattern. */
static inline bool radix_keys_whole(const clsort_radix_job *job)
{
    return job->key.kind != 2 && job->begin_bit == 0 && job->end_bit == job->key.bytes * 8;
}
/* ...and alone: equal keys may trade places, and a key can be written from
 * its order key. */
static inline bool radix_keys_alone_whole(const clsort_radix_job *job)
{
    return !job->vals && radix_keys_whole(job);
}

static inline clsort_arg idx_of(const radix_shape *s, idx_arg *a, size_t v)
{
    if (s->index64) {
        a->u64 = v;
        return (clsort_arg){sizeof(cl_ulong), &a->u64};
    }
    a->u32 = (cl_uint)v;
    return (clsort_arg){sizeof(cl_uint), &a->u32};
}

/* ---- radix_onesweep.c: the onesweep passes */

/* The onesweep part of a shape (segments: the segments' work-groups), its
 * scratch layout, and MSD order's (radix_msd_shape). */
clsort_status radix_onesweep_shape(clsort_context *ctx, const clsort_radix_job *job,
                                   bool segments, radix_shape *s);
/* Appends the onesweep program's defines to opts (len used of size);
 * returns the new length. */
int radix_onesweep_options(const clsort_context *ctx, const radix_shape *s,
                           const clsort_key_kind *key, char *opts, int len, size_t size);
/* Local memory of clsort_radix_single for the shape. */
size_t radix_single_local_bytes(const radix_shape *s);
/* Whether every pass runs in one launch (clsort_radix_chain). */
bool radix_chained(const clsort_context *ctx, const clsort_radix_job *job, const radix_shape *s);
clsort_status radix_run_single(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq);
/* The passes (with s->msd first MSD order's top pass and buckets). */
clsort_status radix_run_onesweep(clsort_context *ctx, clsort_program *prog,
                                 const clsort_radix_job *job, const radix_shape *s,
                                 const radix_buffers *b, clsort_seq *seq);

/* ---- radix_msd.c: MSD order (the CPU shape) */

/* Decides s->tiled and places the tiles' table in scratch. */
void radix_msd_shape(const clsort_context *ctx, const clsort_radix_job *job, radix_shape *s);
int radix_msd_options(const clsort_context *ctx, const radix_shape *s,
                      const clsort_key_kind *key, char *opts, int len, size_t size);
/* The plan's bound on a bucket (0: LSD order only). */
size_t radix_msd_max(const clsort_context *ctx, const clsort_radix_job *job,
                     const radix_shape *s);
/* Whether MSD order's sample, where it runs, may find the keys few
 * (TILE_FEW): the shape allows the few keys' check, and the tuning and the
 * device's local memory the sample's estimate */
bool radix_sample_asks_few(const clsort_context *ctx, const radix_shape *s);
clsort_status radix_run_sample(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq);
/* MSD order without tiles samples the input from this many keys on: the
 * sample's launch then costs little against the sort */
#define RADIX_SAMPLE_MIN ((size_t)1 << 20)
/* Whether a sort of this shape in MSD order runs the sample (from tiles
 * always, else from RADIX_SAMPLE_MIN keys on): where it does, its big
 * one-key buckets must be copied (clsort_radix_one_copy) before the buckets'
 * launch, which skips them. */
static inline bool radix_samples(const clsort_radix_job *job, const radix_shape *s)
{
    return s->msd && (s->tiled || job->n >= RADIX_SAMPLE_MIN);
}
clsort_status radix_run_tiles(clsort_context *ctx, clsort_program *prog,
                              const clsort_radix_job *job, const radix_shape *s,
                              const radix_buffers *b, clsort_seq *seq);
clsort_status radix_run_one_copy(clsort_context *ctx, clsort_program *prog,
                                 const clsort_radix_job *job, const radix_shape *s,
                                 const radix_buffers *b, clsort_seq *seq);
clsort_status radix_run_buckets(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq);

/* ---- radix_classic.c: the classic passes */

clsort_status radix_classic_shape(clsort_context *ctx, const clsort_radix_job *job,
                                  radix_shape *s);
int radix_classic_options(const radix_shape *s, char *opts, int len, size_t size);
clsort_status radix_run_classic(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq);

#endif

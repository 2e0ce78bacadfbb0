/* radix_msd.c - MSD order, the CPU shape's (radix_msd.cl): the top digit's
 * pass puts each digit's keys into one bucket (or the tiles sort
 * themselves by the top digit, with no upfront count: clsort_radix_tiles),
 * then one work-item sorts each bucket by the lower digits in cache
 * (clsort_radix_buckets). The plan (radix.cl) chooses MSD order where the
 * top digit makes buckets enough; else the LSD passes run.
 */
#include "radix.h"

#include <stdio.h>

/* The CPU shape in MSD order: the bytes of local memory a bucket's passes
 * may use (clsort_radix_buckets): tuning bucket_local, at most three
 * quarters of the device's (PoCL rows: 1.5 MiB, about what a core's L2
 * holds) */
static size_t bucket_local_bytes(const clsort_context *ctx)
{
    const size_t budget = ctx->facts.local_mem_bytes / 4 * 3;
    return budget < ctx->tuning.bucket_local ? budget : ctx->tuning.bucket_local;
}

/* MSD order's part of a onesweep shape (s->msd: the plan may choose it):
 * whether the top digit comes from tiles, and their table in scratch. */
void radix_msd_shape(const clsort_context *ctx, const clsort_radix_job *job, radix_shape *s)
{
    const clsort_tuning *t = &ctx->tuning;
    const size_t R = s->radix, n = job->n;
    /* MSD order from tiles (clsort_radix_tiles): sorts of tile_min bytes
     * and more that stream their lines (nt_min), in one portion of
     * 32-bit indices, whose buckets, were the keys spread evenly, would
     * take the streamed route through local memory: twice a bucket, or
     * once and its largest sub-bucket where it splits first (the other
     * routes would first gather the bucket from the tiles to memory:
     * pairs at 64M on the PoCL rows do not take the tiles); 8-bit
     * digits only (with 11 bits a bucket's runs are 8 times shorter, and
     * the tiles measured slower: decision log, CPU), but for the fill
     * below. The table of each tile's digit starts after the look-back
     * areas. */
    const size_t kv = (size_t)s->key_bytes + s->val_bytes, mb = n / R * kv;
    const bool split = s->r == 8 && s->passes == 4 && t->bucket_split &&
                       mb >= t->bucket_split;
    const bool tiles = s->msd && t->tile_min && t->nt_min && s->portions == 1 &&
                       n <= 0xffffffffu && n * kv >= t->tile_min && n * kv >= t->nt_min;
    const bool streamed = (split ? mb + mb / 64 : 2 * mb) <= bucket_local_bytes(ctx);
    /* Few distinct values written from their keys (TILE_FILL) need no
     * bucket in local memory and no runs: keys alone of an integer type
     * of 4 or 8 bytes, sorted by all their bits, take the tiles for that
     * alone where the buckets of an even spread would not stream, and
     * with 11-bit digits */
    const bool fill = radix_keys_alone_whole(job) && job->key.bytes >= 4;
    s->tiled = tiles && (s->r == 8 ? streamed || fill : fill);
    s->fill_only = !s->tiled ? 0u : s->r != 8 ? 2u : streamed ? 0u : 1u;
    s->table_at = s->scratch_words;
    if (s->tiled && s->fill_only != 2) /* tiles that fill alone sort nothing */
        s->scratch_words += s->tiles_pp * R;
    /* the sample's map of skewed top digits (MAP_WORDS), after the table */
    s->map_at = s->scratch_words;
    if (s->tiled)
        s->scratch_words += MAP_WORDS(R);
    /* the shared buckets' tables (SHARE_WORDS), in whole 16-byte words */
    s->share_at = s->scratch_words;
    if (s->msd)
        s->scratch_words += (SHARE_WORDS + 3) / 4 * 4;
}

/* The sample's estimate of few keys (tuning sample_few; TILE_FEW): where
 * the device's local memory holds its table */
static bool radix_sample_few(const clsort_context *ctx)
{
    return ctx->tuning.sample_few && ctx->facts.local_mem_bytes >= FEW_LOCAL_BYTES;
}

bool radix_sample_asks_few(const clsort_context *ctx, const radix_shape *s)
{
    return s->fill && radix_sample_few(ctx);
}

/* The CPU shape's defines: MSD order's buckets of up to CLSORT_IN_LOCAL
 * keys pass through local memory (bucket_local_bytes), buckets from tuning
 * bucket_split bytes split first (CLSORT_IN_SPLIT keys), sorts from tuning
 * nt_min bytes stream their lines (CLSORT_NT_MIN keys; x86-64 builds by
 * clang only), the top digit may come from tiles (CLSORT_TILED), and the
 * sample may estimate the distinct keys (CLSORT_SAMPLE_FEW: radix_sample_few);
 * 0: never. */
int radix_msd_options(const clsort_context *ctx, const radix_shape *s,
                      const clsort_key_kind *key, char *opts, int len, size_t size)
{
    const size_t split = ctx->tuning.bucket_split, nt = ctx->tuning.nt_min,
                 kv = key->bytes + s->val_bytes;
    return len + snprintf(opts + len, size - (size_t)len,
                          " -DCLSORT_IN_LOCAL=%zu -DCLSORT_IN_SPLIT=%zu -DCLSORT_NT_MIN=%zu"
                          " -DCLSORT_TILED=%d -DCLSORT_SAMPLE_FEW=%d",
                          bucket_local_bytes(ctx) / kv, split ? (split + kv - 1) / kv : 0,
                          nt ? (nt + kv - 1) / kv : 0, ctx->tuning.tile_min ? 1 : 0,
                          radix_sample_few(ctx) ? 1 : 0);
}

/* MSD order only where the top digit makes buckets enough to keep every
 * compute unit busy: none larger than tuning msd_bound sixteenths of a
 * compute unit's share (by default a quarter: 4 buckets per unit) */
size_t radix_msd_max(const clsort_context *ctx, const clsort_radix_job *job,
                     const radix_shape *s)
{
    if (!s->msd)
        return 0;
    const size_t units = ctx->facts.compute_units ? ctx->facts.compute_units : 1;
    const size_t sixteenths = ctx->tuning.msd_bound ? ctx->tuning.msd_bound : 4;
    return (size_t)((double)job->n * (double)sixteenths / (16.0 * (double)units));
}

/* The sample of MSD order (radix_msd.cl, clsort_radix_sample): whether the
 * tile pass runs, and whether buckets past the plan's bound look like one
 * key each (few distinct values). */
clsort_status radix_run_sample(clsort_context *ctx, clsort_program *prog,
                               const clsort_radix_job *job, const radix_shape *s,
                               const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel ks;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_sample", &ks));
    /* the map only where the tile pass may use it */
    cl_ulong koff = job->keys_off, flag_off = s->tiled_at, one_off = s->one_at,
             map_off = s->tiled ? s->map_at : 0;
    cl_uint pass = s->passes - 1, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, fill_only = s->fill_only,
            few = radix_sample_asks_few(ctx, s);
    idx_arg a_n, a_max;
    cl_uint order_check = s->order != 0;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, ks, clsort_radix_sample, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(koff), .n = idx_of(s, &a_n, job->n),
                               .pass = CLSORT_ARG(pass), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .msd_max = idx_of(s, &a_max, radix_msd_max(ctx, job, s)),
                               .scratch = CLSORT_ARG(b->scratch), .flag_off = CLSORT_ARG(flag_off),
                               .order_check = CLSORT_ARG(order_check),
                               .one_off = CLSORT_ARG(one_off), .map_off = CLSORT_ARG(map_off),
                               .fill_only = CLSORT_ARG(fill_only), .few = CLSORT_ARG(few)));
    return clsort_launch(ctx, ks, "clsort_radix_sample", 1, 1, seq);
}

/* MSD order from tiles (clsort_radix_tiles): the sample, then the tile
 * pass over U by the top pass's digit, into A, one work-item per tile. */
clsort_status radix_run_tiles(clsort_context *ctx, clsort_program *prog,
                              const clsort_radix_job *job, const radix_shape *s,
                              const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel kt;
    CLSORT_TRY(radix_run_sample(ctx, prog, job, s, b, seq));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_tiles", &kt));
    cl_ulong koff = job->keys_off, voff = job->vals_off, flag_off = s->tiled_at,
             bits_off = s->bits_at, table_off = s->table_at, map_off = s->map_at,
             one_off = s->one_at, counts_off = b->counts_at + (s->passes - 1) * s->radix;
    cl_uint pass = s->passes - 1, begin = job->begin_bit, end = job->end_bit,
            desc = job->descending, gen = job->gen_index, len = (cl_uint)job->n;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, kt, clsort_radix_tiles, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(koff), .ka = CLSORT_ARG(b->ka),
                               .vu = CLSORT_ARG(b->vu), .vu_off = CLSORT_ARG(voff),
                               .va = CLSORT_ARG(b->va), .len = CLSORT_ARG(len),
                               .pass = CLSORT_ARG(pass), .begin_bit = CLSORT_ARG(begin),
                               .end_bit = CLSORT_ARG(end), .descending = CLSORT_ARG(desc),
                               .gen = CLSORT_ARG(gen), .counts = CLSORT_ARG(b->counts),
                               .counts_off = CLSORT_ARG(counts_off),
                               .scratch = CLSORT_ARG(b->scratch), .flag_off = CLSORT_ARG(flag_off),
                               .bits_off = CLSORT_ARG(bits_off),
                               .table_off = CLSORT_ARG(table_off),
                               .map_off = CLSORT_ARG(map_off), .one_off = CLSORT_ARG(one_off)));
    return clsort_launch(ctx, kt, "clsort_radix_tiles", s->tiles_pp, 1, seq);
}

/* The buckets of MSD order (clsort_radix_buckets), after the top pass's
 * launch: one work-item per bucket, and the shared buckets' chunks; does
 * nothing when the plan chose LSD order. */
clsort_status radix_run_buckets(clsort_context *ctx, clsort_program *prog,
                                const clsort_radix_job *job, const radix_shape *s,
                                const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel kbk;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_buckets", &kbk));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off, next_off = s->bucket_at,
             table_off = s->table_at, one_off = s->one_at, map_off = s->map_at,
             share_off = s->share_at;
    cl_uint begin = job->begin_bit, end = job->end_bit, desc = job->descending;
    idx_arg a_n;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, kbk, clsort_radix_buckets, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                               .kb = CLSORT_ARG(b->kb), .vu = CLSORT_ARG(b->vu),
                               .vu_off = CLSORT_ARG(vu_off), .va = CLSORT_ARG(b->va),
                               .vb = CLSORT_ARG(b->vb), .n = idx_of(s, &a_n, job->n),
                               .begin_bit = CLSORT_ARG(begin), .end_bit = CLSORT_ARG(end),
                               .descending = CLSORT_ARG(desc),
                               .state = CLSORT_ARG(b->state), .bases = CLSORT_ARG(b->bases),
                               .next = CLSORT_ARG(b->scratch), .next_off = CLSORT_ARG(next_off),
                               .table_off = CLSORT_ARG(table_off), .one_off = CLSORT_ARG(one_off),
                               .map_off = CLSORT_ARG(map_off),
                               .share_off = CLSORT_ARG(share_off)));
    /* and two work-items a compute unit for the shared buckets' chunks:
     * the kernel takes every group past RADIX for them */
    const size_t units = ctx->facts.compute_units ? ctx->facts.compute_units : 1;
    return clsort_launch(ctx, kbk, "clsort_radix_buckets", s->radix + 2 * units, 1, seq);
}

/* MSD order's big one-key buckets (clsort_radix_one_copy), after the top
 * pass's launch, before the buckets: copied by two work-items a compute
 * unit, chunk by chunk, and the shared buckets' chunks counted; does
 * nothing without them. */
clsort_status radix_run_one_copy(clsort_context *ctx, clsort_program *prog,
                                 const clsort_radix_job *job, const radix_shape *s,
                                 const radix_buffers *b, clsort_seq *seq)
{
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_radix_one_copy", &k));
    cl_ulong ku_off = job->keys_off, vu_off = job->vals_off, one_off = s->one_at,
             table_off = s->table_at, share_off = s->share_at;
    cl_uint begin = job->begin_bit, end = job->end_bit, desc = job->descending;
    idx_arg a_n;
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_radix_one_copy, .ku = CLSORT_ARG(b->ku),
                               .ku_off = CLSORT_ARG(ku_off), .ka = CLSORT_ARG(b->ka),
                               .vu = CLSORT_ARG(b->vu), .vu_off = CLSORT_ARG(vu_off),
                               .va = CLSORT_ARG(b->va), .n = idx_of(s, &a_n, job->n),
                               .begin_bit = CLSORT_ARG(begin), .end_bit = CLSORT_ARG(end),
                               .descending = CLSORT_ARG(desc), .state = CLSORT_ARG(b->state),
                               .bases = CLSORT_ARG(b->bases), .scratch = CLSORT_ARG(b->scratch),
                               .one_off = CLSORT_ARG(one_off),
                               .table_off = CLSORT_ARG(table_off),
                               .share_off = CLSORT_ARG(share_off)));
    const size_t units = ctx->facts.compute_units ? ctx->facts.compute_units : 1;
    return clsort_launch(ctx, k, "clsort_radix_one_copy", 2 * units, 1, seq);
}

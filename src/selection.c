/* selection.c - Bainville's parallel selection sort (selection.cl): each
 * work-item finds its element's rank by comparing it with every other
 * (n^2 comparisons, plain or with the keys staged in local memory blocks),
 * then writes it to its place; stable through the order keys' indices. In
 * the comparison sorts' program (clsort_bitonic_program), whose order keys
 * it shares. Up to CLSORT_SELECTION_MAX elements. */
#include "internal.h"

clsort_status clsort_selection_run(clsort_context *ctx, const clsort_radix_job *job, bool local,
                                   clsort_seq *seq)
{
    const size_t n = job->n;
    if (n > CLSORT_SELECTION_MAX)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "the selection sort takes at most %u elements (here %zu): it does "
                           "n^2 comparisons; use the radix or bitonic sort",
                           (unsigned)CLSORT_SELECTION_MAX, n);
    clsort_bt_variant v;
    clsort_program *prog;
    CLSORT_TRY(clsort_bitonic_program(ctx, job, true, 0, &v, &prog));
    cl_mem dk, dv = NULL;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_KEYS, n * job->key.bytes, &dk));
    if (job->vals)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_VALS, n * job->val_bytes, &dv));
    const char *name = local ? "clsort_selection_local" : "clsort_selection";
    cl_kernel k;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, name, &k));
    clsort_order_args o = clsort_order_of(job);
    cl_ulong koff = job->keys_off, voff = job->vals_off;
    cl_uint n32 = (cl_uint)n;
    cl_mem vals = job->vals;
    cl_uint gen = job->gen_index;
    /* (clsort_selection_local takes clsort_selection's list) */
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_selection, .keys = CLSORT_ARG(job->keys),
                               .keys_off = CLSORT_ARG(koff), .vals = CLSORT_ARG(vals),
                               .vals_off = CLSORT_ARG(voff), .n = CLSORT_ARG(n32),
                               .begin_bit = CLSORT_ARG(o.begin), .wmask = {o.kb, &o.wmask},
                               .desc = CLSORT_ARG(o.desc), .dk = CLSORT_ARG(dk),
                               .dv = CLSORT_ARG(dv), .gen_index = CLSORT_ARG(gen)));
    const size_t wg = ctx->tuning.sel_wg;
    CLSORT_TRY(clsort_launch(ctx, k, name, div_up(n, wg) * wg, wg, seq));
    CLSORT_TRY(clsort_copy(ctx, dk, 0, job->keys, job->keys_off * job->key.bytes,
                           n * job->key.bytes, seq));
    if (job->vals)
        CLSORT_TRY(clsort_copy(ctx, dv, 0, job->vals, job->vals_off * job->val_bytes,
                               n * job->val_bytes, seq));
    return CLSORT_SUCCESS;
}

/* layout.h - what every program shares with the host: each kernel's
 * argument list, the one declaration of its parameters, and the size of
 * the work-group scan's local array. Prepended to every program's sources
 * (before common.cl) and included by the host (internal.h), so that no
 * argument order or size is written twice: preprocessor definitions only,
 * valid C and OpenCL C. The radix sort's words (the plan's state, pass and
 * phase codes, the onesweep tile's local memory) are in radix_layout.h.
 *
 * CLSORT_ARGS_<kernel>(F, X) lists the kernel's parameters in order, as
 * F(type, name) for the first and X(type, name) for the others (OpenCL C
 * 1.2 has no variadic macros, which would drop a comma), the type as
 * OpenCL C spells it (KEY_T, VAL_T, idx_t: the
 * program variant's, common.cl). A kernel declares its parameters from it
 * (what they mean: the comment above the kernel),
 *     kernel void clsort_iota(CLSORT_PARAMS(clsort_iota))
 * and the host sets its arguments by name (internal.h),
 *     CLSORT_SET_ARGS(ctx, k, clsort_iota, .v = ..., .v_off = ..., .n = ...)
 * so that a parameter added, removed or moved here changes both sides, and
 * an argument the host leaves unset is an error (clsort_set_args). A new
 * parameter goes into its kernel's list, and its value into the host's
 * CLSORT_SET_ARGS of that kernel.
 */
#ifndef CLSORT_LAYOUT_H
#define CLSORT_LAYOUT_H

/* The kernels' side: the parameter list of a kernel, "type name" for the
 * first and ", type name" for each after it. */
#define CLSORT_PARAM_FIRST_(type, name) type name
#define CLSORT_PARAM_(type, name) , type name
#define CLSORT_PARAMS(kernel_name) CLSORT_ARGS_##kernel_name(CLSORT_PARAM_FIRST_, CLSORT_PARAM_)

/* The work-group scan's local words (common.cl: the values at SCAN_PAD(i),
 * one word of padding every 16; SCAN_LOCAL_WORDS words for wg work-items,
 * wg in 1..4096), which the host counts in kernels' local memory. */
#define SCAN_PAD(i) ((i) + ((i) >> 4))
#define CLSORT_SMEAR_(v) ((v) | (v) >> 1 | (v) >> 2 | (v) >> 3 | (v) >> 4 | (v) >> 5 | \
                          (v) >> 6 | (v) >> 7 | (v) >> 8 | (v) >> 9 | (v) >> 10 | (v) >> 11)
#define CLSORT_POW2CEIL(x) (CLSORT_SMEAR_((x) - 1) + 1) /* x in 1..4096 */
#define SCAN_LOCAL_WORDS(wg) (SCAN_PAD(CLSORT_POW2CEIL(wg)) + 1)

/* radix.cl */
#define CLSORT_ARGS_clsort_radix_upfront(F, X)                                                     \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(idx_t, n) X(idx_t, chunk) X(uint, p_lo)     \
    X(uint, p_hi) X(uint, begin_bit) X(uint, end_bit) X(uint, descending)                          \
    X(global uint *, counts) X(ulong, counts_off) X(global uint *, bitwords) X(ulong, bits_off)    \
    X(uint, want_bits) X(global const uint *, state) X(uint, gated) X(global uint *, zero)         \
    X(ulong, zero_off) X(ulong, zero_vec) X(global uint *, order) X(ulong, order_off)              \
    X(uint, order_check)
#define CLSORT_ARGS_clsort_radix_plan(F, X)                                                        \
    F(global uint *, counts) X(ulong, counts_off) X(uint, portions) X(uint, passes) X(idx_t, n)    \
    X(uint, begin_bit) X(uint, end_bit) X(uint, allow_skip) X(uint, gen_index) X(idx_t, msd_max)   \
    X(uint, phase) X(uint, clear) X(global const uint *, bitwords) X(ulong, bits_off)              \
    X(global uint *, state) X(global idx_t *, bases) X(global uint *, order) X(ulong, order_off)   \
    X(ulong, map_counts_off)                                                                       \
    X(uint, order_mode) X(uint, fill)
#define CLSORT_ARGS_clsort_radix_prologue(F, X)                                                    \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(idx_t, n) X(uint, passes)                   \
    X(uint, begin_bit) X(uint, end_bit) X(uint, descending) X(uint, allow_skip)                    \
    X(uint, gen_index) X(global uint *, scratch) X(ulong, zero_from) X(ulong, zero_words)          \
    X(global uint *, state) X(global idx_t *, bases)
#define CLSORT_ARGS_clsort_radix_upfront_plan(F, X)                                                \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(idx_t, n) X(idx_t, chunk) X(uint, passes)   \
    X(uint, begin_bit) X(uint, end_bit) X(uint, descending) X(uint, allow_skip)                    \
    X(uint, gen_index) X(global uint *, zero) X(ulong, zero_vec) X(global uint *, sync)            \
    X(global uint *, state) X(global idx_t *, bases) X(uint, order_mode) X(uint, fill)
#define CLSORT_ARGS_clsort_radix_fill_check(F, X)                                                  \
    F(global KEY_T *, keys) X(ulong, keys_off) X(global const VAL_T *, vals) X(ulong, vals_off)    \
    X(global KEY_T *, ka) X(global VAL_T *, va) X(idx_t, n) X(uint, passes)                        \
    X(uint, descending) X(global uint *, state) X(global idx_t *, bases)                           \
    X(global uint *, scratch) X(ulong, fill_off)
#define CLSORT_ARGS_clsort_radix_finish(F, X)                                                      \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global const KEY_T *, ka) X(global VAL_T *, vu)       \
    X(ulong, vu_off) X(global const VAL_T *, va) X(idx_t, n) X(global const uint *, state)
#define CLSORT_ARGS_clsort_iota(F, X)                                                              \
    F(global VAL_T *, v) X(ulong, v_off) X(idx_t, n)
#define CLSORT_ARGS_clsort_gather_records(F, X)                                                    \
    F(global const uchar *, src) X(ulong, src_off) X(global uchar *, dst)                          \
    X(global const VAL_T *, perm) X(idx_t, n) X(uint, rec)
/* radix_classic.cl */
#define CLSORT_ARGS_clsort_radix_count(F, X)                                                       \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(idx_t, n) X(idx_t, chunk) X(uint, pass) X(uint, begin_bit) X(uint, end_bit)                  \
    X(uint, descending) X(global const uint *, state) X(global uint *, hist) X(ulong, hist_off)
#define CLSORT_ARGS_clsort_radix_offsets(F, X)                                                     \
    F(global const uint *, hist) X(ulong, hist_off) X(uint, m) X(uint, pass)                       \
    X(global const uint *, state) X(global idx_t *, offsets) X(ulong, offsets_off)
#define CLSORT_ARGS_clsort_radix_scatter(F, X)                                                     \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(global VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(global VAL_T *, vb)             \
    X(idx_t, n) X(idx_t, chunk) X(uint, pass) X(uint, begin_bit) X(uint, end_bit)                  \
    X(uint, descending) X(global const uint *, state) X(global const idx_t *, offsets)             \
    X(ulong, offsets_off)
/* radix_msd.cl */
#define CLSORT_ARGS_clsort_radix_sample(F, X)                                                      \
    F(global const KEY_T *, ku) X(ulong, ku_off) X(idx_t, n) X(uint, pass) X(uint, begin_bit)      \
    X(uint, end_bit) X(uint, descending) X(idx_t, msd_max) X(global uint *, scratch)               \
    X(ulong, flag_off) X(uint, order_check) X(ulong, one_off) X(ulong, map_off) X(uint, fill_only) \
    X(uint, few)
#define CLSORT_ARGS_clsort_radix_tiles(F, X)                                                       \
    F(global const KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka)                             \
    X(global const VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(uint, len) X(uint, pass)  \
    X(uint, begin_bit) X(uint, end_bit) X(uint, descending) X(uint, gen) X(global uint *, counts)  \
    X(ulong, counts_off) X(global uint *, scratch) X(ulong, flag_off) X(ulong, bits_off)           \
    X(ulong, table_off) X(ulong, map_off) X(ulong, one_off)
#define CLSORT_ARGS_clsort_radix_buckets(F, X)                                                     \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(global VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(global VAL_T *, vb)             \
    X(idx_t, n) X(uint, begin_bit) X(uint, end_bit) X(uint, descending)                            \
    X(global uint *, state) X(global const idx_t *, bases) X(global uint *, next)                  \
    X(ulong, next_off) X(ulong, table_off) X(ulong, one_off) X(ulong, map_off)                   \
    X(ulong, share_off)
#define CLSORT_ARGS_clsort_radix_one_copy(F, X)                                                    \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global const KEY_T *, ka) X(global VAL_T *, vu)       \
    X(ulong, vu_off) X(global const VAL_T *, va) X(idx_t, n) X(uint, begin_bit) X(uint, end_bit)   \
    X(uint, descending) X(global const uint *, state) X(global const idx_t *, bases)              \
    X(global uint *, scratch) X(ulong, one_off) X(ulong, table_off) X(ulong, share_off)
/* radix_passes.cl */
#define CLSORT_ARGS_clsort_radix_onesweep(F, X)                                                    \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(global VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(global VAL_T *, vb)             \
    X(idx_t, portion_start) X(uint, portion_len) X(uint, pass_arg) X(uint, begin_bit)              \
    X(uint, end_bit) X(uint, descending) X(global const uint *, state)                             \
    X(global const idx_t *, bases) X(ulong, bases_off) X(global uint *, lookback)                  \
    X(ulong, lb_off) X(global uint *, tile_counter) X(uint, counter_idx) X(uint, finish)
#define CLSORT_ARGS_clsort_radix_chain(F, X)                                                       \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(global VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(global VAL_T *, vb) X(uint, n)  \
    X(uint, tiles) X(uint, begin_bit) X(uint, end_bit) X(uint, descending)                         \
    X(global const uint *, state) X(global const idx_t *, bases) X(global uint *, scratch)         \
    X(ulong, lb_off) X(ulong, chain_off)
#define CLSORT_ARGS_clsort_radix_single(F, X)                                                      \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global KEY_T *, kb)             \
    X(global VAL_T *, vu) X(ulong, vu_off) X(global VAL_T *, va) X(global VAL_T *, vb) X(uint, n)  \
    X(uint, passes) X(uint, begin_bit) X(uint, end_bit) X(uint, descending) X(uint, gen_index)     \
    X(global uint *, counts) X(global uint *, state) X(global idx_t *, bases)
#define CLSORT_ARGS_clsort_radix_segments(F, X)                                                    \
    F(global KEY_T *, ku) X(ulong, ku_off) X(global KEY_T *, ka) X(global VAL_T *, vu)             \
    X(ulong, vu_off) X(global VAL_T *, va) X(global const ulong *, offsets) X(ulong, offsets_off)  \
    X(uint, use_offsets) X(ulong, first) X(ulong, seg_len) X(ulong, n) X(uint, passes)             \
    X(uint, begin_bit) X(uint, end_bit) X(uint, descending) X(uint, gen_index)
#define CLSORT_ARGS_clsort_radix_carry(F, X)                                                       \
    F(global const uint *, state) X(uint, pass_arg) X(uint, first)                                 \
    X(global const uint *, lookback) X(ulong, lb_off) X(uint, last_tile) X(global idx_t *, bases)  \
    X(ulong, carry_off)
/* bitonic.cl */
#define CLSORT_ARGS_clsort_bitonic_segments(F, X)                                                  \
    F(global KEY_T *, keys) X(ulong, keys_off) X(global VAL_T *, vals) X(ulong, vals_off)          \
    X(global const ulong *, offsets) X(ulong, offsets_off) X(uint, use_offsets) X(ulong, first)    \
    X(ulong, seg_len) X(uint, begin_bit) X(KEY_T, wmask) X(uint, desc) X(uint, gen_index)          \
    X(ulong, n) X(ulong, count) X(uint, per_group) X(uint, block)
#define CLSORT_ARGS_clsort_bitonic_pack(F, X)                                                      \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(global const ulong *, offsets)              \
    X(ulong, offsets_off) X(uint, use_offsets) X(ulong, first) X(ulong, seg_len)                   \
    X(ulong, seg_pad) X(ulong, npad) X(uint, begin_bit) X(KEY_T, wmask) X(uint, desc)              \
    X(global KEY_T *, ok) X(global uint *, oi)
#define CLSORT_ARGS_clsort_bitonic_step(F, X)                                                      \
    F(global KEY_T *, ok) X(global uint *, oi) X(ulong, npad) X(ulong, seg_pad) X(uint, k)         \
    X(uint, j)
#define CLSORT_ARGS_clsort_bitonic_local(F, X)                                                     \
    F(global KEY_T *, ok) X(global uint *, oi) X(ulong, seg_pad) X(uint, block) X(uint, kfrom)     \
    X(uint, kto) X(uint, jfrom)
#define CLSORT_ARGS_clsort_bitonic_unpack(F, X)                                                    \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(global const VAL_T *, vals)                 \
    X(ulong, vals_off) X(global const ulong *, offsets) X(ulong, offsets_off)                      \
    X(uint, use_offsets) X(ulong, first) X(ulong, seg_len) X(ulong, seg_pad) X(ulong, npad)        \
    X(global const uint *, oi) X(global KEY_T *, dk) X(global VAL_T *, dv) X(uint, gen_index)
#define CLSORT_ARGS_clsort_segments_pack64(F, X)                                                   \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(global const ulong *, offsets)              \
    X(ulong, offsets_off) X(uint, use_offsets) X(ulong, first) X(ulong, seg_len)                   \
    X(uint, begin_bit) X(KEY_T, wmask) X(uint, wbits) X(uint, desc) X(global ulong *, pk)
/* selection.cl */
#define CLSORT_ARGS_clsort_selection(F, X)                                                         \
    F(global const KEY_T *, keys) X(ulong, keys_off) X(global const VAL_T *, vals)                 \
    X(ulong, vals_off) X(uint, n) X(uint, begin_bit) X(KEY_T, wmask) X(uint, desc)                 \
    X(global KEY_T *, dk) X(global VAL_T *, dv) X(uint, gen_index)
#define CLSORT_ARGS_clsort_selection_local CLSORT_ARGS_clsort_selection /* the same list */
/* scan.cl */
#define CLSORT_ARGS_clsort_scan_reduce(F, X)                                                       \
    F(global const scan_t *, in) X(ulong, in_off) X(ulong, n) X(global scan_t *, sums)             \
    X(ulong, sums_off)
#define CLSORT_ARGS_clsort_scan_blocks(F, X)                                                       \
    F(global const scan_t *, in) X(ulong, in_off) X(global scan_t *, out) X(ulong, out_off)        \
    X(ulong, n) X(global const scan_t *, carry) X(ulong, carry_off) X(uint, use_carry)             \
    X(uint, inclusive)
#define CLSORT_ARGS_clsort_scan_onepass(F, X)                                                      \
    F(global const scan_t *, in) X(ulong, in_off) X(global scan_t *, out) X(ulong, out_off)        \
    X(ulong, n) X(global uint *, state) X(uint, epoch) X(uint, inclusive)

#endif

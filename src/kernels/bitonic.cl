/* bitonic.cl - bitonic sorting networks (Zucchi 2013): many segments at
 * once, one work-group per segment in local memory, and whole arrays of any
 * length through global steps plus local-memory finishing.
 *
 * Keys are compared by their "order key": the bits [begin, end) of the
 * order-preserving image (common.cl), inverted for descending order. The
 * network sorts (order key, input index) pairs, so it is stable; partial
 * power-of-two blocks are padded, in local or temporary memory only, with
 * (all ones, all ones), which sorts after every real element.
 *
 * Compare-and-swap pairs come from work-item ids by inserting a bit (the
 * seed's trick): pair t of step j (a power of two) is p0 = t with a 0 bit
 * inserted at log2(j), p1 = p0 | j; the pair is in ascending order when
 * bit k of p0 is clear, k the size of the bitonic sequences being merged.
 *
 * Defines it needs, besides common.cl's:
 *   CLSORT_BT_CAP     elements a work-group holds in local memory (power of 2)
 *   CLSORT_BT_WG      work-group size of the local kernels (CAP/2 at most)
 *   CLSORT_BT_STABLE  1: carry input indices (pairs, windows, floats);
 *                     0: integer keys alone over every bit (order keys are
 *                     then the keys themselves, transformed reversibly)
 */
#if !defined(CLSORT_BT_CAP) || !defined(CLSORT_BT_WG) || !defined(CLSORT_BT_STABLE)
#error "bitonic.cl needs CLSORT_BT_CAP, CLSORT_BT_WG and CLSORT_BT_STABLE"
#endif
#if !CLSORT_BT_STABLE && (CLSORT_KEY_KIND == 2 || HAVE_VALUES)
#error "CLSORT_BT_STABLE 0 is only for integer keys without values"
#endif

#define BT_ITEMS (CLSORT_BT_CAP / CLSORT_BT_WG)
#define BT_PAIRS (BT_ITEMS / 2 > 0 ? BT_ITEMS / 2 : 1) /* compare pairs per work-item */
#define BT_MAXKEY ((KEY_T)~(KEY_T)0)
#define BT_MAXIDX 0xffffffffu

/* The order key of a key (see above). */
inline KEY_T clsort_order_key(KEY_T k, uint begin, KEY_T wmask, uint desc)
{
    KEY_T o = (KEY_T)((RADIX_IMAGE(k) >> begin) & wmask);
    return desc ? (KEY_T)(o ^ wmask) : o;
}

/* Stable without indices only for integer keys over all bits, whose order
 * keys invert (clsort_order_key_inverse, common.cl). */

/* argsort: the value is the element's index (relative to the keys). */
#if HAVE_VALUES && (CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8)
#define GEN_INDEX_OR(gen, i, load) ((gen) ? (VAL_T)(i) : (load))
#else
#define GEN_INDEX_OR(gen, i, load) (load)
#endif

inline uint clsort_insert_zero(uint t, uint j) { return ((t & ~(j - 1)) << 1) | (t & (j - 1)); }

/* For the register runs of consecutive elements (CLSORT_BT_REGS without
 * warp shuffles), local arrays are swizzled: element p lives at SWK(p)
 * (keys) and SWI(p) (indices), an XOR of its low bits with its 32-element
 * row (16 for 8-byte keys), a permutation of every power-of-two range of
 * at least a row. A warp then reads 32 consecutive elements, or one
 * element from each of 32 work-items' runs of 2 to 32 consecutive
 * elements, with no two in the same bank. The other networks use the
 * plain layout (the swizzle's arithmetic costs them more than it saves). */
#if CLSORT_BT_REGS >= 2 && CLSORT_NVIDIA && CLSORT_BT_WG % 32 == 0
#define BT_WARP 1 /* registers and warp shuffles (below) */
#else
#define BT_WARP 0
#endif
#if CLSORT_BT_REGS >= 2 && !BT_WARP
#if CLSORT_KEY_BYTES == 8
#define SWK(p) ((p) ^ (((p) >> 4) & 15u))
#else
#define SWK(p) ((p) ^ (((p) >> 5) & 31u))
#endif
#define SWI(p) ((p) ^ (((p) >> 5) & 31u))
#else
/* (the other networks access local memory in warp-contiguous ways) */
#define SWK(p) (p)
#define SWI(p) (p)
#endif

/* Whether (a, ia) goes after (b, ib). */
#if CLSORT_BT_STABLE
#define BT_GREATER(a, ia, b, ib) ((a) > (b) || ((a) == (b) && (ia) > (ib)))
#else
#define BT_GREATER(a, ia, b, ib) ((a) > (b))
#endif

/* One compare-and-swap of elements p0 < p1 of the local arrays. */
inline void clsort_bt_cas(local KEY_T *lk, local uint *li, uint p0, uint p1, bool asc)
{
    KEY_T a = lk[SWK(p0)], b = lk[SWK(p1)];
#if CLSORT_BT_STABLE
    uint ia = li[SWI(p0)], ib = li[SWI(p1)];
#else
    uint ia = 0, ib = 0;
#endif
    if (BT_GREATER(a, ia, b, ib) == asc) {
        lk[SWK(p0)] = b;
        lk[SWK(p1)] = a;
#if CLSORT_BT_STABLE
        li[SWI(p0)] = ib;
        li[SWI(p1)] = ia;
#endif
    }
}

/* One step (k, j) through local memory (the caller puts a barrier after
 * it). */
inline void clsort_bt_local_step(local KEY_T *lk, local uint *li, uint size, uint base, uint k,
                                 uint j)
{
    const uint lid = get_local_id(0);
#if BT_PAIRS <= 16
    /* a compile-time trip count, so the compare-and-swaps of a work-item
     * are unrolled and their loads overlap */
#pragma unroll
    for (uint q = 0; q < BT_PAIRS; q++) {
#else
    /* many pairs a work-item (PoCL's 16-item groups of 16384 elements have
     * 512, and unrolled whole the kernel takes PoCL seconds to build): 16
     * at a time, as far as this network's size needs (uniform) */
    const uint pairs = min((uint)BT_PAIRS, (size / 2 + CLSORT_BT_WG - 1) / CLSORT_BT_WG);
#pragma unroll 16
    for (uint q = 0; q < pairs; q++) {
#endif
        uint t = q * CLSORT_BT_WG + lid;
        if (t < size / 2) {
            uint p0 = clsort_insert_zero(t, j);
            clsort_bt_cas(lk, li, p0, p0 | j, ((base + p0) & k) == 0);
        }
    }
}

#if CLSORT_BT_REGS >= 2
#define BT_REGS CLSORT_BT_REGS
/* log2(BT_REGS): loops over register distances with a constant trip count,
 * which the compilers unroll so that registers are never indexed at run
 * time (that would put the array in private memory) */
#if BT_REGS == 2
#define BT_REGS_LOG2 1
#elif BT_REGS == 4
#define BT_REGS_LOG2 2
#elif BT_REGS == 8
#define BT_REGS_LOG2 3
#elif BT_REGS == 16
#define BT_REGS_LOG2 4
#elif BT_REGS == 32
#define BT_REGS_LOG2 5
#else
#error "CLSORT_BT_REGS must be a power of two up to 32"
#endif
/* A work-item's registers r (and indices ri), and their loads and stores
 * from and to the local arrays: register q < e holds element POS(q), with
 * the layout's swizzle. */
#if CLSORT_BT_STABLE
#define BT_RUN_REGS \
    KEY_T r[BT_REGS]; \
    uint ri[BT_REGS]
#define BT_RUN_MOVE_INDEX(stmt) stmt
#else
#define BT_RUN_REGS KEY_T r[BT_REGS]
#define BT_RUN_MOVE_INDEX(stmt)
#endif
#define BT_RUN_LOAD(POS)                                        \
    _Pragma("unroll") for (uint q = 0; q < BT_REGS; q++) if (q < e) { \
        r[q] = lk[SWK(POS)];                                    \
        BT_RUN_MOVE_INDEX(ri[q] = li[SWI(POS)]);                \
    }
#define BT_RUN_STORE(POS)                                       \
    _Pragma("unroll") for (uint q = 0; q < BT_REGS; q++) if (q < e) { \
        lk[SWK(POS)] = r[q];                                    \
        BT_RUN_MOVE_INDEX(li[SWI(POS)] = ri[q]);                \
    }
/* Compare-and-swap of registers q and q | jj (q's bit jj clear) of a run
 * whose first element is at position p (global position base + p). */
#if CLSORT_BT_STABLE
#define BT_REG_CAS(q, jj)                                                              \
    do {                                                                               \
        const uint q1 = (q) | (jj);                                                    \
        if (BT_GREATER(r[q], ri[q], r[q1], ri[q1]) == (((base + p + (q)) & kk) == 0)) { \
            KEY_T tk_ = r[q];                                                          \
            r[q] = r[q1];                                                              \
            r[q1] = tk_;                                                               \
            uint ti_ = ri[q];                                                          \
            ri[q] = ri[q1];                                                            \
            ri[q1] = ti_;                                                              \
        }                                                                              \
    } while (0)
#else
#define BT_REG_CAS(q, jj)                                                      \
    do {                                                                       \
        const uint q1 = (q) | (jj);                                            \
        if ((r[q] > r[q1]) == (((base + p + (q)) & kk) == 0)) {                \
            KEY_T tk_ = r[q];                                                  \
            r[q] = r[q1];                                                      \
            r[q1] = tk_;                                                       \
        }                                                                      \
    } while (0)
#endif
#endif

#if BT_WARP
/* A key from lane (this lane ^ m) of the warp (indices: clsort_shfl_xor). */
#if CLSORT_KEY_BYTES == 8
inline KEY_T clsort_shfl_xor_key(KEY_T v, uint m)
{
    uint lo = clsort_shfl_xor((uint)v, m), hi = clsort_shfl_xor((uint)(v >> 32), m);
    return (KEY_T)(((ulong)hi << 32) | lo);
}
#else
inline KEY_T clsort_shfl_xor_key(KEY_T v, uint m) { return (KEY_T)clsort_shfl_xor((uint)v, m); }
#endif

/* The network of clsort_bt_network with each warp holding chunks of 32 * e
 * elements in registers, element c * 32e + 32q + lane in register q of
 * lane `lane`: steps of distance below 32 exchange registers between lanes
 * (shuffles), distances 32 to 16e swap registers within a lane, and only
 * distances of a chunk and more go through local memory, with barriers.
 * size >= 64. */
inline void clsort_bt_network_warp(local KEY_T *lk, local uint *li, uint size, uint base,
                                   uint kfrom, uint kto, uint jfrom)
{
    const uint lid = get_local_id(0), lane = lid & 31u, warp = lid >> 5;
    const uint warps = CLSORT_BT_WG / 32;
    uint e = 2;
    while (e < BT_REGS && 64 * e * warps <= size)
        e *= 2;
    const uint chunk = 32 * e, chunks = size / chunk;
    for (uint k = kfrom; k <= kto;) {
        uint j = min(k >> 1, jfrom);
        for (; j >= chunk; j >>= 1) {
            clsort_bt_local_step(lk, li, size, base, k, j);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* sequence sizes up to a chunk need no local memory: together */
        const uint klast = k < chunk ? min(chunk, kto) : k;
        for (uint c = warp; c < chunks; c += warps) { /* uniform in a warp */
            const uint p = c * chunk + lane;
            BT_RUN_REGS;
            BT_RUN_LOAD(p + 32 * q);
            for (uint kk = k; kk <= klast; kk <<= 1) {
                for (uint jj = kk == k ? j : min(kk >> 1, jfrom); jj > 0; jj >>= 1) {
                    if (jj >= 32) { /* registers q and q ^ jj/32 of this lane */
#pragma unroll
                        for (uint mb = 0; mb < BT_REGS_LOG2; mb++)
                            if ((1u << mb) == jj >> 5) {
                                const uint m = 1u << mb;
#pragma unroll
                                for (uint q = 0; q < BT_REGS; q++)
                                    if (q < e && (q & m) == 0) {
                                        const uint q1 = q | m;
                                        const bool asc = ((base + p + 32 * q) & kk) == 0;
#if CLSORT_BT_STABLE
                                        if (BT_GREATER(r[q], ri[q], r[q1], ri[q1]) == asc) {
                                            uint ti = ri[q];
                                            ri[q] = ri[q1];
                                            ri[q1] = ti;
#else
                                        if ((r[q] > r[q1]) == asc) {
#endif
                                            KEY_T tk = r[q];
                                            r[q] = r[q1];
                                            r[q1] = tk;
                                        }
                                    }
                            }
                    } else { /* register q of lanes lane and lane ^ jj */
                        const bool lower = (lane & jj) == 0;
#pragma unroll
                        for (uint q = 0; q < BT_REGS; q++)
                            if (q < e) {
                                const bool asc = ((base + p + 32 * q) & kk) == 0;
                                KEY_T o = clsort_shfl_xor_key(r[q], jj);
#if CLSORT_BT_STABLE
                                uint oi = clsort_shfl_xor(ri[q], jj);
                                bool gt = lower ? BT_GREATER(r[q], ri[q], o, oi)
                                                : BT_GREATER(o, oi, r[q], ri[q]);
                                if (gt == asc) {
                                    r[q] = o;
                                    ri[q] = oi;
                                }
#else
                                bool gt = lower ? r[q] > o : o > r[q];
                                if (gt == asc)
                                    r[q] = o;
#endif
                            }
                    }
                }
            }
            BT_RUN_STORE(p + 32 * q);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        k = klast << 1;
    }
}
#endif

/* Bitonic network over lk/li[0..size) (size a power of two, at most CAP),
 * for sequence sizes k from kfrom to kto and, within each, steps j from
 * min(k/2, jfrom) down to 1. base is the global position of element 0 (the
 * directions depend on global positions). Whole work-group; barriers; the
 * caller's writes to lk/li must be behind a barrier, and the result is.
 *
 * With CLSORT_BT_REGS, each work-item takes runs of e consecutive elements
 * (e a power of two, at most CLSORT_BT_REGS, about size / work-group size)
 * into registers for the steps of distance below e, which need neither
 * local memory nor barriers; runs of sizes up to e are sorted in one visit.
 * Only the steps of distance e and more go through local memory. On
 * NVIDIA, clsort_bt_network_warp does the same with warp shuffles. */
inline void clsort_bt_network(local KEY_T *lk, local uint *li, uint size, uint base, uint kfrom,
                              uint kto, uint jfrom)
{
#if BT_WARP
    if (size >= 64) {
        clsort_bt_network_warp(lk, li, size, base, kfrom, kto, jfrom);
        return;
    }
#endif
#if CLSORT_BT_REGS >= 2 && !BT_WARP
    const uint lid = get_local_id(0);
    uint e = 2;
    while (e < BT_REGS && 2 * e * CLSORT_BT_WG <= size)
        e *= 2;
    if (e > size)
        e = size;
    const uint runs = size / e;
    /* One loop with one barrier, at the end of each round (PoCL 3.1 takes
     * tens of seconds to build loops with barriers nested in loops with
     * barriers): a round is one step of distance j >= e through local
     * memory, or the register runs that end sequence size k (with the
     * sizes up to e when k < e). */
    uint k = kfrom, j = min(kfrom >> 1, jfrom);
    while (k <= kto) { /* k and j are uniform over the work-group */
        if (j >= e) {
            clsort_bt_local_step(lk, li, size, base, k, j);
            j >>= 1;
        } else {
            /* sequence sizes up to e need registers only: take them together */
            const uint klast = k < e ? min(e, kto) : k;
            for (uint w = lid; w < runs; w += CLSORT_BT_WG) {
                const uint p = w * e;
                BT_RUN_REGS;
                BT_RUN_LOAD(p + q);
                for (uint kk = k; kk <= klast; kk <<= 1) {
                    const uint jtop = kk == k ? j : min(kk >> 1, jfrom);
#pragma unroll
                    for (uint jb = 0; jb < BT_REGS_LOG2; jb++) {
                        const uint jj = (BT_REGS / 2) >> jb;
                        if (jj <= jtop) {
#pragma unroll
                            for (uint q = 0; q < BT_REGS; q++)
                                if (q < e && (q & jj) == 0)
                                    BT_REG_CAS(q, jj);
                        }
                    }
                }
                BT_RUN_STORE(p + q);
            }
            k = klast << 1;
            j = min(k >> 1, jfrom);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    /* one loop, one barrier a step (as above) */
    uint k = kfrom, j = min(kfrom >> 1, jfrom);
    while (k <= kto) { /* uniform */
        clsort_bt_local_step(lk, li, size, base, k, j);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (j > 1) {
            j >>= 1;
        } else {
            k <<= 1;
            j = min(k >> 1, jfrom);
        }
    }
#endif
}

/* ------------------------------------------------------------ segments */

/* per_group segments per work-group (of count in all; per_group a power of
 * two dividing the work-group size), each at most CAP / per_group
 * elements; elements are written back in place. A team of CLSORT_BT_WG /
 * per_group work-items loads and writes one segment. One segment
 * (per_group 1) takes a block of local memory of its own length rounded up
 * to a power of two; several take blocks of `block` elements each (a power
 * of two, the longest segment rounded up), sorted together by one network
 * whose sequences stop at the block's size. That network leaves the blocks
 * of odd number in descending order (its directions alternate with the
 * position), and those are read back from their end. Many short segments
 * thus keep every work-item busy, where a group per segment would leave
 * most of it idle. */
kernel __attribute__((reqd_work_group_size(CLSORT_BT_WG, 1, 1)))
void clsort_bitonic_segments(CLSORT_PARAMS(clsort_bitonic_segments))
{
    local KEY_T lk[CLSORT_BT_CAP];
#if CLSORT_BT_STABLE
    local uint li[CLSORT_BT_CAP];
#else
    local uint *li = 0;
#endif
    const uint lid = get_local_id(0);
    const uint team = CLSORT_BT_WG / per_group, g = lid / team, tl = lid - g * team;
    const ulong seg = get_group_id(0) * (ulong)per_group + g;
    ulong start = 0, len = 0; /* a block past the last segment: padding only */
    if (seg < count)
        clsort_segment_extent(offsets + offsets_off, use_offsets, first, seg_len, n, seg,
                              CLSORT_BT_CAP, &start, &len);
    keys += keys_off + start;
    vals += vals_off + start;
    uint size = block;
    if (per_group == 1) {
#if HAVE_VALUES && (CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8)
        if (gen_index && len == 1 && lid == 0)
            vals[0] = (VAL_T)start;
#endif
        if (len < 2)
            return; /* uniform across the work-group */
        size = clsort_pow2_ceil((uint)len);
    } else if (len > size) {
        len = size; /* a segment longer than the caller said: its first block */
    }
    /* (a loop of the same trip count on every work-item, the bound inside:
     * PoCL 3.1 ran the body of `for (e = tl; e < size; e += team)` for
     * work-items past the bound here) */
    for (uint q = 0; q * team < size; q++) {
        const uint e = q * team + tl;
        if (e < size) {
            lk[SWK(g * size + e)] =
                e < len ? clsort_order_key(keys[e], begin_bit, wmask, desc) : BT_MAXKEY;
#if CLSORT_BT_STABLE
            li[SWI(g * size + e)] = e < len ? e : BT_MAXIDX;
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    clsort_bt_network(lk, li, per_group * size, 0, 2, size, size);
    /* element e of the segment's sorted order: at e in its block, or from
     * the block's end when the block is descending (g odd) */
#define BT_SORTED_POS(e) (g * size + ((g & 1u) ? size - 1 - (e) : (e)))
#if CLSORT_BT_STABLE
    /* Gather the original keys (and values) by index, all reads before any
     * write: the segment is rewritten in place. */
    KEY_T tk[BT_ITEMS];
#if HAVE_VALUES
    VAL_T tv[BT_ITEMS];
#endif
    for (uint q = 0; q < BT_ITEMS; q++) {
        const uint e = q * team + tl;
        if (e < len) {
            const uint src = li[SWI(BT_SORTED_POS(e))];
            tk[q] = keys[src];
#if HAVE_VALUES
            tv[q] = GEN_INDEX_OR(gen_index, start + src, vals[src]);
#endif
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint q = 0; q < BT_ITEMS; q++) {
        const uint e = q * team + tl;
        if (e < len) {
            keys[e] = tk[q];
#if HAVE_VALUES
            vals[e] = tv[q];
#endif
        }
    }
#else
    for (uint q = 0; q * team < size; q++) {
        const uint e = q * team + tl;
        if (e < len)
            keys[e] = clsort_order_key_inverse(lk[SWK(BT_SORTED_POS(e))], desc);
    }
#endif
#undef BT_SORTED_POS
}

/* --------------------------------------------- whole arrays, any length */
#if CLSORT_BT_STABLE

/* The (order key, index) arrays of a padded problem: npad = count * seg_pad
 * entries, segment s at [s * seg_pad, (s+1) * seg_pad). One segment for a
 * plain sort. Entries past a segment's end are padding. */
kernel void clsort_bitonic_pack(CLSORT_PARAMS(clsort_bitonic_pack))
{
    keys += keys_off;
    offsets += offsets_off;
    for (ulong e = get_global_id(0); e < npad; e += get_global_size(0)) {
        ulong seg = e / seg_pad, p = e % seg_pad;
        ulong start = use_offsets ? offsets[seg] : first + seg * seg_len;
        ulong len = use_offsets ? offsets[seg + 1] - start : seg_len;
        bool real = p < len;
        ok[e] = real ? clsort_order_key(keys[start + p], begin_bit, wmask, desc) : BT_MAXKEY;
        oi[e] = real ? (uint)p : BT_MAXIDX;
    }
}

/* One global step (k, j) over the whole padded array: positions are taken
 * within segments of seg_pad entries, so every segment gets its own network. */
kernel void clsort_bitonic_step(CLSORT_PARAMS(clsort_bitonic_step))
{
    for (ulong t = get_global_id(0); t < npad / 2; t += get_global_size(0)) {
        ulong p0 = ((t & ~(ulong)(j - 1)) << 1) | (t & (j - 1));
        ulong p1 = p0 | j;
        KEY_T a = ok[p0], b = ok[p1];
        uint ia = oi[p0], ib = oi[p1];
        bool greater = a > b || (a == b && ia > ib);
        bool asc = ((p0 % seg_pad) & k) == 0;
        if (greater == asc) {
            ok[p0] = b;
            ok[p1] = a;
            oi[p0] = ib;
            oi[p1] = ia;
        }
    }
}

/* Local-memory phases: each work-group takes a block of CAP entries (a
 * power of two dividing seg_pad, or seg_pad itself when smaller), and runs
 * sequence sizes kfrom..kto with steps from jfrom down to 1 there. */
kernel __attribute__((reqd_work_group_size(CLSORT_BT_WG, 1, 1)))
void clsort_bitonic_local(CLSORT_PARAMS(clsort_bitonic_local))
{
    local KEY_T lk[CLSORT_BT_CAP];
    local uint li[CLSORT_BT_CAP];
    const uint lid = get_local_id(0);
    const ulong b0 = (ulong)get_group_id(0) * block;
    for (uint i = lid; i < block; i += CLSORT_BT_WG) {
        lk[SWK(i)] = ok[b0 + i];
        li[SWI(i)] = oi[b0 + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* With block | seg_pad the position inside the segment is b0 % seg_pad. */
    clsort_bt_network(lk, li, block, (uint)(b0 % seg_pad), kfrom, kto, jfrom);
    for (uint i = lid; i < block; i += CLSORT_BT_WG) {
        ok[b0 + i] = lk[SWK(i)];
        oi[b0 + i] = li[SWI(i)];
    }
}

/* The sorted records, gathered by index into temporaries (dk, dv), segment
 * by segment; the caller copies them back over the input range. */
kernel void clsort_bitonic_unpack(CLSORT_PARAMS(clsort_bitonic_unpack))
{
    keys += keys_off;
    vals += vals_off;
    offsets += offsets_off;
    const ulong base0 = use_offsets ? offsets[0] : first;
    for (ulong e = get_global_id(0); e < npad; e += get_global_size(0)) {
        ulong seg = e / seg_pad, p = e % seg_pad;
        ulong start = use_offsets ? offsets[seg] : first + seg * seg_len;
        ulong len = use_offsets ? offsets[seg + 1] - start : seg_len;
        if (p < len) {
            ulong src = start + oi[e], dst = start - base0 + p;
            dk[dst] = keys[src];
#if HAVE_VALUES
            dv[dst] = GEN_INDEX_OR(gen_index, src, vals[src]);
#endif
        }
    }
}

/* Segments that fit no work-group, for a radix sort of (segment, key):
 * pk[e] = segment << wbits | order key, e counted from the first segment's
 * start. One work-group per segment. */
kernel void clsort_segments_pack64(CLSORT_PARAMS(clsort_segments_pack64))
{
    keys += keys_off;
    offsets += offsets_off;
    const ulong seg = get_group_id(0);
    const ulong base0 = use_offsets ? offsets[0] : first;
    const ulong start = use_offsets ? offsets[seg] : first + seg * seg_len;
    const ulong len = use_offsets ? offsets[seg + 1] - start : seg_len;
    for (ulong p = get_local_id(0); p < len; p += get_local_size(0))
        pk[start - base0 + p] =
            (seg << wbits) | (ulong)clsort_order_key(keys[start + p], begin_bit, wmask, desc);
}
#endif

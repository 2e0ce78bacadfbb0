/* radix_lookback.cl - decoupled look-back (Merrill and Garland 2016), the
 * part of a onesweep pass that both of its shapes share: the work-group
 * tile of GPUs (radix_onesweep.cl) and the one-work-item tile of CPUs
 * (radix_msd.cl). A tile publishes its count of each digit at once; its
 * keys of digit d then start after the counts of d in the tiles before it,
 * which it adds up walking back until a tile that carries its inclusive
 * prefix, and publishes its own inclusive prefix.
 *
 * A tile only waits for tiles that took a smaller number from the tile
 * counter, and those have started: on devices that keep started work-groups
 * running (GPUs, and PoCL, which runs a work-group to its end on one thread)
 * the look-back cannot deadlock. The host uses radix_classic.cl where that
 * is not known. Look-back counts are 30 bits, so the host splits inputs into
 * portions of fewer than 2^30 keys, one launch per portion and pass.
 *
 * Defines it needs, besides common.cl's and radix.cl's:
 *   CLSORT_OS_WG     work-group size of the onesweep kernels
 *   CLSORT_OS_ITEMS  keys per work-item (with CLSORT_OS_WG 1: the tile size)
 *   CLSORT_OS_RANK   how a tile is ranked (radix.c's radix_rank): 0 serial
 *                    (radix_msd.cl), 1 local, 3 ballot, 4 atomic_or
 *                    (radix_onesweep.cl)
 *   CLSORT_LB_BATCH  predecessors' words read per round trip (default 1)
 */
#if !defined(CLSORT_OS_WG) || !defined(CLSORT_OS_ITEMS) || !defined(CLSORT_OS_RANK)
#error "radix_lookback.cl needs CLSORT_OS_WG, CLSORT_OS_ITEMS and CLSORT_OS_RANK"
#endif

#define OS_TILE (CLSORT_OS_WG * CLSORT_OS_ITEMS)

/* Look-back words are read and written with single 32-bit accesses (flag
 * and count in one word, so no other ordering is needed): relaxed PTX
 * accesses on NVIDIA from sm_70, volatile ones on older NVIDIA GPUs and
 * where a group is one work-item, atomics elsewhere. */
#ifndef CLSORT_NV_SM70
#define CLSORT_NV_SM70 0 /* radix.c: 1 on NVIDIA GPUs of compute capability 7 and later */
#endif
#if CLSORT_NVIDIA && CLSORT_NV_SM70
/* NVIDIA from sm_70: relaxed loads and stores at GPU scope (what CUDA's
 * volatile means there, without volatile's system scope; decision log, GPU
 * pass). Older NVIDIA GPUs: volatile. */
inline uint clsort_lb_load(global uint *p)
{
    uint v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
inline void clsort_lb_store(global uint *p, uint v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#define LB_LOAD(p) clsort_lb_load((global uint *)(p))
#define LB_STORE(p, v) clsort_lb_store((global uint *)(p), (v))
#elif CLSORT_NVIDIA || CLSORT_OS_WG == 1
/* NVIDIA before sm_70 (CUB relies on its volatile accesses staying in spin
 * loops), and one work-item per group (no work-item loops for PoCL to get
 * wrong; an atomic read would also take the cache line from its writer) */
#define LB_LOAD(p) (*(volatile global uint *)(p))
#define LB_STORE(p, v) (*(volatile global uint *)(p) = (v))
#else
#define LB_LOAD(p) atomic_or((volatile global uint *)(p), 0u)
#define LB_STORE(p, v) atomic_xchg((volatile global uint *)(p), (v))
#endif

/* Decoupled look-back for digit d of this tile: adds the counts of the tiles
 * before it until one that carries its inclusive prefix, then publishes this
 * tile's inclusive prefix. The tile's own aggregate was published before.
 * CLSORT_LB_BATCH predecessors' words are read at once, so that a walk back
 * over many tiles that carry only their aggregates costs one round trip per
 * batch instead of one per tile; the words are then taken in order, and a
 * walk that meets a word not yet published reads again from there. */
#ifndef CLSORT_LB_BATCH
#define CLSORT_LB_BATCH 1
#endif
inline uint clsort_lookback(global uint *lb, uint tile, uint d, uint agg)
{
    uint excl = 0;
    if (tile > 0) {
        uint j = tile - 1; /* the next predecessor to add */
        for (;;) {
            uint w[CLSORT_LB_BATCH];
#pragma unroll
            for (uint i = 0; i < CLSORT_LB_BATCH; i++) /* tile 0 carries a prefix: */
                w[i] = LB_LOAD(&lb[(j >= i ? j - i : 0u) * RADIX + d]); /* never past it */
            uint taken = 0, found = 0, stop = 0;
#pragma unroll
            for (uint i = 0; i < CLSORT_LB_BATCH; i++) {
                const uint f = w[i] & LB_FLAGS;
                if (!stop && f != LB_EMPTY) {
                    excl += w[i] & LB_VALUE;
                    taken++;
                    found = f == LB_PREFIX;
                }
                stop |= f == LB_EMPTY || f == LB_PREFIX;
            }
            if (found)
                break;
            j -= taken;
        }
        LB_STORE(&lb[tile * RADIX + d], (excl + agg) | LB_PREFIX);
    }
    return excl;
}

inline void clsort_publish_aggregate(global uint *lb, uint tile, uint d, uint agg)
{
    LB_STORE(&lb[tile * RADIX + d], agg | (tile == 0 ? LB_PREFIX : LB_AGGREGATE));
}

/* The pass a launch runs: pass_arg of the plan where it runs in LSD order,
 * or with MSD_LAUNCH the pass the plan chose to run first. Returns 0 when
 * the launch has nothing to do. */
inline uint clsort_launch_pass(global const uint *state, uint pass_arg, uint *pass)
{
    uint kind = PASS_LSD;
    *pass = pass_arg;
    if (pass_arg == MSD_LAUNCH) {
        if (!state[ST_MSD] || state[ST_TILED]) /* the tile pass has done it */
            return 0;
        *pass = state[ST_MSD] - 1;
        kind = PASS_MSD;
    }
    return state[ST_PASS(*pass) + ST_PASS_ACTIVE] == kind;
}

/* Where this tile's keys of digit d (count of them; start: where they start
 * in the tile) go in the output: the pass's base plus, in a onesweep pass,
 * the look-back over the tiles before; the single work-group sort (lb 0)
 * has one tile; a segment that is one tile (bases 0) keeps its own starts. */
inline idx_t clsort_tile_dest(global uint *lb, global const idx_t *bases, uint tile, uint d,
                              uint count, uint start)
{
    if (!bases)
        return start;
    return bases[d] + (lb ? clsort_lookback(lb, tile, d, count) : 0);
}

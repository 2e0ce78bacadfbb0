/* radix_onesweep.cl - the GPU shape of a onesweep pass (Adinets and
 * Merrill 2022; Polok's fused scan and scatter): the tile of a work-group.
 *
 * Each work-group takes the next tile of the input from an atomic counter
 * (so tiles start in order), counts the tile's digits and publishes them at
 * once, ranks the tile's keys stably, learns where its keys of each digit go
 * by decoupled look-back over the tiles before it (radix_lookback.cl), and
 * writes the tile out in digit order so that the writes of each digit are
 * contiguous. The kernels that run tiles are radix_passes.cl's; the pass's
 * global digit offsets come from clsort_radix_plan (radix.cl), which also
 * says whether this pass runs at all and which buffers it reads and writes.
 * The CPU shape, one work-item per tile, is radix_msd.cl.
 *
 * Program: layout.h, common.cl, radix_layout.h, radix.cl, radix_lookback.cl,
 * this file, radix_passes.cl. Defines it needs, besides theirs:
 *   CLSORT_OS_RANK   how a tile is ranked: 1 a local-memory counting sort
 *                    of 4-bit sub-digits (portable); 3 one warp ballot per
 *                    digit bit, 4 one local atomic_or per key into the
 *                    warp's digit masks, both through inline PTX (NVIDIA)
 *   CLSORT_OS_PERSIST  1: persistent work-groups, each taking tile after
 *                    tile (radix_passes.cl)
 *   CLSORT_OS_MATCH_MAX  with rank 4: a tile whose rows of 32 keys hold
 *                    about this many distinct digits or fewer ranks by
 *                    match.any (sm_70, the digit scan by warps; optional,
 *                    0: never)
 */
#if CLSORT_OS_RANK != 1 && CLSORT_OS_RANK != 3 && CLSORT_OS_RANK != 4
#error "radix_onesweep.cl ranks a tile by CLSORT_OS_RANK 1 (local), 3 (ballot) or 4 (atomic_or)"
#endif
#if CLSORT_OS_RANK >= 3 && (!CLSORT_NVIDIA || CLSORT_OS_WG % 32 != 0)
#error "warp ranking (CLSORT_OS_RANK 3, 4) needs NVIDIA and a work-group size multiple of 32"
#endif
#if CLSORT_OS_RANK >= 3 && CLSORT_RADIX_BITS > 8
#error "the warp ranking packs digits of at most 8 bits four to a word"
#endif
#define OS_MSD_LAUNCHES 0 /* MSD order is the CPU shape's alone (radix_msd.cl) */
/* pass 0 by the few keys' ranks (PASS_REMAP): keys of an integer type with values */
#define OS_REMAP (HAVE_VALUES && CLSORT_KEY_KIND != 2)
#ifndef CLSORT_OS_MATCH_MAX
#define CLSORT_OS_MATCH_MAX 0
#endif

#if CLSORT_OS_RANK >= 3
#define WARPS (CLSORT_OS_WG / 32)
#define STAGE_BYTES (CLSORT_KEY_BYTES > CLSORT_VAL_BYTES ? CLSORT_KEY_BYTES : CLSORT_VAL_BYTES)
#define STAGE_U128 ((OS_TILE * STAGE_BYTES + 15) / 16)
#if CLSORT_OS_RANK == 4
#define WH_WORDS (2 * WARPS * RADIX) /* counters, then digit masks */
#else
#define WH_WORDS (WARPS * RADIX)
#endif
#define WH_U128 ((WH_WORDS * 4 + 15) / 16)
/* the digit scan by warp shuffles: one work-item per digit */
#define WARP_DIGIT_SCAN (RADIX % 32 == 0 && RADIX <= CLSORT_OS_WG)
/* the tile's choice between match.any and atomic_or (os_rank_keys), made in
 * the digit scan by warps; the scan packs two sums below 2^16 a word */
#define OS_MATCH (CLSORT_OS_RANK == 4 && CLSORT_OS_MATCH_MAX > 0 && WARP_DIGIT_SCAN)
#if OS_MATCH && (!CLSORT_NV_SM70 || OS_TILE >= 65536)
#error "CLSORT_OS_MATCH_MAX needs match.any (compute capability 7 or later) and tiles below 65536 keys"
#endif
/* rows of each warp whose runs of equal digits are counted (OS_MATCH) */
#define OS_RUN_ROWS 3
/* The word of a warp's counters and masks that holds digit d: the low 5
 * bits (the bank) XORed with 13 times bits 5-7, a bijection within each 32
 * words, so that match.any, the ballots and the runs see the same peers.
 * Digits that real keys share often differ only above bit 4 (AND-reduced
 * keys' digits with few bits set, sorted keys whose digit steps by 32),
 * and those lanes' atomics on one bank serialise; spread, they land on
 * different banks, while uniform digits stay uniform. For 4-byte integer
 * keys alone: float keys' and 8-byte keys' tiles measured slower with it
 * (docs/PERFORMANCE.md, decision log, GPU pass). */
#if RADIX >= 32 && CLSORT_KEY_BYTES == 4 && CLSORT_KEY_KIND != 2 && !HAVE_VALUES
#define OS_WORD(d) ((d) ^ ((((d) >> 5) & 7u) * 13u & 31u))
#else
#define OS_WORD(d) (d)
#endif
#endif

/* The local memory of a tile, by ranking variant: one struct, so that the
 * pass kernels declare it alike (members in order of alignment;
 * OS_MEM_BYTES in radix_layout.h counts it for the host, and the check
 * after it stops the build where the two disagree). */
typedef struct os_mem {
#if CLSORT_OS_RANK == 1
    KEY_T lkeys[OS_TILE];
    idx_t ltg[RADIX];
    uint lh[RADIX], lcount[RADIX];
    uint scan_s[SCAN_LOCAL_WORDS(CLSORT_OS_WG)];
    ushort perm[2 * OS_TILE];
    ushort cnt_l[RANK_CNT_WORDS(CLSORT_OS_WG)];
    uchar ldig[OS_TILE];
#else
    /* The warps' counters (and masks) are dead once the tile is ranked: the
     * staging of the sorted tile reuses their memory (16-byte aligned for
     * uint4 values). */
    uint4 stage[STAGE_U128 > WH_U128 ? STAGE_U128 : WH_U128];
    idx_t ltg[RADIX];
    uint lstart[RADIX], lcount[RADIX];
    uint scan_s[SCAN_LOCAL_WORDS(CLSORT_OS_WG)];
    uint wsum[WARP_DIGIT_SCAN ? RADIX / 32 : 1];
    uint wruns[WARPS]; /* runs of equal digits in a warp's sampled rows (OS_MATCH) */
    uint by_match;     /* the tile ranks by match.any (OS_MATCH) */
#endif
    uint tile; /* the tile's number, set by work-item 0 before clsort_os_tile */
    uint next; /* a persistent work-group's next tile (next_counter) */
} os_mem;
OS_MEM_CHECK(OS_MEM_BYTES(CLSORT_OS_RANK, CLSORT_OS_WG, OS_TILE, RADIX, CLSORT_KEY_BYTES,
                          CLSORT_VAL_BYTES, sizeof(idx_t), 0));

/* One tile of a pass: tile m->tile of the portion src[0, len), ranked
 * stably by the digit (shift, mask, flip; where remap is not 0, by
 * remap[digit], PASS_REMAP) and written to dst in digit order
 * (clsort_tile_dest says where; a onesweep pass, lb not 0, first publishes
 * the tile's counts; bases 0: the tile is the whole output). Values go
 * along; with gen they are generated: portion index + gen_base. The caller
 * has set m->tile (work-item 0) before. */
#if CLSORT_OS_RANK == 1
/* The portable ranking: the tile in local memory, a counting sort of 4-bit
 * sub-digits. */
inline void clsort_os_tile(local os_mem *m, const global KEY_T *src, global KEY_T *dst,
                           const global VAL_T *vsrc, global VAL_T *vdst, uint gen,
                           idx_t gen_base, uint len, uint shift, uint mask, uint flip,
                           const global uchar *remap, global uint *lb,
                           global const idx_t *bases, global uint *next_counter)
{
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(d, RADIX)
        m->lh[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    clsort_load_tile_local(src, t0, cnt, CLSORT_OS_ITEMS, CLSORT_OS_WG, lid, shift, mask, flip,
                           remap, m->lkeys, m->ldig, m->lh);
    barrier(CLK_LOCAL_MEM_FENCE);
    FOR_EACH_LOCAL(d, RADIX) {
        m->lcount[d] = m->lh[d];
        if (lb)
            clsort_publish_aggregate(lb, tile, d, m->lh[d]);
    }
    const uint order = clsort_rank_local(m->ldig, CLSORT_OS_ITEMS, m->perm, m->cnt_l, m->scan_s);
    clsort_local_exclusive_scan(m->lh, RADIX, m->scan_s); /* lh: tile digit starts */
    FOR_EACH_LOCAL(d, RADIX)
        m->ltg[d] = clsort_tile_dest(lb, bases, tile, d, m->lcount[d], m->lh[d]) - m->lh[d];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (next_counter && lid == 0) /* the next tile's number, during the writes */
        m->next = atomic_inc(next_counter);
    FOR_EACH_LOCAL(i, cnt) {
        uint s = m->perm[order + i];
        idx_t p = m->ltg[m->ldig[s]] + i;
        dst[p] = m->lkeys[s];
#if HAVE_VALUES
        vdst[p] = GEN_VALUE(gen, gen_base + t0 + s, vsrc[t0 + s]);
#endif
    }
}
#else
/* How a warp ranks its keys (os_rank_key). Under atomic_or a warp's keys
 * that share a digit serialise on one word, while match.any costs less the
 * fewer distinct digits a row of 32 keys holds and far more than atomic_or
 * on uniform digits. With CLSORT_OS_RANK 4 the tile chooses from two
 * estimates of the distinct digits of a row, both from work it does anyway:
 * a digit counted c times in a warp's CLSORT_OS_ITEMS rows is in about
 * min(c, CLSORT_OS_ITEMS) / CLSORT_OS_ITEMS of them where keys lie at random
 * (summed in the digit scan), and where equal digits lie together a row
 * holds no more digits than runs (counted in OS_RUN_ROWS rows of each warp
 * at the count). Repeated keys, AND-reduced keys whose digit 0 fills most of
 * a row, runs of sorted keys, and every pass after the first over few
 * distinct values rank by match.any; uniform digits by atomic_or. */
#define OS_BY_OR 0
#define OS_BY_BALLOT 1
#define OS_BY_MATCH 2

/* The rank of a key of digit d (its word OS_WORD(d), as the counters and
 * masks are indexed) among the warp's keys so far: its peers
 * (same digit, this round) get consecutive places after what the warp's
 * earlier keys of that digit took; the highest peer bumps the warp's
 * counter wh[d] and broadcasts the old value. wm: the warp's digit masks
 * (zero between keys) for OS_BY_OR. */
inline uint os_rank_key(uint how, uint d, uint lane, uint le_mask, local uint *wh,
                        volatile local uint *wm)
{
    uint peers;
#if OS_MATCH
    if (how == OS_BY_MATCH)
        peers = clsort_match_any(d);
    else
#endif
    if (how == OS_BY_BALLOT) {
        peers = clsort_match_ballot(d, CLSORT_RADIX_BITS);
    } else {
        /* each lane sets its bit in its digit's mask, and after the warp
         * meets, the mask is its peers */
        atomic_or(&wm[d], 1u << lane);
        clsort_warp_sync();
        peers = wm[d];
    }
    const uint leader = 31 - clz(peers);
    const uint below = popcount(peers & le_mask);
    uint off = 0;
    if (lane == leader)
        off = atomic_add(&wh[d], below);
    const uint r = clsort_shfl(off, leader) + below - 1;
    if (how == OS_BY_OR) {
        /* every lane has read its mask (the shuffle waited for them all;
         * the empty asm keeps the compiler from moving the store above it,
         * as CUB's WARP_MATCH_ATOMIC_OR relies on): the leader clears it
         * for the next key */
        asm volatile("" ::: "memory");
        if (lane == leader)
            wm[d] = 0;
        clsort_warp_sync();
    }
    return r;
}

/* The ranks of a work-item's keys (their digits dg, four to a word), two
 * 16-bit ranks to a word of rk; `how` a constant where it is called, so
 * that each way is a loop of its own (a test per key measured slower). */
inline void os_rank_keys(uint how, const uint *dg, uint *rk, uint lane, local uint *wh,
                         volatile local uint *wm)
{
    const uint le_mask = clsort_lanemask_le();
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++) {
        const uint d = (dg[j / 4] >> (8 * (j % 4))) & 0xffu;
        const uint r = os_rank_key(how, d, lane, le_mask, wh, wm);
        if (j & 1)
            rk[j / 2] |= r << 16;
        else
            rk[j / 2] = r;
    }
}

/* NVIDIA: a warp-striped tile, counts per warp, warp ranking. */
inline void clsort_os_tile(local os_mem *m, const global KEY_T *src, global KEY_T *dst,
                           const global VAL_T *vsrc, global VAL_T *vdst, uint gen,
                           idx_t gen_base, uint len, uint shift, uint mask, uint flip,
                           const global uchar *remap, global uint *lb,
                           global const idx_t *bases, global uint *next_counter)
{
    local uint *lwh = (local uint *)m->stage;
    const uint lid = get_local_id(0);
    const uint lane = lid & 31u, warp = lid >> 5;
    local uint *wh = lwh + warp * RADIX;
    FOR_EACH_LOCAL(e, WH_WORDS)
        lwh[e] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    const uint wbase = warp * (32 * CLSORT_OS_ITEMS) + lane;

    /* Registers are what limits occupancy here: keep the keys, pack their
     * digits four to a word and two 16-bit ranks into each word. The
     * keys load from one pointer with constant offsets (an index per key
     * made an address computation each; decision log, GPU pass). Which
     * keys exist: with values, a count of the work-item's keys (j < own);
     * keys alone compare each key's index, which takes fewer registers
     * there than the count. */
    const bool full = cnt == OS_TILE;
#if HAVE_VALUES
    const uint own = full ? CLSORT_OS_ITEMS : cnt > wbase ? (cnt - wbase + 31) / 32 : 0;
#define ITEM_OK(j) ((j) < own)
#else
#define ITEM_OK(j) (full || wbase + (j) * 32 < cnt)
#endif
#define DIG(k)                                                                                 \
    (remap ? (uint)remap[DIGIT_OF(k, shift, mask, flip)] : DIGIT_OF(k, shift, mask, flip))
    const global KEY_T *ksrc = src + (t0 + wbase);
    KEY_T keys[CLSORT_OS_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        keys[j] = ITEM_OK(j) ? ksrc[j * 32] : (KEY_T)0;
    /* the digits, 4 to a word, for the ranking (computed once: a float
     * key's image takes several instructions), as the words of the
     * warp's counters and masks that hold them (OS_WORD) */
    uint dg[(CLSORT_OS_ITEMS + 3) / 4];
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++) {
        const uint d = OS_WORD(ITEM_OK(j) ? DIG(keys[j]) : RADIX - 1);
        if (ITEM_OK(j))
            atomic_inc(&wh[d]);
        dg[j / 4] = j % 4 ? dg[j / 4] | d << (8 * (j % 4)) : d;
    }
#if OS_MATCH
    {
        /* runs of equal digits in rows spread over the warp's (a new run
         * where a lane's digit is not its left neighbour's) */
        uint runs = 0;
#pragma unroll
        for (uint q = 0; q < OS_RUN_ROWS; q++) {
            const uint j = q * CLSORT_OS_ITEMS / OS_RUN_ROWS;
            const uint d = (dg[j / 4] >> (8 * (j % 4))) & 0xffu;
            const uint left = clsort_shfl_up(d, 1); /* every lane: a .sync shuffle */
            runs += popcount(clsort_ballot(lane == 0 || d != left));
        }
        if (lane == 0)
            m->wruns[warp] = runs;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#if WARP_DIGIT_SCAN
    /* One work-item per digit: its count per warp becomes an exclusive
     * prefix over the warps (up-sweep), the tile's count is published, and
     * the digits' exclusive prefix comes from warp shuffles and one word per
     * warp (2 barriers instead of a tree over the work-group). */
    uint tot = 0, wexcl = 0; /* wexcl: the warp's digits before this one */
    if (lid < RADIX) {
#if OS_MATCH
        uint rows = 0; /* the rows of each warp this digit is in, estimated */
#endif
        for (uint w = 0; w < WARPS; w++) {
            uint c = lwh[w * RADIX + OS_WORD(lid)];
            lwh[w * RADIX + OS_WORD(lid)] = tot;
            tot += c;
#if OS_MATCH
            rows += min(c, (uint)CLSORT_OS_ITEMS);
#endif
        }
        m->lcount[lid] = tot;
        if (lb)
            clsort_publish_aggregate(lb, tile, lid, tot);
#if OS_MATCH
        /* the estimate scanned with the counts, in the high half */
        const uint packed = tot | rows << 16;
#else
        const uint packed = tot;
#endif
        wexcl = clsort_warp_inclusive_scan(packed, lane) - packed;
        if (lane == 31)
            m->wsum[warp] = wexcl + packed;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX) {
        uint excl = wexcl;
        for (uint w = 0; w < warp; w++)
            excl += m->wsum[w];
#if OS_MATCH
        excl &= 0xffffu;
        if (lid == 0) {
            uint rows = 0, runs = 0;
            for (uint w = 0; w < RADIX / 32; w++)
                rows += m->wsum[w] >> 16;
            for (uint w = 0; w < WARPS; w++)
                runs += m->wruns[w];
            m->by_match = rows <= CLSORT_OS_MATCH_MAX * CLSORT_OS_ITEMS * WARPS ||
                          runs <= CLSORT_OS_MATCH_MAX * OS_RUN_ROWS * WARPS;
        }
#endif
        m->lstart[lid] = excl;
        for (uint w = 0; w < WARPS; w++)
            lwh[w * RADIX + OS_WORD(lid)] += excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    FOR_EACH_LOCAL(d, RADIX) {
        uint tot = 0;
        for (uint w = 0; w < WARPS; w++) {
            uint c = lwh[w * RADIX + OS_WORD(d)];
            lwh[w * RADIX + OS_WORD(d)] = tot;
            tot += c;
        }
        m->lcount[d] = tot;
        m->lstart[d] = tot;
        if (lb)
            clsort_publish_aggregate(lb, tile, d, tot);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    clsort_local_exclusive_scan(m->lstart, RADIX, m->scan_s);
    FOR_EACH_LOCAL(d, RADIX)
        for (uint w = 0; w < WARPS; w++)
            lwh[w * RADIX + OS_WORD(d)] += m->lstart[d];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    /* Rank. Keys past the end of a partial tile rank last (digit RADIX-1)
     * and are never written. */
    uint rk[(CLSORT_OS_ITEMS + 1) / 2];
#if CLSORT_OS_RANK == 4
    volatile local uint *wm = lwh + WARPS * RADIX + warp * RADIX;
#if OS_MATCH
    if (m->by_match) /* uniform: read after the scan's barriers */
        os_rank_keys(OS_BY_MATCH, dg, rk, lane, wh, wm);
    else
#endif
        os_rank_keys(OS_BY_OR, dg, rk, lane, wh, wm);
#else
    os_rank_keys(OS_BY_BALLOT, dg, rk, lane, wh, 0);
#endif
#define RANK_OF(j) ((rk[(j) / 2] >> (((j) & 1) * 16)) & 0xffffu)
    /* Stage the tile in digit order, then look back (its latency overlaps
     * the other work-groups' progress), then write it out. */
    barrier(CLK_LOCAL_MEM_FENCE); /* every warp is done with its counters */
    local KEY_T *skeys = (local KEY_T *)m->stage;
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        if (ITEM_OK(j))
            skeys[RANK_OF(j)] = keys[j];
    FOR_EACH_LOCAL(d, RADIX)
        m->ltg[d] =
            clsort_tile_dest(lb, bases, tile, d, m->lcount[d], m->lstart[d]) - m->lstart[d];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* a persistent work-group's next tile: the atomic's latency passes
     * during the writes (its result is stored at the end) */
    uint next = 0;
    if (next_counter && lid == 0)
        next = atomic_inc(next_counter);
#if HAVE_VALUES
    uint dpack[(CLSORT_OS_ITEMS + 3) / 4]; /* the digits of the sorted keys */
#endif
    /* the tile's keys in order, work-item lid writing keys q * WG + lid for
     * q < own_q */
    const uint own_q =
        full ? CLSORT_OS_ITEMS : cnt > lid ? (cnt - lid + CLSORT_OS_WG - 1) / CLSORT_OS_WG : 0;
#pragma unroll
    for (uint q = 0; q < CLSORT_OS_ITEMS; q++) {
        uint i = q * CLSORT_OS_WG + lid;
        if (q < own_q) {
            KEY_T key = skeys[i];
            uint d = DIG(key);
            dst[m->ltg[d] + i] = key;
#if HAVE_VALUES
            if (q % 4 == 0)
                dpack[q / 4] = d;
            else
                dpack[q / 4] |= d << (8 * (q % 4));
#endif
        }
    }
#if HAVE_VALUES
    VAL_T vals[CLSORT_OS_ITEMS];
    const global VAL_T *vs = vsrc + (t0 + wbase);
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        if (ITEM_OK(j))
            vals[j] = GEN_VALUE(gen, gen_base + t0 + wbase + j * 32, vs[j * 32]);
    barrier(CLK_LOCAL_MEM_FENCE);
    local VAL_T *svals = (local VAL_T *)m->stage;
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        if (ITEM_OK(j))
            svals[RANK_OF(j)] = vals[j];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint q = 0; q < CLSORT_OS_ITEMS; q++) {
        uint i = q * CLSORT_OS_WG + lid;
        if (q < own_q)
            vdst[m->ltg[(dpack[q / 4] >> (8 * (q % 4))) & 0xffu] + i] = svals[i];
    }
#endif
    if (next_counter && lid == 0)
        m->next = next;
#undef ITEM_OK
#undef DIG
#undef RANK_OF
}
#endif

/* radix_passes.cl - the kernels that run onesweep tiles, for either shape
 * of the tile (clsort_os_tile and its local memory os_mem: the GPU's
 * radix_onesweep.cl or the CPU's radix_msd.cl, which come before this file):
 * a pass over a portion of the input (clsort_radix_onesweep), every pass of
 * a small sort in one launch (clsort_radix_chain), a sort of one tile in one
 * work-group (clsort_radix_single), a batch of segments of one tile each
 * (clsort_radix_segments), and the carry between portions
 * (clsort_radix_carry); a launch whose pass does not sort copies, reverses
 * or finishes its tiles instead (clsort_os_idle).
 */
#if !defined(OS_MSD_LAUNCHES) || !defined(OS_REMAP)
#error "radix_passes.cl needs a tile shape before it: radix_onesweep.cl or radix_msd.cl"
#endif

/* A launch whose pass does not sort works tile by tile: work-group g takes
 * tiles g, g + groups, ... of the portion (one tile each, unless the
 * work-groups are persistent); tile t starts at clsort_os_tile_at and has
 * clsort_os_tile_count keys (a 32-bit count: the loops vectorise on CPUs). */
#define clsort_os_tile_at(portion_start, t) ((ulong)(portion_start) + (ulong)(t) * OS_TILE)
#define clsort_os_tile_count(portion_len, t) \
    ((uint)min((ulong)OS_TILE, (ulong)(portion_len) - (ulong)(t) * OS_TILE))

/* What a launch does when its pass does not sort (active, src, dst, first:
 * the pass's plan words): the plan's PASS_COPY (ALLOW_FOLD) copies its tile
 * from the pass's source to its destination, keys and values (or argsort's
 * generated indices); with finish = 1 (the last launch of a sort whose last
 * pass is skipped) it does the finish's work for its tile: A back to U when
 * one pass ran, or argsort's identity when none did; PASS_FILL (pass 0,
 * few keys: clsort_radix_fill_check) writes its tile from the table. ku
 * and vu: the caller's buffers at their offsets. */
/* The plan's PASS_REVERSE: key i trades places with key n - 1 - i (n from
 * the state); argsort's index of place i is n - 1 - i (first: generate).
 * The tile of keys [lo, lo + cnt) swaps the pairs whose lower place is in
 * [lo / 2, (lo + cnt) / 2), the last tile also the middle key of an odd n,
 * so that every tile does the same work (the tiles of the upper half had
 * none, and a CPU's threads that took them sat idle). One pair at a time:
 * loads of several pairs first (more loads in flight) raised the onesweep
 * kernel's registers, whose idle path this is, and slowed every pass
 * (decision log, GPU pass). */
inline void clsort_os_reverse(global KEY_T *ku, global VAL_T *vu, ulong lo, uint cnt, uint first,
                              global const uint *state)
{
    const ulong n = (ulong)state[ST_REV_N] | (ulong)state[ST_REV_N + 1] << 32;
    const ulong p0 = lo / 2, p1 = lo + cnt == n ? (n + 1) / 2 : (lo + cnt) / 2;
    const uint pairs = (uint)(p1 - p0);
    for (uint j = get_local_id(0); j < pairs; j += CLSORT_OS_WG) {
        const ulong i = p0 + j, m = n - 1 - i;
        if (i < m) {
            const KEY_T k = ku[i];
            ku[i] = ku[m];
            ku[m] = k;
#if HAVE_VALUES
            const VAL_T v = vu[i];
            vu[i] = GEN_VALUE(first, m, vu[m]);
            vu[m] = GEN_VALUE(first, i, v);
        } else if (i == m) {
            vu[i] = GEN_VALUE(first, i, vu[i]);
#endif
        }
    }
}

/* The plan's PASS_FILL (clsort_radix_fill_check found every key one of
 * the table's few): place i of the tile [lo, lo + cnt) gets the key whose
 * run holds it, walking the runs up from the one that holds lo. */
inline void clsort_os_fill(global KEY_T *ku, ulong lo, uint cnt, global const uint *state)
{
    const uint at = state[ST_FILL_AT];
    const global ulong *start = (const global ulong *)(state + at);
    const global KEY_T *key = (const global KEY_T *)(state + at + FILL_TABLE_KEYS(RADIX));
    uint a = 0, b = state[ST_FILL_KEYS]; /* start[a] <= lo < start[b] (start[K] = n) */
    while (b - a > 1) {
        const uint m = (a + b) / 2;
        if (start[m] <= lo)
            a = m;
        else
            b = m;
    }
    ulong next = start[a + 1];
    KEY_T k = key[a];
    for (uint j = get_local_id(0); j < cnt; j += CLSORT_OS_WG) {
        const ulong i = lo + j;
        if (next <= i) {
            while (start[a + 1] <= i)
                a++;
            next = start[a + 1];
            k = key[a];
        }
        ku[i] = k;
    }
}

inline void clsort_os_idle(uint active, uint si, uint di, uint first, uint finish,
                           global KEY_T *ku, global KEY_T *ka, global KEY_T *kb,
                           global VAL_T *vu, global VAL_T *va, global VAL_T *vb,
                           idx_t portion_start, uint portion_len, global const uint *state)
{
    const uint tiles = (uint)(((ulong)portion_len + OS_TILE - 1) / OS_TILE);
    for (uint t = get_group_id(0); t < tiles; t += get_num_groups(0)) { /* uniform */
        const ulong lo = clsort_os_tile_at(portion_start, t);
        const uint cnt = clsort_os_tile_count(portion_len, t);
        if (active == PASS_COPY) {
            global const KEY_T *s = SELECT_BUF(si, ku, ka, kb) + lo;
            global KEY_T *d = SELECT_BUF(di, ku, ka, kb) + lo;
            for (uint j = get_local_id(0); j < cnt; j += CLSORT_OS_WG)
                d[j] = s[j];
#if HAVE_VALUES
            global const VAL_T *sv = SELECT_BUF(si, vu, va, vb) + lo;
            global VAL_T *dv = SELECT_BUF(di, vu, va, vb) + lo;
            for (uint j = get_local_id(0); j < cnt; j += CLSORT_OS_WG)
                dv[j] = GEN_VALUE(first, lo + j, sv[j]);
#endif
        } else if (active == PASS_REVERSE) {
            clsort_os_reverse(ku, vu, lo, cnt, first, state);
        } else if (active == PASS_FILL) {
            clsort_os_fill(ku, lo, cnt, state);
        } else if (finish) {
            const uint copy_back = state[ST_COPY_BACK];
            if (copy_back || state[ST_IOTA])
                for (uint j = get_local_id(0); j < cnt; j += CLSORT_OS_WG)
                    clsort_finish_one(ku, ka, vu, va, (idx_t)(lo + j), copy_back);
        }
    }
}

/* One pass over a portion of the input (see clsort_launch_pass). Digit d of
 * the portion starts at bases[bases_off + d]: the plan's row of the pass
 * (where the digit starts overall; BASES_OF_PASS: the row of the pass the
 * plan chose, for an MSD launch) for the first portion, and for the others
 * the carry row, which clsort_radix_carry sets to that plus the keys of digit
 * d in the portions before. The upfront counts per portion would not do: they
 * count the input's portions, and every pass after the first reads a
 * permutation of it. */
kernel __attribute__((reqd_work_group_size(CLSORT_OS_WG, 1, 1)))
void clsort_radix_onesweep(CLSORT_PARAMS(clsort_radix_onesweep))
{
    local os_mem m;
    /* The pass is the argument, which keeps shift and mask in kernel
     * parameters (deriving it from state measured slower: decision log, GPU
     * pass); only the CPU shape's MSD launch (radix_msd.cl) runs the pass
     * the plan chose. The tile's number and the pass's plan are fetched at
     * once: the atomic and the loads are in flight together (an inactive
     * pass takes a number of its own counter, which nothing reads). */
    uint pass = pass_arg, kind = PASS_LSD;
    if (OS_MSD_LAUNCHES && pass_arg == MSD_LAUNCH) {
        if (!clsort_launch_pass(state, pass_arg, &pass))
            return; /* the plan chose LSD order, or the tile pass sorted by the top digit */
        kind = PASS_MSD;
        if (bases_off == BASES_OF_PASS)
            bases_off = (ulong)pass * RADIX;
    }
    if (get_local_id(0) == 0)
        m.tile = atomic_inc(&tile_counter[counter_idx]);
    const global uint *st = state + ST_PASS(pass);
    const uint4 w = *(const global uint4 *)st; /* one load: active, src, dst, first */
    bases += bases_off;
    ku += ku_off;
    vu += vu_off;
    const uint si = w.s1, di = w.s2;
#define OS_PASS_TILE(shift, mask, remap, next_counter)                                           \
    clsort_os_tile(&m, SELECT_BUF(si, ku, ka, kb) + portion_start, SELECT_BUF(di, ku, ka, kb),   \
                   SELECT_BUF(si, vu, va, vb) + portion_start, SELECT_BUF(di, vu, va, vb),     \
                   HAVE_VALUES ? w.s3 : 0u, portion_start, portion_len, shift, mask,           \
                   descending ? mask : 0u, remap, lookback + lb_off, bases, next_counter)
#if CLSORT_OS_PERSIST
    /* Persistent work-groups (fewer than tiles, about as many as run at
     * once): each sorts tile after tile, taking the next tile's number from
     * the counter during the current tile's writes, so that neither that
     * atomic's latency nor a work-group's start comes between its tiles.
     * Tiles are still numbered in the order they are taken, and a tile
     * waits only on tiles taken before it, by work-groups that are running. */
#define OS_PASS_TILES(shift, mask, remap)                                                       \
    do {                                                                                        \
        const uint tiles = (uint)(((ulong)portion_len + OS_TILE - 1) / OS_TILE);                \
        barrier(CLK_LOCAL_MEM_FENCE); /* m.tile */                                              \
        while (m.tile < tiles) { /* uniform: read after a barrier */                            \
            OS_PASS_TILE(shift, mask, remap, &tile_counter[counter_idx]);                       \
            barrier(CLK_LOCAL_MEM_FENCE); /* the tile's local memory is free, m.next set */     \
            if (get_local_id(0) == 0)                                                           \
                m.tile = m.next;                                                                \
            barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        }                                                                                       \
    } while (0)
#else
#define OS_PASS_TILES(shift, mask, remap) OS_PASS_TILE(shift, mask, remap, 0)
#endif
    if (w.s0 != kind) {
#if OS_REMAP
        if (w.s0 == PASS_REMAP && kind == PASS_LSD) { /* uniform */
            /* pass 0 by the keys' ranks (clsort_radix_fill_check): each
             * key's digit of the check's pass, through its table; a call
             * of its own, so that the passes' tiles take no table */
            const uint fp = state[ST_FILL] - 1;
            const uint shift = clsort_pass_shift(begin_bit, fp);
            const uint mask = clsort_pass_mask(begin_bit, end_bit, fp);
            const global uchar *remap =
                (const global uchar *)(state + state[ST_FILL_AT] + FILL_TABLE_REMAP(RADIX));
            OS_PASS_TILES(shift, mask, remap);
            return;
        }
#endif
        if (kind == PASS_LSD)
            clsort_os_idle(w.s0, w.s1, w.s2, HAVE_VALUES ? w.s3 : 0u, finish, ku, ka, kb, vu, va,
                           vb, portion_start, portion_len, state);
        return;
    }
    const uint shift = clsort_pass_shift(begin_bit, pass);
    const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
    OS_PASS_TILES(shift, mask, (const global uchar *)0);
#undef OS_PASS_TILES
#undef OS_PASS_TILE
}

/* Every LSD pass of a one-portion sort in one launch (inputs of tens to
 * hundreds of tiles, where a launch costs about what a pass's work does):
 * passes * tiles work-groups take numbers g from chain[0] in launch order;
 * number g is tile g % tiles of pass g / tiles. A tile of pass p > 0 first
 * waits until every tile of pass p - 1 has signed off in chain[p] (pass p's
 * sign-offs go to chain[1 + p]): those tiles took smaller numbers, so they
 * have started, which is what the look-back already assumes of a tile's
 * predecessors - no work-group waits on one that may not have started.
 * Inactive passes sign off at once. chain: scratch + chain_off, 1 + passes
 * words, zero before the launch; the look-back words of pass p follow
 * lb_off at p * tiles * RADIX. */
kernel __attribute__((reqd_work_group_size(CLSORT_OS_WG, 1, 1)))
void clsort_radix_chain(CLSORT_PARAMS(clsort_radix_chain))
{
    local os_mem m;
    local uint pass_l;
    global uint *chain = scratch + chain_off;
    if (get_local_id(0) == 0) {
        const uint g = atomic_inc(&chain[0]);
        const uint p = g / tiles;
        m.tile = g - p * tiles;
        pass_l = p;
        if (p > 0) {
            while (LB_LOAD(&chain[p]) < tiles)
                ;
            clsort_global_fence(); /* the previous pass's keys, from here on */
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    const uint pass = pass_l;
    const uint4 w = *(const global uint4 *)(state + ST_PASS(pass)); /* active, src, dst, first */
    if (w.s0 == PASS_LSD) {
        ku += ku_off;
        vu += vu_off;
        const uint si = w.s1, di = w.s2;
        const uint shift = clsort_pass_shift(begin_bit, pass);
        const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
        clsort_os_tile(&m, SELECT_BUF(si, ku, ka, kb), SELECT_BUF(di, ku, ka, kb),
                       SELECT_BUF(si, vu, va, vb), SELECT_BUF(di, vu, va, vb),
                       HAVE_VALUES ? w.s3 : 0u, 0, n, shift, mask, descending ? mask : 0u, 0,
                       scratch + lb_off + (ulong)pass * tiles * RADIX, bases + pass * RADIX, 0);
    } else if (w.s0 == PASS_REVERSE) { /* pass 0 only: the passes after it wait for it */
        clsort_os_reverse(ku + ku_off, vu + vu_off, clsort_os_tile_at(0, m.tile),
                          clsort_os_tile_count(n, m.tile), HAVE_VALUES ? w.s3 : 0u, state);
    }
    /* sign off once every work-item's writes are done */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        clsort_global_fence();
        atomic_inc(&chain[1 + pass]);
    }
}

/* A whole sort of at most one tile by one work-group, in one launch (small
 * inputs, where each launch of the multi-launch sort costs more than its
 * work). It counts every pass's digits, makes the plan of the multi-launch
 * sort (clsort_plan, into state and bases, constant digits skipped), runs
 * each active pass as a tile whose digits start at the pass's bases, and
 * ends as clsort_radix_finish does. counts: scratch for passes * RADIX
 * words. */
typedef struct single_plan_mem {
    idx_t s[SCAN_LOCAL_WORDS(CLSORT_OS_WG)];
    uint h[MAX_PASSES * RADIX];
    uint constant_digit[PLAN_PASS_WORDS];
} single_plan_mem;
/* (a build error where SINGLE_PLAN_BYTES, radix_layout.h, does not hold it) */
typedef char single_plan_counted_
    [sizeof(single_plan_mem) <= SINGLE_PLAN_BYTES(CLSORT_OS_WG, MAX_PASSES, RADIX) ? 1 : -1];

kernel __attribute__((reqd_work_group_size(CLSORT_OS_WG, 1, 1)))
void clsort_radix_single(CLSORT_PARAMS(clsort_radix_single))
{
    local union {
        os_mem tile;
        single_plan_mem plan;
    } m;
    const uint lid = get_local_id(0);
    ku += ku_off;
    vu += vu_off;
    clsort_count_and_plan(ku, n, passes, begin_bit, end_bit, descending, 1, gen_index, counts,
                          state, bases, m.plan.h, m.plan.s, m.plan.constant_digit, CLSORT_OS_WG);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    for (uint p = 0; p < passes; p++) {
        const global uint *st = state + ST_PASS(p);
        if (st[ST_PASS_ACTIVE] != PASS_LSD)
            continue;
        const uint si = st[ST_PASS_SRC], di = st[ST_PASS_DST];
        const uint gen = HAVE_VALUES ? st[ST_PASS_FIRST] : 0u;
        const uint shift = clsort_pass_shift(begin_bit, p);
        const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
        if (lid == 0)
            m.tile.tile = 0;
        clsort_os_tile(&m.tile, SELECT_BUF(si, ku, ka, kb), SELECT_BUF(di, ku, ka, kb),
                       SELECT_BUF(si, vu, va, vb), SELECT_BUF(di, vu, va, vb), gen, 0, n, shift,
                       mask, descending ? mask : 0u, 0, 0, bases + p * RADIX, 0);
        /* the next pass reads what this one wrote, and reuses the local memory */
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
    const uint copy_back = state[ST_COPY_BACK], iota = state[ST_IOTA];
    if (copy_back || iota)
        FOR_EACH_LOCAL(i, n)
            clsort_finish_one(ku, ka, vu, va, i, copy_back);
}

/* Segments of at most one tile each, one work-group per segment (a batch of
 * small sorts in one launch): every pass of a segment is one tile whose
 * keys keep their own digit starts (the segment is the whole tile),
 * U -> A -> U ..., with the copy back after an odd number of passes. Temp A
 * spans the array (the same positions). Segments as clsort_bitonic_segments
 * takes them (offsets relative to ku_off, clamped to n and to the tile: bad
 * offsets give a wrong order, never a stray write). */
kernel __attribute__((reqd_work_group_size(CLSORT_OS_WG, 1, 1)))
void clsort_radix_segments(CLSORT_PARAMS(clsort_radix_segments))
{
    local os_mem m;
    const ulong seg = get_group_id(0);
    ulong start, len;
    clsort_segment_extent(offsets + offsets_off, use_offsets, first, seg_len, n, seg, OS_TILE,
                          &start, &len);
    global KEY_T *k0 = ku + ku_off + start, *k1 = ka + start;
    global VAL_T *v0 = vu + vu_off + start, *v1 = va + start;
#if HAVE_VALUES && (CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8)
    if (gen_index && len == 1 && get_local_id(0) == 0)
        v0[0] = (VAL_T)start;
#endif
    if (len < 2)
        return; /* uniform across the work-group */
    for (uint p = 0; p < passes; p++) {
        const uint shift = clsort_pass_shift(begin_bit, p);
        const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
        if (get_local_id(0) == 0)
            m.tile = 0;
        clsort_os_tile(&m, (p & 1) ? k1 : k0, (p & 1) ? k0 : k1, (p & 1) ? v1 : v0,
                       (p & 1) ? v0 : v1, gen_index && p == 0, start, (uint)len, shift, mask,
                       descending ? mask : 0u, 0, 0, 0, 0);
        /* the next pass reads what this one wrote, and reuses the local memory */
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
    if (passes & 1)
        FOR_EACH_LOCAL(i, (uint)len)
            clsort_finish_one(k0, k1, v0, v1, i, 1);
}

/* After portion q of a pass (not the last): the carry row, where digit d of
 * portion q + 1 starts, becomes where it starts in portion q (the pass's row
 * of bases for q = 0) plus portion q's count of digit d, the inclusive
 * prefix its last tile published. RADIX work-items. */
kernel void clsort_radix_carry(CLSORT_PARAMS(clsort_radix_carry))
{
    uint pass;
    const uint d = get_global_id(0);
    if (d >= RADIX || !clsort_launch_pass(state, pass_arg, &pass))
        return;
    const idx_t from = first ? bases[(ulong)pass * RADIX + d] : bases[carry_off + d];
    bases[carry_off + d] = from + (lookback[lb_off + (ulong)last_tile * RADIX + d] & LB_VALUE);
}

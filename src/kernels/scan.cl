/* scan.cl - prefix sums of u32, u64, i32, i64, f32 and f64 arrays.
 *
 * Reduce, then scan (the CUDA notes of seed 004): clsort_scan_reduce sums
 * each block of CLSORT_SCAN_WG * CLSORT_SCAN_ITEMS elements; the block sums
 * are scanned (recursively, by the host); clsort_scan_blocks scans each
 * block with its carry: coalesced loads into local memory, a serial scan of
 * CLSORT_SCAN_ITEMS consecutive elements per work-item, and the work-group
 * scan of common.cl (blocks of 16, or a Blelloch tree on NVIDIA) over the
 * work-items' sums. Sums wrap for integers; floating-point sums are
 * associated in that order, not left to right.
 *
 * Defines it needs (common.cl is included for the group scan):
 *   CLSORT_SCAN_T      uint, ulong, int, long, float or double
 *   CLSORT_SCAN_FP64   1 for double (enables cl_khr_fp64)
 *   CLSORT_SCAN_WG, CLSORT_SCAN_ITEMS
 */
#if !defined(CLSORT_SCAN_T) || !defined(CLSORT_SCAN_WG) || !defined(CLSORT_SCAN_ITEMS)
#error "scan.cl needs CLSORT_SCAN_T, CLSORT_SCAN_WG and CLSORT_SCAN_ITEMS"
#endif
#if CLSORT_SCAN_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef CLSORT_SCAN_T scan_t;
#define SCAN_BLOCK (CLSORT_SCAN_WG * CLSORT_SCAN_ITEMS)

/* The end of a tile's scan in both variants: work-item lid's own run of
 * elements (padded layout, a bank-conflict gap every 32) becomes their
 * prefix from run on (exclusive, or inclusive), and the tile goes out to
 * out[b0 ...] in coalesced order, up to n. */
inline void clsort_scan_tile_out(local scan_t *tile, scan_t run, uint inclusive,
                                 global scan_t *out, ulong b0, ulong n, uint lid)
{
#define TILE_PAD(i) ((i) + (i) / 32)
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint i = lid * CLSORT_SCAN_ITEMS + k;
        scan_t x = tile[TILE_PAD(i)];
        tile[TILE_PAD(i)] = inclusive ? run + x : run;
        run += x;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint i = k * CLSORT_SCAN_WG + lid;
        if (b0 + i < n)
            out[b0 + i] = tile[TILE_PAD(i)];
    }
#undef TILE_PAD
}
CLSORT_DEFINE_GROUP_SCAN(clsort_group_scan_t, scan_t)

kernel __attribute__((reqd_work_group_size(CLSORT_SCAN_WG, 1, 1)))
void clsort_scan_reduce(CLSORT_PARAMS(clsort_scan_reduce))
{
    local scan_t s[SCAN_LOCAL_WORDS(CLSORT_SCAN_WG)];
    in += in_off;
    sums += sums_off;
    const ulong b0 = (ulong)get_group_id(0) * SCAN_BLOCK;
    scan_t acc = 0;
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        ulong i = b0 + (ulong)k * CLSORT_SCAN_WG + get_local_id(0);
        if (i < n)
            acc += in[i];
    }
    scan_t total;
    clsort_group_scan_t(acc, s, &total);
    if (get_local_id(0) == 0)
        sums[get_group_id(0)] = total;
}

kernel __attribute__((reqd_work_group_size(CLSORT_SCAN_WG, 1, 1)))
void clsort_scan_blocks(CLSORT_PARAMS(clsort_scan_blocks))
{
    carry += carry_off;
    local scan_t tile[SCAN_BLOCK + SCAN_BLOCK / 32];
    local scan_t s[SCAN_LOCAL_WORDS(CLSORT_SCAN_WG)];
#define TPAD(i) ((i) + (i) / 32)
    in += in_off;
    out += out_off;
    const uint lid = get_local_id(0);
    const ulong b0 = (ulong)get_group_id(0) * SCAN_BLOCK;
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint t = k * CLSORT_SCAN_WG + lid;
        tile[TPAD(t)] = b0 + t < n ? in[b0 + t] : (scan_t)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_t own = 0;
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++)
        own += tile[TPAD(lid * CLSORT_SCAN_ITEMS + k)];
    scan_t total;
    scan_t run = clsort_group_scan_t(own, s, &total);
    if (use_carry)
        run += carry[get_group_id(0)];
    clsort_scan_tile_out(tile, run, inclusive, out, b0, n, lid);
#undef TPAD
}

/* Single pass (decoupled look-back, Merrill and Garland 2016): each
 * work-group takes the next tile in launch order from a counter, scans it in
 * local memory, publishes its total (state 1, an aggregate), then looks back
 * over its predecessors, summing aggregates until it meets a published
 * inclusive prefix (state 2); then it publishes its own prefix and writes
 * its tile. It reads and writes each element once. A tile waits only on
 * tiles that took their numbers before it, so it needs no more forward
 * progress than onesweep's look-back.
 *
 * state (uint words, all zero when allocated, never cleared between
 * scans): state[0] is the tile counter, which the last tile to take a
 * number sets back to 0; tile t's record is the 32 bytes from word
 * 8 + 8 t (SCAN_REC). A flag is epoch << 2 | 1 (an aggregate) or
 * epoch << 2 | 2 (an inclusive prefix), epoch being this scan's number
 * (1 to 2^30 - 1, new for each scan of the context): a flag of another
 * epoch reads as not published, so no fill has to clear the records of
 * the scan before. Flags sit only at the records' words 1 and 3 (whatever
 * the form and the element size), so a word read as a flag always is one.
 *
 * Two forms of the tile's scan and of the look-back:
 * - portable: the work-group scan of common.cl; the look-back reads a
 *   work-group-sized window of predecessors (one work-item each: the flag,
 *   record word 1, then after a fence the aggregate, words 4-5, or the
 *   prefix, words 6-7) and work-item 0 sums it;
 * - NVIDIA (work-groups of whole warps): warp shuffles scan the tile, and
 *   the first warp looks back 32 predecessors at a time, each lane one,
 *   with ballots to find the nearest prefix and to wait until every tile up
 *   to it has published. A tile's state is one 64-bit word at the record's
 *   start with its flag in the top half (for 4-byte sums: flag << 32 |
 *   value; 8-byte sums: two such words, one per half of the value, read
 *   together and taken only when both carry the same flag), so a lane
 *   reads it in one load with no fence. */
#define SCAN_REC(state, t) ((state) + 8 + 8 * (ulong)(t))
/* the state a flag word gives (1 aggregate, 2 prefix, 0: not published in
 * this epoch) */
inline uint clsort_scan_flag_state(uint f, uint epoch) { return f >> 2 == epoch ? f & 3u : 0u; }
#if CLSORT_NVIDIA && CLSORT_SCAN_WG % 32 == 0
#define SCAN_WARP 1
#define SCAN_WARPS (CLSORT_SCAN_WG / 32)
#define SCAN_CAT_(a, b) a##b
#define SCAN_CAT(a, b) SCAN_CAT_(a, b)
#define AS_SCAN(x) SCAN_CAT(as_, CLSORT_SCAN_T)(x)
#if CLSORT_SCAN_BYTES == 4
typedef ulong lb_word;
inline scan_t clsort_scan_shfl_up(scan_t v, uint d) { return AS_SCAN(clsort_shfl_up(as_uint(v), d)); }
inline scan_t clsort_scan_shfl_xor(scan_t v, uint m) { return AS_SCAN(clsort_shfl_xor(as_uint(v), m)); }
inline lb_word clsort_scan_word(uint flag, scan_t v) { return (ulong)flag << 32 | as_uint(v); }
/* the state of a word (1 aggregate, 2 prefix, 0: not published in this
 * epoch), its value in *v */
inline uint clsort_scan_unword(lb_word w, uint epoch, scan_t *v)
{
    *v = AS_SCAN((uint)w);
    return clsort_scan_flag_state((uint)(w >> 32), epoch);
}
#else
typedef ulong2 lb_word;
inline scan_t clsort_scan_shfl_up(scan_t v, uint d)
{
    uint2 h = as_uint2(v);
    return AS_SCAN((uint2)(clsort_shfl_up(h.x, d), clsort_shfl_up(h.y, d)));
}
inline scan_t clsort_scan_shfl_xor(scan_t v, uint m)
{
    uint2 h = as_uint2(v);
    return AS_SCAN((uint2)(clsort_shfl_xor(h.x, m), clsort_shfl_xor(h.y, m)));
}
inline lb_word clsort_scan_word(uint flag, scan_t v)
{
    uint2 h = as_uint2(v);
    return (ulong2)((ulong)flag << 32 | h.x, (ulong)flag << 32 | h.y);
}
inline uint clsort_scan_unword(lb_word w, uint epoch, scan_t *v)
{
    *v = AS_SCAN((uint2)((uint)w.x, (uint)w.y));
    const uint f = (uint)(w.x >> 32);
    return f == (uint)(w.y >> 32) ? clsort_scan_flag_state(f, epoch) : 0u;
}
#endif

/* The tile in local memory, staged by 16-byte vectors (SCAN_VEC elements):
 * a gap of one vector after every 32 elements keeps vectors aligned and a
 * quarter-warp's vector accesses free of bank conflicts, both the coalesced
 * ones (work-item lid takes vector q * WG + lid) and a work-item's own run
 * of CLSORT_SCAN_ITEMS consecutive elements. A tile that is whole and
 * 16-byte aligned in global memory moves by vectors there too; else element
 * by element. */
#define SCAN_VEC (16 / CLSORT_SCAN_BYTES)
#if CLSORT_SCAN_ITEMS % SCAN_VEC == 0
#define SCAN_VEC_TILE 1
#define VPAD(i) ((i) + ((i) >> 5) * SCAN_VEC)
#define SCAN_TILE_U128 ((VPAD(SCAN_BLOCK) * CLSORT_SCAN_BYTES + 15) / 16)
#if CLSORT_SCAN_BYTES == 4
typedef uint4 scan_vec;
#else
typedef ulong2 scan_vec;
#endif
#define SCAN_VECS (CLSORT_SCAN_ITEMS / SCAN_VEC)
inline bool clsort_scan_vec_ok(const global scan_t *p, ulong b0, ulong n)
{
    return b0 + SCAN_BLOCK <= n && ((size_t)(p + b0) & 15) == 0;
}
/* in[b0 ...) into the tile (zeros past n), then a barrier */
inline void clsort_scan_vec_in(const global scan_t *in, ulong b0, ulong n, local scan_t *tile,
                               uint lid)
{
    if (clsort_scan_vec_ok(in, b0, n)) {
        const global scan_vec *src = (const global scan_vec *)(in + b0);
#pragma unroll
        for (uint q = 0; q < SCAN_VECS; q++) {
            const uint v = q * CLSORT_SCAN_WG + lid;
            *(local scan_vec *)(tile + VPAD(v * SCAN_VEC)) = src[v];
        }
    } else {
        const global scan_t *src = in + b0;
        const uint m = (uint)min((ulong)SCAN_BLOCK, n - b0);
        for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
            const uint i = k * CLSORT_SCAN_WG + lid;
            tile[VPAD(i)] = i < m ? src[i] : (scan_t)0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
/* the tile (each work-item's run already rewritten) out to out[b0 ...) up
 * to n, after a barrier */
inline void clsort_scan_vec_out(global scan_t *out, ulong b0, ulong n, local scan_t *tile,
                                uint lid)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    if (clsort_scan_vec_ok(out, b0, n)) {
        global scan_vec *dst = (global scan_vec *)(out + b0);
#pragma unroll
        for (uint q = 0; q < SCAN_VECS; q++) {
            const uint v = q * CLSORT_SCAN_WG + lid;
            dst[v] = *(local scan_vec *)(tile + VPAD(v * SCAN_VEC));
        }
    } else {
        global scan_t *dst = out + b0;
        const uint m = (uint)min((ulong)SCAN_BLOCK, n - b0);
        for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
            const uint i = k * CLSORT_SCAN_WG + lid;
            if (i < m)
                dst[i] = tile[VPAD(i)];
        }
    }
}
#else
#define SCAN_VEC_TILE 0
#endif

/* The exclusive prefix of tile t (t > 0) from its predecessors' states, by
 * the 32 lanes of one warp; every lane returns it. */
inline scan_t clsort_scan_lookback_warp(global uint *state, uint epoch, uint t, uint lane)
{
    scan_t excl = 0;
    long base = (long)t; /* predecessors base - 1, base - 2, ... are still to add */
    for (;;) {
        const long j = base - 1 - (long)lane;
        scan_t v = 0;
        uint f = 2u; /* before tile 0: a prefix of nothing (never reached: tile 0 is one) */
        if (j >= 0)
            f = clsort_scan_unword(*(global volatile lb_word *)SCAN_REC(state, j), epoch, &v);
        const uint pref = clsort_ballot(f == 2u);
        /* the lanes up to the nearest prefix, or all 32 */
        const uint need = pref ? ((pref & (0u - pref)) << 1) - 1u : 0xffffffffu;
        if (clsort_ballot(f == 0u) & need)
            continue; /* a tile up to there has not published: read again */
        if (!((need >> lane) & 1u))
            v = 0;
        for (uint m = 16; m > 0; m >>= 1)
            v += clsort_scan_shfl_xor(v, m);
        excl += v;
        if (pref)
            return excl;
        base -= 32;
    }
}
#else
#define SCAN_WARP 0
#endif

kernel __attribute__((reqd_work_group_size(CLSORT_SCAN_WG, 1, 1)))
void clsort_scan_onepass(CLSORT_PARAMS(clsort_scan_onepass))
{
#if SCAN_WARP && SCAN_VEC_TILE
    local uint4 tile_u128[SCAN_TILE_U128];
    local scan_t *tile = (local scan_t *)tile_u128;
#else
    local scan_t tile[SCAN_BLOCK + SCAN_BLOCK / 32];
#endif
#if SCAN_WARP
    local scan_t wsum[SCAN_WARPS];
#else
    local scan_t s[SCAN_LOCAL_WORDS(CLSORT_SCAN_WG)];
    local scan_t lb_val[CLSORT_SCAN_WG];
    local uint lb_flag[CLSORT_SCAN_WG];
    local uint pos, done;
#endif
    local uint tile_id;
    local scan_t excl_sh;
#define TPAD(i) ((i) + (i) / 32)
    in += in_off;
    out += out_off;
    const uint lid = get_local_id(0);
    const uint ep = epoch << 2; /* the flags of this scan: ep | 1, ep | 2 */
    if (lid == 0) {
        tile_id = atomic_inc(state);
        if (tile_id == get_num_groups(0) - 1) /* every tile has its number */
            atomic_xchg(state, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    const ulong b0 = (ulong)t * SCAN_BLOCK;
    scan_t own = 0;
#if SCAN_WARP && SCAN_VEC_TILE
    /* the work-item's run, kept in registers for the end */
    clsort_scan_vec_in(in, b0, n, tile, lid);
    scan_t x[CLSORT_SCAN_ITEMS];
#define MINE(q) (*(local scan_vec *)(tile + VPAD(lid * CLSORT_SCAN_ITEMS + (q) * SCAN_VEC)))
#pragma unroll
    for (uint q = 0; q < SCAN_VECS; q++) {
        const scan_vec w = MINE(q);
#if CLSORT_SCAN_BYTES == 4
        x[4 * q] = AS_SCAN(w.x);
        x[4 * q + 1] = AS_SCAN(w.y);
        x[4 * q + 2] = AS_SCAN(w.z);
        x[4 * q + 3] = AS_SCAN(w.w);
#else
        x[2 * q] = AS_SCAN(w.x);
        x[2 * q + 1] = AS_SCAN(w.y);
#endif
    }
#pragma unroll
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++)
        own += x[k];
#else
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint i = k * CLSORT_SCAN_WG + lid;
        tile[TPAD(i)] = b0 + i < n ? in[b0 + i] : (scan_t)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++)
        own += tile[TPAD(lid * CLSORT_SCAN_ITEMS + k)];
#endif
#if SCAN_WARP
    /* the tile's scan: within each warp by shuffles, then the warps' sums */
    const uint lane = lid & 31u, warp = lid >> 5;
    scan_t incl = own;
    for (uint d = 1; d < 32; d <<= 1) {
        scan_t u = clsort_scan_shfl_up(incl, d);
        if (lane >= d)
            incl += u;
    }
    if (lane == 31)
        wsum[warp] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_t run = clsort_scan_shfl_up(incl, 1), total = 0;
    if (lane == 0)
        run = 0;
    for (uint w = 0; w < SCAN_WARPS; w++) {
        if (w < warp)
            run += wsum[w];
        total += wsum[w];
    }
    global volatile lb_word *st = (global volatile lb_word *)SCAN_REC(state, t);
    if (warp == 0) {
        scan_t excl = 0;
        if (lane == 0)
            *st = clsort_scan_word(ep | (t == 0 ? 2u : 1u), total);
        if (t > 0) {
            excl = clsort_scan_lookback_warp(state, epoch, t, lane);
            if (lane == 0)
                *st = clsort_scan_word(ep | 2u, excl + total);
        }
        if (lane == 0)
            excl_sh = excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
/* a record's flag, aggregate and prefix (see SCAN_REC) */
#define REC_FLAG(j) (SCAN_REC(state, j) + 1)
#define REC_AGG(j) (*(global volatile scan_t *)(SCAN_REC(state, j) + 4))
#define REC_PREFIX(j) (*(global volatile scan_t *)(SCAN_REC(state, j) + 6))
    scan_t total;
    scan_t run = clsort_group_scan_t(own, s, &total);
    if (lid == 0) {
        if (t == 0)
            REC_PREFIX(t) = total;
        else
            REC_AGG(t) = total;
        write_mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(REC_FLAG(t), ep | (t == 0 ? 2u : 1u));
        excl_sh = 0;
        pos = t;
        done = t == 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    while (!done) {
        const uint p = pos; /* predecessors p - 1, p - 2, ... are still to add */
        if (lid < p) {
            const uint j = p - 1 - lid;
            const uint f = clsort_scan_flag_state(*(global volatile uint *)REC_FLAG(j), epoch);
            read_mem_fence(CLK_GLOBAL_MEM_FENCE);
            lb_flag[lid] = f;
            lb_val[lid] = f == 2u ? REC_PREFIX(j) : f == 1u ? REC_AGG(j) : (scan_t)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            scan_t acc = excl_sh;
            uint np = p, fin = 0;
            const uint lim = p < CLSORT_SCAN_WG ? p : CLSORT_SCAN_WG;
            for (uint i = 0; i < lim; i++) {
                const uint f = lb_flag[i];
                if (f == 0u)
                    break; /* not yet published: read again from here */
                acc += lb_val[i];
                np--;
                if (f == 2u) {
                    fin = 1;
                    break;
                }
            }
            excl_sh = acc;
            pos = np;
            done = fin;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && t > 0) {
        REC_PREFIX(t) = excl_sh + total;
        write_mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(REC_FLAG(t), ep | 2u);
    }
#undef REC_FLAG
#undef REC_AGG
#undef REC_PREFIX
#endif
    run += excl_sh;
#if SCAN_WARP && SCAN_VEC_TILE
#pragma unroll
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        const scan_t v = x[k];
        x[k] = inclusive ? run + v : run;
        run += v;
    }
#if CLSORT_SCAN_BYTES == 4
#define SCAN_BITS(y) as_uint(y)
#else
#define SCAN_BITS(y) as_ulong(y)
#endif
#pragma unroll
    for (uint q = 0; q < SCAN_VECS; q++)
#if CLSORT_SCAN_BYTES == 4
        MINE(q) = (uint4)(SCAN_BITS(x[4 * q]), SCAN_BITS(x[4 * q + 1]), SCAN_BITS(x[4 * q + 2]),
                          SCAN_BITS(x[4 * q + 3]));
#else
        MINE(q) = (ulong2)(SCAN_BITS(x[2 * q]), SCAN_BITS(x[2 * q + 1]));
#endif
#undef SCAN_BITS
#undef MINE
    clsort_scan_vec_out(out, b0, n, tile, lid);
#else
    clsort_scan_tile_out(tile, run, inclusive, out, b0, n, lid);
#endif
#undef TPAD
}

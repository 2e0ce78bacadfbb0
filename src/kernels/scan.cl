/* scan.cl - prefix sums of u32, u64, i32, i64, f32 and f64 arrays.
 *
 * Reduce, then scan (the CUDA notes of seed 004): clsort_scan_reduce sums
 * each block of CLSORT_SCAN_WG * CLSORT_SCAN_ITEMS elements; the block sums
 * are scanned (recursively, by the host); clsort_scan_blocks scans each
 * block with its carry: coalesced loads into local memory, a serial scan of
 * CLSORT_SCAN_ITEMS consecutive elements per work-item, and the work-group
 * scan of common.cl (Blelloch with bank-conflict padding) over the
 * work-items' sums. Sums wrap for integers; floating-point sums are
 * associated in this tree order, not left to right.
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
void clsort_scan_reduce(global const scan_t *in, ulong in_off, ulong n, global scan_t *sums,
                        ulong sums_off)
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
void clsort_scan_blocks(global const scan_t *in, ulong in_off, global scan_t *out, ulong out_off,
                        ulong n, global const scan_t *carry, ulong carry_off, uint use_carry,
                        uint inclusive)
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
 * local memory, publishes its total (flag 1), then looks back over its
 * predecessors a work-group-sized window at a time - one work-item reads
 * each predecessor's flag and value - summing totals until it meets a
 * published inclusive prefix (flag 2); then it publishes its own prefix and
 * writes its tile. It reads and writes each element once. A tile waits only
 * on tiles that took their numbers before it, so it needs no more forward
 * progress than onesweep's look-back.
 *   flags[0]: the tile counter; flags[1 + t]: tile t's state (0, 1, 2)
 *   vals[2t]: tile t's total; vals[2t + 1]: its inclusive prefix */
kernel __attribute__((reqd_work_group_size(CLSORT_SCAN_WG, 1, 1)))
void clsort_scan_onepass(global const scan_t *in, ulong in_off, global scan_t *out, ulong out_off,
                         ulong n, global scan_t *vals, global uint *flags, ulong flags_off,
                         uint inclusive)
{
    local scan_t tile[SCAN_BLOCK + SCAN_BLOCK / 32];
    local scan_t s[SCAN_LOCAL_WORDS(CLSORT_SCAN_WG)];
    local scan_t lb_val[CLSORT_SCAN_WG];
    local uint lb_flag[CLSORT_SCAN_WG];
    local uint tile_id, pos, done;
    local scan_t excl_sh;
#define TPAD(i) ((i) + (i) / 32)
    in += in_off;
    out += out_off;
    flags += flags_off;
    global volatile uint *vflags = (global volatile uint *)flags;
    global volatile scan_t *vvals = (global volatile scan_t *)vals;
    const uint lid = get_local_id(0);
    if (lid == 0)
        tile_id = atomic_inc(flags);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint t = tile_id;
    const ulong b0 = (ulong)t * SCAN_BLOCK;
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint i = k * CLSORT_SCAN_WG + lid;
        tile[TPAD(i)] = b0 + i < n ? in[b0 + i] : (scan_t)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_t own = 0;
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++)
        own += tile[TPAD(lid * CLSORT_SCAN_ITEMS + k)];
    scan_t total;
    scan_t run = clsort_group_scan_t(own, s, &total);
    if (lid == 0) {
        vvals[2 * (ulong)t + (t == 0)] = total;
        write_mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(flags + 1 + t, t == 0 ? 2u : 1u);
        excl_sh = 0;
        pos = t;
        done = t == 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    while (!done) {
        const uint p = pos; /* predecessors p - 1, p - 2, ... are still to add */
        if (lid < p) {
            const uint j = p - 1 - lid;
            const uint f = vflags[1 + j];
            read_mem_fence(CLK_GLOBAL_MEM_FENCE);
            lb_flag[lid] = f;
            lb_val[lid] = f == 2u ? vvals[2 * (ulong)j + 1] : f == 1u ? vvals[2 * (ulong)j]
                                                                    : (scan_t)0;
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
    const scan_t excl = excl_sh;
    if (lid == 0 && t > 0) {
        vvals[2 * (ulong)t + 1] = excl + total;
        write_mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(flags + 1 + t, 2u);
    }
    run += excl;
    clsort_scan_tile_out(tile, run, inclusive, out, b0, n, lid);
#undef TPAD
}

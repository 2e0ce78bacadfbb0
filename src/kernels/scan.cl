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
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint t = lid * CLSORT_SCAN_ITEMS + k;
        scan_t x = tile[TPAD(t)];
        tile[TPAD(t)] = inclusive ? run + x : run;
        run += x;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < CLSORT_SCAN_ITEMS; k++) {
        uint t = k * CLSORT_SCAN_WG + lid;
        if (b0 + t < n)
            out[b0 + t] = tile[TPAD(t)];
    }
#undef TPAD
}

/* radix_classic.cl - the seeds' radix pass: histogram, scan, stable scatter.
 *
 * Three kernels per pass (Helluy 2011; the CUDA notes of seed 004):
 *   clsort_radix_count    each of G work-groups counts the digits of its
 *                         contiguous chunk: hist[d][g];
 *   clsort_radix_offsets  one work-group scans hist in (digit, group) order
 *                         (the work-group scan of common.cl): where group
 *                         g's first key of digit d goes;
 *   clsort_radix_scatter  each group walks its chunk tile by tile, ranks each
 *                         tile stably in local memory and writes it in digit
 *                         order, so the writes of a digit are contiguous.
 * No work-group ever waits for another, so this runs on any OpenCL device;
 * it reads the keys twice per pass where radix_onesweep.cl reads them once.
 * Pass skipping and buffer choice come from clsort_radix_plan (radix.cl).
 *
 * Defines it needs, besides common.cl's and radix.cl's:
 *   CLSORT_CL_WG     work-group size of count and scatter (1, or a power of 2)
 *   CLSORT_CL_ITEMS  keys per work-item in a scatter tile (unused with WG 1)
 */
#if !defined(CLSORT_CL_WG) || !defined(CLSORT_CL_ITEMS)
#error "radix_classic.cl needs CLSORT_CL_WG and CLSORT_CL_ITEMS"
#endif

#define CL_TILE (CLSORT_CL_WG * CLSORT_CL_ITEMS)

kernel __attribute__((reqd_work_group_size(CLSORT_CL_WG, 1, 1)))
void clsort_radix_count(CLSORT_PARAMS(clsort_radix_count))
{
    hist += hist_off;
    const global uint *st = state + ST_PASS(pass);
    if (st[ST_PASS_ACTIVE] != PASS_LSD)
        return;
    ku += ku_off;
    const global KEY_T *src = SELECT_BUF(st[ST_PASS_SRC], ku, ka, kb);
    const uint shift = clsort_pass_shift(begin_bit, pass);
    const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
    const uint flip = descending ? mask : 0u;
    const uint g = get_group_id(0), groups = get_num_groups(0);
    const idx_t lo = (idx_t)g * chunk;
    const idx_t hi = min(lo + chunk, n);
#if CLSORT_CL_WG == 1
    uint h[RADIX];
    for (uint d = 0; d < RADIX; d++)
        h[d] = 0;
    for (idx_t i = lo; i < hi; i++)
        h[DIGIT_OF(src[i], shift, mask, flip)]++;
    for (uint d = 0; d < RADIX; d++)
        hist[d * groups + g] = h[d];
#else
    local uint h[RADIX];
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(d, RADIX)
        h[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (idx_t i = lo + lid; i < hi; i += CLSORT_CL_WG)
        atomic_inc(&h[DIGIT_OF(src[i], shift, mask, flip)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    FOR_EACH_LOCAL(d, RADIX)
        hist[d * groups + g] = h[d];
#endif
}

/* One work-group of CLSORT_PLAN_WG: exclusive scan of hist[0..m) into
 * offsets (each work-item sums a contiguous run, one work-group scan of the
 * runs' sums, then the runs are written). */
kernel __attribute__((reqd_work_group_size(CLSORT_PLAN_WG, 1, 1)))
void clsort_radix_offsets(CLSORT_PARAMS(clsort_radix_offsets))
{
    if (state[ST_PASS(pass) + ST_PASS_ACTIVE] != PASS_LSD)
        return;
    hist += hist_off;
    offsets += offsets_off;
    local idx_t s[SCAN_LOCAL_WORDS(CLSORT_PLAN_WG)];
    const uint lid = get_local_id(0);
    const uint per = (m + CLSORT_PLAN_WG - 1) / CLSORT_PLAN_WG;
    const uint lo = min(lid * per, m), hi = min(lo + per, m);
    idx_t sum = 0;
    for (uint i = lo; i < hi; i++)
        sum += hist[i];
    idx_t total;
    idx_t run = clsort_group_scan_idx(sum, s, &total);
    for (uint i = lo; i < hi; i++) {
        offsets[i] = run;
        run += hist[i];
    }
}

kernel __attribute__((reqd_work_group_size(CLSORT_CL_WG, 1, 1)))
void clsort_radix_scatter(CLSORT_PARAMS(clsort_radix_scatter))
{
    const global uint *st = state + ST_PASS(pass);
    if (st[ST_PASS_ACTIVE] != PASS_LSD)
        return;
    offsets += offsets_off;
    ku += ku_off;
    vu += vu_off;
    const global KEY_T *src = SELECT_BUF(st[ST_PASS_SRC], ku, ka, kb);
    global KEY_T *dst = SELECT_BUF(st[ST_PASS_DST], ku, ka, kb);
#if HAVE_VALUES
    const global VAL_T *vsrc = SELECT_BUF(st[ST_PASS_SRC], vu, va, vb);
    global VAL_T *vdst = SELECT_BUF(st[ST_PASS_DST], vu, va, vb);
    const uint gen = st[ST_PASS_FIRST];
#endif
    const uint shift = clsort_pass_shift(begin_bit, pass);
    const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
    const uint flip = descending ? mask : 0u;
    const uint g = get_group_id(0), groups = get_num_groups(0);
    const idx_t lo = (idx_t)g * chunk;
    const idx_t hi = min(lo + chunk, n);
#if CLSORT_CL_WG == 1
    idx_t pos[RADIX];
    for (uint d = 0; d < RADIX; d++)
        pos[d] = offsets[d * groups + g];
    for (idx_t i = lo; i < hi; i++) {
        KEY_T k = src[i];
        idx_t p = pos[DIGIT_OF(k, shift, mask, flip)]++;
        dst[p] = k;
#if HAVE_VALUES
        vdst[p] = GEN_VALUE(gen, i, vsrc[i]);
#endif
    }
#else
    local KEY_T lkeys[CL_TILE];
    local uchar ldig[CL_TILE];
    local ushort perm[2 * CL_TILE];
    local ushort cnt_l[RANK_CNT_WORDS(CLSORT_CL_WG)];
    local uint lh[RADIX];
    local idx_t lpos[RADIX], ltg[RADIX];
    local uint scan_s[SCAN_LOCAL_WORDS(CLSORT_CL_WG)];
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(d, RADIX)
        lpos[d] = offsets[d * groups + g];
    for (idx_t t0 = lo; t0 < hi; t0 += CL_TILE) {
        const uint cnt = (uint)min((idx_t)CL_TILE, hi - t0);
        FOR_EACH_LOCAL(d, RADIX)
            lh[d] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        clsort_load_tile_local(src, t0, cnt, CLSORT_CL_ITEMS, CLSORT_CL_WG, lid, shift, mask,
                               flip, 0, lkeys, ldig, lh);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint order = clsort_rank_local(ldig, CLSORT_CL_ITEMS, perm, cnt_l, scan_s);
        FOR_EACH_LOCAL(d, RADIX)
            ltg[d] = lpos[d];
        barrier(CLK_LOCAL_MEM_FENCE);
        FOR_EACH_LOCAL(d, RADIX)
            lpos[d] += lh[d];
        clsort_local_exclusive_scan(lh, RADIX, scan_s); /* lh: tile digit starts */
        FOR_EACH_LOCAL(d, RADIX)
            ltg[d] -= lh[d];
        barrier(CLK_LOCAL_MEM_FENCE);
        FOR_EACH_LOCAL(i, cnt) {
            uint s = perm[order + i];
            idx_t p = ltg[ldig[s]] + i;
            dst[p] = lkeys[s];
#if HAVE_VALUES
            vdst[p] = GEN_VALUE(gen, t0 + s, vsrc[t0 + s]);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* selection.cl - parallel selection sort (Bainville 2011).
 *
 * One work-item per element counts the elements that come before it: a
 * smaller order key, or an equal one at a smaller index (so the sort is
 * stable), and writes its element there. O(n^2) work: a reference point
 * and a fast choice only for small n. The local-memory version stages
 * blocks of CLSORT_SEL_BLOCK order keys that the whole work-group reads.
 * Writes to separate output buffers (dk, dv); the caller copies back.
 *
 * Defines it needs, besides common.cl's and bitonic.cl's order keys:
 *   CLSORT_SEL_WG     work-group size
 *   CLSORT_SEL_BLOCK  keys staged per round in the local version (a
 *                     multiple of CLSORT_SEL_WG)
 */
#if !defined(CLSORT_SEL_WG) || !defined(CLSORT_SEL_BLOCK)
#error "selection.cl needs CLSORT_SEL_WG and CLSORT_SEL_BLOCK"
#endif

kernel __attribute__((reqd_work_group_size(CLSORT_SEL_WG, 1, 1)))
void clsort_selection(CLSORT_PARAMS(clsort_selection))
{
    keys += keys_off;
    vals += vals_off;
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const KEY_T mine = clsort_order_key(keys[i], begin_bit, wmask, desc);
    uint pos = 0;
    for (uint j = 0; j < n; j++) {
        KEY_T other = clsort_order_key(keys[j], begin_bit, wmask, desc); /* broadcast */
        pos += (other < mine) || (other == mine && j < i);
    }
    dk[pos] = keys[i];
#if HAVE_VALUES
    dv[pos] = GEN_INDEX_OR(gen_index, i, vals[i]);
#endif
}

kernel __attribute__((reqd_work_group_size(CLSORT_SEL_WG, 1, 1)))
void clsort_selection_local(CLSORT_PARAMS(clsort_selection_local))
{
    local KEY_T aux[CLSORT_SEL_BLOCK];
    keys += keys_off;
    vals += vals_off;
    const uint i = get_global_id(0), lid = get_local_id(0);
    const bool mine_ok = i < n;
    const KEY_T mine = mine_ok ? clsort_order_key(keys[i], begin_bit, wmask, desc) : (KEY_T)0;
    uint pos = 0;
    for (uint j0 = 0; j0 < n; j0 += CLSORT_SEL_BLOCK) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint t = lid; t < CLSORT_SEL_BLOCK; t += CLSORT_SEL_WG)
            aux[t] = j0 + t < n ? clsort_order_key(keys[j0 + t], begin_bit, wmask, desc) : (KEY_T)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint m = min((uint)CLSORT_SEL_BLOCK, n - j0);
        for (uint t = 0; t < m; t++) {
            KEY_T other = aux[t];
            pos += (other < mine) || (other == mine && j0 + t < i);
        }
    }
    if (mine_ok) {
        dk[pos] = keys[i];
#if HAVE_VALUES
        dv[pos] = GEN_INDEX_OR(gen_index, i, vals[i]);
#endif
    }
}

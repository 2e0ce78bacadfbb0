/* radix.cl - the LSD radix sort of clsort: pieces shared by both strategies.
 *
 * A sort over the image bits [begin, end) runs P = ceil((end-begin)/r) passes
 * of r-bit digits. Every strategy starts with the same two kernels:
 *   clsort_radix_upfront  one read of the keys counts the digits of all
 *                         passes at once (per portion of the input), and
 *                         notes whether neighbours are ever out of order;
 *   clsort_radix_plan     one work-group turns the counts into each pass's
 *                         global digit offsets, finds passes whose digit is
 *                         the same for every key (they are skipped: the
 *                         particle-cell case; all of them where the keys
 *                         are in order already, and where they are in
 *                         reverse order, pass 0's launch reverses them, or
 *                         for 8-byte keys the fill check's where it runs),
 *                         and decides on the device
 *                         which buffer each remaining pass reads and writes,
 *                         so that the result always ends in the caller's
 *                         buffer: U -> A -> B -> A ... -> U (three buffers),
 *                         or U -> A plus a copy back when only one pass is
 *                         left;
 * (or, for inputs of one portion, both in one launch: clsort_radix_prologue
 * by one work-group for small ones, clsort_radix_upfront_plan, whose last
 * work-group to finish plans, up to the tuning's fused_max)
 * then, for onesweep in LSD order on work-group shapes (keys of an
 * integer type over all their bits, from the tuning's fill_min keys on),
 *   clsort_radix_fill_check  where every pass has few digits: whether each
 *                         digit of one pass names one key (or, for keys
 *                         alone where the counts look like few keys,
 *                         whether the keys are at most FILL_SET_MAX), and
 *                         if so the passes' launches write every place
 *                         from those keys instead of sorting (12 bytes a
 *                         key in all), or with values pass 0's launch
 *                         sorts by the keys' ranks (PASS_REMAP); and
 *                         where 8-byte keys alone are in reverse order, it
 *                         reverses them (FILL_REVERSE);
 * and ends with
 *   clsort_radix_finish   the copy back (one active pass) and, for argsort
 *                         with every pass skipped, the identity permutation
 *                         (onesweep in LSD order from skip_min keys on: no
 *                         finish launch, the last pass's launch does that
 *                         work; see ALLOW_FOLD at clsort_plan).
 * The passes themselves are radix_onesweep.cl or radix_classic.cl.
 *
 * Defines it needs, besides common.cl's:
 *   CLSORT_RADIX_BITS  r, 1..8 (up to 12 with the CPU shapes: serial ranking)
 *   CLSORT_HIST_WG     work-group size of clsort_radix_upfront
 *   CLSORT_HIST_ITEMS  keys each of its work-items loads per round
 *   CLSORT_PLAN_WG     work-group size of clsort_radix_plan
 */
#ifndef CLSORT_RADIX_BITS
#error "radix.cl needs CLSORT_RADIX_BITS"
#endif
#ifndef CLSORT_HIST_WG
#error "radix.cl needs CLSORT_HIST_WG"
#endif
#ifndef CLSORT_PLAN_WG
#error "radix.cl needs CLSORT_PLAN_WG"
#endif
#ifndef CLSORT_HIST_ITEMS
#error "radix.cl needs CLSORT_HIST_ITEMS"
#endif

#define RADIX (1u << CLSORT_RADIX_BITS)
#define MAX_PASSES ((KEY_BITS + CLSORT_RADIX_BITS - 1) / CLSORT_RADIX_BITS)

/* The fill by a set of keys (FILL_SET) adds keys to its tables by
 * compare-and-swap on their words: 64-bit ones where the device has them.
 * set_t: a key's bits as the tables hold them (0: an empty slot). */
#if CLSORT_KEY_BYTES == 8
#if defined(cl_khr_int64_base_atomics) && CLSORT_KEY_KIND != 2
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define FILL_SET_OK 1
#else
#define FILL_SET_OK 0
#endif
typedef ulong set_t;
#define SET_CAS(p, c, v) atom_cmpxchg(p, c, v)
#else
#define FILL_SET_OK (CLSORT_KEY_KIND != 2)
typedef uint set_t;
#define SET_CAS(p, c, v) atomic_cmpxchg(p, c, v)
#endif

/* A value as a pass reads it: argsort's first active pass generates the
 * indices instead of reading them. */
#if HAVE_VALUES && (CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8)
#define GEN_VALUE(gen, i, load) ((gen) ? (VAL_T)(i) : (load))
#else
#define GEN_VALUE(gen, i, load) (load)
#endif

/* The buffer a pass reads or writes: 0 the caller's, 1 temp A, 2 temp B. */
#define SELECT_BUF(i, u, a, b) ((i) == 0 ? (u) : ((i) == 1 ? (a) : (b)))

inline uint clsort_pass_shift(uint begin_bit, uint p) { return begin_bit + p * CLSORT_RADIX_BITS; }
inline uint clsort_pass_mask(uint begin_bit, uint end_bit, uint p)
{
    uint shift = clsort_pass_shift(begin_bit, p);
    uint width = min((uint)CLSORT_RADIX_BITS, end_bit - shift);
    return (1u << width) - 1u;
}

/* MSD order's record of which bits vary: the OR of the images and the OR of
 * their complements (a bit varies where both have it). */
inline void clsort_note_bits(KEY_T k, KEY_T *any, KEY_T *anyc)
{
    const KEY_T img = RADIX_IMAGE(k);
    *any |= img;
    *anyc |= (KEY_T)~img;
}

/* The low w bits of a key set (all of them from KEY_BITS on). */
inline KEY_T clsort_low_bits(uint w)
{
    return w >= KEY_BITS ? (KEY_T)~(KEY_T)0 : (KEY_T)(((KEY_T)1 << w) - (KEY_T)1);
}

/* A key as the sort orders it: the bits [begin_bit, end_bit) of its image,
 * complemented for a descending sort. */
inline KEY_T clsort_order_key(KEY_T k, uint begin_bit, uint end_bit, uint descending)
{
    const KEY_T mask = clsort_low_bits(end_bit - begin_bit);
    const KEY_T o = (KEY_T)(RADIX_IMAGE(k) >> begin_bit) & mask;
    return descending ? (KEY_T)(o ^ mask) : o;
}

/* Whether MSD order's tile pass ran, from its flag (BITS_TILE_FLAG; 0:
 * no tiles; TILE_SKIP: flag 2 without them): it then counted the top pass
 * instead of the upfront count. */
inline bool clsort_tiles_ran(uint flag)
{
    return flag && !(flag & TILE_SKIP);
}

/* The order flags of neighbours a, b (a first), in the sort's order. */
inline uint clsort_order_pair(KEY_T a, KEY_T b, uint begin_bit, uint end_bit, uint descending)
{
    const KEY_T x = clsort_order_key(a, begin_bit, end_bit, descending);
    const KEY_T y = clsort_order_key(b, begin_bit, end_bit, descending);
    return (x > y ? ORDER_DESCENT : 0u) | (x < y ? ORDER_ASCENT : 0u) | (x == y ? ORDER_TIE : 0u);
}
#define ORDER_BOTH (ORDER_DESCENT | ORDER_ASCENT) /* neither sorted nor reversed */

/* The upfront count's loads (work-group shapes): 16-byte vectors of HV
 * keys where the keys are 4 or 8 bytes and HIST_ITEMS a multiple of HV.
 * With them, the work-groups take rounds of vectors in turn over all the
 * keys (a grid-stride loop, as CUB's histogram does), not a contiguous
 * chunk each (measured: docs/PERFORMANCE.md, decision log). */
#define HV (16 / CLSORT_KEY_BYTES)
#if CLSORT_HIST_WG > 1 && (CLSORT_KEY_BYTES == 4 || CLSORT_KEY_BYTES == 8) && \
    CLSORT_HIST_ITEMS % HV == 0
#define HIST_VEC 1
#define HV_ITEMS (CLSORT_HIST_ITEMS / HV)
#if CLSORT_KEY_BYTES == 4
typedef uint4 hvec_t;
#else
typedef ulong2 hvec_t;
#endif
#else
#define HIST_VEC 0
#endif

/* One key's digits of passes [p_lo, p_hi) counted in h (local atomics),
 * and its bits noted with want_bits. */
inline void clsort_count_key(KEY_T k, uint p_lo, uint p_hi, uint begin_bit, uint end_bit,
                             uint descending, uint want_bits, local uint *h, KEY_T *any,
                             KEY_T *anyc)
{
    if (want_bits)
        clsort_note_bits(k, any, anyc);
    for (uint p = p_lo; p < p_hi; p++) {
        const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
        atomic_inc(&h[p * RADIX + DIGIT_OF(k, clsort_pass_shift(begin_bit, p), mask,
                                          descending ? mask : 0u)]);
    }
}

/* One round of the work-group shapes' count: the keys k[j] that exist
 * (OK(j)) noted with want_bits, then their digits of every pass counted in
 * h (a macro, so that the vector and scalar rounds compile as written out). */
#define HIST_COUNT_ROUND(OK)                                                              \
    do {                                                                                  \
        if (want_bits)                                                                    \
            for (uint j = 0; j < CLSORT_HIST_ITEMS; j++)                                  \
                if (OK(j))                                                                \
                    clsort_note_bits(k[j], any, anyc);                                    \
        for (uint p = p_lo; p < p_hi; p++) {                                              \
            const uint shift = clsort_pass_shift(begin_bit, p);                           \
            const uint mask = clsort_pass_mask(begin_bit, end_bit, p);                    \
            const uint flip = descending ? mask : 0;                                      \
            _Pragma("unroll") for (uint j = 0; j < CLSORT_HIST_ITEMS; j++)                \
                if (OK(j))                                                                \
                    atomic_inc(&h[p * RADIX + DIGIT_OF(k[j], shift, mask, flip)]);        \
        }                                                                                 \
    } while (0)

/* Keys as explicit 32-byte vectors (KV_N keys; 16 bytes for 1-byte keys),
 * for the one-work-item count's block loops: PoCL 5's kernel compiler
 * left those loops scalar where written key by key (its cost model), at
 * several times the time of the vector loops. km_t: the vectors'
 * comparison masks. KV_AT loads at the key's alignment; KV_IMAGE(v, out):
 * the images of v's keys (RADIX_IMAGE). Macros, not functions: no vector
 * passes through a call. */
#if CLSORT_KEY_BYTES == 8
#define KV_N 4
typedef ulong4 kv_t;
#define as_kv as_ulong4
typedef long4 km_t;
typedef long km_e;
#elif CLSORT_KEY_BYTES == 4
#define KV_N 8
typedef uint8 kv_t;
#define as_kv as_uint8
typedef int8 km_t;
typedef int km_e;
#elif CLSORT_KEY_BYTES == 2
#define KV_N 16
typedef ushort16 kv_t;
#define as_kv as_ushort16
typedef short16 km_t;
typedef short km_e;
#else
#define KV_N 16
typedef uchar16 kv_t;
#define as_kv as_uchar16
typedef char16 km_t;
typedef char km_e;
#endif
typedef kv_t kv_a __attribute__((aligned(CLSORT_KEY_BYTES)));
typedef km_t km_a __attribute__((aligned(CLSORT_KEY_BYTES)));
#define KV_AT(p) (*(const global kv_a *)(p))
/* acc |= every lane of v; acc += every lane of m (km_t) */
#define KV_OR_INTO(v, acc)                                                                   \
    do {                                                                                     \
        KEY_T l_[KV_N];                                                                      \
        *(kv_a *)l_ = (v);                                                                   \
        for (uint j_ = 0; j_ < KV_N; j_++)                                                   \
            (acc) |= l_[j_];                                                                 \
    } while (0)
#define KM_SUM_INTO(m, acc)                                                                  \
    do {                                                                                     \
        km_e l_[KV_N];                                                                       \
        *(km_a *)l_ = (m);                                                                   \
        for (uint j_ = 0; j_ < KV_N; j_++)                                                   \
            (acc) += l_[j_];                                                                 \
    } while (0)
/* KV_ORDER_SHAPE declares o's vectors, from which KV_ORDER(image, o) makes
 * the order keys (clsort_order_key) of a vector of images */
#define KV_ORDER_SHAPE(o, begin_bit, end_bit, descending)                                    \
    const KEY_T o##_m = clsort_low_bits((end_bit) - (begin_bit));                            \
    const kv_t o##_shift = (kv_t)(KEY_T)(begin_bit), o##_mask = (kv_t)o##_m,                 \
               o##_flip = (kv_t)((descending) ? o##_m : (KEY_T)0)
#define KV_ORDER(v, o) ((((v) >> o##_shift) & o##_mask) ^ o##_flip)
#if CLSORT_KEY_KIND == 0
#define KV_IMAGE(v, out) (out) = (v)
#elif CLSORT_KEY_KIND == 1
#define KV_IMAGE(v, out) (out) = (v) ^ (kv_t)KEY_SIGN
#else
/* clsort_float_image: NaN last, -0.0 as +0.0, negatives complemented */
#define KV_IMAGE(v, out)                                                                     \
    do {                                                                                     \
        kv_t k_ = (v);                                                                       \
        const km_t nan_ = (k_ & (kv_t)~KEY_SIGN) > (kv_t)KEY_INF;                            \
        k_ = select(k_, (kv_t)0, k_ == (kv_t)KEY_SIGN);                                      \
        (out) = select(k_ | (kv_t)KEY_SIGN, ~k_, (k_ & (kv_t)KEY_SIGN) != (kv_t)0);          \
        (out) = select((out), (kv_t)~(KEY_T)0, nan_);                                        \
    } while (0)
#endif

/* Counts of the digits of passes [p_lo, p_hi) over keys[lo, hi) (this
 * work-group's chunk), added to dst[P][RADIX] with global atomics; with
 * want_bits it ORs the keys' images, and their complements, into any and
 * anyc. h: local, MAX_PASSES * RADIX words (unused with one work-item).
 * With the 16-byte loads, the chunk may be shared by `parts` work-groups
 * (part: this one's number): each then takes every parts-th round of
 * vectors, so that the work-groups together sweep the keys from start to
 * end, as a grid-stride loop does; part 0 takes the keys outside whole
 * vectors. parts 1: the chunk is this work-group's alone. */
inline void clsort_count_chunk(global const KEY_T *keys, idx_t lo, idx_t hi, uint p_lo,
                               uint p_hi, uint begin_bit, uint end_bit, uint descending,
                               uint want_bits, global uint *dst, local uint *h, KEY_T *any,
                               KEY_T *anyc, uint part, uint parts, uint want_order,
                               idx_t order_from, global uint *order, local uint *order_l)
{
    /* the order check: every key x of the chunk from order_from on is
     * compared with key x - 1 (keys[-1] exists where order_from is 0), until
     * both a descent and an ascent are seen */
    const global KEY_T *before = keys - 1; /* before[x] is keys[x - 1] */
    uint fl = want_order ? ORDER_SEEN : ORDER_BOTH;
#define ORDER_PAIR(x, k)                                                                   \
    if ((fl & ORDER_BOTH) != ORDER_BOTH && (x) >= order_from)                             \
        fl |= clsort_order_pair(before[x], (k), begin_bit, end_bit, descending);
#if CLSORT_HIST_WG == 1
    /* Block by block (in L1): the block's images, its bits and the order
     * check in loops of explicit vectors (KV_), then, for each pass whose
     * digit varies in the block, one tight loop of counts; a pass whose
     * digit is the same for the whole block (sorted keys' upper digits,
     * equal keys) adds the block's length at once. */
    /* CNT_SUB counters per digit, key i counted in copy i % CNT_SUB: where
     * keys repeat a digit, one counter's increments would wait on each
     * other (a store forwarded to the next load) */
#if RADIX <= 256
#define CNT_SUB 4
#else
#define CNT_SUB 2
#endif
    uint ph[MAX_PASSES * CNT_SUB * RADIX];
    for (uint e = p_lo * CNT_SUB * RADIX; e < p_hi * CNT_SUB * RADIX; e++)
        ph[e] = 0;
    /* the bits in locals, not through the pointers, and the key loops' index
     * of their bounds' type, ulong: a uint index compared with a ulong bound
     * may wrap, so the loop has no trip count (decision log, CPU) */
    KEY_T a = *any, ac = *anyc;
#if CLSORT_KEY_KIND == 2
    /* a float key's image takes several instructions: taken once per key,
     * into a block that stays in L1, not once per pass */
    KEY_T im[2048];
#define CNT_IMAGE(i) im[(i) - b0]
#else
#define CNT_IMAGE(i) RADIX_IMAGE(keys[i])
#endif
    KV_ORDER_SHAPE(ord, begin_bit, end_bit, descending);
    for (ulong b0 = lo; b0 < hi; b0 += 2048) { /* ulong: no wrap near 2^32 */
        const ulong b1 = min(b0 + 2048, (ulong)hi);
        /* the block's bits: an image bit varies where some image has it
         * set and some has it clear */
        kv_t vo = (kv_t)0, voc = (kv_t)0;
        ulong i = b0;
        for (; i + KV_N <= b1; i += KV_N) {
            kv_t img;
            KV_IMAGE(KV_AT(keys + i), img);
#if CLSORT_KEY_KIND == 2
            *(kv_a *)(im + (i - b0)) = img;
#endif
            vo |= img;
            voc |= ~img;
        }
        KEY_T ba = 0, bac = 0;
        for (; i < b1; i++) {
            const KEY_T img = RADIX_IMAGE(keys[i]);
#if CLSORT_KEY_KIND == 2
            im[i - b0] = img;
#endif
            ba |= img;
            bac |= (KEY_T)~img;
        }
        KV_OR_INTO(vo, ba);
        KV_OR_INTO(voc, bac);
        if (want_bits) {
            a |= ba;
            ac |= bac;
        }
        const KEY_T vary = ba & bac;
        if ((fl & ORDER_BOTH) != ORDER_BOTH) {
            /* each key against the one before, in the sort's order */
            km_t md = (km_t)0, ma = (km_t)0, mt = (km_t)0;
            ulong j = max(b0, (ulong)order_from);
            for (; j + KV_N <= b1; j += KV_N) {
                kv_t x, y;
                KV_IMAGE(KV_AT(keys + j - 1), x);
                KV_IMAGE(KV_AT(keys + j), y);
                x = KV_ORDER(x, ord);
                y = KV_ORDER(y, ord);
                md |= x > y;
                ma |= x < y;
                mt |= x == y;
            }
            /* (the builtin any() is hidden here by the parameter of that name) */
            KEY_T od = 0, oa = 0, ot = 0;
            KV_OR_INTO(as_kv(md), od);
            KV_OR_INTO(as_kv(ma), oa);
            KV_OR_INTO(as_kv(mt), ot);
            fl |= (od ? ORDER_DESCENT : 0u) | (oa ? ORDER_ASCENT : 0u) | (ot ? ORDER_TIE : 0u);
            for (; j < b1; j++)
                fl |= clsort_order_pair(keys[j - 1], keys[j], begin_bit, end_bit, descending);
        }
        for (uint p = p_lo; p < p_hi; p++) {
            const uint shift = clsort_pass_shift(begin_bit, p);
            const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
            const uint flip = descending ? mask : 0u;
            uint *hp = ph + p * CNT_SUB * RADIX;
            if (((vary >> shift) & (KEY_T)mask) == 0) {
                hp[DIGIT_OF_IMAGE(CNT_IMAGE(b0), shift, mask, flip)] += (uint)(b1 - b0);
                continue;
            }
            ulong i = b0;
            for (; i + CNT_SUB <= b1; i += CNT_SUB)
#pragma unroll
                for (uint j = 0; j < CNT_SUB; j++)
                    hp[j * RADIX + DIGIT_OF_IMAGE(CNT_IMAGE(i + j), shift, mask, flip)]++;
            for (; i < b1; i++)
                hp[DIGIT_OF_IMAGE(CNT_IMAGE(i), shift, mask, flip)]++;
        }
    }
#undef CNT_IMAGE
    *any = a;
    *anyc = ac;
    for (uint p = p_lo; p < p_hi; p++)
        for (uint d = 0; d < RADIX; d++) {
            const uint *hp = ph + p * CNT_SUB * RADIX + d;
            uint c = 0;
            for (uint j = 0; j < CNT_SUB; j++)
                c += hp[j * RADIX];
            if (c)
                atomic_add(&dst[p * RADIX + d], c);
        }
#undef CNT_SUB
    if (want_order)
        atomic_or(order, fl);
#else
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(e, (p_hi - p_lo) * RADIX)
        h[p_lo * RADIX + e] = 0;
    if (lid == 0)
        *order_l = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if HIST_VEC
    /* 16-byte loads of HV keys each, HIST_ITEMS keys per work-item per
     * round, all loads issued before the first count, so that enough
     * loads are in flight; the few keys before the chunk's first 16-byte
     * boundary and after its last whole vector go one to a work-item. */
    const idx_t a = min(hi, lo + (idx_t)((HV - ((uintptr_t)(keys + lo) / CLSORT_KEY_BYTES) % HV) %
                                         HV));
    const idx_t nv = (hi - a) / HV, b = a + nv * HV;
    if (part == 0 && lid < a - lo) {
        clsort_count_key(keys[lo + lid], p_lo, p_hi, begin_bit, end_bit, descending, want_bits,
                         h, any, anyc);
        ORDER_PAIR(lo + lid, keys[lo + lid]);
    }
    if (part == 0 && lid < hi - b) {
        clsort_count_key(keys[b + lid], p_lo, p_hi, begin_bit, end_bit, descending, want_bits,
                         h, any, anyc);
        ORDER_PAIR(b + lid, keys[b + lid]);
    }
    const global hvec_t *kv = (const global hvec_t *)(keys + a);
    const idx_t round = CLSORT_HIST_WG * HV_ITEMS;
    for (idx_t v0 = part * round; v0 < nv; v0 += parts * round) {
        KEY_T k[CLSORT_HIST_ITEMS];
#pragma unroll
        for (uint j = 0; j < HV_ITEMS; j++) {
            const idx_t i = v0 + j * CLSORT_HIST_WG + lid;
            const hvec_t x = i < nv ? kv[i] : (hvec_t)0;
#if HV == 4
            k[4 * j] = x.s0, k[4 * j + 1] = x.s1, k[4 * j + 2] = x.s2, k[4 * j + 3] = x.s3;
#else
            k[2 * j] = x.s0, k[2 * j + 1] = x.s1;
#endif
        }
#define HV_OK(j) (v0 + ((j) / HV) * CLSORT_HIST_WG + lid < nv)
        if ((fl & ORDER_BOTH) != ORDER_BOTH) {
#pragma unroll
            for (uint j = 0; j < HV_ITEMS; j++) {
                if (HV_OK(HV * j)) {
                    ORDER_PAIR(a + (v0 + j * CLSORT_HIST_WG + lid) * HV, k[HV * j]);
                    for (uint e = 1; e < HV; e++)
                        fl |= clsort_order_pair(k[HV * j + e - 1], k[HV * j + e], begin_bit,
                                                end_bit, descending);
                }
            }
        }
        HIST_COUNT_ROUND(HV_OK);
#undef HV_OK
    }
#else
    /* CLSORT_HIST_ITEMS keys per work-item per round, all loads issued
     * before the first count, so that enough loads are in flight. */
    for (ulong base = lo; base < hi; base += CLSORT_HIST_WG * CLSORT_HIST_ITEMS) { /* no wrap */
        KEY_T k[CLSORT_HIST_ITEMS];
#pragma unroll
        for (uint j = 0; j < CLSORT_HIST_ITEMS; j++) {
            const ulong i = base + j * CLSORT_HIST_WG + lid;
            k[j] = i < hi ? keys[i] : (KEY_T)0;
        }
#define SC_OK(j) (base + (j) * CLSORT_HIST_WG + lid < hi)
#pragma unroll
        for (uint j = 0; j < CLSORT_HIST_ITEMS; j++)
            if (SC_OK(j)) {
                ORDER_PAIR(base + j * CLSORT_HIST_WG + lid, k[j]);
            }
        HIST_COUNT_ROUND(SC_OK);
#undef SC_OK
    }
#endif
    if (want_order && fl != ORDER_SEEN)
        atomic_or(order_l, fl);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (want_order && lid == 0)
        atomic_or(order, *order_l | ORDER_SEEN);
    FOR_EACH_LOCAL(e, (p_hi - p_lo) * RADIX)
        if (h[p_lo * RADIX + e])
            atomic_add(&dst[p_lo * RADIX + e], h[p_lo * RADIX + e]);
#endif
#undef ORDER_PAIR
}

/* ORs the bits noted (clsort_note_bits: any, anyc) into the four bit words
 * (low words of the images' OR and of their complements' OR at 0 and 2,
 * high words of 8-byte keys at 1 and 3) */
inline void clsort_publish_bits(global uint *bitwords, KEY_T any, KEY_T anyc)
{
    if ((uint)any)
        atomic_or(&bitwords[0], (uint)any);
    if ((uint)anyc)
        atomic_or(&bitwords[2], (uint)anyc);
#if CLSORT_KEY_BYTES == 8
    if ((uint)(any >> 32))
        atomic_or(&bitwords[1], (uint)(any >> 32));
    if ((uint)(anyc >> 32))
        atomic_or(&bitwords[3], (uint)(anyc >> 32));
#endif
}

/* zero_vec 16-byte words at zero, a contiguous part per work-group */
inline void clsort_zero_vec(global uint *zero, ulong zero_vec)
{
    global uint4 *z = (global uint4 *)zero;
    const ulong per = (zero_vec + get_num_groups(0) - 1) / get_num_groups(0);
    const ulong z0 = get_group_id(0) * per, z1 = min(z0 + per, zero_vec);
    for (ulong e = z0 + get_local_id(0); e < z1; e += CLSORT_HIST_WG)
        z[e] = (uint4)(0u);
}

/* Counts of the digits of passes [p_lo, p_hi) over keys[0..n), added to
 * counts[P][RADIX]; the work-groups sweep the keys round by round
 * (the vector loads) or take a contiguous chunk each. With want_bits it
 * also ORs the keys' images, and their complements, into bitwords[0..4)
 * (low and high halves of each), from which the first plan of MSD order
 * learns which digits vary. With zero_vec > 0 it also zeroes that many
 * 16-byte words at zero (the onesweep passes' look-back areas, and where
 * the counts are kept apart, the tile counters too): not the counts it
 * adds to. The work of clsort_radix_upfront and the start of
 * clsort_radix_upfront_plan. */
inline void clsort_upfront_work(global const KEY_T *keys, idx_t n, idx_t chunk, uint p_lo,
                                uint p_hi, uint begin_bit, uint end_bit, uint descending,
                                global uint *counts, global uint *bitwords, uint want_bits,
                                global uint *zero, ulong zero_vec, local uint *h,
                                uint order_check, global uint *order, local uint *order_l)
{
    /* order_check 0: none; 1: from key 1 on; 2: key 0 too, against keys[-1]
     * (the end of the portion before) */
    const uint want_order = order_check != 0;
    const idx_t order_from = order_check == 2 ? 0 : 1;
    clsort_zero_vec(zero, zero_vec);
    KEY_T any = 0, anyc = 0; /* OR of the images and of their complements */
#if HIST_VEC
    /* the work-groups sweep all the keys together, round by round */
    clsort_count_chunk(keys, 0, n, p_lo, p_hi, begin_bit, end_bit, descending, want_bits, counts,
                       h, &any, &anyc, get_group_id(0), get_num_groups(0), want_order,
                       order_from, order, order_l);
#else
    const idx_t lo = (idx_t)get_group_id(0) * chunk;
    const idx_t hi = min(lo + chunk, n);
    clsort_count_chunk(keys, lo, hi, p_lo, p_hi, begin_bit, end_bit, descending, want_bits,
                       counts, h, &any, &anyc, 0, 1, want_order, order_from, order, order_l);
#endif
    if (want_bits)
        clsort_publish_bits(bitwords, any, anyc);
}

/* clsort_upfront_work at the given offsets; with GATE_PENDING it does
 * nothing unless MSD order's first plan left the decision pending
 * (ST_PENDING), with GATE_UNTILED nothing if the tile pass has counted the
 * top digit and noted the bits instead (its flag, the word after the
 * bitwords: see clsort_radix_tiles). Where that flag has TILE_FEW, the
 * first count (GATE_UNTILED, GATE_FIRST) only zeroes: the check by the set
 * runs first, and where it fails the pending count counts every pass
 * (PENDING_RECOUNT). The order flags go to order[order_off]. */
kernel __attribute__((reqd_work_group_size(CLSORT_HIST_WG, 1, 1)))
void clsort_radix_upfront(CLSORT_PARAMS(clsort_radix_upfront))
{
    local uint h[MAX_PASSES * RADIX];
    local uint order_l;
    const uint flag = bitwords[bits_off + BITS_TILE_FLAG];
    const bool tiles_ran = clsort_tiles_ran(flag);
    if ((gated == GATE_PENDING && !state[ST_PENDING]) || (gated == GATE_UNTILED && tiles_ran))
        return;
    /* the top pass too, where the tile pass counted the map's buckets */
    const uint hi = gated == GATE_PENDING && state[ST_PENDING] == PENDING_RECOUNT ? p_hi + 1u
                                                                                 : p_hi;
    /* the pending count zeroes (zero_vec) only after a tile pass that ran:
     * else the first count has */
    const ulong zv = gated == GATE_PENDING && !tiles_ran ? 0ul : zero_vec;
    if ((gated == GATE_UNTILED || gated == GATE_FIRST) && (flag & TILE_FEW)) {
        clsort_zero_vec(zero + zero_off, zv);
        return;
    }
    clsort_upfront_work(keys + keys_off, n, chunk, p_lo, hi, begin_bit, end_bit,
                        descending, counts + counts_off, bitwords + bits_off, want_bits,
                        zero + zero_off, zv, h, order_check, order + order_off, &order_l);
}

/* The plan, by one work-group: counts[Q][P][RADIX] (one row per portion)
 * become bases[Q][P][RADIX]: where portion q's keys of digit d land in pass
 * p; state gets the pass plan (see the ST_ layout). allow_skip 0 keeps every
 * pass (small inputs, where one more launch costs more than it saves); its
 * bit 1 (ALLOW_FOLD) says the last onesweep launch does the finish's work
 * when its pass is skipped (no finish launch): a lone active pass that is
 * the last one is then preceded by a copy U -> A in the first pass's launch
 * (PASS_COPY: the first pass's digit is constant, so its pass would only
 * have moved the keys in order), and reads A and writes U itself, so that
 * the last launch never has to copy its own result back;
 * gen_index 1 marks argsort, whose values are generated by the first
 * active pass. msd_max > 0 chooses MSD order when at least three passes
 * are active (with two, a bucket's one pass moves as much as an LSD pass,
 * and measured no faster) and no digit of the top active pass has more than
 * msd_max keys:
 * that pass runs first (U -> A) and every bucket of its digit is then sorted
 * by the bits below on its own (clsort_radix_buckets: A -> U/B ... -> U),
 * so that those passes stay in cache.
 *
 * PLAN_TILES is PLAN_TOP after the tile pass (clsort_radix_tiles), whose flag
 * (bitwords[BITS_TILE_FLAG]) says whether it ran: the counts and bitwords are then its
 * own, and where this plan chooses MSD order by the top pass (the digit the
 * tile pass sorted by), ST_TILED tells the buckets to take their keys from
 * the tiles; every other plan clears ST_TILED.
 *
 * PLAN_ALL plans from the counts of every pass. MSD order spares the upfront
 * histogram most of its work in two more phases: PLAN_TOP has only the top
 * pass's counts, and bitwords (the OR of the images and of their
 * complements) to tell the constant digits; it chooses MSD order when the
 * top pass is the top active one and spreads the keys, and otherwise leaves
 * ST_PENDING set for PLAN_PENDING, which runs (after the other passes have
 * been counted) only then, as PLAN_ALL.
 *
 * clear (PLAN_ALL with msd_max 0 only, where nothing reads a count after its
 * base is made): each work-item zeroes the counts it has read, so that they
 * are zero again for the next sort's upfront count (no fill before it), and
 * work-item 0 the order flags.
 *
 * order_mode (ORDER_ bits, 0: none) says what the plan may make of the
 * upfront count's order flags (order[0]): keys already in order skip every
 * pass, as if every digit were constant (argsort's indices are then the
 * identity, written by the finish); keys in reverse order skip every pass
 * too, and pass 0's launch reverses them (PASS_REVERSE, with n in
 * ST_REV_N), or for 8-byte keys alone where the fill check runs
 * (FILL_GATE_KEYS), its launch (FILL_REVERSE).
 *
 * fill_gate (FILL_GATE_KEYS or FILL_GATE_REMAP; 0: never) lets the few
 * keys' check run (clsort_radix_fill_check, ST_FILL) in LSD order where at
 * least two passes are active: where none has more digits than
 * FILL_DIGITS_MAX, the check tries the pass with the most as the keys'
 * names; elsewhere, for keys alone, where some pass has a digit of at least
 * twice its share of the keys (few keys, or some common ones, as Zipf's;
 * uniform keys never), none of more than a quarter of them, and every
 * active pass leaves a digit empty, it gathers the keys themselves
 * (FILL_SET). Where MSD order's sample found the keys few (TILE_FEW), the
 * first plan asks for FILL_SET before any count, with ST_PENDING
 * PENDING_RECOUNT, and the pending plan (the check failed) for none.
 *
 * constant_digit: PLAN_PASS_WORDS local words (per pass whether its digit
 * is constant, then how many digits it has, then PLAN_SKEWED: bit 0 a
 * digit of at least twice its share and at most a quarter of the keys,
 * bit 1 one of more than a quarter). */
#define PLAN_PASS_WORDS (2 * MAX_PASSES + 1)
#define PLAN_SKEWED (2 * MAX_PASSES)
inline void clsort_plan(global uint *counts, uint portions, uint passes, idx_t n,
                        uint begin_bit, uint end_bit, uint allow_skip, uint gen_index,
                        idx_t msd_max, uint phase, uint clear, global const uint *bitwords,
                        global uint *state, global idx_t *bases, local idx_t *s,
                        local uint *constant_digit, global uint *order, uint order_mode,
                        uint fill_gate)
{
    const uint lid = get_local_id(0);
    local uint *digits = constant_digit + MAX_PASSES;
    /* the order check's verdict (every work-item reads the flags before lid
     * 0 may clear them): 1 the keys are in order already, 2 in reverse */
    const uint fl = order_mode ? order[0] : 0u;
    uint ordered = 0;
    if ((fl & ORDER_SEEN) && (order_mode & ORDER_SORTED) && !(fl & ORDER_DESCENT))
        ordered = 1;
    else if ((fl & ORDER_SEEN) && (order_mode & ORDER_REVERSE) && !(fl & ORDER_ASCENT) &&
             (!(fl & ORDER_TIE) || (order_mode & ORDER_REVERSE_TIES)))
        ordered = 2;
    FOR_EACH_LOCAL(p, PLAN_PASS_WORDS)
        constant_digit[p] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The bases of every pass planned in one group scan, not one per pass
     * (a scan's barriers each time): work-item lid owns the entries
     * [lid*per, lid*per+per) of the (pass, digit) pairs of passes [p0,
     * passes) in that order. Each pass's counts add up to n, so the scan's
     * prefix at (p, d) is (p - p0) * n plus d's base in pass p; in idx_t's
     * unsigned arithmetic the sum may wrap, and the subtraction wraps back
     * to the base exactly. */
    const uint first = phase == PLAN_TOP || phase == PLAN_TILES; /* the top pass alone counted */
    const uint p0 = first ? passes - 1 : 0;
    const uint m = (passes - p0) * RADIX;
    const uint per = (m + get_local_size(0) - 1) / get_local_size(0);
    idx_t own = 0;
    for (uint j = 0; j < per; j++) {
        const uint e = lid * per + j;
        if (e < m) {
            const uint p = p0 + e / RADIX, d = e % RADIX;
            idx_t t = 0;
            for (uint q = 0; q < portions; q++)
                t += counts[(q * passes + p) * RADIX + d];
            if (t == n)
                constant_digit[p] = 1;
            if (fill_gate && t)
                atomic_inc(&digits[p]);
            if (fill_gate && t != n && (ulong)t * RADIX >= 2 * (ulong)n)
                atomic_or(&constant_digit[PLAN_SKEWED], (ulong)t * 4 > (ulong)n ? 2u : 1u);
            own += t;
        }
    }
    idx_t total;
    idx_t run = clsort_group_scan_idx(own, s, &total);
    for (uint j = 0; j < per; j++) {
        const uint e = lid * per + j;
        if (e < m) {
            const uint p = p0 + e / RADIX, d = e % RADIX;
            const idx_t before = (idx_t)(e / RADIX) * n; /* the passes before p */
            idx_t b = run - before;
            for (uint q = 0; q < portions; q++) {
                uint c = counts[(q * passes + p) * RADIX + d];
                bases[(q * passes + p) * RADIX + d] = b;
                b += c;
                if (clear)
                    counts[(q * passes + p) * RADIX + d] = 0;
            }
            run = b + before;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Seen on PoCL 3.1: after this barrier every work-item had work-item 0's
     * lid, so all of them ran the part below (get_local_id(0) here instead
     * ended in a segmentation fault there). Harmless while they all write the same
     * words: this part must not change what it reads (constant_digit). */
    if (lid == 0) {
        if (first) {
            /* a bit varies if some image has it set and some has it clear */
            ulong varying = ((ulong)bitwords[1] << 32 | bitwords[0]) &
                            ((ulong)bitwords[3] << 32 | bitwords[2]);
            for (uint p = 0; p < passes; p++)
                constant_digit[p] = ((varying >> clsort_pass_shift(begin_bit, p)) &
                                     clsort_pass_mask(begin_bit, end_bit, p)) == 0;
        }
        /* keys in order or in reverse order: no pass moves them by a digit
         * (the host asks for the check only where passes may be skipped) */
        if (ordered)
            for (uint p = 0; p < passes; p++)
                constant_digit[p] = 1;
        if (order_mode && clear)
            order[0] = 0;
        uint active = 0, top = 0;
        for (uint p = 0; p < passes; p++)
            if (!((allow_skip & 1) && constant_digit[p])) {
                active++;
                top = p;
            }
        /* pass 0's launch copies (see above); constant_digit stays as it is,
         * so that the decision reads the same words everywhere */
        const uint copy_first =
            (allow_skip & ALLOW_FOLD) && active == 1 && top == passes - 1 && passes > 1;
        if (copy_first)
            active = 2;
        idx_t most = msd_max + 1;
        if (msd_max > 0 && active >= 3 && (!first || top == passes - 1)) {
            most = 0;
            for (uint d = 0; d < RADIX; d++) {
                idx_t t = 0;
                for (uint q = 0; q < portions; q++)
                    t += counts[(q * passes + top) * RADIX + d];
                most = max(most, t);
            }
        }
        /* MSD order where no bucket is past the bound, or where the sample
         * (clsort_radix_sample) found the buckets past it to be one key
         * each (its flag 2), at the top pass's first plan */
        const uint tile_flag = bitwords[BITS_TILE_FLAG] & ~TILE_SKIP;
        const bool tiles_ran = clsort_tiles_ran(bitwords[BITS_TILE_FLAG]);
        /* ...or where the tile pass counted the buckets of the sample's
         * map (TILE_MAPPED; counts then reads their row) and none holds
         * more than TILE_MAPPED_MAX times the bound (the sample saw the top
         * digit vary and three passes or more, so top is the top pass).
         * Where one does (keys that the sample did not see), the top pass
         * has not been counted: PENDING_RECOUNT has the pending count
         * count it too. */
        const bool mapped = phase == PLAN_TILES && tile_flag == TILE_MAPPED;
        /* ...or where the tile pass found every key one of the sample's
         * (TILE_FILL: the buckets are written from their keys). Where it
         * found another (TILE_FILL_BAD) its counts are partial: the
         * pending count counts every pass, and the pending plan takes the
         * sample's keys as flag 2 (the big buckets copied and checked) */
        const bool fill_flag = (tile_flag & TILE_FILL) != 0;
        const bool fill = phase == PLAN_TILES && fill_flag;
        const bool fill_bad = fill && (tile_flag & TILE_FILL_BAD) != 0;
        const bool few = ((phase == PLAN_TILES || phase == PLAN_TOP) && (tile_flag == 2 || fill)) ||
                         (phase == PLAN_PENDING && fill_flag);
        /* the few keys' check LSD order would ask for (ST_FILL; 0: none): by
         * the active pass of the most digits, where none has more than
         * FILL_DIGITS_MAX */
        uint fill_code = 0;
        /* where the sample's keys looked few (TILE_FEW; MSD order's
         * phases, whose bitwords hold the flag), the first plan asks for
         * the check by the set before any count (its counts are 32-bit);
         * the pending plan runs only where it refused them, and asks for
         * none. Only that first ask is the first plan's: the checks of LSD
         * order and the reversal by the check's launch are the later
         * plans' (lsd_gate), the check's launch before the pending count
         * running only for the set */
        const bool few_sample = (tile_flag & TILE_FEW) != 0 && phase != PLAN_ALL;
        const bool set_first = few_sample && FILL_SET_OK && fill_gate == FILL_GATE_KEYS &&
                               n <= 0xffffffffu;
        const uint lsd_gate = first ? 0u : fill_gate;
        if (lsd_gate && !set_first && !ordered && active >= 2 && !copy_first) {
            uint best = 0, most_digits = 0;
            for (uint p = 0; p < passes; p++)
                if (!constant_digit[p] && digits[p] > most_digits) {
                    most_digits = digits[p];
                    best = p;
                }
            if (most_digits <= FILL_DIGITS_MAX)
                fill_code = best + 1;
            else if (FILL_SET_OK && lsd_gate == FILL_GATE_KEYS &&
                     constant_digit[PLAN_SKEWED] == 1 && n <= 0xffffffffu) {
                /* and every active pass leaves a digit empty: many keys
                 * fill every digit of some pass (Zipf over 2^20 values,
                 * the AND of two words), and an input of one common key
                 * among many (the AND of four) has a digit of more than
                 * a quarter of them; there a check that stops after its
                 * first round still costs a few percent of the sort */
                uint full = 0;
                for (uint p = 0; p < passes; p++)
                    full |= !constant_digit[p] &&
                            digits[p] == clsort_pass_mask(begin_bit, end_bit, p) + 1u;
                if (!full)
                    fill_code = FILL_SET; /* its counts are 32-bit */
            }
        }
        /* the first plan then leaves the decision to the pending one: the
         * first count has counted nothing, and the pending one counts
         * every pass (PENDING_RECOUNT) */
        const bool few_keys = first && few_sample;
        const bool msd =
            !fill_bad && !few_keys &&
            (most <= msd_max ||
             (mapped && top == passes - 1 && active >= 3 && most <= TILE_MAPPED_MAX * msd_max) ||
             (few && top == passes - 1 && active >= 3 && msd_max > 0));
        state[ST_PENDING] =
            first && !msd && !ordered ? (mapped || fill || few_keys ? PENDING_RECOUNT : 1u) : 0u;
        /* the check by the set, which clears ST_PENDING where it holds */
        state[ST_FILL] = first && set_first ? FILL_SET : 0u;
        state[ST_FILL_KEYS] = 0;
        state[ST_FEW_REFUSED] = phase == PLAN_PENDING && set_first;
        state[ST_COMMON] = 0;
        state[ST_BY_SET] = 0;
        state[ST_BY_RANKS] = 0;
        state[ST_SHARED] = 0;
        state[ST_MSD] = msd ? top + 1 : 0;
        state[ST_TILED] = phase == PLAN_TILES && tiles_ran && msd && top == passes - 1
                              ? (mapped ? TILED_MAPPED : fill ? TILED_FILL : 1u)
                              : 0u;
        if (state[ST_PENDING]) {
            /* PLAN_PENDING decides, with every pass counted */
        } else if (msd) {
            /* MSD order: U -> A by the top digit; clsort_radix_buckets then
             * sorts each bucket by all the bits below it (A -> B/U ... -> U),
             * with digits of its own and skipping what is constant inside
             * the bucket, so the passes below are only marked. */
            for (uint p = 0; p < passes; p++) {
                global uint *w = state + ST_PASS(p);
                w[ST_PASS_ACTIVE] = p == top ? PASS_MSD : (p < top ? PASS_BUCKET : PASS_OFF);
                w[ST_PASS_SRC] = 0;
                w[ST_PASS_DST] = p == top ? 1 : 0;
                w[ST_PASS_FIRST] = p == top && gen_index;
            }
            state[ST_ACTIVE_PASSES] = active;
            state[ST_COPY_BACK] = 0;
            state[ST_IOTA] = 0;
        } else {
            uint cur = 0, seen = 0;
            for (uint p = 0; p < passes; p++) {
                uint on = !((allow_skip & 1) && constant_digit[p]) || (copy_first && p == 0);
                uint dst = cur;
                if (on) {
                    seen++;
                    if (seen == active && active > 1)
                        dst = 0;                 /* the last pass lands in U */
                    else
                        dst = (cur == 1) ? 2 : 1; /* U->A, A->B, B->A */
                }
                state[ST_PASS(p) + ST_PASS_ACTIVE] =
                    on ? (copy_first && p == 0 ? PASS_COPY : PASS_LSD) : PASS_OFF;
                state[ST_PASS(p) + ST_PASS_SRC] = cur;
                state[ST_PASS(p) + ST_PASS_DST] = dst;
                state[ST_PASS(p) + ST_PASS_FIRST] = on && seen == 1 && gen_index;
                cur = dst;
            }
            state[ST_ACTIVE_PASSES] = active;
            state[ST_COPY_BACK] = (active == 1);
            state[ST_IOTA] = (active == 0) && gen_index;
            state[ST_FILL] = fill_code; /* the few keys' check */
            if (ordered == 2 && lsd_gate == FILL_GATE_KEYS && CLSORT_KEY_BYTES == 8 &&
                CLSORT_HIST_WG > 1) {
                /* 8-byte keys: the check's launch reverses the keys in U,
                 * a light kernel with many loads in flight, where pass 0's
                 * has the wide tile's registers (fill_gate: keys alone);
                 * 4-byte keys reverse as fast in pass 0's launch */
                state[ST_FILL] = FILL_REVERSE;
                state[ST_IOTA] = 0;
            } else if (ordered == 2) {
                /* pass 0's launch reverses the keys in U (and writes
                 * argsort's indices itself) */
                global uint *w = state + ST_PASS(0);
                w[ST_PASS_ACTIVE] = PASS_REVERSE;
                w[ST_PASS_FIRST] = gen_index;
                state[ST_IOTA] = 0;
                state[ST_REV_N] = (uint)n;
                state[ST_REV_N + 1] = (uint)((ulong)n >> 32);
            }
        }
    }
}

/* counts at counts + counts_off; clear: see clsort_plan */
kernel __attribute__((reqd_work_group_size(CLSORT_PLAN_WG, 1, 1)))
void clsort_radix_plan(CLSORT_PARAMS(clsort_radix_plan))
{
    local idx_t s[SCAN_LOCAL_WORDS(CLSORT_PLAN_WG)];
    local uint constant_digit[PLAN_PASS_WORDS];
    if (phase == PLAN_PENDING && !state[ST_PENDING])
        return;
    /* after a tile pass by the sample's map, or of its keys alone
     * (TILE_FILL), the top pass's row (the only one this phase reads) is
     * the map's counts, map_counts_off into counts (0: the shape has no
     * map) */
    global uint *c = counts + counts_off;
    const uint tf = bitwords[bits_off + BITS_TILE_FLAG];
    if (phase == PLAN_TILES && map_counts_off && (tf == TILE_MAPPED || (tf & TILE_FILL)))
        c = counts + map_counts_off - (ulong)(passes - 1) * RADIX;
    clsort_plan(c, portions, passes, n, begin_bit, end_bit, allow_skip,
                gen_index, msd_max, phase, clear && phase == PLAN_ALL && msd_max == 0,
                bitwords + bits_off, state, bases, s, constant_digit, order + order_off,
                order_mode, fill);
}

/* The one-work-group start of a small sort (one portion): counts every
 * pass's digits of keys[0, n) in h (local, passes * RADIX words), writes
 * them to counts and makes the plan from them. One work-item counts with
 * plain increments, a pass at a time (the keys stay in its cache); a group
 * with local atomics. wg: the work-group size, the kernel's constant (PoCL
 * 3.1 hung on the counting loop with get_local_size(0) as its step). s,
 * constant_digit: clsort_plan's local memory. */
inline void clsort_count_and_plan(const global KEY_T *keys, idx_t n, uint passes,
                                  uint begin_bit, uint end_bit, uint descending, uint allow_skip,
                                  uint gen_index, global uint *counts, global uint *state,
                                  global idx_t *bases, local uint *h, local idx_t *s,
                                  local uint *constant_digit, uint wg)
{
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(e, passes * RADIX)
        h[e] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (wg == 1) {
        for (uint p = 0; p < passes; p++) {
            const uint shift = clsort_pass_shift(begin_bit, p);
            const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
            local uint *hp = h + p * RADIX;
            for (idx_t i = 0; i < n; i++)
                hp[DIGIT_OF(keys[i], shift, mask, descending ? mask : 0u)]++;
        }
    } else {
        for (idx_t i0 = 0; i0 < n; i0 += wg) { /* uniform trip count */
            const idx_t i = i0 + lid;
            if (i < n) {
                const KEY_T k = keys[i];
                for (uint p = 0; p < passes; p++) {
                    const uint mask = clsort_pass_mask(begin_bit, end_bit, p);
                    atomic_inc(&h[p * RADIX + DIGIT_OF(k, clsort_pass_shift(begin_bit, p), mask,
                                                      descending ? mask : 0u)]);
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    FOR_EACH_LOCAL(e, passes * RADIX)
        counts[e] = h[e];
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    clsort_plan(counts, 1, passes, n, begin_bit, end_bit, allow_skip, gen_index, 0, PLAN_ALL, 0,
                counts, state, bases, s, constant_digit, counts, 0, 0);
}

/* Small inputs (one portion): one work-group zeroes the tile counters and
 * look-back words, counts every pass's digits into counts[P][RADIX] and
 * makes the plan - one launch instead of fill, upfront and plan. */
kernel __attribute__((reqd_work_group_size(CLSORT_PLAN_WG, 1, 1)))
void clsort_radix_prologue(CLSORT_PARAMS(clsort_radix_prologue))
{
    local uint h[MAX_PASSES * RADIX];
    local idx_t s[SCAN_LOCAL_WORDS(CLSORT_PLAN_WG)];
    local uint constant_digit[PLAN_PASS_WORDS];
    const uint lid = get_local_id(0);
    for (ulong e0 = 0; e0 < zero_words; e0 += CLSORT_PLAN_WG) /* uniform trip count */
        if (e0 + lid < zero_words)
            scratch[zero_from + e0 + lid] = 0;
    /* counts sit at the start of scratch */
    clsort_count_and_plan(keys + keys_off, n, passes, begin_bit, end_bit, descending, allow_skip,
                          gen_index, scratch, state, bases, h, s, constant_digit, CLSORT_PLAN_WG);
}


/* The start of a one-portion onesweep sort in LSD order in one launch
 * instead of two: the upfront count (clsort_upfront_work) adds to the
 * counts in sync and zeroes zero_vec 16-byte words at zero (all of
 * scratch); each work-group then signs off, and the last to do so makes
 * the plan (clsort_plan), clearing the counts as it reads them and the
 * sign-off word, so that sync is all zero again for the next sort (the
 * host zeroes it once, when it is allocated). No work-group waits for
 * another: this needs no forward-progress guarantee. */
kernel __attribute__((reqd_work_group_size(CLSORT_HIST_WG, 1, 1)))
void clsort_radix_upfront_plan(CLSORT_PARAMS(clsort_radix_upfront_plan))
{
    local uint h[MAX_PASSES * RADIX];
    local idx_t s[SCAN_LOCAL_WORDS(CLSORT_HIST_WG)];
    local uint constant_digit[PLAN_PASS_WORDS];
    local uint last, order_l;
    const uint lid = get_local_id(0);
    global uint *order = sync + SYNC_COUNTS + passes * RADIX; /* after the counts */
    clsort_upfront_work(keys + keys_off, n, chunk, 0, passes, begin_bit, end_bit, descending,
                        sync + SYNC_COUNTS, sync, 0, zero, zero_vec, h, order_mode ? 1u : 0u,
                        order, &order_l);
    /* every count added, seen by every work-item of the last group */
    if (!clsort_last_to_sign_off(&sync[SYNC_DONE], &last))
        return;
    if (lid == 0)
        sync[SYNC_DONE] = 0;
    /* PoCL 3.1 (hist_wg=64, one work-group, 70001 keys) made wrong bases
     * without this barrier, right ones with it */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    clsort_plan(sync + SYNC_COUNTS, 1, passes, n, begin_bit, end_bit, allow_skip, gen_index, 0,
                PLAN_ALL, 1, sync, state, bases, s, constant_digit, order, order_mode, fill);
}

/* The few keys' check (launched between the plan and the passes where the
 * host allows the fill, and on the CPU shapes also between MSD order's
 * first plan and the pending count; does nothing unless a plan set
 * ST_FILL, nor where an earlier launch held: ST_FILL_KEYS). Work-group g
 * takes rounds g, g + groups, ... of HIST_WG * HIST_ITEMS keys; a group
 * that finds the keys not few stops every group (FILL_ABORT, read every
 * eighth round). By the digits of pass p (ST_FILL
 * p + 1): each group keeps the first key it sees of each digit (lut) and
 * compares every key with its digit's, then adds its digits' keys to the
 * largest of each 32-bit word and of each word's complement (FILL_MAX,
 * FILL_MAXC): a digit is one key where the largest word is the complement
 * of the largest complement; the counts are pass p's row of bases. By the
 * set of keys (FILL_SET): each group counts its keys in a table in local
 * memory (clsort_set_round) and adds them to the table in scratch
 * (clsort_set_merge). The last group to sign off, where no group stopped
 * and the keys are few, writes the table (FILL_TABLE_WORDS: the keys in
 * the sort's order, each ranked among the others, and where each key's
 * run starts) and turns pass 0 into PASS_FILL and every other pass off,
 * so that the passes' launches write each place from the table and read
 * nothing. With values (by digits only, FILL_GATE_REMAP), every group
 * copies its keys and values to A as it checks them, and the last one
 * writes each digit's rank (FILL_TABLE_REMAP) and each rank's start into
 * pass 0's row of bases, and turns pass 0 into PASS_REMAP, A -> U by the
 * ranks. The words in scratch at fill_off are zero before (the upfront
 * count zeroes scratch). With FILL_REVERSE (keys in reverse order, every
 * pass off) it reverses the keys in place instead (clsort_reverse_keys). */
#if CLSORT_KEY_BYTES == 8
#define FILL_KW 2u
#else
#define FILL_KW 1u
#endif
/* The check's keys per work-item a round: the count's on work-group
 * shapes; on the CPU shapes (one work-item a group) rounds of 64 keys,
 * each group taking a contiguous chunk of rounds (PoCL's threads then
 * read their own lines in order) */
#if CLSORT_HIST_WG == 1
#define CHECK_ITEMS 64u
#else
#define CHECK_ITEMS CLSORT_HIST_ITEMS
#endif

/* A key's first slot in a table of 2^bits slots: multiplicative hashing
 * (the check by the set; MSD order's buckets by their set, radix_msd.cl) */
inline uint clsort_set_hash(set_t k, uint bits)
{
#if CLSORT_KEY_BYTES == 8
    return (uint)((k * 0x9e3779b97f4a7c15ul) >> (64u - bits));
#else
    return (k * 0x9e3779b9u) >> (32u - bits);
#endif
}

#if FILL_SET_OK

/* The slot of key k (not 0) in the table t of 2^bits slots (0: empty),
 * added where it is not there yet (counted in *used); -1 where
 * FILL_SET_PROBES slots in a row hold other keys. A slot once set keeps
 * its key, so a plain load that returns 0 for it is caught by the
 * compare-and-swap; so is an 8-byte load torn by a store (a zero half:
 * OpenCL does not promise such loads whole). */
#if CLSORT_KEY_BYTES == 8
#define SET_MAYBE_EMPTY(v) ((uint)(v) == 0u || (uint)((v) >> 32) == 0u)
#else
#define SET_MAYBE_EMPTY(v) ((v) == 0u)
#endif
#define CLSORT_SET_FIND(name, space)                                                            \
    inline int name(volatile space set_t *t, set_t k, uint bits, volatile space uint *used)    \
    {                                                                                          \
        uint h = clsort_set_hash(k, bits);                                                     \
        for (uint j = 0; j < FILL_SET_PROBES; j++, h = (h + 1) & ((1u << bits) - 1u)) {       \
            set_t v = ((const space set_t *)t)[h];                                             \
            if (v != k && SET_MAYBE_EMPTY(v)) {                                                \
                v = SET_CAS(&t[h], (set_t)0, k);                                               \
                if (v == 0) {                                                                  \
                    atomic_inc(used);                                                          \
                    return (int)h;                                                             \
                }                                                                              \
            }                                                                                  \
            if (v == k)                                                                        \
                return (int)h;                                                                 \
        }                                                                                      \
        return -1;                                                                             \
    }
CLSORT_SET_FIND(clsort_set_find_local, local)
CLSORT_SET_FIND(clsort_set_find_global, global)

/* clsort_set_find_local for a group of one work-item (the CPU shapes, and
 * MSD order's sample): plain loads and stores, which the compiler may keep
 * in flight together */
inline int clsort_set_find_one(local set_t *t, set_t k, uint bits, local uint *used)
{
    uint h = clsort_set_hash(k, bits);
    for (uint j = 0; j < FILL_SET_PROBES; j++, h = (h + 1) & ((1u << bits) - 1u)) {
        const set_t v = t[h];
        if (v == k)
            return (int)h;
        if (v == 0) {
            t[h] = k;
            ++*used;
            return (int)h;
        }
    }
    return -1;
}

/* A round's keys k (those below n from r0, this work-item's) counted in
 * the group's table (lkey, lcnt); returns how many are key 0. Past
 * FILL_SET_MAX keys (*used) none is added, and *bad takes the round's
 * number r (a plain store: the group stops after a round that wrote it,
 * and a later round's number is larger, so a read after the round's
 * barrier compares it with r). */
inline uint clsort_set_round(const KEY_T *k, ulong r0, idx_t n, uint r, volatile local set_t *lkey,
                             volatile local uint *lcnt, volatile local uint *used,
                             volatile local uint *bad)
{
    uint zero = 0;
#if CLSORT_HIST_WG == 1
    /* one work-item: the round's slots first (a loop without stores), then
     * each key counted where its first slot holds it (most keys, once the
     * table has them), the others found or added, without volatile or
     * atomics */
    local set_t *t = (local set_t *)lkey;
    local uint *c = (local uint *)lcnt;
    uint slot[CHECK_ITEMS];
    for (uint j = 0; j < CHECK_ITEMS; j++)
        slot[j] = clsort_set_hash((set_t)k[j], FILL_SET_LOCAL_BITS);
    const uint m = n - r0 < CHECK_ITEMS ? (uint)(n - r0) : CHECK_ITEMS;
    for (uint j = 0; j < m; j++) {
        const set_t x = (set_t)k[j];
        if (t[slot[j]] == x && x != 0) {
            c[slot[j]]++;
        } else if (x == 0) {
            zero++;
        } else {
            local uint *tu = (local uint *)used;
            const int at = *tu <= FILL_SET_MAX
                               ? clsort_set_find_one(t, x, FILL_SET_LOCAL_BITS, tu)
                               : -1;
            if (at < 0)
                *bad = r;
            else
                c[at]++;
        }
    }
#else
    for (uint j = 0; j < CHECK_ITEMS; j++) {
        const set_t x = (set_t)k[j];
        if (r0 + (ulong)j * CLSORT_HIST_WG + get_local_id(0) >= n) {
        } else if (x == 0) {
            zero++;
        } else {
            const int at = *used <= FILL_SET_MAX
                               ? clsort_set_find_local(lkey, x, FILL_SET_LOCAL_BITS, used)
                               : -1;
            if (at < 0)
                *bad = r;
            else
                atomic_inc(&lcnt[at]);
        }
    }
#endif
    return zero;
}

/* The group's keys and counts added to the table in scratch (w) */
inline void clsort_set_merge(global uint *w, volatile local const set_t *lkey,
                             volatile local const uint *lcnt, uint zero)
{
    volatile global set_t *gkey = (volatile global set_t *)(w + FILL_SET_KEY);
    FOR_EACH_LOCAL(i, FILL_SET_LOCAL) {
        const set_t x = lkey[i];
        if (x) {
            const int at = clsort_set_find_global(gkey, x, FILL_SET_BITS, &w[FILL_SET_USED]);
            if (at < 0)
                atomic_or(&w[FILL_ABORT], 1u);
            else
                atomic_add(&w[FILL_SET_COUNT(at)], lcnt[i]);
        }
    }
    if (get_local_id(0) == 0 && zero)
        atomic_add(&w[FILL_SET_ZERO], zero);
}

/* The last group: the table's keys (their order keys) and counts, key 0's
 * too, gathered into lkey and lcnt, *nk of them; *total their counts */
inline void clsort_set_gather(global uint *w, uint descending, volatile local set_t *lkey,
                              volatile local uint *lcnt, volatile local uint *nk,
                              volatile local uint *total)
{
    volatile global set_t *gkey = (volatile global set_t *)(w + FILL_SET_KEY);
    FOR_EACH_LOCAL(g, FILL_SET_SLOTS + 1) {
        const set_t x = g < FILL_SET_SLOTS ? SET_CAS(&gkey[g], (set_t)0, (set_t)0) : 0; /* from L2 */
        const uint c = atomic_or(&w[g < FILL_SET_SLOTS ? FILL_SET_COUNT(g) : FILL_SET_ZERO], 0u);
        if (x || (g == FILL_SET_SLOTS && c)) {
            const uint i = atomic_inc(nk);
            lkey[i] = (set_t)clsort_order_key((KEY_T)x, 0, KEY_BITS, descending);
            lcnt[i] = c;
            atomic_add(total, c);
        }
    }
}
#endif

/* The fill's table (tab: the keys in the sort's order, start: where each
 * key's run starts) from the nk keys of okey (their order keys) and cnt
 * (their counts), local: each key's rank among them and the keys before
 * it. A macro: the two ways of the check keep keys and counts of other
 * widths. Integer keys only (the host asks for no check of floats). */
#if CLSORT_KEY_KIND == 2
#define FILL_TABLE_ROWS(nk, okey, cnt, tab, start, descending, ROW)
#else
#define FILL_TABLE_ROWS(nk, okey, cnt, tab, start, descending, ROW)                             \
    FOR_EACH_LOCAL(i_, nk) {                                                                   \
        const KEY_T o_ = (KEY_T)(okey)[i_];                                                    \
        uint rank_ = 0;                                                                        \
        ulong before_ = 0;                                                                     \
        for (uint e_ = 0; e_ < (nk); e_++)                                                     \
            if ((KEY_T)(okey)[e_] < o_) {                                                      \
                rank_++;                                                                       \
                before_ += (cnt)[e_];                                                          \
            }                                                                                  \
        (tab)[rank_] = clsort_order_key_inverse(o_, descending);                               \
        (start)[rank_] = before_;                                                              \
        ROW(i_, rank_, before_);                                                               \
    }
#endif
#define FILL_ROW_NONE(i, rank, before) (void)0

/* FILL_REVERSE: key i trades places with key n - 1 - i, every work-item
 * of the launch taking pairs at the launch's stride, the loads of
 * REV_PAIRS pairs issued before their stores (more loads in flight). */
#define REV_PAIRS 4
inline void clsort_reverse_keys(global KEY_T *keys, ulong n)
{
    const ulong pairs = n / 2, stride = get_global_size(0);
    for (ulong b = get_global_id(0); b < pairs; b += REV_PAIRS * stride) {
        KEY_T lo[REV_PAIRS], hi[REV_PAIRS];
#pragma unroll
        for (uint j = 0; j < REV_PAIRS; j++) {
            const ulong i = b + j * stride;
            if (i < pairs) {
                lo[j] = keys[i];
                hi[j] = keys[n - 1 - i];
            }
        }
#pragma unroll
        for (uint j = 0; j < REV_PAIRS; j++) {
            const ulong i = b + j * stride;
            if (i < pairs) {
                keys[i] = hi[j];
                keys[n - 1 - i] = lo[j];
            }
        }
    }
}

kernel __attribute__((reqd_work_group_size(CLSORT_HIST_WG, 1, 1)))
void clsort_radix_fill_check(CLSORT_PARAMS(clsort_radix_fill_check))
{
    local KEY_T lut[RADIX];
    local idx_t cnt[RADIX];
    local uint seen[RADIX];
    /* stop_l by round parity, so that the next round's word does not
     * overwrite this one's before it is read */
    local uint stop_l[2], last_l, ok_l, agree_l, keys_l;
    /* new_l by round mod 3: set by any work-item before a round's barrier
     * and read after it, then cleared by work-item 0 after the next
     * round's barrier (every work-item has read it), which comes before
     * any work-item can set it again, two rounds on; with one word, a
     * fast warp's next round could set it before a slow one had read
     * this round's, and the warps would take different barriers */
    local uint new_l[3];
#if FILL_SET_OK
    local set_t skey[FILL_SET_LOCAL];
    local uint scnt[FILL_SET_LOCAL], used_l, zero_l, bad_l, total_l;
#endif
    const uint fp = state[ST_FILL];
    if (!fp || state[ST_FILL_KEYS])
        return; /* none asked, or the launch before the pending count held (TILE_FEW) */
    if (fp == FILL_REVERSE) {
        clsort_reverse_keys(keys + keys_off, n);
        return;
    }
    const bool by_set = FILL_SET_OK && fp == FILL_SET;
    const uint lid = get_local_id(0), p = by_set ? 0u : fp - 1;
#if HAVE_VALUES
    /* argsort: the first active pass of the plan generates the indices */
    uint gen = 0;
    for (uint q = 0; q < passes; q++)
        gen |= state[ST_PASS(q) + ST_PASS_FIRST];
    vals += vals_off;
#endif
    const uint shift = clsort_pass_shift(0, p), mask = clsort_pass_mask(0, KEY_BITS, p);
    const uint flip = descending ? mask : 0u;
    global uint *w = scratch + fill_off;
    keys += keys_off;
    if (by_set) {
#if FILL_SET_OK
        FOR_EACH_LOCAL(i, FILL_SET_LOCAL) {
            skey[i] = 0;
            scnt[i] = 0;
        }
        if (lid == 0) {
            used_l = 0;
            zero_l = 0;
            bad_l = 0xffffffffu;
        }
#endif
    } else {
        FOR_EACH_LOCAL(d, RADIX)
            seen[d] = 0;
    }
    if (lid == 0)
        new_l[0] = new_l[1] = new_l[2] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* ulong: with 32-bit indices, a round past n near 2^32 must not wrap */
    const ulong round = (ulong)CLSORT_HIST_WG * CHECK_ITEMS;
#if CLSORT_HIST_WG == 1
    /* a contiguous chunk of whole rounds a group */
    const ulong chunk = ((n + round - 1) / round + get_num_groups(0) - 1) / get_num_groups(0) *
                        round;
    const ulong r_lo = get_group_id(0) * chunk, r_hi = min(r_lo + chunk, (ulong)n);
    const ulong stride = round;
#else
    const ulong r_lo = get_group_id(0) * round, r_hi = n;
    const ulong stride = (ulong)get_num_groups(0) * round;
#endif
    uint bad = 0, told = 0, r = 0, zero = 0, stopped = 0;
    /* A round: its keys loaded first (all in flight), then each counted
     * (by_set) or compared with its digit's key where the digit was seen
     * before; the others (fresh) only where some work-item has one, after
     * the round's barrier: one of them per digit is written to lut, and
     * after a second barrier each is compared with it. Whether another
     * group has stopped is read at every eighth round (an atomic's round
     * trip before the barrier). */
    for (ulong r0 = r_lo; r0 < r_hi; r0 += stride, r++) { /* uniform */
        KEY_T k[CHECK_ITEMS];
        uint dg[CHECK_ITEMS];
        ulong fresh = 0; /* a bit per key (CHECK_ITEMS <= 64) */
        for (uint j = 0; j < CHECK_ITEMS; j++) { /* the loads first, all in flight */
            const ulong i = r0 + (ulong)j * CLSORT_HIST_WG + lid;
            k[j] = i < n ? keys[i] : 0;
        }
#if HAVE_VALUES
        /* pass 0 by the keys' ranks reads A: the keys and values are
         * copied there as they are checked (a check that stops leaves the
         * copy unfinished, and the passes read U; a work-item that has
         * seen two keys of a digit copies no more) */
        for (uint j = 0; j < CHECK_ITEMS; j++) {
            const ulong i = r0 + (ulong)j * CLSORT_HIST_WG + lid;
            if (i < n && !bad) {
                ka[i] = k[j];
                va[i] = GEN_VALUE(gen, i, vals[i]);
            }
        }
#endif
        if (lid == 0)
            stop_l[r & 1] = r & 7 ? 0u : atomic_or(&w[FILL_ABORT], 0u);
        if (by_set) {
#if FILL_SET_OK
            zero += clsort_set_round(k, r0, n, r, skey, scnt, &used_l, &bad_l);
#endif
        } else {
            for (uint j = 0; j < CHECK_ITEMS; j++) {
                dg[j] = DIGIT_OF(k[j], shift, mask, flip);
                if (r0 + (ulong)j * CLSORT_HIST_WG + lid < n) {
                    if (seen[dg[j]])
                        bad |= lut[dg[j]] != k[j];
                    else
                        fresh |= 1ul << j;
                }
            }
            if (fresh)
                new_l[r % 3] = 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            new_l[(r + 2) % 3] = 0; /* the round before's */
#if FILL_SET_OK
        if (by_set && bad_l <= r)
            bad = 1; /* uniform */
#endif
        if (stop_l[r & 1] || (by_set && bad)) {
            stopped = 1;
            break;
        }
        if (!by_set && new_l[r % 3]) { /* uniform: read after the barrier */
            for (uint j = 0; j < CHECK_ITEMS; j++)
                if (fresh >> j & 1)
                    lut[dg[j]] = k[j]; /* one of the round's fresh keys wins */
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint j = 0; j < CHECK_ITEMS; j++)
                if (fresh >> j & 1) {
                    bad |= lut[dg[j]] != k[j];
                    seen[dg[j]] = 1;
                }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (bad && !told) {
            atomic_or(&w[FILL_ABORT], 1u);
            told = 1;
        }
    }
#if FILL_SET_OK
    if (zero)
        atomic_add(&zero_l, zero);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (by_set) {
#if FILL_SET_OK
        /* a group that stopped returns without signing off: no group
         * is then the last, and the passes sort */
        if (bad && lid == 0)
            atomic_or(&w[FILL_ABORT], 1u);
        if (stopped)
            return; /* uniform */
        clsort_set_merge(w, skey, scnt, zero_l);
#endif
    } else {
        FOR_EACH_LOCAL(d, RADIX)
            if (seen[d])
                for (uint h = 0; h < FILL_KW; h++) {
                    const uint x = (uint)((ulong)lut[d] >> (32 * h));
                    atomic_max(&w[FILL_MAX(RADIX, h, d)], x);
                    atomic_max(&w[FILL_MAXC(RADIX, h, d)], ~x);
                }
    }
    if (!clsort_last_to_sign_off(&w[FILL_DONE], &last_l))
        return;
    if (lid == 0) {
        ok_l = atomic_or(&w[FILL_ABORT], 0u) == 0 &&
               (!by_set || atomic_or(&w[FILL_SET_USED], 0u) <= FILL_SET_MAX);
        agree_l = 1; /* a word of its own: ok_l is read below while this is cleared */
        keys_l = 0;
#if FILL_SET_OK
        total_l = 0;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!ok_l)
        return; /* uniform: read after the barrier */
    if (by_set) {
#if FILL_SET_OK
        clsort_set_gather(w, descending, skey, scnt, &keys_l, &total_l);
#endif
    } else {
        /* each digit's count (pass p's row of bases) and key */
        const global idx_t *base = bases + (ulong)p * RADIX;
        FOR_EACH_LOCAL(d, RADIX) {
            const idx_t c = (d + 1 < RADIX ? base[d + 1] : n) - base[d];
            KEY_T key = 0;
            for (uint h = 0; h < FILL_KW; h++) {
                const uint x = atomic_or(&w[FILL_MAX(RADIX, h, d)], 0u);
                const uint y = atomic_or(&w[FILL_MAXC(RADIX, h, d)], 0u);
                if (c && x != ~y)
                    agree_l = 0;
                key |= (KEY_T)((ulong)x << (32 * h));
            }
            if (c) { /* the digit's key, in a list of the keys as the set's */
                const uint i = atomic_inc(&keys_l);
                lut[i] = clsort_order_key(key, 0, KEY_BITS, descending);
                cnt[i] = c;
                seen[i] = d; /* no longer read as flags past the sign-off */
            }
        }
    }
    /* global too: pass 0's row of bases, read above, may be written below */
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
#if FILL_SET_OK
    if (by_set && (idx_t)total_l != n)
        return; /* uniform; every key is counted once, so not taken */
#endif
    if (!agree_l)
        return; /* uniform */
    /* the table: each key's rank in the sort's order, and the keys before it */
    const uint at = ST_PASS(passes);
    global ulong *start = (global ulong *)(state + at);
    global KEY_T *tab = (global KEY_T *)(state + at + FILL_TABLE_KEYS(RADIX));
    const uint nk = keys_l;
    if (by_set) {
#if FILL_SET_OK
        FILL_TABLE_ROWS(nk, skey, scnt, tab, start, descending, FILL_ROW_NONE);
#endif
    } else {
#if HAVE_VALUES
        /* pass 0 by the keys' ranks: each digit's rank (seen: the digit of
         * each key of the list), and where the rank's run starts, in pass
         * 0's row of bases (one portion: the row of its launch) */
        global uchar *remap = (global uchar *)(state + at + FILL_TABLE_REMAP(RADIX));
#define FILL_ROW_REMAP(i, rank, before) \
    (remap[seen[i]] = (uchar)(rank), bases[rank] = (idx_t)(before))
        FILL_TABLE_ROWS(nk, lut, cnt, tab, start, descending, FILL_ROW_REMAP);
#undef FILL_ROW_REMAP
#else
        FILL_TABLE_ROWS(nk, lut, cnt, tab, start, descending, FILL_ROW_NONE);
#endif
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        start[nk] = n;
        state[ST_FILL_KEYS] = nk;
        state[ST_FILL_AT] = at;
#if HAVE_VALUES
        /* A -> U by the ranks (the check copied the keys and values to A,
         * argsort's indices generated) */
        for (uint q = 0; q < passes; q++) {
            global uint *pw = state + ST_PASS(q);
            pw[ST_PASS_ACTIVE] = q == 0 ? PASS_REMAP : PASS_OFF;
            pw[ST_PASS_SRC] = 1;
            pw[ST_PASS_DST] = 0;
            pw[ST_PASS_FIRST] = 0;
        }
#else
        for (uint q = 0; q < passes; q++)
            state[ST_PASS(q) + ST_PASS_ACTIVE] = q == 0 ? PASS_FILL : PASS_OFF;
#endif
        state[ST_ACTIVE_PASSES] = 1;
        state[ST_COPY_BACK] = 0;
        state[ST_IOTA] = 0;
        state[ST_PENDING] = 0; /* TILE_FEW: nothing left to count or plan */
    }
}

/* The portable tile load of both strategies' work-group shapes: keys
 * [t0, t0 + cnt) of src go to lkeys, their digits (remap[digit] where
 * remap is not 0: PASS_REMAP) to ldig (RADIX - 1 past
 * cnt, so that those positions rank last in clsort_rank_local), counted in
 * lh; work-item lid of wg takes positions lid, lid + wg, ... (items of them). */
inline void clsort_load_tile_local(const global KEY_T *src, idx_t t0, uint cnt, uint items,
                                   uint wg, uint lid, uint shift, uint mask, uint flip,
                                   const global uchar *remap, local KEY_T *lkeys,
                                   local uchar *ldig, local uint *lh)
{
    for (uint k = 0; k < items; k++) {
        uint i = k * wg + lid;
        if (i < cnt) {
            KEY_T key = src[t0 + i];
            uint d = DIGIT_OF(key, shift, mask, flip);
            if (remap)
                d = remap[d];
            lkeys[i] = key;
            ldig[i] = (uchar)d;
            atomic_inc(&lh[d]);
        } else {
            ldig[i] = (uchar)(RADIX - 1);
        }
    }
}

/* Stable ranking of a tile in local memory: ceil(r/4) rounds of a counting
 * sort on 4-bit sub-digits of (digit, tile index). Each work-item counts its
 * `items` consecutive positions in its own column of cnt[16][WG], the
 * counters are scanned in (sub-digit, work-item) order, and every position
 * moves to its new place. ldig holds each tile index's digit (RADIX-1 past
 * the end of a partial tile, so those positions stay last). perm holds two
 * orders of `tile` entries each (the rounds alternate between them; one
 * array indexed by offset, because PoCL 3.1 miscompiles a select between
 * two local arrays). Returns the offset (0 or tile) of the final order:
 * perm[offset + i] is the tile index of the i-th key in digit order. The
 * tile holds get_local_size(0) * items positions, at most 65536; cnt holds
 * RANK_CNT_WORDS(get_local_size(0)) words (radix_layout.h). */
inline uint clsort_rank_local(local const uchar *ldig, uint items, local ushort *perm,
                              local ushort *cnt, local uint *scan_s)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint tile = wg * items;
    uint cur = 0;
    for (uint sub = 0; sub < CLSORT_RADIX_BITS; sub += 4) {
        const uint nxt = tile - cur;
        const uint smask = (1u << min(4u, CLSORT_RADIX_BITS - sub)) - 1u;
        for (uint j = 0; j < 16; j++)
            cnt[SCAN_PAD(j * wg + lid)] = 0;
        for (uint k = 0; k < items; k++) {
            uint pos = lid * items + k;
            uint s = sub == 0 ? pos : perm[cur + pos];
            cnt[SCAN_PAD(((ldig[s] >> sub) & smask) * wg + lid)]++;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint sum = 0;
        for (uint j = 0; j < 16; j++)
            sum += cnt[SCAN_PAD(lid * 16 + j)];
        uint total;
        uint run = clsort_group_scan_u32(sum, scan_s, &total);
        for (uint j = 0; j < 16; j++) {
            uint f = SCAN_PAD(lid * 16 + j);
            uint c = cnt[f];
            cnt[f] = (ushort)run;
            run += c;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < items; k++) {
            uint pos = lid * items + k;
            uint s = sub == 0 ? pos : perm[cur + pos];
            uint f = SCAN_PAD(((ldig[s] >> sub) & smask) * wg + lid);
            uint np = cnt[f];
            cnt[f] = (ushort)(np + 1);
            perm[nxt + np] = (ushort)s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        cur = nxt;
    }
    return cur;
}

/* Element i of the end of a sort: the copy of temp A back to the caller's
 * buffer when a single pass ran (copy_back), else argsort's identity
 * permutation (no pass ran). */
inline void clsort_finish_one(global KEY_T *ku, global const KEY_T *ka, global VAL_T *vu,
                              global const VAL_T *va, idx_t i, uint copy_back)
{
    if (copy_back)
        ku[i] = ka[i];
#if HAVE_VALUES
    if (copy_back)
        vu[i] = va[i];
#if CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8
    else
        vu[i] = (VAL_T)i;
#endif
#endif
}

/* Copy temp A back to the caller's buffer when a single pass ran, and write
 * the identity permutation for argsort when none did. */
kernel void clsort_radix_finish(CLSORT_PARAMS(clsort_radix_finish))
{
    const uint copy_back = state[ST_COPY_BACK];
    const uint iota = state[ST_IOTA];
    if (!copy_back && !iota)
        return;
    ku += ku_off;
    vu += vu_off;
    FOR_EACH_CHUNKED(i, n)
        clsort_finish_one(ku, ka, vu, va, i, copy_back);
}

/* Writes indices 0..n-1 (used by argsort when it cannot generate them in a
 * pass, and by the gather of records of other sizes). */
#if CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8
kernel void clsort_iota(CLSORT_PARAMS(clsort_iota))
{
    v += v_off;
    FOR_EACH_CHUNKED(i, n)
        v[i] = (VAL_T)i;
}
#endif

#if CLSORT_VAL_BYTES == 4 || CLSORT_VAL_BYTES == 8
/* Records of rec bytes moved by a permutation (argsort's output):
 * dst[i] = src[perm[i]]. Used for value sizes the passes do not carry. */
kernel void clsort_gather_records(CLSORT_PARAMS(clsort_gather_records))
{
    src += src_off;
    const bool words = (rec % 4 == 0) && (src_off % 4 == 0);
    FOR_EACH_CHUNKED(i, n) {
        const global uchar *s = src + (ulong)perm[i] * rec;
        global uchar *d = dst + (ulong)i * rec;
        if (words) {
            const global uint *sw = (const global uint *)s;
            global uint *dw = (global uint *)d;
            for (uint b = 0; b < rec / 4; b++)
                dw[b] = sw[b];
        } else {
            for (uint b = 0; b < rec; b++)
                d[b] = s[b];
        }
    }
}
#endif

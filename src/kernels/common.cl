/* common.cl - types and helpers shared by every clsort kernel.
 *
 * Computes nothing by itself: it defines the key, value and index types of
 * one program variant and the order-preserving map from a key to its
 * unsigned "radix image", whose bits the radix passes read.
 *
 * Defines it needs (set by the host, src/program.c):
 *   CLSORT_KEY_BYTES   1, 2, 4 or 8
 *   CLSORT_KEY_KIND    0 unsigned, 1 signed two's complement, 2 IEEE float
 *   CLSORT_VAL_BYTES   0 (keys only), 1, 2, 4, 8 or 16
 *   CLSORT_INDEX64     0: element indices fit 32 bits, 1: they need 64
 *   CLSORT_NVIDIA      1 on NVIDIA's OpenCL (inline PTX allowed), else 0
 *
 * Float order (documented in clsort.h): -inf < ... < -0.0 == +0.0 < ... < +inf
 * < every NaN. -0.0 is mapped to +0.0 and every NaN to the all-ones image,
 * so a stable sort keeps equal keys, and NaNs, in input order. Keys are
 * always moved as their original bit patterns; the image is only read.
 */
#ifndef CLSORT_COMMON_CL
#define CLSORT_COMMON_CL

#if !defined(CLSORT_KEY_BYTES) || !defined(CLSORT_KEY_KIND) || \
    !defined(CLSORT_VAL_BYTES) || !defined(CLSORT_INDEX64) || !defined(CLSORT_NVIDIA)
#error "common.cl needs CLSORT_KEY_BYTES, CLSORT_KEY_KIND, CLSORT_VAL_BYTES, CLSORT_INDEX64 and CLSORT_NVIDIA"
#endif

#if CLSORT_KEY_BYTES == 1
typedef uchar key_t_;
#elif CLSORT_KEY_BYTES == 2
typedef ushort key_t_;
#elif CLSORT_KEY_BYTES == 4
typedef uint key_t_;
#elif CLSORT_KEY_BYTES == 8
typedef ulong key_t_;
#else
#error "CLSORT_KEY_BYTES must be 1, 2, 4 or 8"
#endif
#define KEY_T key_t_
#define KEY_BITS (CLSORT_KEY_BYTES * 8)

#if CLSORT_VAL_BYTES == 0
#define HAVE_VALUES 0
typedef uint val_t_; /* unused */
#elif CLSORT_VAL_BYTES == 1
#define HAVE_VALUES 1
typedef uchar val_t_;
#elif CLSORT_VAL_BYTES == 2
#define HAVE_VALUES 1
typedef ushort val_t_;
#elif CLSORT_VAL_BYTES == 4
#define HAVE_VALUES 1
typedef uint val_t_;
#elif CLSORT_VAL_BYTES == 8
#define HAVE_VALUES 1
typedef ulong val_t_;
#elif CLSORT_VAL_BYTES == 16
#define HAVE_VALUES 1
typedef uint4 val_t_;
#else
#error "CLSORT_VAL_BYTES must be 0, 1, 2, 4, 8 or 16"
#endif
#define VAL_T val_t_

#if CLSORT_INDEX64
typedef ulong idx_t;
#else
typedef uint idx_t;
#endif

/* The order-preserving unsigned image of a key. */
#if CLSORT_KEY_KIND == 0
#define RADIX_IMAGE(k) (k)
#elif CLSORT_KEY_KIND == 1
#define KEY_SIGN ((KEY_T)((KEY_T)1 << (KEY_BITS - 1)))
#define RADIX_IMAGE(k) ((KEY_T)((k) ^ KEY_SIGN))
#elif CLSORT_KEY_KIND == 2
#if CLSORT_KEY_BYTES == 4
#define KEY_SIGN 0x80000000u
#define KEY_INF 0x7f800000u
#elif CLSORT_KEY_BYTES == 8
#define KEY_SIGN 0x8000000000000000ul
#define KEY_INF 0x7ff0000000000000ul
#else
#error "float keys must be 4 or 8 bytes"
#endif
inline KEY_T clsort_float_image(KEY_T k)
{
    /* selects, no branches (vectorised loops) */
    const KEY_T mag = k & (KEY_T)~KEY_SIGN;
    /* a negative key complemented, a positive one with its sign bit set
     * (-0.0 as +0.0) */
    const KEY_T img = k != mag && mag != 0 ? (KEY_T)~k : (KEY_T)(mag | KEY_SIGN);
    return mag > KEY_INF ? (KEY_T)~(KEY_T)0 : img; /* any NaN, whatever its sign and payload */
}
#define RADIX_IMAGE(k) clsort_float_image(k)
#else
#error "CLSORT_KEY_KIND must be 0, 1 or 2"
#endif
#if CLSORT_KEY_KIND != 2
/* Integer keys: the key whose order over all its bits is o (its image,
 * complemented for a descending sort), one bit pattern. Not floats, where
 * -0.0 and +0.0, and every NaN, sort alike. */
inline KEY_T clsort_order_key_inverse(KEY_T o, uint descending)
{
    const KEY_T img = descending ? (KEY_T)~o : o;
#if CLSORT_KEY_KIND == 1
    return (KEY_T)(img ^ KEY_SIGN);
#else
    return img;
#endif
}
#endif

/* The digit of one pass: bits [shift, shift + width) of the image, inverted
 * within the digit for descending order (flip == 2^width - 1, else 0). */
#define DIGIT_OF(k, shift, mask, flip) DIGIT_OF_IMAGE(RADIX_IMAGE(k), shift, mask, flip)
#define DIGIT_OF_IMAGE(img, shift, mask, flip) \
    ((uint)(((img) >> (shift)) & (KEY_T)(mask)) ^ (flip))

/* Look-back words: 2 status bits over a 30-bit count. */
#define LB_EMPTY 0u
#define LB_AGGREGATE 0x40000000u
#define LB_PREFIX 0x80000000u
#define LB_FLAGS 0xc0000000u
#define LB_VALUE 0x3fffffffu

/* Work-group exclusive scan of one value per work-item. On NVIDIA a
 * Blelloch tree (seed 004; below); elsewhere with no barrier inside a loop
 * (the tree has a barrier in each of its 2 log2(wg) steps: PoCL 3.1 took
 * about two minutes to build a kernel that runs such loops inside its loop
 * of radix passes, and 3 s with this scan). The values go to s at
 * SCAN_PAD(i) (one word of padding every 16 words against local-memory
 * bank conflicts), and the scan is the seed's blocks and block sums, three
 * levels deep, each step of each level serial over at most 16 words:
 *   1. work-item b scans block b of 16 values in place and stores its sum
 *      in slot b + 1: the word the padding leaves free before value
 *      16 (b + 1) (SCAN_HOLE), the last block's in the total's word;
 *   2. work-item c turns slots 16c + 1 .. 16c + 16 into running sums
 *      within that group of 16;
 *   3. work-item 0 adds each full group's total into the next one's last
 *      slot, which then holds the prefix of every block before it.
 * Block b's prefix is then its slot plus, inside a group after the first,
 * the slot that ends the group before (SCAN_BLOCK_PREFIX). Any work-group
 * size up to 4096; s must hold SCAN_LOCAL_WORDS(get_local_size(0)) words.
 * Returns the item's exclusive prefix and stores the group total in
 * *total. Every work-item must call it (it has barriers). SCAN_PAD and
 * SCAN_LOCAL_WORDS are in layout.h, which the host reads too. */

inline uint clsort_pow2_ceil(uint x) { return x <= 1 ? 1u : 1u << (32 - clz(x - 1)); }

#if CLSORT_NVIDIA
/* NVIDIA: Blelloch's up-sweep and down-sweep (seed 004) over the next power
 * of two of leaves (the extra ones zero), with the same padding. Its
 * barrier loops cost NVIDIA's compiler nothing, and in the upfront plan's
 * group of 1024 it is faster than the blocks below (decision log, scan). */
#define CLSORT_DEFINE_GROUP_SCAN(NAME, T)                                          \
inline T NAME(T x, local T *s, T *total)                                           \
{                                                                                  \
    const uint lid = get_local_id(0);                                              \
    const uint wg = get_local_size(0);                                             \
    const uint leaves = clsort_pow2_ceil(wg);                                      \
    s[SCAN_PAD(lid)] = x;                                                          \
    if (lid < leaves - wg)                                                         \
        s[SCAN_PAD(wg + lid)] = 0;                                                 \
    uint offset = 1;                                                               \
    for (uint d = leaves >> 1; d > 0; d >>= 1) {                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                              \
        if (lid < d)                                                               \
            s[SCAN_PAD(offset * (2 * lid + 2) - 1)] +=                             \
                s[SCAN_PAD(offset * (2 * lid + 1) - 1)];                           \
        offset <<= 1;                                                              \
    }                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    if (lid == 0) {                                                                \
        s[SCAN_PAD(leaves)] = s[SCAN_PAD(leaves - 1)];                             \
        s[SCAN_PAD(leaves - 1)] = 0;                                               \
    }                                                                              \
    for (uint d = 1; d < leaves; d <<= 1) {                                        \
        offset >>= 1;                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                              \
        if (lid < d) {                                                             \
            uint ai = SCAN_PAD(offset * (2 * lid + 1) - 1);                        \
            uint bi = SCAN_PAD(offset * (2 * lid + 2) - 1);                        \
            T t = s[ai];                                                           \
            s[ai] = s[bi];                                                         \
            s[bi] += t;                                                            \
        }                                                                          \
    }                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    T r = s[SCAN_PAD(lid)];                                                        \
    *total = s[SCAN_PAD(leaves)];                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    return r;                                                                      \
}
#else
/* the blocks' words, inside the scan (its s, blocks and last) */
#define SCAN_HOLE(b) (SCAN_PAD(16 * (b)) - 1)
#define SCAN_SLOT(i) ((i) < blocks ? SCAN_HOLE(i) : last)
#define SCAN_BLOCK_PREFIX(b)                                                      \
    ((b) == 0 ? 0 : s[SCAN_SLOT(b)] + ((b) % 16 != 0 && (b) > 16 ? s[SCAN_SLOT((b) & ~15u)] : 0))
#define CLSORT_DEFINE_GROUP_SCAN(NAME, T)                                          \
inline T NAME(T x, local T *s, T *total)                                           \
{                                                                                  \
    const uint lid = get_local_id(0);                                              \
    const uint wg = get_local_size(0);                                             \
    const uint blocks = (wg + 15) / 16;                                            \
    const uint last = SCAN_PAD(clsort_pow2_ceil(wg)); /* slot `blocks` */          \
    s[SCAN_PAD(lid)] = x;                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    T run = 0;                                                                     \
    for (uint k = 0; k < 16; k++) { /* 1 (uniform trip counts here on) */         \
        const uint i = lid * 16 + k;                                               \
        if (lid < blocks && i < wg) {                                              \
            const T v = s[SCAN_PAD(i)];                                            \
            s[SCAN_PAD(i)] = run;                                                  \
            run += v;                                                              \
        }                                                                          \
    }                                                                              \
    if (lid < blocks)                                                              \
        s[SCAN_SLOT(lid + 1)] = run;                                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    run = 0;                                                                       \
    for (uint k = 1; k <= 16; k++) { /* 2 */                                      \
        const uint i = lid * 16 + k;                                               \
        if (i <= blocks) {                                                         \
            run += s[SCAN_SLOT(i)];                                                \
            s[SCAN_SLOT(i)] = run;                                                 \
        }                                                                          \
    }                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    run = 0;                                                                       \
    for (uint c = 1; c <= 16; c++) /* 3 */                                         \
        if (lid == 0 && 16 * c <= blocks) {                                        \
            run += s[SCAN_SLOT(16 * c)];                                           \
            s[SCAN_SLOT(16 * c)] = run;                                            \
        }                                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    const uint b = lid / 16;                                                       \
    const T r = s[SCAN_PAD(lid)] + SCAN_BLOCK_PREFIX(b);                           \
    *total = SCAN_BLOCK_PREFIX(blocks);                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    return r;                                                                      \
}
#endif

CLSORT_DEFINE_GROUP_SCAN(clsort_group_scan_u32, uint)
CLSORT_DEFINE_GROUP_SCAN(clsort_group_scan_idx, idx_t)

/* for (i = get_local_id(0); i < n; i += get_local_size(0)), written so that
 * every work-item runs the outer loop the same number of times: PoCL 3.1
 * miscompiles loops whose trip count differs between the work-items of a
 * group (stores are lost, or spin loops never end) when n < the group size. */
/* i over [0, n) for element-wise kernels: work-group g takes the g-th
 * contiguous chunk, its work-items stride through it by the group size, so
 * accesses are coalesced on GPUs and consecutive in PoCL's work-item loops
 * (a grid-wide stride measured 20x slower for a copy on PoCL). 64-bit
 * arithmetic, so that chunk ends near 2^32 do not wrap. */
#define FOR_EACH_CHUNKED(i, n)                                                   \
    for (ulong i##_c = ((ulong)(n) + get_num_groups(0) - 1) / get_num_groups(0),  \
               i##_e = min((ulong)(get_group_id(0) + 1) * i##_c, (ulong)(n)),     \
               i = (ulong)get_group_id(0) * i##_c + get_local_id(0);             \
         i < i##_e; i += get_local_size(0))

#define FOR_EACH_LOCAL(i, n)                                                     \
    for (uint i##_b = 0; i##_b < (n); i##_b += get_local_size(0))               \
        if (i##_b + get_local_id(0) < (n))                                       \
            for (uint i = i##_b + get_local_id(0), i##_once = 1; i##_once; i##_once = 0)

/* Where segment seg of a batch starts and how long it is, at most cap:
 * offsets (count + 1 entries, element positions; the caller has added its
 * offset) or fixed-length segments starting at first. Offsets the host did
 * not check are clamped to the array and to cap: bad offsets give a wrong
 * order, never a stray write. */
inline void clsort_segment_extent(global const ulong *offsets, uint use_offsets, ulong first,
                                  ulong seg_len, ulong n, ulong seg, ulong cap, ulong *start,
                                  ulong *len)
{
    if (use_offsets) {
        *start = min(offsets[seg], n);
        *len = min(min(max(offsets[seg + 1], *start), n) - *start, cap);
    } else {
        *start = first + seg * seg_len;
        *len = seg_len;
    }
}

/* Orders this work-item's global writes and atomics before its later ones
 * for every other work-group (clsort_last_to_sign_off):
 * NVIDIA's membar.gl, else OpenCL's global fence. */
inline void clsort_global_fence(void)
{
#if CLSORT_NVIDIA
    asm volatile("membar.gl;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

/* The sign-off of a launch's work-groups on the word *done (zero before
 * the launch): true in the last group to sign off, which then sees every
 * other group's global writes and atomics. The barrier orders the group's
 * own before work-item 0's fence (one fence a group, as a grid barrier's).
 * No group waits for another. last: a local word; the result is uniform
 * across the work-group. */
inline bool clsort_last_to_sign_off(global uint *done, local uint *last)
{
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        clsort_global_fence();
        *last = atomic_inc(done) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!*last)
        return false;
    clsort_global_fence();
    return true;
}

/* In-place exclusive scan of a[0..m) in local memory by the whole
 * work-group: each work-item sums a contiguous run, the runs' sums are
 * scanned with clsort_group_scan_u32 (scratch s), and the runs are
 * rewritten. Returns the total to every work-item. */
inline uint clsort_local_exclusive_scan(local uint *a, uint m, local uint *s)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint per = (m + wg - 1) / wg;
    const uint lo = lid * per;
    uint sum = 0;
    for (uint k = 0; k < per; k++)
        if (lo + k < m)
            sum += a[lo + k];
    uint total;
    uint run = clsort_group_scan_u32(sum, s, &total);
    for (uint k = 0; k < per; k++)
        if (lo + k < m) {
            uint c = a[lo + k];
            a[lo + k] = run;
            run += c;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

#if CLSORT_NVIDIA
/* Warp primitives through inline PTX (NVIDIA's OpenCL has no subgroups).
 * Work-groups are 1-D, so a warp is 32 consecutive local ids. */
inline uint clsort_lanemask_le(void)
{
    uint m;
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(m));
    return m;
}
/* Lanes whose v equals this lane's, from one vote.ballot per bit of a
 * `bits`-bit label (what CUB does for 8-bit digits). */
inline uint clsort_match_ballot(uint v, uint bits)
{
    uint m = 0xffffffffu;
    for (uint b = 0; b < bits; b++) {
        uint bal;
        asm volatile("{ .reg .pred p; and.b32 %0, %1, %2; setp.ne.u32 p, %0, 0;"
                     " vote.ballot.sync.b32 %0, p, 0xffffffff; @!p not.b32 %0, %0; }"
                     : "=r"(bal) : "r"(v), "r"(1u << b));
        m &= bal;
    }
    return m;
}
/* Lanes whose v equals this lane's (sm_70's match.any). */
inline uint clsort_match_any(uint v)
{
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(v));
    return m;
}
/* The warp's lanes meet here, and their local memory accesses before it
 * are seen by all of them after it (__syncwarp). */
inline void clsort_warp_sync(void)
{
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}
inline uint clsort_shfl(uint v, uint lane)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
    return r;
}
inline uint clsort_shfl_xor(uint v, uint mask)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(mask));
    return r;
}
/* The lanes whose p is true (vote.ballot). */
inline uint clsort_ballot(uint p)
{
    uint m;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.ballot.sync.b32 %0, q, 0xffffffff; }"
                 : "=r"(m) : "r"(p));
    return m;
}
inline uint clsort_shfl_up(uint v, uint delta)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
    return r;
}
/* Inclusive scan across the 32 lanes of a warp (all lanes must call it). */
inline uint clsort_warp_inclusive_scan(uint v, uint lane)
{
    for (uint d = 1; d < 32; d <<= 1) {
        uint t = clsort_shfl_up(v, d);
        if (lane >= d)
            v += t;
    }
    return v;
}
#endif

#endif /* CLSORT_COMMON_CL */

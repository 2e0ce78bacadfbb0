/* radix_onesweep.cl - one kernel per radix pass (Onesweep, Adinets and
 * Merrill 2022; Polok's fused scan and scatter).
 *
 * Each work-group takes the next tile of the input from an atomic counter
 * (so tiles start in order), counts the tile's digits and publishes them at
 * once, ranks the tile's keys stably, learns where its keys of each digit go
 * by decoupled look-back over the tiles before it, and writes the tile out
 * in digit order so that the writes of each digit are contiguous. The pass's
 * global digit offsets come from clsort_radix_plan (radix.cl), which also
 * says whether this pass runs at all and which buffers it reads and writes.
 *
 * A tile only waits for tiles that took a smaller number from the counter,
 * and those have started: on devices that keep started work-groups running
 * (GPUs, and PoCL, which runs a work-group to its end on one thread) the
 * look-back cannot deadlock. The host uses radix_classic.cl where that is
 * not known.
 *
 * Look-back counts are 30 bits, so the host splits inputs into portions of
 * fewer than 2^30 keys, one launch per portion and pass.
 *
 * Defines it needs, besides common.cl's and radix.cl's:
 *   CLSORT_OS_WG     work-group size (a multiple of 32 for CLSORT_OS_RANK
 *                    2 to 4, 1 for 0)
 *   CLSORT_OS_ITEMS  keys per work-item (with CLSORT_OS_WG 1: the tile size)
 *   CLSORT_OS_RANK   how a tile is ranked: 0 serial (one work-item per
 *                    work-group, CPUs), 1 local-memory counting sort of 4-bit
 *                    sub-digits (portable), 2 warp match.any, 3 one warp
 *                    ballot per digit bit, 4 one local atomic_or per key
 *                    into the warp's digit masks, all three through inline
 *                    PTX (NVIDIA)
 */
#if !defined(CLSORT_OS_WG) || !defined(CLSORT_OS_ITEMS) || !defined(CLSORT_OS_RANK)
#error "radix_onesweep.cl needs CLSORT_OS_WG, CLSORT_OS_ITEMS and CLSORT_OS_RANK"
#endif
#if CLSORT_OS_RANK == 0 && CLSORT_OS_WG != 1
#error "serial ranking (CLSORT_OS_RANK 0) needs CLSORT_OS_WG 1"
#endif
#if CLSORT_OS_RANK >= 2 && (!CLSORT_NVIDIA || CLSORT_OS_WG % 32 != 0)
#error "warp ranking (CLSORT_OS_RANK 2 to 4) needs NVIDIA and a work-group size that is a multiple of 32"
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
 * volatile means there, without volatile's system scope: 1% faster for the
 * u32 pass on the H100, bench/trace.c). Older NVIDIA GPUs: volatile. */
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
#elif CLSORT_NVIDIA || CLSORT_OS_RANK == 0
/* NVIDIA before sm_70 (CUB relies on its volatile accesses staying in spin
 * loops), and one work-item per group (no work-item loops for PoCL to get
 * wrong; an atomic read would also take the cache line from its writer) */
#define LB_LOAD(p) (*(volatile global uint *)(p))
#define LB_STORE(p, v) (*(volatile global uint *)(p) = (v))
#else
#define LB_LOAD(p) atomic_or((volatile global uint *)(p), 0u)
#define LB_STORE(p, v) atomic_xchg((volatile global uint *)(p), (v))
#endif

/* Diagnostics (bench/trace.c, never built by the library): with
 * CLSORT_OS_TRACE the NVIDIA tile notes the SM's cycle counter at the end of
 * each phase in local memory (work-item 0: no registers held across the
 * tile), and the onesweep kernel writes them, with the SM and the global
 * timer at the tile's start and end, to os_trace[tile * OS_TRACE_WORDS]. */
#ifdef CLSORT_OS_TRACE
#define OS_TRACE_WORDS 12
#define OS_MARK(m, i)                                                            \
    do {                                                                         \
        if (get_local_id(0) == 0) {                                              \
            ulong c_;                                                            \
            asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_));                   \
            (m)->tmark[(i)] = c_;                                                \
        }                                                                        \
    } while (0)
#else
#define OS_MARK(m, i)
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

#if CLSORT_OS_RANK >= 2
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
#endif

/* The local memory of a tile, by ranking variant: one struct, so that the
 * onesweep pass and the single work-group sort declare it alike (members in
 * order of alignment; clsort_onesweep_local_bytes in radix.c counts it). */
typedef struct os_mem {
#if CLSORT_OS_RANK == 0
    KEY_T stage_k[OS_TILE]; /* the tile in digit order */
#if HAVE_VALUES
    VAL_T stage_v[OS_TILE];
#endif
#elif CLSORT_OS_RANK == 1
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
#endif
    uint tile; /* the tile's number, set by work-item 0 before clsort_os_tile */
    uint next; /* a persistent work-group's next tile (next_counter) */
#ifdef CLSORT_OS_TRACE
    ulong tmark[OS_TRACE_WORDS];
#endif
} os_mem;

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

/* Non-temporal stores (the CPU shape on x86-64 through clang, as PoCL's
 * kernels are built; the host's choice, tuning nt_min): sorts of at least
 * CLSORT_NT_MIN keys write each whole 64-byte line of a run by one
 * streaming store, which goes to memory without first reading the line
 * (a store that misses reads the line before it writes it: a third of
 * the memory traffic of a pass that reads one array and writes another).
 * Only where the output is read next from memory, not from the cache: the
 * host's bound is a size far above the caches. The lines at a run's ends,
 * shared with other runs, take ordinary stores. */
#if CLSORT_OS_RANK == 0 && defined(CLSORT_NT_MIN) && defined(__x86_64__) && defined(__clang__)
#define HAVE_NT (CLSORT_NT_MIN > 0)
#else
#define HAVE_NT 0
#endif
#if HAVE_NT
/* n elements of T (4, 8 or 16 bytes; else ordinary stores) from local src
 * to global dst; then, once for all of a work-item's copies, clsort_nt_fence.
 * A destination that no element boundary puts on a line boundary (a
 * caller's host pointer off T's alignment, as CL_MEM_USE_HOST_PTR allows)
 * takes ordinary stores only: its address is tested as it is, hidden from
 * the compiler, which would take T's alignment as given (it did, and the
 * aligned streaming store faulted). */
/* 64 bytes read at a 4-byte boundary by a plain load: vload16 would return
 * them by value from a call, which clang warns about (-Wpsabi) on x86-64
 * without AVX-512 */
typedef uint16 clsort_uint16_a4 __attribute__((aligned(4)));
#define NT_COPY(T, DST, SRC, N)                                                                  \
    do {                                                                                         \
        global T *d_ = (DST);                                                                    \
        const local T *s_ = (SRC);                                                               \
        const uint n_ = (N);                                                                     \
        ulong a_ = (ulong)d_;                                                                    \
        __asm__("" : "+r"(a_)); /* the address as it is: the compiler takes T's alignment */    \
        uint j_ = ((64u - ((uint)a_ & 63u)) & 63u) / (uint)sizeof(T);                            \
        if (sizeof(T) % 4 != 0 || j_ > n_ || (((uint)a_ + j_ * (uint)sizeof(T)) & 63u))          \
            j_ = n_; /* also a caller's buffer not aligned to T: no whole lines */               \
        for (uint i_ = 0; i_ < j_; i_++)                                                         \
            d_[i_] = s_[i_];                                                                     \
        for (; j_ + 64 / sizeof(T) <= n_; j_ += 64 / sizeof(T))                                  \
            __builtin_nontemporal_store(*(const local clsort_uint16_a4 *)(s_ + j_),              \
                                        (global uint16 *)(d_ + j_));                             \
        for (; j_ < n_; j_++)                                                                    \
            d_[j_] = s_[j_];                                                                     \
    } while (0)
/* streaming stores are weakly ordered: this orders them before anything
 * the work-item does after (the kernel's end, the runtime's locks) */
#define clsort_nt_fence() __builtin_ia32_sfence()
#endif

#if CLSORT_OS_RANK == 0
/* The CPU shape's scattered stores: reading one byte of every 64-byte line
 * of a destination first brings its lines into the cache (in order, by the
 * prefetcher, or with their misses overlapped), where the stores would
 * otherwise take a miss each, one at a time. Returns the bytes xored: the
 * caller keeps the reads by a store under a condition that never holds. */
inline uchar clsort_touch(const global void *p, ulong bytes)
{
    const global uchar *b = (const global uchar *)p;
    uchar x = 0;
    for (ulong i = 0; i < bytes; i += 64)
        x ^= b[i];
    return x;
}

/* The CPU shape's look-back, every digit of the tile in one walk back over
 * the tiles before it: ex[d] adds each tile's published count of digit d
 * until a tile that published its inclusive prefix for d; then this tile's
 * prefixes (ex + h) are published. A tile not yet published is waited for
 * CLSORT_LB_SPIN reads (about as long as counting a tile takes), then
 * counted here from its keys (the idea of Decoupled Fallback, Smith, Levien
 * and Owens 2025): PoCL's threads have no forward-progress guarantee, and a
 * thread that the system holds back after taking a tile would otherwise
 * hold up every tile after it. pend[] (the digits still walking) and c[]
 * (a counted tile's digits) are the caller's scratch. With
 * CLSORT_LB_FALLBACK_ALL (tests) every tile before is counted. */
/* h[d]: how many keys of src[t0, t1) have digit d (one work-item) */
inline void clsort_count_serial(const global KEY_T *src, uint t0, uint t1, uint shift, uint mask,
                                uint flip, uint *h)
{
    for (uint d = 0; d < RADIX; d++)
        h[d] = 0;
    for (uint t = t0; t < t1; t++)
        h[DIGIT_OF(src[t], shift, mask, flip)]++;
}
#ifndef CLSORT_LB_SPIN
#define CLSORT_LB_SPIN (OS_TILE / 16 + 1)
#endif
inline void clsort_lookback_serial(global uint *lb, uint tile, const global KEY_T *src,
                                   uint len, uint shift, uint mask, uint flip, const uint *h,
                                   idx_t *ex, ushort *pend, uint *c)
{
    for (uint d = 0; d < RADIX; d++) {
        ex[d] = 0;
        pend[d] = (ushort)d;
    }
    uint np = tile > 0 ? RADIX : 0;
    for (uint j = tile - 1; np > 0; j--) {
        global uint *row = lb + (ulong)j * RADIX;
        bool counted = false;
        uint k = 0;
        for (uint i = 0; i < np; i++) {
            const uint d = pend[i];
#ifdef CLSORT_LB_FALLBACK_ALL
            uint w = LB_EMPTY;
#else
            uint w = LB_LOAD(&row[d]);
            for (uint spin = 0; (w & LB_FLAGS) == LB_EMPTY && !counted && spin < CLSORT_LB_SPIN;
                 spin++)
                w = LB_LOAD(&row[d]);
#endif
            if ((w & LB_FLAGS) == LB_EMPTY) {
                if (!counted) { /* tile j, counted here */
                    clsort_count_serial(src, j * (uint)OS_TILE,
                                        min(j * (uint)OS_TILE + (uint)OS_TILE, len), shift, mask,
                                        flip, c);
                    counted = true;
                }
                ex[d] += c[d];
            } else {
                ex[d] += w & LB_VALUE;
            }
            if ((w & LB_FLAGS) != LB_PREFIX && j > 0) /* tile 0 has none before */
                pend[k++] = (ushort)d;
        }
        np = k;
    }
    if (tile > 0) /* tile 0 published its counts as prefixes */
        for (uint d = 0; d < RADIX; d++)
            LB_STORE(&lb[tile * RADIX + d], (uint)(ex[d] + h[d]) | LB_PREFIX);
}
#endif

/* One tile of a pass: tile m->tile of the portion src[0, len), ranked
 * stably by the digit (shift, mask, flip) and written to dst in digit order
 * (clsort_tile_dest says where; a onesweep pass, lb not 0, first publishes
 * the tile's counts; bases 0: the tile is the whole output). Values go along; with gen they are generated: portion
 * index + gen_base. The caller has set m->tile (work-item 0) before. */
inline void clsort_os_tile(local os_mem *m, const global KEY_T *src, global KEY_T *dst,
                           const global VAL_T *vsrc, global VAL_T *vdst, uint gen,
                           idx_t gen_base, uint len, uint shift, uint mask, uint flip,
                           global uint *lb, global const idx_t *bases,
                           global uint *next_counter)
{
#if CLSORT_OS_RANK == 0
    /* ---- one work-item: count, publish, sort the tile into local memory
     * by digit, look back, and copy each digit's run out. Local memory is
     * a buffer of the worker thread that stays in cache; copying whole runs
     * out writes each destination sequentially, where a scatter straight
     * from the input touches RADIX places in memory for every few keys
     * (measured 1.7-2x faster for the pass on EPYC-2). */
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    uint h[RADIX];
    idx_t at[RADIX]; /* digit starts in the stage, then the runs' destinations */
    clsort_count_serial(src, t0, t0 + cnt, shift, mask, flip, h);
    if (lb)
        for (uint d = 0; d < RADIX; d++)
            clsort_publish_aggregate(lb, tile, d, h[d]);
    uint acc = 0;
    for (uint d = 0; d < RADIX; d++) {
        at[d] = acc;
        acc += h[d];
    }
    for (uint i = 0; i < cnt; i++) {
        KEY_T k = src[t0 + i];
        const uint s = (uint)at[DIGIT_OF(k, shift, mask, flip)]++;
        m->stage_k[s] = k;
#if HAVE_VALUES
        m->stage_v[s] = GEN_VALUE(gen, gen_base + t0 + i, vsrc[t0 + i]);
#endif
    }
    /* every run's destination first (at[] is free again), then its lines
     * read once, so that the misses overlap before the copies store */
    uint s = 0;
    if (lb && bases) {
        ushort pend[RADIX];
        uint c[RADIX];
        clsort_lookback_serial(lb, tile, src, len, shift, mask, flip, h, at, pend, c);
        for (uint d = 0; d < RADIX; d++)
            at[d] += bases[d];
    } else {
        for (uint d = 0; d < RADIX; d++) {
            at[d] = clsort_tile_dest(lb, bases, tile, d, h[d], s);
            s += h[d];
        }
    }
#if HAVE_NT
    if (len >= CLSORT_NT_MIN) { /* whole lines by streaming stores: only
                                 * each run's first and last line read */
        uchar sink = 0;
        for (uint d = 0; d < RADIX; d++)
            if (h[d]) {
                sink ^= clsort_touch(dst + at[d], 1);
                sink ^= clsort_touch(dst + at[d] + h[d] - 1, 1);
            }
        if (sink == 0x5au && flip > mask) /* never: keeps the reads */
            dst[0] = sink;
        s = 0;
        for (uint d = 0; d < RADIX; d++) {
            NT_COPY(KEY_T, dst + at[d], m->stage_k + s, h[d]);
#if HAVE_VALUES
            NT_COPY(VAL_T, vdst + at[d], m->stage_v + s, h[d]);
#endif
            s += h[d];
        }
        clsort_nt_fence();
        return;
    }
#endif
    uchar sink = 0;
    for (uint d = 0; d < RADIX; d++)
        sink ^= clsort_touch(dst + at[d], (ulong)h[d] * sizeof(KEY_T));
    if (sink == 0x5au && flip > mask) /* never: keeps the reads */
        dst[0] = sink;
    s = 0;
    for (uint d = 0; d < RADIX; d++) {
        const uint c = h[d];
        const idx_t p = at[d];
        global KEY_T *ok = dst + p;
        for (uint j = 0; j < c; j++)
            ok[j] = m->stage_k[s + j];
#if HAVE_VALUES
        global VAL_T *ov = vdst + p;
        for (uint j = 0; j < c; j++)
            ov[j] = m->stage_v[s + j];
#endif
        s += c;
    }

#elif CLSORT_OS_RANK == 1
    /* ---- portable: tile in local memory, counting-sort ranking */
    const uint lid = get_local_id(0);
    FOR_EACH_LOCAL(d, RADIX)
        m->lh[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    clsort_load_tile_local(src, t0, cnt, CLSORT_OS_ITEMS, CLSORT_OS_WG, lid, shift, mask, flip,
                           m->lkeys, m->ldig, m->lh);
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

#else
    /* ---- NVIDIA: warp-striped tile, per-warp counts, warp ranking */
    local uint *lwh = (local uint *)m->stage;
    const uint lid = get_local_id(0);
    const uint lane = lid & 31u, warp = lid >> 5;
    local uint *wh = lwh + warp * RADIX;
    OS_MARK(m, 2);
    FOR_EACH_LOCAL(e, WH_WORDS)
        lwh[e] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    OS_MARK(m, 3);
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    const uint wbase = warp * (32 * CLSORT_OS_ITEMS) + lane;

    /* Registers are what limits occupancy here: keep the keys, recompute
     * digits when needed, and pack two 16-bit ranks into each word. The
     * keys load from one pointer with constant offsets (an index per key
     * made 24 address computations; the u32 pass 2% faster on the H100).
     * Which keys exist: with values, a count of the work-item's keys
     * (j < own; 64 registers); keys alone compare each key's index (80
     * registers, where the count measured 94: bench/trace.c). */
    const bool full = cnt == OS_TILE;
#if HAVE_VALUES
    const uint own = full ? CLSORT_OS_ITEMS : cnt > wbase ? (cnt - wbase + 31) / 32 : 0;
#define ITEM_OK(j) ((j) < own)
#else
#define ITEM_OK(j) (full || wbase + (j) * 32 < cnt)
#endif
#define DIG(k) DIGIT_OF(k, shift, mask, flip)
    const global KEY_T *ksrc = src + (t0 + wbase);
    KEY_T keys[CLSORT_OS_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        keys[j] = ITEM_OK(j) ? ksrc[j * 32] : (KEY_T)0;
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        if (ITEM_OK(j))
            atomic_inc(&wh[DIG(keys[j])]);
    barrier(CLK_LOCAL_MEM_FENCE);
    OS_MARK(m, 4);
#if WARP_DIGIT_SCAN
    /* One work-item per digit: its count per warp becomes an exclusive
     * prefix over the warps (up-sweep), the tile's count is published, and
     * the digits' exclusive prefix comes from warp shuffles and one word per
     * warp (2 barriers instead of a tree over the work-group). */
    uint tot = 0, incl = 0;
    if (lid < RADIX) {
        for (uint w = 0; w < WARPS; w++) {
            uint c = lwh[w * RADIX + lid];
            lwh[w * RADIX + lid] = tot;
            tot += c;
        }
        m->lcount[lid] = tot;
        if (lb)
            clsort_publish_aggregate(lb, tile, lid, tot);
        incl = clsort_warp_inclusive_scan(tot, lane);
        if (lane == 31)
            m->wsum[warp] = incl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX) {
        uint excl = incl - tot;
        for (uint w = 0; w < warp; w++)
            excl += m->wsum[w];
        m->lstart[lid] = excl;
        for (uint w = 0; w < WARPS; w++)
            lwh[w * RADIX + lid] += excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    FOR_EACH_LOCAL(d, RADIX) {
        uint tot = 0;
        for (uint w = 0; w < WARPS; w++) {
            uint c = lwh[w * RADIX + d];
            lwh[w * RADIX + d] = tot;
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
            lwh[w * RADIX + d] += m->lstart[d];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    OS_MARK(m, 5);

    /* Rank: the peers of a key (same digit, same warp) get consecutive
     * places after what the warp's earlier keys of that digit took; the
     * highest peer bumps the warp's counter and broadcasts the old value.
     * Keys past the end of a partial tile rank last (digit RADIX-1) and are
     * never written. */
    uint rk[(CLSORT_OS_ITEMS + 1) / 2];
    const uint le_mask = clsort_lanemask_le();
#if CLSORT_OS_RANK == 4
    /* the warp's digit masks (zero between keys): each lane sets its bit in
     * its digit's mask, and after the warp meets, the mask is its peers */
    volatile local uint *wm = lwh + WARPS * RADIX + warp * RADIX;
#endif
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++) {
        const uint d = ITEM_OK(j) ? DIG(keys[j]) : RADIX - 1;
#if CLSORT_OS_RANK == 2
        uint peers = clsort_match_any(d);
#elif CLSORT_OS_RANK == 3
        uint peers = clsort_match_ballot(d, CLSORT_RADIX_BITS);
#else
        atomic_or(&wm[d], 1u << lane);
        clsort_warp_sync();
        uint peers = wm[d];
#endif
        uint leader = 31 - clz(peers);
        uint below = popcount(peers & le_mask);
        uint off = 0;
        if (lane == leader)
            off = atomic_add(&wh[d], below);
        uint r = clsort_shfl(off, leader) + below - 1;
#if CLSORT_OS_RANK == 4
        /* every lane has read its mask (the shuffle waited for them all;
         * the empty asm keeps the compiler from moving the store above it,
         * as CUB's WARP_MATCH_ATOMIC_OR relies on): the leader clears it
         * for the next key */
        asm volatile("" ::: "memory");
        if (lane == leader)
            wm[d] = 0;
        clsort_warp_sync();
#endif
        if (j & 1)
            rk[j / 2] |= r << 16;
        else
            rk[j / 2] = r;
    }
#define RANK_OF(j) ((rk[(j) / 2] >> (((j) & 1) * 16)) & 0xffffu)
    /* Stage the tile in digit order, then look back (its latency overlaps
     * the other work-groups' progress), then write it out. */
    barrier(CLK_LOCAL_MEM_FENCE); /* every warp is done with its counters */
    OS_MARK(m, 6);
    local KEY_T *skeys = (local KEY_T *)m->stage;
#pragma unroll
    for (uint j = 0; j < CLSORT_OS_ITEMS; j++)
        if (ITEM_OK(j))
            skeys[RANK_OF(j)] = keys[j];
    FOR_EACH_LOCAL(d, RADIX)
        m->ltg[d] =
            clsort_tile_dest(lb, bases, tile, d, m->lcount[d], m->lstart[d]) - m->lstart[d];
    barrier(CLK_LOCAL_MEM_FENCE);
    OS_MARK(m, 7);
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
    OS_MARK(m, 8);
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
    OS_MARK(m, 9);
#endif
    if (next_counter && lid == 0)
        m->next = next;
#undef ITEM_OK
#undef DIG
#undef RANK_OF
#endif
}

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
 * one pass ran, or argsort's identity when none did. ku and vu: the
 * caller's buffers at their offsets. */
/* The plan's PASS_REVERSE over keys [lo, lo + cnt): key i trades places
 * with key n - 1 - i (the one with the lower index moves both; n from the
 * state); argsort's index of place i is n - 1 - i (first: generate).
 * One pair at a time: loads of several pairs first (more loads in flight)
 * raised the onesweep kernel's registers, whose idle path this is, and
 * slowed every pass by a quarter on the H200. */
inline void clsort_os_reverse(global KEY_T *ku, global VAL_T *vu, ulong lo, uint cnt, uint first,
                              global const uint *state)
{
    const ulong n = (ulong)state[ST_REV_N] | (ulong)state[ST_REV_N + 1] << 32;
    for (uint j = get_local_id(0); j < cnt; j += CLSORT_OS_WG) {
        const ulong i = lo + j, m = n - 1 - i;
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
void clsort_radix_onesweep(global KEY_T *ku, ulong ku_off, global KEY_T *ka, global KEY_T *kb,
                           global VAL_T *vu, ulong vu_off, global VAL_T *va, global VAL_T *vb,
                           idx_t portion_start, uint portion_len,
                           uint pass_arg, uint begin_bit, uint end_bit, uint descending,
                           global const uint *state, global const idx_t *bases, ulong bases_off,
                           global uint *lookback, ulong lb_off, global uint *tile_counter,
                           uint counter_idx, uint finish
#ifdef CLSORT_OS_TRACE
                           , global ulong *os_trace
#endif
                           )
{
    local os_mem m;
#if CLSORT_OS_RANK == 0
    uint pass;
    if (!clsort_launch_pass(state, pass_arg, &pass)) {
        if (pass_arg != MSD_LAUNCH) {
            const global uint *sc = state + ST_PASS(pass_arg);
            clsort_os_idle(sc[ST_PASS_ACTIVE], sc[ST_PASS_SRC], sc[ST_PASS_DST],
                           HAVE_VALUES ? sc[ST_PASS_FIRST] : 0u, finish, ku + ku_off, ka, kb,
                           vu + vu_off, va, vb, portion_start, portion_len, state);
        }
        return;
    }
    bases += bases_off == BASES_OF_PASS ? (ulong)pass * RADIX : bases_off;
    m.tile = atomic_inc(&tile_counter[counter_idx]);
    const global uint *st = state + ST_PASS(pass);
#else
    /* MSD order is the serial shape's alone (radix.c): the pass is the
     * argument, which keeps shift and mask in kernel parameters (deriving
     * it from state measured 7% slower per pass on the H100). The tile's
     * number and the pass's plan are fetched at once: the atomic and the
     * loads are in flight together (an inactive pass takes a number of its
     * own counter, which nothing reads). */
    const uint pass = pass_arg;
#if defined(CLSORT_OS_TRACE)
    if (get_local_id(0) == 0) { /* kept in local memory, as the marks */
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(m.tmark[1]));
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(m.tmark[0]));
    }
#endif
    if (get_local_id(0) == 0)
        m.tile = atomic_inc(&tile_counter[counter_idx]);
    const global uint *st = state + ST_PASS(pass);
    const uint4 w = *(const global uint4 *)st; /* one load: active, src, dst, first */
    if (w.s0 != PASS_LSD) {
        clsort_os_idle(w.s0, w.s1, w.s2, HAVE_VALUES ? w.s3 : 0u, finish, ku + ku_off, ka, kb,
                       vu + vu_off, va, vb, portion_start, portion_len, state);
        return;
    }
    bases += bases_off;
#endif
    ku += ku_off;
    vu += vu_off;
#if CLSORT_OS_RANK == 0
    const uint4 w = (uint4)(PASS_LSD, st[ST_PASS_SRC], st[ST_PASS_DST], st[ST_PASS_FIRST]);
#endif
    const uint si = w.s1, di = w.s2;
    const uint shift = clsort_pass_shift(begin_bit, pass);
    const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
#define OS_PASS_TILE(next_counter)                                                           \
    clsort_os_tile(&m, SELECT_BUF(si, ku, ka, kb) + portion_start, SELECT_BUF(di, ku, ka, kb), \
                   SELECT_BUF(si, vu, va, vb) + portion_start, SELECT_BUF(di, vu, va, vb),   \
                   HAVE_VALUES ? w.s3 : 0u, portion_start, portion_len, shift, mask,         \
                   descending ? mask : 0u, lookback + lb_off, bases, next_counter)
#if CLSORT_OS_PERSIST && CLSORT_OS_RANK != 0
    /* Persistent work-groups (fewer than tiles, about as many as run at
     * once): each sorts tile after tile, taking the next tile's number from
     * the counter during the current tile's writes, so that neither that
     * atomic's latency nor a work-group's start comes between its tiles.
     * Tiles are still numbered in the order they are taken, and a tile
     * waits only on tiles taken before it, by work-groups that are running. */
    const uint tiles = (uint)(((ulong)portion_len + OS_TILE - 1) / OS_TILE);
    barrier(CLK_LOCAL_MEM_FENCE); /* m.tile */
    while (m.tile < tiles) { /* uniform: read after a barrier */
        OS_PASS_TILE(&tile_counter[counter_idx]);
        barrier(CLK_LOCAL_MEM_FENCE); /* the tile's local memory is free, m.next set */
        if (get_local_id(0) == 0)
            m.tile = m.next;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    OS_PASS_TILE(0);
#endif
#undef OS_PASS_TILE
#if defined(CLSORT_OS_TRACE) && CLSORT_OS_RANK >= 2 && !CLSORT_OS_PERSIST
    if (get_local_id(0) == 0) { /* 0: SM, 1: global timer at the start, 10: at the end */
        global ulong *t = os_trace + (ulong)m.tile * OS_TRACE_WORDS;
        uint sm;
        ulong g1;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
        t[0] = sm;
        for (uint i = 1; i < 10; i++)
            t[i] = m.tmark[i];
        t[10] = g1;
        t[11] = m.tmark[0];
    }
#endif
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
void clsort_radix_chain(global KEY_T *ku, ulong ku_off, global KEY_T *ka, global KEY_T *kb,
                        global VAL_T *vu, ulong vu_off, global VAL_T *va, global VAL_T *vb,
                        uint n, uint tiles, uint begin_bit, uint end_bit, uint descending,
                        global const uint *state, global const idx_t *bases,
                        global uint *scratch, ulong lb_off, ulong chain_off)
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
                       HAVE_VALUES ? w.s3 : 0u, 0, n, shift, mask, descending ? mask : 0u,
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
    uint constant_digit[MAX_PASSES];
} single_plan_mem;

kernel __attribute__((reqd_work_group_size(CLSORT_OS_WG, 1, 1)))
void clsort_radix_single(global KEY_T *ku, ulong ku_off, global KEY_T *ka, global KEY_T *kb,
                         global VAL_T *vu, ulong vu_off, global VAL_T *va, global VAL_T *vb,
                         uint n, uint passes, uint begin_bit, uint end_bit, uint descending,
                         uint gen_index, global uint *counts, global uint *state,
                         global idx_t *bases)
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
                       mask, descending ? mask : 0u, 0, bases + p * RADIX, 0);
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
void clsort_radix_segments(global KEY_T *ku, ulong ku_off, global KEY_T *ka, global VAL_T *vu,
                           ulong vu_off, global VAL_T *va, global const ulong *offsets,
                           ulong offsets_off, uint use_offsets, ulong first, ulong seg_len,
                           ulong n, uint passes, uint begin_bit, uint end_bit, uint descending,
                           uint gen_index)
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
                       descending ? mask : 0u, 0, 0, 0);
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
kernel void clsort_radix_carry(global const uint *state, uint pass_arg, uint first,
                               global const uint *lookback, ulong lb_off, uint last_tile,
                               global idx_t *bases, ulong carry_off)
{
    uint pass;
    const uint d = get_global_id(0);
    if (d >= RADIX || !clsort_launch_pass(state, pass_arg, &pass))
        return;
    const idx_t from = first ? bases[(ulong)pass * RADIX + d] : bases[carry_off + d];
    bases[carry_off + d] = from + (lookback[lb_off + (ulong)last_tile * RADIX + d] & LB_VALUE);
}

#if CLSORT_OS_RANK == 0
/* The in-bucket digits: CLSORT_RADIX_BITS, or 8 bits for buckets too small
 * to pay for RADIX counters per pass. */
#define IN_MIN_BITS (CLSORT_RADIX_BITS > 8 ? 8 : CLSORT_RADIX_BITS)
#define IN_MAX_PASSES ((KEY_BITS + IN_MIN_BITS - 1) / IN_MIN_BITS)
/* buckets of three passes and at least this many keys split first (the
 * host's, from tuning bucket_split bytes; 0: never; see
 * clsort_radix_buckets) */
#ifndef CLSORT_IN_SPLIT
#define CLSORT_IN_SPLIT 0
#endif
/* built where keys have three in-bucket digits or more */
#define IN_CAN_SPLIT (CLSORT_IN_SPLIT > 0 && IN_MAX_PASSES >= 3)

/* MSD order from tiles (the CPU shape on x86-64 through clang, tuning
 * tile_min): the top pass without the upfront count. Each tile sorts its
 * keys by the top digit in local memory and streams them back to A in its
 * own place, whole lines in order; it adds its counts to the top pass's row
 * of counts, notes the bits that vary, and keeps where each digit starts in
 * the tile (a row of RADIX words of the table). The plan (phase 3) makes
 * the buckets' bases from the counts; bucket d's keys then lie in A as one
 * run per tile, which clsort_radix_buckets reads tile by tile. Sorting by
 * the top digit before the keys are counted pays only where that digit
 * spreads them into buckets the plan accepts: clsort_radix_sample first
 * counts 4096 keys spread over the input, and lets the tile pass run only
 * where their digits promise that; where the plan then refuses all the
 * same, the upfront count and the plans run as without tiles (the tile
 * pass's work is lost, the input untouched). Built where the buckets have
 * the streamed route through local memory (HAVE_NT, CLSORT_IN_LOCAL). */
#if HAVE_NT && CLSORT_IN_LOCAL && defined(CLSORT_TILED) && CLSORT_TILED
#define TILED_OK 1
#else
#define TILED_OK 0
#endif
#define TILE_SAMPLES 4096u

/* The flag (scratch + flag_off) = 1 where the tile pass should run: the
 * samples ku[i n / TILE_SAMPLES] put no more than msd_max * TILE_SAMPLES / n
 * of them in one digit of pass (the top pass; the plan's bound, estimated).
 * One work-item. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_sample(global const KEY_T *ku, ulong ku_off, idx_t n, uint pass,
                         uint begin_bit, uint end_bit, uint descending, idx_t msd_max,
                         global uint *scratch, ulong flag_off, uint order_check)
{
    uint go = 0;
#if TILED_OK
    if (n >= CLSORT_NT_MIN && n >= TILE_SAMPLES && n <= 0xffffffffu && msd_max > 0) {
        const uint shift = clsort_pass_shift(begin_bit, pass);
        const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
        const uint flip = descending ? mask : 0u;
        uint h[RADIX];
        for (uint d = 0; d < RADIX; d++)
            h[d] = 0;
        ku += ku_off;
        KEY_T any = 0, anyc = 0, prev = 0;
        uint fl = 0; /* the samples' order: see the upfront count's check */
        for (uint i = 0; i < TILE_SAMPLES; i++) {
            const KEY_T k = ku[(ulong)i * n / TILE_SAMPLES];
            clsort_note_bits(k, &any, &anyc);
            h[DIGIT_OF(k, shift, mask, flip)]++;
            if (i)
                fl |= clsort_order_pair(prev, k, begin_bit, end_bit, descending);
            prev = k;
        }
        uint most = 0;
        for (uint d = 0; d < RADIX; d++)
            most = max(most, h[d]);
        /* and three passes or more whose digits vary in the sample, as
         * the plan's MSD order needs */
        uint active = 0;
        for (uint p = 0; p <= pass; p++)
            active += ((any & anyc) >> clsort_pass_shift(begin_bit, p) &
                       (KEY_T)clsort_pass_mask(begin_bit, end_bit, p)) != 0;
        go = active >= 3 && (ulong)most * n <= (ulong)msd_max * TILE_SAMPLES;
        /* samples in order or in reverse order: the upfront count instead,
         * whose order check may spare the whole sort */
        if (order_check && (fl & ORDER_BOTH) != ORDER_BOTH)
            go = 0;
    }
#endif
    scratch[flag_off] = go;
}

/* The tile pass (see above) by the digit of pass (the top pass): does
 * nothing unless the flag (scratch + flag_off; the word after it hands out
 * the tiles, zero before). Counts go to counts + counts_off (the top pass's
 * row), the bits to scratch + bits_off, the table's rows to scratch +
 * table_off. One work-item per group, as many groups as tiles; gen:
 * argsort's values are the indices. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_tiles(global const KEY_T *ku, ulong ku_off, global KEY_T *ka,
                        global const VAL_T *vu, ulong vu_off, global VAL_T *va, uint len,
                        uint pass, uint begin_bit, uint end_bit, uint descending, uint gen,
                        global uint *counts, ulong counts_off, global uint *scratch,
                        ulong flag_off, ulong bits_off, ulong table_off)
{
#if TILED_OK
    local os_mem m;
    global uint *flag = scratch + flag_off;
    if (!flag[0])
        return;
    /* tiles taken at run time, as the buckets are (see there) */
    const uint tile = atomic_inc(&flag[1]);
    const uint t0 = tile * (uint)OS_TILE;
    if (t0 >= len)
        return;
    const uint cnt = min((uint)OS_TILE, len - t0);
    const uint shift = clsort_pass_shift(begin_bit, pass);
    const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
    const uint flip = descending ? mask : 0u;
    const global KEY_T *src = ku + ku_off + t0;
    uint h[RADIX];
    for (uint d = 0; d < RADIX; d++)
        h[d] = 0;
    KEY_T any = 0, anyc = 0;
    for (uint i = 0; i < cnt; i++) {
        const KEY_T k = src[i];
        clsort_note_bits(k, &any, &anyc);
        h[DIGIT_OF(k, shift, mask, flip)]++;
    }
    for (uint d = 0; d < RADIX; d++)
        if (h[d])
            atomic_add(&counts[counts_off + d], h[d]);
    clsort_publish_bits(scratch + bits_off, any, anyc);
    global uint *row = scratch + table_off + (ulong)tile * RADIX;
    uint at[RADIX], acc = 0;
    for (uint d = 0; d < RADIX; d++) {
        at[d] = acc;
        row[d] = acc;
        acc += h[d];
    }
#if HAVE_VALUES
    const global VAL_T *vsrc = vu + vu_off + t0;
#endif
    for (uint i = 0; i < cnt; i++) {
        const KEY_T k = src[i];
        const uint s = at[DIGIT_OF(k, shift, mask, flip)]++;
        m.stage_k[s] = k;
#if HAVE_VALUES
        m.stage_v[s] = GEN_VALUE(gen, t0 + i, vsrc[i]);
#endif
    }
    NT_COPY(KEY_T, ka + t0, m.stage_k, cnt);
#if HAVE_VALUES
    NT_COPY(VAL_T, va + t0, m.stage_v, cnt);
#endif
    clsort_nt_fence();
#endif
}

/* MSD order (the plan's ST_MSD; CPU shape): after the top digit's pass has
 * put every key of digit d into one bucket of temp A, work-group d sorts its
 * bucket by the bits below that digit, alone and in LSD order: one read
 * counts all its digits (and which bits vary inside the bucket, so that a
 * digit that is the same for all its keys is skipped), then each pass moves
 * the bucket between U and B (or local memory), never into A, the last
 * into the caller's buffer. A bucket of
 * n / RADIX keys stays in cache through its passes, where an LSD pass over
 * the whole input writes to RADIX places in memory. Launched with RADIX
 * work-groups of one work-item, each taking one bucket; does nothing when
 * the plan chose LSD order. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_buckets(global KEY_T *ku, ulong ku_off, global KEY_T *ka, global KEY_T *kb,
                          global VAL_T *vu, ulong vu_off, global VAL_T *va, global VAL_T *vb,
                          idx_t n, uint begin_bit, uint descending, global const uint *state,
                          global const idx_t *bases, global uint *next, ulong next_off,
                          ulong table_off)
{
    if (!state[ST_MSD])
        return;
    const uint top = state[ST_MSD] - 1;
    /* The bucket: the next not taken (a counter zeroed with the sort's
     * scratch), not the group's number. PoCL hands each thread a run of
     * groups at once (a sixteenth of them on 16 threads): numbered buckets
     * would be shared out before any ran, and a thread that the system
     * holds back would hold up the whole phase with its run. Taken at run
     * time, the buckets go to the threads that are running. */
    const uint d = atomic_inc(&next[next_off]);
    /* bases' first row (portion 0) holds where each digit starts overall */
    const idx_t lo = bases[top * RADIX + d];
    const idx_t hi = d + 1 < RADIX ? bases[top * RADIX + d + 1] : n;
    if (hi <= lo)
        return;
    ku += ku_off;
    vu += vu_off;
#if TILED_OK
    /* MSD order from tiles (see clsort_radix_tiles): the bucket's keys lie
     * in A as one run per tile, tile t's run [R0, R1) */
    const bool tiled = state[ST_TILED] != 0;
    const global uint *tab = next + table_off;
    const uint tiles = tiled ? (uint)(((ulong)n + OS_TILE - 1) / OS_TILE) : 1u;
#define IN_TILE_RUN(t, R0, R1)                                                               \
    {                                                                                        \
        const ulong o_ = (ulong)(t) * OS_TILE;                                               \
        R0 = o_ + tab[(ulong)(t) * RADIX + d];                                               \
        R1 = d + 1 < RADIX ? o_ + tab[(ulong)(t) * RADIX + d + 1]                          \
                           : min(o_ + OS_TILE, (ulong)n);                                    \
    }
/* Runs of 1 KB and less (u32 keys at 32M), each in another place: no
 * stream for the prefetchers to follow. Each run's lines are fetched
 * TILE_AHEAD runs before they are read (PoCL's clang: __builtin_prefetch). */
#define TILE_AHEAD 16u
#define IN_PREFETCH_RUN(P, t)                                                                    \
    if ((t) < tiles) {                                                                           \
        ulong p0_, p1_;                                                                          \
        IN_TILE_RUN(t, p0_, p1_)                                                                 \
        for (ulong a_ = p0_; a_ < p1_; a_ += 64 / sizeof(*(P)))                                  \
            __builtin_prefetch((P) + a_);                                                        \
        if (p1_ > p0_)                                                                           \
            __builtin_prefetch((P) + p1_ - 1);                                                   \
    }
#endif
    const uint bits = top * CLSORT_RADIX_BITS; /* [begin_bit, begin_bit + bits) */
    const uint rb = hi - lo < 2 * RADIX ? IN_MIN_BITS : CLSORT_RADIX_BITS;
    const uint rr = 1u << rb;
    const uint np = (bits + rb - 1) / rb;
    uint h[IN_MAX_PASSES * RADIX];
    for (uint e = 0; e < np * rr; e++)
        h[e] = 0;
    /* in-bucket digit j: bits [begin_bit + j rb, ...) below the top digit's */
#define IN_SHIFT(j) (begin_bit + (j) * rb)
#define IN_MASK(j) ((1u << min(rb, bits - (j) * rb)) - 1u)
    const KEY_T low_mask = (KEY_T)(((KEY_T)1 << bits) - 1u);
    KEY_T any = 0, all = low_mask;
/* in-bucket digit j's shift, mask and flip (s<j>, m<j>, f<j>), and its
 * count of `key` into h[j rr ...] */
#define IN_DIGIT(j) const uint s##j = IN_SHIFT(j), m##j = IN_MASK(j), f##j = descending ? m##j : 0u
#define IN_COUNT(j) h[(j) * rr + DIGIT_OF(key, s##j, m##j, f##j)]++
/* the in-bucket digits of ka[R0, R1) counted into h[]: two digits, or
 * three in 8-bit rows (with wider digits the branch alone slowed the
 * two-digit loop on PoCL 3.1), from one read of each key; else a loop per
 * digit */
#if CLSORT_RADIX_BITS == 8
#define IN_COUNT_3(R0, R1)                                                                       \
    else if (np == 3) {                                                                          \
        IN_DIGIT(0);                                                                             \
        IN_DIGIT(1);                                                                             \
        IN_DIGIT(2);                                                                             \
        for (ulong i = (R0); i < (R1); i++) {                                                    \
            const KEY_T key = ka[i];                                                             \
            IN_COUNT(0);                                                                         \
            IN_COUNT(1);                                                                         \
            IN_COUNT(2);                                                                         \
        }                                                                                        \
    }
#else
#define IN_COUNT_3(R0, R1)
#endif
#define IN_COUNT_RANGE(R0, R1)                                                                   \
    if (np == 2) {                                                                               \
        IN_DIGIT(0);                                                                             \
        IN_DIGIT(1);                                                                             \
        for (ulong i = (R0); i < (R1); i++) {                                                    \
            const KEY_T key = ka[i];                                                             \
            IN_COUNT(0);                                                                         \
            IN_COUNT(1);                                                                         \
        }                                                                                        \
    }                                                                                            \
    IN_COUNT_3(R0, R1)                                                                           \
    else {                                                                                       \
        for (uint j = 0; j < np; j++) {                                                          \
            uint *hj = h + j * rr;                                                               \
            const uint shift = IN_SHIFT(j), mask = IN_MASK(j), flip = descending ? mask : 0u;    \
            for (ulong i = (R0); i < (R1); i++)                                                  \
                hj[DIGIT_OF(ka[i], shift, mask, flip)]++;                                        \
        }                                                                                        \
    }
    uint vary = 0; /* bit j: in-bucket digit j varies */
#if TILED_OK
    if (tiled) {
        /* run by run (tiled: 8-bit rows); a digit varies unless one of its
         * values has every key */
        for (uint t = 0; t < tiles; t++) {
            ulong r0, r1;
            IN_TILE_RUN(t, r0, r1)
            IN_PREFETCH_RUN(ka, t + TILE_AHEAD)
            IN_COUNT_RANGE(r0, r1)
        }
        for (uint j = 0; j < np; j++) {
            uint most = 0;
            for (uint e = 0; e <= IN_MASK(j); e++)
                most = max(most, h[j * rr + e]);
            if (most < hi - lo)
                vary |= 1u << j;
        }
    } else
#endif
    {
        for (ulong b0 = lo; b0 < hi; b0 += 2048) { /* block by block, as the upfront count */
            const ulong b1 = min(b0 + 2048, (ulong)hi);
            for (ulong i = b0; i < b1; i++) {
                const KEY_T low = (KEY_T)(RADIX_IMAGE(ka[i]) >> begin_bit) & low_mask;
                any |= low;
                all &= low;
            }
            IN_COUNT_RANGE(b0, b1)
        }
        for (uint j = 0; j < np; j++)
            if ((uint)((any ^ all) >> (j * rb)) & (rr - 1u))
                vary |= 1u << j;
    }
#undef IN_COUNT_RANGE
#undef IN_COUNT_3
#undef IN_COUNT
#undef IN_DIGIT
    /* the passes whose digit varies inside the bucket */
    uint pass_of[IN_MAX_PASSES], k = 0;
    for (uint j = 0; j < np; j++)
        if ((vary >> j) & 1u)
            pass_of[k++] = j;
#if TILED_OK
#if HAVE_VALUES
#define IN_GATHER_VALUE(GV) GV[o] = va[i];
#else
#define IN_GATHER_VALUE(GV)
#endif
    /* the bucket's runs, tile by tile, to GK[lo, hi) (and GV) */
#define IN_GATHER(GK, GV)                                                                    \
    {                                                                                        \
        idx_t o = lo;                                                                        \
        for (uint t = 0; t < tiles; t++) {                                                   \
            ulong r0, r1;                                                                    \
            IN_TILE_RUN(t, r0, r1)                                                           \
            for (ulong i = r0; i < r1; i++, o++) {                                           \
                GK[o] = ka[i];                                                               \
                IN_GATHER_VALUE(GV)                                                          \
            }                                                                                \
        }                                                                                    \
    }
#endif
    if (k == 0) { /* every key of the bucket is the same: A -> U */
#if TILED_OK
        if (tiled) {
            IN_GATHER(ku, vu)
            return;
        }
#endif
        for (idx_t i = lo; i < hi; i++) {
            ku[i] = ka[i];
#if HAVE_VALUES
            vu[i] = va[i];
#endif
        }
        return;
    }
    /* The passes never write A: the bucket's lines there are read once and
     * left clean, so that no pass writes them back to memory. The passes
     * alternate between U and X, the last into U (k odd: A -> U -> X -> U;
     * k even: A -> X -> U -> X -> U), X being the work-item's local memory
     * for a bucket that fits it (CLSORT_IN_LOCAL keys, the host's choice: a
     * buffer of the worker thread that stays in cache from bucket to
     * bucket), else temp B. pos[] holds positions relative to lo. */
#if CLSORT_IN_LOCAL
    local KEY_T lk[CLSORT_IN_LOCAL];
#if HAVE_VALUES
    local VAL_T lv[CLSORT_IN_LOCAL];
#endif
    const bool in_local = hi - lo <= CLSORT_IN_LOCAL;
#else
    const bool in_local = false;
#endif
    idx_t pos[RADIX];
    /* the routes' two steps. A scatter: SK[0, M) -> DK by the digit (SH,
     * MA, FL), at positions C[] (values along, SV -> DV). A sub-bucket's
     * counts (a split bucket's, see below): c0[] and c1[], the positions
     * of the two lower digits (s0, m0, f0; s1, m1, f1) in SK[0, M). */
#if HAVE_VALUES
#define IN_MOVE_VALUE(S, D) D[p] = S[i];
#else
#define IN_MOVE_VALUE(S, D)
#endif
#define IN_SCATTER_BY(SK, DK, SV, DV, M, C, SH, MA, FL)                                          \
    for (idx_t i = 0; i < (M); i++) {                                                            \
        const KEY_T key = SK[i];                                                                 \
        const idx_t p = C[DIGIT_OF(key, SH, MA, FL)]++;                                          \
        DK[p] = key;                                                                             \
        IN_MOVE_VALUE(SV, DV)                                                                    \
    }
#define IN_SUB_COUNTS(SK, M)                                                                     \
    {                                                                                            \
        for (uint d = 0; d <= m0; d++)                                                           \
            c0[d] = 0;                                                                           \
        for (uint d = 0; d <= m1; d++)                                                           \
            c1[d] = 0;                                                                           \
        for (idx_t i = 0; i < (M); i++) {                                                        \
            const KEY_T key = SK[i];                                                             \
            c0[DIGIT_OF(key, s0, m0, f0)]++;                                                     \
            c1[DIGIT_OF(key, s1, m1, f1)]++;                                                     \
        }                                                                                        \
        uint r0 = 0, r1 = 0;                                                                     \
        for (uint d = 0; d <= m0; d++) {                                                         \
            const uint t = c0[d];                                                                \
            c0[d] = r0;                                                                          \
            r0 += t;                                                                             \
        }                                                                                        \
        for (uint d = 0; d <= m1; d++) {                                                         \
            const uint t = c1[d];                                                                \
            c1[d] = r1;                                                                          \
            r1 += t;                                                                             \
        }                                                                                        \
    }
/* pos[]: where each value of in-bucket digit J starts (MA: its mask) */
#define IN_STARTS(J, MA)                                                                         \
    {                                                                                            \
        idx_t run = 0;                                                                           \
        for (uint e = 0; e <= (MA); e++) {                                                       \
            pos[e] = run;                                                                        \
            run += h[(J) * rr + e];                                                              \
        }                                                                                        \
    }
/* a split bucket's digits: the top varying one (jt: st, mt, ft), whose
 * starts go to pos[], and the two below (j0, j1) */
#define IN_SPLIT_DIGITS                                                                          \
    const uint jt = pass_of[2], j0 = pass_of[0], j1 = pass_of[1];                                \
    const uint st = IN_SHIFT(jt), mt = IN_MASK(jt), ft = descending ? mt : 0u;                   \
    const uint s0 = IN_SHIFT(j0), m0 = IN_MASK(j0), f0 = descending ? m0 : 0u;                   \
    const uint s1 = IN_SHIFT(j1), m1 = IN_MASK(j1), f1 = descending ? m1 : 0u;                   \
    IN_STARTS(jt, mt)
/* the bucket's lines of DK (and DV) read first (clsort_touch) */
#define IN_TOUCH(DK, DV)                                                                         \
    {                                                                                            \
        uchar sink = clsort_touch(DK, (ulong)(hi - lo) * sizeof(KEY_T));                         \
        IN_TOUCH_VALUES(DV)                                                                      \
        if (sink == 0x5au && descending > 1u) /* never: keeps the reads */                       \
            (DK)[0] = sink;                                                                      \
    }
#if HAVE_VALUES
#define IN_TOUCH_VALUES(DV) sink ^= clsort_touch(DV, (ulong)(hi - lo) * sizeof(VAL_T));
#else
#define IN_TOUCH_VALUES(DV)
#endif
#if HAVE_NT && CLSORT_IN_LOCAL
    /* the first pass's scatter: from A[lo, hi), or from the tiles' runs */
#if TILED_OK
#if HAVE_VALUES /* the values are read first here, the keys by the count */
#define IN_PREFETCH_VALUES(t) IN_PREFETCH_RUN(va, t)
#else
#define IN_PREFETCH_VALUES(t)
#endif
#define IN_SCATTER_FIRST(DK, DV, C, SH, MA, FL)                                                  \
    if (tiled) {                                                                                 \
        for (uint t = 0; t < tiles; t++) {                                                       \
            ulong r0, r1;                                                                        \
            IN_TILE_RUN(t, r0, r1)                                                               \
            IN_PREFETCH_VALUES(t + TILE_AHEAD)                                                   \
            IN_SCATTER_BY((ka + r0), DK, (va + r0), DV, (idx_t)(r1 - r0), C, SH, MA, FL)         \
        }                                                                                        \
    } else {                                                                                     \
        IN_SCATTER_BY(ak, DK, av, DV, m, C, SH, MA, FL)                                          \
    }
#else
#define IN_SCATTER_FIRST(DK, DV, C, SH, MA, FL) IN_SCATTER_BY(ak, DK, av, DV, m, C, SH, MA, FL)
#endif
    /* Sorts from CLSORT_NT_MIN keys (see HAVE_NT): every pass between two
     * halves of local memory, X and Y, which stay in cache, and then the
     * sorted bucket copied out to U by streaming stores, so that U's lines
     * are written without being read first (the routes below read them:
     * the first pass into U misses, the last writes them back). A bucket
     * that splits (CLSORT_IN_SPLIT) goes A -> X by its top varying digit,
     * then each sub-bucket X -> Y -> X. Buckets that do not fit take the
     * routes below. */
    if (n >= CLSORT_NT_MIN) {
        const idx_t m = hi - lo;
#if IN_CAN_SPLIT
        const bool split = k == 3 && (ulong)m >= CLSORT_IN_SPLIT && (ulong)m <= 0xffffffffu;
#else
        const bool split = false;
#endif
        idx_t need = 2 * m;
#if IN_CAN_SPLIT
        if (split) { /* X and the largest sub-bucket's copy */
            const uint jt = pass_of[2], mt = IN_MASK(jt);
            idx_t big = 0;
            for (uint e = 0; e <= mt; e++)
                big = max(big, (idx_t)h[jt * rr + e]);
            need = m + big;
        }
#endif
        if (need <= CLSORT_IN_LOCAL) {
            local KEY_T *xk = lk, *yk = lk + m, *last = xk;
            const global KEY_T *ak = ka + lo;
#if HAVE_VALUES
            local VAL_T *xv = lv, *yv = lv + m, *lastv = xv;
            const global VAL_T *av = va + lo;
#endif
#if IN_CAN_SPLIT
            if (split) {
                IN_SPLIT_DIGITS
                IN_SCATTER_FIRST(xk, xv, pos, st, mt, ft)
                uint c0[RADIX], c1[RADIX]; /* positions in a sub-bucket */
                idx_t start = 0;
                for (uint e = 0; e <= mt; e++) {
                    const idx_t m2 = h[jt * rr + e];
                    if (m2 > 1) {
                        local KEY_T *sk = xk + start;
                        IN_SUB_COUNTS(sk, m2)
#if HAVE_VALUES
                        local VAL_T *sv = xv + start;
#endif
                        IN_SCATTER_BY(sk, yk, sv, yv, m2, c0, s0, m0, f0)
                        IN_SCATTER_BY(yk, sk, yv, sv, m2, c1, s1, m1, f1)
                    }
                    start += m2;
                }
            } else
#endif
            {
                for (uint a = 1; a <= k; a++) {
                    const uint j = pass_of[a - 1];
                    const uint shift = IN_SHIFT(j), mask = IN_MASK(j),
                               flip = descending ? mask : 0u;
                    IN_STARTS(j, mask)
                    last = (a & 1u) ? xk : yk;
#if HAVE_VALUES
                    lastv = (a & 1u) ? xv : yv;
#endif
                    if (a == 1) {
                        IN_SCATTER_FIRST(xk, xv, pos, shift, mask, flip)
                    } else if (a & 1u) {
                        IN_SCATTER_BY(yk, xk, yv, xv, m, pos, shift, mask, flip)
                    } else {
                        IN_SCATTER_BY(xk, yk, xv, yv, m, pos, shift, mask, flip)
                    }
                }
            }
            NT_COPY(KEY_T, ku + lo, last, m);
#if HAVE_VALUES
            NT_COPY(VAL_T, vu + lo, lastv, m);
#endif
            clsort_nt_fence();
            return;
        }
    }
#undef IN_SCATTER_FIRST
#endif
#if TILED_OK
    /* A bucket of the tiles that the route above does not take (it does
     * not fit local memory): gathered in order to where the routes below
     * then read it as from A: to B where they take an odd number of passes
     * (A -> U -> X -> U: B, their X, is read before it is written), else to
     * U (A -> X -> U). */
    if (tiled) {
        global KEY_T *gk = (k & 1u) ? kb : ku;
        global VAL_T *gv = (k & 1u) ? vb : vu;
        IN_GATHER(gk, gv)
        ka = gk;
        va = gv;
    }
#undef IN_GATHER
#undef IN_GATHER_VALUE
#undef IN_PREFETCH_VALUES
#undef IN_PREFETCH_RUN
#undef IN_TILE_RUN
#endif
#if IN_CAN_SPLIT
    /* A large bucket of three passes (32-bit keys in 8-bit rows): one pass
     * by its top varying digit, A -> U, splits it into sub-buckets, which
     * then take the two lower digits one after the other, U -> X -> U,
     * while they stay in L1 (pairs at 32M: a sub-bucket of 512 keys, 4 KB,
     * and its copy in X), where the bucket's own passes scatter over its
     * whole range, which with its copy fills a core's L2 (2 MiB). It costs
     * each sub-bucket two counts and prefix sums, which lose where the
     * bucket fits L2 (u32 keys at 32M); hence the host's bound in bytes.
     * Stable: each step moves the keys in order. */
    if (k == 3 && (ulong)(hi - lo) >= CLSORT_IN_SPLIT && (ulong)(hi - lo) <= 0xffffffffu) {
        IN_SPLIT_DIGITS
        global KEY_T *uk = ku + lo, *bk = kb + lo;
        const global KEY_T *ak = ka + lo;
#if HAVE_VALUES
        global VAL_T *uv = vu + lo, *bv = vb + lo;
        const global VAL_T *av = va + lo;
#endif
        IN_TOUCH(uk, uv) /* the destination's lines first */
        IN_SCATTER_BY(ak, uk, av, uv, hi - lo, pos, st, mt, ft)
        uint c0[RADIX], c1[RADIX]; /* positions in a sub-bucket (under 2^32 keys) */
        idx_t start = 0;
        for (uint e = 0; e <= mt; e++) {
            const idx_t m2 = h[jt * rr + e];
            if (m2 > 1) {
                global KEY_T *sk = uk + start;
#if HAVE_VALUES
                global VAL_T *sv = uv + start;
#endif
                IN_SUB_COUNTS(sk, m2)
#if CLSORT_IN_LOCAL
                if (in_local) {
                    local KEY_T *xk = lk + start;
#if HAVE_VALUES
                    local VAL_T *xv = lv + start;
#endif
                    IN_SCATTER_BY(sk, xk, sv, xv, m2, c0, s0, m0, f0)
                    IN_SCATTER_BY(xk, sk, xv, sv, m2, c1, s1, m1, f1)
                } else
#endif
                {
                    global KEY_T *xk = bk + start;
#if HAVE_VALUES
                    global VAL_T *xv = bv + start;
#endif
                    IN_SCATTER_BY(sk, xk, sv, xv, m2, c0, s0, m0, f0)
                    IN_SCATTER_BY(xk, sk, xv, sv, m2, c1, s1, m1, f1)
                }
            }
            start += m2;
        }
        return;
    }
#endif
    for (uint a = 1; a <= k; a++) {
        const uint j = pass_of[a - 1];
        const uint shift = IN_SHIFT(j), mask = IN_MASK(j), flip = descending ? mask : 0u;
        IN_STARTS(j, mask)
        const bool to_u = ((k - a) & 1u) == 0; /* else to X; from A, or from the other */
        const bool dst_local = in_local && !to_u, src_local = in_local && a > 1 && to_u;
        global KEY_T *gsrc = a == 1 ? ka : (to_u ? kb : ku);
        global KEY_T *gdst = to_u ? ku : kb;
#if HAVE_VALUES
        global VAL_T *gvsrc = a == 1 ? va : (to_u ? vb : vu);
        global VAL_T *gvdst = to_u ? vu : vb;
#endif
        gsrc += lo;
        gdst += lo;
#if HAVE_VALUES
        gvsrc += lo;
        gvdst += lo;
#endif
        if (!dst_local && a <= 2) /* the destination's lines first, when first written */
            IN_TOUCH(gdst, gvdst)
#define IN_SCATTER(SK, DK, SV, DV) IN_SCATTER_BY(SK, DK, SV, DV, hi - lo, pos, shift, mask, flip)
#if CLSORT_IN_LOCAL
        if (dst_local) {
            IN_SCATTER(gsrc, lk, gvsrc, lv)
        } else if (src_local) {
            IN_SCATTER(lk, gdst, lv, gvdst)
        } else
#endif
        {
            IN_SCATTER(gsrc, gdst, gvsrc, gvdst)
        }
#undef IN_SCATTER
    }
#undef IN_SCATTER_BY
#undef IN_SUB_COUNTS
#undef IN_MOVE_VALUE
#undef IN_STARTS
#undef IN_SPLIT_DIGITS
#undef IN_TOUCH
#undef IN_TOUCH_VALUES
#undef IN_SHIFT
#undef IN_MASK
}
#endif

/* radix_msd.cl - the CPU shape of the radix sort: a tile of a onesweep
 * pass in one work-item, and the sort in MSD order (PoCL).
 *
 * The tile (clsort_os_tile): one work-item counts its keys (64K of them),
 * publishes the counts, sorts the tile by the digit into local memory (a
 * buffer of the worker thread that stays in cache), looks back over the
 * tiles before it for every digit in one walk (radix_lookback.cl's words,
 * with a fallback that counts a predecessor that has not published), and
 * copies each digit's run out. radix_passes.cl's kernels run these tiles.
 *
 * MSD order (the plan's ST_MSD): one pass by the top digit puts each digit's
 * keys into one bucket (or clsort_radix_tiles sorts each tile by the top
 * digit in its own place, with no upfront count), then clsort_radix_buckets
 * sorts each bucket in one work-item by the lower digits, in cache.
 * The GPU shape, a tile per work-group, is radix_onesweep.cl.
 *
 * Program: layout.h, common.cl, radix_layout.h, radix.cl, radix_lookback.cl,
 * this file, radix_passes.cl. Defines it needs, besides theirs
 * (CLSORT_OS_RANK 0, CLSORT_OS_WG 1):
 *   CLSORT_IN_LOCAL  a bucket of up to this many keys (and values) passes
 *                    through local memory (0: never)
 *   CLSORT_IN_SPLIT  buckets of three passes and at least this many keys
 *                    split by their top digit first (0: never)
 *   CLSORT_NT_MIN    sorts of at least this many keys write whole lines by
 *                    streaming stores (x86-64 through clang only; 0: never)
 *   CLSORT_TILED     1: the MSD order from tiles (clsort_radix_tiles)
 */
#if CLSORT_OS_RANK != 0 || CLSORT_OS_WG != 1
#error "radix_msd.cl is the serial shape: CLSORT_OS_RANK 0 and CLSORT_OS_WG 1"
#endif
#define OS_MSD_LAUNCHES 1 /* the top pass's launch runs the pass the plan chose */
#define OS_REMAP 0        /* no PASS_REMAP: the check by ranks is the GPU shape's */

/* Float keys keep each key's digit from the count to the scatter: their
 * image takes several instructions, an integer key's digit two. */
#define OS_TILE_DIGITS (CLSORT_KEY_KIND == 2)
#if RADIX <= 256
typedef uchar os_digit_t;
#else
typedef ushort os_digit_t;
#endif

/* The local memory of a tile: the tile in digit order (OS_MEM_BYTES in
 * radix_layout.h counts it for the host, and the check after it stops the
 * build where the two disagree). */
typedef struct os_mem {
    KEY_T stage_k[OS_TILE];
#if HAVE_VALUES
    VAL_T stage_v[OS_TILE];
#endif
#if OS_TILE_DIGITS
    os_digit_t digit[OS_TILE];
#endif
    uint tile; /* the tile's number */
    uint next; /* unused: the serial shape has no persistent work-groups */
} os_mem;
OS_MEM_CHECK(OS_MEM_BYTES(CLSORT_OS_RANK, CLSORT_OS_WG, OS_TILE, RADIX, CLSORT_KEY_BYTES,
                          CLSORT_VAL_BYTES, sizeof(idx_t), OS_TILE_DIGITS));

/* Non-temporal stores (the CPU shape on x86-64 through clang, as PoCL's
 * kernels are built; the host's choice, tuning nt_min): sorts of at least
 * CLSORT_NT_MIN keys write each whole 64-byte line of a run by one
 * streaming store, which goes to memory without first reading the line
 * (a store that misses reads the line before it writes it: a third of
 * the memory traffic of a pass that reads one array and writes another).
 * Only where the output is read next from memory, not from the cache: the
 * host's bound is a size far above the caches. The lines at a run's ends,
 * shared with other runs, take ordinary stores. */
#if defined(CLSORT_NT_MIN) && defined(__x86_64__) && defined(__clang__)
#define HAVE_NT (CLSORT_NT_MIN > 0)
#else
#define HAVE_NT 0
#endif
#if HAVE_NT
/* n elements of T (4, 8 or 16 bytes; else ordinary stores) from s (local
 * or global, SQ) to global d; then, once for all of a work-item's copies,
 * clsort_nt_fence.
 * A destination that no element boundary puts on a line boundary (a
 * caller's host pointer off T's alignment, as CL_MEM_USE_HOST_PTR allows)
 * takes ordinary stores only: its address is tested as it is, hidden from
 * the compiler, which would take T's alignment as given (it did, and the
 * aligned streaming store faulted). */
/* 64 bytes read at a 4-byte boundary by a plain load: vload16 would return
 * them by value from a call, which clang warns about (-Wpsabi) on x86-64
 * without AVX-512 */
typedef uint16 clsort_uint16_a4 __attribute__((aligned(4)));
#define CLSORT_DEFINE_NT_COPY(NAME, T, SQ)                                                     \
    inline void NAME(global T *d, const SQ T *s, uint n)                                       \
    {                                                                                          \
        ulong a = (ulong)d;                                                                    \
        __asm__("" : "+r"(a)); /* the address as it is: the compiler takes T's alignment */   \
        uint j = ((64u - ((uint)a & 63u)) & 63u) / (uint)sizeof(T);                            \
        if (sizeof(T) % 4 != 0 || j > n || (((uint)a + j * (uint)sizeof(T)) & 63u))            \
            j = n; /* also a caller's buffer not aligned to T: no whole lines */               \
        for (uint i = 0; i < j; i++)                                                           \
            d[i] = s[i];                                                                       \
        for (; j + 64 / sizeof(T) <= n; j += 64 / sizeof(T))                                   \
            __builtin_nontemporal_store(*(const SQ clsort_uint16_a4 *)(s + j),                 \
                                        (global uint16 *)(d + j));                             \
        for (; j < n; j++)                                                                     \
            d[j] = s[j];                                                                       \
    }
CLSORT_DEFINE_NT_COPY(clsort_nt_copy_keys, KEY_T, local)
CLSORT_DEFINE_NT_COPY(clsort_nt_copy_values, VAL_T, local)
CLSORT_DEFINE_NT_COPY(clsort_nt_copy_keys_g, KEY_T, global)
CLSORT_DEFINE_NT_COPY(clsort_nt_copy_values_g, VAL_T, global)
/* streaming stores are weakly ordered: this orders them before anything
 * the work-item does after (the kernel's end, the runtime's locks) */
#define clsort_nt_fence() __builtin_ia32_sfence()
#endif

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

/* streams of a tile's count and ranking (see clsort_os_tile) */
#if RADIX <= 256
#define TQ 4
#else
#define TQ 2
#endif
#define TILE_SPREAD 64

/* One tile of a pass: tile m->tile of the portion src[0, len), ranked
 * stably by the digit (shift, mask, flip; remap: always 0, this shape has
 * no PASS_REMAP) and written to dst in digit order
 * (clsort_tile_dest says where; a onesweep pass, lb not 0, first publishes
 * the tile's counts; bases 0: the tile is the whole output). Values go
 * along; with gen they are generated: portion index + gen_base. The caller
 * has set m->tile before. */
inline void clsort_os_tile(local os_mem *m, const global KEY_T *src, global KEY_T *dst,
                           const global VAL_T *vsrc, global VAL_T *vdst, uint gen,
                           idx_t gen_base, uint len, uint shift, uint mask, uint flip,
                           const global uchar *remap, global uint *lb,
                           global const idx_t *bases, global uint *next_counter)
{
    /* Count, publish, sort the tile into local memory by digit, look back,
     * and copy each digit's run out. Local memory is
     * a buffer of the worker thread that stays in cache; copying whole runs
     * out writes each destination sequentially, where a scatter straight
     * from the input touches RADIX places in memory for every few keys
     * (docs/DESIGN.md, "Tile ranking variants"). */
    const uint tile = m->tile;
    const uint t0 = tile * OS_TILE;
    const uint cnt = min((uint)OS_TILE, len - t0);
    uint h[RADIX];
    idx_t at[RADIX]; /* the runs' destinations */
    /* The tile in TQ streams, key j of stream j / ql (the last takes the
     * rest), counted and ranked side by side: where keys repeat a digit,
     * one counter's increments would wait on each other (a store
     * forwarded to the next load). Stream q's keys of digit d follow
     * stream q - 1's: stable. */
    uint hq[TQ][RADIX];
    const uint ql = cnt / TQ;
    for (uint q = 0; q < TQ; q++)
        for (uint d = 0; d < RADIX; d++)
            hq[q][d] = 0;
#if OS_TILE_DIGITS
    for (uint j = 0; j < cnt; j++) /* a loop of its own vectorises */
        m->digit[j] = (os_digit_t)DIGIT_OF(src[t0 + j], shift, mask, flip);
#define TILE_COUNT(q, j) hq[q][m->digit[j]]++
#define TILE_DIGIT(i, k) m->digit[i]
#else
#define TILE_COUNT(q, j) hq[q][DIGIT_OF(src[t0 + (j)], shift, mask, flip)]++
#define TILE_DIGIT(i, k) DIGIT_OF(k, shift, mask, flip)
#endif
    /* OP(q, j) for every key j of the tile, the streams side by side */
#define TILE_STREAMS(OP)                                    \
    do {                                                    \
        for (uint i = 0; i < ql; i++)                       \
            _Pragma("unroll") for (uint q = 0; q < TQ; q++) \
                OP(q, q * ql + i);                          \
        for (uint j = TQ * ql; j < cnt; j++)                \
            OP(TQ - 1, j);                                  \
    } while (0)
    TILE_STREAMS(TILE_COUNT);
#undef TILE_COUNT
    for (uint d = 0; d < RADIX; d++) {
        uint c = 0;
        for (uint q = 0; q < TQ; q++)
            c += hq[q][d];
        h[d] = c;
    }
    /* A tile whose keys all have one digit is in digit order already: its
     * run is copied out from the input, not staged (repeated keys, and
     * every pass after the first over few distinct values). Argsort's
     * generated indices take the stage. */
    const uint d0 = TILE_DIGIT(0, src[t0]);
#if HAVE_VALUES
    const bool one = h[d0] == cnt && !gen;
#else
    const bool one = h[d0] == cnt;
#endif
    if (lb)
        for (uint d = 0; d < RADIX; d++)
            clsort_publish_aggregate(lb, tile, d, h[d]);
    /* ranked in streams only where keys repeat digits (the chance that two
     * keys share one, sum h[d]^2 / cnt^2, above 1 / TILE_SPREAD), and keys
     * alone: TQ streams store to TQ times the places of the stage, which
     * costs where digits vary, and where values come along */
    bool streams = false;
#if !HAVE_VALUES
    ulong sq = 0;
    for (uint d = 0; d < RADIX; d++)
        sq += (ulong)h[d] * h[d];
    streams = sq * TILE_SPREAD > (ulong)cnt * cnt;
#endif
    uint acc = 0;
    for (uint d = 0; d < RADIX; d++) {
        if (streams)
            for (uint q = 0; q < TQ; q++) { /* hq: each stream's next place */
                const uint c = hq[q][d];
                hq[q][d] = acc;
                acc += c;
            }
        else {
            hq[0][d] = acc;
            acc += h[d];
        }
    }
#define TILE_PLACE(q, j)                            \
    do {                                            \
        const KEY_T k_ = src[t0 + (j)];             \
        const uint s_ = hq[q][TILE_DIGIT(j, k_)]++; \
        m->stage_k[s_] = k_;                        \
        TILE_PLACE_VALUE(s_, j);                    \
    } while (0)
#if HAVE_VALUES
#define TILE_PLACE_VALUE(s, j) m->stage_v[s] = GEN_VALUE(gen, gen_base + t0 + (j), vsrc[t0 + (j)])
#else
#define TILE_PLACE_VALUE(s, j) (void)0
#endif
    if (!one && streams) {
        TILE_STREAMS(TILE_PLACE);
    } else if (!one) {
        for (uint j = 0; j < cnt; j++)
            TILE_PLACE(0, j);
    }
#undef TILE_STREAMS
#undef TILE_PLACE
#undef TILE_PLACE_VALUE
#undef TILE_DIGIT
    /* every run's destination first, then its lines
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
        if (one) {
            clsort_nt_copy_keys_g(dst + at[d0], src + t0, cnt);
#if HAVE_VALUES
            clsort_nt_copy_values_g(vdst + at[d0], vsrc + t0, cnt);
#endif
        }
        for (uint d = 0; d < RADIX && !one; d++) {
            clsort_nt_copy_keys(dst + at[d], m->stage_k + s, h[d]);
#if HAVE_VALUES
            clsort_nt_copy_values(vdst + at[d], m->stage_v + s, h[d]);
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
    if (one) {
        global KEY_T *ok = dst + at[d0];
        for (uint j = 0; j < cnt; j++)
            ok[j] = src[t0 + j];
#if HAVE_VALUES
        global VAL_T *ov = vdst + at[d0];
        for (uint j = 0; j < cnt; j++)
            ov[j] = vsrc[t0 + j];
#endif
    }
    for (uint d = 0; d < RADIX && !one; d++) {
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
}

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
/* samples: 4096 from 32M keys, 2048 from 16M, else 1024 (each a cache
 * miss, which shows on sorts of a few million keys); always
 * keys[i n / 4096] for some i */
#define TILE_SAMPLES(n) ((n) >= (32ul << 20) ? 4096u : (n) >= (16ul << 20) ? 2048u : 1024u)
#define TILE_MIXED_MAX 8u
#define TILE_ONE_KEY_MAX 8u /* times the plan's bound: 2 n / compute units */
#define TILE_TWO_KEY_MAX 12u /* the same for a bucket of two keys: 3 n / compute units */
#define TILE_COMMON_REST_MAX 2u /* the same for the keys of a bucket but its common one */
#define SAMPLE_FEW_KEYS 16u /* a bucket's few keys (clsort_radix_sample), at most */

/* The map of a skewed top digit (TILE_MAPPED; 8-bit digits): each 16-bit
 * prefix (top digit t, next digit v) to a bucket, in the prefixes' order,
 * so that MSD order holds. The prefixes are walked in order and a bucket
 * closed before the prefix that would take it past MAP_SHARE of the
 * samples (ns / MAP_SHARE), and at each top digit where it holds half of
 * that: buckets of the common top digits hold that digit alone and are
 * sorted below it as before, while rare digits (and prefixes without
 * samples) share one (MAP_SPAN: sorted by every digit). Where the buckets
 * run out, the last takes the rest. h: the samples per top digit; pre: the
 * ns samples' prefixes; map: MAP_PREFIXES bytes (a little-endian device:
 * the tiles are x86-64's); info: a word per bucket. Returns the most
 * samples of one bucket. */
#if CLSORT_RADIX_BITS == 8 && TILED_OK
#define MAP_OK 1
#define TILE_SAMPLES_MAX 4096u
#define MAP_CHUNK 1024u
#define MAP_SHARE 192u
/* The 16-bit prefix of the map, as DIGIT_OF takes it: the top digit of
 * pass (its mask) and the next, pass - 1 (pass >= 1; 8 bits, full). */
typedef struct map_digit {
    uint shift, mask, flip;
} map_digit;
inline map_digit clsort_map_digit(uint begin_bit, uint pass, uint mask, uint descending)
{
    map_digit g;
    g.shift = clsort_pass_shift(begin_bit, pass - 1u);
    g.mask = mask << CLSORT_RADIX_BITS | (RADIX - 1u);
    g.flip = descending ? g.mask : 0u;
    return g;
}
inline uint clsort_sample_map(const uint *h, const ushort *pre, uint ns, global uchar *map,
                              global uint *info)
{
    /* the samples' next digits grouped by top digit (at[t]: the group's end) */
    uint at[RADIX], acc = 0;
    for (uint t = 0; t < RADIX; t++) {
        at[t] = acc;
        acc += h[t];
    }
    uchar low[TILE_SAMPLES_MAX];
    for (uint i = 0; i < ns; i++)
        low[at[pre[i] >> 8]++] = (uchar)pre[i];
    const uint target = max(1u, ns / MAP_SHARE);
    uint b = 0, inb = 0, most = 0;
    bool fresh = true; /* bucket b has no prefix yet */
    for (uint t = 0; t < RADIX; t++) {
        if (!fresh && 2 * inb >= target && b + 1 < RADIX) {
            most = max(most, inb);
            b++, inb = 0, fresh = true;
        }
        global uint *row = (global uint *)(map + t * RADIX);
        if (h[t] == 0) { /* no samples: the whole digit to bucket b, no cut inside */
            if (fresh)
                info[b] = t;
            else if ((info[b] & (RADIX - 1u)) != t)
                info[b] |= MAP_SPAN;
            fresh = false;
            for (uint j = 0; j < RADIX / 4; j++)
                row[j] = b * 0x01010101u;
            continue;
        }
        uint c[RADIX];
        for (uint v = 0; v < RADIX; v++)
            c[v] = 0;
        for (uint i = at[t] - h[t]; i < at[t]; i++)
            c[low[i]]++;
        uint word = 0;
        for (uint v = 0; v < RADIX; v++) {
            if (!fresh && inb + c[v] > target && inb > 0 && b + 1 < RADIX) {
                most = max(most, inb);
                b++, inb = 0, fresh = true;
            }
            if (fresh)
                info[b] = t;
            else if ((info[b] & (RADIX - 1u)) != t)
                info[b] |= MAP_SPAN;
            fresh = false;
            inb += c[v];
            word |= b << (8 * (v & 3u));
            if ((v & 3u) == 3u) {
                row[v / 4] = word;
                word = 0;
            }
        }
    }
    return max(most, inb);
}
#else
#define MAP_OK 0
#endif

/* Few distinct values written from their keys (TILE_FILL): keys alone of
 * 4 or 8 bytes, where the tiles are built (their counts in the map's
 * counts row) */
#if TILED_OK && !HAVE_VALUES && CLSORT_KEY_KIND != 2 && CLSORT_KEY_BYTES >= 4
#define FILL_OK 1
#else
#define FILL_OK 0
#endif
/* How many of a digit's h samples are its common key (see
 * clsort_radix_sample; seen: how many are the majority vote's key), or 0
 * where none is. */
/* Chao1's estimate of the distinct keys from d seen, f1 of them once and
 * f2 twice: d + f1 (f1 - 1) / 2 (f2 + 1) (the sample's few keys; a
 * bucket's glance at its set) */
inline ulong clsort_chao1(ulong d, ulong f1, ulong f2)
{
    return d + f1 * (f1 ? f1 - 1 : 0) / (2 * (f2 + 1));
}

#define COMMON_SAMPLES_MIN 3u
inline uint clsort_common_samples(uint h, uint seen)
{
    return 2 * seen > h && seen >= COMMON_SAMPLES_MIN ? seen : 0u;
}

/* the sample's key of top digit d (ONE_KEY: its order key) */
inline KEY_T clsort_one_key(const global uint *one, uint d)
{
    return (KEY_T)((ulong)one[ONE_KEY(RADIX) + 2 * d] |
                   (ulong)one[ONE_KEY(RADIX) + 2 * d + 1] << 32);
}

/* The flag (scratch + flag_off) = 1 where the tile pass should run: the
 * samples ku[i n / ns] put no more than msd_max * ns / n
 * of them in one digit of pass (the top pass; the plan's bound, estimated);
 * 2 where they do, but the buckets past the bound look like one key each
 * (below); TILE_MAPPED where they do but the map of 16-bit prefixes
 * (clsort_sample_map, written at map_off) spreads them (map_off 0: no
 * map); TILE_FILL where every top digit of the samples is one key (few
 * distinct values; keys alone of an integer type, all bits). One
 * work-item. MSD order without tiles runs it too: there the tile pass does
 * not run, and the plan reads flag 2 alone. With few (the check may run),
 * TILE_FEW | TILE_SKIP where the samples' keys look few (TILE_FEW) and are
 * neither one key a top digit, nor flag 2's, nor in order. */
#if FILL_SET_OK && defined(CLSORT_SAMPLE_FEW) && CLSORT_SAMPLE_FEW
#define SAMPLE_FEW_OK 1
#else
#define SAMPLE_FEW_OK 0
#endif
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_sample(CLSORT_PARAMS(clsort_radix_sample))
{
#if SAMPLE_FEW_OK
    /* the samples' keys (0: an empty slot; key 0 counted apart), their
     * counts, and how many (clsort_set_find_one) */
    local set_t few_key[1u << FEW_SLOTS_BITS];
    local ushort few_cnt[1u << FEW_SLOTS_BITS];
    local uint few_used;
    uint zeros = 0;
    few_used = 0;
    if (few)
        for (uint e = 0; e < (1u << FEW_SLOTS_BITS); e++) {
            few_key[e] = 0;
            few_cnt[e] = 0;
        }
#endif
    uint go = 0;
    const uint ns = TILE_SAMPLES((ulong)n);
    if (n >= ns && n <= 0xffffffffu && msd_max > 0) {
        const uint shift = clsort_pass_shift(begin_bit, pass);
        const uint mask = clsort_pass_mask(begin_bit, end_bit, pass);
        const uint flip = descending ? mask : 0u;
        uint h[RADIX];
        /* per digit, the sampled keys first and second seen (as the sort
         * orders them), how many others (0 one key, 1 two, 2 more), and
         * the key of more than half of its samples if any (cand: the
         * majority vote's, votes; then how many samples are it, seen) */
        KEY_T first[RADIX], second[RADIX], cand[RADIX];
        uchar other[RADIX];
        uint votes[RADIX];
        /* per digit, its samples' first SAMPLE_FEW_KEYS distinct keys and
         * how often each was seen (fn: how many, SAMPLE_FEW_KEYS + 1 for
         * more) */
        KEY_T fk[RADIX * SAMPLE_FEW_KEYS];
        ushort fc[RADIX * SAMPLE_FEW_KEYS];
        uchar fn[RADIX];
        for (uint d = 0; d < RADIX; d++) {
            h[d] = 0;
            other[d] = 0;
            votes[d] = 0;
            fn[d] = 0;
        }
        ku += ku_off;
        KEY_T any = 0, anyc = 0, prev = 0;
        uint fl = 0; /* the samples' order: see the upfront count's check */
#if MAP_OK
        /* each sample's 16-bit prefix (the top digit and the next), for the
         * map below */
        const bool can_map = map_off && pass >= 1;
        const map_digit g = clsort_map_digit(begin_bit, can_map ? pass : 1u, mask, descending);
        ushort pre[TILE_SAMPLES_MAX];
#endif
        for (uint i = 0; i < ns; i++) {
            const KEY_T k = ku[(ulong)i * n / ns];
            clsort_note_bits(k, &any, &anyc);
            const uint d = DIGIT_OF(k, shift, mask, flip);
#if MAP_OK
            if (can_map)
                pre[i] = (ushort)DIGIT_OF(k, g.shift, g.mask, g.flip);
#endif
            const KEY_T img = clsort_order_key(k, begin_bit, end_bit, descending);
            if (h[d]++ == 0) {
                first[d] = img;
            } else if (img != first[d]) {
                if (other[d] == 0)
                    second[d] = img;
                other[d] = other[d] == 0 ? 1 : img != second[d] ? 2 : other[d];
            }
            if (votes[d] == 0)
                cand[d] = img;
            votes[d] += img == cand[d] ? 1u : -1u;
            if (fn[d] <= SAMPLE_FEW_KEYS) {
                uint e = 0;
                while (e < fn[d] && fk[d * SAMPLE_FEW_KEYS + e] != img)
                    e++;
                if (e < fn[d]) {
                    fc[d * SAMPLE_FEW_KEYS + e]++;
                } else if (fn[d]++ < SAMPLE_FEW_KEYS) {
                    fk[d * SAMPLE_FEW_KEYS + e] = img;
                    fc[d * SAMPLE_FEW_KEYS + e] = 1;
                }
            }
            if (i)
                fl |= clsort_order_pair(prev, k, begin_bit, end_bit, descending);
            prev = k;
#if SAMPLE_FEW_OK
            if (few && (set_t)k == 0) {
                zeros++;
            } else if (few) { /* a key past the probes' limit goes uncounted */
                const int e = clsort_set_find_one(few_key, (set_t)k, FEW_SLOTS_BITS, &few_used);
                if (e >= 0)
                    few_cnt[e]++;
            }
#endif
        }
        /* Few distinct values (at most TILE_MIXED_MAX digits whose samples
         * differ): a bucket whose samples are one key, or two, is taken to
         * be those keys alone, which the bucket phase copies or splits in
         * one pass (clsort_in_few_keys); should it hold others after all,
         * it is sorted all the same, by one work-item.
         * Elsewhere (Zipf's rare values share the common ones' buckets) the
         * bound holds for every bucket. */
        /* A bucket whose samples are more than two keys but few (Chao1's
         * estimate at most SAMPLE_FEW_KEYS, from samples that repeat: Zipf's
         * heads among a few rare keys) takes its keys' ranks
         * (clsort_in_by_ranks: a read and a pass, as a split of two keys),
         * and the bound of two keys' buckets. */
        bool fewd[RADIX];
        for (uint d = 0; d < RADIX; d++) {
            fewd[d] = false;
            if (fn[d] <= SAMPLE_FEW_KEYS && h[d] >= SAMPLE_FEW_KEYS) {
                ulong f1 = 0, f2 = 0;
                for (uint e = 0; e < fn[d]; e++) {
                    f1 += fc[d * SAMPLE_FEW_KEYS + e] == 1;
                    f2 += fc[d * SAMPLE_FEW_KEYS + e] == 2;
                }
                fewd[d] = clsort_chao1(fn[d], f1, f2) <= SAMPLE_FEW_KEYS;
            }
        }
        uint most = 0, most_all = 0, most_two = 0, mixed = 0, tops = 0, most_plain = 0;
        for (uint d = 0; d < RADIX; d++) {
            most_all = max(most_all, h[d]);
            /* (a bucket of one key has no bound: past TILE_ONE_KEY_MAX
             * times it, every work-item copies it) */
            most_two = max(most_two, other[d] == 1 || (fewd[d] && other[d]) ? h[d] : 0u);
            mixed += other[d] != 0;
            tops += h[d] != 0;
        }
        /* A bucket most of whose samples are one key (common: more than
         * half of them, and at least COMMON_SAMPLES_MIN) splits that key
         * from the others (clsort_in_common): one read, the others sorted,
         * the key's run written. Where such buckets are past the bound
         * (Zipf's head keys among rare ones), with at most
         * TILE_COMMON_REST_MAX times the bound of others in any bucket (a
         * bucket of rare keys alone as well: Zipf's two heads of one
         * digit) and TILE_ONE_KEY_MAX times it in all (one work-item reads
         * it), they take flag 2 too; without a common key past the bound,
         * the bound holds. */
        uint *const seen = votes;
        for (uint d = 0; d < RADIX; d++)
            seen[d] = 0;
        for (uint i = 0; i < ns; i++) { /* the samples again, from cache */
            const KEY_T k = ku[(ulong)i * n / ns];
            const uint d = DIGIT_OF(k, shift, mask, flip);
            seen[d] += clsort_order_key(k, begin_bit, end_bit, descending) == cand[d];
        }
        uint most_rest = 0, most_common = 0;
        for (uint d = 0; d < RADIX; d++)
            if (other[d] > 1 || mixed > TILE_MIXED_MAX) {
                most_plain = max(most_plain, h[d]);
                if (fewd[d])
                    continue;
                most = max(most, h[d]);
                const uint c = clsort_common_samples(h[d], seen[d]);
                most_rest = max(most_rest, h[d] - c);
                most_common = max(most_common, c ? h[d] : 0u);
            }
        /* and three passes or more whose digits vary in the sample, as
         * the plan's MSD order needs */
        uint active = 0;
        for (uint p = 0; p <= pass; p++)
            active += ((any & anyc) >> clsort_pass_shift(begin_bit, p) &
                       (KEY_T)clsort_pass_mask(begin_bit, end_bit, p)) != 0;
        const bool commons =
            (ulong)most_common * n > (ulong)msd_max * ns &&
            (ulong)most_rest * n <= (ulong)TILE_COMMON_REST_MAX * msd_max * ns &&
            (ulong)most_common * n <= (ulong)TILE_ONE_KEY_MAX * msd_max * ns;
        const bool in_bound = (ulong)most * n <= (ulong)msd_max * ns;
        go = active >= 3 && (in_bound || commons);
        /* 2: some bucket past the plan's bound, its samples one or two
         * keys. One work-item reads such a bucket twice (its check, its
         * copy or split), which must not take longer than the LSD passes
         * of every work-item: one key up to TILE_ONE_KEY_MAX times the
         * bound, and past that copied by every work-item, chunk by chunk
         * (clsort_radix_one_copy), whatever its size; two keys up to
         * TILE_TWO_KEY_MAX times (about where its split costs the LSD
         * passes' share: a bucket near the cap must not fall either side
         * by the sample's noise) */
        if (go && (ulong)most_all * n > (ulong)msd_max * ns)
            go = (ulong)most_two * n <= (ulong)TILE_TWO_KEY_MAX * msd_max * ns ? 2 : 0;
#if MAP_OK
        /* A skewed top digit (floats from a normal distribution put most
         * keys into a few values of sign and exponent): buckets by the
         * 16-bit prefix instead, where the samples' map promises every
         * bucket within the bound. Only where the samples show two top
         * digits or more: the top pass then surely varies, and the plan,
         * which cannot undo the mapped counts, takes MSD order (TILE_MAPPED). */
        if (!go && can_map && active >= 3 && tops >= 2 &&
            (ulong)clsort_sample_map(h, pre, ns, (global uchar *)(scratch + map_off),
                                     scratch + map_off + MAP_INFO) * n <=
                (ulong)msd_max * ns)
            go = TILE_MAPPED;
#endif
#if FILL_OK
        /* every top digit of the samples one key, and at most
         * FILL_KEYS_MAX of them: the tile pass compares each key with its
         * digit's and counts, and the buckets are written from the keys */
        if ((go == 1 || go == 2) && map_off && begin_bit == 0 && end_bit == KEY_BITS &&
            mixed == 0 && tops <= FILL_KEYS_MAX)
            go = TILE_FILL;
#endif
        /* the host's fill_only: the tiles only to fill, or (1) for flag 2,
         * whose big buckets of one key or two pass through no local memory
         * either (buckets of other inputs would not take the streamed
         * route); (2) flag 2 as without tiles (the runs of 11-bit digits
         * would be too short) */
        if (fill_only && go != TILE_FILL)
            go = go != 2 ? 0u : fill_only == 2 ? 2u | TILE_SKIP : 2u;
        /* the tile pass's counts of the map's buckets, or of the keys */
        if (go == TILE_MAPPED || go == TILE_FILL)
            for (uint d = 0; d < RADIX; d++)
                scratch[map_off + MAP_COUNTS(RADIX) + d] = 0;
        /* samples in order or in reverse order: the upfront count instead,
         * whose order check may spare the whole sort */
        if (order_check && (fl & ORDER_BOTH) != ORDER_BOTH)
            go = 0;
#if SAMPLE_FEW_OK
        /* few keys, by Chao1's estimate (TILE_FEW): the check where LSD order
         * runs is cheaper than the buckets of MSD order (but for flag 2's
         * buckets of one key or two, copied or split; not for its common
         * keys'). Where flag 2's digits are not all one key (TILE_FILL's),
         * the check only if no key of the sample is seen once: a few keys
         * that one digit of two refused the fill, not a few heavy keys
         * among rare ones, which the check would refuse after its pass */
        else if (few && go != TILE_FILL) {
            const ulong d = few_used + (zeros != 0);
            ulong f1 = zeros == 1, f2 = zeros == 2;
            for (uint e = 0; e < (1u << FEW_SLOTS_BITS); e++) {
                f1 += few_cnt[e] == 1;
                f2 += few_cnt[e] == 2;
            }
            const bool plain_bound = (ulong)most_plain * n <= (ulong)msd_max * ns;
            if (((go & ~TILE_SKIP) != 2u || !plain_bound || (mixed && f1 == 0)) &&
                clsort_chao1(d, f1, f2) <= FEW_SAMPLE_MAX)
                go = TILE_FEW | TILE_SKIP;
        }
#endif
        /* the candidates for clsort_radix_one_copy: buckets whose samples
         * are one key past what one work-item may take (TILE_ONE_KEY_MAX
         * times the bound). Smaller ones stay with the buckets' launch,
         * where one work-item copies each while the others sort theirs
         * (the copies' launch would run before them, not beside) */
        if (go && !(go & TILE_FEW)) {
            global uint *one = scratch + one_off;
            const bool split = (go & ~TILE_SKIP) <= 2u; /* not TILE_FILL, not mapped */
            for (uint d = 0; d < RADIX; d++) {
                const bool big = (ulong)h[d] * n > (ulong)TILE_ONE_KEY_MAX * msd_max * ns;
                const uint c = split ? clsort_common_samples(h[d], seen[d]) : 0u;
                if (h[d] && ((other[d] == 0 && (big || go == TILE_FILL)) || c)) {
                    /* the candidate's key, or the common one */
                    const KEY_T key = c ? cand[d] : first[d];
                    one[ONE_CAND + d] = other[d] == 0 && big;
                    one[ONE_HAS(RADIX) + d] = go == TILE_FILL;
                    one[ONE_COMMON(RADIX) + d] = c != 0;
                    one[ONE_KEY(RADIX) + 2 * d] = (uint)key;
                    one[ONE_KEY(RADIX) + 2 * d + 1] = (uint)((ulong)key >> 32);
                }
            }
            /* the shared buckets: the SHARE_MAX largest of those from
             * SHARE_MIN_BOUNDS times the plan's bound whose samples are few
             * keys (not the candidates above, which every work-item copies
             * already) */
            for (uint s = 0; split && s < SHARE_MAX; s++) {
                uint best = RADIX, bh = 0;
                for (uint d = 0; d < RADIX; d++)
                    if (h[d] > bh && fn[d] <= SAMPLE_FEW_KEYS && !one[ONE_CAND + d] &&
                        (ulong)h[d] * n >= (ulong)SHARE_MIN_BOUNDS * msd_max * ns) {
                        bool taken = false;
                        for (uint e = 0; e < s; e++)
                            taken |= one[ONE_SHARE_DIGIT(RADIX) + e] == d + 1;
                        if (!taken) {
                            best = d;
                            bh = h[d];
                        }
                    }
                if (best == RADIX)
                    break;
                one[ONE_SHARE_DIGIT(RADIX) + s] = best + 1;
            }
            one[ONE_PASS(RADIX)] = pass + 1;
        }
    }
    scratch[flag_off] = go;
}

#if FILL_OK
/* The tile pass of TILE_FILL: the keys of src[0, cnt) equal to each top
 * digit's key (one: ONE_HAS, ONE_KEY) counted into that digit's counter of
 * hc, block by block in explicit vectors (KV_), and the bits noted from
 * the keys that occur; a key equal to none of them adds TILE_FILL_BAD to
 * the flag (and the tile counts nothing: the sort counts again). */
inline void clsort_tile_fill(const global KEY_T *src, uint cnt, const global uint *one,
                             uint descending, global uint *flag, global uint *hc,
                             global uint *bitwords)
{
    KEY_T key[FILL_KEYS_MAX];
    uint dig[FILL_KEYS_MAX], got[FILL_KEYS_MAX], nk = 0;
    for (uint d = 0; d < RADIX; d++)
        if (one[ONE_HAS(RADIX) + d] && nk < FILL_KEYS_MAX) {
            key[nk] = clsort_order_key_inverse(clsort_one_key(one, d), descending);
            dig[nk] = d;
            got[nk++] = 0;
        }
    for (uint b0 = 0; b0 < cnt; b0 += 2048) { /* a block stays in L1 */
        const uint b1 = min(cnt, b0 + 2048);
        for (uint j = 0; j < nk; j++) {
            const kv_t v = (kv_t)key[j];
            km_t eq = (km_t)0; /* each match adds -1 to its lane */
            uint i = b0;
            for (; i + KV_N <= b1; i += KV_N)
                eq += KV_AT(src + i) == v;
            long same = 0;
            KM_SUM_INTO(eq, same);
            uint c = (uint)-same;
            for (; i < b1; i++)
                c += src[i] == key[j];
            got[j] += c;
        }
    }
    uint seen = 0; /* the keys are distinct: each key of the tile matches one at most */
    for (uint j = 0; j < nk; j++)
        seen += got[j];
    if (seen != cnt) {
        atomic_or(flag, TILE_FILL_BAD);
        return;
    }
    KEY_T any = 0, anyc = 0;
    for (uint j = 0; j < nk; j++)
        if (got[j]) {
            atomic_add(&hc[dig[j]], got[j]);
            clsort_note_bits(key[j], &any, &anyc);
        }
    clsort_publish_bits(bitwords, any, anyc);
}
#endif

/* The tile pass (see above) by the digit of pass (the top pass), or by
 * the sample's map (flag TILE_MAPPED), or its counts alone (TILE_FILL,
 * clsort_tile_fill): does nothing unless the flag
 * (scratch + flag_off; the word after it hands out the tiles, zero
 * before). Counts go to counts + counts_off (the top pass's row), or with
 * the map to its row (MAP_COUNTS), the bits to scratch + bits_off, the
 * table's rows to scratch + table_off. One work-item per group, as many
 * groups as tiles; gen: argsort's values are the indices. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_tiles(CLSORT_PARAMS(clsort_radix_tiles))
{
#if TILED_OK
    local os_mem m;
    global uint *flag = scratch + flag_off;
    /* read once: a tile of TILE_FILL may add TILE_FILL_BAD meanwhile */
    const uint fl = flag[0];
    if (!clsort_tiles_ran(fl))
        return;
#if FILL_OK
    /* another tile found a key that is not its digit's: the sort counts
     * again, from the input */
    if (fl & TILE_FILL_BAD)
        return;
#endif
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
#if FILL_OK
    if (fl == TILE_FILL) {
        clsort_tile_fill(src, cnt, scratch + one_off, descending, flag,
                         scratch + map_off + MAP_COUNTS(RADIX), scratch + bits_off);
        return;
    }
#endif
    uint h[RADIX];
    for (uint d = 0; d < RADIX; d++)
        h[d] = 0;
    KEY_T any = 0, anyc = 0;
    /* the bucket of a key: its top digit, or its 16-bit prefix's through
     * the sample's map (TILE_MAPPED) */
#if MAP_OK
    const bool mapped = fl == TILE_MAPPED;
    const global uchar *map = (const global uchar *)(scratch + map_off);
    const map_digit g = clsort_map_digit(begin_bit, mapped ? pass : 1u, mask, descending);
#endif
#if OS_TILE_DIGITS
    /* float keys: each key's bucket first, and the bits noted, in a loop
     * of their own (the image takes several instructions: once a key);
     * the top digit's loop vectorises */
#if MAP_OK
    if (mapped)
        for (uint i = 0; i < cnt; i++) {
            const KEY_T k = src[i];
            clsort_note_bits(k, &any, &anyc);
            m.digit[i] = map[DIGIT_OF(k, g.shift, g.mask, g.flip)];
        }
    else
#endif
        for (uint i = 0; i < cnt; i++) {
            const KEY_T k = src[i];
            clsort_note_bits(k, &any, &anyc);
            m.digit[i] = (os_digit_t)DIGIT_OF(k, shift, mask, flip);
        }
    const bool noted = true;
#define TILE_LOOP(body)                                                                        \
    for (uint i = 0; i < cnt; i++) {                                                           \
        const KEY_T k = src[i];                                                                \
        const uint d = m.digit[i];                                                             \
        body                                                                                   \
    }
#else
    const bool noted = false;
#if MAP_OK
    /* mapped: a chunk's buckets first, in a loop of loads alone (the map's
     * lines in flight together), then the chunk's keys */
    uchar dig[MAP_CHUNK];
#define TILE_LOOP(body)                                                                        \
    if (mapped) {                                                                              \
        for (uint c0 = 0; c0 < cnt; c0 += MAP_CHUNK) {                                         \
            const uint c1 = min(cnt, c0 + MAP_CHUNK);                                          \
            for (uint i = c0; i < c1; i++)                                                     \
                dig[i - c0] = map[DIGIT_OF(src[i], g.shift, g.mask, g.flip)];                  \
            for (uint i = c0; i < c1; i++) {                                                   \
                const KEY_T k = src[i];                                                        \
                const uint d = dig[i - c0];                                                    \
                body                                                                           \
            }                                                                                  \
        }                                                                                      \
    } else {                                                                                   \
        for (uint i = 0; i < cnt; i++) {                                                       \
            const KEY_T k = src[i];                                                            \
            const uint d = DIGIT_OF(k, shift, mask, flip);                                     \
            body                                                                               \
        }                                                                                      \
    }
#else
#define TILE_LOOP(body)                                                                        \
    for (uint i = 0; i < cnt; i++) {                                                           \
        const KEY_T k = src[i];                                                                \
        const uint d = DIGIT_OF(k, shift, mask, flip);                                         \
        body                                                                                   \
    }
#endif
#endif
    TILE_LOOP(if (!noted) clsort_note_bits(k, &any, &anyc); h[d]++;)
#if MAP_OK
    global uint *hc = mapped ? scratch + map_off + MAP_COUNTS(RADIX) : counts + counts_off;
#else
    global uint *hc = counts + counts_off;
#endif
    for (uint d = 0; d < RADIX; d++)
        if (h[d])
            atomic_add(&hc[d], h[d]);
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
#if HAVE_VALUES
    TILE_LOOP(const uint s = at[d]++; m.stage_k[s] = k;
              m.stage_v[s] = GEN_VALUE(gen, t0 + i, vsrc[i]);)
#else
    TILE_LOOP(const uint s = at[d]++; m.stage_k[s] = k;)
#endif
#undef TILE_LOOP
    clsort_nt_copy_keys(ka + t0, m.stage_k, cnt);
#if HAVE_VALUES
    clsort_nt_copy_values(va + t0, m.stage_v, cnt);
#endif
    clsort_nt_fence();
#endif
}

/* ---- The steps of a bucket's sort (clsort_radix_buckets). */

/* An in-bucket digit: its shift, mask and flip, as DIGIT_OF takes them;
 * raw: the digit is taken from the key's bits, not its image (IN_DIGIT). */
typedef struct in_digit {
    uint shift, mask, flip, raw;
} in_digit;

/* In-bucket digit j of rb bits: bits [begin_bit + j rb, ...) of the bits
 * [begin_bit, begin_bit + bits) below the top digit. neg_raw (float keys,
 * see clsort_radix_buckets): 0 the image's bits, 1 the key's bits, 2 the
 * key's bits complemented. */
inline in_digit clsort_in_digit(uint begin_bit, uint bits, uint rb, uint j, uint descending,
                                uint neg_raw)
{
    in_digit g;
    g.shift = begin_bit + j * rb;
    g.mask = (1u << min(rb, bits - j * rb)) - 1u;
    g.flip = (descending ? g.mask : 0u) ^ (neg_raw == 2 ? g.mask : 0u);
    g.raw = neg_raw != 0;
    return g;
}

/* Below the top digit, a float key's image is its bits (a positive key,
 * +0 and -0 alike) or their complement (a negative one), except in the
 * bucket of NaNs, whose image is all ones: a bucket of one sign takes its
 * digits from the key's bits (an integer's two instructions, where the
 * image takes several), the flip absorbing the complement. */
#if CLSORT_KEY_KIND == 2
#define IN_DIGIT(k, g)                                                                         \
    ((g).raw ? DIGIT_OF_IMAGE(k, (g).shift, (g).mask, (g).flip)                                \
             : DIGIT_OF(k, (g).shift, (g).mask, (g).flip))
#else
#define IN_DIGIT(k, g) DIGIT_OF(k, (g).shift, (g).mask, (g).flip)
#endif

/* The in-bucket digits of ka[r0, r1) counted into h[j rr + digit] (nr: as
 * clsort_in_digit's neg_raw): two
 * digits, or three in 8-bit rows (with wider digits the branch alone slowed
 * the two-digit loop on PoCL 3.1), from one read of each key; else a loop
 * per digit. */
inline void clsort_in_count(const global KEY_T *ka, ulong r0, ulong r1, uint np, uint begin_bit,
                            uint bits, uint rb, uint rr, uint descending, uint nr, uint *h)
{
    if (np == 2) {
        const in_digit g0 = clsort_in_digit(begin_bit, bits, rb, 0, descending, nr);
        const in_digit g1 = clsort_in_digit(begin_bit, bits, rb, 1, descending, nr);
        for (ulong i = r0; i < r1; i++) {
            const KEY_T key = ka[i];
            h[IN_DIGIT(key, g0)]++;
            h[rr + IN_DIGIT(key, g1)]++;
        }
    }
#if CLSORT_RADIX_BITS == 8
    else if (np == 3) {
        const in_digit g0 = clsort_in_digit(begin_bit, bits, rb, 0, descending, nr);
        const in_digit g1 = clsort_in_digit(begin_bit, bits, rb, 1, descending, nr);
        const in_digit g2 = clsort_in_digit(begin_bit, bits, rb, 2, descending, nr);
        for (ulong i = r0; i < r1; i++) {
            const KEY_T key = ka[i];
            h[IN_DIGIT(key, g0)]++;
            h[rr + IN_DIGIT(key, g1)]++;
            h[2 * rr + IN_DIGIT(key, g2)]++;
        }
    }
#endif
    else {
        for (uint j = 0; j < np; j++) {
            uint *hj = h + j * rr;
            const in_digit g = clsort_in_digit(begin_bit, bits, rb, j, descending, nr);
            for (ulong i = r0; i < r1; i++)
                hj[IN_DIGIT(ka[i], g)]++;
        }
    }
}

/* pos[e]: where the keys whose in-bucket digit j is e start in the bucket
 * (h: the bucket's counts, rr words per digit; mask: the digit's). */
inline void clsort_in_starts(const uint *h, uint j, uint rr, uint mask, idx_t *pos)
{
    idx_t run = 0;
    for (uint e = 0; e <= mask; e++) {
        pos[e] = run;
        run += h[j * rr + e];
    }
}

/* Whether in-bucket digit j of the m keys counted in h (rr words per
 * digit; mask: the digit's) varies: no value of it has every key. */
inline bool clsort_in_varies(const uint *h, uint j, uint rr, uint mask, idx_t m)
{
    uint most = 0;
    for (uint e = 0; e <= mask; e++)
        most = max(most, h[j * rr + e]);
    return most < m;
}

/* A scatter: sk[0, m) to dk by the digit g, each key to c[its digit]++
 * (values along, sv to dv, where there are values), for each pair of
 * address spaces of source and destination and each type of the positions:
 * idx_t for a bucket, uint for a sub-bucket of a split bucket. */
#define CLSORT_DEFINE_IN_SCATTER(NAME, SQ, DQ, CT)                                             \
    inline void NAME(SQ const KEY_T *sk, DQ KEY_T *dk, SQ const VAL_T *sv, DQ VAL_T *dv,       \
                     idx_t m, CT *c, in_digit g)                                               \
    {                                                                                          \
        for (idx_t i = 0; i < m; i++) {                                                        \
            const KEY_T key = sk[i];                                                           \
            const idx_t p = c[IN_DIGIT(key, g)]++;                                             \
            dk[p] = key;                                                                       \
            if (HAVE_VALUES)                                                                   \
                dv[p] = sv[i];                                                                 \
        }                                                                                      \
    }
CLSORT_DEFINE_IN_SCATTER(clsort_in_scatter_gg, global, global, idx_t)
CLSORT_DEFINE_IN_SCATTER(clsort_in_scatter_gl, global, local, idx_t)
CLSORT_DEFINE_IN_SCATTER(clsort_in_scatter_lg, local, global, idx_t)
CLSORT_DEFINE_IN_SCATTER(clsort_in_scatter_ll, local, local, idx_t)
CLSORT_DEFINE_IN_SCATTER(clsort_in_sub_scatter_gg, global, global, uint)
CLSORT_DEFINE_IN_SCATTER(clsort_in_sub_scatter_gl, global, local, uint)
CLSORT_DEFINE_IN_SCATTER(clsort_in_sub_scatter_lg, local, global, uint)
CLSORT_DEFINE_IN_SCATTER(clsort_in_sub_scatter_ll, local, local, uint)

/* A sub-bucket's positions: c0[] and c1[], where each value of the digits
 * g0 and g1 starts in sk[0, m); for a sub-bucket in global or local memory. */
#define CLSORT_DEFINE_IN_SUB_COUNTS(NAME, Q)                                                   \
    inline void NAME(Q const KEY_T *sk, idx_t m, in_digit g0, in_digit g1, uint *c0,         \
                     uint *c1)                                                                 \
    {                                                                                          \
        for (uint d = 0; d <= g0.mask; d++)                                                    \
            c0[d] = 0;                                                                         \
        for (uint d = 0; d <= g1.mask; d++)                                                    \
            c1[d] = 0;                                                                         \
        for (idx_t i = 0; i < m; i++) {                                                        \
            const KEY_T key = sk[i];                                                           \
            c0[IN_DIGIT(key, g0)]++;                                                           \
            c1[IN_DIGIT(key, g1)]++;                                                           \
        }                                                                                      \
        uint r0 = 0, r1 = 0;                                                                   \
        for (uint d = 0; d <= g0.mask; d++) {                                                  \
            const uint t = c0[d];                                                              \
            c0[d] = r0;                                                                        \
            r0 += t;                                                                           \
        }                                                                                      \
        for (uint d = 0; d <= g1.mask; d++) {                                                  \
            const uint t = c1[d];                                                              \
            c1[d] = r1;                                                                        \
            r1 += t;                                                                           \
        }                                                                                      \
    }
CLSORT_DEFINE_IN_SUB_COUNTS(clsort_in_sub_counts_g, global)
CLSORT_DEFINE_IN_SUB_COUNTS(clsort_in_sub_counts_l, local)

/* The bucket's m lines of dk (and dv) read first (clsort_touch). */
inline void clsort_in_touch(global KEY_T *dk, global VAL_T *dv, idx_t m,
                            uint descending)
{
    uchar sink = clsort_touch(dk, (ulong)m * sizeof(KEY_T));
#if HAVE_VALUES
    sink ^= clsort_touch(dv, (ulong)m * sizeof(VAL_T));
#endif
    if (sink == 0x5au && descending > 1u) /* never: keeps the reads */
        dk[0] = sink;
}

#if TILED_OK
/* MSD order from tiles (see clsort_radix_tiles): bucket d's keys lie in A
 * as one run per tile; tile t's run is [r0, r1) (tab: the tiles' digit
 * starts). */
inline void clsort_in_tile_run(const global uint *tab, uint t, uint d, idx_t n, ulong *r0,
                               ulong *r1)
{
    const ulong o = (ulong)t * OS_TILE;
    *r0 = o + tab[(ulong)t * RADIX + d];
    *r1 = d + 1 < RADIX ? o + tab[(ulong)t * RADIX + d + 1] : min(o + OS_TILE, (ulong)n);
}

/* Runs of 1 KB and less (u32 keys at 32M), each in another place: no
 * stream for the prefetchers to follow. Each run's lines are fetched
 * TILE_AHEAD runs before they are read (PoCL's clang: __builtin_prefetch):
 * tile t's run of p, if t < tiles. */
#define TILE_AHEAD 16u
#define CLSORT_DEFINE_IN_PREFETCH(NAME, T)                                                     \
    inline void NAME(const global T *p, const global uint *tab, uint t, uint tiles, uint d,   \
                     idx_t n)                                                                  \
    {                                                                                          \
        if (t < tiles) {                                                                       \
            ulong r0, r1;                                                                      \
            clsort_in_tile_run(tab, t, d, n, &r0, &r1);                                        \
            for (ulong a = r0; a < r1; a += 64 / sizeof(T))                                    \
                __builtin_prefetch(p + a);                                                     \
            if (r1 > r0)                                                                       \
                __builtin_prefetch(p + r1 - 1);                                                \
        }                                                                                      \
    }
CLSORT_DEFINE_IN_PREFETCH(clsort_in_prefetch_keys, KEY_T)
CLSORT_DEFINE_IN_PREFETCH(clsort_in_prefetch_values, VAL_T)

/* The bucket's runs, tile by tile, to gk[lo, hi) (and gv). */
inline void clsort_in_gather(const global KEY_T *ka, global KEY_T *gk,
                             const global VAL_T *va, global VAL_T *gv,
                             const global uint *tab, uint tiles, uint d, idx_t n, idx_t lo)
{
    idx_t o = lo;
    for (uint t = 0; t < tiles; t++) {
        ulong r0, r1;
        clsort_in_tile_run(tab, t, d, n, &r0, &r1);
        for (ulong i = r0; i < r1; i++, o++) {
            gk[o] = ka[i];
#if HAVE_VALUES
            gv[o] = va[i];
#endif
        }
    }
}
#endif

#if HAVE_NT && CLSORT_IN_LOCAL
/* The streamed route's first pass, to local dk (and dv) at pos[] by the
 * digit g: from A[lo, lo + m), or, tiled, from the tiles' runs. */
inline void clsort_in_scatter_first(const global KEY_T *ka, local KEY_T *dk,
                                    const global VAL_T *va, local VAL_T *dv,
                                    idx_t lo, idx_t m, idx_t *pos, in_digit g, bool tiled,
                                    const global uint *tab, uint tiles, uint d, idx_t n)
{
#if TILED_OK
    if (tiled) {
        for (uint t = 0; t < tiles; t++) {
            ulong r0, r1;
            clsort_in_tile_run(tab, t, d, n, &r0, &r1);
            /* the values are read first here, the keys by the count */
#if HAVE_VALUES
            clsort_in_prefetch_values(va, tab, t + TILE_AHEAD, tiles, d, n);
#endif
            clsort_in_scatter_gl(ka + r0, dk, va + r0, dv, (idx_t)(r1 - r0), pos,
                                 g);
        }
        return;
    }
#endif
    clsort_in_scatter_gl(ka + lo, dk, va + lo, dv, m, pos, g);
}
#endif

/* Run t of a bucket: tiled, the tiles' run of digit d; else [lo, hi). */
inline void clsort_in_run(bool tiled, const global uint *tab, uint t, uint d, idx_t n, idx_t lo,
                          idx_t hi, ulong *r0, ulong *r1)
{
    *r0 = lo;
    *r1 = hi;
#if TILED_OK
    if (tiled)
        clsort_in_tile_run(tab, t, d, n, r0, r1);
#endif
}

/* a bucket whose top varying digit takes at most this many values may be
 * a few keys, one to each value (clsort_radix_buckets) */
#define IN_FEW 16
/* Whether each value of the digit g is one key among the bucket's keys
 * (A[lo, hi), or, tiled, the tiles' runs tab, tiles, d): the OR and the
 * AND of the keys of each value agree. One read, without branches. */
inline bool clsort_in_one_key_each(const global KEY_T *ka, idx_t lo, idx_t hi, in_digit g,
                                   bool tiled, const global uint *tab, uint tiles, uint d,
                                   idx_t n)
{
    KEY_T o[RADIX], a[RADIX];
    for (uint e = 0; e <= g.mask; e++) {
        o[e] = 0;
        a[e] = (KEY_T)~(KEY_T)0;
    }
    const uint runs = tiled ? tiles : 1u;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong i = r0; i < r1; i++) {
            const KEY_T k = ka[i];
            const uint e = IN_DIGIT(k, g);
            o[e] |= k;
            a[e] &= k;
        }
    }
    bool one = true;
    for (uint e = 0; e <= g.mask; e++)
        one &= o[e] == a[e] || o[e] == 0;
    return one;
}
/* Buckets from this many keys first check whether they are one key or two */
#define IN_ONE_KEY_MIN 4096u
/* How many keys the bucket (A[lo, hi), or, tiled, the tiles' runs tab,
 * tiles, d) holds as the sort orders them (clsort_order_key: keys alike in
 * the bit window, -0.0 and +0.0, NaNs, are one key): 1, 2 (k0 the first's
 * order key, k1 the first unlike it, *c0 the keys like k0), or 0 for more.
 * One read in blocks of 256 keys compared without a branch, stopping at the
 * first block with a third key: a bucket of many keys costs a block. */
#define IN_ORDER(k) clsort_order_key(k, begin_bit, end_bit, descending)
inline uint clsort_in_few_keys(const global KEY_T *ka, idx_t lo, idx_t hi, bool tiled,
                               const global uint *tab, uint tiles, uint d, idx_t n,
                               uint begin_bit, uint end_bit, uint descending, KEY_T *k0,
                               KEY_T *k1, ulong *c0)
{
    const uint runs = tiled ? tiles : 1u;
    uint have = 0; /* keys known: 0, 1 (k0) or 2 (k0, k1) */
    ulong like0 = 0;
    /* the blocks' comparisons in explicit vectors (KV_, radix.cl) */
    KV_ORDER_SHAPE(ord, begin_bit, end_bit, descending);
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        if (r1 <= r0)
            continue;
        if (have == 0) {
            *k0 = IN_ORDER(ka[r0]);
            have = 1;
        }
        for (ulong b0 = r0; b0 < r1; b0 += 256) {
            const ulong b1 = min(b0 + 256, r1);
            if (have == 1) {
                KEY_T diff = 0;
                const kv_t v0 = (kv_t)*k0;
                kv_t vd = (kv_t)0;
                ulong i = b0;
                for (; i + KV_N <= b1; i += KV_N) {
                    kv_t x;
                    KV_IMAGE(KV_AT(ka + i), x);
                    vd |= KV_ORDER(x, ord) ^ v0;
                }
                KV_OR_INTO(vd, diff);
                for (; i < b1; i++)
                    diff |= IN_ORDER(ka[i]) ^ *k0;
                if (!diff) {
                    like0 += b1 - b0;
                    continue;
                }
                for (ulong i = b0; have == 1; i++)
                    if (IN_ORDER(ka[i]) != *k0) {
                        *k1 = IN_ORDER(ka[i]);
                        have = 2;
                    }
            }
            /* a third key; how many are k0 (each match adds -1 to its lane) */
            const kv_t v0 = (kv_t)*k0, v1 = (kv_t)*k1;
            km_t m3 = (km_t)0, ms = (km_t)0;
            ulong i = b0;
            for (; i + KV_N <= b1; i += KV_N) {
                kv_t x;
                KV_IMAGE(KV_AT(ka + i), x);
                x = KV_ORDER(x, ord);
                m3 |= (x != v0) & (x != v1);
                ms += x == v0;
            }
            KEY_T third = 0;
            KV_OR_INTO(as_kv(m3), third);
            long same = 0;
            KM_SUM_INTO(ms, same);
            same = -same;
            for (; i < b1; i++) {
                const KEY_T k = IN_ORDER(ka[i]);
                third |= (k != *k0) & (k != *k1);
                same += k == *k0;
            }
            if (third)
                return 0;
            like0 += (ulong)same;
        }
    }
    *c0 = like0;
    return have;
}

/* The bucket as it is (one key), A -> U: from the tiles' runs, or a copy. */
inline void clsort_in_copy(const global KEY_T *ka, global KEY_T *ku, const global VAL_T *va,
                           global VAL_T *vu, idx_t lo, idx_t hi, bool tiled,
                           const global uint *tab, uint tiles, uint d, idx_t n)
{
#if TILED_OK
    if (tiled) {
        clsort_in_gather(ka, ku, va, vu, tab, tiles, d, n, lo);
        return;
    }
#endif
    for (idx_t i = lo; i < hi; i++) {
        ku[i] = ka[i];
#if HAVE_VALUES
        vu[i] = va[i];
#endif
    }
}

#if HAVE_NT && CLSORT_IN_LOCAL
/* clsort_in_copy by streaming stores (see HAVE_NT): the runs gathered to
 * local memory, IN_NT_CHUNK elements at a time, each chunk then streamed
 * to U; the keys written from their one order key o instead where they are
 * that key's bits (by_key: integers sorted by all their bits), so that
 * only the values are read a second time. */
#define IN_NT_CHUNK 4096u
/* f staged elements streamed to U at out (the keys only where not written
 * from their key) */
inline void clsort_in_flush_nt(global KEY_T *ku, global VAL_T *vu, idx_t out,
                               const local KEY_T *lk, const local VAL_T *lv, uint f,
                               bool by_key)
{
    if (!by_key)
        clsort_nt_copy_keys(ku + out, lk, f);
#if HAVE_VALUES
    clsort_nt_copy_values(vu + out, lv, f);
#endif
}
inline void clsort_in_copy_nt(const global KEY_T *ka, global KEY_T *ku,
                              const global VAL_T *va, global VAL_T *vu, idx_t lo, idx_t hi,
                              bool tiled, const global uint *tab, uint tiles, uint d, idx_t n,
                              bool by_key, KEY_T o, uint descending, local KEY_T *lk,
                              local VAL_T *lv)
{
    const uint chunk = min((uint)CLSORT_IN_LOCAL, IN_NT_CHUNK);
#if CLSORT_KEY_KIND == 2
    by_key = false; /* -0.0 and +0.0, and every NaN, share an order key */
#else
    if (by_key) {
        const KEY_T k = clsort_order_key_inverse(o, descending);
        for (uint i = 0; i < chunk; i++)
            lk[i] = k;
        for (idx_t at = lo; at < hi; at += chunk)
            clsort_nt_copy_keys(ku + at, lk, (uint)min((idx_t)chunk, hi - at));
    }
#endif
    if (!tiled) {
        for (idx_t at = lo; at < hi; at += 1u << 30) { /* the copies count in uint */
            const uint c = (uint)min((idx_t)1 << 30, hi - at);
            if (!by_key)
                clsort_nt_copy_keys_g(ku + at, ka + at, c);
#if HAVE_VALUES
            clsort_nt_copy_values_g(vu + at, va + at, c);
#endif
        }
        clsort_nt_fence();
        return;
    }
#if TILED_OK
    idx_t out = lo;
    uint f = 0; /* elements staged */
    for (uint t = 0; t < tiles; t++) {
        ulong r0, r1;
        clsort_in_tile_run(tab, t, d, n, &r0, &r1);
#if HAVE_VALUES
        clsort_in_prefetch_values(va, tab, t + TILE_AHEAD, tiles, d, n);
#endif
        if (!by_key)
            clsort_in_prefetch_keys(ka, tab, t + TILE_AHEAD, tiles, d, n);
        while (r0 < r1) {
            const uint c = (uint)min((ulong)(chunk - f), r1 - r0);
            for (uint i = 0; i < c; i++) {
                if (!by_key)
                    lk[f + i] = ka[r0 + i];
#if HAVE_VALUES
                lv[f + i] = va[r0 + i];
#endif
            }
            f += c;
            r0 += c;
            if (f == chunk) {
                clsort_in_flush_nt(ku, vu, out, lk, lv, f, by_key);
                out += f;
                f = 0;
            }
        }
    }
    clsort_in_flush_nt(ku, vu, out, lk, lv, f, by_key);
#endif
    clsort_nt_fence();
}
#endif

#if !HAVE_VALUES && CLSORT_KEY_KIND != 2
/* Keys alone, integers sorted by all their bits: a bucket of one order key
 * o is one bit pattern, written to U[lo, hi) without reading the bucket a
 * second time (clsort_in_copy's read). Not floats: -0.0 and +0.0, and
 * every NaN, share an order key. */
inline void clsort_in_fill(global KEY_T *ku, idx_t lo, idx_t hi, KEY_T o, uint descending)
{
    const KEY_T k = clsort_order_key_inverse(o, descending);
    const kv_t v = (kv_t)k;
    ulong i = lo;
    for (; i + KV_N <= hi; i += KV_N)
        *(global kv_a *)(ku + i) = v;
    for (; i < hi; i++)
        ku[i] = k;
}
#endif

/* The two keys' elements, those whose order key is first's, then the
 * others, each in their order, A -> U from lo: one read. */
inline void clsort_in_split_two(const global KEY_T *ka, global KEY_T *ku,
                                const global VAL_T *va, global VAL_T *vu, idx_t lo, idx_t hi,
                                bool tiled, const global uint *tab, uint tiles, uint d, idx_t n,
                                uint begin_bit, uint end_bit, uint descending, KEY_T first,
                                ulong first_count)
{
    ulong p0 = lo, p1 = lo + first_count;
    const uint runs = tiled ? tiles : 1u;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong i = r0; i < r1; i++) {
            const KEY_T k = ka[i];
            const bool f = IN_ORDER(k) == first;
            const ulong at = f ? p0 : p1;
            ku[at] = k;
#if HAVE_VALUES
            vu[at] = va[i];
#endif
            p0 += f;
            p1 += !f;
        }
    }
}
/* A bucket of one common key among others (the sample's ONE_COMMON; o its
 * order key), A -> U: one read puts the others in U[lo, lo + m) in their
 * order, counting the common key's elements (c) and the others that the
 * sort puts before it (b); the others are sorted there by the bits below
 * the top digit (bits), in LSD order between U and B (h: the kernel's
 * counts), and moved apart around U[lo + b, lo + b + c), which then gets
 * the common key's elements: written from its key (keys alone, integers,
 * all bits), else copied in order by a second read. Stable. */
inline void clsort_in_common(const global KEY_T *ka, global KEY_T *ku, global KEY_T *kb,
                             const global VAL_T *va, global VAL_T *vu, global VAL_T *vb,
                             idx_t lo, idx_t hi, bool tiled, const global uint *tab,
                             uint tiles, uint d, idx_t n, uint begin_bit, uint end_bit,
                             uint descending, uint bits, KEY_T o, uint *h)
{
    idx_t pos[RADIX];
    const uint runs = tiled ? tiles : 1u;
    idx_t m = 0, b = 0, c = 0;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong i = r0; i < r1; i++) {
            const KEY_T k = ka[i];
            const KEY_T x = IN_ORDER(k);
            if (x == o) {
                c++;
                continue;
            }
            b += x < o;
            ku[lo + m] = k;
#if HAVE_VALUES
            vu[lo + m] = va[i];
#endif
            m++;
        }
    }
    /* the others' digits that vary, each a pass (U -> B, B -> U, ...) */
    bool in_u = true;
    if (m > 1) {
        const uint rb = m < 2 * RADIX ? IN_MIN_BITS : CLSORT_RADIX_BITS;
        const uint rr = 1u << rb, np = (bits + rb - 1) / rb;
        for (uint e = 0; e < np * rr; e++)
            h[e] = 0;
        clsort_in_count(ku, lo, lo + m, np, begin_bit, bits, rb, rr, descending, 0u, h);
        for (uint j = 0; j < np; j++) {
            const in_digit g = clsort_in_digit(begin_bit, bits, rb, j, descending, 0u);
            if (!clsort_in_varies(h, j, rr, g.mask, m))
                continue;
            clsort_in_starts(h, j, rr, g.mask, pos);
            if (in_u)
                clsort_in_scatter_gg(ku + lo, kb + lo, vu + lo, vb + lo, m, pos, g);
            else
                clsort_in_scatter_gg(kb + lo, ku + lo, vb + lo, vu + lo, m, pos, g);
            in_u = !in_u;
        }
    }
    /* the others apart: those after the common key c places on */
    if (in_u) {
        for (idx_t i = m; i-- > b;) {
            ku[lo + i + c] = ku[lo + i];
#if HAVE_VALUES
            vu[lo + i + c] = vu[lo + i];
#endif
        }
    } else {
        for (idx_t i = 0; i < m; i++) {
            const idx_t at = lo + i + (i >= b ? c : 0);
            ku[at] = kb[lo + i];
#if HAVE_VALUES
            vu[at] = vb[lo + i];
#endif
        }
    }
#if !HAVE_VALUES && CLSORT_KEY_KIND != 2
    if (begin_bit == 0 && end_bit == KEY_BITS) {
        clsort_in_fill(ku, lo + b, lo + b + c, o, descending);
        return;
    }
#endif
    idx_t at = lo + b;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong i = r0; i < r1; i++)
            if (IN_ORDER(ka[i]) == o) {
                ku[at] = ka[i];
#if HAVE_VALUES
                vu[at] = va[i];
#endif
                at++;
            }
    }
}

#if CLSORT_IN_LOCAL && IN_MAX_PASSES >= 4
#define SET_OK 1
/* Buckets sorted by their set of keys (clsort_in_by_set): from SET_MIN keys,
 * where LSD order would take SET_PASSES passes or more (64-bit keys; 32-bit
 * keys in a span bucket of the sample's map, sorted by all their bits), with
 * at most SET_MAX distinct keys (in a table of SET_SLOTS slots: at most
 * half full) */
#define SET_PASSES 4u
#define SET_MIN 4096u
#define SET_MAX 8192u
#define SET_SLOTS_LOG 14u
#define SET_SLOTS (1u << SET_SLOTS_LOG)
/* local bytes: the table's keys and counts, the set and its copy, and a
 * slot number for each of the bucket's m keys */
#define SET_BYTES(m) \
    (SET_SLOTS * (sizeof(KEY_T) + 4u) + 2u * SET_MAX * sizeof(KEY_T) + (ulong)(m) * 2u)

/* Order key o's slot in a table of 2^lg slots (tk: keys, tc: counts, 0
 * empty): its own, or the empty slot where it goes; linear probing */
inline uint clsort_set_find(const local KEY_T *tk, const local uint *tc, KEY_T o, uint lg)
{
    uint slot = clsort_set_hash((set_t)o, lg);
    while (tc[slot] && tk[slot] != o)
        slot = (slot + 1u) & ((1u << lg) - 1u);
    return slot;
}

/* Whether the bucket's first SET_GLANCE keys (or all, if fewer) repeat
 * enough for its set to pay: at least SET_GLANCE_REPEATS keys seen before,
 * and Chao's estimate of the bucket's distinct keys (clsort_chao1: a few
 * heavy keys do not hide a long tail of rare ones) at most SET_MAX and a
 * SET_REPEAT-th of its m keys. A table of its own (in lk, as the set's: 2
 * SET_GLANCE slots), so that buckets of many distinct keys do not clear
 * the set's table. */
#define SET_GLANCE 256u
#define SET_GLANCE_REPEATS 8u
#define SET_REPEAT 4u
inline bool clsort_set_glance(const global KEY_T *ka, idx_t lo, idx_t hi, bool tiled,
                              const global uint *tab, uint tiles, uint d, idx_t n,
                              uint begin_bit, uint end_bit, uint descending, local KEY_T *lk)
{
    const uint lg = 9u; /* 2 SET_GLANCE slots */
    local KEY_T *tk = lk;
    local uint *tc = (local uint *)(lk + (1u << lg));
    for (uint s = 0; s < (1u << lg); s++)
        tc[s] = 0;
    const uint runs = tiled ? tiles : 1u;
    uint seen = 0, distinct = 0;
    for (uint t = 0; t < runs && seen < SET_GLANCE; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong j = r0; j < r1 && seen < SET_GLANCE; j++, seen++) {
            const KEY_T o = IN_ORDER(ka[j]);
            const uint s = clsort_set_find(tk, tc, o, lg);
            distinct += tc[s] == 0;
            tk[s] = o;
            tc[s]++;
        }
    }
    if (seen - distinct < SET_GLANCE_REPEATS)
        return false;
    ulong f1 = 0, f2 = 0;
    for (uint s = 0; s < (1u << lg); s++) {
        f1 += tc[s] == 1;
        f2 += tc[s] == 2;
    }
    return clsort_chao1(distinct, f1, f2) <= min((ulong)SET_MAX, (ulong)(hi - lo) / SET_REPEAT);
}

/* The set's m distinct order keys a[0, m), sorted by the digits that vary
 * among them, LSD order between a and t; returns where they end */
inline local KEY_T *clsort_set_sort(local KEY_T *a, local KEY_T *t, uint m)
{
    KEY_T any = 0, all = (KEY_T)~(KEY_T)0;
    for (uint i = 0; i < m; i++) {
        any |= a[i];
        all &= a[i];
    }
    const KEY_T vary = any ^ all;
    for (uint sh = 0; sh < KEY_BITS; sh += 8) {
        if (!((vary >> sh) & 255u))
            continue;
        uint c[256];
        for (uint e = 0; e < 256; e++)
            c[e] = 0;
        for (uint i = 0; i < m; i++)
            c[(uint)(a[i] >> sh) & 255u]++;
        uint run = 0;
        for (uint e = 0; e < 256; e++) {
            const uint x = c[e];
            c[e] = run;
            run += x;
        }
        for (uint i = 0; i < m; i++)
            t[c[(uint)(a[i] >> sh) & 255u]++] = a[i];
        local KEY_T *x = a;
        a = t;
        t = x;
    }
    return a;
}

/* A bucket of many keys and few distinct ones (the set: Zipf's keys, which
 * LSD order would move through every digit), A -> U: one read puts each
 * key's order key in a hash table in local memory (lk: SET_BYTES), counting
 * it and noting each key's slot; the set is sorted; each slot gets its
 * keys' first place in that order; a second read puts each key at its
 * slot's next place (stable). Keys alone that are their order key
 * (integers, all their bits) are written from the set instead. Returns
 * false, having written nothing, where the bucket has more than SET_MAX
 * distinct keys, or its first keys do not repeat (clsort_set_glance). */
inline bool clsort_in_by_set(const global KEY_T *ka, global KEY_T *ku,
                             const global VAL_T *va, global VAL_T *vu, idx_t lo, idx_t hi,
                             bool tiled, const global uint *tab, uint tiles, uint d, idx_t n,
                             uint begin_bit, uint end_bit, uint descending, local KEY_T *lk)
{
    local KEY_T *tk = lk, *set = lk + SET_SLOTS + SET_SLOTS * 4u / sizeof(KEY_T);
    local uint *tc = (local uint *)(lk + SET_SLOTS);
    local ushort *slot_of = (local ushort *)(set + 2u * SET_MAX);
    if (!clsort_set_glance(ka, lo, hi, tiled, tab, tiles, d, n, begin_bit, end_bit, descending,
                           lk))
        return false;
    for (uint s = 0; s < SET_SLOTS; s++)
        tc[s] = 0;
    const uint runs = tiled ? tiles : 1u;
    uint m = 0, i = 0;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong j = r0; j < r1; j++, i++) {
            const KEY_T o = IN_ORDER(ka[j]);
            const uint s = clsort_set_find(tk, tc, o, SET_SLOTS_LOG);
            if (!tc[s]) {
                if (m == SET_MAX)
                    return false;
                tk[s] = o;
                set[m++] = o;
            }
            tc[s]++;
            slot_of[i] = (ushort)s;
        }
    }
    const local KEY_T *sorted = clsort_set_sort(set, set + SET_MAX, m);
#if !HAVE_VALUES && CLSORT_KEY_KIND != 2
    if (begin_bit == 0 && end_bit == KEY_BITS) {
        idx_t at = lo;
        for (uint e = 0; e < m; e++) {
            const uint c = tc[clsort_set_find(tk, tc, sorted[e], SET_SLOTS_LOG)];
            clsort_in_fill(ku, at, at + c, sorted[e], descending);
            at += c;
        }
        return true;
    }
#endif
    /* each slot's first place, plus one: a slot keeps a count other than
     * 0, which marks it used to the lookups that follow */
    uint at = 1;
    for (uint e = 0; e < m; e++) {
        const uint s = clsort_set_find(tk, tc, sorted[e], SET_SLOTS_LOG), c = tc[s];
        tc[s] = at;
        at += c;
    }
    global KEY_T *uk = ku + lo;
    global VAL_T *uv = vu + lo;
    clsort_in_touch(uk, uv, hi - lo, descending); /* the destination's lines */
    i = 0;
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong j = r0; j < r1; j++, i++) {
            const uint p = tc[slot_of[i]]++ - 1u;
            uk[p] = ka[j];
#if HAVE_VALUES
            uv[p] = va[j];
#endif
        }
    }
    return true;
}
#else
#define SET_OK 0
#endif

/* Buckets of a few distinct keys, more than clsort_in_few_keys takes (the
 * suite's 1024 values: about four keys a bucket), sorted by their ranks
 * (clsort_in_by_ranks): where the bucket's first RANK_GLANCE keys are at
 * most RANK_GLANCE_MAX distinct order keys, a field of RANK_FIELD_BITS
 * bits of the order key that tells those apart names each key (a key the
 * glance did not see may share a value with another: the bucket then
 * takes the passes after the read); one read counts the field's
 * values and checks that each value is one key (the OR and the AND of its
 * keys agree), and a second puts each key at its rank's next place. One
 * read and one pass, where LSD order counts every digit and moves the keys
 * through each that varies. */
#define RANK_GLANCE 256u
#define RANK_GLANCE_MAX 16u
#define RANK_FIELD_BITS 8u
#define RANK_FIELD (1u << RANK_FIELD_BITS)
#define RANK_KEYS_MAX 256u /* distinct keys the read may find */
inline bool clsort_in_by_ranks(const global KEY_T *ka, global KEY_T *ku,
                               const global VAL_T *va, global VAL_T *vu, idx_t lo, idx_t hi,
                               bool tiled, const global uint *tab, uint tiles, uint d, idx_t n,
                               uint begin_bit, uint end_bit, uint descending, uint bits)
{
    const uint runs = tiled ? tiles : 1u;
    /* the glance: the first keys' distinct order keys */
    KEY_T g[RANK_GLANCE_MAX];
    uint ng = 0, seen = 0;
    for (uint t = 0; t < runs && seen < RANK_GLANCE; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
        for (ulong j = r0; j < r1 && seen < RANK_GLANCE; j++, seen++) {
            const KEY_T o = IN_ORDER(ka[j]);
            bool known = false;
            for (uint e = 0; e < ng; e++)
                known |= g[e] == o;
            if (!known) {
                if (ng == RANK_GLANCE_MAX)
                    return false;
                g[ng++] = o;
            }
        }
    }
    /* the highest field of the bucket's bits that tells them apart */
    uint sh = bits;
    bool found = false;
    while (!found && sh-- > 0) {
        uint used[RANK_FIELD / 32] = {0};
        found = true;
        for (uint e = 0; e < ng; e++) {
            const uint v = (uint)(g[e] >> sh) & (RANK_FIELD - 1u);
            found &= !((used[v / 32] >> (v % 32)) & 1u);
            used[v / 32] |= 1u << (v % 32);
        }
    }
    if (!found)
        return false;
    /* the read: each value's count, and the OR and AND of its keys */
    uint c[RANK_FIELD];
    KEY_T vo[RANK_FIELD], vand[RANK_FIELD];
    for (uint e = 0; e < RANK_FIELD; e++) {
        c[e] = 0;
        vo[e] = 0;
        vand[e] = (KEY_T)~(KEY_T)0;
    }
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
#if TILED_OK
        if (tiled)
            clsort_in_prefetch_keys(ka, tab, t + TILE_AHEAD, tiles, d, n);
#endif
        for (ulong j = r0; j < r1; j++) {
            const KEY_T o = IN_ORDER(ka[j]);
            const uint e = (uint)(o >> sh) & (RANK_FIELD - 1u);
            c[e]++;
            vo[e] |= o;
            vand[e] &= o;
        }
    }
    /* the keys, sorted (insertion: a few), each value's first place */
    KEY_T ks[RANK_KEYS_MAX];
    ushort es[RANK_KEYS_MAX];
    uint m = 0;
    for (uint e = 0; e < RANK_FIELD; e++) {
        if (!c[e])
            continue;
        if (vo[e] != vand[e] || m == RANK_KEYS_MAX)
            return false; /* two keys share the field, or many keys: nothing written */
        uint i = m++;
        for (; i > 0 && ks[i - 1] > vo[e]; i--) {
            ks[i] = ks[i - 1];
            es[i] = es[i - 1];
        }
        ks[i] = vo[e];
        es[i] = (ushort)e;
    }
#if !HAVE_VALUES && CLSORT_KEY_KIND != 2
    if (begin_bit == 0 && end_bit == KEY_BITS) {
        idx_t at = lo;
        for (uint i = 0; i < m; i++) {
            clsort_in_fill(ku, at, at + c[es[i]], ks[i], descending);
            at += c[es[i]];
        }
        return true;
    }
#endif
    idx_t pos[RANK_FIELD];
    idx_t at = 0;
    for (uint i = 0; i < m; i++) {
        pos[es[i]] = at;
        at += c[es[i]];
    }
    global KEY_T *uk = ku + lo;
    global VAL_T *uv = vu + lo;
    clsort_in_touch(uk, uv, hi - lo, descending); /* the destination's lines */
    for (uint t = 0; t < runs; t++) {
        ulong r0, r1;
        clsort_in_run(tiled, tab, t, d, n, lo, hi, &r0, &r1);
#if TILED_OK && HAVE_VALUES
        if (tiled)
            clsort_in_prefetch_values(va, tab, t + TILE_AHEAD, tiles, d, n);
#endif
        for (ulong j = r0; j < r1; j++) {
            const KEY_T k = ka[j];
            const idx_t p = pos[(uint)(IN_ORDER(k) >> sh) & (RANK_FIELD - 1u)]++;
            uk[p] = k;
#if HAVE_VALUES
            uv[p] = va[j];
#endif
        }
    }
    return true;
}

#undef IN_ORDER

/* Keys a chunk of clsort_radix_one_copy's (without tiles); from tiles, at
 * most ONE_TILE_CHUNKS chunks a bucket */
#define ONE_CHUNK 65536u
#define ONE_TILE_CHUNKS 256u

/* Whether the sample's area `one` (clsort_radix_sample) holds the plan's top
 * pass's digits (MSD order by another pass leaves them aside) */
inline bool clsort_one_ours(const global uint *one, const global uint *state)
{
    return state[ST_MSD] && one[ONE_PASS(RADIX)] == state[ST_MSD];
}
/* Whether it does and marks word `at` (a digit's ONE_CAND or ONE_COMMON, a
 * slot's ONE_SHARE_DIGIT) */
inline bool clsort_one_marked(const global uint *one, const global uint *state, uint at)
{
    return clsort_one_ours(one, state) && one[at];
}

/* Where bucket d of the top pass starts in A (d = RADIX: n); bases' first
 * row (portion 0) holds where each digit starts overall */
inline idx_t clsort_bucket_at(const global idx_t *bases, uint top, uint d, idx_t n)
{
    return d < RADIX ? bases[top * RADIX + d] : n;
}

/* The shared buckets (radix_layout.h, SHARE_MAX): chunk ch of a bucket is
 * a group of its tiles' runs (tiled), or a slice of A[lo, hi). Its runs
 * are [t0, t1); run t is [r0, r1). */
inline void clsort_share_runs(bool tiled, uint tiles, uint ch, uint *t0, uint *t1)
{
    if (!tiled) {
        *t0 = 0;
        *t1 = 1;
        return;
    }
    const uint per = (tiles + SHARE_CHUNKS - 1) / SHARE_CHUNKS;
    *t0 = min(ch * per, tiles);
    *t1 = min(*t0 + per, tiles);
}
inline void clsort_share_run(bool tiled, const global uint *tab, uint t, uint d, idx_t n,
                             idx_t lo, idx_t hi, uint ch, ulong *r0, ulong *r1)
{
#if TILED_OK
    if (tiled) {
        clsort_in_tile_run(tab, t, d, n, r0, r1);
        return;
    }
#endif
    const ulong m = hi - lo;
    *r0 = lo + m * ch / SHARE_CHUNKS;
    *r1 = lo + m * (ch + 1) / SHARE_CHUNKS;
}

/* Key e of a chunk's table t (SHARE_TABLE_WORDS) */
inline KEY_T clsort_share_key(const global uint *t, uint e)
{
    return (KEY_T)((ulong)t[1 + 2 * e] | (ulong)t[2 + 2 * e] << 32);
}

/* Slot s's bucket's keys (the union of its chunks' tables tb, in the
 * sort's order, to u) and how many of them each chunk before ch and all
 * chunks hold (before, total); returns their number, or SHARE_KEYS + 1
 * where they are more than SHARE_KEYS */
inline uint clsort_share_keys(const global uint *tb, uint ch, KEY_T *u, idx_t *before,
                              idx_t *total)
{
    uint nu = 0;
    for (uint c = 0; c < SHARE_CHUNKS; c++) {
        const global uint *t = tb + c * SHARE_TABLE_WORDS;
        for (uint e = 0; e < t[0]; e++) {
            const KEY_T x = clsort_share_key(t, e);
            uint j = 0;
            while (j < nu && u[j] != x)
                j++;
            if (j == nu) {
                if (nu == SHARE_KEYS)
                    return SHARE_KEYS + 1;
                u[nu++] = x;
            }
        }
    }
    for (uint i = 1; i < nu; i++) { /* insertion sort: at most SHARE_KEYS keys */
        const KEY_T x = u[i];
        uint j = i;
        for (; j > 0 && u[j - 1] > x; j--)
            u[j] = u[j - 1];
        u[j] = x;
    }
    for (uint j = 0; j < nu; j++)
        before[j] = total[j] = 0;
    for (uint c = 0; c < SHARE_CHUNKS; c++) {
        const global uint *t = tb + c * SHARE_TABLE_WORDS;
        for (uint e = 0; e < t[0]; e++) {
            const KEY_T x = clsort_share_key(t, e);
            uint j = 0;
            while (u[j] != x)
                j++;
            const uint k = t[1 + 2 * SHARE_KEYS + e];
            total[j] += k;
            if (c < ch)
                before[j] += k;
        }
    }
    return nu;
}

/* The slot of bucket d among the shared buckets whose chunks the buckets'
 * launch sorts (-1: none): not failed, at most SHARE_KEYS keys */
inline int clsort_share_slot(const global uint *one, const global uint *state,
                             const global uint *share, uint d)
{
    if (!clsort_one_ours(one, state))
        return -1;
    for (uint s = 0; s < SHARE_MAX; s++)
        if (one[ONE_SHARE_DIGIT(RADIX) + s] == d + 1) {
            if (one[ONE_SHARE_FAILED(RADIX) + s])
                return -1;
            KEY_T u[SHARE_KEYS];
            idx_t before[SHARE_KEYS], total[SHARE_KEYS];
            return clsort_share_keys(share + s * SHARE_CHUNKS * SHARE_TABLE_WORDS, 0, u, before,
                                     total) <= SHARE_KEYS
                       ? (int)s
                       : -1;
        }
    return -1;
}

/* MSD order's big buckets that the sample found one key (ONE_CAND: past
 * TILE_ONE_KEY_MAX times the plan's bound): copied A -> U by every
 * work-item, chunk by chunk (ONE_CHUNK keys, or, from tiles, the runs of a
 * group of tiles), each chunk's keys compared with the candidate's key; a
 * chunk with another key marks the bucket (ONE_FAILED), which
 * clsort_radix_buckets then sorts after all, by one work-item (it skips
 * the others). With TILED_FILL every bucket (ONE_HAS) is written from its
 * key so, chunk by chunk, and the buckets' launch does nothing. Then each
 * chunk of the shared buckets (radix_layout.h, SHARE_MAX) counts its keys
 * into its table. Runs after the top pass, before the buckets; does
 * nothing without candidates.
 * Work-groups of one work-item, any number. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_one_copy(CLSORT_PARAMS(clsort_radix_one_copy))
{
    global uint *one = scratch + one_off;
    if (!clsort_one_ours(one, state))
        return;
    const uint top = state[ST_MSD] - 1;
    ku += ku_off;
    vu += vu_off;
#if TILED_OK
    /* TILED_FILL: every key counted as its bucket's, written from it (the
     * tiles have sorted nothing) */
    const bool fill = state[ST_TILED] == TILED_FILL;
    const bool tiled = state[ST_TILED] != 0 && !fill;
    const global uint *tab = scratch + table_off;
    const uint tiles = tiled ? (uint)(((ulong)n + OS_TILE - 1) / OS_TILE) : 1u;
    /* tiles a chunk: at most ONE_TILE_CHUNKS chunks a bucket (each chunk
     * sums the bucket's runs in the tiles before it, up to all of them) */
    const uint per = (tiles + ONE_TILE_CHUNKS - 1) / ONE_TILE_CHUNKS;
#else
    const bool fill = false, tiled = false;
    const global uint *tab = 0;
    const uint tiles = 1u, per = 1u;
#endif
    for (;;) {
        /* chunk c of the candidates' buckets (TILED_FILL: of every
         * bucket), in digit order */
        uint c = atomic_inc(&one[ONE_NEXT(RADIX)]), d = 0;
        ulong lo = 0, hi = 0, chunks = 0;
        for (; d < RADIX; d++) {
            if (!one[(fill ? ONE_HAS(RADIX) : ONE_CAND) + d])
                continue;
            lo = clsort_bucket_at(bases, top, d, n);
            hi = clsort_bucket_at(bases, top, d + 1, n);
#if TILED_OK
            chunks = tiled ? (tiles + per - 1) / per : (hi - lo + ONE_CHUNK - 1) / ONE_CHUNK;
#else
            chunks = (hi - lo + ONE_CHUNK - 1) / ONE_CHUNK;
#endif
            if (hi <= lo)
                chunks = 0;
            if (c < chunks)
                break;
            c -= (uint)chunks;
        }
        if (d == RADIX)
            break;
        KEY_T key = clsort_one_key(one, d);
        /* the chunk's keys from A[r0, r1) to U from o */
        ulong r0 = lo + (ulong)c * ONE_CHUNK, r1 = min(r0 + ONE_CHUNK, hi), o = r0;
#if FILL_OK
        if (fill) {
            clsort_in_fill(ku, r0, r1, key, descending);
            continue;
        }
#endif
#if TILED_OK
        if (tiled) {
            o = lo;
            for (uint t = 0; t < c * per; t++) {
                ulong a0, a1;
                clsort_in_tile_run(tab, t, d, n, &a0, &a1);
                o += a1 - a0;
            }
        }
#endif
        KEY_T diff = 0;
        const uint runs = tiled ? min(per, tiles - c * per) : 1u;
        for (uint t = 0; t < runs; t++) {
#if TILED_OK
            if (tiled)
                clsort_in_tile_run(tab, c * per + t, d, n, &r0, &r1);
#endif
            for (ulong i = r0; i < r1; i++, o++) {
                const KEY_T k = ka[i];
                diff |= clsort_order_key(k, begin_bit, end_bit, descending) ^ key;
                ku[o] = k;
#if HAVE_VALUES
                vu[o] = va[i];
#endif
            }
        }
        if (diff)
            one[ONE_FAILED(RADIX) + d] = 1;
    }
    /* the shared buckets' chunks: each chunk's keys (order keys) counted
     * into its table; more than SHARE_KEYS fail the bucket */
    global uint *share = scratch + share_off;
    for (;;) {
        const uint c = atomic_inc(&one[ONE_SHARE_NEXT(RADIX)]);
        const uint s = c / SHARE_CHUNKS, ch = c % SHARE_CHUNKS;
        if (s >= SHARE_MAX || !one[ONE_SHARE_DIGIT(RADIX) + s])
            return;
        if (one[ONE_SHARE_FAILED(RADIX) + s]) /* another chunk's keys were many */
            continue;
        const uint d = one[ONE_SHARE_DIGIT(RADIX) + s] - 1;
        const idx_t lo = clsort_bucket_at(bases, top, d, n);
        const idx_t hi = clsort_bucket_at(bases, top, d + 1, n);
        KEY_T u[SHARE_KEYS];
        uint k[SHARE_KEYS], nu = 0, t0, t1, j = 0;
        /* the last key (cur, its slot j) and how many keys in a row are it
         * (run): counted in registers, into k[j] where another comes */
        KEY_T cur = 0;
        uint run = 0;
        bool over = false;
        clsort_share_runs(tiled, tiles, ch, &t0, &t1);
        for (uint t = t0; t < t1 && !over; t++) {
            ulong r0, r1;
            clsort_share_run(tiled, tab, t, d, n, lo, hi, ch, &r0, &r1);
            for (ulong i = r0; i < r1; i++) {
                /* 16 keys at once where they are all the last key (few
                 * keys come in long runs), without branches */
                if (run && i + 16 <= r1) {
                    KEY_T diff = 0;
                    for (uint e = 0; e < 16; e++)
                        diff |= clsort_order_key(ka[i + e], begin_bit, end_bit, descending) ^ cur;
                    if (!diff) {
                        run += 16;
                        i += 15;
                        continue;
                    }
                }
                const KEY_T x = clsort_order_key(ka[i], begin_bit, end_bit, descending);
                if (run && x == cur) {
                    run++;
                    continue;
                }
                if (run)
                    k[j] += run;
                j = 0;
                while (j < nu && u[j] != x)
                    j++;
                if (j == nu) {
                    if (nu == SHARE_KEYS) {
                        over = true;
                        break;
                    }
                    u[nu] = x;
                    k[nu++] = 0;
                }
                cur = x;
                run = 1;
            }
        }
        if (run && !over)
            k[j] += run;
        if (over) {
            one[ONE_SHARE_FAILED(RADIX) + s] = 1;
            continue;
        }
        global uint *tb = share + (s * SHARE_CHUNKS + ch) * SHARE_TABLE_WORDS;
        tb[0] = nu;
        for (uint e = 0; e < nu; e++) {
            tb[1 + 2 * e] = (uint)u[e];
            tb[2 + 2 * e] = (uint)((ulong)u[e] >> 32);
            tb[1 + 2 * SHARE_KEYS + e] = k[e];
        }
    }
}

/* MSD order (the plan's ST_MSD; CPU shape): after the top digit's pass has
 * put every key of digit d into one bucket of temp A, work-group d sorts its
 * bucket by the bits below that digit, alone and in LSD order: one read
 * counts all its digits (and which bits vary inside the bucket, so that a
 * digit that is the same for all its keys is skipped), then each pass moves
 * the bucket between U and B (or local memory), never into A, the last
 * into the caller's buffer. A bucket of n / RADIX keys stays in cache
 * through its passes, where an LSD pass over the whole input writes to
 * RADIX places in memory. Launched with RADIX work-groups of one work-item,
 * each taking one bucket, and more before them that take the shared
 * buckets' chunks; does nothing when the plan chose LSD order. */
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clsort_radix_buckets(CLSORT_PARAMS(clsort_radix_buckets))
{
    /* TILED_FILL: clsort_radix_one_copy has written every bucket */
    if (!state[ST_MSD] || state[ST_TILED] == TILED_FILL)
        return;
    const uint top = state[ST_MSD] - 1;
    /* The bucket: the next not taken (a counter zeroed with the sort's
     * scratch), not the group's number. PoCL hands each thread a run of
     * groups at once (a sixteenth of them on 16 threads): numbered buckets
     * would be shared out before any ran, and a thread that the system
     * holds back would hold up the whole phase with its run. Taken at run
     * time, the buckets go to the threads that are running. */
    const uint ticket = atomic_inc(&next[next_off]);
    global uint *one = next + one_off;
    const global uint *share = next + share_off;
    ku += ku_off;
    vu += vu_off;
#if TILED_OK
    /* MSD order from tiles: the bucket's keys lie in A as one run per tile */
    const bool tiled = state[ST_TILED] != 0;
    const global uint *tab = next + table_off;
    const uint tiles = tiled ? (uint)(((ulong)n + OS_TILE - 1) / OS_TILE) : 1u;
#else
    const bool tiled = false;
    const global uint *tab = 0;
    const uint tiles = 1;
#endif
    /* The first tickets, as many as the launch's groups past RADIX, take
     * the shared buckets' chunks (radix_layout.h, SHARE_MAX) one after
     * another: each chunk's keys to their places, by the chunks' tables. */
    const uint loopers = (uint)get_num_groups(0) - RADIX;
    if (ticket < loopers) {
        for (;;) {
            const uint c = atomic_inc(&one[ONE_SHARE_TASK(RADIX)]);
            const uint s = c / SHARE_CHUNKS, ch = c % SHARE_CHUNKS;
            if (s >= SHARE_MAX || !clsort_one_marked(one, state, ONE_SHARE_DIGIT(RADIX) + s))
                return;
            if (one[ONE_SHARE_FAILED(RADIX) + s])
                continue;
            const uint d = one[ONE_SHARE_DIGIT(RADIX) + s] - 1;
            const idx_t lo = clsort_bucket_at(bases, top, d, n);
            const idx_t hi = clsort_bucket_at(bases, top, d + 1, n);
            KEY_T u[SHARE_KEYS];
            idx_t pos[SHARE_KEYS], total[SHARE_KEYS];
            const uint nu = clsort_share_keys(share + s * SHARE_CHUNKS * SHARE_TABLE_WORDS, ch,
                                              u, pos, total);
            if (nu == 0 || nu > SHARE_KEYS)
                continue; /* (more: the bucket's own work-item sorts it) */
            idx_t at = lo;
            for (uint j = 0; j < nu; j++) {
                pos[j] += at;
                at += total[j];
            }
            /* the last key's slot (j) and its next place (p), in registers */
            uint t0, t1, j = 0;
            idx_t p = pos[0];
            clsort_share_runs(tiled, tiles, ch, &t0, &t1);
            for (uint t = t0; t < t1; t++) {
                ulong r0, r1;
                clsort_share_run(tiled, tab, t, d, n, lo, hi, ch, &r0, &r1);
#if HAVE_NT
                if (nu == 1 && n >= CLSORT_NT_MIN) { /* a bucket of one key: streamed */
                    clsort_nt_copy_keys_g(ku + p, ka + r0, (uint)(r1 - r0));
#if HAVE_VALUES
                    clsort_nt_copy_values_g(vu + p, va + r0, (uint)(r1 - r0));
#endif
                    p += r1 - r0;
                    continue;
                }
#endif
                for (ulong i = r0; i < r1; i++) {
                    const KEY_T k = ka[i];
                    const KEY_T x = clsort_order_key(k, begin_bit, end_bit, descending);
                    if (u[j] != x) { /* else the key before's */
                        pos[j] = p;
                        j = 0;
                        while (j + 1 < nu && u[j] != x)
                            j++;
                        p = pos[j];
                    }
                    ku[p] = k;
#if HAVE_VALUES
                    vu[p] = va[i];
#endif
                    p++;
                }
            }
#if HAVE_NT
            clsort_nt_fence();
#endif
        }
    }
    const uint d = ticket - loopers;
    const idx_t lo = clsort_bucket_at(bases, top, d, n);
    const idx_t hi = clsort_bucket_at(bases, top, d + 1, n);
    if (hi <= lo)
        return;
    /* a bucket of one key that clsort_radix_one_copy has copied */
    if (clsort_one_marked(one, state, ONE_CAND + d) && !one[ONE_FAILED(RADIX) + d])
        return;
    /* a shared bucket, whose chunks the first tickets sort */
    if (clsort_share_slot(one, state, share, d) >= 0) {
        atomic_inc(&state[ST_SHARED]);
        return;
    }
    /* X of the passes below (and the set's table): a buffer of the worker
     * thread that stays in cache from bucket to bucket */
#if CLSORT_IN_LOCAL
    local KEY_T lk[CLSORT_IN_LOCAL];
#if HAVE_VALUES
    local VAL_T lv[CLSORT_IN_LOCAL];
#else
    local VAL_T *const lv = 0; /* keys alone: no values */
#endif
#else
    local KEY_T *const lk = 0;
    local VAL_T *const lv = 0;
#endif
    /* one key or two in the sort's order (few distinct values): a copy, or
     * a split in one pass with the key the sort puts first first, A -> U,
     * without the count; else one common key among others (below) */
    bool common = false;
    if (hi - lo >= IN_ONE_KEY_MIN) {
        KEY_T o0 = 0, o1 = 0;
        ulong c0 = 0;
        const uint few = clsort_in_few_keys(ka, lo, hi, tiled, tab, tiles, d, n, begin_bit,
                                            end_bit, descending, &o0, &o1, &c0);
        if (few == 1) {
#if !HAVE_VALUES && CLSORT_KEY_KIND != 2
            if (begin_bit == 0 && end_bit == KEY_BITS) {
                clsort_in_fill(ku, lo, hi, o0, descending);
                return;
            }
#endif
#if HAVE_NT && CLSORT_IN_LOCAL
            if (n >= CLSORT_NT_MIN) {
                clsort_in_copy_nt(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n,
                                  begin_bit == 0 && end_bit == KEY_BITS,
                                  o0, descending, lk, lv);
                return;
            }
#endif
            clsort_in_copy(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n);
            return;
        }
        if (few == 2) {
            const bool o0_first = o0 < o1;
            clsort_in_split_two(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n, begin_bit,
                                end_bit, descending, o0_first ? o0 : o1,
                                o0_first ? c0 : hi - lo - c0);
            return;
        }
        common = clsort_one_marked(one, state, ONE_COMMON(RADIX) + d);
    }
    /* the bits [begin_bit, begin_bit + bits) below the top digit; the
     * top digit of the bucket's keys (dt) */
    uint bits = top * CLSORT_RADIX_BITS, dt = d;
#if MAP_OK
    /* buckets of the sample's map (TILE_MAPPED): the top digit is the
     * bucket's (info), or varies in a gap of several, sorted with the
     * others */
    bool span = false;
    if (state[ST_TILED] == TILED_MAPPED) {
        const uint info = next[map_off + MAP_INFO + d];
        span = (info & MAP_SPAN) != 0;
        dt = info & (RADIX - 1u);
        if (span)
            bits = end_bit - begin_bit;
    }
#else
    const bool span = false;
#endif
    /* float keys: a bucket of one sign, where the top digit holds the sign
     * bit and is not the NaNs' (IN_DIGIT), takes its digits from the keys'
     * bits: 1 a positive bucket, 2 a negative one; else 0, the images (also
     * where the top digit is a lower one, the digits above it constant:
     * its top bit is then no sign) */
    uint nr = 0;
#if CLSORT_KEY_KIND == 2
    const uint top_mask = clsort_pass_mask(begin_bit, end_bit, top);
    if (!span && end_bit == KEY_BITS &&
        clsort_pass_shift(begin_bit, top) + popcount(top_mask) == KEY_BITS) {
        const uint image_top = descending ? dt ^ top_mask : dt;
        if (image_top != top_mask)
            nr = (image_top >> (popcount(top_mask) - 1u)) & 1u ? 1u : 2u;
    }
#endif
    const uint rb = hi - lo < 2 * RADIX ? IN_MIN_BITS : CLSORT_RADIX_BITS;
    const uint rr = 1u << rb;
    const uint np = (bits + rb - 1) / rb;
    uint h[IN_MAX_PASSES * RADIX];
#if CLSORT_IN_LOCAL
    const bool in_local = hi - lo <= CLSORT_IN_LOCAL;
#else
    const bool in_local = false;
#endif
    if (common) {
        atomic_inc(&state[ST_COMMON]);
        clsort_in_common(ka, ku, kb, va, vu, vb, lo, hi, tiled, tab, tiles, d, n, begin_bit,
                         end_bit, descending, bits, clsort_one_key(one, d), h);
        return;
    }
    /* many keys, a few distinct ones (more than two, each a field's value) */
    if (hi - lo >= IN_ONE_KEY_MIN &&
        clsort_in_by_ranks(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n, begin_bit, end_bit,
                           descending, bits)) {
        atomic_inc(&state[ST_BY_RANKS]);
        return;
    }
#if SET_OK
    /* many keys, few distinct ones, where LSD order would take SET_PASSES
     * passes or more */
    if (np >= SET_PASSES && hi - lo >= SET_MIN && SET_BYTES(hi - lo) <= sizeof lk &&
        clsort_in_by_set(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n, begin_bit, end_bit,
                         descending, lk)) {
        atomic_inc(&state[ST_BY_SET]);
        return;
    }
#endif
    for (uint e = 0; e < np * rr; e++)
        h[e] = 0;
    const KEY_T low_mask = clsort_low_bits(bits);
    KEY_T any = 0, all = low_mask;
    uint vary = 0; /* bit j: in-bucket digit j varies */
#if TILED_OK
    if (tiled) {
        /* run by run (tiled: 8-bit rows); a digit varies unless one of its
         * values has every key */
        for (uint t = 0; t < tiles; t++) {
            ulong r0, r1;
            clsort_in_tile_run(tab, t, d, n, &r0, &r1);
            clsort_in_prefetch_keys(ka, tab, t + TILE_AHEAD, tiles, d, n);
            clsort_in_count(ka, r0, r1, np, begin_bit, bits, rb, rr, descending, nr, h);
        }
        for (uint j = 0; j < np; j++)
            if (clsort_in_varies(h, j, rr,
                                 clsort_in_digit(begin_bit, bits, rb, j, descending, nr).mask,
                                 hi - lo))
                vary |= 1u << j;
    } else
#endif
    {
        for (ulong b0 = lo; b0 < hi; b0 += 2048) { /* block by block, as the upfront count */
            const ulong b1 = min(b0 + 2048, (ulong)hi);
            for (ulong i = b0; i < b1; i++) {
                /* which bits vary: the same in the bits and in their
                 * complement */
                const KEY_T bits_i = nr ? ka[i] : RADIX_IMAGE(ka[i]);
                const KEY_T low = (KEY_T)(bits_i >> begin_bit) & low_mask;
                any |= low;
                all &= low;
            }
            clsort_in_count(ka, b0, b1, np, begin_bit, bits, rb, rr, descending, nr, h);
        }
        for (uint j = 0; j < np; j++)
            if ((uint)((any ^ all) >> (j * rb)) & (rr - 1u))
                vary |= 1u << j;
    }
    /* the passes whose digit varies inside the bucket */
    uint pass_of[IN_MAX_PASSES], k = 0;
    for (uint j = 0; j < np; j++)
        if ((vary >> j) & 1u)
            pass_of[k++] = j;
    /* Few distinct keys: where the top varying digit takes at most IN_FEW
     * values and each value is one key (the keys with it agree on every
     * bit), that digit alone orders the bucket (the digits above it are
     * the same for all its keys): one pass instead of k. One read checks. */
    if (k >= 2) {
        const in_digit gt = clsort_in_digit(begin_bit, bits, rb, pass_of[k - 1], descending, nr);
        uint values = 0;
        for (uint e = 0; e <= gt.mask; e++)
            values += h[pass_of[k - 1] * rr + e] != 0;
        if (values <= IN_FEW && clsort_in_one_key_each(ka, lo, hi, gt, tiled, tab, tiles, d, n))
            pass_of[0] = pass_of[k - 1], k = 1;
    }
    if (k == 0) { /* every key of the bucket is the same: A -> U */
        clsort_in_copy(ka, ku, va, vu, lo, hi, tiled, tab, tiles, d, n);
        return;
    }
    /* The passes never write A: the bucket's lines there are read once and
     * left clean, so that no pass writes them back to memory. The passes
     * alternate between U and X, the last into U (k odd: A -> U -> X -> U;
     * k even: A -> X -> U -> X -> U), X being the work-item's local memory
     * for a bucket that fits it (CLSORT_IN_LOCAL keys, the host's choice: a
     * buffer of the worker thread that stays in cache from bucket to
     * bucket), else temp B. pos[] holds positions relative to lo. */
    idx_t pos[RADIX];
#if HAVE_NT && CLSORT_IN_LOCAL
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
            const uint jt = pass_of[2];
            const uint mt = clsort_in_digit(begin_bit, bits, rb, jt, descending, nr).mask;
            idx_t big = 0;
            for (uint e = 0; e <= mt; e++)
                big = max(big, (idx_t)h[jt * rr + e]);
            need = m + big;
        }
#endif
        if (need <= CLSORT_IN_LOCAL) {
            local KEY_T *xk = lk, *yk = lk + m, *last = xk;
            local VAL_T *xv = lv, *yv = lv + m, *lastv = xv;
#if IN_CAN_SPLIT
            if (split) {
                /* the top varying digit (jt), and the two below it */
                const uint jt = pass_of[2];
                const in_digit gt = clsort_in_digit(begin_bit, bits, rb, jt, descending, nr);
                const in_digit g0 =
                    clsort_in_digit(begin_bit, bits, rb, pass_of[0], descending, nr);
                const in_digit g1 =
                    clsort_in_digit(begin_bit, bits, rb, pass_of[1], descending, nr);
                clsort_in_starts(h, jt, rr, gt.mask, pos);
                clsort_in_scatter_first(ka, xk, va, xv, lo, m, pos, gt, tiled, tab,
                                        tiles, d, n);
                uint c0[RADIX], c1[RADIX]; /* positions in a sub-bucket */
                idx_t start = 0;
                for (uint e = 0; e <= gt.mask; e++) {
                    const idx_t m2 = h[jt * rr + e];
                    if (m2 > 1) {
                        local KEY_T *sk = xk + start;
                        local VAL_T *sv = xv + start;
                        clsort_in_sub_counts_l(sk, m2, g0, g1, c0, c1);
                        clsort_in_sub_scatter_ll(sk, yk, sv, yv, m2, c0, g0);
                        clsort_in_sub_scatter_ll(yk, sk, yv, sv, m2, c1, g1);
                    }
                    start += m2;
                }
            } else
#endif
            {
                for (uint a = 1; a <= k; a++) {
                    const in_digit g =
                        clsort_in_digit(begin_bit, bits, rb, pass_of[a - 1], descending, nr);
                    clsort_in_starts(h, pass_of[a - 1], rr, g.mask, pos);
                    last = (a & 1u) ? xk : yk;
                    lastv = (a & 1u) ? xv : yv;
                    if (a == 1)
                        clsort_in_scatter_first(ka, xk, va, xv, lo, m, pos, g,
                                                tiled, tab, tiles, d, n);
                    else if (a & 1u)
                        clsort_in_scatter_ll(yk, xk, yv, xv, m, pos, g);
                    else
                        clsort_in_scatter_ll(xk, yk, xv, yv, m, pos, g);
                }
            }
            clsort_nt_copy_keys(ku + lo, last, m);
#if HAVE_VALUES
            clsort_nt_copy_values(vu + lo, lastv, m);
#endif
            clsort_nt_fence();
            return;
        }
    }
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
        clsort_in_gather(ka, gk, va, gv, tab, tiles, d, n, lo);
        ka = gk;
        va = gv;
    }
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
        const uint jt = pass_of[2];
        const in_digit gt = clsort_in_digit(begin_bit, bits, rb, jt, descending, nr);
        const in_digit g0 = clsort_in_digit(begin_bit, bits, rb, pass_of[0], descending, nr);
        const in_digit g1 = clsort_in_digit(begin_bit, bits, rb, pass_of[1], descending, nr);
        clsort_in_starts(h, jt, rr, gt.mask, pos);
        global KEY_T *uk = ku + lo, *bk = kb + lo;
        global VAL_T *uv = vu + lo, *bv = vb + lo;
        clsort_in_touch(uk, uv, hi - lo, descending); /* the destination's lines */
        clsort_in_scatter_gg(ka + lo, uk, va + lo, uv, hi - lo, pos, gt);
        uint c0[RADIX], c1[RADIX]; /* positions in a sub-bucket (under 2^32 keys) */
        idx_t start = 0;
        for (uint e = 0; e <= gt.mask; e++) {
            const idx_t m2 = h[jt * rr + e];
            if (m2 > 1) {
                global KEY_T *sk = uk + start;
                global VAL_T *sv = uv + start;
                clsort_in_sub_counts_g(sk, m2, g0, g1, c0, c1);
#if CLSORT_IN_LOCAL
                if (in_local) {
                    local KEY_T *xk = lk + start;
                    local VAL_T *xv = lv + start;
                    clsort_in_sub_scatter_gl(sk, xk, sv, xv, m2, c0, g0);
                    clsort_in_sub_scatter_lg(xk, sk, xv, sv, m2, c1, g1);
                } else
#endif
                {
                    global KEY_T *xk = bk + start;
                    global VAL_T *xv = bv + start;
                    clsort_in_sub_scatter_gg(sk, xk, sv, xv, m2, c0, g0);
                    clsort_in_sub_scatter_gg(xk, sk, xv, sv, m2, c1, g1);
                }
            }
            start += m2;
        }
        return;
    }
#endif
    for (uint a = 1; a <= k; a++) {
        const in_digit g = clsort_in_digit(begin_bit, bits, rb, pass_of[a - 1], descending, nr);
        clsort_in_starts(h, pass_of[a - 1], rr, g.mask, pos);
        const bool to_u = ((k - a) & 1u) == 0; /* else to X; from A, or from the other */
        const bool dst_local = in_local && !to_u, src_local = in_local && a > 1 && to_u;
        global KEY_T *gsrc = (a == 1 ? ka : (to_u ? kb : ku)) + lo;
        global KEY_T *gdst = (to_u ? ku : kb) + lo;
        global VAL_T *gvsrc = (a == 1 ? va : (to_u ? vb : vu)) + lo;
        global VAL_T *gvdst = (to_u ? vu : vb) + lo;
        if (!dst_local && a <= 2) /* the destination's lines first, when first written */
            clsort_in_touch(gdst, gvdst, hi - lo, descending);
        const idx_t m = hi - lo;
#if CLSORT_IN_LOCAL
        if (dst_local)
            clsort_in_scatter_gl(gsrc, lk, gvsrc, lv, m, pos, g);
        else if (src_local)
            clsort_in_scatter_lg(lk, gdst, lv, gvdst, m, pos, g);
        else
#endif
            clsort_in_scatter_gg(gsrc, gdst, gvsrc, gvdst, m, pos, g);
    }
}

/* radix_layout.h - the words the radix driver (src/radix.c) and its kernels
 * (radix.cl, radix_onesweep.cl, radix_classic.cl) share: the plan's state,
 * the pass kinds, the launch and order codes, the sync slot, and the local
 * memory of a onesweep tile. Included by radix.c and prepended to the
 * kernels' sources (after layout.h, whose SCAN_PAD it uses), so that no
 * number is written twice: preprocessor definitions only, valid C and
 * OpenCL C. */
#ifndef CLSORT_RADIX_LAYOUT_H
#define CLSORT_RADIX_LAYOUT_H

/* The plan's state words (pool slot STATE, ST_PASS(passes) words, then
 * FILL_TABLE_WORDS where the few keys' check may run). */
#define ST_ACTIVE_PASSES 0
#define ST_COPY_BACK 1
#define ST_IOTA 2
#define ST_MSD 3 /* 0: LSD order; p + 1: pass p runs first, then the buckets */
#define ST_PENDING 4 /* the first plan of MSD order could not decide (clsort_plan) */
#define ST_TILED 5 /* MSD order from the tile pass's layout (clsort_radix_tiles) */
#define ST_REV_N 6 /* with PASS_REVERSE: n, low word then high word */
/* The few keys' fill (GPU shapes, clsort_radix_fill_check): the pass whose
 * digits the check tries as the keys' names (p + 1; FILL_SET: the keys
 * themselves, below; 0: no check), the number of keys where every key is
 * one of them (0: the passes sort), and the word of their table
 * (FILL_TABLE_WORDS, after the passes' words). */
#define ST_FILL 8
#define ST_FILL_KEYS 9
#define ST_FILL_AT 10
/* 1 where the sample's keys looked few (TILE_FEW), the check by the set
 * ran before any count and refused them, and the pending plan sorted them
 * (tests) */
#define ST_FEW_REFUSED 11
/* MSD order's buckets that split their common key from the others
 * (clsort_in_common; tests) */
#define ST_COMMON 12
/* MSD order's buckets sorted by their set of keys (clsort_in_by_set;
 * tests) */
#define ST_BY_SET 13
/* MSD order's buckets of a few keys sorted by their ranks
 * (clsort_in_by_ranks; tests) */
#define ST_BY_RANKS 14
/* MSD order's buckets sorted by every work-item (the shared buckets, below;
 * tests) */
#define ST_SHARED 15
#define ST_PASS(p) (16 + 4 * (p)) /* 16-byte aligned: onesweep reads the four words at once */
#define ST_PASS_ACTIVE 0 /* one of the PASS_ values below */
#define ST_PASS_SRC 1
#define ST_PASS_DST 2
#define ST_PASS_FIRST 3
#define PASS_OFF 0    /* skipped: the digit is the same for every key */
#define PASS_LSD 1    /* a pass over the whole input, in LSD order */
#define PASS_MSD 2    /* the top digit's pass, run first (MSD order) */
#define PASS_BUCKET 3 /* a pass inside each bucket of the top digit */
#define PASS_COPY 4   /* the keys copied from src to dst (ALLOW_FOLD: see clsort_plan) */
#define PASS_REVERSE 5 /* the keys were in reverse order: key i swapped with key n - 1 - i */
#define PASS_FILL 6    /* few keys: every place written from the fill's table, no read */
#define PASS_REMAP 7   /* few keys with values: one pass by the keys' ranks (FILL_TABLE_REMAP) */
/* The pass argument of the onesweep launch that runs the MSD pass, whichever
 * pass the plan chose. */
#define MSD_LAUNCH 0xffffffffu
#define BASES_OF_PASS 0xffffffffffffffffUL /* onesweep's bases_off: the row of the pass run */
#define ALLOW_FOLD 2u /* the plan's allow_skip bit 1: see clsort_plan */

/* The plan's phases (clsort_radix_plan's phase argument): what has been
 * counted when it runs. */
#define PLAN_ALL 0     /* every pass counted: the plan of LSD order */
#define PLAN_TOP 1     /* MSD order's first plan: the top pass counted, and the bits */
#define PLAN_PENDING 2 /* the rest counted, where PLAN_TOP left ST_PENDING: as PLAN_ALL */
#define PLAN_TILES 3   /* PLAN_TOP after the tile pass (clsort_radix_tiles), where it ran */
/* The upfront count's gate (its gated argument): when it does nothing. */
#define GATE_NONE 0     /* always counts */
#define GATE_PENDING 1  /* counts only where the first plan left ST_PENDING */
#define GATE_UNTILED 2  /* counts only where the tile pass did not run */
#define GATE_FIRST 3    /* MSD order's first count without tiles: always counts */
/* Where the sample found the keys few (TILE_FEW), the first count of MSD
 * order (GATE_UNTILED, GATE_FIRST) only zeroes: the check by the set runs
 * before any count, and where it fails the pending one (GATE_PENDING,
 * PENDING_RECOUNT) counts every pass. */
/* The words after MSD order's four bit words (scratch at bits_at): the tile
 * pass's flag, then its tile counter. */
#define BITS_TILE_FLAG 4
/* The flag's value where the sample found the top digit skewed and mapped
 * the keys' 16-bit prefixes (the top digit and the next) to buckets
 * instead (clsort_radix_sample; 8-bit digits): the map, MAP_PREFIXES bytes
 * at scratch + map_at, then a word per bucket, MAP_INFO on: the top digit
 * of its prefixes, or MAP_SPAN where they have several; then the buckets'
 * counts (the top pass's row keeps its own). ST_TILED is then
 * TILED_MAPPED. */
#define TILE_MAPPED 3u
#define TILE_MAPPED_MAX 4u  /* the exact bucket the plan takes, times its bound */
#define PENDING_RECOUNT 2u /* ST_PENDING: the pending count counts the top pass too */
#define TILED_MAPPED 2u
#define MAP_PREFIXES 65536u
#define MAP_INFO (MAP_PREFIXES / 4u)
#define MAP_COUNTS(r) (MAP_INFO + (r)) /* the tile pass's counts of the map's buckets */
#define MAP_WORDS(r) (MAP_INFO + 2 * (r))
#define MAP_SPAN 0x100u
/* The flag's value where the sample found every top digit it saw one key
 * (keys alone, of an integer type, sorted by all their bits; few distinct
 * values): the tile pass then only counts the keys equal to each digit's
 * key (scratch at one_at, ONE_HAS and ONE_KEY), into the map's counts row
 * (MAP_COUNTS), and adds TILE_FILL_BAD where a key is none of them. With
 * every key counted, ST_TILED is TILED_FILL, and each bucket is written
 * from its key without a read (clsort_in_fill); with TILE_FILL_BAD, the
 * plan leaves PENDING_RECOUNT, as for a refused map. */
#define TILE_FILL 4u
#define TILE_FILL_BAD 8u
#define TILED_FILL 3u
#define FILL_KEYS_MAX 16u /* the most keys (top digits) the tile pass compares with */
/* With flag 2 where the tiles are there to fill alone (the host's
 * fill_only): the tile pass does not run, the upfront count counts the top
 * pass, and the plan reads flag 2 as without tiles (clsort_tiles_ran). */
#define TILE_SKIP 16u
/* With TILE_SKIP (no tiles): the sample's keys look few (FEW_SAMPLE_MAX),
 * so the first plan asks for the check by the set before any count (the
 * host's `few`: where the shape allows the check), and the pending plan,
 * where it refused them, chooses the order as without the estimate. The
 * estimate is Chao1's, d + f1 (f1 - 1) / (2 (f2 + 1)) from the samples'
 * d distinct keys, f1 of them seen once and f2 twice, counted in a table
 * of 2^FEW_SLOTS_BITS slots (at least twice the samples). */
#define TILE_FEW 32u
#define FEW_SAMPLE_MAX (FILL_SET_MAX + FILL_SET_MAX / 2)
#define FEW_SLOTS_BITS 13u
/* the table's local memory (8-byte keys, 2-byte counts): the sample is
 * built with it (CLSORT_SAMPLE_FEW) only where the device has that much */
#define FEW_LOCAL_BYTES ((size_t)10 << FEW_SLOTS_BITS)
/* MSD order's big one-key buckets (scratch at one_at, ONE_WORDS(radix)
 * words, MSD shapes only, zero before the sample), in this order: which
 * digits of the top pass the sample found one key and big
 * (clsort_radix_sample), those the copy found to hold other keys, the pass
 * they belong to (p + 1), the copy's chunk counter, each candidate's
 * key (its order key, low word then high word), with TILE_FILL which
 * digits have a key (ONE_KEY, big or not), and which digits' samples are
 * most of them one key (ONE_COMMON: that key in ONE_KEY; Zipf's head
 * among rare keys), whose buckets split it from the others
 * (clsort_in_common); then the shared buckets' words (below). */
#define ONE_CAND 0
#define ONE_FAILED(r) (r)
#define ONE_PASS(r) (2 * (r))
#define ONE_NEXT(r) (2 * (r) + 1)
#define ONE_KEY(r) (2 * (r) + 2)
#define ONE_HAS(r) (4 * (r) + 2)
#define ONE_COMMON(r) (5 * (r) + 2)
/* The shared buckets: buckets of SHARE_MIN_BOUNDS times the plan's bound
 * and more whose samples are few keys (at most SAMPLE_FEW_KEYS), the
 * SHARE_MAX largest, sorted by every work-item in
 * SHARE_CHUNKS chunks each: clsort_radix_one_copy counts each chunk's keys
 * (at most SHARE_KEYS, else the bucket is marked failed), and the
 * buckets' launch moves each chunk's keys to their places, where the
 * bucket's keys are at most SHARE_KEYS (else its work-item sorts it, as
 * any other). Words after the one-key words: the two launches' chunk
 * counters, each slot's digit + 1 (0: none), each slot's failed flag. */
#define SHARE_MIN_BOUNDS 2u
#define SHARE_MAX 16u
#define SHARE_CHUNKS 32u
#define SHARE_KEYS 16u
#define ONE_SHARE_NEXT(r) (6 * (r) + 2)
#define ONE_SHARE_TASK(r) (6 * (r) + 3)
#define ONE_SHARE_DIGIT(r) (6 * (r) + 4)
#define ONE_SHARE_FAILED(r) (6 * (r) + 4 + SHARE_MAX)
#define ONE_WORDS(r) (6 * (r) + 4 + 2 * SHARE_MAX)
/* each chunk's table (scratch at share_at, read only after it is written:
 * every chunk of a slot in use writes its own, unless the slot fails): its
 * number of keys, SHARE_KEYS order keys (low word, high word), their
 * counts */
#define SHARE_TABLE_WORDS (1u + 3u * SHARE_KEYS)
#define SHARE_WORDS (SHARE_MAX * SHARE_CHUNKS * SHARE_TABLE_WORDS)

/* The few keys' fill (GPU shapes; keys alone of an integer type sorted by
 * all their bits). The plan lets the check by digits run where every
 * active pass has at most FILL_DIGITS_MAX digits, trying the pass with the
 * most (else, on some counts, the check by the set: FILL_SET below). Its words
 * in scratch (fill_at, FILL_SCRATCH_WORDS, zeroed by the upfront count):
 * whether some work-group saw two keys of one digit, the work-groups
 * signed off, then per digit of that pass the largest of each 32-bit word
 * of its keys, and the largest of each word's complement (a digit is one
 * key where both agree). The table (state at ST_FILL_AT): where each key's
 * run starts, K + 1 ulongs (the last is n), from word 0, then the K keys
 * in the sort's order, from word FILL_TABLE_KEYS(r), then with values each
 * digit's rank, a byte each, from word FILL_TABLE_REMAP(r). */
#define FILL_DIGITS_MAX 128u
/* What the plan's check may do (clsort_plan's fill_gate): keys alone of an
 * integer type over all their bits take every way of the check and the
 * fill, and 8-byte keys in reverse order are reversed by the check's
 * launch; keys of an integer type over all their bits with values (GPU
 * shapes, one portion) take the check by digits alone; it copies the keys
 * and values U -> A as it reads them, and where it holds, pass 0's launch
 * sorts A -> U by the keys' ranks instead of its digit: for each digit of
 * the check's pass, its key's rank in the sort's order (FILL_TABLE_REMAP,
 * bytes), each rank's run from where its key's run starts (the check
 * writes those into pass 0's row of bases), every other pass off. */
#define FILL_GATE_KEYS 1u
#define FILL_GATE_REMAP 2u
#define FILL_ABORT 0
#define FILL_DONE 1
/* word h of digit d's key's largest, and of its complement's */
#define FILL_MAX(r, h, d) (2 + (h) * (r) + (d))
#define FILL_MAXC(r, h, d) (2 + (2 + (h)) * (r) + (d))
/* The fill by a set of keys (ST_FILL = FILL_SET): where a pass has more
 * digits than that but the counts are skewed, the check gathers the keys
 * themselves, up to FILL_SET_MAX nonzero ones (0 marks an empty slot: key
 * 0 is counted apart), each work-group in a table of FILL_SET_LOCAL slots
 * in local memory, then all of them in one of FILL_SET_SLOTS slots in
 * scratch: the number of keys in it, key 0's count, each slot's count,
 * then the slots' keys (2 words each; fill_at is even). */
#define FILL_SET 0x100u
/* ST_FILL = FILL_REVERSE: the keys are in reverse order, and the check's
 * launch reverses them (the passes all skipped) */
#define FILL_REVERSE 0x200u
#define FILL_SET_MAX 1024u
/* the groups of one work-item (CPU shapes) take a sparser table: fewer
 * keys probe past their first slot (a branch the CPU mispredicts) */
#define FILL_SET_ONE_BITS 14u
/* the check's local memory on groups of one work-item, at most: that
 * table (8-byte keys, 4-byte counts) and its arrays of r digits */
#define FILL_ONE_LOCAL_BYTES(r) (((size_t)12 << FILL_SET_ONE_BITS) + 64 * (size_t)(r))
#if defined(CLSORT_HIST_WG) && CLSORT_HIST_WG == 1
#define FILL_SET_LOCAL_BITS FILL_SET_ONE_BITS
#else
#define FILL_SET_LOCAL_BITS 11u
#endif
#define FILL_SET_LOCAL (1u << FILL_SET_LOCAL_BITS)
#define FILL_SET_BITS 12u
#define FILL_SET_SLOTS (1u << FILL_SET_BITS)
#define FILL_SET_PROBES 32u /* a longer probe gives up (no fill) */
#define FILL_SET_USED 2
#define FILL_SET_ZERO 3
#define FILL_SET_COUNT(i) (4 + (i))
#define FILL_SET_KEY (4 + FILL_SET_SLOTS)
#define FILL_SET_WORDS (4 + 3 * FILL_SET_SLOTS)
#define FILL_SCRATCH_WORDS(r) (2 + 4 * (r) > FILL_SET_WORDS ? 2 + 4 * (r) : FILL_SET_WORDS)
/* the table's keys: a digit's each, or the set's and key 0 */
#define FILL_TABLE_CAP(r) ((r) > FILL_SET_MAX + 1 ? (r) : FILL_SET_MAX + 1)
#define FILL_TABLE_KEYS(r) (2 * FILL_TABLE_CAP(r) + 2)
#define FILL_TABLE_REMAP(r) (4 * FILL_TABLE_CAP(r) + 2)
#define FILL_TABLE_WORDS(r) (FILL_TABLE_REMAP(r) + ((r) + 3) / 4)

/* The order check of the upfront count: what it has seen between
 * neighbours, in the sort's order, ORed into one flags word. */
#define ORDER_DESCENT 1u /* a key above the next */
#define ORDER_ASCENT 2u  /* a key below the next */
#define ORDER_TIE 4u     /* two neighbours equal in the sorted bits */
#define ORDER_SEEN 8u    /* the check ran (a zero word says nothing) */
/* The plan's order mode: what it may make of the flags. */
#define ORDER_SORTED 1u       /* no descent: every pass skipped */
#define ORDER_REVERSE 2u      /* no ascent and no tie: one pass reverses the keys */
#define ORDER_REVERSE_TIES 4u /* no ascent, ties or not: integer keys alone over all
                                 their bits, where equal keys are identical */

/* sync words of clsort_radix_upfront_plan (a pool buffer of its own, all
 * zero between sorts; radix.c keeps the counts of the sorts in LSD order
 * without the fused start there as well, and their plan clears them): the
 * sign-off word, the counts, then the order flags */
#define SYNC_DONE 0   /* work-groups that have signed off */
#define SYNC_COUNTS 1 /* then passes * RADIX counts */

/* Local memory the host sizes tiles by (radix_onesweep.c), counted here
 * once. Words of the local ranking's counters for wg work-items
 * (clsort_rank_local: 16 per work-item, padded as SCAN_PAD, layout.h). */
#define RANK_CNT_WORDS(wg) (SCAN_PAD(16 * (wg)) + 1)
/* The bytes of a onesweep tile's local memory, the struct os_mem of
 * radix_onesweep.cl and radix_msd.cl, but for its padding (before 16-byte
 * members and at its end) and, in the serial shape, its two words: for the
 * ranking (CLSORT_RANK_*: 0 serial, 1 local, 3 ballot, 4 atomic_or), wg
 * work-items, a tile of `tile` keys, `radix` digits, and keys, values (0:
 * none) and indices of kb, vb and ib bytes; fk 1: the serial shape keeps
 * each float key's digit (a byte, or two above 256 digits). The struct takes at most
 * OS_MEM_SLACK bytes more, which the host adds; each of those files checks
 * its struct against both bounds as it compiles (OS_MEM_CHECK). */
#define OS_MEM_BYTES(rank, wg, tile, radix, kb, vb, ib, fk)                                     \
    ((rank) == 0   ? (tile) * ((kb) + (vb) + ((fk) ? ((radix) <= 256 ? 1 : 2) : 0))            \
     : (rank) == 1 ? (tile) * (kb) + (tile) + 2 * (tile) * 2 + RANK_CNT_WORDS(wg) * 2 +        \
                         OS_MEM_COMMON_(wg, radix, ib)                                         \
                   : OS_MEM_MAX_(OS_MEM_16_((tile) * OS_MEM_MAX_(kb, vb)),                     \
                                 OS_MEM_16_(OS_MEM_WARP_WORDS_(rank, wg, radix) * 4)) +        \
                         OS_MEM_COMMON_(wg, radix, ib) + OS_MEM_WSUM_(wg, radix))
#define OS_MEM_SLACK 32
/* (its parts: the two words per digit of every ranking, the digit bases,
 * the work-group scan, the tile's number and the next; the larger of the
 * warp rankings' stage and their counters (atomic_or's: and digit masks),
 * which share memory, in 16-byte words; the warp sums of their digit
 * scan, the runs of digits in each warp's rows and the choice of ranking) */
#define OS_MEM_COMMON_(wg, radix, ib) ((radix) * 8 + (radix) * (ib) + SCAN_LOCAL_WORDS(wg) * 4 + 8)
#define OS_MEM_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define OS_MEM_16_(bytes) (((bytes) + 15) / 16 * 16)
#define OS_MEM_WARP_WORDS_(rank, wg, radix) ((wg) / 32 * (radix) * ((rank) == 4 ? 2 : 1))
#define OS_MEM_WSUM_(wg, radix)                                                                \
    (((radix) % 32 == 0 && (radix) <= (wg) ? (radix) / 32 * 4 : 4) + (wg) / 32 * 4 + 4)
/* In a kernel file, after its os_mem: a build error (an array of negative
 * size) where OS_MEM_BYTES does not count the struct. */
#define OS_MEM_CHECK(bytes)                                                                    \
    typedef char os_mem_counted_[(bytes) <= sizeof(os_mem) &&                                  \
                                         sizeof(os_mem) <= (bytes) + OS_MEM_SLACK ? 1 : -1]
/* At least the bytes of clsort_radix_single's plan (single_plan_mem,
 * radix_passes.cl, which shares its local memory with the tile's), for wg
 * work-items, at most `passes` passes and `radix` digits: the work-group
 * scan's words as 8-byte indices, the counts of every pass, two words a
 * pass and one more for the plan (PLAN_PASS_WORDS), 16 bytes for padding.
 * radix_passes.cl checks that it holds the struct. */
#define SINGLE_PLAN_BYTES(wg, passes, radix) \
    (SCAN_LOCAL_WORDS(wg) * 8 + (passes) * ((radix) + 2) * 4 + 4 + 16)

#endif

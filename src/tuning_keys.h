/* tuning_keys.h - every tuning key of clsort, declared once, one list per stem.
 *
 * An entry is X(key, kind, lo, hi, follows, help):
 *   key      the spec key and the unsigned field of clsort_tuning of that name
 *   kind     NUM: a number in lo..hi; ALGORITHM, RANK, RANK_PAIRS: a name of
 *            CLSORT_TUNING_NAMES_<kind> (its value the name's index), or a
 *            number in lo..hi
 *   follows  the key this one follows (none: no key): a spec that names that
 *            key, or sets it to 0 by following, and does not name this one
 *            sets this one to 0 (which the help says stands for what)
 *   help     one line: clsort_tuning_keys(), `clsort ... --tuning help` and
 *            docs/TUNING.md print it
 *
 * The lists generate the struct (internal.h), the spec parser and formatter
 * and the follower rule (tuning.c), the key list (clsort_tuning_keys) and
 * docs/TUNING.md (tests/tuning_doc.c; ctest tuning_doc fails while the file
 * differs). A key follows only keys declared before it. The values of the
 * table's rows are in tuning.c; the measurements behind them in
 * docs/PERFORMANCE.md's decision log. */
#ifndef CLSORT_TUNING_KEYS_H
#define CLSORT_TUNING_KEYS_H

/* The names of the named kinds' values, by value (NULL: no name). */
#define CLSORT_TUNING_NAMES_NUM {NULL}
#define CLSORT_TUNING_NAMES_ALGORITHM {NULL, "onesweep", "classic"}
#define CLSORT_TUNING_NAMES_RANK {"serial", "local", "match", "ballot", "atomic_or"}
#define CLSORT_TUNING_NAMES_RANK_PAIRS {"same", "serial", "local", "match", "ballot", "atomic_or"}

/* The radix sorts, onesweep and classic alike: strategy, digits, the
 * upfront count and plan. */
#define CLSORT_TUNING_KEYS_RADIX(X)                                                               \
    X(algorithm, ALGORITHM, 1, 2, none, "radix strategy: onesweep or classic")                    \
    X(radix_bits, NUM, 1, 12, none, "digit width r of each pass (above 8: CPU shapes only)")      \
    X(large_bits, NUM, 0, 12, none,                                                               \
      "digit width from n = large_min on, where it saves passes (above 8: CPU shapes; "           \
      "at most 32 bits sorted)")                                                                  \
    X(large_min, NUM, 0, 0x7fffffffu, none, "use large_bits from this n on (0: never)")           \
    X(hist_wg, NUM, 1, 1024, none, "upfront histogram work-group size")                           \
    X(hist_items, NUM, 1, 64, none, "upfront histogram keys per work-item per round")             \
    X(hist_groups, NUM, 1, 64, none, "upfront histogram work-groups per compute unit")            \
    X(plan_wg, NUM, 1, 1024, none, "work-group size of the plan and offset scans")                \
    X(skip_min, NUM, 0, 0x7fffffffu, none, "try pass skipping from this n on")                    \
    X(order_min, NUM, 0, 0x7fffffffu, none,                                                       \
      "onesweep sorts from this n on: check for keys already in order or reversed (0: never)")    \
    X(prologue_max, NUM, 0, 1u << 28, none,                                                       \
      "radix sorts up to this n: counts and plan in one launch")

/* The onesweep passes (GPU work-group shapes, and the CPU's serial shape). */
#define CLSORT_TUNING_KEYS_ONESWEEP(X)                                                            \
    X(os_wg, NUM, 1, 1024, none, "onesweep work-group size (1: CPU shape)")                       \
    X(os_items, NUM, 1, 1u << 20, none, "onesweep keys per work-item (tile = os_wg * os_items)")  \
    X(os_rank, RANK, 0, CLSORT_RANK_COUNT - 1, none,                                              \
      "onesweep tile ranking: serial (os_wg 1), local (portable), or NVIDIA's warp rankings "     \
      "ballot, atomic_or")                                                                 \
    X(os_items_pairs, NUM, 0, 1u << 20, none,                                                     \
      "os_items when values are carried (0: same as os_items)")                                   \
    X(os_wg_pairs, NUM, 0, 1024, os_wg, "os_wg when values are carried (0: os_wg)")               \
    X(os_wg_wide, NUM, 0, 1024, os_wg, "onesweep work-group size for 8-byte keys (0: os_wg)")     \
    X(os_items_wide, NUM, 0, 1u << 20, os_items,                                                  \
      "onesweep keys per work-item for 8-byte keys, alone or with values (0: os_items, "          \
      "os_items_pairs)")                                                                          \
    X(os_rank_pairs, RANK_PAIRS, 0, CLSORT_RANK_COUNT, os_rank,                                   \
      "NVIDIA: ballot or atomic_or when values are carried (same: os_rank)")               \
    X(big_min, NUM, 0, 0x7fffffffu, none,                                                         \
      "onesweep sorts of keys alone up to 4 bytes from this n on take big_wg x big_items "        \
      "tiles (0: never)")                                                                         \
    X(big_wg, NUM, 0, 1024, os_wg, "the work-group size of those sorts (0: os_wg)")               \
    X(big_items, NUM, 0, 1u << 20, os_items, "their keys per work-item (0: os_items)")            \
    X(big_min_pairs, NUM, 0, 0x7fffffffu, none,                                                   \
      "onesweep sorts of keys and values up to 4 bytes from this n on take big_wg_pairs x "       \
      "big_items_pairs tiles (0: never)")                                                         \
    X(big_wg_pairs, NUM, 0, 1024, os_wg_pairs,                                                    \
      "the work-group size of those sorts (0: os_wg_pairs)")                                      \
    X(big_items_pairs, NUM, 0, 1u << 20, os_items_pairs,                                          \
      "their keys per work-item (0: os_items_pairs)")                                             \
    X(small_items, NUM, 0, 64, none,                                                              \
      "onesweep: at most this many keys per work-item for sorts up to small_items_max "           \
      "(0: off)")                                                                                 \
    X(small_items_max, NUM, 0, 0x7fffffffu, none,                                                 \
      "onesweep: the largest n that takes small_items")                                           \
    X(lb_batch, NUM, 0, 32, none,                                                                 \
      "onesweep: look-back words a tile reads per round trip (0: 1; work-group shapes)")          \
    X(lb_batch_pairs, NUM, 0, 32, lb_batch, "lb_batch when values are carried (0: lb_batch)")     \
    X(os_match_max, NUM, 0, 256, none,                                                            \
      "NVIDIA, atomic_or ranking (sm_70 on, os_wg at least 2^radix_bits): tiles whose rows of "   \
      "32 keys hold about this many distinct digits or fewer rank by match.any (0: never; pairs " \
      "ranked by ballot ignore it)")                                                              \
    X(os_persist, NUM, 0, 64, none,                                                               \
      "onesweep passes (work-group shapes): persistent work-groups per compute unit, each "       \
      "sorting tile after tile (0: a work-group per tile)")                                       \
    X(os_persist_wide, NUM, 0, 64, os_persist,                                                    \
      "os_persist for 8-byte keys alone (0: os_persist)")                                         \
    X(portion_max, NUM, 0, 0x7fffffffu, none,                                                     \
      "onesweep: most keys per portion (0: 2^30 - 1, the look-back limit)")                       \
    X(single_max, NUM, 0, 1u << 30, none,                                                         \
      "onesweep sorts up to this n and one tile: the whole sort in one work-group and one "       \
      "launch (0: never)")                                                                        \
    X(fused_max, NUM, 0, 0x7fffffffu, none,                                                       \
      "onesweep sorts up to this n (one portion, LSD order): zero, count and plan in one "        \
      "launch (0: never)")                                                                        \
    X(chain_max, NUM, 0, 0x7fffffffu, none,                                                       \
      "onesweep sorts up to this n (one portion, LSD order): every pass in one launch "           \
      "(0: never)")                                                                               \
    X(fill_min, NUM, 0, 0x7fffffffu, none,                                                        \
      "onesweep in LSD order, work-group shapes, keys of an integer type over all their bits, "   \
      "from this n of 4-byte keys on (wider keys from as many bytes): where every pass has few "   \
      "digits, or for keys alone the counts look like few keys, a check whether the keys are "    \
      "few (up to 1024; with values up to 128, one portion), and then each place written from "   \
      "them, or pairs sorted in one pass by the keys' ranks (0: never)")                        \
    X(sample_few, NUM, 0, 1, none,                                                                \
      "MSD order's sample estimates how many distinct keys there are (Chao1), and where they "    \
      "look few (up to 1536) the few keys' check by the set runs before any count (where "        \
      "fill_min lets it; 0: never)")

/* The classic count and scatter passes. */
#define CLSORT_TUNING_KEYS_CLASSIC(X)                                                             \
    X(cl_wg, NUM, 1, 1024, none, "classic count/scatter work-group size (1: CPU shape)")          \
    X(cl_items, NUM, 1, 64, none, "classic keys per work-item in a scatter tile")                 \
    X(cl_groups, NUM, 1, 64, none, "classic work-groups per compute unit")

/* The CPU shape (os_rank=serial) in MSD order: the top digit's pass, then
 * each bucket in cache. */
#define CLSORT_TUNING_KEYS_MSD(X)                                                                 \
    X(msd, NUM, 0, 1, none,                                                                       \
      "with os_rank=serial: top digit first, then each bucket in cache (0: LSD only)")            \
    X(msd_bound, NUM, 0, 1024, none,                                                              \
      "CPU shape, MSD order: the largest top-digit bucket the plan takes, in sixteenths of a "    \
      "compute unit's share of the keys (0: 4, a quarter)")                                       \
    X(bucket_local, NUM, 0, 1u << 30, none,                                                       \
      "CPU shape, MSD order: bytes of local memory a bucket's passes may use (0: none, "          \
      "temp B)")                                                                                  \
    X(bucket_split, NUM, 0, 0x7fffffffu, none,                                                    \
      "CPU shape, MSD order: buckets of three passes from this many bytes split by their "        \
      "top digit first (0: never)")                                                               \
    X(nt_min, NUM, 0, 0x7fffffffu, none,                                                          \
      "CPU shape on x86-64: sorts of keys and values from this many bytes write whole lines "     \
      "by streaming stores (0: never)")                                                           \
    X(tile_min, NUM, 0, 0x7fffffffu, none,                                                        \
      "CPU shape on x86-64, MSD order: sorts from this many bytes (and nt_min) sort by the "      \
      "top digit tile by tile, with no upfront count (0: never)")

/* Segmented sorts: the route (AUTO) and the radix work-groups' shape. */
#define CLSORT_TUNING_KEYS_SEGMENTS(X)                                                            \
    X(seg_wg, NUM, 0, 1024, os_wg,                                                                \
      "onesweep work-group size of segments of keys alone up to 4 bytes (0: os_wg)")              \
    X(seg_items, NUM, 0, 1u << 20, os_items,                                                      \
      "onesweep keys per work-item of those segments (0: os_items)")                              \
    X(seg_radix_min, NUM, 0, 1u << 30, none,                                                      \
      "segmented sorts whose longest segment has at least this many elements and fits one "       \
      "onesweep tile: a radix work-group per segment (0: never)")                                 \
    X(seg_packed_max, NUM, 0, 1u << 30, none,                                                     \
      "segmented sorts whose longest segment has at most this many elements: one radix "          \
      "sort of (segment, key) (0: never)")

/* Bitonic sorts: small sorts (AUTO), segments, and CLSORT_ALGORITHM_BITONIC. */
#define CLSORT_TUNING_KEYS_BITONIC(X)                                                             \
    X(small_max, NUM, 0, 1u << 24, none,                                                          \
      "sorts up to this n that fit bt_cap: one bitonic work-group (0: never)")                    \
    X(bt_wg, NUM, 1, 1024, none, "bitonic work-group size")                                       \
    X(bt_cap, NUM, 0, 1u << 24, none,                                                             \
      "most elements a bitonic work-group holds (0: what local memory allows)")                   \
    X(bt_regs, NUM, 0, 32, none,                                                                  \
      "bitonic elements per work-item in registers (0: all steps in local memory)")               \
    X(bt_fit_wg, NUM, 0, 1024, none,                                                              \
      "a lone bitonic segment: a program of its own power-of-two capacity, up to this "           \
      "work-group size (0: off)")

/* The selection sort. */
#define CLSORT_TUNING_KEYS_SELECTION(X)                                                           \
    X(sel_wg, NUM, 1, 1024, none, "selection sort work-group size")                               \
    X(sel_block, NUM, 1, 65536, none, "selection sort keys staged in local memory per round")

/* Scans. */
#define CLSORT_TUNING_KEYS_SCAN(X)                                                                \
    X(scan_wg, NUM, 1, 1024, none, "scan work-group size")                                        \
    X(scan_items, NUM, 1, 256, none,                                                              \
      "scan elements per work-item (fewer where the device's local memory is short)")             \
    X(scan_onepass, NUM, 0, 1, none,                                                              \
      "1: single-pass look-back scan; 0: reduce, scan the sums, scan")

/* The first calls: host arrays sorted on the host while the kernels build
 * (tier.c). */
#define CLSORT_TUNING_KEYS_TIER(X)                                                                \
    X(tier_max, NUM, 0, 0x7fffffffu, none,                                                        \
      "host-array sorts of up to this n on the tuned route whose kernels are not yet built "      \
      "and warm: sorted on the host while they build in the background (0: never; no row sets "   \
      "it: a caller that releases its contexts before exit opts in, as the Python module does "   \
      "on CPUs with 2^25)")

/* The stems, in the order of the spec that clsort_tuning_format writes:
 * S(stem, title). */
#define CLSORT_TUNING_STEMS(S)                                                                    \
    S(RADIX, "Radix sorts: shared by onesweep and classic")                                       \
    S(ONESWEEP, "Onesweep passes")                                                                \
    S(CLASSIC, "Classic passes")                                                                  \
    S(MSD, "MSD order (the CPU shape)")                                                           \
    S(SEGMENTS, "Segmented sorts")                                                                \
    S(BITONIC, "Bitonic sorts")                                                                   \
    S(SELECTION, "Selection sort")                                                                \
    S(SCAN, "Scans")                                                                              \
    S(TIER, "First calls: the host tier")

/* Every key, stem after stem. */
#define CLSORT_TUNING_KEYS(X)                                                                     \
    CLSORT_TUNING_KEYS_RADIX(X)                                                                   \
    CLSORT_TUNING_KEYS_ONESWEEP(X)                                                                \
    CLSORT_TUNING_KEYS_CLASSIC(X)                                                                 \
    CLSORT_TUNING_KEYS_MSD(X)                                                                     \
    CLSORT_TUNING_KEYS_SEGMENTS(X)                                                                \
    CLSORT_TUNING_KEYS_BITONIC(X)                                                                 \
    CLSORT_TUNING_KEYS_SELECTION(X)                                                               \
    CLSORT_TUNING_KEYS_SCAN(X)                                                                    \
    CLSORT_TUNING_KEYS_TIER(X)

/* Removed keys: R(key, noop, why, instead). A spec that names one fails
 * with a message that names it, why it went and what to use instead; a
 * tuning saved before the removal (`clsort tune --save`, every key) names
 * it at noop, the value at which it did nothing, and still loads
 * (clsort_tuning_apply_saved). */
#define CLSORT_TUNING_REMOVED(R)                                                                  \
    R(nv_maxreg, 0,                                                                               \
      "NVIDIA's driver builds with -cl-nv-maxrregcount and ignores it (docs/PERFORMANCE.md, "     \
      "decision log, area GPU pass: register caps)",                                              \
      "-cl-nv-maxrregcount=N in $CLSORT_BUILD_OPTIONS (every program)")

#endif /* CLSORT_TUNING_KEYS_H */

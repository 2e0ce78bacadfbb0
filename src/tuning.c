/* tuning.c - every tuned number of clsort, in one table keyed by device.
 *
 * A row matches on device type, vendor, (optionally) a substring of the
 * device name and a least number of compute units; the first matching row
 * wins, the last row is the default.
 * `clsort tune` measures candidates on the present device and saves the
 * winner in the cache folder (context.c loads it over the table row), and
 * $CLSORT_TUNING or clsort_context_set_tuning() override single fields.
 *
 * Fields (spec key: meaning):
 *   algorithm    onesweep | classic: the radix strategy (see radix.c)
 *   radix_bits   digit width r of each pass, 1..12 (above 8 only with the CPU
 *                shapes: os_rank=serial, or classic with cl_wg=1)
 *   os_wg        onesweep work-group size (1 for the CPU shape)
 *   os_items     onesweep keys per work-item (the tile is os_wg * os_items)
 *   os_items_pairs  os_items for sorts that carry values (0: os_items)
 *   os_wg_pairs  os_wg for sorts that carry values (0: os_wg; a spec that
 *                sets os_wg without it sets it to 0, as it does seg_wg, and
 *                os_items seg_items)
 *   os_rank_pairs   the warp ranking for sorts that carry values (same:
 *                os_rank; NVIDIA's warp rankings only; a spec that sets
 *                os_rank without it sets it to same)
 *   os_wg_wide, os_items_wide  keys of 8 bytes: the onesweep work-group
 *                size and keys per work-item, for keys alone and pairs alike
 *                (0: os_wg, and os_items or os_items_pairs); a spec that sets
 *                os_wg or os_items without them sets them to 0
 *   os_rank      how onesweep ranks a tile: serial (os_wg 1), local
 *                (portable local memory), match (NVIDIA match.any), ballot
 *                (NVIDIA, one vote.ballot per digit bit), atomic_or (NVIDIA,
 *                one local atomic_or per key into the warp's digit masks)
 *   cl_wg        classic count/scatter work-group size (1 for the CPU shape)
 *   cl_items     classic keys per work-item in a scatter tile
 *   cl_groups    classic work-groups per compute unit
 *   hist_wg      upfront histogram work-group size
 *   hist_items   upfront histogram keys per work-item per round
 *   hist_groups  upfront histogram work-groups per compute unit
 *   plan_wg      work-group size of the single-group plan and scan kernels
 *   skip_min     pass skipping is tried from this n on
 *   order_min    onesweep sorts from this n on (and skip_min): the upfront
 *                count also checks whether the keys are already in order
 *                or in reverse order; such a sort then moves nothing, or
 *                reverses the keys in one pass (0: never)
 *   nv_maxreg    NVIDIA only: -cl-nv-maxrregcount for onesweep (0: none); NVIDIA
 *                driver 580 builds with it but ignores it (ptxas reports the
 *                same registers, measured 2026-11-25)
 *   msd          the CPU shape (os_rank=serial) only: sort by the top active
 *                digit first, then each of its buckets by the lower digits in
 *                one work-item, whose passes stay in cache (0: every pass
 *                over the whole input); used when no bucket holds more than
 *                n / (4 compute units) keys, else the plain passes run
 *   bucket_local the CPU shape in MSD order: a bucket of keys (and values)
 *                that fits this many bytes of local memory (at most 3/4 of
 *                the device's) passes through local memory (A -> U ->
 *                local -> U), a buffer of the worker thread that stays in
 *                cache, instead of through temp B (0: always B). Xeon-2, 8M: pairs 52.3-53.3
 *                ms against 55.2-58.5, u32 and u64 within noise
 *   bucket_split the CPU shape in MSD order: a bucket of three in-bucket
 *                passes whose keys and values take at least this many bytes
 *                is split by its top varying digit first (A -> U), and each
 *                sub-bucket then takes the two lower digits while it stays
 *                in L1 (0: never). PoCL rows 768 KiB: pairs at 32M (1 MiB
 *                buckets, 2 MiB with their copy, a core's whole L2) split,
 *                u32 keys at 32M (512 KiB) do not. Xeon-16, ten rounds
 *                alternating: pairs 32M 67.3 -> 58.0 ms, faster in every
 *                round, 64M 152 -> 121; u32 32M, split, 37.2 -> 39.7 (hence
 *                the bytes), u32 64M 83.6 -> 82.6
 *   nt_min       the CPU shape on x86-64, built by clang (PoCL): sorts whose
 *                keys and values take at least this many bytes write each
 *                whole 64-byte line of the top pass's runs, and each bucket
 *                sorted in local memory, by a streaming store, which does
 *                not read the line first (0: never). PoCL rows 128 MiB (u32
 *                keys from 32M, pairs from 16M): far above the caches, as
 *                the lines go to memory. Xeon-16, eight rounds alternating:
 *                pairs 32M 63.6 -> 56.0 ms, faster in 7 of 8; u32 32M
 *                41.5 -> 40.6 and 8M within noise. Xeon-2 (8-bit rows):
 *                u32 32M 145 -> 129-133 ms, pairs 216-225 -> 186-195
 *   tile_min     the CPU shape on x86-64 in MSD order (with nt_min), 8-bit
 *                digits: sorts whose keys and values take at least this
 *                many bytes, and
 *                whose buckets, were the keys spread evenly, would be sorted
 *                in local memory, sort by the top digit tile by tile with
 *                no upfront count (each tile in its own place, its digit
 *                starts in a table), and each bucket reads its keys run by
 *                run from the tiles, where a sample of 4096 keys promises
 *                the plan's MSD order (0: never). 16 bytes a key moved for
 *                u32 keys instead of 20. PoCL rows 128 MiB (u32 keys from
 *                32M; pairs at 32M; not pairs at 64M, whose buckets do not
 *                fit). Xeon-16, six rounds alternating: u32 32M 45.0 ->
 *                36.8 ms (faster in 6 of 6), pairs 32M 61.6 -> 52.7 (5 of 6)
 *   large_bits, large_min  from n = large_min on, digits of large_bits
 *                instead of radix_bits where that means fewer passes
 *                (large_min 0: never; above 8 bits only where the shape
 *                takes them)
 *   portion_max  onesweep: the most keys per portion (0: the look-back
 *                limit of 2^30 - 1; smaller values test the portions)
 *   lb_batch     onesweep: how many predecessors' look-back words a tile
 *                reads in one round trip (0: 1; the work-group shapes: the
 *                serial shape walks back over every digit of a tile at once)
 *   lb_batch_pairs  lb_batch for sorts that carry values (0: lb_batch; a
 *                spec that sets lb_batch without it sets it to 0)
 *   os_persist   onesweep passes of the work-group shapes: this many
 *                persistent work-groups per compute unit (at most one per
 *                tile), each sorting tile after tile and taking the next
 *                tile's number during its writes (0: a work-group per tile)
 *   os_persist_wide  os_persist for 8-byte keys without values (0:
 *                os_persist; a spec that sets os_persist without it sets it
 *                to 0)
 *   big_min, big_wg, big_items  onesweep sorts of keys alone of up to 4
 *                bytes from big_min keys on (0: never) take tiles of big_wg
 *                work-items of big_items keys (0: os_wg, os_items; a spec
 *                that sets os_wg or os_items without them sets them to 0):
 *                larger tiles where there are tiles enough to fill the
 *                device (H100, u32 256M: 384 x 28 5.345 ms against 5.558 for
 *                256 x 24; 4M: 0.151 against 0.148)
 *   big_min_pairs, big_wg_pairs, big_items_pairs  the same for sorts of
 *                keys up to 4 bytes that carry values of up to 4 bytes (0:
 *                os_wg_pairs, os_items_pairs; a spec that sets os_wg or
 *                os_wg_pairs without big_wg_pairs sets it to 0,
 *                os_items_pairs without big_items_pairs likewise) (H100,
 *                u32 pairs 256M: 384 x 24 8.808 ms against 8.991 for 512 x
 *                16; 8M: 0.348 against 0.349; 1M: 4% slower)
 *   small_max    sorts of up to this many keys run as one bitonic work-group
 *   prologue_max radix sorts of up to this many keys count and plan in one
 *                work-group (one launch instead of three)
 *   fused_max    onesweep sorts (one portion, LSD order) of up to this many
 *                keys above prologue_max zero, count and plan in one launch
 *                whose last work-group to finish plans
 *   seg_wg, seg_items  the onesweep shape of the segments' work-groups
 *                (clsort_radix_segments) for keys alone of up to 4 bytes
 *                (0: os_wg, os_items): their tile bounds the longest segment
 *   small_items, small_items_max  onesweep sorts of up to small_items_max
 *                keys take at most small_items keys per work-item (more,
 *                shorter tiles where latency, not throughput, bounds)
 *   chain_max    onesweep sorts (one portion, LSD order) of up to this many
 *                keys run every pass in one launch, a pass's tiles waiting
 *                for the previous pass's
 *   single_max   onesweep sorts of up to this many keys that fit one tile
 *                run whole in one work-group, in one launch
 *   seg_radix_min  segmented sorts (AUTO) whose longest segment has at least
 *                this many elements and fits one onesweep tile: a radix
 *                work-group per segment, else bitonic work-groups
 *   seg_packed_max segmented sorts (AUTO) whose longest segment has at most
 *                this many elements: one radix sort of (segment, key) (it
 *                takes precedence over seg_radix_min)
 *   bt_wg, bt_cap  bitonic work-group size, and a cap on its capacity
 *   bt_regs      bitonic work-group network: each work-item keeps up to this
 *                many consecutive elements in registers, where the steps
 *                of distance below that need no local memory or barrier
 *                (0 or 1: every step through local memory)
 *   bt_fit_wg    a lone segment (a small sort, or an explicit bitonic sort
 *                that fits a work-group) runs a program built for its own
 *                length: capacity its power of two (at least 512),
 *                work-group size half that, at most bt_fit_wg (0: the
 *                shared program of bt_wg and bt_cap)
 *   sel_wg, sel_block  selection sort work-group and staging block
 *   scan_wg, scan_items  scan work-group and elements per work-item
 *   scan_onepass         the single-pass look-back scan (1) or reduce-then-scan (0)
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tuning_row {
    const char *what;      /* a note for readers */
    int gpu;               /* 1 GPU, 0 CPU, -1 any */
    clsort_vendor vendor;  /* CLSORT_VENDOR_OTHER: any vendor */
    const char *name_part; /* NULL: any name */
    unsigned min_cus;      /* at least this many compute units (0: any) */
    clsort_tuning t;
} tuning_row;

#define ONESWEEP CLSORT_ALGORITHM_ONESWEEP
#define CLASSIC CLSORT_ALGORITHM_CLASSIC
/* The PoCL rows' shape; LARGE_MIN: see large_bits. The plan in one
 * work-item (plan_wg 1): PoCL 5 on the 16-core Xeon planned u8 sorts of one
 * pass with 64 work-items as if the pass were constant (the flag that the
 * work-items set in local memory read back set where no digit held every
 * key: 5 in 10 sorts of 65537 keys came back unsorted, even on one thread,
 * and none with -cl-opt-disable, plan_wg 1 or no pass skipping; PoCL 3.1
 * never did it); one work-item plans 1024-6144 digit counts in microseconds */
#define POCL_CPU_ROW(LARGE_MIN)                                                               \
    {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 1, .os_items = 65536, .os_rank = 0,     \
     .cl_wg = 1, .cl_items = 1, .cl_groups = 1, .hist_wg = 1, .hist_items = 1,                \
     .hist_groups = 2, .plan_wg = 1, .skip_min = 0, .order_min = 1u << 16, .small_max = 0,    \
     .prologue_max = 0,                                                                       \
     .single_max = 16384, .seg_radix_min = 2, .seg_packed_max = 256, .bt_wg = 16,             \
     .bt_cap = 16384, .bt_regs = 16, .sel_wg = 64, .sel_block = 4096, .scan_wg = 64,          \
     .scan_items = 64, .scan_onepass = 1, .msd = 1, .large_bits = 11, .large_min = (LARGE_MIN), \
     .bucket_local = 3u << 19, .bucket_split = 3u << 18, .nt_min = 1u << 27,                \
     .tile_min = 1u << 27}
static const tuning_row table[] = {
    {"NVIDIA GPUs: onesweep, atomic_or ranking for keys, ballot for pairs, persistent work-groups for 8-byte keys alone (H100, H200, measured)", 1,
     CLSORT_VENDOR_NVIDIA, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 24,
      .os_rank = CLSORT_RANK_ATOMIC_OR, .os_wg_pairs = 512, .os_items_pairs = 16,
      .os_rank_pairs = 1 + CLSORT_RANK_BALLOT,
      .os_wg_wide = 256, .os_items_wide = 24, .lb_batch = 2, .lb_batch_pairs = 1,
      .os_persist_wide = 3, .big_min = 8u << 20, .big_wg = 384, .big_items = 28,
      .big_min_pairs = 8u << 20, .big_wg_pairs = 384, .big_items_pairs = 24,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 1024, .hist_items = 8,
      .hist_groups = 3, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 4096, .prologue_max = 0, .fused_max = 0x7fffffff, .chain_max = 262144,
      .small_items = 8, .small_items_max = 262144, .seg_wg = 512, .seg_items = 20, .single_max = 0, .seg_radix_min = 1025, .bt_wg = 512, .bt_fit_wg = 1024, .sel_wg = 256, .sel_block = 1024, .scan_onepass = 1, .scan_wg = 128, .scan_items = 32}},
    {"AMD GPUs: onesweep, portable ranking", 1, CLSORT_VENDOR_AMD, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 8, .os_rank = 1,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 256, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 2048, .prologue_max = 16384, .bt_wg = 256, .sel_wg = 256, .sel_block = 1024, .scan_wg = 256, .scan_items = 8}},
    {"Intel GPUs: onesweep, portable ranking", 1, CLSORT_VENDOR_INTEL, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 8, .os_rank = 1,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 256, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 2048, .prologue_max = 16384, .bt_wg = 256, .sel_wg = 256, .sel_block = 1024, .scan_wg = 256, .scan_items = 8}},
    /* PoCL on CPUs: the same shape by core count. 11-bit digits from 2M
     * keys (large_bits) save a pass and win on 2 cores (Xeon-2, u32 8M:
     * 39.2-39.5 against 43.3-44.6 ms; EPYC-2 likewise), but lost on the
     * 16-core Xeon (PoCL 5, three rounds alternating: u32 8M 409-583
     * against 662-729 MKeys/s, pairs 8M 307-335 against 381-524) */
    {"PoCL CPUs of 8 or more cores: one work-item per group, 64K-key tiles, 8-bit digits", 0,
     CLSORT_VENDOR_POCL, NULL, 8, POCL_CPU_ROW(0)},
    {"PoCL CPUs: one work-item per group, 64K-key tiles that stay in cache", 0,
     CLSORT_VENDOR_POCL, NULL, 0, POCL_CPU_ROW(1u << 21)},
    {"other CPUs: the classic strategy, CPU shape", 0, CLSORT_VENDOR_OTHER, NULL, 0,
     {.algorithm = CLASSIC, .radix_bits = 8, .os_wg = 1, .os_items = 65536, .os_rank = 0,
      .cl_wg = 1, .cl_items = 1, .cl_groups = 1, .hist_wg = 1, .hist_items = 1,
      .hist_groups = 2, .plan_wg = 64, .skip_min = 0,
      .small_max = 0, .prologue_max = 0, .bt_wg = 16, .bt_cap = 16384, .sel_wg = 64, .sel_block = 4096, .scan_wg = 64, .scan_items = 64}},
    {"default: the classic strategy needs no forward progress between groups", -1,
     CLSORT_VENDOR_OTHER, NULL, 0,
     {.algorithm = CLASSIC, .radix_bits = 8, .os_wg = 128, .os_items = 8, .os_rank = 1,
      .cl_wg = 128, .cl_items = 8, .cl_groups = 4, .hist_wg = 128, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 128, .skip_min = 1u << 20,
      .small_max = 0, .prologue_max = 16384, .bt_wg = 128, .sel_wg = 128, .sel_block = 1024, .scan_wg = 128, .scan_items = 8}},
};

/* The shapes whose kernels take digits wider than 8 bits. */
static bool cpu_shape(const clsort_tuning *t, unsigned algorithm)
{
    return (algorithm == CLSORT_ALGORITHM_ONESWEEP && t->os_rank == CLSORT_RANK_SERIAL) ||
           (algorithm == CLSORT_ALGORITHM_CLASSIC && t->cl_wg == 1);
}
static bool tuning_cpu_shape(const clsort_tuning *t) { return cpu_shape(t, t->algorithm); }

unsigned clsort_tuned_radix_bits(const clsort_tuning *t, size_t n, unsigned bits,
                                 unsigned algorithm)
{
    /* large_bits only where it saves a pass (16-bit keys take two passes
     * either way, and the narrower pair measured faster) and for at most 32
     * bits: 64-bit keys measured 1.7x slower with 11-bit digits than with 8
     * on EPYC-2 (each MSD bucket counts five 2048-bin digits in a 64 KiB
     * private array), where u32 keys at 8M are 1.14x faster */
    const unsigned r = t->radix_bits, w = t->large_bits;
    if (t->large_min && w && n >= t->large_min && bits <= 32 &&
        (w <= 8 || cpu_shape(t, algorithm)) &&
        (bits + w - 1) / w < (bits + r - 1) / r)
        return w;
    return r;
}

void clsort_tuning_for_device(const clsort_device_facts *f, clsort_tuning *out)
{
    size_t n = sizeof table / sizeof table[0];
    for (size_t i = 0; i < n; i++) {
        const tuning_row *r = &table[i];
        if (r->gpu == 1 && !f->is_gpu)
            continue;
        if (r->gpu == 0 && !f->is_cpu)
            continue;
        if (r->vendor != CLSORT_VENDOR_OTHER && r->vendor != f->vendor)
            continue;
        if (r->name_part && !strstr(f->device_name, r->name_part))
            continue;
        if (f->compute_units < r->min_cus)
            continue;
        *out = r->t;
        return;
    }
    *out = table[n - 1].t;
}

typedef struct field {
    const char *key;
    size_t offset;
    unsigned lo, hi;
    const char *help;
} field;

#define F(name, lo, hi, help) {#name, offsetof(clsort_tuning, name), lo, hi, help}
static const field fields[] = {
    F(algorithm, 1, 2, "radix strategy: onesweep or classic"),
    F(radix_bits, 1, 12, "digit width r of each pass (above 8: CPU shapes only)"),
    F(os_wg, 1, 1024, "onesweep work-group size (1: CPU shape)"),
    F(os_items, 1, 1u << 20, "onesweep keys per work-item (tile = os_wg * os_items)"),
    F(os_rank, 0, CLSORT_RANK_COUNT - 1,
      "onesweep tile ranking: serial, local, match, ballot or atomic_or"),
    F(os_items_pairs, 0, 1u << 20, "os_items when values are carried (0: same as os_items)"),
    F(os_wg_pairs, 0, 1024, "os_wg when values are carried (0: os_wg; a spec that sets os_wg alone sets this to 0)"),
    F(os_wg_wide, 0, 1024,
      "onesweep work-group size for 8-byte keys (0: os_wg; a spec that sets os_wg alone sets this to 0)"),
    F(os_items_wide, 0, 1u << 20,
      "onesweep keys per work-item for 8-byte keys, alone or with values (0: os_items, os_items_pairs; "
      "a spec that sets os_items alone sets this to 0)"),
    F(os_rank_pairs, 0, CLSORT_RANK_COUNT,
      "NVIDIA: match, ballot or atomic_or when values are carried (same: os_rank; a spec that "
      "sets os_rank alone sets this to same)"),
    F(cl_wg, 1, 1024, "classic count/scatter work-group size (1: CPU shape)"),
    F(cl_items, 1, 64, "classic keys per work-item in a scatter tile"),
    F(cl_groups, 1, 64, "classic work-groups per compute unit"),
    F(hist_wg, 1, 1024, "upfront histogram work-group size"),
    F(hist_items, 1, 64, "upfront histogram keys per work-item per round"),
    F(hist_groups, 1, 64, "upfront histogram work-groups per compute unit"),
    F(plan_wg, 1, 1024, "work-group size of the plan and offset scans"),
    F(skip_min, 0, 0x7fffffffu, "try pass skipping from this n on"),
    F(order_min, 0, 0x7fffffffu,
      "onesweep sorts from this n on: check for keys already in order or reversed (0: never)"),
    F(nv_maxreg, 0, 255, "NVIDIA: register cap for the onesweep kernel (0: none; driver 580 ignores it)"),
    F(msd, 0, 1, "with os_rank=serial: top digit first, then each bucket in cache (0: LSD only)"),
    F(bucket_local, 0, 1u << 30,
      "CPU shape, MSD order: bytes of local memory a bucket's passes may use (0: none, temp B)"),
    F(nt_min, 0, 0x7fffffffu,
      "CPU shape on x86-64: sorts of keys and values from this many bytes write whole lines by streaming stores (0: never)"),
    F(tile_min, 0, 0x7fffffffu,
      "CPU shape on x86-64, MSD order: sorts from this many bytes (and nt_min) sort by the top digit tile by tile, with no upfront count (0: never)"),
    F(bucket_split, 0, 0x7fffffffu,
      "CPU shape, MSD order: buckets of three passes from this many bytes split by their top digit first (0: never)"),
    F(large_bits, 0, 12,
      "digit width from n = large_min on, where it saves passes (above 8: CPU shapes; at most 32 bits sorted)"),
    F(large_min, 0, 0x7fffffffu, "use large_bits from this n on (0: never)"),
    F(portion_max, 0, 0x7fffffffu, "onesweep: most keys per portion (0: 2^30 - 1, the look-back limit)"),
    F(lb_batch, 0, 32, "onesweep: look-back words a tile reads per round trip (0: 1; work-group shapes)"),
    F(lb_batch_pairs, 0, 32, "lb_batch when values are carried (0: lb_batch; a spec that sets lb_batch alone sets this to 0)"),
    F(os_persist, 0, 64,
      "onesweep passes (work-group shapes): persistent work-groups per compute unit, each sorting tile after tile (0: a work-group per tile)"),
    F(os_persist_wide, 0, 64,
      "os_persist for 8-byte keys alone (0: os_persist; a spec that sets os_persist alone sets this to 0)"),
    F(big_min, 0, 0x7fffffffu,
      "onesweep sorts of keys alone up to 4 bytes from this n on take big_wg x big_items tiles (0: never)"),
    F(big_wg, 0, 1024, "the work-group size of those sorts (0: os_wg; a spec that sets os_wg alone sets this to 0)"),
    F(big_items, 0, 1u << 20,
      "their keys per work-item (0: os_items; a spec that sets os_items alone sets this to 0)"),
    F(big_min_pairs, 0, 0x7fffffffu,
      "onesweep sorts of keys and values up to 4 bytes from this n on take big_wg_pairs x big_items_pairs tiles (0: never)"),
    F(big_wg_pairs, 0, 1024,
      "the work-group size of those sorts (0: os_wg_pairs; a spec that sets os_wg or os_wg_pairs alone sets this to 0)"),
    F(big_items_pairs, 0, 1u << 20,
      "their keys per work-item (0: os_items_pairs; a spec that sets os_items_pairs alone sets this to 0)"),
    F(small_max, 0, 1u << 24, "sorts up to this n that fit bt_cap: one bitonic work-group (0: never)"),
    F(prologue_max, 0, 1u << 28, "radix sorts up to this n: counts and plan in one launch"),
    F(fused_max, 0, 0x7fffffffu,
      "onesweep sorts up to this n (one portion, LSD order): zero, count and plan in one launch "
      "(0: never)"),
    F(seg_wg, 0, 1024, "onesweep work-group size of segments of keys alone up to 4 bytes (0: os_wg; a spec that sets os_wg alone sets this to 0)"),
    F(seg_items, 0, 1u << 20, "onesweep keys per work-item of those segments (0: os_items; a spec that sets os_items alone sets this to 0)"),
    F(small_items, 0, 64, "onesweep: at most this many keys per work-item for sorts up to small_items_max (0: off)"),
    F(small_items_max, 0, 0x7fffffffu, "onesweep: the largest n that takes small_items"),
    F(chain_max, 0, 0x7fffffffu,
      "onesweep sorts up to this n (one portion, LSD order): every pass in one launch (0: never)"),
    F(single_max, 0, 1u << 30,
      "onesweep sorts up to this n and one tile: the whole sort in one work-group and one launch (0: never)"),
    F(seg_radix_min, 0, 1u << 30,
      "segmented sorts whose longest segment has at least this many elements and fits one onesweep "
      "tile: a radix work-group per segment (0: never)"),
    F(seg_packed_max, 0, 1u << 30,
      "segmented sorts whose longest segment has at most this many elements: one radix sort of "
      "(segment, key) (0: never)"),
    F(bt_wg, 1, 1024, "bitonic work-group size"),
    F(bt_cap, 0, 1u << 24, "most elements a bitonic work-group holds (0: what local memory allows)"),
    F(bt_regs, 0, 32, "bitonic elements per work-item in registers (0: all steps in local memory)"),
    F(bt_fit_wg, 0, 1024,
      "a lone bitonic segment: a program of its own power-of-two capacity, up to this work-group size (0: off)"),
    F(sel_wg, 1, 1024, "selection sort work-group size"),
    F(sel_block, 1, 65536, "selection sort keys staged in local memory per round"),
    F(scan_wg, 1, 1024, "scan work-group size"),
    F(scan_items, 1, 256, "scan elements per work-item (fewer where the device's local memory is short)"),
    F(scan_onepass, 0, 1, "1: single-pass look-back scan; 0: reduce, scan the sums, scan"),
};
#undef F
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const algorithm_names[] = {NULL, "onesweep", "classic"};
static const char *const rank_names[CLSORT_RANK_COUNT] = {"serial", "local", "match", "ballot",
                                                          "atomic_or"};

const char *clsort_tuning_keys(void)
{
    static char text[8192]; /* the list takes about 3.6 KiB */
    if (!text[0]) {
        size_t len = 0;
        for (size_t i = 0; i < NFIELDS && len < sizeof text; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%-14s %s\n", fields[i].key,
                                    fields[i].help);
    }
    return text;
}

static bool parse_value(const field *fd, const char *v, size_t vlen, unsigned *out)
{
    char buf[32];
    if (vlen == 0 || vlen >= sizeof buf)
        return false;
    memcpy(buf, v, vlen);
    buf[vlen] = '\0';
    if (!strcmp(fd->key, "algorithm")) {
        for (unsigned i = 1; i < 3; i++)
            if (!strcmp(buf, algorithm_names[i])) {
                *out = i;
                return true;
            }
    }
    if (!strcmp(fd->key, "os_rank")) {
        for (unsigned i = 0; i < CLSORT_RANK_COUNT; i++)
            if (!strcmp(buf, rank_names[i])) {
                *out = i;
                return true;
            }
    }
    if (!strcmp(fd->key, "os_rank_pairs")) { /* same, or 1 + a rank */
        if (!strcmp(buf, "same")) {
            *out = 0;
            return true;
        }
        for (unsigned i = 0; i < CLSORT_RANK_COUNT; i++)
            if (!strcmp(buf, rank_names[i])) {
                *out = i + 1;
                return true;
            }
    }
    char *end = NULL;
    unsigned long x = strtoul(buf, &end, 0);
    if (!end || *end || buf[0] == '-')
        return false;
    if (x < fd->lo || x > fd->hi)
        return false;
    *out = (unsigned)x;
    return true;
}

clsort_status clsort_tuning_apply(clsort_tuning *t, const char *spec, char *err, size_t errsize)
{
    clsort_tuning tmp = *t;
    bool named[NFIELDS] = {false};
    const char *p = spec;
    while (p && *p) {
        while (*p == ',' || *p == ' ')
            p++;
        if (!*p)
            break;
        const char *eq = strchr(p, '=');
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end) {
            snprintf(err, errsize, "expected key=value at '%.*s'", (int)(end - p), p);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        const field *fd = NULL;
        for (size_t i = 0; i < NFIELDS; i++)
            if (strlen(fields[i].key) == (size_t)(eq - p) && !strncmp(fields[i].key, p, (size_t)(eq - p)))
                fd = &fields[i];
        if (!fd) {
            snprintf(err, errsize, "unknown tuning key '%.*s' (keys: see clsort_tuning_keys)",
                     (int)(eq - p), p);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        unsigned v;
        if (!parse_value(fd, eq + 1, (size_t)(end - eq - 1), &v)) {
            snprintf(err, errsize, "bad value '%.*s' for %s (range %u..%u)", (int)(end - eq - 1),
                     eq + 1, fd->key, fd->lo, fd->hi);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        *(unsigned *)((char *)&tmp + fd->offset) = v;
        named[fd - fields] = true;
        p = end;
    }
    /* a spec that names the ranking or the shape means it for pairs and
     * 8-byte keys too, unless it names their own (0: follow the main one) */
    static const struct {
        size_t main, follower;
    } follows[] = {
        {offsetof(clsort_tuning, os_rank), offsetof(clsort_tuning, os_rank_pairs)},
        {offsetof(clsort_tuning, os_wg), offsetof(clsort_tuning, os_wg_wide)},
        {offsetof(clsort_tuning, os_wg), offsetof(clsort_tuning, os_wg_pairs)},
        {offsetof(clsort_tuning, os_wg), offsetof(clsort_tuning, seg_wg)},
        {offsetof(clsort_tuning, os_items), offsetof(clsort_tuning, seg_items)},
        {offsetof(clsort_tuning, os_items), offsetof(clsort_tuning, os_items_wide)},
        {offsetof(clsort_tuning, lb_batch), offsetof(clsort_tuning, lb_batch_pairs)},
        {offsetof(clsort_tuning, os_persist), offsetof(clsort_tuning, os_persist_wide)},
        {offsetof(clsort_tuning, os_wg), offsetof(clsort_tuning, big_wg)},
        {offsetof(clsort_tuning, os_items), offsetof(clsort_tuning, big_items)},
        {offsetof(clsort_tuning, os_wg), offsetof(clsort_tuning, big_wg_pairs)},
        {offsetof(clsort_tuning, os_wg_pairs), offsetof(clsort_tuning, big_wg_pairs)},
        {offsetof(clsort_tuning, os_items_pairs), offsetof(clsort_tuning, big_items_pairs)},
    };
    for (size_t f = 0; f < sizeof follows / sizeof follows[0]; f++) {
        bool main_named = false, follower_named = false;
        for (size_t i = 0; i < NFIELDS; i++) {
            main_named |= named[i] && fields[i].offset == follows[f].main;
            follower_named |= named[i] && fields[i].offset == follows[f].follower;
        }
        if (main_named && !follower_named)
            *(unsigned *)((char *)&tmp + follows[f].follower) = 0;
    }
    *t = tmp;
    return CLSORT_SUCCESS;
}

size_t clsort_tuning_format(const clsort_tuning *t, char *buf, size_t size)
{
    size_t len = 0;
    char tmp[2048]; /* all fields take about 900 characters */
    for (size_t i = 0; i < NFIELDS && len < sizeof tmp; i++) {
        unsigned v = *(const unsigned *)((const char *)t + fields[i].offset);
        int w;
        if (!strcmp(fields[i].key, "algorithm") && v >= 1 && v <= 2)
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%s", i ? "," : "", fields[i].key,
                         algorithm_names[v]);
        else if (!strcmp(fields[i].key, "os_rank") && v < CLSORT_RANK_COUNT)
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%s", i ? "," : "", fields[i].key,
                         rank_names[v]);
        else if (!strcmp(fields[i].key, "os_rank_pairs") && v <= CLSORT_RANK_COUNT)
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%s", i ? "," : "", fields[i].key,
                         v ? rank_names[v - 1] : "same");
        else
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%u", i ? "," : "", fields[i].key, v);
        len += (size_t)w;
    }
    if (size)
        snprintf(buf, size, "%s", tmp);
    return len;
}

/* The checks of one onesweep shape (os_wg, os_items, os_items_pairs and both
 * rankings); clsort_tuning_check runs them on the main shape and on the
 * shape of 8-byte keys. */
static clsort_status check_shape(const clsort_tuning *t, const clsort_device_facts *f, char *err,
                                 size_t errsize)
{
    const unsigned wg_pairs = t->os_wg_pairs ? t->os_wg_pairs : t->os_wg;
    const unsigned wg_seg = t->seg_wg ? t->seg_wg : t->os_wg;
    const unsigned wgs[] = {t->os_wg, t->cl_wg, t->hist_wg, t->plan_wg, wg_pairs, wg_seg};
    const char *names[] = {"os_wg", "cl_wg", "hist_wg", "plan_wg", "os_wg_pairs", "seg_wg"};
    for (int i = 0; i < 6; i++) {
        if (wgs[i] > f->max_work_group_size) {
            snprintf(err, errsize, "%s=%u exceeds the device's work-group limit %zu", names[i],
                     wgs[i], f->max_work_group_size);
            return CLSORT_ERROR_INVALID_TUNING;
        }
    }
    if (t->bt_regs & (t->bt_regs - 1)) {
        snprintf(err, errsize, "bt_regs must be 0 or a power of two");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->sel_block % t->sel_wg) {
        snprintf(err, errsize, "sel_block must be a multiple of sel_wg");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    const unsigned more[] = {t->bt_wg, t->sel_wg, t->scan_wg};
    const char *more_names[] = {"bt_wg", "sel_wg", "scan_wg"};
    for (int i = 0; i < 3; i++)
        if (more[i] > f->max_work_group_size) {
            snprintf(err, errsize, "%s=%u exceeds the device's work-group limit %zu", more_names[i],
                     more[i], f->max_work_group_size);
            return CLSORT_ERROR_INVALID_TUNING;
        }
    if (t->os_rank == CLSORT_RANK_SERIAL && t->os_wg != 1) {
        snprintf(err, errsize, "os_rank=serial needs os_wg=1");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if ((wg_seg == 1) != (t->os_wg == 1)) {
        snprintf(err, errsize, "seg_wg=%u: the serial shape (os_wg=1) is for segments too", wg_seg);
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->os_rank >= CLSORT_RANK_MATCH &&
        (wg_seg % 32 || (uint64_t)wg_seg * (t->seg_items ? t->seg_items : t->os_items) > 65536)) {
        snprintf(err, errsize, "os_rank=%s needs seg_wg a multiple of 32 and seg_wg * seg_items "
                 "<= 65536", rank_names[t->os_rank]);
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if ((wg_pairs == 1) != (t->os_wg == 1)) {
        snprintf(err, errsize, "os_wg_pairs=%u: the serial shape (os_wg=1) is for keys and pairs "
                 "alike", wg_pairs);
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->os_rank != CLSORT_RANK_SERIAL && t->os_wg == 1) {
        snprintf(err, errsize, "os_wg=1 needs os_rank=serial");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->os_rank_pairs &&
        (t->os_rank < CLSORT_RANK_MATCH || t->os_rank_pairs - 1 < CLSORT_RANK_MATCH)) {
        snprintf(err, errsize, "os_rank_pairs chooses between the warp rankings (match, ballot, "
                 "atomic_or) and needs os_rank to be one of them");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->os_rank >= CLSORT_RANK_MATCH) {
        if (f->vendor != CLSORT_VENDOR_NVIDIA) {
            snprintf(err, errsize, "os_rank=%s needs NVIDIA's OpenCL (inline PTX)",
                     rank_names[t->os_rank]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        if (t->os_wg % 32 || wg_pairs % 32) {
            snprintf(err, errsize, "os_rank=%s needs os_wg%s a multiple of 32",
                     rank_names[t->os_rank], t->os_wg % 32 ? "" : "_pairs");
            return CLSORT_ERROR_INVALID_TUNING;
        }
    }
    if (t->radix_bits > 8 && !tuning_cpu_shape(t)) {
        snprintf(err, errsize, "radix_bits=%u needs a CPU shape (os_rank=serial, or classic with "
                 "cl_wg=1)", t->radix_bits);
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->cl_wg > 1 && (uint64_t)t->cl_wg * t->cl_items > 65536) {
        snprintf(err, errsize, "cl_wg * cl_items must be at most 65536");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    /* the tiles of keys alone and of pairs */
    const unsigned items_pairs = t->os_items_pairs ? t->os_items_pairs : t->os_items;
    const unsigned rank_pairs = t->os_rank_pairs ? t->os_rank_pairs - 1 : t->os_rank;
    const uint64_t tiles[2] = {(uint64_t)t->os_wg * t->os_items, (uint64_t)wg_pairs * items_pairs};
    const unsigned tile_wgs[2] = {t->os_wg, wg_pairs};
    const unsigned ranks[2] = {t->os_rank, rank_pairs};
    const char *const tile_names[2] = {"os_items", "os_items_pairs"};
    for (int i = 0; i < 2; i++) {
        if ((ranks[i] >= CLSORT_RANK_MATCH || ranks[i] == CLSORT_RANK_LOCAL) && tiles[i] > 65536) {
            snprintf(err, errsize, "os_rank%s=%s needs os_wg%s * %s <= 65536 (16-bit ranks)",
                     i ? "_pairs" : "", rank_names[ranks[i]], i ? "_pairs" : "", tile_names[i]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        if (tiles[i] > (1u << 28)) {
            snprintf(err, errsize, "the onesweep tile os_wg * %s must be at most 2^28",
                     tile_names[i]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        /* the warp rankings' counters (and masks) need local memory before
         * any key: a work-group too large for it could never run */
        if (ranks[i] >= CLSORT_RANK_MATCH) {
            const unsigned r = t->radix_bits < 8 ? t->radix_bits : 8;
            const size_t need =
                clsort_onesweep_local_bytes(ranks[i], tile_wgs[i], 1, 1u << r, 1, 0, 8);
            if (need > f->local_mem_bytes) {
                snprintf(err, errsize, "os_rank%s=%s with os_wg%s=%u needs %zu bytes of local "
                         "memory before any keys; the device has %zu",
                         i ? "_pairs" : "", rank_names[ranks[i]], i ? "_pairs" : "", tile_wgs[i], need,
                         (size_t)f->local_mem_bytes);
                return CLSORT_ERROR_INVALID_TUNING;
            }
        }
    }
    return CLSORT_SUCCESS;
}

/* check_shape on a variant of the tuning (the shape one kind of sort
 * takes), the error prefixed with the variant's name */
static clsort_status check_variant(const clsort_tuning *v, const clsort_device_facts *f,
                                   const char *name, char *err, size_t errsize)
{
    char inner[256];
    if (check_shape(v, f, inner, sizeof inner) == CLSORT_SUCCESS)
        return CLSORT_SUCCESS;
    snprintf(err, errsize, "%s: %s", name, inner);
    return CLSORT_ERROR_INVALID_TUNING;
}

clsort_status clsort_tuning_check(const clsort_tuning *t, const clsort_device_facts *f, char *err,
                                  size_t errsize)
{
    clsort_status st = check_shape(t, f, err, errsize);
    if (st != CLSORT_SUCCESS)
        return st;
    char name[128];
    if (t->big_min && (t->big_wg || t->big_items)) {
        /* the shape of large sorts of keys alone (pairs and segments keep theirs) */
        clsort_tuning b = *t;
        b.os_wg = t->big_wg ? t->big_wg : t->os_wg;
        b.os_items = t->big_items ? t->big_items : t->os_items;
        b.os_wg_pairs = t->os_wg_pairs ? t->os_wg_pairs : t->os_wg;
        b.os_items_pairs = t->os_items_pairs ? t->os_items_pairs : t->os_items;
        b.seg_wg = t->seg_wg ? t->seg_wg : t->os_wg;
        b.seg_items = t->seg_items ? t->seg_items : t->os_items;
        b.os_wg_wide = b.os_items_wide = 0;
        snprintf(name, sizeof name, "big_wg=%u, big_items=%u (keys alone from big_min=%u)",
                 t->big_wg, t->big_items, t->big_min);
        CLSORT_TRY(check_variant(&b, f, name, err, errsize));
    }
    if (t->big_min_pairs && (t->big_wg_pairs || t->big_items_pairs)) {
        /* the shape of large sorts of keys with values */
        clsort_tuning b = *t;
        b.os_wg_pairs = t->big_wg_pairs ? t->big_wg_pairs : t->os_wg_pairs;
        b.os_items_pairs = t->big_items_pairs ? t->big_items_pairs : t->os_items_pairs;
        b.os_wg_wide = b.os_items_wide = 0;
        snprintf(name, sizeof name,
                 "big_wg_pairs=%u, big_items_pairs=%u (pairs from big_min_pairs=%u)",
                 t->big_wg_pairs, t->big_items_pairs, t->big_min_pairs);
        CLSORT_TRY(check_variant(&b, f, name, err, errsize));
    }
    if (t->os_wg_wide || t->os_items_wide) {
        /* the shape of 8-byte keys: keys alone and pairs both take os_items_wide */
        clsort_tuning w = *t;
        w.os_wg = t->os_wg_wide ? t->os_wg_wide : t->os_wg;
        w.os_items = t->os_items_wide ? t->os_items_wide : t->os_items;
        w.os_items_pairs = t->os_items_wide ? t->os_items_wide : t->os_items_pairs;
        w.os_wg_wide = w.os_items_wide = w.os_wg_pairs = 0;
        snprintf(name, sizeof name, "os_wg_wide=%u, os_items_wide=%u (8-byte keys)",
                 t->os_wg_wide, t->os_items_wide);
        CLSORT_TRY(check_variant(&w, f, name, err, errsize));
    }
    return CLSORT_SUCCESS;
}

/* tuning.c - every tuned number of clsort, in one table keyed by device.
 *
 * A row matches on device type, vendor, (optionally) a substring of the
 * device name and a least number of compute units; the first matching row
 * wins, the last row is the default. `clsort tune` measures candidates on
 * the present device and saves the winner in the cache folder (context.c
 * loads it over the table row), and $CLSORT_TUNING or
 * clsort_context_set_tuning() override single keys.
 *
 * The keys, what each means and which key each follows are declared once,
 * in tuning_keys.h; this file parses and writes specs from those lists,
 * and checks a tuning against the device. docs/TUNING.md shows the keys and
 * the rows (generated: tests/tuning_doc.c); each row names where the
 * measurements behind its values are (`see`), in docs/PERFORMANCE.md's
 * decision log and the raw files of docs/perf. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONESWEEP CLSORT_ALGORITHM_ONESWEEP
#define CLASSIC CLSORT_ALGORITHM_CLASSIC
/* The PoCL rows' shape; LARGE_MIN: see large_bits. plan_wg 1 (the plan in
 * one work-item) for correctness: PoCL 5 planned one-pass u8 sorts with 64
 * work-items as if the pass were constant (PERFORMANCE.md, decision log,
 * area CPU, `plan_wg`, `5b4b5b0`); one work-item plans in microseconds.
 * fill_min: the few keys' check where the plan leaves MSD order (decision
 * log, area CPU, the check after the pending plan); sample_few: the check
 * by the set first where the sample's keys look few (decision log, area
 * CPU, sample_few). */
#define POCL_CPU_ROW(LARGE_MIN, MSD_BOUND, TILE_MIN)                                          \
    {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 1, .os_items = 65536, .os_rank = 0,     \
     .cl_wg = 1, .cl_items = 1, .cl_groups = 1, .hist_wg = 1, .hist_items = 1,                \
     .hist_groups = 2, .plan_wg = 1, .skip_min = 0, .order_min = 1u << 16, .small_max = 0,    \
     .prologue_max = 0,                                                                       \
     .single_max = 16384, .seg_radix_min = 2, .seg_packed_max = 256, .bt_wg = 16,             \
     .bt_cap = 16384, .bt_regs = 16, .sel_wg = 64, .sel_block = 4096, .scan_wg = 64,          \
     .scan_items = 64, .scan_onepass = 1, .msd = 1, .msd_bound = (MSD_BOUND),                 \
     .large_bits = 11, .large_min = (LARGE_MIN),                                              \
     .bucket_local = 3u << 19, .bucket_split = 3u << 18, .nt_min = (TILE_MIN),              \
     .tile_min = (TILE_MIN), .fill_min = 1u << 23, .sample_few = 1}
#define POCL_SEE                                                                              \
    "docs/PERFORMANCE.md, decision log, areas: CPU; GPU small (single_max); segments "        \
    "(seg_radix_min, seg_packed_max, bt_regs); scan (scan_onepass)"
static const clsort_tuning_row table[] = {
    {"NVIDIA GPUs: onesweep, atomic_or ranking for keys (match.any in tiles of few digits a row), "
     "ballot for pairs, persistent "
     "work-groups for 8-byte keys alone (H100, H200, measured)",
     "docs/PERFORMANCE.md, decision log, areas: GPU pass, GPU count, GPU small, segments, scan",
     1, CLSORT_VENDOR_NVIDIA, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 24,
      .os_rank = CLSORT_RANK_ATOMIC_OR, .os_wg_pairs = 512, .os_items_pairs = 16,
      .os_rank_pairs = 1 + CLSORT_RANK_BALLOT,
      .os_wg_wide = 256, .os_items_wide = 24, .lb_batch = 2, .lb_batch_pairs = 1,
      .os_match_max = 12,
      .os_persist_wide = 3,
      .big_min_pairs = 8u << 20, .big_wg_pairs = 384, .big_items_pairs = 24,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 1024, .hist_items = 8,
      .hist_groups = 3, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 4096, .prologue_max = 0, .fused_max = 0x7fffffff, .chain_max = 262144,
      .fill_min = 1u << 23,
      .small_items = 8, .small_items_max = 262144, .seg_wg = 512, .seg_items = 20,
      .single_max = 0, .seg_radix_min = 1025, .bt_wg = 512, .bt_fit_wg = 1024, .sel_wg = 256,
      .sel_block = 1024, .scan_onepass = 1, .scan_wg = 128, .scan_items = 32}},
    {"AMD GPUs: onesweep, portable ranking", "not measured", 1, CLSORT_VENDOR_AMD, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 8, .os_rank = 1,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 256, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 2048, .prologue_max = 16384, .bt_wg = 256, .sel_wg = 256, .sel_block = 1024,
      .scan_wg = 256, .scan_items = 8}},
    {"Intel GPUs: onesweep, portable ranking", "not measured", 1, CLSORT_VENDOR_INTEL, NULL, 0,
     {.algorithm = ONESWEEP, .radix_bits = 8, .os_wg = 256, .os_items = 8, .os_rank = 1,
      .cl_wg = 256, .cl_items = 8, .cl_groups = 4, .hist_wg = 256, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 256, .skip_min = 1u << 20, .order_min = 1u << 20,
      .small_max = 2048, .prologue_max = 16384, .bt_wg = 256, .sel_wg = 256, .sel_block = 1024,
      .scan_wg = 256, .scan_items = 8}},
    /* PoCL on CPUs: the same shape by core count; 11-bit digits from 2M keys
     * (large_bits) only below 8 cores (PERFORMANCE.md, decision log, area
     * CPU, `7daeba0`); below 8 cores MSD order takes top-digit buckets up to
     * a compute unit's share (msd_bound 16), from 8 a quarter of it; from 8
     * cores the top digit from tiles and streaming stores from 4 MiB, below
     * from 128 MiB */
    {"PoCL CPUs of 8 or more cores: one work-item per group, 64K-key tiles, 8-bit digits",
     POCL_SEE, 0, CLSORT_VENDOR_POCL, NULL, 8, POCL_CPU_ROW(0, 4, 1u << 22)},
    {"PoCL CPUs: one work-item per group, 64K-key tiles that stay in cache", POCL_SEE, 0,
     CLSORT_VENDOR_POCL, NULL, 0, POCL_CPU_ROW(1u << 21, 16, 1u << 27)},
    {"other CPUs: the classic strategy, CPU shape", "not measured", 0, CLSORT_VENDOR_OTHER,
     NULL, 0,
     {.algorithm = CLASSIC, .radix_bits = 8, .os_wg = 1, .os_items = 65536, .os_rank = 0,
      .cl_wg = 1, .cl_items = 1, .cl_groups = 1, .hist_wg = 1, .hist_items = 1,
      .hist_groups = 2, .plan_wg = 64, .skip_min = 0,
      .small_max = 0, .prologue_max = 0, .bt_wg = 16, .bt_cap = 16384, .sel_wg = 64,
      .sel_block = 4096, .scan_wg = 64, .scan_items = 64}},
    {"default: the classic strategy needs no forward progress between groups", "not measured",
     -1, CLSORT_VENDOR_OTHER, NULL, 0,
     {.algorithm = CLASSIC, .radix_bits = 8, .os_wg = 128, .os_items = 8, .os_rank = 1,
      .cl_wg = 128, .cl_items = 8, .cl_groups = 4, .hist_wg = 128, .hist_items = 8,
      .hist_groups = 8, .plan_wg = 128, .skip_min = 1u << 20,
      .small_max = 0, .prologue_max = 16384, .bt_wg = 128, .sel_wg = 128, .sel_block = 1024,
      .scan_wg = 128, .scan_items = 8}},
};
#define NROWS (sizeof table / sizeof table[0])

const clsort_tuning_row *clsort_tuning_rows(size_t *count)
{
    *count = NROWS;
    return table;
}

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
     * bits: 64-bit keys were slower with 11-bit digits, each MSD bucket
     * counting five 2048-bin digits in a 64 KiB private array
     * (PERFORMANCE.md, decision log, area CPU: 11-bit digits; DESIGN.md,
     * "Digit width by size") */
    const unsigned r = t->radix_bits, w = t->large_bits;
    if (t->large_min && w && n >= t->large_min && bits <= 32 &&
        (w <= 8 || cpu_shape(t, algorithm)) &&
        (bits + w - 1) / w < (bits + r - 1) / r)
        return w;
    return r;
}

void clsort_tuning_for_device(const clsort_device_facts *f, clsort_tuning *out)
{
    for (size_t i = 0; i < NROWS; i++) {
        const clsort_tuning_row *r = &table[i];
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
    *out = table[NROWS - 1].t;
}

/* ------------------------------------------------------------------ keys */

/* The named kinds' names by value (tuning_keys.h). */
static const char *const names_NUM[] = CLSORT_TUNING_NAMES_NUM;
static const char *const names_ALGORITHM[] = CLSORT_TUNING_NAMES_ALGORITHM;
static const char *const names_RANK[] = CLSORT_TUNING_NAMES_RANK;
static const char *const names_RANK_PAIRS[] = CLSORT_TUNING_NAMES_RANK_PAIRS;
#define NNAMES(a) (unsigned)(sizeof a / sizeof a[0])
_Static_assert(NNAMES(names_RANK) == CLSORT_RANK_COUNT, "a name for each ranking");
_Static_assert(NNAMES(names_ALGORITHM) == CLSORT_ALGORITHM_CLASSIC + 1, "the radix strategies");

/* The keys' indices; KEY_none: follows no key. */
enum {
    KEY_none = -1,
#define KEY_INDEX(key, kind, lo, hi, follows, help) KEY_##key,
    CLSORT_TUNING_KEYS(KEY_INDEX)
#undef KEY_INDEX
    NKEYS
};
/* A key follows only keys before it (so one pass in order applies the
 * rule, through chains too). */
#define FOLLOWS_EARLIER(key, kind, lo, hi, follows, help)                                     \
    _Static_assert(KEY_##follows < KEY_##key, #key " follows a key declared after it");
CLSORT_TUNING_KEYS(FOLLOWS_EARLIER)
#undef FOLLOWS_EARLIER

static const clsort_tuning_key keys[NKEYS] = {
#define KEY_ENTRY(key, kind, lo, hi, follows, help)                                           \
    {#key, offsetof(clsort_tuning, key), lo, hi, names_##kind, NNAMES(names_##kind),           \
     KEY_##follows, help},
    CLSORT_TUNING_KEYS(KEY_ENTRY)
#undef KEY_ENTRY
};

static const clsort_tuning_removed_key removed[] = {
#define REMOVED_ENTRY(key, noop, why, instead) {#key, noop, why, instead},
    CLSORT_TUNING_REMOVED(REMOVED_ENTRY)
#undef REMOVED_ENTRY
};
#define NREMOVED (sizeof removed / sizeof removed[0])

const clsort_tuning_key *clsort_tuning_key_list(size_t *count)
{
    *count = NKEYS;
    return keys;
}

const clsort_tuning_removed_key *clsort_tuning_removed_list(size_t *count)
{
    *count = NREMOVED;
    return removed;
}

const char *clsort_tuning_keys(void)
{
    static char text[16384]; /* the list takes about 8 KiB */
    if (!text[0]) {
        size_t len = 0;
        for (size_t i = 0; i < NKEYS && len < sizeof text; i++) {
            const clsort_tuning_key *k = &keys[i];
            len += (size_t)snprintf(text + len, sizeof text - len, "%-15s %s", k->key, k->help);
            /* the keys it follows, through chains */
            for (int m = k->follows; m >= 0 && len < sizeof text; m = keys[m].follows)
                len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
                                        m == k->follows ? "; a spec that sets " : " or ",
                                        keys[m].key);
            if (len < sizeof text && k->follows >= 0)
                len += (size_t)snprintf(text + len, sizeof text - len, " alone sets this to %s",
                                        k->names[0] ? k->names[0] : "0");
            if (len < sizeof text)
                len += (size_t)snprintf(text + len, sizeof text - len, "\n");
        }
    }
    return text;
}

static unsigned *field(clsort_tuning *t, size_t i)
{
    return (unsigned *)((char *)t + keys[i].offset);
}

/* A number (decimal, 0x hex or 0 octal) of at most 31 characters. */
static bool parse_number(const char *v, size_t vlen, unsigned long *out)
{
    char buf[32];
    if (vlen == 0 || vlen >= sizeof buf)
        return false;
    memcpy(buf, v, vlen);
    buf[vlen] = '\0';
    char *end = NULL;
    *out = strtoul(buf, &end, 0);
    return end && !*end && buf[0] != '-';
}

/* The value of a key: one of its kind's names, else a number in its range. */
static bool parse_value(const clsort_tuning_key *k, const char *v, size_t vlen, unsigned *out)
{
    for (unsigned i = 0; i < k->nnames; i++)
        if (k->names[i] && strlen(k->names[i]) == vlen && !strncmp(v, k->names[i], vlen)) {
            *out = i;
            return true;
        }
    unsigned long x;
    if (!parse_number(v, vlen, &x) || x < k->lo || x > k->hi)
        return false;
    *out = (unsigned)x;
    return true;
}

/* A bad value's message: the key's names, if any, and its range. */
static void bad_value(const clsort_tuning_key *k, const char *v, size_t vlen, char *err,
                      size_t errsize)
{
    char names[128] = "";
    size_t len = 0;
    for (unsigned i = 0; i < k->nnames && len < sizeof names; i++)
        if (k->names[i])
            len += (size_t)snprintf(names + len, sizeof names - len, "%s, ", k->names[i]);
    snprintf(err, errsize, "bad value '%.*s' for %s (%s%srange %u..%u)", (int)vlen, v, k->key,
             names, names[0] ? "or the " : "", k->lo, k->hi);
}

static clsort_status apply(clsort_tuning *t, const char *spec, bool saved, char *err,
                           size_t errsize)
{
    clsort_tuning tmp = *t;
    bool named[NKEYS] = {false};
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
        const size_t klen = (size_t)(eq - p), vlen = (size_t)(end - eq - 1);
        size_t i = 0;
        while (i < NKEYS && !(strlen(keys[i].key) == klen && !strncmp(keys[i].key, p, klen)))
            i++;
        if (i == NKEYS) {
            size_t r = 0;
            while (r < NREMOVED &&
                   !(strlen(removed[r].key) == klen && !strncmp(removed[r].key, p, klen)))
                r++;
            unsigned long x;
            if (r < NREMOVED && saved && parse_number(eq + 1, vlen, &x) && x == removed[r].noop) {
                p = end; /* a tuning saved before the key's removal */
                continue;
            }
            if (r < NREMOVED)
                snprintf(err, errsize, "tuning key '%s' was removed: %s; instead: %s",
                         removed[r].key, removed[r].why, removed[r].instead);
            else
                snprintf(err, errsize, "unknown tuning key '%.*s' (keys: see clsort_tuning_keys)",
                         (int)klen, p);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        unsigned v;
        if (!parse_value(&keys[i], eq + 1, vlen, &v)) {
            bad_value(&keys[i], eq + 1, vlen, err, errsize);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        *field(&tmp, i) = v;
        named[i] = true;
        p = end;
    }
    /* a key the spec does not name follows its key (tuning_keys.h): a spec
     * that names the ranking or the shape means it for pairs and 8-byte
     * keys too (0: as the key followed); in order, so that a key set to 0
     * by following takes its followers with it */
    bool zeroed[NKEYS] = {false};
    for (size_t i = 0; i < NKEYS; i++) {
        const int m = keys[i].follows;
        if (m >= 0 && !named[i] && (named[m] || zeroed[m])) {
            *field(&tmp, i) = 0;
            zeroed[i] = true;
        }
    }
    *t = tmp;
    return CLSORT_SUCCESS;
}

clsort_status clsort_tuning_apply(clsort_tuning *t, const char *spec, char *err, size_t errsize)
{
    return apply(t, spec, false, err, errsize);
}

clsort_status clsort_tuning_apply_saved(clsort_tuning *t, const char *spec, char *err,
                                        size_t errsize)
{
    return apply(t, spec, true, err, errsize);
}

size_t clsort_tuning_format(const clsort_tuning *t, char *buf, size_t size)
{
    size_t len = 0;
    char tmp[2048]; /* all keys take about 900 characters */
    for (size_t i = 0; i < NKEYS && len < sizeof tmp; i++) {
        const clsort_tuning_key *k = &keys[i];
        const unsigned v = *(const unsigned *)((const char *)t + k->offset);
        const char *name = v < k->nnames ? k->names[v] : NULL;
        int w;
        if (name)
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%s", i ? "," : "", k->key, name);
        else
            w = snprintf(tmp + len, sizeof tmp - len, "%s%s=%u", i ? "," : "", k->key, v);
        len += (size_t)w;
    }
    if (size)
        snprintf(buf, size, "%s", tmp);
    return len;
}

/* ---------------------------------------------------------------- checks */

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
    if (t->os_rank == CLSORT_RANK_MATCH || t->os_rank_pairs == 1 + CLSORT_RANK_MATCH) {
        snprintf(err, errsize, "os_rank%s=match was removed (the match.any ranking, slower than "
                 "the others on the H100); use ballot or atomic_or",
                 t->os_rank == CLSORT_RANK_MATCH ? "" : "_pairs");
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
    if (t->os_rank >= CLSORT_RANK_WARP &&
        (wg_seg % 32 || (uint64_t)wg_seg * (t->seg_items ? t->seg_items : t->os_items) > 65536)) {
        snprintf(err, errsize, "os_rank=%s needs seg_wg a multiple of 32 and seg_wg * seg_items "
                 "<= 65536", names_RANK[t->os_rank]);
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
        (t->os_rank < CLSORT_RANK_WARP || t->os_rank_pairs - 1u < CLSORT_RANK_WARP)) {
        snprintf(err, errsize, "os_rank_pairs chooses between the warp rankings (ballot, "
                 "atomic_or) and needs os_rank to be one of them");
        return CLSORT_ERROR_INVALID_TUNING;
    }
    if (t->os_rank >= CLSORT_RANK_WARP) {
        if (f->vendor != CLSORT_VENDOR_NVIDIA) {
            snprintf(err, errsize, "os_rank=%s needs NVIDIA's OpenCL (inline PTX)",
                     names_RANK[t->os_rank]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        if (t->os_wg % 32 || wg_pairs % 32) {
            snprintf(err, errsize, "os_rank=%s needs os_wg%s a multiple of 32",
                     names_RANK[t->os_rank], t->os_wg % 32 ? "" : "_pairs");
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
        if ((ranks[i] >= CLSORT_RANK_WARP || ranks[i] == CLSORT_RANK_LOCAL) && tiles[i] > 65536) {
            snprintf(err, errsize, "os_rank%s=%s needs os_wg%s * %s <= 65536 (16-bit ranks)",
                     i ? "_pairs" : "", names_RANK[ranks[i]], i ? "_pairs" : "", tile_names[i]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        if (tiles[i] > (1u << 28)) {
            snprintf(err, errsize, "the onesweep tile os_wg * %s must be at most 2^28",
                     tile_names[i]);
            return CLSORT_ERROR_INVALID_TUNING;
        }
        /* the warp rankings' counters (and masks) need local memory before
         * any key: a work-group too large for it could never run */
        if (ranks[i] >= CLSORT_RANK_WARP) {
            const unsigned r = t->radix_bits < 8 ? t->radix_bits : 8;
            const size_t need =
                clsort_onesweep_local_bytes(ranks[i], tile_wgs[i], 1, 1u << r, 1, 0, 8, false);
            if (need > f->local_mem_bytes) {
                snprintf(err, errsize, "os_rank%s=%s with os_wg%s=%u needs %zu bytes of local "
                         "memory before any keys; the device has %zu",
                         i ? "_pairs" : "", names_RANK[ranks[i]], i ? "_pairs" : "",
                         tile_wgs[i], need, (size_t)f->local_mem_bytes);
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

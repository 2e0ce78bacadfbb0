/* test_radix.c - the radix sort of u32 keys (and pairs, argsort) against the
 * reference: sizes, distributions, bit windows, digit widths, descending
 * order, and every kernel shape the test device can run. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* clsort_radix_last_tiled */
#include "kernels/radix_layout.h" /* FILL_SET_MAX */
#include "sortcheck.h"

static sort_case make(clsort_type t, data_dist d, size_t n, check_mode m)
{
    sort_case c;
    memset(&c, 0, sizeof c);
    c.type = t;
    c.dist = d;
    c.n = n;
    c.mode = m;
    c.value_size = 4;
    c.index_type = CLSORT_U32;
    c.seed = test_seed(data_dist_name(d), n, (unsigned)m * 7 + (unsigned)t);
    return c;
}

/* Runs fn-style loops under every shape: a context per shape. */
#define FOR_EACH_SHAPE(ctx, spec)                                                    \
    clsort_context *probe_ = test_context(NULL);                                     \
    if (!probe_)                                                                     \
        return;                                                                      \
    const char *specs_[16];                                                          \
    size_t nspecs_ = test_shapes(probe_, specs_, 16);                                \
    clsort_context_release(probe_);                                                  \
    for (size_t si_ = 0; si_ < nspecs_; si_++)                                       \
        for (clsort_context *ctx = test_context(specs_[si_]); ctx;                   \
             clsort_context_release(ctx), ctx = NULL)                                \
            for (const char *spec = specs_[si_][0] ? specs_[si_] : "tuned"; spec; spec = NULL)

void test_radix_small_sizes(void)
{
    FOR_EACH_SHAPE(ctx, spec)
    {
        bool tuned = !strcmp(spec, "tuned");
        for (size_t n = 0; n <= 300; n += tuned ? 1 : 7) {
            sort_case k = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_KEYS);
            sort_case p = make(CLSORT_U32, DATA_FEW_UNIQUE, n, CHECK_PAIRS);
            if (!sort_and_check(ctx, &k, spec) || !sort_and_check(ctx, &p, spec))
                break;
        }
    }
}

void test_radix_pow2_sizes(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    for (unsigned k = 1; k <= 22; k++)
        for (int d = -1; d <= 1; d++) {
            size_t n = ((size_t)1 << k) + (size_t)(long)d;
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, k % 2 ? CHECK_PAIRS : CHECK_KEYS);
            if (!sort_and_check(ctx, &c, "pow2"))
                k = 99, d = 2;
        }
    clsort_context_release(ctx);
}

void test_radix_primes(void)
{
    static const size_t primes[] = {2, 3, 5, 7, 13, 31, 127, 251, 509, 1021, 4093, 8191,
                                    65521, 131071, 524287, 1000003, 2097143};
    FOR_EACH_SHAPE(ctx, spec)
    {
        for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++) {
            if (primes[i] > 200000 && strcmp(spec, "tuned"))
                continue; /* large sizes on the tuned shape only (time) */
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, primes[i], i % 2 ? CHECK_PAIRS : CHECK_KEYS);
            if (!sort_and_check(ctx, &c, spec))
                break;
        }
    }
}

/* Every distribution through every shape: the unit set at three sizes,
 * the benchmark's suite (normal and exponential, Zipf, few values, sorted
 * runs and swaps, AND-reduced keys...) at one, keys and pairs of u32. */
void test_radix_distributions(void)
{
    static const size_t sizes[] = {1000, 65537, 300007};
    FOR_EACH_SHAPE(ctx, spec)
    {
        for (int d = 0; d < DATA_DIST_ALL; d++)
            for (size_t i = d < DATA_DIST_COUNT ? 0 : 1; i < 3; i++) {
                sort_case k = make(CLSORT_U32, (data_dist)d, sizes[i], CHECK_KEYS);
                sort_case p = make(CLSORT_U32, (data_dist)d, sizes[i], CHECK_PAIRS);
                if (!sort_and_check(ctx, &k, spec) || !sort_and_check(ctx, &p, spec))
                    d = DATA_DIST_ALL, i = 3;
                if (d >= DATA_DIST_COUNT)
                    break; /* the suite: one size */
            }
        /* keys alone in descending order, few distinct values: MSD
         * buckets of one key are written from the key (clsort_in_fill),
         * unsigned, and signed on the tuned shape */
        static const data_dist few[] = {DATA_FEW_2, DATA_FEW_UNIQUE, DATA_FEW_1024};
        const bool tuned = !strcmp(spec, "tuned");
        for (size_t f = 0; f < 3; f++)
            for (int t = 0; t < (tuned ? 2 : 1); t++) {
                sort_case k = make(t ? CLSORT_I32 : CLSORT_U32, few[f], 300007, CHECK_KEYS);
                k.opt.descending = 1;
                if (!sort_and_check(ctx, &k, spec))
                    f = 3, t = 2;
            }
    }
}

void test_radix_large(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    size_t n = ((size_t)1 << 24) + 3;
    sort_case k = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_KEYS);
    sort_case p = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_PAIRS);
    if (sort_and_check(ctx, &k, "large keys"))
        sort_and_check(ctx, &p, "large pairs");
    clsort_context_release(ctx);
}

void test_radix_bit_windows(void)
{
    /* A sample of windows [b, e), e <= 32, including full and one-bit ones. */
    static const unsigned w[][2] = {{0, 32}, {0, 1},  {31, 32}, {0, 10}, {3, 17}, {8, 16},
                                    {5, 30}, {16, 32}, {11, 12}, {1, 31}, {0, 24}, {24, 32},
                                    {7, 9},  {13, 29}, {30, 32}, {2, 3},  {0, 16}, {9, 27}};
    FOR_EACH_SHAPE(ctx, spec)
    {
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
            sort_case c = make(CLSORT_U32, i % 3 == 0 ? DATA_FEW_UNIQUE : DATA_UNIFORM,
                               40000 + i, i % 2 ? CHECK_PAIRS : CHECK_KEYS);
            c.opt.begin_bit = w[i][0];
            c.opt.end_bit = w[i][1];
            c.opt.descending = i % 4 == 3;
            if (!sort_and_check(ctx, &c, spec))
                break;
        }
    }
}

void test_radix_widths(void)
{
    /* Every r from 1 to 8 on the tuned shape; the other shapes take two
     * widths each, spread so that together they cover 1..8 again (each
     * width is a kernel build of its own, the slow part on PoCL;
     * CLSORT_TEST_FULL=1 runs every width on every shape). The CPU shapes
     * also take r = 11, beyond a byte. */
    const bool full = getenv("CLSORT_TEST_FULL") != NULL;
    FOR_EACH_SHAPE(ctx, spec)
    {
        unsigned rs[16], nr = 0;
        for (unsigned r = 1; r <= 8; r++)
            if (full || si_ == 0 || r % 4 == si_ % 4)
                rs[nr++] = r;
        if (strstr(spec, "os_rank=serial") || strstr(spec, "cl_wg=1,"))
            rs[nr++] = 11;
        for (unsigned i = 0; i < nr; i++) {
            const unsigned r = rs[i];
            sort_case c = make(CLSORT_U32, r % 2 ? DATA_UNIFORM : DATA_NARROW_16, 20011 + r,
                               r % 2 ? CHECK_PAIRS : CHECK_KEYS);
            c.opt.radix_bits = r;
            c.opt.descending = r == 5;
            if (!sort_and_check(ctx, &c, spec))
                break;
            /* a window that is not a multiple of r (a narrower last pass) */
            c.opt.begin_bit = 3;
            c.opt.end_bit = 26;
            if (!sort_and_check(ctx, &c, spec))
                break;
        }
    }
}

void test_radix_descending(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    for (int d = 0; d < DATA_DIST_COUNT; d++) {
        sort_case c = make(CLSORT_U32, (data_dist)d, 77777, CHECK_PAIRS);
        c.opt.descending = 1;
        if (!sort_and_check(ctx, &c, "descending pairs"))
            break;
        c.mode = CHECK_ARGSORT;
        if (!sort_and_check(ctx, &c, "descending argsort"))
            break;
    }
    clsort_context_release(ctx);
}

void test_radix_pairs(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    static const size_t vs[] = {4, 8};
    for (size_t i = 0; i < 2; i++)
        for (int d = 0; d < DATA_DIST_COUNT; d++) {
            sort_case c = make(CLSORT_U32, (data_dist)d, 123457, CHECK_PAIRS);
            c.value_size = vs[i];
            if (!sort_and_check(ctx, &c, "pairs"))
                i = 2, d = DATA_DIST_COUNT;
        }
    clsort_context_release(ctx);
}

void test_radix_argsort(void)
{
    FOR_EACH_SHAPE(ctx, spec)
    {
        static const size_t sizes[] = {1, 2, 3, 1000, 65536, 250001};
        for (size_t i = 0; i < 6; i++)
            for (int it = 0; it < 2; it++) {
                sort_case c = make(CLSORT_U32, i % 2 ? DATA_ALL_EQUAL : DATA_UNIFORM, sizes[i],
                                   CHECK_ARGSORT);
                c.index_type = it ? CLSORT_U64 : CLSORT_U32;
                if (!sort_and_check(ctx, &c, spec))
                    i = 6, it = 2;
            }
    }
}

void test_radix_shapes(void)
{
    /* Inputs that exercise pass skipping (constant digits), one active
     * pass (copy back), all passes skipped, and partial last tiles. */
    FOR_EACH_SHAPE(ctx, spec)
    {
        static const data_dist dists[] = {DATA_ALL_EQUAL, DATA_NARROW_8, DATA_ONE_DIGIT,
                                          DATA_HIGH_BITS, DATA_UNIFORM};
        for (size_t i = 0; i < 5; i++) {
            sort_case c = make(CLSORT_U32, dists[i], 1500001, CHECK_PAIRS);
            if (!sort_and_check(ctx, &c, spec))
                break;
            c.mode = CHECK_ARGSORT;
            if (!sort_and_check(ctx, &c, spec))
                break;
        }
        /* 8-byte keys take the shape's os_wg_wide and os_items_wide where
         * it has them; partial last tiles */
        static const check_mode modes[] = {CHECK_KEYS, CHECK_PAIRS, CHECK_ARGSORT};
        for (size_t m = 0; m < 3; m++) {
            sort_case c = make(CLSORT_U64, m == 1 ? DATA_FEW_UNIQUE : DATA_UNIFORM, 300007 + m,
                               modes[m]);
            if (!sort_and_check(ctx, &c, spec))
                break;
        }
    }
}

void test_radix_lookback_fallback(void)
{
    /* The CPU shape's look-back counts a tile before it that has not
     * published its counts (a thread held back by the system) from its
     * keys. Built with CLSORT_LB_FALLBACK_ALL, every tile counts every tile
     * before it that way instead of reading their words; built with
     * CLSORT_LB_SPIN=0, a tile counts a predecessor as soon as one of its
     * words is found empty, and reads the others' words (published counts
     * and prefixes mixed with counted ones, as often as the threads' timing
     * gives). LSD and MSD order, several portions, every pass in one launch,
     * keys, pairs and argsort, several widths, u64. */
    const char *old = getenv("CLSORT_BUILD_OPTIONS");
    char *saved = old ? strdup(old) : NULL;
    static const char *const builds[] = {"-DCLSORT_LB_FALLBACK_ALL=1", "-DCLSORT_LB_SPIN=0"};
    const char *specs[] = {
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64",
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64",
        "algorithm=onesweep,os_wg=1,os_items=700,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "portion_max=5000",
        /* every pass in one launch (clsort_radix_chain) */
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "fused_max=2147483647,chain_max=2147483647",
    };
    /* every tile may count all the tiles before it: sizes of a few dozen
     * tiles (one work-item counts them, slow on a GPU) */
    static const size_t sizes[] = {1, 999, 1000, 1001, 7919, 30011};
    static const unsigned widths[] = {0, 4, 11};
    bool ok = true;
    for (size_t b = 0; ok && b < sizeof builds / sizeof builds[0]; b++) {
        char opts[512];
        snprintf(opts, sizeof opts, "%s%s%s", old ? old : "", old ? " " : "", builds[b]);
        setenv("CLSORT_BUILD_OPTIONS", opts, 1);
        for (size_t si = 0; ok && si < sizeof specs / sizeof specs[0]; si++) {
            clsort_context *ctx = test_context(specs[si]);
            if (!ctx)
                break;
            char what[640];
            snprintf(what, sizeof what, "%s, built with %s", specs[si], builds[b]);
            for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++) {
                sort_case c = make(CLSORT_U32, i % 2 ? DATA_FEW_UNIQUE : DATA_UNIFORM, sizes[i],
                                   i % 3 == 0 ? CHECK_KEYS
                                              : (i % 3 == 1 ? CHECK_PAIRS : CHECK_ARGSORT));
                c.opt.radix_bits = widths[i % 3];
                c.opt.descending = i % 2;
                ok = sort_and_check(ctx, &c, what);
            }
            if (ok) {
                sort_case c = make(CLSORT_U64, DATA_UNIFORM, 20011, CHECK_PAIRS);
                c.value_size = 8;
                ok = sort_and_check(ctx, &c, what);
            }
            clsort_context_release(ctx);
        }
    }
    if (saved)
        setenv("CLSORT_BUILD_OPTIONS", saved, 1);
    else
        unsetenv("CLSORT_BUILD_OPTIONS");
    free(saved);
}

void test_radix_portions(void)
{
    /* Inputs of several portions (portion_max far below the look-back
     * limit of 2^30 keys): every pass after the first reads a permutation
     * of the input, so a portion's offsets must come from the portions
     * before it in that pass (clsort_radix_carry), not from the upfront
     * counts. LSD and MSD order, keys, pairs and argsort, several widths. */
    const bool nvidia = test_on_nvidia();
    const char *specs[] = {
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "portion_max=3000",
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "portion_max=5000",
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "portion_max=1024",
        "algorithm=onesweep,os_wg=256,os_items=8,os_rank=ballot,portion_max=8192",
        "algorithm=onesweep,os_wg=128,os_items=16,os_rank=atomic_or,portion_max=8192",
    };
    for (size_t si = 0; si < (nvidia ? 5u : 3u); si++) {
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        static const unsigned widths[] = {0, 4, 8};
        static const data_dist dists[] = {DATA_UNIFORM, DATA_FEW_UNIQUE, DATA_ONE_DIGIT};
        for (size_t w = 0; w < 3; w++)
            for (size_t d = 0; d < 3; d++) {
                sort_case c = make(CLSORT_U32, dists[d], 20011 + 1000 * w,
                                   (w + d) % 3 == 0 ? CHECK_KEYS
                                                    : ((w + d) % 3 == 1 ? CHECK_PAIRS : CHECK_ARGSORT));
                c.opt.radix_bits = widths[w];
                c.opt.descending = d == 1;
                if (!sort_and_check(ctx, &c, specs[si])) {
                    clsort_context_release(ctx);
                    return;
                }
            }
        sort_case c = make(CLSORT_U64, DATA_UNIFORM, 30011, CHECK_PAIRS);
        c.value_size = 8;
        if (!sort_and_check(ctx, &c, specs[si])) {
            clsort_context_release(ctx);
            return;
        }
        clsort_context_release(ctx);
    }
    /* large_bits is the tuned width only where the strategy that runs takes
     * it: here the tuning's strategy (classic, CPU shape) would, but the
     * sort asks for onesweep with work-group ranking, which keeps 8 bits */
    const char *wide = "algorithm=classic,cl_wg=1,os_rank=local,os_wg=64,os_items=4,hist_wg=64,"
                       "plan_wg=64,large_bits=11,large_min=4096";
    clsort_context *ctx = test_context(wide);
    if (!ctx)
        return;
    for (int a = 0; a < 2; a++) {
        sort_case c = make(CLSORT_U32, DATA_UNIFORM, 20011, CHECK_PAIRS);
        c.opt.algorithm = a ? CLSORT_ALGORITHM_ONESWEEP : CLSORT_ALGORITHM_CLASSIC;
        if (!sort_and_check(ctx, &c, wide))
            break;
    }
    clsort_context_release(ctx);
}

void test_radix_bucket_split(void)
{
    /* The CPU shape in MSD order splits a bucket of three in-bucket passes
     * from bucket_split bytes by its top varying digit first; each
     * sub-bucket then takes the two lower digits through local memory or,
     * with bucket_local=0, through temp B. Small bounds here, so that most
     * buckets of these sizes split (300007 u32 keys: buckets of about 1170
     * keys, 4.7 KB; pairs with 8-byte values 14 KB) and the smaller ones
     * do not: keys, pairs of 4 and 8 bytes and argsort, both orders,
     * signed and float keys, ranges that leave the top digit one value.
     * With nt_min (x86-64 through clang only, else the same as without),
     * the top pass streams its lines, and the buckets that fit local
     * memory twice (or once with their largest sub-bucket) are sorted
     * there and streamed to U; the third shape's buckets go through B.
     * On a GPU (where the serial shape is slow and streaming stores are
     * never built) the first shape alone, up to 300007 keys. On a CPU the
     * streamed shape also sorts other key and value widths. */
    const char *specs[] = {
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "radix_bits=8,large_min=0,bucket_split=2048",
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "radix_bits=8,large_min=0,bucket_split=2048,nt_min=1",
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "radix_bits=8,large_min=0,bucket_split=6000,bucket_local=0,nt_min=1",
    };
    static const data_dist dists[] = {DATA_UNIFORM, DATA_FEW_UNIQUE, DATA_SORTED,
                                      DATA_REVERSED, DATA_NARROW_16, DATA_SPECIALS};
    static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32};
    static const size_t sizes[] = {65537, 300007, 1000003};
    const bool cpu = test_on_cpu();
    for (size_t si = 0; si < (cpu ? sizeof specs / sizeof specs[0] : 1u); si++) {
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        bool ok = true;
        for (size_t i = 0; ok && i < (cpu ? sizeof sizes / sizeof sizes[0] : 2u); i++)
            for (size_t d = 0; ok && d < sizeof dists / sizeof dists[0]; d++) {
                const size_t v = i * 6 + d;
                /* the key type and the mode (keys, pairs of 4 and of 8
                 * bytes, argsort) follow the distribution and the shape,
                 * not the size: each is a program build of its own, and
                 * every size (split or not) runs with each of them. Each
                 * shape takes every type and every mode. */
                const size_t m = (d + si) % 4;
                sort_case c = make(types[d % 3], dists[d], sizes[i],
                                   m == 0 ? CHECK_KEYS : (m == 3 ? CHECK_ARGSORT : CHECK_PAIRS));
                c.value_size = m == 2 ? 8 : 4;
                c.opt.descending = (v / 2) % 2;
                ok = sort_and_check(ctx, &c, specs[si]);
            }
        /* the streamed routes with the other key and value widths: 8-byte
         * keys (seven in-bucket passes between X and Y), values of 1, 2, 8
         * and 16 bytes, 16-bit keys */
        static const struct {
            clsort_type t;
            size_t vbytes;
        } widths[] = {{CLSORT_U64, 0}, {CLSORT_U64, 8}, {CLSORT_U32, 16}, {CLSORT_U32, 1},
                      {CLSORT_U32, 2}, {CLSORT_U16, 16}, {CLSORT_F64, 4}};
        for (size_t w = 0; ok && cpu && si == 1 && w < sizeof widths / sizeof widths[0]; w++) {
            sort_case c = make(widths[w].t, w % 2 ? DATA_SPECIALS : DATA_UNIFORM, 300007,
                               widths[w].vbytes ? CHECK_PAIRS : CHECK_KEYS);
            c.value_size = widths[w].vbytes ? widths[w].vbytes : 4;
            c.opt.descending = w % 3 == 1;
            c.seed += w;
            ok = sort_and_check(ctx, &c, specs[si]);
        }
        clsort_context_release(ctx);
        if (!ok)
            return;
    }
}

/* radix_tiled's u32 sorts checked: k (sorted from k0 by bits [0, end_bit))
 * against the stable order, and with pairs val (the indices) too. */
static bool tiled_check(const char *spec, const char *what, const uint32_t *k0, const uint32_t *k,
                        const uint32_t *val, size_t *perm, size_t n, unsigned end_bit,
                        int descending, bool pairs)
{
    ref_stable_perm(CLSORT_U32, k0, n, 0, end_bit, descending, perm);
    bool ok = check_permuted(what, k0, k, perm, n, sizeof *k);
    size_t bad = n;
    for (size_t i = 0; pairs && i < n && bad == n; i++)
        if (val[i] != (uint32_t)perm[i])
            bad = i;
    CHECK(ok && bad == n, "%s, %s, n=%zu: keys %s, value %zu not the stable order's", spec, what,
          n, ok ? "ok" : "wrong", bad);
    return ok && bad == n;
}

/* Sorts k (n keys, values val where pairs) by bits [0, end_bit), its input
 * kept in k0, checks the result against the stable order (tiled_check) and
 * frees the four arrays; ok false: they were not all allocated. */
static bool tiled_sort_check(clsort_context *ctx, const char *spec, const char *what, bool ok,
                             uint32_t *k, uint32_t *k0, uint32_t *val, size_t *perm, size_t n,
                             unsigned end_bit, int descending, bool pairs)
{
    if (ok) {
        memcpy(k0, k, n * sizeof *k);
        clsort_options o;
        memset(&o, 0, sizeof o);
        o.descending = descending;
        o.end_bit = end_bit;
        clsort_status st = pairs ? clsort_sort_pairs(ctx, CLSORT_U32, k, val, sizeof *val, n, &o)
                                 : clsort_sort_keys(ctx, CLSORT_U32, k, n, &o);
        ok = st == CLSORT_SUCCESS;
        CHECK(ok, "%s, %s, n=%zu: %s\n%s", spec, what, n, clsort_status_string(st),
              clsort_context_last_error(ctx));
    }
    ok = ok && tiled_check(spec, what, k0, k, val, perm, n, end_bit ? end_bit : 32, descending,
                           pairs);
    free(k);
    free(val);
    free(k0);
    free(perm);
    return ok;
}

/* radix_tiled's keys built to defeat the tile pass's sample: the sample's
 * keys, keys[i n / 4096] (clsort_radix_sample), are random, every other key
 * takes one of `tops` values of the top digit (bits from top_shift up) with
 * random bits below. Sorted by bits [0, end_bit) as pairs whose values are
 * the indices (or as keys alone) and checked against the stable order.
 * *most: the most keys of one value of the top digit. */
static bool tiled_against_sample(clsort_context *ctx, const char *spec, size_t n,
                                 unsigned top_shift, unsigned tops, unsigned end_bit, bool pairs,
                                 int descending, size_t *most)
{
    uint32_t *k = malloc(n * sizeof *k), *val = malloc(n * sizeof *val),
             *k0 = malloc(n * sizeof *k0);
    size_t *perm = malloc(n * sizeof *perm);
    bool ok = k && val && k0 && perm;
    CHECK(ok, "out of memory");
    if (ok) {
        uint64_t x = test_seed("tiled_sample", n, tops * 2u + (unsigned)pairs);
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const uint32_t r = (uint32_t)(x >> 32);
            const uint32_t top = (uint32_t)((x >> 16) % tops) * 37u + 5u;
            k[i] = (top << top_shift) | (r & ((1u << top_shift) - 1u));
            val[i] = (uint32_t)i;
        }
        for (size_t i = 0; i < 4096; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            k[(uint64_t)i * n / 4096] = (uint32_t)(x >> 32);
        }
        static size_t count[256];
        memset(count, 0, sizeof count);
        *most = 0;
        for (size_t i = 0; i < n; i++) {
            const size_t c = ++count[(k[i] >> (end_bit - 8)) & 255u];
            *most = c > *most ? c : *most;
        }
    }
    return tiled_sort_check(ctx, spec, "tiled against the sample", ok, k, k0, val, perm, n,
                            end_bit, descending, pairs);
}

/* Few distinct keys: each key one of keys[0..nk) (the first half of them
 * keys[0], the rest spread over the others; the first `lead` keys[0]
 * alone), then `hidden` keys of the top digit 0x12 that the sample
 * (keys[i n / 4096]) does not see, sorted by bits [0, end_bit), ascending
 * or not, as keys or pairs, and checked. */
static bool tiled_keys(clsort_context *ctx, const char *spec, size_t n, const uint32_t *keys,
                       unsigned nk, size_t hidden, bool pairs, unsigned end_bit, int descending,
                       size_t lead)
{
    uint32_t *k = malloc(n * sizeof *k), *val = malloc(n * sizeof *val),
             *k0 = malloc(n * sizeof *k0);
    size_t *perm = malloc(n * sizeof *perm);
    bool ok = k && val && k0 && perm;
    CHECK(ok, "out of memory");
    uint64_t x = test_seed("tiled_few", n, (unsigned)(hidden * 2u + pairs) ^ nk << 8);
#define FEW_NEXT() (x = x * 6364136223846793005ull + 1442695040888963407ull)
    for (size_t i = 0; ok && i < n; i++) {
        FEW_NEXT();
        k[i] = (x >> 40) & 1u || i < lead ? keys[0] : keys[1 + (x >> 41) % (nk - 1)];
        val[i] = (uint32_t)i;
    }
    for (size_t h = 0; ok && h < hidden;) {
        FEW_NEXT();
        const uint64_t i = (x >> 33) % n, j = i * 4096 / n; /* samples j, j + 1 near i */
        if (j * n / 4096 == i || (j + 1) * n / 4096 == i)
            continue;
        k[i] = 0x12000000u | (uint32_t)(x & 0xffffffu);
        h++;
    }
#undef FEW_NEXT
    return tiled_sort_check(ctx, spec, "tiled, few values", ok, k, k0, val, perm, n, end_bit,
                            descending, pairs);
}

/* Keys alone of type t (u32, i32, u64, i64), each one of 12 values of
 * distinct top bytes (signed: negative ones among them), ascending or
 * not; with `unseen`, one key of a 13th top byte where the sample
 * (keys[i n / 4096]) does not look. Sorted and checked. */
static bool tiled_fill_keys(clsort_context *ctx, const char *spec, int t, int descending,
                            int unseen)
{
    static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_U64, CLSORT_I64};
    static const char *const names[] = {"u32", "i32", "u64", "i64"};
    const size_t n = 300007, bytes = t < 2 ? 4 : 8;
    unsigned char *k = malloc(n * bytes);
    CHECK(k != NULL, "out of memory");
    if (!k)
        return false;
    uint64_t x = test_seed("tiled_fill", n, (unsigned)(t * 4 + descending * 2 + unseen));
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* top byte 0x10 j + 5 (j < 12: 0x05..0xb5, the signed ones below
         * zero from 0x85), the rest of the key fixed per value */
        const uint64_t j = (x >> 40) % 12, low = 0x0123456789abcdefull * (j + 1);
        uint64_t v = (0x10u * j + 5u) << (8 * bytes - 8) | (low & ((1ull << (8 * bytes - 8)) - 1));
        if (unseen && i == n / 2 + 37) /* between samples n/2 and n/2 + n/4096 */
            v = 0xf7ull << (8 * bytes - 8) | 42u;
        memcpy(k + i * bytes, &v, bytes);
    }
    sort_case c = make(types[t], DATA_UNIFORM, n, CHECK_KEYS); /* the keys: c.input */
    c.opt.descending = descending;
    c.input = k;
    char label[600];
    snprintf(label, sizeof label, "%s, few keys, %s%s%s", spec, names[t],
             descending ? ", descending" : "", unseen ? ", one unseen" : "");
    const bool ok = sort_and_check(ctx, &c, label);
    free(k);
    return ok;
}

/* Two distinct keys, half the keys each, then `hidden` others. */
static bool tiled_few_values(clsort_context *ctx, const char *spec, size_t n, size_t hidden,
                             bool pairs)
{
    static const uint32_t two[] = {0x9abcdef0u, 0x12345678u};
    return tiled_keys(ctx, spec, n, two, 2, hidden, pairs, 0, 0, 0);
}

/* The compute units of radix_tiled's device where it must take the tiles
 * when the sample and the plan accept them: PoCL on this (x86-64) host,
 * whose kernel compiler is clang (else the kernels are built without
 * them); else 0. */
static unsigned tiles_built(void)
{
#if defined(__x86_64__)
    clsort_context *probe = test_context(NULL);
    clsort_device_info info;
    bool pocl = probe && clsort_context_device_info(probe, &info) == CLSORT_SUCCESS &&
                info.is_cpu && strstr(info.platform_name, "Portable Computing Language");
    if (probe)
        clsort_context_release(probe);
    return pocl ? (info.compute_units ? info.compute_units : 1u) : 0u;
#else
    return 0;
#endif
}

/* The compute units of the tests' CPU device (1 where none is told). */
static unsigned cpu_units(void)
{
    clsort_context *probe = test_context(NULL);
    clsort_device_info info;
    const bool got = probe && clsort_context_device_info(probe, &info) == CLSORT_SUCCESS;
    if (probe)
        clsort_context_release(probe);
    return got && info.compute_units ? info.compute_units : 1u;
}

/* The route the last sort took against the one expected (1: the tiles, 0:
 * not, -1: either). */
static bool tiled_as_expected(clsort_context *ctx, int want, const char *spec, const char *what)
{
    const int got = clsort_radix_last_tiled(ctx);
    CHECK(want < 0 || got == want, "%s, %s: route %d of the tiles, not %d (1 the tiles, 2 "
          "the sample's map)", spec, what, got, want);
    return want < 0 || got == want;
}

/* n uniform u32 keys (seed from tag and salt) for a sort on ctx; NULL
 * where ctx is NULL or memory runs out, ctx then released (the caller
 * returns) */
static uint32_t *tiled_input(clsort_context *ctx, size_t n, const char *tag, unsigned salt)
{
    uint32_t *k = ctx ? malloc(n * sizeof *k) : NULL;
    if (!k) {
        CHECK(!ctx, "out of memory");
        if (ctx)
            clsort_context_release(ctx);
        return NULL;
    }
    data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed(tag, n, salt));
    return k;
}

void test_radix_tiled(void)
{
    /* MSD order from tiles (tile_min; x86-64 through clang only, else the
     * plain MSD order runs): the top digit sorted tile by tile with no
     * upfront count, and each bucket read back run by run from the tiles.
     * 1000-key tiles, so that the sizes here make hundreds of runs per
     * bucket. First the buckets through both halves of local memory and
     * streamed to U (8-bit digits; split first, bucket_split; and 11-bit
     * digits, which take the tiles only to fill few distinct values, keys
     * alone of an integer type): keys, pairs of 1-16
     * bytes and argsort (32- and 64-bit indices), both orders, bit windows
     * that leave two in-bucket passes or start above bit 0, signed, float
     * and 64-bit keys, the host-array and the device-buffer API (with
     * offsets), distributions whose sample refuses the tiles (a narrow
     * range: the top digit is one value) and some it accepts, one after
     * the other on one context. On PoCL on x86-64 each sort's route is
     * checked: uniform keys take the tiles, the narrow range and 11-bit
     * digits do not (few distinct values may fill, route 3). */
    const char *base = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,"
                       "plan_wg=64,nt_min=1,tile_min=1,msd_bound=4,";
    const char *shapes[] = {"radix_bits=8,large_min=0", "radix_bits=8,large_min=0,bucket_split=2048",
                            "radix_bits=11,large_min=0"}; /* 11 bits: the fill's tiles alone */
    static const data_dist dists[] = {DATA_UNIFORM, DATA_SPECIALS, DATA_SORTED,
                                      DATA_FEW_UNIQUE, DATA_REVERSED, DATA_NARROW_16};
    static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                        CLSORT_U64, CLSORT_I64, CLSORT_F64};
    static const size_t vbytes[] = {4, 8, 1, 16, 2};
    static const size_t sizes[] = {65537, 300007};
    if (!test_on_cpu())
        return; /* the CPU shape's route (on a GPU the same as radix_bucket_split) */
    /* the plan takes MSD order where no bucket has more than n / (4 compute
     * units) keys: uniform keys in 256 buckets surely up to 32 units (65537
     * keys: about 256 a bucket, the bound 512) */
    const unsigned units = tiles_built();
    const bool built = units > 0, spread = built && units <= 32;
    char spec[512];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        snprintf(spec, sizeof spec, "%s%s", base, shapes[si]);
        clsort_context *ctx = test_context(spec);
        if (!ctx)
            return;
        bool ok = true;
        for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++)
            for (size_t d = 0; ok && d < sizeof dists / sizeof dists[0]; d++) {
                const size_t v = si * 12 + i * 6 + d;
                /* the key type, the mode, the value width and the index
                 * type (a program build each) follow the shape and the
                 * distribution, not the size: each shape takes all six
                 * key types, keys, pairs and argsort, both index types,
                 * and the three shapes all five value widths; float
                 * specials on shapes 0 and 1, bits [0, 24) of 32-bit keys
                 * on shapes 1 and 2 */
                static const size_t type_shift[] = {1, 4, 3};
                const clsort_type t = types[(d + type_shift[si]) % 6];
                const bool wide = t == CLSORT_U64 || t == CLSORT_I64 || t == CLSORT_F64;
                const size_t m = (d + si) % 3;
                sort_case c = make(t, dists[d], sizes[i],
                                   m == 0 ? CHECK_KEYS : (m == 1 ? CHECK_PAIRS : CHECK_ARGSORT));
                c.value_size = vbytes[(si * 2 + (d >= 3)) % 5];
                c.index_type = d >= 3 ? CLSORT_U64 : CLSORT_U32;
                c.opt.descending = (v / 3) % 2;
                if (d == 3 && !wide) /* bits [0, 24): two in-bucket passes */
                    c.opt.end_bit = 24;
                if (d == 4) /* bits [5, end): the digits start above bit 0 */
                    c.opt.begin_bit = 5;
                ok = v % 4 == 1 ? sort_and_check_buffer(ctx, &c, 7, spec)
                                : sort_and_check(ctx, &c, spec);
                /* uniform keys spread over the top digit: the tiles; a
                 * narrow range, 11-bit digits: not (special values, an
                 * eighth of the keys, fill a few buckets past the plan's
                 * bound on 16 units) */
                const int want = !built || (si == 2 && dists[d] == DATA_FEW_UNIQUE) ? -1
                                 : si == 2 || dists[d] == DATA_NARROW_16
                                     ? 0
                                     : (spread && dists[d] == DATA_UNIFORM ? 1 : -1);
                ok = ok && tiled_as_expected(ctx, want, spec, data_dist_name(dists[d]));
            }
        clsort_context_release(ctx);
        if (!ok)
            return;
    }
    /* The PoCL row's own 64K-key tiles (16 of them), u32 keys and pairs. */
    clsort_context *ctx = test_context("nt_min=1,tile_min=1,radix_bits=8,large_min=0");
    if (!ctx)
        return;
    for (int m = 0; m < 2; m++) {
        sort_case c = make(CLSORT_U32, DATA_UNIFORM, 1048573, m ? CHECK_PAIRS : CHECK_KEYS);
        if (!sort_and_check(ctx, &c, "64K-key tiles") ||
            !tiled_as_expected(ctx, spread ? 1 : -1, "64K-key tiles", "uniform")) {
            clsort_context_release(ctx);
            return;
        }
    }
    clsort_context_release(ctx);
    /* Buckets too large for local memory (bucket_local=2048: 512 keys, 256
     * pairs; the host takes the tiles only where an even spread would fit:
     * these sizes): keys the sample finds spread over the top digit while
     * the others share 96 of its values (buckets of about 350 keys, which
     * the sample does not see). Gathered from the tiles to B for three
     * in-bucket passes (32-bit keys), to U for two (bits [0, 24)), where
     * the plan takes MSD order (up to 23 compute units); and with one value
     * of the top digit, where the plan refuses MSD order by it after the
     * tile pass, so that the sort starts again from the input (counted,
     * planned, in LSD order). */
    static const struct {
        const char *shape;
        size_t n;
        unsigned top_shift, tops, end_bit;
    } against[] = {{"radix_bits=8,large_min=0,bucket_local=2048", 32768, 24, 96, 32},
                   {"radix_bits=8,large_min=0,bucket_local=2048", 32768, 16, 96, 24},
                   {"radix_bits=8,large_min=0", 200003, 24, 1, 32}};
    for (size_t a = 0; a < sizeof against / sizeof against[0]; a++) {
        snprintf(spec, sizeof spec, "%s%s", base, against[a].shape);
        ctx = test_context(spec);
        if (!ctx)
            return;
        bool ok = true;
        for (int m = 0; ok && m < 2; m++) {
            size_t most = 0;
            ok = tiled_against_sample(ctx, spec, against[a].n, against[a].top_shift,
                                      against[a].tops, against[a].end_bit, m == 0, m, &most);
            /* the plan's bound, n / (4 compute units) */
            const int want = !built ? -1 : most <= against[a].n / (4 * (size_t)units);
            ok = ok && tiled_as_expected(ctx, want, spec,
                                         against[a].tops > 1 ? "96 top digits" : "one top digit");
        }
        clsort_context_release(ctx);
        if (!ok)
            return;
    }
    /* Two distinct keys, half the keys each: every bucket past the bound,
     * and the tiles taken all the same (the sample finds each one key);
     * then with keys the sample does not see in one of them. Then MSD order
     * without tiles (tile_min 0), which samples from 2^20 keys on: MSD
     * order all the same, on any CPU. */
    snprintf(spec, sizeof spec, "%sradix_bits=8,large_min=0", base);
    ctx = test_context(spec);
    if (!ctx)
        return;
    /* two buckets of n / 2 keys, each one key: taken on any number of
     * compute units; keys alone are counted by the tile pass and written
     * from their keys (route 3), pairs copied by every work-item, chunk by
     * chunk. With the others, the tile pass of keys alone finds them and
     * the sort counts every pass (route 0: MSD order without tiles), and
     * for pairs the bucket that holds them is found out by the copy and
     * sorted after all */
    const unsigned cus = cpu_units();
    bool ok = true;
    for (size_t h = 0; ok && h < 2; h++)
        for (int m = 0; ok && m < 2; m++)
            ok = tiled_few_values(ctx, spec, 200003, h ? 100 : 0, m == 1) &&
                 tiled_as_expected(ctx, built ? (m == 1 ? 1 : h ? 0 : 3) : -1, spec,
                                   h ? "two keys and others" : "two keys");
    /* few distinct keys written from their keys (route 3) for each integer
     * type, both orders: 12 keys of 12 top digits, negative ones among
     * them; the same with one key of a 13th top digit that the sample does
     * not see (route 0) */
    for (int t = 0; ok && t < 4; t++)
        for (int m = 0; ok && m < 4; m++)
            ok = tiled_fill_keys(ctx, spec, t, m & 1, m >> 1) &&
                 tiled_as_expected(ctx, built ? (m >> 1 ? 0 : 3) : -1, spec,
                                   m >> 1 ? "few keys and one unseen" : "few keys, filled");
    /* two keys in one top digit (0x12), and a third (below) */
    static const uint32_t shared[] = {0x12345678u, 0x12abcdefu, 0x9abcdef0u};
    /* Buckets too large for local memory (bucket_local): keys alone take
     * the tiles only where they fill (route 3) or the sample finds big
     * buckets of one key or two (route 1: two keys in a top digit, up to 4
     * compute units, as above); uniform keys and a fill that meets an
     * unseen key count every pass (route 0), and pairs take no tiles */
    if (ok) {
        char small[600];
        snprintf(small, sizeof small, "%sradix_bits=8,large_min=0,bucket_local=4096", base);
        clsort_context *sc = test_context(small);
        /* uniform keys first: their passes leave the look-back areas
         * written, which the count after a fill that met another key must
         * zero again */
        if (sc) {
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, 300007, CHECK_KEYS);
            c.seed = 18;
            ok = sort_and_check(sc, &c, small) &&
                 tiled_as_expected(sc, built ? 0 : -1, small, "uniform, small buckets");
        }
        for (int m = 1; sc && ok && m >= 0; m--)
            ok = tiled_fill_keys(sc, small, m, 0, m) &&
                 tiled_as_expected(sc, built ? (m ? 0 : 3) : -1, small,
                                   m ? "few keys and one unseen, small buckets"
                                     : "few keys, small buckets");
        ok = ok && sc && tiled_few_values(sc, small, 200003, 0, true) &&
             tiled_as_expected(sc, built ? 0 : -1, small, "two keys, pairs, small buckets");
        ok = ok && sc && tiled_keys(sc, small, 200003, shared, 3, 0, false, 0, 0, 0) &&
             tiled_as_expected(sc, built ? (units <= 4 ? 1 : 0) : -1, small,
                               "two keys in a digit, small buckets");
        if (sc)
            clsort_context_release(sc);
    }
    /* 11-bit digits: the tiles to fill alone (route 3), and not for two
     * keys in a top digit (route 0, MSD order by the sample's flag 2) */
    if (ok) {
        char wide[600];
        snprintf(wide, sizeof wide, "%sradix_bits=11,large_min=0", base);
        clsort_context *wc = test_context(wide);
        for (int t = 0; wc && ok && t < 4; t += 2)
            ok = tiled_fill_keys(wc, wide, t, t == 2, 0) &&
                 tiled_as_expected(wc, built ? 3 : -1, wide, "few keys, 11-bit digits");
        static const uint32_t in_digit11[] = {0x12345678u, 0x1234abcdu, 0x9abcdef0u};
        ok = ok && wc && tiled_keys(wc, wide, 200003, in_digit11, 3, 0, false, 0, 0, 0) &&
             tiled_as_expected(wc, built ? 0 : -1, wide, "two keys in a digit, 11-bit digits");
        CHECK(!ok || !built || units > 4 || clsort_radix_last_msd(wc) > 0,
              "%s, two keys in a digit: MSD order not taken", wide);
        ok = ok && (!built || units > 4 || clsort_radix_last_msd(wc) > 0);
        if (wc)
            clsort_context_release(wc);
    }
    /* Two keys in one top digit (0x12), half the keys, and a third in
     * another: the bucket of two keys split in one pass, the first in the
     * sort's order first (ascending and descending); with hidden others
     * sorted by its count; and with bits [0, 24), where the two keys
     * (0x12... and 0x9a... alike below bit 24) are one key to the sort and
     * keep their order; and with the first third of the keys the first key
     * alone, so that the second appears blocks (tiles) later. Taken up to 4
     * compute units (a bucket of two keys, 3 n / 4, within 3 n / units). */
    static const uint32_t alike[] = {0x12345678u, 0x9a345678u, 0x40abcdefu};
    for (size_t h = 0; ok && h < 2; h++)
        for (int m = 0; ok && m < 4; m++) {
            ok = tiled_keys(ctx, spec, 200003, shared, 3, h ? 100 : 0, m & 1, 0, m >> 1, 0);
            ok = ok && tiled_as_expected(ctx, built ? (units <= 4 ? 1 : 0) : -1, spec,
                                         h ? "two keys in a digit and others"
                                           : "two keys in a digit");
        }
    for (int m = 0; ok && m < 2; m++)
        ok = tiled_keys(ctx, spec, 200003, alike, 3, 0, m == 1, 24, 0, 0) &&
             tiled_keys(ctx, spec, 200003, shared, 3, 0, m == 1, 0, m, 200003 / 3);
    clsort_context_release(ctx);
    /* the same two keys where the bound takes every bucket (msd_bound
     * 1024: up to 64 compute units), so that the split runs on larger
     * CPUs too */
    snprintf(spec, sizeof spec, "%sradix_bits=8,large_min=0,msd_bound=1024", base);
    ctx = ok ? test_context(spec) : NULL;
    for (int m = 0; ctx && ok && m < 4; m++)
        ok = tiled_keys(ctx, spec, 200003, shared, 3, 0, m & 1, 0, m >> 1, m == 3 ? 200003 / 3 : 0);
    if (ctx)
        clsort_context_release(ctx);
#define PLAIN_MSD "algorithm=onesweep,os_wg=1,os_items=4096,os_rank=serial,msd=1,hist_wg=1," \
                  "plan_wg=64,tile_min=0,radix_bits=8,large_min=0"
    const char *plain = PLAIN_MSD ",msd_bound=4";
    ctx = ok ? test_context(plain) : NULL;
    if (!ctx)
        return;
    for (size_t h = 0; ok && h < 2; h++)
        for (int m = 0; ok && m < 2; m++) {
            ok = tiled_few_values(ctx, plain, 1100009, h ? 100 : 0, m == 1);
            const int msd = clsort_radix_last_msd(ctx), want = 1;
            CHECK(!ok || msd == want, "%s, two keys%s: MSD order %s (%d)", plain,
                  h ? " and others" : "", want ? "not taken" : "taken", msd);
            ok = ok && msd == want;
        }
    clsort_context_release(ctx);
    /* The bound at a sixteenth of a share (msd_bound 1): two buckets of n /
     * 2 keys past TILE_ONE_KEY_MAX times it on any CPU of 2 units or more,
     * copied by every work-item, chunk by chunk (clsort_radix_one_copy),
     * from tiles and without; with others that the sample does not see,
     * the bucket that holds them found out by its copy and sorted after
     * all; keys and pairs, both orders. MSD order on any CPU. */
    static const uint32_t two_keys[] = {0x9abcdef0u, 0x12345678u};
    for (int v = 0; ok && v < 2; v++) {
        if (v == 0)
            snprintf(spec, sizeof spec, "%sradix_bits=8,large_min=0,msd_bound=1", base);
        else
            snprintf(spec, sizeof spec, "%s", PLAIN_MSD ",msd_bound=1");
        ctx = test_context(spec);
        if (!ctx)
            return;
        /* (without tiles, 2^20 keys and more: three of the eight) */
        for (int m = 0; ok && m < 8; m += v ? 3 : 1) {
            ok = tiled_keys(ctx, spec, v ? 1100009 : 200003, two_keys, 2, m & 4 ? 100 : 0, m & 1,
                            0, (m >> 1) & 1, 0);
            const int msd = clsort_radix_last_msd(ctx);
            CHECK(!ok || msd > 0, "%s, two keys%s: MSD order not taken", spec,
                  m & 4 ? " and others" : "");
            ok = ok && msd > 0 &&
                 tiled_as_expected(ctx, v == 0 && built ? (m & 1 ? 1 : m & 4 ? 0 : 3) : -1, spec,
                                   "two keys, msd_bound 1");
        }
        clsort_context_release(ctx);
    }
    if (!ok)
        return;
    /* The plan's bound itself (msd_bound, sixteenths of a compute unit's
     * share): 40% of the keys in one top digit, their lower bits random
     * (not one key), the rest spread. A quarter of a share takes it in MSD
     * order on no CPU of 1 unit or more; a whole share up to 2 units;
     * 64 sixteenths up to 10. */
    static const unsigned bounds[] = {4, 16, 64};
    for (size_t b = 0; ok && b < sizeof bounds / sizeof bounds[0]; b++) {
        char bspec[256];
        snprintf(bspec, sizeof bspec, "%s,msd_bound=%u", PLAIN_MSD, bounds[b]);
        ctx = test_context(bspec);
        const size_t n = 1100009;
        uint32_t *k = tiled_input(ctx, n, "msd_bound", bounds[b]);
        if (!k)
            return;
        for (size_t i = 0; i < n; i++)
            if (i % 5 < 2)
                k[i] = 0x10000000u | (k[i] & 0x00ffffffu);
        for (int m = 0; ok && m < 2; m++) {
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, m ? CHECK_PAIRS : CHECK_KEYS);
            c.input = k;
            ok = sort_and_check(ctx, &c, bspec);
            /* the bucket of 40% against n * bound / (16 units) */
            const int msd = clsort_radix_last_msd(ctx),
                      want = 2u * 16u * cus <= 5u * bounds[b] ? 1 : 0;
            CHECK(!ok || msd == want, "%s, 40%% in one top digit on %u units: MSD order %s (%d)",
                  bspec, cus, want ? "not taken" : "taken", msd);
            ok = ok && msd == want;
        }
        free(k);
        clsort_context_release(ctx);
    }
    /* a top digit between the bound and twice it, its lower bits random
     * (no common key: twice the bound is for the others of a common key's
     * bucket alone): refused, on any number of units */
    ctx = ok ? test_context(PLAIN_MSD ",msd_bound=4") : NULL;
    if (ctx) {
        const size_t n = 1100009;
        const unsigned per_mille = 3000u / (8u * cus); /* 1.5 times the bound */
        uint32_t *k = malloc(n * sizeof *k);
        CHECK(k != NULL, "out of memory");
        if (k) {
            data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed("msd_bound_rest", n, cus));
            for (size_t i = 0; i < n; i++)
                if (i % 1000 < per_mille)
                    k[i] = 0x10000000u | (k[i] & 0x00ffffffu);
                else if (k[i] >> 24 == 0x10)
                    k[i] ^= 1u << 24;
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_KEYS);
            c.input = k;
            ok = sort_and_check(ctx, &c, PLAIN_MSD ",msd_bound=4");
            const int msd = clsort_radix_last_msd(ctx);
            CHECK(!ok || msd == 0, "msd_bound=4: %u per mille in one top digit on %u units: MSD "
                  "order taken", per_mille, cus);
            ok = ok && msd == 0;
            free(k);
        }
        clsort_context_release(ctx);
    }
#undef PLAIN_MSD
    if (!ok)
        return;
    /* A bucket of the tiles too large for local memory whose top varying
     * digit orders it (at most 16 values, one key each): gathered from the
     * tiles' runs, then one pass. 40% of the keys in top digit 0x77, 16
     * keys there that differ in bits [16, 24) alone; pairs (their values
     * the indices, so that the order of equal keys shows), both orders. */
    const char *one_pass = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,"
                           "hist_wg=1,plan_wg=64,nt_min=1,tile_min=1,radix_bits=8,large_min=0,"
                           "msd_bound=1024";
    ctx = test_context(one_pass);
    const size_t n1 = 300007;
    uint32_t *k1 = tiled_input(ctx, n1, "tiled_one_pass", 0);
    if (!k1)
        return;
    for (size_t i = 0; i < n1; i++)
        if (i % 5 < 2)
            k1[i] = 0x77001234u | (k1[i] & 0xfu) << 18;
        else if (k1[i] >> 24 == 0x77) /* the others in other top digits */
            k1[i] ^= 1u << 24;
    for (int desc = 0; ok && desc < 2; desc++) {
        sort_case c = make(CLSORT_U32, DATA_UNIFORM, n1, CHECK_PAIRS);
        c.input = k1;
        c.opt.descending = desc;
        ok = sort_and_check(ctx, &c, one_pass);
        CHECK(!ok || clsort_radix_last_msd(ctx) == 1, "%s: 16 keys in one tiled bucket: MSD "
              "order not taken", one_pass);
        ok = ok && clsort_radix_last_msd(ctx) == 1;
    }
    free(k1);
    clsort_context_release(ctx);
}

void test_radix_persistent(void)
{
    /* Persistent onesweep work-groups (os_persist): fewer work-groups than
     * tiles, each sorting tile after tile; passes whose digit is constant
     * copy tile after tile as well (u32@one-digit: the first pass copies
     * under the fold, the last writes the finish); several portions. The
     * portable shape on any device (two compute units of PoCL take 2
     * work-groups), the warp rankings on NVIDIA (132 SMs: one or three
     * work-groups each, so only the larger sizes loop). */
    const bool nvidia = test_on_nvidia();
    const char *specs[] = {
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "os_persist=1,single_max=0,prologue_max=0,fused_max=0,chain_max=0",
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "os_persist=3,single_max=0,prologue_max=0,fused_max=0,chain_max=0,portion_max=30000",
        "algorithm=onesweep,os_wg=256,os_items=8,os_rank=ballot,os_persist=1,chain_max=0",
        "algorithm=onesweep,os_wg=384,os_items=20,os_rank=ballot,os_persist=3,chain_max=0,"
        "portion_max=2000000",
        /* the row's os_match_max: uniform tiles by atomic_or, repeated ones by
         * match.any, both in one persistent work-group */
        "algorithm=onesweep,os_wg=256,os_items=24,os_rank=atomic_or,os_persist=2,chain_max=0",
    };
    static const size_t sizes[] = {1, 4999, 100003, 1000003, 4194305};
    for (size_t si = 0; si < (nvidia ? 5u : 2u); si++) {
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        for (size_t i = 0; i < (nvidia ? 5u : 4u); i++)
            for (size_t k = 0; k < 5; k++) {
                static const data_dist dists[] = {DATA_UNIFORM, DATA_ONE_DIGIT, DATA_UNIFORM,
                                                  DATA_FEW_UNIQUE, DATA_UNIFORM};
                static const check_mode modes[] = {CHECK_KEYS, CHECK_PAIRS, CHECK_ARGSORT,
                                                   CHECK_KEYS, CHECK_PAIRS};
                if (!nvidia && i == 3 && k % 2) /* time on PoCL */
                    continue;
                sort_case c = make(k == 4 ? CLSORT_U64 : CLSORT_U32, dists[k], sizes[i],
                                   modes[k]);
                c.opt.descending = k == 3;
                c.opt.end_bit = k == 2 ? 20 : 0;
                if (!sort_and_check(ctx, &c, specs[si])) {
                    clsort_context_release(ctx);
                    return;
                }
            }
        clsort_context_release(ctx);
    }
}

void test_radix_fused(void)
{
    /* The fused start (clsort_radix_upfront_plan) leaves its sync buffer
     * zero for the next sort, and so does the plan of a sort without it
     * (it clears the counts kept there): sorts of every path in a row on one context,
     * of growing and shrinking pass counts (u32, u64, windows), with a trim
     * between (the buffer is allocated again, zeroed), must all sort; the
     * passes in one launch (clsort_radix_chain) before and after the other
     * paths. The tuned shape where it takes them (NVIDIA), and the portable
     * GPU shape and the CPU shape with them forced. */
    const char *specs[] = {
        "",
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "prologue_max=2000,fused_max=400000,chain_max=300000",
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "fused_max=2147483647,chain_max=100000",
        /* portions: the counts of several, kept in the same sync buffer */
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "prologue_max=2000,fused_max=80000,chain_max=60000,portion_max=100000",
    };
    for (size_t si = 0; si < 4; si++) {
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        static const size_t sizes[] = {1500, 70001, 399999, 400001, 262144, 9001};
        for (size_t round = 0; round < 2; round++) {
            for (size_t i = 0; i < 6; i++) {
                sort_case c = make(i % 2 ? CLSORT_U64 : CLSORT_U32,
                                   i == 2 ? DATA_ONE_DIGIT : DATA_UNIFORM, sizes[i],
                                   (check_mode)(i % 3 == 0   ? CHECK_KEYS
                                                : i % 3 == 1 ? CHECK_PAIRS
                                                             : CHECK_ARGSORT));
                c.opt.end_bit = i == 4 ? 20 : 0;
                c.opt.descending = i == 5;
                if (!sort_and_check(ctx, &c, specs[si][0] ? specs[si] : "tuned")) {
                    clsort_context_release(ctx);
                    return;
                }
            }
            size_t freed = 0;
            CHECK_OK(ctx, clsort_context_trim(ctx, &freed));
        }
        clsort_context_release(ctx);
    }
}

/* The fill tests' shapes: the portable one (rounds of 64 x 8 keys, two
 * work-groups a compute unit: an even number) on the fused start and on
 * portions, and the tuned one (NVIDIA only) with the fill from 100 keys'
 * worth of bytes (2-byte keys too at the tests' sizes); their key types. */
static const char *const fill_specs[] = {
    "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,hist_items=8,"
    "hist_groups=2,plan_wg=64,fill_min=100,skip_min=0,order_min=1000,single_max=0,"
    "prologue_max=0,chain_max=0,fused_max=2147483647",
    "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,hist_items=8,"
    "hist_groups=2,plan_wg=64,fill_min=100,skip_min=0,order_min=1000,single_max=0,"
    "prologue_max=0,chain_max=0,fused_max=0,portion_max=30000",
    "fill_min=100",
};
/* Whether the device's local memory holds the CPU shape's check (as
 * radix_onesweep_shape asks, for 8-bit digits) */
static bool cpu_fill_local(void)
{
    return test_local_mem() >= FILL_ONE_LOCAL_BYTES(256);
}

static const clsort_type fill_types[] = {CLSORT_U32, CLSORT_I32, CLSORT_U64,
                                         CLSORT_I64, CLSORT_U16, CLSORT_I16};

/* radix_fill's input: n keys of type t drawn (seeded) from `keys` keys (up
 * to 16), key j having j * 16 + 1 in its low byte (pass 0's digits name
 * them all, and no pass has more digits) and random bits above. With clash
 * (3 keys), key 2 is key 0 with key 1's top byte: every pass has two
 * digits, one of which names two keys: key 2 is then the last 10 keys
 * (a work-group that has seen key 0 in earlier rounds), or with round the
 * keys of the rounds of `round` keys of odd number, and key 0 of the even
 * ones (round 512: no work-group of an even number of them sees both;
 * round 1: the two alternate). */
/* The inputs of few keys: room for n keys of type t (checked), and the
 * generator's next word. */
static unsigned char *few_keys_alloc(clsort_type t, size_t n)
{
    unsigned char *x = malloc(n * clsort_type_size(t) + 1);
    CHECK(x != NULL, "out of host memory");
    return x;
}
static uint64_t few_keys_next(uint64_t *r)
{
    *r = *r * 6364136223846793005ull + 1442695040888963407ull;
    return *r;
}

static void *fill_input(clsort_type t, size_t n, unsigned keys, bool clash, size_t round,
                        uint64_t seed)
{
    const size_t kb = clsort_type_size(t);
    unsigned char *x = few_keys_alloc(t, n);
    if (!x)
        return NULL;
    uint64_t key[16], r = seed | 1;
    for (unsigned j = 0; j < keys; j++)
        key[j] = (few_keys_next(&r) & ~0xffull) | (j * 16 + 1);
    if (clash) { /* key 0 with key 1's top byte: every pass has two digits */
        const unsigned top = (unsigned)kb * 8 - 8;
        key[2] = (key[0] & ~(0xffull << top)) | (key[1] & (0xffull << top));
    }
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)(few_keys_next(&r) >> 33) % keys;
        if (clash && (j == 0 || j == 2))
            j = round ? ((i / round) % 2 ? 2 : 0) : i + 10 >= n ? 2 : 0;
        memcpy(x + i * kb, &key[j], kb); /* the low bytes (little-endian hosts) */
    }
    return x;
}

void test_radix_fill(void)
{
    /* The few keys' fill (GPU shapes; keys alone of an integer type over
     * all their bits): where every pass has few digits, a check whether
     * each digit of one pass names one key, and then each place written
     * from the keys (clsort_radix_fill_check, PASS_FILL). Every sort is
     * checked against the reference, and whether the fill wrote it
     * (clsort_radix_last_fill): 2 and 16 keys of u32, i32, u64, i64, u16
     * and i16, ascending and descending, on the fused start and on
     * portions; not where a digit names two keys (in later rounds of a
     * work-group, only across work-groups, and in the one round of one
     * work-group), nor for a bit window, floats or uniform keys. Pairs and
     * argsort of such keys take one pass by the keys' ranks instead
     * (PASS_REMAP), on GPU shapes in one portion. The portable shape
     * (rounds of 64 x 8 keys, two work-groups a compute unit: an even
     * number) with the fused start, on portions, and with the count and
     * the plan in launches of their own; the tuned one on NVIDIA (the fill
     * from 100 keys' worth of bytes), and on CPUs the CPU shape in LSD
     * order (groups of one work-item, each checking a contiguous chunk). */
    const bool nvidia = test_on_nvidia(), cpu = test_on_cpu() && cpu_fill_local();
    const char *specs[5] = {fill_specs[0], fill_specs[1], fill_specs[2],
                            "algorithm=onesweep,os_wg=1,os_items=4096,os_rank=serial,msd=0,"
                            "hist_wg=1,hist_items=1,hist_groups=2,plan_wg=64,fill_min=100,"
                            "skip_min=0,order_min=1000,single_max=0,prologue_max=0",
                            /* the count and the plan in launches of their own
                             * (no fused start), one portion */
                            "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,"
                            "hist_items=8,hist_groups=2,plan_wg=64,fill_min=100,skip_min=0,"
                            "order_min=1000,single_max=0,prologue_max=0,chain_max=0,fused_max=0"};
    const clsort_type *types = fill_types;
    for (size_t si = 0; si < 5; si++) {
        if ((si == 2 && !nvidia) || (si == 3 && !cpu))
            continue;
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        const char *spec = specs[si];
        const size_t n_all = si == 2 ? 3000017 : si == 1 ? 70001 : 50021;
        bool ok = true;
        for (size_t ti = 0; ok && ti < 6; ti++)
            for (unsigned kc = 0; ok && kc < 5; kc++) {
                /* kc: 2 keys, 16, 3 with a clash at the end, 3 with a clash
                 * by round, 3 with a clash in every round of one work-group
                 * (500 keys: one round) */
                const unsigned keys = kc == 0 ? 2 : kc == 1 ? 16 : 3;
                const bool clash = kc >= 2;
                if (kc >= 3 && (si == 2 || si == 3))
                    continue; /* the tuned rounds and work-groups are others */
                const size_t n = kc == 4 ? 500 : n_all;
                void *in = fill_input(types[ti], n, keys, clash, kc == 3 ? 512 : kc == 4 ? 1 : 0,
                                      test_seed("fill", n, kc * 8 + (unsigned)ti));
                if (!in)
                    break;
                /* keys alone, pairs and argsort (pass 0 by the keys' ranks,
                 * PASS_REMAP: GPU shapes in one portion), ascending and
                 * descending */
                for (int m = 0; ok && m < 3; m++)
                    for (int desc = 0; ok && desc < 2; desc++) {
                        const check_mode ck = m == 0   ? CHECK_KEYS
                                              : m == 1 ? CHECK_PAIRS
                                                       : CHECK_ARGSORT;
                        sort_case c = make(types[ti], DATA_FEW_UNIQUE, n, ck);
                        c.input = in;
                        c.opt.descending = desc;
                        ok = sort_and_check(ctx, &c, spec);
                        /* with values: not on portions (1), nor the CPU shape (3) */
                        const bool taken = !clash && (m == 0 || (si != 1 && si != 3));
                        const int got = clsort_radix_last_fill(ctx), want = taken ? (int)keys : 0;
                        CHECK(!ok || got == want,
                              "%s: %s, %u keys%s, mode %d%s, n=%zu: the fill wrote %d keys, "
                              "expected %d",
                              spec, clsort_type_name(types[ti]), keys, clash ? ", a clash" : "",
                              m, desc ? ", descending" : "", n, got, want);
                        ok = ok && got == want;
                    }
                /* what the fill does not take: a window, of keys or pairs */
                for (int m = 0; ok && kc == 1 && m < 2; m++) {
                    sort_case c = make(types[ti], DATA_FEW_UNIQUE, n, m ? CHECK_PAIRS : CHECK_KEYS);
                    c.input = in;
                    c.opt.end_bit = (unsigned)clsort_type_size(types[ti]) * 8 - 4;
                    ok = sort_and_check(ctx, &c, spec);
                    const int got = clsort_radix_last_fill(ctx);
                    CHECK(!ok || got == 0,
                          "%s: %s, 16 keys, a window, mode %d: the fill ran (%d keys)", spec,
                          clsort_type_name(types[ti]), m, got);
                    ok = ok && got == 0;
                }
                free(in);
            }
        /* floats of few values, uniform keys: no fill */
        for (int k = 0; ok && k < 2; k++) {
            sort_case c = make(k ? CLSORT_U32 : CLSORT_F32, k ? DATA_UNIFORM : DATA_FEW_UNIQUE,
                               n_all, CHECK_KEYS);
            ok = sort_and_check(ctx, &c, spec);
            const int got = clsort_radix_last_fill(ctx);
            CHECK(!ok || got == 0, "%s: %s: the fill ran (%d keys)", spec,
                  k ? "uniform u32" : "few f32", got);
        }
        /* keys in reverse order of the sort, ties too (16-bit keys past
         * 65536): the check's launch reverses 8-byte keys (FILL_REVERSE),
         * pass 0's launch 4-byte ones; with the first and last keys
         * swapped, or in order, neither reverses */
        for (size_t ti = 0; ok && ti < 6; ti++)
            for (int k = 0; ok && k < 4; k++) {
                /* k: reversed ascending, in order descending, reversed with
                 * the first and last keys swapped, in order ascending */
                const clsort_type t = types[ti];
                const size_t kb = clsort_type_size(t), n = n_all - (ti & 1); /* odd, even */
                unsigned char *in = malloc(n * kb);
                if (!in) {
                    CHECK(false, "out of host memory");
                    break;
                }
                data_fill(in, t, n, k == 1 || k == 3 ? DATA_SORTED : DATA_REVERSED,
                          test_seed("fill_rev", n, (unsigned)ti));
                if (k == 2) {
                    unsigned char tmp[8];
                    memcpy(tmp, in, kb);
                    memcpy(in, in + (n - 1) * kb, kb);
                    memcpy(in + (n - 1) * kb, tmp, kb);
                }
                sort_case c = make(t, DATA_REVERSED, n, CHECK_KEYS);
                c.input = in;
                c.opt.descending = k == 1;
                ok = sort_and_check(ctx, &c, spec);
                const int check = clsort_radix_last_fill_check(ctx);
                const bool want = k < 2 && kb == 8 && si != 3; /* not on CPU shapes */
                CHECK(!ok || (check == (int)FILL_REVERSE) == want,
                      "%s: %s, n=%zu, case %d: the check's state %#x, the reversal %s",
                      spec, clsort_type_name(t), n, k, (unsigned)check,
                      want ? "expected" : "not expected");
                ok = ok && (check == (int)FILL_REVERSE) == want;
                free(in);
            }
        clsort_context_release(ctx);
    }
}

/* radix_remap's input: n keys of type t (2 to 8 bytes) drawn (seeded) from
 * `keys` keys (up to 64) whose digit d of 8 bits names them: pass d's byte
 * is 4 * j + 3 for key j, the bytes below it a bit of j (pass d - 1 then
 * has two digits, fewer than pass d), the bytes above random. */
static void *remap_input(clsort_type t, size_t n, unsigned keys, unsigned d, uint64_t seed)
{
    const size_t kb = clsort_type_size(t);
    unsigned char *x = few_keys_alloc(t, n);
    if (!x)
        return NULL;
    uint64_t key[64], r = seed | 1;
    const uint64_t low = d ? ((uint64_t)1 << (8 * d)) - 1 : 0;
    const uint64_t upto = d == 7 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * d + 8)) - 1;
    for (unsigned j = 0; j < keys; j++)
        key[j] = (few_keys_next(&r) & ~upto) | (uint64_t)(4 * j + 3) << (8 * d) | low * (j & 1);
    for (size_t i = 0; i < n; i++) /* the low bytes (little-endian hosts) */
        memcpy(x + i * kb, &key[(few_keys_next(&r) >> 33) % keys], kb);
    return x;
}

void test_radix_remap(void)
{
    /* Pairs and argsort of few keys in one pass by the keys' ranks (GPU
     * shapes, one portion; clsort_radix_fill_check copies U -> A, then
     * PASS_REMAP): keys named by pass 1 or by the top pass (pass 0 is
     * then not the check's, and its row of bases is rewritten while
     * another is read), 16-bit, signed 32-bit and 64-bit keys, ascending
     * and descending; pairs of 4-byte values through the buffer API at an
     * offset with guards, 8- and 16-byte values, argsort with 64-bit
     * indices. Each result against the reference stable sort, and each
     * sort must have taken the pass (clsort_radix_last_fill). The portable
     * shape with the fused start, and with the count and plan in launches
     * of their own and persistent work-groups; the tuned shape on NVIDIA. */
    const char *specs[3] = {
        fill_specs[0],
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,os_persist=1,hist_wg=64,"
        "hist_items=8,hist_groups=2,plan_wg=64,fill_min=100,skip_min=0,order_min=1000,"
        "single_max=0,prologue_max=0,chain_max=0,fused_max=0",
        fill_specs[2]};
    const clsort_type types[3] = {CLSORT_U16, CLSORT_I32, CLSORT_U64};
    for (size_t si = 0; si < 3; si++) {
        if (si == 2 && !test_on_nvidia())
            continue;
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        /* the tuned shape: past its skip_min (2^20), where the check runs */
        const size_t n = si == 2 ? 3000017 : 50021;
        bool ok = true;
        for (size_t ti = 0; ok && ti < 3; ti++)
            for (unsigned top = 0; ok && top < 2; top++) {
                const unsigned d = top ? (unsigned)clsort_type_size(types[ti]) - 1 : 1;
                const unsigned keys = top ? 16 : 64;
                void *in = remap_input(types[ti], n, keys, d,
                                       test_seed("remap", n, (unsigned)(ti * 2 + top)));
                if (!in)
                    break;
                for (int m = 0; ok && m < 4; m++)
                    for (int desc = 0; ok && desc < 2; desc++) {
                        sort_case c = make(types[ti], DATA_FEW_UNIQUE, n,
                                           m == 3 ? CHECK_ARGSORT : CHECK_PAIRS);
                        c.input = in;
                        c.value_size = m == 1 ? 8 : m == 2 ? 16 : 4;
                        c.index_type = CLSORT_U64;
                        c.opt.descending = desc;
                        char label[256];
                        snprintf(label, sizeof label, "%s: %s, keys named by pass %u, mode %d%s",
                                 specs[si], clsort_type_name(types[ti]), d, m,
                                 desc ? ", descending" : "");
                        ok = m == 0 ? sort_and_check_buffer(ctx, &c, 7, label)
                                    : sort_and_check(ctx, &c, label);
                        const int got = clsort_radix_last_fill(ctx);
                        CHECK(!ok || got == (int)keys, "%s: the pass by ranks sorted %d keys, "
                              "expected %u", label, got, keys);
                        ok = ok && got == (int)keys;
                    }
                free(in);
            }
        clsort_context_release(ctx);
    }
}

/* radix_fill_set's inputs: how the keys are drawn (below) */
enum { SET_EVEN, SET_SPLIT, SET_DOMINANT, SET_FULL };

/* radix_fill_set's input: n keys of type t drawn (seeded) from `keys`
 * distinct random keys, none with a byte 0x5a (every pass leaves a digit
 * empty, as the plan asks of the set's check), key i about twice as often
 * as key i + keys / 4 (a common digit in every pass), with key 0 and the
 * type's largest among them where zero_max. SET_SPLIT: key 0 is an eighth
 * of the keys and the others are drawn evenly, the rounds of 512 keys of
 * odd number from [keys / 2, keys) and the even ones from [1, keys / 2)
 * (no work-group of an even number sees both halves); SET_DOMINANT: key 0
 * is 30% of them; SET_FULL: key j's low byte is j mod 256, so that pass 0
 * has every digit. */
static void *fill_set_input(clsort_type t, size_t n, unsigned keys, bool zero_max, int kind,
                            uint64_t seed)
{
    const size_t kb = clsort_type_size(t);
    uint64_t *key = malloc(keys * sizeof *key);
    unsigned char *x = malloc(n * kb + 1);
    if (!x || !key) {
        free(key);
        free(x);
        CHECK(false, "out of host memory");
        return NULL;
    }
    const uint64_t mask = kb == 8 ? ~0ull : (1ull << (8 * kb)) - 1;
    uint64_t r = seed | 1;
    for (unsigned j = 0; j < keys; j++) { /* distinct, no byte 0x5a: redrawn until so */
        bool fresh;
        do {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            key[j] = (r ^ r >> 29) & mask;
            if (kind == SET_FULL)
                key[j] = (key[j] & ~0xffull) | (j & 0xff);
            fresh = true;
            for (size_t b = kind == SET_FULL; b < kb; b++)
                fresh = fresh && (key[j] >> (8 * b) & 0xff) != 0x5a;
            for (unsigned e = 0; fresh && e < j; e++)
                fresh = key[e] != key[j];
        } while (!fresh);
    }
    if (zero_max && keys >= 2) {
        key[0] = 0;
        key[1] = mask;
    }
    for (size_t i = 0; i < n; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(r >> 11) / 9007199254740992.0;
        unsigned j = (unsigned)(u * u * keys); /* density 1 / (2 sqrt(u)) */
        if (kind == SET_SPLIT) {
            const unsigned half = keys / 2, odd = (i / 512) % 2;
            j = u < 0.125 ? 0 : odd ? half + (unsigned)((u - 0.125) / 0.875 * (keys - half))
                                    : 1 + (unsigned)((u - 0.125) / 0.875 * (half - 1));
        } else if (kind == SET_DOMINANT) {
            j = u < 0.3 ? 0 : 1 + (unsigned)((u - 0.3) / 0.7 * (keys - 1));
        }
        memcpy(x + i * kb, &key[j < keys ? j : keys - 1], kb); /* low bytes, little-endian */
    }
    free(key);
    return x;
}

/* The distinct keys of x (n keys of type t), from the reference's order. */
static size_t distinct_keys(clsort_type t, const void *x, size_t n)
{
    const size_t kb = clsort_type_size(t);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    if (!perm)
        return 0;
    ref_stable_perm(t, x, n, 0, 0, 0, perm);
    const unsigned char *k = x;
    size_t d = n > 0;
    for (size_t i = 1; i < n; i++)
        d += memcmp(k + perm[i] * kb, k + perm[i - 1] * kb, kb) != 0;
    free(perm);
    return d;
}

void test_radix_fill_set(void)
{
    /* The fill by a set of keys (GPU shapes; keys alone of an integer
     * type over all their bits): where a pass has more digits than the
     * fill by digits takes but some digit is common, a check gathers the
     * keys themselves (up to FILL_SET_MAX, and key 0) and each place is
     * written from them (clsort_fill_set). Every sort checked against the
     * reference, and whether the fill wrote it and with how many keys:
     * 300 and 1000 keys, 1024 with key 0 and the largest key (1025 in
     * all), u32, i32, u64, i64, u16 and i16, ascending and descending, on
     * the fused start and on portions; no fill for 1025 keys other than 0
     * and 1026, nor for 1250 keys of which each work-group sees one half
     * (the table across groups), nor for pairs; the plan asks for no check
     * where key 0 is 30% of the keys, where pass 0 has every digit, nor for
     * uniform keys. The tuned shape on NVIDIA (the fill from 100 keys'
     * worth of bytes); on CPUs the CPU shape in MSD order with buckets of
     * at most a sixteenth of a compute unit's share (msd_bound=1), which
     * the common keys' top digits pass: the plan then takes LSD order and
     * the check after the pending count, where the sort must fill as the
     * other shapes do (and does at least once). */
    const bool nvidia = test_on_nvidia(), cpu = test_on_cpu() && cpu_fill_local();
    const char *specs[4] = {fill_specs[0], fill_specs[1], fill_specs[2],
                            "algorithm=onesweep,os_wg=1,os_items=4096,os_rank=serial,msd=1,"
                            "msd_bound=1,hist_wg=1,hist_items=1,hist_groups=2,plan_wg=64,"
                            "radix_bits=8,large_min=0,fill_min=100,skip_min=0,order_min=1000,"
                            "single_max=0,prologue_max=0"};
    const clsort_type *types = fill_types;
    /* keys, key 0 and the largest among them, how drawn, keys the fill
     * writes, whether the plan asks for the set's check */
    static const struct {
        unsigned keys;
        bool zero_max;
        int kind, want;
        bool check;
    } cases[] = {
        {300, false, SET_EVEN, 300, true},     {1000, true, SET_EVEN, 1000, true},
        {1025, true, SET_EVEN, 1025, true},    {1025, false, SET_EVEN, 0, true},
        {1026, true, SET_EVEN, 0, true},       {1250, false, SET_SPLIT, 0, true},
        {600, false, SET_DOMINANT, 0, false},  {600, false, SET_FULL, 0, false},
    };
    static const char *const kinds[] = {"", ", halves by round", ", key 0 30%", ", pass 0 full"};
    for (size_t si = 0; si < 4; si++) {
        if ((si == 2 && !nvidia) || (si == 3 && !cpu))
            continue;
        clsort_context *ctx = test_context(specs[si]);
        if (!ctx)
            return;
        unsigned lsd_sorts = 0; /* the CPU shape's sorts in LSD order */
        /* 8-byte keys take the set only with 64-bit atomics */
        char ext[8192] = "";
        clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
        const bool atom64 = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
        const char *spec = specs[si];
        const size_t n = si == 3 ? 200003 : si == 2 ? 3000017 : si == 1 ? 70001 : 50021;
        bool ok = true;
        for (size_t ti = 0; ok && ti < 6; ti++)
            for (size_t kc = 0; ok && kc < sizeof cases / sizeof cases[0]; kc++) {
                const int kind = cases[kc].kind;
                if (kind == SET_SPLIT && si >= 2)
                    continue; /* the tuned rounds and work-groups are others */
                const bool wide = clsort_type_size(types[ti]) == 8 && !atom64;
                void *in = fill_set_input(types[ti], n, cases[kc].keys, cases[kc].zero_max, kind,
                                          test_seed("fill_set", n, (unsigned)(kc * 8 + ti)));
                if (!in)
                    break;
                if (kind == SET_SPLIT) { /* the table across groups must refuse it */
                    const size_t d = distinct_keys(types[ti], in, n);
                    CHECK(d > FILL_SET_MAX + 1, "%s: the split input holds %zu keys, not more "
                          "than the set's %u", clsort_type_name(types[ti]), d, FILL_SET_MAX + 1);
                }
                for (int desc = 0; ok && desc < 2; desc++) {
                    sort_case c = make(types[ti], DATA_FEW_1024, n, CHECK_KEYS);
                    c.input = in;
                    c.opt.descending = desc;
                    ok = sort_and_check(ctx, &c, spec);
                    /* the CPU shape: no check where the plan took MSD order */
                    const bool msd = si == 3 && clsort_radix_last_msd(ctx) != 0;
                    lsd_sorts += si == 3 && !msd;
                    const int got = clsort_radix_last_fill(ctx),
                              want = wide || msd ? 0 : cases[kc].want;
                    const int check = clsort_radix_last_fill_check(ctx);
                    const bool want_check = cases[kc].check && !wide && !msd;
                    CHECK(!ok || got == want,
                          "%s: %s, %u keys%s%s%s, n=%zu: the fill wrote %d keys, expected %d",
                          spec, clsort_type_name(types[ti]), cases[kc].keys,
                          cases[kc].zero_max ? " with 0 and the largest" : "", kinds[kind],
                          desc ? ", descending" : "", n, got, want);
                    CHECK(!ok || (check == (int)FILL_SET) == want_check,
                          "%s: %s, %u keys%s: the plan asked for check %d, the set's %s", spec,
                          clsort_type_name(types[ti]), cases[kc].keys, kinds[kind], check,
                          want_check ? "expected" : "not expected");
                    ok = ok && got == want && (check == (int)FILL_SET) == want_check;
                }
                if (ok && kc == 1) { /* pairs: no fill */
                    sort_case c = make(types[ti], DATA_FEW_1024, n, CHECK_PAIRS);
                    c.input = in;
                    ok = sort_and_check(ctx, &c, spec);
                    const int got = clsort_radix_last_fill(ctx);
                    CHECK(!ok || got == 0, "%s: %s pairs: the fill ran (%d keys)", spec,
                          clsort_type_name(types[ti]), got);
                    ok = ok && got == 0;
                }
                free(in);
            }
        /* uniform keys: the plan asks for no check */
        if (ok) {
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_KEYS);
            ok = sort_and_check(ctx, &c, spec);
            const int check = clsort_radix_last_fill_check(ctx);
            CHECK(!ok || check == 0, "%s: uniform u32: the plan asked for check %d", spec, check);
        }
        CHECK(!ok || si != 3 || lsd_sorts > 0, "%s: no sort took LSD order and the check", spec);
        clsort_context_release(ctx);
    }
}

/* Sorts `in` (n keys of type t) in the modes of the mask (bit m: keys,
 * pairs, argsort), ascending and, with both, descending, checked against
 * the reference stable order. */
static bool order_sorts(clsort_context *ctx, const char *label, clsort_type t, const void *in,
                        size_t n, unsigned begin_bit, unsigned end_bit, unsigned modes, bool both)
{
    for (int m = 0; m < 3; m++)
        for (int desc = 0; (modes >> m & 1) && desc < (both ? 2 : 1); desc++) {
            sort_case c = make(t, DATA_UNIFORM, n, (check_mode)m);
            c.input = in;
            c.opt.descending = desc;
            c.opt.begin_bit = begin_bit;
            c.opt.end_bit = end_bit;
            if (!sort_and_check(ctx, &c, label))
                return false;
        }
    return true;
}

/* Keys of type t in the reference's ascending order (sorted from dist), or
 * in the reverse of it. NULL when out of memory (reported). */
static unsigned char *order_input(clsort_type t, data_dist dist, size_t n, bool reverse)
{
    const size_t kb = clsort_type_size(t);
    unsigned char *x = malloc(n * kb + 1), *y = malloc(n * kb + 1);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    if (!x || !y || !perm) {
        CHECK(false, "out of host memory");
        free(x), free(y), free(perm);
        return NULL;
    }
    data_fill(x, t, n, dist, test_seed("order", n, (unsigned)dist * 16 + (unsigned)t));
    ref_stable_perm(t, x, n, 0, (unsigned)kb * 8, 0, perm);
    for (size_t i = 0; i < n; i++)
        memcpy(y + (reverse ? n - 1 - i : i) * kb, x + perm[i] * kb, kb);
    free(x);
    free(perm);
    return y;
}

/* One case of radix_order: keys of dist in order (or reversed) as they
 * are, with one tie, and with one key out of place. */
static bool order_case(clsort_context *ctx, const char *spec, clsort_type t, data_dist dist,
                       size_t n, bool rev, bool tuned)
{
    unsigned char *k = order_input(t, dist, n, rev);
    if (!k)
        return false;
    const size_t kb = clsort_type_size(t);
    const unsigned bits = (unsigned)kb * 8;
    const unsigned all = tuned ? 7u : 3u;
    char label[700];
    snprintf(label, sizeof label, "%s: %s %s", spec, rev ? "reversed" : "sorted",
             data_dist_name(dist));
    /* keys alone, distinct, ascending: the plan must have seen the order
     * (onesweep shapes) */
    const int expect = strstr(spec, "classic") ? 0 : rev ? 2 : 1;
    bool ok = true;
    if (dist == DATA_SORTED) {
        ok = order_sorts(ctx, label, t, k, n, 0, bits, 1u, false);
        const int seen = clsort_radix_last_order(ctx);
        CHECK(!ok || seen == expect, "%s n=%zu %s: the plan's order verdict %d, expected %d",
              label, n, clsort_type_name(t), seen, expect);
        ok = ok && seen == expect;
    }
    ok = ok && order_sorts(ctx, label, t, k, n, 0, bits, all, true);
    /* bit windows: the upper half (in order there, with ties below), the
     * lower half (not in order) */
    if (ok && (dist == DATA_SORTED || dist == DATA_UNIFORM))
        ok = order_sorts(ctx, label, t, k, n, bits / 2, bits, 3u, false) &&
             order_sorts(ctx, label, t, k, n, 0, bits / 2, 1u, false);
    /* one tie in reversed distinct keys: pairs keep their order */
    if (ok && dist == DATA_SORTED && rev) {
        unsigned char *c = malloc(n * kb + 1);
        ok = c != NULL;
        CHECK(ok, "out of host memory");
        if (ok) {
            memcpy(c, k, n * kb);
            memcpy(c + (n / 2 + 1) * kb, c + (n / 2) * kb, kb);
            ok = order_sorts(ctx, label, t, c, n, 0, bits, all, false);
        }
        free(c);
    }
    /* one key out of place: at the end, the start, the middle, and where
     * portions of 29952 (tiles of 256) and of 65536 keys meet */
    const size_t at[] = {n - 1, 1, n / 2, 29952, 65536};
    for (size_t ai = 0; ok && dist == DATA_SORTED && ai < 5; ai++) {
        if (at[ai] >= n)
            continue;
        unsigned char *c = malloc(n * kb + 1);
        ok = c != NULL;
        CHECK(ok, "out of host memory");
        if (!ok)
            break;
        memcpy(c, k, n * kb); /* key at[ai] trades places with its left neighbour */
        memcpy(c + at[ai] * kb, k + (at[ai] - 1) * kb, kb);
        memcpy(c + (at[ai] - 1) * kb, k + at[ai] * kb, kb);
        char l2[760];
        snprintf(l2, sizeof l2, "%s, keys %zu and %zu swapped", label, at[ai] - 1, at[ai]);
        ok = order_sorts(ctx, l2, t, c, n, 0, bits, 1u, false);
        const int seen = clsort_radix_last_order(ctx);
        /* (i16's 70001 keys repeat: equal neighbours stay in order) */
        const bool moved = memcmp(c + at[ai] * kb, k + at[ai] * kb, kb) != 0;
        CHECK(!ok || !moved || seen == 0, "%s n=%zu %s: the plan's order verdict %d, expected 0",
              l2, n, clsort_type_name(t), seen);
        ok = ok && (!moved || seen == 0) && order_sorts(ctx, l2, t, c, n, 0, bits, 2u, false);
        free(c);
    }
    free(k);
    return ok;
}

/* radix_order's signed keys of type t: keys k_i = i - n / 2 (wrapped to the
 * type: i8 and i16 cycle through their range, so not in order) sorted and
 * checked, the plan's verdict "in order" asserted for i32 and i64; then
 * ascending low bits with the sign bit alternating in a part of them, not
 * in order (verdict 0). */
static bool order_signed(clsort_context *ctx, const char *spec, clsort_type t, size_t n)
{
    const size_t kb = clsort_type_size(t);
    unsigned char *k = malloc(n * kb + 1);
    CHECK(k != NULL, "out of host memory");
    if (!k)
        return false;
    bool ok = true;
    for (int alt = 0; ok && alt < 2; alt++) {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = (uint64_t)((int64_t)i - (int64_t)(n / 2));
            /* alt: the low bits ascending, the sign bit set on every other
             * key of the second quarter, away from the ends of the count's
             * blocks of 2048 keys (where the check's scalar tail is) */
            const bool flip = (i & 1) && i >= n / 4 && i < n / 2 && i % 2048 < 2000;
            if (alt)
                v = (uint64_t)i | (flip ? (uint64_t)1 << (kb * 8 - 1) : 0);
            memcpy(k + i * kb, &v, kb); /* little-endian: the low bytes */
        }
        char label[700];
        snprintf(label, sizeof label, "%s: %s %s", spec, clsort_type_name(t),
                 alt ? "low bits in order, sign alternating" : "in order across the sign");
        ok = order_sorts(ctx, label, t, k, n, 0, (unsigned)kb * 8, 1u, false);
        const int seen = clsort_radix_last_order(ctx);
        const int expect = alt || kb < 4 ? 0 : 1;
        if (ok && !strstr(spec, "classic") && (alt || kb >= 4)) {
            CHECK(seen == expect, "%s n=%zu: the plan's order verdict %d, expected %d", label, n,
                  seen, expect);
            ok = seen == expect;
        }
    }
    free(k);
    return ok;
}

/* The order check of the upfront count (radix.c, radix_shape.order): keys
 * already in order and in reverse order (distinct, with ties, one tie),
 * and nearly so (one key out of place at the start, the end, the middle
 * and where portions meet), on every shape, with the check from 1000 keys
 * on; keys alone, pairs and argsort, both directions, bit windows, float
 * specials (NaN, -0.0, +0.0) in sorted order. */
void test_radix_order(void)
{
    clsort_context *probe = test_context(NULL);
    if (!probe)
        return;
    const char *specs[16];
    size_t nspecs = test_shapes(probe, specs, 14);
    clsort_context_release(probe);
    specs[nspecs++] = "portion_max=30000"; /* portions of the tuned shape */
    /* MSD order from tiles, whose sample sees the order first (PoCL on
     * x86-64: elsewhere the plain MSD order) */
    if (test_on_cpu())
        specs[nspecs++] = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,"
                          "hist_wg=1,plan_wg=64,nt_min=1,tile_min=1,radix_bits=8,large_min=0";
    for (size_t si = 0; si < nspecs; si++) {
        char spec[600];
        snprintf(spec, sizeof spec, "%s%sorder_min=1000,skip_min=0", specs[si],
                 specs[si][0] ? "," : "");
        const bool tuned = si == 0;
        clsort_context *ctx = test_context(spec);
        if (!ctx)
            return;
        bool ok = true;
        static const clsort_type types[] = {CLSORT_U32, CLSORT_F32, CLSORT_U64, CLSORT_I16};
        for (size_t ti = 0; ok && ti < (tuned ? 4u : 1u); ti++) {
            const clsort_type t = types[ti];
            const data_dist dists[] = {DATA_SORTED, DATA_FEW_UNIQUE, DATA_UNIFORM,
                                       t == CLSORT_F32 ? DATA_SPECIALS : DATA_ALL_EQUAL};
            for (size_t di = 0; ok && di < (tuned ? 4u : 2u); di++)
                for (int rev = 0; ok && rev < 2; rev++)
                    ok = order_case(ctx, spec, t, dists[di], 70001, rev, tuned);
        }
        /* signed keys across the sign: in order (the check must see the
         * order over the sign bit), and with the low bits in order but the
         * sign alternating (not in order: a check blind to the sign bit
         * would skip the sort) */
        static const clsort_type signed_types[] = {CLSORT_I8, CLSORT_I16, CLSORT_I32,
                                                   CLSORT_I64};
        for (size_t ti = 0; ok && tuned && ti < 4; ti++)
            ok = order_signed(ctx, spec, signed_types[ti], 70001);
        /* larger: more upfront work-groups, and on the tuned PoCL rows
         * MSD order from tiles once the sample looks unordered */
        for (int rev = 0; ok && tuned && rev < 2; rev++)
            ok = order_case(ctx, spec, CLSORT_U32, DATA_SORTED, 300007, rev, false);
        clsort_context_release(ctx);
        if (!ok)
            return;
    }
}

/* A case of MSD order's bucket tests (radix_common, radix_by_set): key
 * type, mode, value bytes (0: 4), order and bit window */
typedef struct msd_case {
    clsort_type type;
    check_mode mode;
    size_t value_size;
    int descending;
    unsigned begin_bit, end_bit;
} msd_case;

/* The sort of case m over n keys (their values or indices set by the
 * checker; odd `index`: 64-bit argsort indices) */
static sort_case make_msd_case(const msd_case *m, size_t n, size_t index)
{
    sort_case c = make(m->type, DATA_UNIFORM, n, m->mode);
    c.value_size = m->value_size ? m->value_size : 4;
    c.index_type = index % 2 ? CLSORT_U64 : CLSORT_U32;
    c.opt.descending = m->descending;
    c.opt.begin_bit = m->begin_bit;
    c.opt.end_bit = m->end_bit;
    return c;
}

/* Sorts c with the keys k (the caller's, freed here; NULL: out of memory)
 * on ctx and checks it (sort_and_check) */
static bool sort_owned_keys(clsort_context *ctx, sort_case *c, void *k, const char *label)
{
    CHECK(k != NULL, "out of memory");
    if (!k)
        return false;
    c->input = k;
    const bool ok = sort_and_check(ctx, c, label);
    free(k);
    return ok;
}

/* Zipf's head among rare keys, for radix_common: n keys of type t, 30%
 * one key (h0), 15% another (h1, negative for signed and float types), 10%
 * a third (h2), each of its own top digit, 1% random below h0's top digit
 * (keys before and after h0 in its bucket), the rest random over the
 * whole range. With `alike`, each h0 takes random bits outside the bits
 * [begin_bit, end_bit) (a float h0 is +0.0 or -0.0 at random), so that the
 * sort must keep them in their order. */
static void *common_keys(clsort_type t, size_t n, unsigned begin_bit, unsigned end_bit,
                         bool alike, uint64_t seed)
{
    const size_t bytes = clsort_type_size(t);
    const unsigned bits = (unsigned)bytes * 8, top = (end_bit ? end_bit : bits) - 8;
    unsigned char *k = malloc(n * bytes);
    if (!k)
        return NULL;
    const bool fp = t == CLSORT_F32 || t == CLSORT_F64;
    const uint64_t all = bytes == 8 ? ~0ull : (1ull << bits) - 1;
    /* the heads: top digits 0x5a, 0xc3 (a sign bit set) and 0x21, their
     * other bits fixed; a float h0 is 0.0 */
    const uint64_t low = 0x0123456789abcdefull & ((1ull << top) - 1);
    const uint64_t h0 = fp ? 0 : (0x5aull << top | low), h1 = 0xc3ull << top | (low ^ 0x55),
                   h2 = 0x21ull << top | (low >> 3);
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t r = x ^ (x >> 29) * 0x9e3779b97f4a7c15ull;
        const unsigned p = (unsigned)((x >> 33) % 1000);
        uint64_t v = r & all;
        if (p < 300) {
            v = h0;
            if (alike) /* the bits outside the window; a float's sign */
                v |= fp ? (r & 1) << (bits - 1)
                        : r & all & ~(((1ull << ((end_bit ? end_bit : bits) - begin_bit)) - 1)
                                      << begin_bit);
        } else if (p < 450) {
            v = h1;
        } else if (p < 550) {
            v = h2;
        } else if (p < 560) { /* h0's top digit, other bits random */
            v = (fp ? 0 : 0x5aull << top) | (r & ((1ull << top) - 1));
        }
        memcpy(k + i * bytes, &v, bytes);
    }
    return k;
}

void test_radix_common(void)
{
    /* MSD order's buckets of one common key among others (Zipf's head):
     * the sample finds most of a top digit's samples one key
     * (ONE_COMMON), and the bucket takes the others out in one read,
     * sorts them and writes the common key's run between them (from its
     * key, or, where the key's bits may differ, as pairs, floats' +0.0
     * and -0.0 and bit windows, its elements in order). Keys, pairs and
     * argsort of 32- and 64-bit integers and floats, both orders, bit
     * windows, from the tiles and without; each sort checked against the
     * stable order and its three buckets counted (ST_COMMON). With the
     * plan's bound at a quarter of a share (msd_bound 4) the sample itself
     * takes MSD order by these buckets (30% of the keys in one: up to 4
     * compute units); at 1024 sixteenths every bucket is in the bound and
     * the split runs on any CPU. */
    if (!test_on_cpu())
        return;
    const unsigned units = cpu_units();
    static const char *const shapes[] = {
        /* tiles of 1000 keys */
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "nt_min=1,tile_min=1,radix_bits=8,large_min=0",
        /* without tiles: the sample from 2^20 keys on */
        "algorithm=onesweep,os_wg=1,os_items=4096,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "tile_min=0,radix_bits=8,large_min=0"};
    static const struct {
        msd_case m;
        bool alike;
    } cases[] = {
        {{CLSORT_U64, CHECK_KEYS, 0, 0, 0, 0}, false},   {{CLSORT_U32, CHECK_KEYS, 0, 1, 0, 0}, false},
        {{CLSORT_I64, CHECK_PAIRS, 4, 0, 0, 0}, false},  {{CLSORT_U32, CHECK_ARGSORT, 0, 0, 0, 0}, false},
        {{CLSORT_F32, CHECK_KEYS, 0, 0, 0, 0}, true},    {{CLSORT_F64, CHECK_PAIRS, 8, 1, 0, 0}, true},
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 24}, true},  {{CLSORT_U64, CHECK_KEYS, 0, 1, 5, 64}, true},
        {{CLSORT_I32, CHECK_KEYS, 0, 1, 0, 0}, false},
    };
    bool ok = true;
    for (size_t si = 0; ok && si < 2; si++)
        for (unsigned bound = 4; ok && bound <= 1024; bound *= 256) {
            char spec[400];
            snprintf(spec, sizeof spec, "%s,msd_bound=%u", shapes[si], bound);
            clsort_context *ctx = test_context(spec);
            if (!ctx)
                return;
            const size_t n = si ? 1100009 : 300007;
            /* the plain shape's sorts are larger: every other case */
            for (size_t ci = bound == 4 ? 0 : 1; ok && ci < sizeof cases / sizeof cases[0];
                 ci += si ? 2 : 1) {
                sort_case c = make_msd_case(&cases[ci].m, n, ci);
                void *k = common_keys(c.type, n, c.opt.begin_bit, c.opt.end_bit, cases[ci].alike,
                                      test_seed("common", n, (unsigned)(ci * 4 + si * 2 + bound)));
                char label[600];
                snprintf(label, sizeof label, "%s, Zipf's head, case %zu", spec, ci);
                ok = sort_owned_keys(ctx, &c, k, label);
                /* the three heads' buckets, where the plan must take them */
                const int got = clsort_radix_last_common(ctx),
                          want = bound > 4 || units <= 4 ? 3 : -1;
                CHECK(!ok || want < 0 || got == want,
                      "%s: %d buckets split by their common key, not %d (%u units; MSD order "
                      "%d, tiles %d)",
                      label, got, want, units, clsort_radix_last_msd(ctx),
                      clsort_radix_last_tiled(ctx));
                ok = ok && (want < 0 || got == want);
            }
            clsort_context_release(ctx);
        }
    /* Beside a common key's bucket past the bound, a bucket of three keys
     * of 5% each (Zipf's heads sharing a top digit: no common key), past
     * the bound and within twice it: flag 2 still (the bound is a
     * quarter of a unit's share: 15% within twice it up to 3 units) */
    if (ok && units <= 3) {
        const char *spec = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,"
                           "hist_wg=1,plan_wg=64,nt_min=1,tile_min=1,radix_bits=8,large_min=0,"
                           "msd_bound=4";
        clsort_context *hc = test_context(spec);
        const size_t n = 300007;
        uint32_t *k = hc ? malloc(n * sizeof *k) : NULL;
        if (k) {
            data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed("common_heads", n, 0));
            for (size_t i = 0; i < n; i++) {
                const unsigned p = (unsigned)(i * 7919 % 100);
                if (p < 30)
                    k[i] = 0x5a123456u;
                else if (p < 45)
                    k[i] = 0xc3000000u | (p % 3) << 12;
                else if (p < 48) /* rare keys beside the common one */
                    k[i] = 0x5a000000u | (k[i] & 0xffffffu);
                else if (k[i] >> 24 == 0x5a || k[i] >> 24 == 0xc3)
                    k[i] ^= 1u << 24;
            }
            sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_KEYS);
            c.input = k;
            ok = sort_and_check(hc, &c, spec);
            const int msd = clsort_radix_last_msd(hc), got = clsort_radix_last_common(hc);
            CHECK(!ok || (msd == 1 && got >= 1),
                  "%s: a common key's bucket and one of three heads: MSD order %d, %d buckets "
                  "split by their common key (%u units)",
                  spec, msd, got, units);
            ok = ok && msd == 1 && got >= 1;
        }
        free(k);
        if (hc)
            clsort_context_release(hc);
    }
    /* 64-bit keys alone where the tiles are there to fill (fill_only),
     * ascending and descending: whose buckets of an even spread would not
     * stream through local memory (bucket_local 4096), where flag 2 by
     * common keys takes the tiles, as flag 2 does there (the other buckets
     * gathered from the tiles' runs; without tiles, slower on the
     * Xeon-16: docs/PERFORMANCE.md, decision log); and 11-bit digits,
     * whose flag 2 takes no tiles */
    static const struct {
        const char *spec;
        int tiled;
    } fill_only[] = {
        {"algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
         "nt_min=1,tile_min=1,radix_bits=8,large_min=0,msd_bound=4,bucket_local=4096",
         1},
        {"algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
         "nt_min=1,tile_min=1,radix_bits=11,large_min=0,msd_bound=4",
         0}};
    for (size_t f = 0; ok && f < sizeof fill_only / sizeof fill_only[0]; f++) {
        const char *spec = fill_only[f].spec;
        clsort_context *sc = test_context(spec);
        if (!sc)
            return;
        for (int desc = 0; ok && desc < 2; desc++) {
            const size_t n = 300007;
            sort_case c = make(CLSORT_U64, DATA_UNIFORM, n, CHECK_KEYS);
            c.opt.descending = desc;
            void *k = common_keys(c.type, n, 0, 0, false,
                                  test_seed("common_fill_only", n, (unsigned)(f * 2 + desc)));
            CHECK(k != NULL, "out of memory");
            c.input = k;
            ok = k && sort_and_check(sc, &c, spec);
            free(k);
            const int got = clsort_radix_last_common(sc), want = units <= 4 ? 3 : -1,
                      tiled = clsort_radix_last_tiled(sc),
                      want_tiled = tiles_built() && units <= 4 ? fill_only[f].tiled : -1;
            CHECK(!ok || ((want < 0 || got == want) && (want_tiled < 0 || tiled == want_tiled)),
                  "%s, Zipf's head: %d buckets split by their common key (not %d), tiles %d "
                  "(not %d)",
                  spec, got, want, tiled, want_tiled);
            ok = ok && (want < 0 || got == want) && (want_tiled < 0 || tiled == want_tiled);
        }
        clsort_context_release(sc);
    }
}

/* The shapes of MSD order's bucket routes (radix_by_set, radix_by_ranks):
 * tiles of 1000 keys, no tiles (the sample from 2^20 keys on), tiles with
 * 11-bit digits; every bucket in the plan's bound */
static const char *const bucket_shapes[] = {
    "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
    "nt_min=1,tile_min=1,radix_bits=8,large_min=0,msd_bound=1024",
    "algorithm=onesweep,os_wg=1,os_items=4096,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
    "tile_min=0,radix_bits=8,large_min=0,msd_bound=1024",
    "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
    "nt_min=1,tile_min=1,radix_bits=11,large_min=0,msd_bound=1024"};

/* The bucket routes' generator (a 64-bit LCG, its output mixed) */
static uint64_t pool_next(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x ^ (*x >> 29) * 0x9e3779b97f4a7c15ull;
}

/* A pool of keys of `bits` bits for the bucket routes: 16 distinct top
 * bytes (tops), and pool[j] one of `patterns` random patterns below top
 * byte tops[j % 16], of the pattern bits `below` */
static void key_pool(unsigned bits, unsigned patterns, uint64_t below, uint64_t *x,
                     uint64_t *tops, uint64_t *pool)
{
    const unsigned top = bits - 8;
    for (unsigned j = 0; j < 16; j++)
        tops[j] = (pool_next(x) >> 60) | j << 4;
    for (unsigned j = 0; j < 16 * patterns; j++)
        pool[j] = tops[j % 16] << top | (pool_next(x) & below);
}

/* Float keys' specials in a pool of keys of `bits` bits: +0.0 and -0.0 (one
 * key to the sort) at zero and neg_zero, NaNs of two patterns at nan and
 * nan2 */
static void pool_float_specials(uint64_t *pool, unsigned bits, unsigned zero, unsigned neg_zero,
                                unsigned nan, unsigned nan2)
{
    pool[zero] = 0;
    pool[neg_zero] = 1ull << (bits - 1);
    pool[nan] = ~0ull >> (64 - bits);
    pool[nan2] = pool[nan] ^ 0x15;
}

/* A case of the bucket routes' tests: the sort, the keys' option (`many`:
 * see their generators) and the buckets the route should take */
typedef struct route_case {
    msd_case m;
    size_t many;
    int buckets;
} route_case;

/* A bucket route's test (radix_by_set, radix_by_ranks): the seeds' name,
 * its buckets' keys and its route in labels, the keys of a case, how many
 * buckets took the route, and whether that count is as wanted (*want: the
 * count, -1 any) */
typedef struct route_test {
    const char *seed, *keys_label, *route;
    void *(*keys)(const sort_case *c, size_t n, size_t many, uint64_t seed);
    int (*taken)(clsort_context *ctx);
    bool (*as_want)(const route_case *rc, const sort_case *c, size_t n, size_t shape, int got,
                    int *want);
} route_test;

/* The cases on each of bucket_shapes (every other case on the shape
 * without tiles, at 2^20 keys and more): each sort checked against the
 * stable order and its route's buckets counted */
static bool bucket_routes(const route_test *t, const route_case *cases, size_t nc)
{
    bool ok = true;
    for (size_t si = 0; ok && si < sizeof bucket_shapes / sizeof bucket_shapes[0]; si++) {
        clsort_context *ctx = test_context(bucket_shapes[si]);
        if (!ctx)
            return false;
        const size_t n = si == 1 ? 1100009 : 300007;
        for (size_t ci = si == 1; ok && ci < nc; ci += si ? 2 : 1) {
            sort_case c = make_msd_case(&cases[ci].m, n, ci);
            void *k = t->keys(&c, n, cases[ci].many, test_seed(t->seed, n, (unsigned)(ci * 4 + si)));
            char label[600];
            snprintf(label, sizeof label, "%s, %s, case %zu", bucket_shapes[si], t->keys_label,
                     ci);
            ok = sort_owned_keys(ctx, &c, k, label);
            int want = -1;
            const int got = t->taken(ctx);
            const bool as_want = t->as_want(&cases[ci], &c, n, si, got, &want);
            CHECK(!ok || as_want, "%s: %d buckets sorted by %s, not %d (MSD order %d, tiles %d)",
                  label, got, t->route, want, clsort_radix_last_msd(ctx),
                  clsort_radix_last_tiled(ctx));
            ok = ok && as_want;
        }
        clsort_context_release(ctx);
    }
    return ok;
}

/* radix_by_set's keys: n keys of type t drawn at random from a pool of 16
 * top digits times 256 random patterns below them, so that each of MSD
 * order's 16 buckets holds about n / 16 keys of 256 distinct ones; with
 * `many`, the last `many` keys are random below the third top digit, so
 * that its bucket passes the first look (its first keys repeat) and then
 * has too many distinct keys for the set (SET_MAX, 8192); with `edge`, the
 * sixth top digit's bucket holds exactly `edge` distinct keys, its first
 * 300 keys 8 of them. Some of the
 * pool's keys differ in their lowest 3 bits alone; floats: the pool holds
 * +0.0 and -0.0 and NaNs of several patterns among its keys. */
static void *set_keys(clsort_type t, size_t n, size_t many, size_t edge, uint64_t seed)
{
    const size_t bytes = clsort_type_size(t);
    const unsigned bits = (unsigned)bytes * 8, top = bits - 8;
    const uint64_t below = (1ull << top) - 1;
    const bool fp = t == CLSORT_F32 || t == CLSORT_F64;
    uint64_t pool[16 * 256], tops[16], x = seed;
    key_pool(bits, 256, below, &x, tops, pool);
    for (unsigned j = 48; j < 112; j++) /* keys alike but in their lowest bits */
        pool[j] = pool[j % 16 + 32] ^ (j >> 4);
    if (fp) { /* +0.0 and -0.0 (one key to the sort), and NaNs */
        pool_float_specials(pool, bits, 0, 16, 1, 33);
        pool[17] = pool[1];
    }
    unsigned char *k = malloc(n * bytes);
    if (!k)
        return NULL;
    size_t c = 0; /* keys of the edge's bucket so far */
    for (size_t i = 0; i < n; i++) {
        const unsigned j = (unsigned)(pool_next(&x) % (16 * 256));
        uint64_t v = pool[j];
        if (i + many >= n)
            v = tops[2] << top | (pool_next(&x) & below);
        else if (edge && j % 16 == 5) { /* 8 keys 300 times, then each of the others */
            const uint64_t e = c < 300 ? c % 8 : c - 300 < edge - 8 ? c - 292 : pool_next(&x) % edge;
            v = tops[5] << top | ((e * 0x9e3779b97f4a7c15ull) & below);
            c++;
        }
        memcpy(k + i * bytes, &v, bytes);
    }
    return k;
}

/* radix_by_set's keys of case c (bucket_routes) */
static void *set_case_keys(const sort_case *c, size_t n, size_t many, uint64_t seed)
{
    return set_keys(c->type, n, many, 0, seed);
}

/* radix_by_set's count: every bucket where the set's local memory
 * (SET_BYTES, radix_msd.cl) holds the largest bucket, about n / buckets
 * keys, in the bucket passes' local memory (three quarters of the
 * device's, at most 1.5 MiB), as keys; else any. With 11-bit digits the
 * top digit's 9 bits split each bucket in two or not, by the pool's keys:
 * at least that many. */
static bool set_as_want(const route_case *rc, const sort_case *c, size_t n, size_t shape,
                        int got, int *want)
{
    const size_t vb = c->mode == CHECK_KEYS      ? 0
                      : c->mode == CHECK_ARGSORT ? clsort_type_size(c->index_type)
                                                 : c->value_size,
                 local = test_local_mem() / 4 * 3 < (3u << 19)
                             ? (size_t)(test_local_mem() / 4 * 3)
                             : (size_t)3 << 19,
                 m = n / (size_t)rc->buckets / 10 * 11;
    const bool fits = 16384 * 12 + 2 * 8192 * 8 + m * 2 <= local / (8 + vb) * 8;
    *want = fits ? rc->buckets : -1;
    return *want < 0 || (shape == 2 ? got >= *want : got == *want);
}

void test_radix_by_set(void)
{
    /* MSD order's buckets of many keys and few distinct ones, where LSD
     * order would take 4 passes or more (64-bit keys): sorted through a
     * hash table of their keys, the set sorted, and each key put in its
     * place (keys alone of an integer type, all bits: written from the
     * set). Keys, pairs and argsort of 64-bit integers and floats (+0.0,
     * -0.0 and NaNs among them), both orders, bit windows (the keys'
     * other bits then differ: moved, not written), from tiles and
     * without, 8- and 11-bit digits; each sort checked against the stable
     * order and its buckets counted (ST_BY_SET: one less where one bucket
     * has too many distinct keys and takes the passes). */
    if (!test_on_cpu())
        return;
    static const route_case cases[] = {
        {{CLSORT_U64, CHECK_KEYS, 0, 0, 0, 0}, 0, 16},
        {{CLSORT_I64, CHECK_KEYS, 0, 1, 0, 0}, 20000, 15},
        {{CLSORT_U64, CHECK_PAIRS, 4, 1, 0, 0}, 0, 16},
        {{CLSORT_F64, CHECK_KEYS, 0, 0, 0, 0}, 0, 16},
        {{CLSORT_F64, CHECK_PAIRS, 8, 1, 0, 0}, 20000, 15},
        {{CLSORT_U64, CHECK_ARGSORT, 0, 0, 0, 0}, 0, 16},
        /* the top digit of bits [59, 64): 5 bits, one value a bucket */
        {{CLSORT_U64, CHECK_KEYS, 0, 0, 3, 64}, 0, 16},
        /* the top digit of bits [62, 64): 4 buckets of 1024 distinct keys */
        {{CLSORT_I64, CHECK_PAIRS, 4, 0, 6, 64}, 0, 4},
    };
    static const route_test t = {"by_set", "buckets of 256 keys", "their set", set_case_keys,
                                 clsort_radix_last_by_set, set_as_want};
    bool ok = bucket_routes(&t, cases, sizeof cases / sizeof cases[0]);
    /* a bucket of exactly SET_MAX distinct keys takes the set, one more
     * does not: keys written from the set, and pairs moved by it */
    clsort_context *ec = ok ? test_context(bucket_shapes[0]) : NULL;
    for (unsigned e = 0; ec && ok && e < 4; e++) {
        const size_t n = 300007, edge = e & 1 ? 8193 : 8192;
        sort_case c = make(e & 2 ? CLSORT_I64 : CLSORT_U64, DATA_UNIFORM, n,
                           e & 2 ? CHECK_PAIRS : CHECK_KEYS);
        c.opt.descending = e == 1;
        void *k = set_keys(c.type, n, 0, edge, test_seed("by_set_edge", n, e));
        char label[600];
        snprintf(label, sizeof label, "%s, a bucket of %zu distinct keys", bucket_shapes[0], edge);
        ok = sort_owned_keys(ec, &c, k, label);
        const int got = clsort_radix_last_by_set(ec), want = edge == 8192 ? 16 : 15;
        CHECK(!ok || got == want, "%s: %d buckets sorted by their set, not %d", label, got, want);
        ok = ok && got == want;
    }
    if (ec)
        clsort_context_release(ec);
    /* 32-bit keys in a span bucket of the sample's map (all their bits
     * below its top digit: 4 passes): 90% of the keys, and every sample,
     * in top digits 0xfe and 0xff, the others 300 values from 0x10000000
     * to 0x14000000, which the map puts in one bucket spanning several
     * top digits, sorted by its set where the map is taken */
    const char *span = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,"
                       "plan_wg=64,nt_min=1,tile_min=1,msd_bound=4,radix_bits=8,large_min=0";
    clsort_context *sc = ok ? test_context(span) : NULL;
    for (int m = 0; sc && ok && m < 2; m++) {
        const size_t n = 300007;
        uint32_t *k = malloc(n * sizeof *k);
        CHECK(k != NULL, "out of memory");
        if (!k)
            break;
        data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed("by_set_span", n, (unsigned)m));
        for (size_t i = 0; i < n; i++)
            k[i] = i % 10 == 9 ? 0x10000000u + (k[i] % 300u) * 0x36000u
                               : 0xfe000000u | (k[i] & 0x01ffffffu);
        for (size_t s = 0; s < 1024; s++) /* the sample's keys (1024 at this n) */
            k[s * n / 1024] |= 0xfe000000u;
        sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, m ? CHECK_PAIRS : CHECK_KEYS);
        c.input = k;
        c.opt.descending = m;
        ok = sort_and_check(sc, &c, span);
        free(k);
        const int got = clsort_radix_last_by_set(sc);
        const bool mapped = clsort_radix_last_tiled(sc) == 2; /* TILED_MAPPED */
        CHECK(!ok || !mapped || got >= 1, "%s: the span bucket not sorted by its set (%d)", span,
              got);
        ok = ok && (!mapped || got >= 1);
    }
    if (sc)
        clsort_context_release(sc);
}

/* radix_by_ranks's keys: n keys of type t drawn at random from a pool of 16
 * top digits times 5 patterns below them (the 3 bits under the top byte
 * clear, so that 9- and 11-bit top digits keep the pattern's bucket), so
 * that each of MSD order's 16 buckets holds about n / 16 keys of 5
 * distinct ones; with `many`, the last `many` keys are random below the
 * third top digit, so that its bucket's first keys are few and the bucket
 * is not; floats: +0.0 and -0.0 (one key to the sort) and NaNs of two
 * patterns among the pool's keys. */
static void *rank_keys(clsort_type t, size_t n, size_t many, uint64_t seed)
{
    const size_t bytes = clsort_type_size(t);
    const unsigned bits = (unsigned)bytes * 8, top = bits - 8;
    const uint64_t below = ((1ull << top) - 1) >> 3;
    const bool fp = t == CLSORT_F32 || t == CLSORT_F64;
    uint64_t pool[16 * 5], tops[16], x = seed;
    key_pool(bits, 5, below, &x, tops, pool);
    if (fp) /* +0.0 and -0.0, and NaNs */
        pool_float_specials(pool, bits, 0, 16, 1, 17);
    unsigned char *k = malloc(n * bytes);
    if (!k)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = pool[pool_next(&x) % (16 * 5)];
        if (i + many >= n)
            v = tops[2] << top | (pool_next(&x) & ((1ull << top) - 1));
        memcpy(k + i * bytes, &v, bytes);
    }
    return k;
}

/* radix_by_ranks's keys of case c (bucket_routes), with random bits below
 * its bit window */
static void *rank_case_keys(const sort_case *c, size_t n, size_t many, uint64_t seed)
{
    void *k = rank_keys(c->type, n, many, seed);
    for (size_t i = 0; k && c->opt.begin_bit && i < n; i++) {
        const uint64_t r = (i * 0x9e3779b97f4a7c15ull) >> (64 - c->opt.begin_bit);
        if (c->type == CLSORT_U32)
            ((uint32_t *)k)[i] ^= (uint32_t)r;
        else
            ((uint64_t *)k)[i] ^= r;
    }
    return k;
}

/* radix_by_ranks's count: the case's, or at least 12 where it is -1 */
static bool rank_as_want(const route_case *rc, const sort_case *c, size_t n, size_t shape,
                         int got, int *want)
{
    (void)c, (void)n, (void)shape;
    *want = rc->buckets;
    return *want < 0 ? got >= 12 : got == *want;
}

void test_radix_by_ranks(void)
{
    /* MSD order's buckets of many keys and a few distinct ones (more than
     * two): an 8-bit field of the order key that tells the bucket's first
     * keys apart names each key; one read counts the field's values and
     * checks that each is one key, a second moves each key to its rank's
     * place (keys alone of an integer type, all bits: written from their
     * keys). Keys, pairs and argsort of 32- and 64-bit integers and floats
     * (+0.0, -0.0 and NaNs among them), both orders, bit windows (the
     * keys' other bits then differ: moved, not written), from tiles and
     * without, 8- and 11-bit digits; each sort checked against the stable
     * order and its buckets counted (ST_BY_RANKS: one less where a
     * bucket's first keys are few and the others are not). */
    if (!test_on_cpu())
        return;
    /* buckets -1: at least 12 (floats' specials) */
    static const route_case cases[] = {
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 0}, 0, 16},
        {{CLSORT_U64, CHECK_KEYS, 0, 0, 0, 0}, 0, 16},
        {{CLSORT_I32, CHECK_KEYS, 0, 1, 0, 0}, 20000, 15},
        {{CLSORT_U32, CHECK_ARGSORT, 0, 1, 0, 0}, 0, 16},
        {{CLSORT_F32, CHECK_PAIRS, 4, 0, 0, 0}, 0, -1},
        {{CLSORT_F64, CHECK_KEYS, 0, 1, 0, 0}, 0, -1},
        {{CLSORT_I64, CHECK_PAIRS, 8, 0, 0, 0}, 20000, 15},
        /* bit windows: the keys' bits below them random */
        {{CLSORT_U32, CHECK_PAIRS, 4, 1, 4, 32}, 0, 16},
        {{CLSORT_U64, CHECK_KEYS, 0, 0, 3, 64}, 0, 16},
    };
    static const route_test t = {"by_ranks", "buckets of 5 keys", "their ranks",
                                 rank_case_keys, clsort_radix_last_by_ranks, rank_as_want};
    bool ok = bucket_routes(&t, cases, sizeof cases / sizeof cases[0]);
    /* A top digit of few keys past the plan's bound (two heavy keys of 15%
     * each and 6 rare ones: Zipf's heads among many mixed digits, the rest
     * random): the sample gives it two keys' bound (TILE_TWO_KEY_MAX times
     * the plan's, 3 n / units at msd_bound 4), so MSD order is taken where
     * that holds it (up to 10 units), and the bucket takes one read and
     * one pass; pairs, both orders */
    const char *heads = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,"
                        "plan_wg=64,nt_min=1,tile_min=1,radix_bits=8,large_min=0,msd_bound=4";
    clsort_context *hc = ok ? test_context(heads) : NULL;
    for (int m = 0; hc && ok && m < 2; m++) {
        const size_t n = 300007;
        uint32_t *k = malloc(n * sizeof *k);
        CHECK(k != NULL, "out of memory");
        if (!k)
            break;
        data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed("by_ranks_heads", n, (unsigned)m));
        for (size_t i = 0; i < n; i++) {
            const uint32_t r = k[i] % 1000u;
            if (r < 300) /* A or B, top digit 0x5a */
                k[i] = r & 1 ? 0x5a123456u : 0x5a654321u;
            else if (r < 320) /* a rare key of the same digit */
                k[i] = 0x5a000000u | (r % 6u) * 0x00111111u;
            else if (k[i] >> 24 == 0x5au) /* the others in other digits */
                k[i] ^= 0x01000000u;
        }
        sort_case c = make(CLSORT_U32, DATA_UNIFORM, n, CHECK_PAIRS);
        c.input = k;
        c.opt.descending = m;
        ok = sort_and_check(hc, &c, heads);
        free(k);
        /* the bucket by its ranks, or split from a head the sample took
         * for its common key, or by every work-item (shared): one read and
         * one pass either way */
        const int msd = clsort_radix_last_msd(hc),
                  one_read = clsort_radix_last_by_ranks(hc) + clsort_radix_last_common(hc) +
                             clsort_radix_last_shared(hc);
        const bool want = cpu_units() <= 10;
        CHECK(!ok || !want || (msd > 0 && one_read >= 1),
              "%s, two heavy keys and rare ones in a digit: MSD order %d, %d buckets by ranks "
              "or a common key",
              heads, msd, one_read);
        ok = ok && (!want || (msd > 0 && one_read >= 1));
    }
    if (hc)
        clsort_context_release(hc);
}

/* radix_shared's keys: n keys of type t, each in one of 4 top digits
 * (about n / 4 keys each) and one of 5 patterns below it (20 keys; the 3
 * bits under the top byte clear, so that 9- and 10-bit top digits keep
 * the pattern's bucket). Modes: SHARED_ONE, one key in each digit but the
 * second; SHARED_OVER, the second digit's keys 9 patterns in its first
 * half and 9 others in its second (each chunk of its bucket at most 9
 * keys, 18 in all, the last two kept off the sample's 1024 positions: its
 * samples 16 keys at most); SHARED_BIG_ONE, 56% of the keys one key of the
 * first digit (past the one-key copies' bound) and the others in the
 * second and third. With `late`, the keys from `at` on, `late` of them,
 * random below the third top digit (its samples still few, a chunk of its
 * bucket not). `low`: the bits below a bit window random. Floats: +0.0
 * and -0.0 (one key to the sort) and NaNs of two patterns among them. */
enum { SHARED_PLAIN, SHARED_ONE, SHARED_OVER, SHARED_BIG_ONE };
static void *shared_keys(clsort_type t, size_t n, size_t at, size_t late, int mode, unsigned low,
                         uint64_t seed)
{
    const size_t bytes = clsort_type_size(t);
    const unsigned bits = (unsigned)bytes * 8, top = bits - 8;
    const uint64_t below = ((1ull << top) - 1) >> 3;
    const bool fp = t == CLSORT_F32 || t == CLSORT_F64;
    uint64_t pool[4 * 5], over[18], x = seed;
    for (unsigned j = 0; j < 4 * 5; j++)
        pool[j] = (uint64_t)(j % 4 * 64 + 7) << top | (pool_next(&x) & below);
    for (unsigned j = 0; j < 18; j++)
        over[j] = pool[1] >> top << top | (pool_next(&x) & below);
    if (fp) /* +0.0 and -0.0 (top digits 0 and 0x80), and NaNs */
        pool_float_specials(pool, bits, 0, 4, 3, 7);
    unsigned char *k = malloc(n * bytes);
    if (!k)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)(pool_next(&x) % (4 * 5));
        if (mode == SHARED_ONE && j % 4 != 1)
            j %= 4;
        if (mode == SHARED_BIG_ONE)
            j = pool_next(&x) % 100 < 56 ? 0 : 1 + j % 2 + 4 * (j % 5);
        uint64_t v = pool[j];
        if (mode == SHARED_OVER && j % 4 == 1) {
            /* 9 keys, then 4 of them, then 4 of the other 9, then those 9 */
            const size_t tenth = i * 10 / n;
            const unsigned r = (unsigned)(pool_next(&x) % 9);
            v = over[tenth < 4 ? r : tenth == 4 ? r % 4 : tenth == 5 ? 9 + r % 4 : 9 + r];
        }
        if (i >= at && i - at < late)
            v = pool[2] >> top << top | (pool_next(&x) & ((1ull << top) - 1));
        if (low)
            v ^= pool_next(&x) & ((1ull << low) - 1);
        memcpy(k + i * bytes, &v, bytes);
    }
    for (size_t sp = 0; mode == SHARED_OVER && sp < 1024; sp++) { /* the sample's positions */
        unsigned char *p = k + sp * n / 1024 * bytes;
        uint64_t v = 0;
        memcpy(&v, p, bytes);
        if (v == over[16] || v == over[17])
            memcpy(p, &over[9], bytes);
    }
    return k;
}

void test_radix_shared(void)
{
    /* MSD order's big buckets of a few keys (4 top digits of 5 keys each)
     * sorted by every work-item (the shared buckets): one launch counts
     * each chunk's keys, the buckets' launch moves each chunk's keys to
     * their places. msd_bound = units puts each bucket (n / 4) past
     * SHARE_MIN_BOUNDS times the plan's bound (n / 8) and within two keys'
     * bound on any number of units. Pairs, argsort and keys of 32- and
     * 64-bit integers and floats (+0.0, -0.0, NaNs), both orders, bit
     * windows, from tiles and without, 8-bit digits and 11; each sort
     * checked against the stable order and its shared buckets counted: all
     * 4 (keys alone take the few keys' check instead; a bit window that
     * cuts the patterns: any); one less where a run of random keys (at the
     * end, or in the middle) fails a chunk of the third digit's bucket, or
     * where the second's chunks are few keys each but too many together:
     * their own work-items then sort them; buckets of one key (streamed
     * where nt_min allows) shared too; beside a one-key bucket that every
     * work-item copies (56% of the keys), the two others. */
    if (!test_on_cpu())
        return;
    const unsigned units = cpu_units(), tiles = tiles_built();
    /* the shared buckets wanted: at least lo, at most hi (floats: +-0.0
     * and the NaNs other buckets, below the bound); `late` keys at the
     * end (MID: in the middle) */
    enum { MID = 1 };
    static const struct {
        msd_case m;
        size_t late;
        int where, mode, lo, hi;
    } cases[] = {
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 0}, 0, 0, SHARED_PLAIN, 4, 4},
        {{CLSORT_U64, CHECK_PAIRS, 8, 1, 0, 0}, 0, 0, SHARED_PLAIN, 4, 4},
        {{CLSORT_F32, CHECK_PAIRS, 4, 1, 0, 0}, 0, 0, SHARED_PLAIN, 4, 6},
        {{CLSORT_I32, CHECK_ARGSORT, 0, 0, 0, 0}, 0, 0, SHARED_PLAIN, 4, 4},
        {{CLSORT_F64, CHECK_PAIRS, 4, 0, 0, 0}, 0, 0, SHARED_PLAIN, 4, 6},
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 0}, 300, 0, SHARED_PLAIN, 3, 3},
        {{CLSORT_I64, CHECK_PAIRS, 8, 1, 0, 0}, 300, MID, SHARED_PLAIN, 3, 3},
        {{CLSORT_U32, CHECK_KEYS, 0, 1, 0, 0}, 0, 0, SHARED_PLAIN, 0, 4},
        {{CLSORT_U32, CHECK_PAIRS, 4, 1, 0, 28}, 0, 0, SHARED_PLAIN, 0, 4},
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 4, 32}, 0, 0, SHARED_PLAIN, 4, 4},
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 0}, 0, 0, SHARED_ONE, 4, 4},
        {{CLSORT_U64, CHECK_ARGSORT, 0, 1, 0, 0}, 0, 0, SHARED_ONE, 4, 4},
        {{CLSORT_U32, CHECK_PAIRS, 4, 0, 0, 0}, 0, 0, SHARED_OVER, 3, 3},
        {{CLSORT_U64, CHECK_PAIRS, 8, 1, 0, 0}, 0, 0, SHARED_OVER, 3, 3},
        {{CLSORT_U32, CHECK_PAIRS, 4, 1, 0, 0}, 0, 0, SHARED_BIG_ONE, 2, 2},
    };
    /* tiles (8-bit digits only), none, and 11-bit digits (their pairs
     * take no tiles: every other case) */
    static const char *const shapes[] = {"os_items=1000,nt_min=1,tile_min=1,radix_bits=8",
                                         "os_items=4096,tile_min=0,radix_bits=8",
                                         "os_items=1000,nt_min=1,tile_min=1,radix_bits=11"};
    bool ok = true;
    for (size_t si = 0; ok && si < sizeof shapes / sizeof shapes[0]; si++) {
        char spec[300];
        snprintf(spec, sizeof spec,
                 "algorithm=onesweep,os_wg=1,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,%s,"
                 "large_min=0,msd_bound=%u",
                 shapes[si], units);
        clsort_context *ctx = test_context(spec);
        if (!ctx)
            return;
        /* without tiles the sample runs from 2^20 keys on */
        const size_t n = si == 0 ? 300007 : 1100009;
        for (size_t ci = si == 2; ok && ci < sizeof cases / sizeof cases[0]; ci += si == 2 ? 2 : 1) {
            sort_case c = make_msd_case(&cases[ci].m, n, ci);
            const size_t late = cases[ci].late, at = cases[ci].where == MID ? n / 2 : n - late;
            void *k = shared_keys(c.type, n, at, late, cases[ci].mode, c.opt.begin_bit,
                                  test_seed("shared", n, (unsigned)(ci * 4 + si)));
            char label[400];
            snprintf(label, sizeof label, "%s, 4 digits of a few keys, case %zu", spec, ci);
            ok = sort_owned_keys(ctx, &c, k, label);
            const int got = clsort_radix_last_shared(ctx), lo = cases[ci].lo, hi = cases[ci].hi;
            /* where some are wanted, from the tiles where they are built */
            const int want_tiled = lo == 0 ? clsort_radix_last_tiled(ctx) : si == 0 && tiles;
            CHECK(!ok || (got >= lo && got <= hi && clsort_radix_last_tiled(ctx) == want_tiled),
                  "%s: %d buckets shared, not %d to %d (MSD order %d, tiles %d, not %d)", label,
                  got, lo, hi, clsort_radix_last_msd(ctx), clsort_radix_last_tiled(ctx),
                  want_tiled);
            ok = ok && got >= lo && got <= hi && clsort_radix_last_tiled(ctx) == want_tiled;
        }
        clsort_context_release(ctx);
    }
}

/* radix_mapped's keys: a share of them (other_pct percent) uniform over
 * bits [0, end_bit), the rest in the two highest values of the top digit
 * with random bits below (the others' bucket below them spans the rest), every key random above end_bit; the sample's
 * keys (keys[i n / 4096]) all of the two. Sorted as keys or pairs
 * (values: the indices), ascending or not, and checked. */
static bool mapped_skewed(clsort_context *ctx, const char *spec, size_t n, unsigned other_pct,
                          unsigned end_bit, bool pairs, int descending)
{
    uint32_t *k = malloc(n * sizeof *k), *val = malloc(n * sizeof *val),
             *k0 = malloc(n * sizeof *k0);
    size_t *perm = malloc(n * sizeof *perm);
    bool ok = k && val && k0 && perm;
    CHECK(ok, "out of memory");
    const uint32_t low = end_bit == 32 ? 0xffffffffu : (1u << end_bit) - 1u;
    const unsigned w = (end_bit - 1) % 8 + 1; /* the top digit's bits */
    uint64_t x = test_seed("mapped_skewed", n, other_pct * 4u + (unsigned)pairs * 2u + end_bit);
#define MAP_NEXT() (x = x * 6364136223846793005ull + 1442695040888963407ull, (uint32_t)(x >> 32))
    for (size_t i = 0; ok && i < n; i++) {
        const uint32_t r = MAP_NEXT(), above = MAP_NEXT() & ~low;
        const bool skewed = r % 100 >= other_pct || (uint64_t)i * 4096 / n * n / 4096 == i;
        const uint32_t top = (1u << w) - 2u + (MAP_NEXT() >> 31);
        const uint32_t b = MAP_NEXT() & low;
        k[i] = above | (skewed ? (top << (end_bit - w)) | (b & (low >> w)) : b);
        val[i] = (uint32_t)i;
    }
#undef MAP_NEXT
    return tiled_sort_check(ctx, spec, other_pct > 50 ? "mapped, refused" : "mapped", ok, k, k0,
                            val, perm, n, end_bit, descending, pairs);
}

void test_radix_mapped(void)
{
    /* A skewed top digit on the tile shape (normal floats put most keys in a
     * few values of sign and exponent): the sample maps the keys' 16-bit
     * prefixes to buckets in order (TILE_MAPPED), the tile pass sorts by
     * them, and each bucket is sorted below its top digit (or by every
     * digit, where a bucket holds the sparse top digits between two others
     * that the sample saw: MAP_SPAN). Normal and exponential floats (f32,
     * f64), normal and AND-reduced integers, keys, pairs and argsort, both
     * orders, bit windows, host arrays and device buffers, with the route
     * checked where the map must be taken (normal floats, up to 16 compute
     * units). Then keys built to fool the sample: a tenth of them spread
     * over digits it never saw, so that the buckets between its two digits
     * are large and span many top digits (sorted by four digits; with
     * bucket_local 2048 they do not fit local memory and are gathered), the
     * map taken up to 4 compute units; and nine tenths, where the plan
     * refuses the map's buckets after the tile pass and sorts in LSD order,
     * the top pass counted again (ST_PENDING PENDING_RECOUNT). Between
     * them, normal floats with special values. */
    if (!test_on_cpu())
        return;
    const unsigned units = tiles_built();
    const bool built = units > 0;
    const char *base = "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,"
                       "plan_wg=64,nt_min=1,tile_min=1,msd_bound=4,radix_bits=8,large_min=0";
    /* the programs of radix_tiled's first shape (the same tuning), which
     * runs before under the same lock: no builds of their own */
    static const struct {
        clsort_type type;
        data_dist dist;
        check_mode mode;
        size_t value_size;
        clsort_type index_type;
        unsigned begin_bit, end_bit;
        bool mapped; /* the map surely taken, up to 16 units (f32: 7 bits of
                      * mantissa in the prefix; f64 has 4) */
    } cases[] = {
        {CLSORT_F32, DATA_NORMAL, CHECK_PAIRS, 4, CLSORT_U32, 0, 0, true},
        {CLSORT_F64, DATA_NORMAL, CHECK_PAIRS, 8, CLSORT_U32, 0, 0, false},
        {CLSORT_F32, DATA_EXPONENTIAL, CHECK_PAIRS, 4, CLSORT_U32, 0, 0, false},
        {CLSORT_I32, DATA_NORMAL, CHECK_KEYS, 0, CLSORT_U32, 0, 0, false},
        {CLSORT_U32, DATA_AND_2, CHECK_ARGSORT, 0, CLSORT_U64, 0, 30, false},
        {CLSORT_U64, DATA_NORMAL, CHECK_ARGSORT, 0, CLSORT_U32, 5, 0, false},
        {CLSORT_I64, DATA_EXPONENTIAL, CHECK_KEYS, 0, CLSORT_U32, 0, 0, false},
    };
    static const size_t sizes[] = {65537, 300007};
    clsort_context *ctx = test_context(base);
    if (!ctx)
        return;
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t c = 0; ok && c < sizeof cases / sizeof cases[0]; c++) {
            sort_case sc = make(cases[c].type, cases[c].dist, sizes[i], cases[c].mode);
            sc.value_size = cases[c].value_size;
            sc.index_type = cases[c].index_type;
            sc.opt.descending = (c + i) % 2;
            sc.opt.begin_bit = cases[c].begin_bit;
            sc.opt.end_bit = cases[c].end_bit;
            ok = (c + i) % 3 == 1 ? sort_and_check_buffer(ctx, &sc, 7, base)
                                  : sort_and_check(ctx, &sc, base);
            const int want = built && cases[c].mapped && units <= 16 ? 2 : -1;
            char what[64];
            snprintf(what, sizeof what, "%s %s, n=%zu", clsort_type_name(cases[c].type),
                     data_dist_name(cases[c].dist), sizes[i]);
            ok = ok && tiled_as_expected(ctx, want, base, what);
        }
    /* normal floats with special values among them (every 97th key: NaN
     * of either sign, -0.0 and +0.0, which sort as one key in their input
     * order, infinities, denormals), pairs, both orders: the map's
     * buckets of one sign take the keys' raw digits, NaN's bucket their
     * images */
    static const uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0x00000000u,
                                        0x7f800000u, 0xff800000u, 0x00000001u, 0x80000003u};
    const size_t ns = 300007;
    float *fk = malloc(ns * sizeof *fk);
    CHECK(fk != NULL, "out of memory");
    if (fk) {
        data_fill(fk, CLSORT_F32, ns, DATA_NORMAL, test_seed("mapped_specials", ns, 0));
        for (size_t i = 0, j = 0; i < ns; i += 97, j++)
            memcpy(&fk[i], &specials[j % 8], sizeof fk[i]);
    }
    for (int m = 0; fk && ok && m < 2; m++) {
        sort_case sc = make(CLSORT_F32, DATA_NORMAL, ns, CHECK_PAIRS); /* radix_tiled's program */
        sc.value_size = 4;
        sc.input = fk;
        sc.opt.descending = m;
        ok = sort_and_check(ctx, &sc, base) &&
             tiled_as_expected(ctx, built && units <= 16 ? 2 : -1, base, "f32 normal, specials");
    }
    free(fk);
    clsort_context_release(ctx);
    char spec[512];
    snprintf(spec, sizeof spec, "%s,bucket_local=2048", base);
    ctx = ok ? test_context(spec) : NULL;
    if (!ctx)
        return;
    for (int m = 0; ok && m < 6; m++) {
        const unsigned other = m < 4 ? 10 : 90, end_bit = m & 2 ? 28 : 32;
        ok = mapped_skewed(ctx, spec, 32768, other, end_bit, m & 1, (m >> 1) & 1);
        const int want = !built ? -1 : other == 10 ? (units <= 4 ? 2 : -1) : (units >= 2 ? 0 : -1);
        ok = ok && tiled_as_expected(ctx, want, spec, other == 10 ? "a tenth unseen" : "most unseen");
    }
    clsort_context_release(ctx);
}

/* The sample's estimate of few keys (TILE_FEW, clsort_radix_sample): on the
 * CPU shape in MSD order, keys drawn from 300 and 1000 distinct values (key
 * 0 and the largest key among the latter) take LSD order and the few keys'
 * check by the set before any count, which writes them (the fill's count
 * asserted) where MSD order would have taken them; so do 600 keys whose
 * pass 0 is full, or one of which is 30% of them, where a plan from the
 * counts asks for no check (16-bit keys: two passes, LSD order, no sample,
 * the order taken without the estimate); 1100 values look few too, but the
 * check refuses them: the pending count counts every pass, and the order is
 * the one taken without the estimate (sample_few=0; up to 4 units, see
 * there); 4000 and 6000 values
 * take the order chosen without the estimate; each asserts whether the
 * check first refused the keys. From tiles (tile_min 1,
 * where PoCL builds them) at 200003 keys, and without (tile_min 0) at
 * 1048583 (the sample from 2^20 keys on); u32, i64 and u16, ascending and
 * descending, checked against the reference. */
void test_radix_fill_sample(void)
{
    if (!test_on_cpu() || !cpu_fill_local())
        return;
    const char *const specs[] = {"fill_min=100,tile_min=1,nt_min=1,order_min=1000",
                                 "fill_min=100,tile_min=0,order_min=1000"};
    static const clsort_type types[] = {CLSORT_U32, CLSORT_I64, CLSORT_U16};
    /* keys, key 0 and the largest among them, how drawn, keys the fill
     * writes, MSD order (-1: as with sample_few=0), whether the check by
     * the set ran first and refused them */
    static const struct {
        unsigned keys;
        bool zero_max;
        int kind, fill, msd, refused;
    } cases[] = {
        {300, false, SET_EVEN, 300, 0, 0},      {1000, true, SET_EVEN, 1000, 0, 0},
        {1100, false, SET_EVEN, 0, -1, 1},      {4000, false, SET_EVEN, 0, -1, 0},
        {6000, false, SET_EVEN, 0, -1, 0},      {600, false, SET_FULL, 600, 0, 0},
        {600, false, SET_DOMINANT, 600, 0, 0},
    };
    for (size_t si = 0; si < 2; si++) {
        char on[200], off[200];
        snprintf(on, sizeof on, "%s,sample_few=1", specs[si]);
        snprintf(off, sizeof off, "%s,sample_few=0", specs[si]);
        clsort_context *ctx = test_context(on), *ctx0 = ctx ? test_context(off) : NULL;
        if (!ctx0) {
            if (ctx)
                clsort_context_release(ctx);
            return;
        }
        const size_t n = si == 0 ? 200003 : 1048583;
        bool ok = true;
        for (size_t ti = 0; ok && ti < 3; ti++)
            for (size_t kc = 0; ok && kc < sizeof cases / sizeof cases[0]; kc++) {
                const clsort_type t = types[ti];
                if (clsort_type_size(t) == 2 && cases[kc].keys > 1000)
                    continue; /* 16-bit keys: few in any case */
                void *in = fill_set_input(t, n, cases[kc].keys, cases[kc].zero_max,
                                          cases[kc].kind,
                                          test_seed("fill_sample", n, (unsigned)(kc * 4 + ti)));
                if (!in) {
                    ok = false;
                    break;
                }
                for (int desc = 0; ok && desc < 2; desc++) {
                    sort_case c = make(t, DATA_FEW_UNIQUE, n, CHECK_KEYS);
                    c.input = in;
                    c.opt.descending = desc;
                    int want_msd = cases[kc].msd, want_fill = cases[kc].fill;
                    if (clsort_type_size(t) == 2 && cases[kc].kind != SET_EVEN) {
                        /* two passes: LSD order, no sample; its count's
                         * rule asks for no check of these */
                        want_fill = 0;
                        want_msd = -1;
                    }
                    if (want_msd < 0) {
                        ok = sort_and_check(ctx0, &c, off);
                        want_msd = clsort_radix_last_msd(ctx0);
                        /* keys the check refuses: without the estimate, on
                         * more than 4 units (a bound of fewer samples),
                         * buckets of a common key may take MSD order by
                         * the sample (flag 2), where the refused estimate
                         * leaves the order to the pending plan's count */
                        if (cases[kc].refused && cpu_units() > 4)
                            want_msd = -1;
                    }
                    ok = ok && sort_and_check(ctx, &c, on);
                    const int got = clsort_radix_last_fill(ctx), msd = clsort_radix_last_msd(ctx),
                              refused = clsort_radix_last_few_refused(ctx);
                    const bool msd_ok = want_msd < 0 || msd == want_msd;
                    CHECK(!ok || (got == want_fill && msd_ok && refused == cases[kc].refused),
                          "%s: %s, %u keys (kind %d)%s, n=%zu: the fill wrote %d keys (expected "
                          "%d), MSD order %d (expected %d), the check first refused them: %d "
                          "(expected %d)",
                          on, clsort_type_name(t), cases[kc].keys, cases[kc].kind,
                          desc ? ", descending" : "", n, got, want_fill, msd, want_msd, refused,
                          cases[kc].refused);
                    ok = ok && got == want_fill && msd_ok && refused == cases[kc].refused;
                }
                free(in);
            }
        clsort_context_release(ctx);
        clsort_context_release(ctx0);
        if (!ok)
            return;
    }
    /* a group shape of MSD order (hist_wg 64): the first plan asks for no
     * reversal by the check's launch, which also runs before the pending
     * count (8-byte keys in reverse order were reversed twice) */
    const char *rev_specs[2] = {
        "os_rank=serial,msd=1,hist_wg=64,sample_few=1,fill_min=1,tile_min=0,order_min=1000",
        "os_rank=serial,msd=1,hist_wg=64,sample_few=1,fill_min=1,tile_min=1,nt_min=1,"
        "order_min=1000"};
    for (int si = 0; si < 2; si++) {
        clsort_context *ctx = test_context(rev_specs[si]);
        if (!ctx)
            return;
        sort_case c = make(CLSORT_U64, DATA_REVERSED, si ? 200003 : 1048583, CHECK_KEYS);
        sort_and_check(ctx, &c, rev_specs[si]);
        clsort_context_release(ctx);
    }
    /* 16 keys, every digit varying, two of them (15% each) in one top
     * digit: that bucket past the bound (msd_bound 4) from 2 units, two
     * keys (flag 2, not TILE_FILL's one key a digit), which the sample's
     * estimate gives to the check by the set (TILE_FEW): the fill writes
     * the 16 keys */
    const unsigned units = cpu_units();
    const char *sixteen = "fill_min=100,tile_min=1,nt_min=1,order_min=1000,sample_few=1,msd_bound=4";
    clsort_context *fc = units >= 2 ? test_context(sixteen) : NULL;
    if (fc) {
        const size_t n = 200003;
        uint32_t *k = malloc(n * sizeof *k);
        CHECK(k != NULL, "out of memory");
        if (k)
            data_fill(k, CLSORT_U32, n, DATA_UNIFORM, test_seed("fill_two_in_digit", n, 0));
        for (size_t i = 0; k && i < n; i++) { /* 16 keys: 2 x 15%, 14 x 5% */
            const uint32_t p = k[i] % 20, j = p < 6 ? p % 2 : p - 4;
            k[i] = (j < 2 ? 0x11000000u : (0x20u + j * 0x0bu) << 24) | (0x00a5c3e1u ^ j * 0x01030507u);
        }
        for (int desc = 0; k && desc < 2; desc++) {
            sort_case c = make(CLSORT_U32, DATA_FEW_UNIQUE, n, CHECK_KEYS);
            c.input = k;
            c.opt.descending = desc;
            const bool ok = sort_and_check(fc, &c, sixteen);
            const int got = clsort_radix_last_fill(fc);
            CHECK(!ok || got == 16, "%s: 16 keys, two in one top digit%s: the fill wrote %d keys",
                  sixteen, desc ? ", descending" : "", got);
        }
        /* the same with 1% random keys: a few heavy keys among rare ones,
         * which the check would refuse (after its pass); MSD order. Up to 4
         * units: on more, the rare keys in the heavy keys' digits put them
         * past the bound as buckets of other keys (not one or two), where
         * the estimate is tried as for common keys */
        for (size_t i = 0; k && units <= 4 && i < n; i += 100)
            k[i] = (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5au;
        if (k && units <= 4) {
            sort_case c = make(CLSORT_U32, DATA_FEW_UNIQUE, n, CHECK_KEYS);
            c.input = k;
            const bool ok = sort_and_check(fc, &c, sixteen);
            const int refused = clsort_radix_last_few_refused(fc),
                      msd = clsort_radix_last_msd(fc);
            CHECK(!ok || (refused == 0 && msd == 1),
                  "%s: 16 keys, two in one top digit, and 1%% random keys: the check by the set "
                  "refused them %d, MSD order %d",
                  sixteen, refused, msd);
        }
        free(k);
        clsort_context_release(fc);
    }
}

/* test_tier.c - the host tier (src/tier.c, src/host_radix.c): host-array
 * sorts on the host, byte for byte as the device sorts them, while the
 * kernels build in the background; the background build, its mark in the
 * cache folder, its failure, and a context released while it runs. The
 * suite runs with CLSORT_HOST_TIER=0 (tests/CMakeLists.txt): these tests
 * turn the tier back on. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "sortcheck.h"

#include <time.h>
#include <unistd.h>

static const clsort_type all_types[] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64,
                                        CLSORT_I8,  CLSORT_I16, CLSORT_I32, CLSORT_I64,
                                        CLSORT_F32, CLSORT_F64};

/* Every key type and distribution, ascending and descending, bit windows,
 * keys, pairs of 1, 4, 8 and 100-byte values and argsorts, against the
 * reference; every call on the host tier. */
void test_tier_host_sorts(void)
{
    unsetenv("CLSORT_HOST_TIER");
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    clsort_tier_force(ctx, 1);
    /* (the GPU rows leave the tier off: tier_max 0) */
    CHECK(clsort_context_set_tuning(ctx, "tier_max=1048576") == CLSORT_SUCCESS, "tuning: %s",
          clsort_context_last_error(ctx));
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 97, 1023, 1024, 1025, 4099, 65537};
    /* 1 and 4 travel in the records, 8 and 100 by the permutation */
    static const size_t vsizes[] = {1, 8, 100, 4};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    bool ok = true;
    for (size_t t = 0; t < 10 && ok; t++) {
        const unsigned bits = (unsigned)clsort_type_size(all_types[t]) * 8;
        for (int d = 0; d < DATA_DIST_COUNT && ok; d++)
            for (size_t i = 0; i < nsizes && ok; i++) {
                sort_case c;
                memset(&c, 0, sizeof c);
                c.type = all_types[t];
                c.dist = (data_dist)d;
                c.n = sizes[i];
                c.mode = (check_mode)((t + (size_t)d + i) % 3);
                c.value_size = vsizes[((size_t)d + i) % 4];
                c.index_type = (t + i) % 2 ? CLSORT_U64 : CLSORT_U32;
                c.opt.descending = (t + (size_t)d + i) % 4 >= 2;
                /* a window on every third case: [b/3, b), [0, b/2), [5, 3b/4) */
                const unsigned w = (unsigned)((size_t)d + 2 * i) % 9;
                if (w < 3) {
                    const unsigned lo[3] = {bits / 3, 0, 5}, hi[3] = {bits, bits / 2, 3 * bits / 4};
                    c.opt.begin_bit = lo[w];
                    c.opt.end_bit = hi[w];
                }
                c.seed = test_seed("tier", c.n, (unsigned)(t * 64 + (size_t)d));
                ok = sort_and_check(ctx, &c, "host tier");
                if (ok && c.n >= 2)
                    CHECK(clsort_tier_last(ctx) == 1, "%s n=%zu: not on the host tier",
                          clsort_type_name(c.type), c.n);
            }
    }
    /* larger arrays, primes and 2^k + 1, every mode, and a sorted copy */
    static const clsort_type big_types[] = {CLSORT_F32, CLSORT_U64, CLSORT_I32, CLSORT_F64};
    static const size_t big[] = {100003, 131073, 262143};
    for (size_t t = 0; t < 4 && ok; t++)
        for (size_t i = 0; i < 3 && ok; i++)
            for (int m = 0; m < 3 && ok; m++) {
                sort_case c;
                memset(&c, 0, sizeof c);
                c.type = big_types[t];
                c.dist = (i + t) % 2 ? DATA_SPECIALS : DATA_UNIFORM;
                c.n = big[i];
                c.mode = (check_mode)m;
                c.value_size = vsizes[(i + t) % 4];
                c.index_type = CLSORT_U32;
                c.opt.descending = (int)(i + t + (size_t)m) % 2;
                c.seed = test_seed("tier big", c.n, (unsigned)(t * 3 + (size_t)m));
                ok = sort_and_check(ctx, &c, "host tier, large");
            }
    for (size_t t = 0; t < 10 && ok; t++) {
        const size_t n = 4099, kb = clsort_type_size(all_types[t]);
        unsigned char *in = malloc(n * kb), *save = malloc(n * kb), *out = malloc(n * kb);
        size_t *perm = malloc(n * sizeof *perm);
        if (in && save && out && perm) {
            data_fill(in, all_types[t], n, DATA_SPECIALS, test_seed("tier copy", n, (unsigned)t));
            memcpy(save, in, n * kb);
            ref_stable_perm(all_types[t], in, n, 0, (unsigned)kb * 8, 0, perm);
            CHECK(clsort_sort_keys_copy(ctx, all_types[t], in, out, n, NULL) == CLSORT_SUCCESS,
                  "copy: %s", clsort_context_last_error(ctx));
            CHECK(!memcmp(in, save, n * kb), "%s: the copy's input changed",
                  clsort_type_name(all_types[t]));
            ok = check_permuted("host tier, sorted copy", in, out, perm, n, kb);
        }
        free(in);
        free(save);
        free(out);
        free(perm);
    }
    clsort_context_release(ctx);
}

/* A context with the tier as tuned and its own cache folder. */
static clsort_context *tier_context(const char *dir)
{
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    cfg.cache_dir = dir;
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create_with_config(&ctx, &cfg);
    if (s == CLSORT_ERROR_NO_PLATFORM) {
        printf("SKIP: no OpenCL platform\n");
        exit(77);
    }
    CHECK(s == CLSORT_SUCCESS, "context: %s", clsort_context_last_error(NULL));
    /* the tier on whatever the device's row says (the GPU rows leave it off) */
    if (ctx)
        CHECK(clsort_context_set_tuning(ctx, "tier_max=1048576") == CLSORT_SUCCESS, "tuning: %s",
              clsort_context_last_error(ctx));
    return ctx;
}

/* Waits (at most 10 minutes) for the background build to end, without
 * joining it. */
static void wait_background(clsort_context *ctx)
{
    for (int i = 0; i < 6000 && clsort_tier_running(ctx); i++)
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    CHECK(!clsort_tier_running(ctx), "the background build did not end");
}

static bool sorted_u32(const uint32_t *k, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (k[i] < k[i - 1])
            return false;
    return true;
}

/* The first call sorts on the host and starts the build; once it has ended
 * the next call runs on the device, and a new context finds the mark; a
 * context released while its build runs; a build that fails in the
 * background is reported by the next call. */
void test_tier_background(void)
{
    unsetenv("CLSORT_HOST_TIER");
    char dir[] = "/tmp/clsort-tier-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    const size_t n = 5000;
    clsort_context *ctx = NULL;
    uint32_t *k = malloc(n * 4), *idx = malloc(n * 4), *save = malloc(n * 4);
    if (!k || !idx || !save) {
        CHECK(0, "out of memory");
        goto out;
    }
    data_fill(k, CLSORT_U32, n, DATA_UNIFORM, 37);
    memcpy(save, k, n * 4);
    ctx = tier_context(dir);
    if (!ctx)
        goto out;
    CHECK_OK(ctx, clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL));
    CHECK(clsort_tier_last(ctx) == 1 && clsort_tier_running(ctx),
          "a cold first call: on the host, with the build started");
    CHECK(sorted_u32(k, n), "the host tier's keys are not sorted");
    wait_background(ctx);
    memcpy(k, save, n * 4);
    CHECK_OK(ctx, clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL));
    CHECK(clsort_tier_last(ctx) == 0, "after the build: on the device");
    CHECK(sorted_u32(k, n), "the device's keys are not sorted");
    clsort_context_release(ctx);

    /* a new context finds the mark; another kind of sort starts its own
     * build, which the release stops */
    ctx = tier_context(dir);
    if (!ctx)
        goto out;
    memcpy(k, save, n * 4);
    CHECK_OK(ctx, clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL));
    CHECK(clsort_tier_last(ctx) == 0 && !clsort_tier_running(ctx),
          "warm caches: straight to the device");
    CHECK_OK(ctx, clsort_argsort(ctx, CLSORT_U32, save, n, CLSORT_U32, idx, NULL));
    CHECK(clsort_tier_last(ctx) == 1 && clsort_tier_running(ctx), "argsort: another kind");
    clsort_context_release(ctx);

    /* every build fails (an unknown OpenCL C version), the first only in
     * the background */
    char bad[] = "/tmp/clsort-tier-XXXXXX";
    if (!mkdtemp(bad)) {
        CHECK(0, "mkdtemp failed");
        goto out;
    }
    setenv("CLSORT_BUILD_OPTIONS", "-cl-std=CL9.9", 1);
    ctx = tier_context(bad);
    unsetenv("CLSORT_BUILD_OPTIONS");
    if (ctx) {
        data_fill(k, CLSORT_U32, n, DATA_UNIFORM, 38);
        CHECK_OK(ctx, clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL));
        CHECK(clsort_tier_last(ctx) == 1 && sorted_u32(k, n), "failing build: on the host");
        wait_background(ctx);
        memcpy(k, save, n * 4);
        CHECK(clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL) == CLSORT_ERROR_BUILD_FAILED,
              "the background's failure reported");
        CHECK(strstr(clsort_context_last_error(ctx), "background"), "message: %s",
              clsort_context_last_error(ctx));
        CHECK(!memcmp(k, save, n * 4), "keys changed by a failed call");
        CHECK(clsort_sort_keys(ctx, CLSORT_U32, k, n, NULL) == CLSORT_ERROR_BUILD_FAILED &&
                  clsort_tier_last(ctx) == 0,
              "then on the device, failing as before");
        clsort_context_release(ctx);
    }
    clsort_cache_clear(bad, 0);
    rmdir(bad);
out:
    clsort_cache_clear(dir, 0);
    rmdir(dir);
    free(k);
    free(idx);
    free(save);
}

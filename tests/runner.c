/* runner.c - runs one test by name (as ctest does) or all of them. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "harness.h"

#include <stdarg.h>

int test_failures;
static const char *current;

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s (%s:%d): ", current ? current : "?", file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    test_failures++;
}

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
#define T(name) {#name, test_##name},
#include "tests.def"
#undef T
};

int main(int argc, char **argv)
{
    size_t nt = sizeof tests / sizeof tests[0];
    int ran = 0;
    /* the device's kernels, also outside ctest (which sets it too); the
     * tier tests turn the host tier back on */
    setenv("CLSORT_HOST_TIER", "0", 0);
    for (size_t i = 0; i < nt; i++) {
        if (argc > 1 && strcmp(argv[1], tests[i].name))
            continue;
        current = tests[i].name;
        int before = test_failures;
        tests[i].fn();
        printf("%s %s\n", test_failures == before ? "PASS" : "FAIL", tests[i].name);
        fflush(stdout);
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "no test named '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return test_failures ? 1 : 0;
}

clsort_context *test_context(const char *tuning)
{
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    cfg.tuning = tuning && tuning[0] ? tuning : NULL;
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create_with_config(&ctx, &cfg);
    if (s == CLSORT_ERROR_NO_PLATFORM) {
        printf("SKIP %s: no OpenCL platform (%s)\n", current, clsort_context_last_error(NULL));
        exit(77);
    }
    if (s != CLSORT_SUCCESS) {
        test_fail(__FILE__, __LINE__, "context (tuning '%s'): %s\n%s", tuning ? tuning : "",
                  clsort_status_string(s), clsort_context_last_error(NULL));
        return NULL;
    }
    return ctx;
}

size_t test_shapes(clsort_context *probe, const char **specs, size_t cap)
{
    static const char *const common[] = {
        "",
        /* the seeds' strategy, CPU shape and GPU shape */
        "algorithm=classic,cl_wg=1,hist_wg=1,plan_wg=64",
        "algorithm=classic,cl_wg=64,cl_items=4,cl_groups=2,hist_wg=64,plan_wg=64",
        /* onesweep, CPU shape with small tiles (many look-backs, each over
         * every digit of a tile at once) and the portable GPU shape (5 words
         * a round) */
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "nt_min=1", /* on x86-64 through clang: every pass streams its lines */
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "os_wg_wide=32,os_items_wide=8,small_items=2,small_items_max=100000,lb_batch=5,"
        "big_min=300000,big_wg=32,big_items=12,big_min_pairs=100000,big_wg_pairs=32,big_items_pairs=6",
        /* 8-byte keys: 32 x 8; small sorts x 2; keys alone from 300000: 32 x 12; pairs from 100000: 32 x 6 */
        /* the CPU shape in MSD order: top digit first, then the buckets
         * (those above 2048 bytes through temp B, the others through
         * local memory; with streaming stores on x86-64: those up to 1024
         * bytes through both halves of it and then streamed to U) */
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=1,hist_wg=1,plan_wg=64,"
        "bucket_local=2048,nt_min=1",
        /* the whole sort in one work-group (clsort_radix_single) up to
         * 100000 keys, both portable rankings, many tiles; above that the
         * fused start (clsort_radix_upfront_plan) and every pass in one
         * launch (clsort_radix_chain) */
        "algorithm=onesweep,os_wg=1,os_items=1000,os_rank=serial,msd=0,hist_wg=1,plan_wg=64,"
        "single_max=100000,fused_max=2147483647,chain_max=2147483647",
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "os_wg_wide=32,os_items_wide=8,single_max=100000,prologue_max=0,fused_max=2147483647,"
        "chain_max=2147483647,os_wg_pairs=32,seg_wg=32,seg_items=8", /* pairs: 32 x 4 */
    };
    static const char *const nvidia[] = {
        "algorithm=onesweep,os_wg=256,os_items=8,os_rank=ballot,big_min=100000,big_wg=384,big_items=28", /* keys alone from 100000: 384 x 28 */
        "algorithm=onesweep,os_wg=384,os_items=20,os_rank=ballot,fused_max=0,chain_max=0,"
        "big_min_pairs=100000,big_wg_pairs=384,big_items_pairs=24", /* fill, upfront, plan, passes; pairs from 100000: 384 x 24 */
        "algorithm=onesweep,os_wg=512,os_items=20,os_rank=atomic_or,lb_batch=1,"
        "os_match_max=0", /* one word a round; atomic_or on every tile */
        "algorithm=onesweep,os_wg=512,os_items=20,os_rank=atomic_or,single_max=100000,"
        "os_match_max=256", /* match.any on every tile */
        "algorithm=onesweep,os_wg=256,os_items=8,os_rank=ballot,single_max=100000",
    };
    size_t k = 0;
    const char *env = getenv("CLSORT_TEST_SHAPES");
    if (env && !strcmp(env, "tuned")) {
        specs[k++] = "";
        return k;
    }
    if (env && *env >= '0' && *env <= '9') { /* one shape, by its index below */
        size_t i = (size_t)atoi(env);
        if (i < sizeof common / sizeof common[0])
            specs[k++] = common[i];
        else if (i - sizeof common / sizeof common[0] < sizeof nvidia / sizeof nvidia[0])
            specs[k++] = nvidia[i - sizeof common / sizeof common[0]];
        return k;
    }
    for (size_t i = 0; i < sizeof common / sizeof common[0] && k < cap; i++)
        specs[k++] = common[i];
    clsort_device_info info;
    if (clsort_context_device_info(probe, &info) == CLSORT_SUCCESS &&
        strstr(info.platform_name, "NVIDIA"))
        for (size_t i = 0; i < sizeof nvidia / sizeof nvidia[0] && k < cap; i++)
            specs[k++] = nvidia[i];
    return k;
}

/* The test device's facts through a context of its own; false when there
 * is no device. */
static bool probe_device(clsort_device_info *info)
{
    clsort_context *probe = test_context(NULL);
    if (!probe)
        return false;
    const bool ok = clsort_context_device_info(probe, info) == CLSORT_SUCCESS;
    clsort_context_release(probe);
    return ok;
}

bool test_on_nvidia(void)
{
    clsort_device_info info;
    return probe_device(&info) && strstr(info.platform_name, "NVIDIA");
}

bool test_on_cpu(void)
{
    clsort_device_info info;
    return probe_device(&info) && info.is_cpu;
}

uint64_t test_local_mem(void)
{
    clsort_device_info info;
    return probe_device(&info) ? info.local_mem_bytes : 0;
}

bool test_thorough(clsort_context *ctx)
{
    clsort_device_info info;
    return getenv("CLSORT_TEST_FULL") ||
           (clsort_context_device_info(ctx, &info) == CLSORT_SUCCESS && info.is_gpu);
}

bool check_permuted(const char *what, const void *in, const void *out, const size_t *perm,
                    size_t n, size_t size)
{
    const unsigned char *a = in, *b = out;
    for (size_t i = 0; i < n; i++)
        if (memcmp(b + i * size, a + perm[i] * size, size)) {
            test_fail(__FILE__, __LINE__, "%s: n=%zu, element %zu differs from input %zu", what, n,
                      i, perm[i]);
            return false;
        }
    return true;
}

uint64_t test_seed(const char *name, size_t n, unsigned extra)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h ^ (n * 0x9e3779b97f4a7c15ull) ^ extra;
}

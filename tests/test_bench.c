/* test_bench.c - the benchmark harness itself, on small sizes. */
#include "bench.h"
#include "harness.h"

void test_bench_harness(void)
{
    size_t sizes[] = {1000, 65537};
    bench_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    cfg.sizes = sizes;
    cfg.nsizes = 2;
    cfg.cases = bench_default_cases;
    cfg.ncases = 2;
    cfg.min_reps = 2;
    cfg.qsort = 1;
    cfg.seed = 5;
    bench_row rows[8];
    size_t n = 0;
    char err[4096];
    clsort_status s = bench_run(&cfg, rows, 8, &n, err, sizeof err);
    if (s == CLSORT_ERROR_NO_PLATFORM)
        exit(77);
    CHECK(s == CLSORT_SUCCESS, "bench_run: %s", err);
    CHECK(n == 4, "4 rows (%zu)", n);
    for (size_t i = 0; i < n; i++) {
        CHECK(rows[i].correct, "row %zu correct", i);
        CHECK(rows[i].ms > 0 && rows[i].mkeys > 0 && rows[i].reps >= 2, "row %zu timed", i);
    }
    /* the pool kept from row to row (--keep-pool): the second size reuses
     * the first's temporaries where they are large enough */
    cfg.keep_pool = 1;
    cfg.qsort = 0;
    s = bench_run(&cfg, rows, 8, &n, err, sizeof err);
    CHECK(s == CLSORT_SUCCESS && n == 4, "bench_run, pool kept: %s", err);
    for (size_t i = 0; i < n; i++)
        CHECK(rows[i].correct, "row %zu correct, pool kept", i);
    cfg.keep_pool = 0;
    /* outputs smaller than the 4-byte end marker: one u8 key, one u16 key */
    size_t one = 1;
    bench_case tiny[] = {{"u8 keys", CLSORT_U8, 0, 0, 8, DATA_UNIFORM, CLSORT_ALGORITHM_AUTO, 0},
                         {"u16 keys", CLSORT_U16, 0, 0, 16, DATA_UNIFORM, CLSORT_ALGORITHM_AUTO, 0}};
    cfg.sizes = &one;
    cfg.nsizes = 1;
    cfg.cases = tiny;
    cfg.ncases = 2;
    cfg.qsort = 0;
    s = bench_run(&cfg, rows, 8, &n, err, sizeof err);
    CHECK(s == CLSORT_SUCCESS && n == 2, "bench_run, one u8 or u16 key: %s", err);
    for (size_t i = 0; i < n; i++)
        CHECK(rows[i].correct, "one-key row %zu correct", i);
}

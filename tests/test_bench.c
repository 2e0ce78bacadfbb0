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
}

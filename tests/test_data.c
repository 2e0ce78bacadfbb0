/* test_data.c - the benchmark's distribution suite (bench/data.c): each
 * distribution has the shape its name promises, and sorts right. */
#include "sortcheck.h"

#include <math.h>

static size_t distinct_u32(const uint32_t *k, size_t n, size_t cap)
{
    uint32_t seen[2048];
    size_t m = 0;
    for (size_t i = 0; i < n && m <= cap; i++) {
        size_t j = 0;
        while (j < m && seen[j] != k[i])
            j++;
        if (j == m && m < 2048)
            seen[m++] = k[i];
    }
    return m;
}

void test_data_suite(void)
{
    const size_t n = 30011;
    uint32_t *k = malloc(n * 4);
    float *f = malloc(n * 4);
    if (!k || !f) {
        CHECK(false, "out of host memory");
        goto done;
    }
    /* shapes */
    data_fill(k, CLSORT_U32, n, DATA_FEW_2, 1);
    CHECK(distinct_u32(k, n, 2) == 2, "few-2: %zu values", distinct_u32(k, n, 2));
    data_fill(k, CLSORT_U32, n, DATA_FEW_1024, 1);
    CHECK(distinct_u32(k, n, 1024) > 900 && distinct_u32(k, n, 1024) <= 1024, "few-1024: %zu",
          distinct_u32(k, n, 1024));
    data_fill(k, CLSORT_U32, n, DATA_LOW_20, 1);
    for (size_t i = 1; i < n; i++)
        if ((k[i] >> 20) != (k[0] >> 20)) {
            CHECK(false, "low-20: key %zu differs above bit 20", i);
            break;
        }
    data_fill(k, CLSORT_U32, n, DATA_SORTED_RUNS, 1);
    size_t descents = 0;
    for (size_t i = 1; i < n; i++)
        descents += k[i] < k[i - 1];
    CHECK(descents == 63, "sorted-runs: %zu descents", descents);
    data_fill(k, CLSORT_U32, n, DATA_SORTED_SWAPS, 1);
    descents = 0;
    for (size_t i = 1; i < n; i++)
        descents += k[i] < k[i - 1];
    CHECK(descents > 0 && descents <= n / 100 + 2, "sorted-swaps: %zu descents", descents);
    data_fill(f, CLSORT_F32, n, DATA_NORMAL, 1);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += f[i], sq += (double)f[i] * f[i];
    CHECK(fabs(sum / n) < 0.05 && fabs(sq / n - 1) < 0.1, "normal: mean %g, variance %g", sum / n,
          sq / n);
    data_fill(f, CLSORT_F32, n, DATA_EXPONENTIAL, 1);
    sum = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(f[i] >= 0, "exponential: a negative key");
        sum += f[i];
    }
    CHECK(fabs(sum / n - 1) < 0.05, "exponential: mean %g", sum / n);
    data_fill(k, CLSORT_U32, n, DATA_ZIPF_1K, 1);
    CHECK(distinct_u32(k, n, 1024) <= 1024 && distinct_u32(k, n, 1024) > 500,
          "zipf-1k: %zu values", distinct_u32(k, n, 1024));
    /* every distribution sorts right: keys of four types, and pairs */
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        goto done;
    static const clsort_type types[] = {CLSORT_U32, CLSORT_F32, CLSORT_I64, CLSORT_U16};
    char label[96];
    for (int d = DATA_DIST_COUNT; d < DATA_DIST_ALL; d++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            sort_case c = {.type = types[t], .dist = (data_dist)d, .n = n};
            c.seed = test_seed(data_dist_name((data_dist)d), n, (unsigned)t);
            c.opt.descending = (int)(t == 3);
            snprintf(label, sizeof label, "%s %s", data_dist_name((data_dist)d),
                     clsort_type_name(types[t]));
            sort_and_check(ctx, &c, label);
            if (t == 0) {
                c.mode = CHECK_PAIRS;
                c.value_size = 4;
                sort_and_check(ctx, &c, label);
            }
        }
    clsort_context_release(ctx);
done:
    free(k);
    free(f);
}

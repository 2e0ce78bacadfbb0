/* test_types.c - every key type, the float order, every value size. */
#include <stdlib.h>

#include "sortcheck.h"

static const clsort_type all_types[] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64,
                                        CLSORT_I8,  CLSORT_I16, CLSORT_I32, CLSORT_I64,
                                        CLSORT_F32, CLSORT_F64};

void test_key_types(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    static const size_t sizes[] = {1, 2, 3, 257, 65537, 200003};
    for (size_t t = 0; t < 10; t++) {
        unsigned bits = (unsigned)clsort_type_size(all_types[t]) * 8;
        for (int d = 0; d < DATA_DIST_COUNT; d++)
            for (size_t i = 0; i < 6; i++) {
                sort_case c;
                memset(&c, 0, sizeof c);
                c.type = all_types[t];
                c.dist = (data_dist)d;
                c.n = sizes[i];
                c.mode = (check_mode)((d + i) % 3);
                c.value_size = 4;
                c.index_type = i % 2 ? CLSORT_U64 : CLSORT_U32;
                c.opt.descending = (d + i) % 4 == 1;
                /* bit windows {0, b/3, 3b/4, b} as begin/end pairs */
                unsigned marks[4] = {0, bits / 3, 3 * bits / 4, bits};
                unsigned w = (unsigned)(i + d) % 6;
                static const int pairs[6][2] = {{0, 3}, {0, 1}, {1, 2}, {2, 3}, {1, 3}, {0, 2}};
                c.opt.begin_bit = marks[pairs[w][0]];
                c.opt.end_bit = marks[pairs[w][1]];
                c.seed = test_seed(clsort_type_name(c.type), c.n, (unsigned)d);
                if (!sort_and_check(ctx, &c, clsort_type_name(c.type)))
                    d = DATA_DIST_COUNT, i = 6;
            }
    }
    clsort_context_release(ctx);
}

/* -0.0 == +0.0 (input order kept), NaNs of any sign and payload after
 * +inf in input order, bit patterns preserved; descending reverses. */
void test_float_order(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    enum { N = 64 };
    uint32_t k[N], v[N];
    const uint32_t pats[] = {0x80000000u, 0x00000000u, 0x7fc00001u, 0xffc00002u, 0x7f800000u,
                             0xff800000u, 0x7f800003u, 0xff800004u, 0x3f800000u, 0xbf800000u,
                             0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu};
    for (int i = 0; i < N; i++) {
        k[i] = pats[(i * 7) % 14];
        v[i] = (uint32_t)i;
    }
    uint32_t in[N];
    memcpy(in, k, sizeof k);
    CHECK_OK(ctx, clsort_sort_pairs(ctx, CLSORT_F32, k, v, 4, N, NULL));
    /* expected class order: -inf, -max, -1, -tiny, zeros, tiny, 1, max, +inf, NaNs */
    const uint32_t order[] = {0xff800000u, 0xff7fffffu, 0xbf800000u, 0x80000001u, 0,
                              0x00000001u, 0x3f800000u, 0x7f7fffffu, 0x7f800000u};
    int pos = 0;
    for (int c = 0; c < 9; c++)
        for (int i = 0; i < N; i++) {
            bool is_zero = (in[i] & 0x7fffffffu) == 0;
            bool match = c == 4 ? is_zero : in[i] == order[c];
            if (!match)
                continue;
            CHECK(k[pos] == in[i] && v[pos] == (uint32_t)i,
                  "class %d: position %d holds %08x from %u, expected %08x from %d", c, pos, k[pos],
                  v[pos], in[i], i);
            pos++;
        }
    for (int i = 0; i < N; i++) { /* NaNs last, in input order, payloads kept */
        bool nan = (in[i] & 0x7f800000u) == 0x7f800000u && (in[i] & 0x007fffffu);
        if (!nan)
            continue;
        CHECK(k[pos] == in[i] && v[pos] == (uint32_t)i, "NaN at %d: %08x, expected %08x", pos,
              k[pos], in[i]);
        pos++;
    }
    CHECK(pos == N, "all %d keys classified (%d)", N, pos);
    /* and through the reference, both directions, both widths */
    for (int t = 0; t < 2; t++)
        for (int desc = 0; desc < 2; desc++) {
            sort_case c;
            memset(&c, 0, sizeof c);
            c.type = t ? CLSORT_F64 : CLSORT_F32;
            c.dist = DATA_SPECIALS;
            c.n = 100003;
            c.mode = CHECK_PAIRS;
            c.value_size = 8;
            c.opt.descending = desc;
            c.seed = 17 + (uint64_t)t * 2 + (uint64_t)desc;
            sort_and_check(ctx, &c, "float specials");
        }
    /* Floats whose images share their top digit, [0.5, 1), (-1, -0.5] and
     * [1, 2) (on CPUs, MSD order by a lower digit, whose top bit is no
     * sign), both widths, both directions, keys and pairs */
    static const uint64_t tops32[] = {0x3f000000u, 0xbf000000u, 0x3f800000u};
    static const uint64_t tops64[] = {0x3fe0000000000000ull, 0xbfe0000000000000ull,
                                      0x3ff0000000000000ull};
    static const size_t range_n[] = {65537, 300007};
    uint64_t *keys = malloc(300007 * sizeof *keys);
    CHECK(keys != NULL, "out of memory");
    bool ok = keys != NULL;
    for (int t = 0; ok && t < 2; t++)
        for (int r = 0; ok && r < 3; r++)
            for (int i = 0; ok && i < 4; i++) {
                const size_t n = range_n[i % 2];
                uint64_t x = test_seed("float ranges", n, (unsigned)(t * 8 + r * 2 + i / 2));
                for (size_t j = 0; j < n; j++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    if (t)
                        keys[j] = tops64[r] | (x >> 12);
                    else
                        ((uint32_t *)keys)[j] = (uint32_t)(tops32[r] | (x >> 41));
                }
                sort_case c;
                memset(&c, 0, sizeof c);
                c.type = t ? CLSORT_F64 : CLSORT_F32;
                c.n = n;
                c.mode = (r + i) % 2 ? CHECK_PAIRS : CHECK_KEYS;
                c.value_size = 4;
                c.opt.descending = i / 2;
                c.input = keys;
                ok = sort_and_check(ctx, &c, "floats of one top digit");
            }
    free(keys);
    clsort_context_release(ctx);
}

void test_value_sizes(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    static const size_t vs[] = {1, 2, 4, 8, 16, 12, 100, 3, 256};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
        for (int t = 0; t < 2; t++) {
            sort_case c;
            memset(&c, 0, sizeof c);
            c.type = t ? CLSORT_F64 : CLSORT_U32;
            c.dist = DATA_FEW_UNIQUE;
            c.n = 30011 + i;
            c.mode = CHECK_PAIRS;
            c.value_size = vs[i];
            c.opt.descending = t;
            c.seed = test_seed("values", c.n, (unsigned)i);
            if (!sort_and_check(ctx, &c, "value size") ||
                !sort_and_check_buffer(ctx, &c, 7, "value size (buffer)"))
                i = 99, t = 2;
        }
    clsort_context_release(ctx);
}

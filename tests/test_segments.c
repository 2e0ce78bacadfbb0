/* test_segments.c - segmented sorts, the bitonic and selection algorithms,
 * small sorts, and scans, against references written here. */
#include <math.h>

#include "sortcheck.h"

/* The expected result of sorting each segment stably: out = in permuted
 * within segments. offs has count + 1 entries. */
static void ref_segments(clsort_type t, const void *keys, const uint64_t *offs, size_t count,
                         size_t n, const clsort_options *o, size_t *perm)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t s = 0; s < count; s++) {
        size_t a = offs[s], len = offs[s + 1] - a;
        if (len < 2)
            continue;
        size_t *p = malloc(len * sizeof *p);
        ref_stable_perm(t, (const unsigned char *)keys + a * clsort_type_size(t), len, o->begin_bit,
                        o->end_bit, o->descending, p);
        for (size_t i = 0; i < len; i++)
            perm[a + i] = a + p[i];
        free(p);
    }
}

/* Runs one segmented sort (host or buffer API) and checks keys and values. */
static bool seg_case(clsort_context *ctx, clsort_type t, const uint64_t *offs, size_t count,
                     size_t fixed_len, size_t n, size_t vs, const clsort_options *o, bool buffer,
                     bool give_max, const char *label)
{
    size_t kb = clsort_type_size(t);
    unsigned char *k = malloc(n * kb + 1), *ko = malloc(n * kb + 1);
    unsigned char *v = vs ? malloc(n * vs + 1) : NULL, *vo = vs ? malloc(n * vs + 1) : NULL;
    size_t *perm = malloc((n + 1) * sizeof *perm);
    uint64_t *own = NULL;
    if (!offs) { /* fixed form: build the equivalent offsets for the reference */
        own = malloc((count + 1) * sizeof *own);
        for (size_t s = 0; s <= count; s++)
            own[s] = s * fixed_len;
    }
    const uint64_t *ro = offs ? offs : own;
    data_fill(k, t, n, (data_dist)(n % DATA_DIST_COUNT), test_seed(label, n, (unsigned)count));
    if (vs)
        data_fill_values(v, vs, n, n);
    ref_segments(t, k, ro, count, n, o, perm);
    memcpy(ko, k, n * kb);
    if (vs)
        memcpy(vo, v, n * vs);
    clsort_segments sg;
    memset(&sg, 0, sizeof sg);
    sg.count = count;
    sg.length = fixed_len;
    clsort_status st;
    bool ok = true;
    if (!buffer) {
        sg.offsets = offs;
        st = vs ? clsort_sort_segments_pairs(ctx, t, ko, vo, vs, n, &sg, o)
                : clsort_sort_segments(ctx, t, ko, n, &sg, o);
    } else {
        cl_context c = clsort_context_cl_context(ctx);
        cl_command_queue q = clsort_context_queue(ctx);
        cl_int e;
        const size_t g = 3; /* guard elements before the range */
        cl_mem dk = clCreateBuffer(c, CL_MEM_READ_WRITE, (n + g) * kb + 1, NULL, &e);
        cl_mem dv = vs ? clCreateBuffer(c, CL_MEM_READ_WRITE, (n + g) * vs + 1, NULL, &e) : NULL;
        cl_mem dofs = offs ? clCreateBuffer(c, CL_MEM_READ_WRITE, (count + 2) * 8, NULL, &e) : NULL;
        clEnqueueWriteBuffer(q, dk, CL_TRUE, g * kb, n * kb, k, 0, NULL, NULL);
        if (vs)
            clEnqueueWriteBuffer(q, dv, CL_TRUE, g * vs, n * vs, v, 0, NULL, NULL);
        if (offs)
            clEnqueueWriteBuffer(q, dofs, CL_TRUE, 8, (count + 1) * 8, offs, 0, NULL, NULL);
        sg.offsets_buffer = dofs;
        sg.offsets_offset = 1;
        if (give_max && offs) {
            size_t m = 0;
            for (size_t s = 0; s < count; s++)
                if (offs[s + 1] - offs[s] > m)
                    m = offs[s + 1] - offs[s];
            sg.max_length = m;
        }
        cl_event ev = NULL;
        st = clsort_sort_segments_buffer(ctx, t, dk, g, dv, g, vs, n, &sg, o, 0, NULL, &ev);
        if (st == CLSORT_SUCCESS) {
            clWaitForEvents(1, &ev);
            clReleaseEvent(ev);
            clEnqueueReadBuffer(q, dk, CL_TRUE, g * kb, n * kb, ko, 0, NULL, NULL);
            if (vs)
                clEnqueueReadBuffer(q, dv, CL_TRUE, g * vs, n * vs, vo, 0, NULL, NULL);
        }
        clReleaseMemObject(dk);
        if (dv)
            clReleaseMemObject(dv);
        if (dofs)
            clReleaseMemObject(dofs);
    }
    char what[256];
    snprintf(what, sizeof what, "%s (%s, %zu segments, n=%zu, vs=%zu, %s%s)", label,
             clsort_type_name(t), count, n, vs, buffer ? "buffer" : "host",
             o->descending ? ", desc" : "");
    if (st != CLSORT_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: %s\n%s", what, clsort_status_string(st),
                  clsort_context_last_error(ctx));
        ok = false;
    } else {
        ok = check_permuted(what, k, ko, perm, n, kb) &&
             (!vs || check_permuted(what, v, vo, perm, n, vs));
    }
    free(k);
    free(ko);
    free(v);
    free(vo);
    free(perm);
    free(own);
    return ok;
}

/* Offsets for a mix of segment lengths (from lens), starting at `first`. */
static size_t make_offsets(uint64_t *o, const size_t *lens, size_t count, size_t first)
{
    o[0] = first;
    for (size_t s = 0; s < count; s++)
        o[s + 1] = o[s] + lens[s];
    return (size_t)o[count];
}

/* Whether a tuning spec contains the setting "key=value". */
static bool has_setting(const char *spec, const char *setting)
{
    size_t len = strlen(setting);
    for (const char *p = spec; (p = strstr(p, setting)) != NULL; p++)
        if ((p == spec || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

void test_segments(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    clsort_options o;
    memset(&o, 0, sizeof o);
    /* empty, length 1, 2^k +- 1, and one longer than any work-group holds
     * (it goes to the radix sort of (segment, key)) */
    static const size_t lens[] = {0, 1, 2, 3, 7, 8, 9, 0, 31, 32, 33, 255, 256, 257,
                                  1023, 1, 4095, 4097, 70001, 5, 0};
    const size_t count = sizeof lens / sizeof lens[0];
    uint64_t offs[32];
    size_t n = make_offsets(offs, lens, count, 11) + 13; /* untouched elements around */
    /* every key width, signed and float; on a CPU device (where each type
     * costs its kernel builds) four of them unless CLSORT_TEST_FULL */
    static const clsort_type types[] = {CLSORT_U32, CLSORT_F64, CLSORT_U8, CLSORT_I16, CLSORT_F32,
                                        CLSORT_I64};
    const size_t ntypes = test_thorough(ctx) ? 6 : 4;
    for (size_t ti = 0; ti < ntypes; ti++) {
        o.descending = ti % 2;
        if (!seg_case(ctx, types[ti], offs, count, 0, n, 0, &o, false, false, "mixed keys") ||
            !seg_case(ctx, types[ti], offs, count, 0, n, 8, &o, false, false, "mixed pairs"))
            break;
    }
    o.descending = 0;
    /* The work-group cases: the tuned choice; bitonic with the tuned network and with every
     * step in local memory (bt_regs=0), few (4) and many (32) elements per
     * work-item in registers; a radix work-group per segment
     * (seg_radix_min) with the tuned shape and with the portable ranking
     * (tile 64 x 128: the fixed 8192 case fills it exactly), also as the
     * segments' own shape; one radix sort of (segment, key)
     * (seg_packed_max). */
    static const char *const bt_tunings[] = {
        NULL, "seg_radix_min=0", "seg_radix_min=0,bt_regs=0", "seg_radix_min=0,bt_regs=4",
        "seg_radix_min=0,bt_regs=32", "seg_radix_min=2", "seg_packed_max=100000",
        "algorithm=onesweep,os_wg=64,os_items=128,os_rank=local,hist_wg=64,plan_wg=64,"
        "os_wg_wide=64,os_items_wide=128,seg_radix_min=2",
        /* the segments' own shape for keys alone (seg_wg, seg_items: 8192
         * u32 keys a work-group), small tiles elsewhere */
        "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "seg_wg=64,seg_items=128,seg_radix_min=2",
        /* 256-item work-groups whose tile shrinks to 128 work-items for
         * short segments (the short cases below) */
        "algorithm=onesweep,os_wg=256,os_items=4,os_rank=local,hist_wg=64,plan_wg=64,"
        "seg_radix_min=2"};
    char tuned[1024];
    clsort_context_get_tuning(ctx, tuned, sizeof tuned);
    for (size_t v = 0; v < sizeof bt_tunings / sizeof bt_tunings[0]; v++) {
        if (v && has_setting(tuned, bt_tunings[v]))
            continue; /* the tuned network, tested above */
        clsort_context *bctx = v ? test_context(bt_tunings[v]) : ctx;
        if (!bctx)
            break;
        const int before = test_failures;
        /* The network of 32 registers is a build of half a minute on PoCL
         * for each key type with indices: on a CPU device (unless
         * CLSORT_TEST_FULL) its cases sort u32 keys where the others sort
         * f32 (records of 12 bytes: the same program as the u32 pairs) and
         * u64 keys where the others sort i32 keys alone (the same program
         * as the u64 keys); the float and signed keys run through every
         * other network here. */
        const bool regs32 =
            v && has_setting(bt_tunings[v], "bt_regs=32") && !test_thorough(bctx);
        const clsort_type t_rec = regs32 ? CLSORT_U32 : CLSORT_F32;
        const clsort_type t_keys = regs32 ? CLSORT_U64 : CLSORT_I32;
        /* only short segments: one bitonic launch; the buffer form with and
         * without max_length, and records of 12 bytes */
        static const size_t shorts[] = {5, 100, 0, 2048, 1, 333, 4096, 17};
        n = make_offsets(offs, shorts, 8, 0);
        seg_case(bctx, CLSORT_U32, offs, 8, 0, n, 4, &o, true, true, "short, max_length");
        seg_case(bctx, CLSORT_U32, offs, 8, 0, n, 4, &o, true, false, "short, read back");
        seg_case(bctx, t_rec, offs, 8, 0, n, 12, &o, false, false, "short, 12-byte values");
        seg_case(bctx, CLSORT_U64, offs, 8, 0, n, 0, &o, true, false, "short keys, buffer");
        /* the fixed form: Zucchi's 200 x 8192 (smaller here) and odd lengths */
        seg_case(bctx, t_keys, NULL, 50, 8192, 50 * 8192 + 7, 0, &o, false, false, "fixed 8192");
        seg_case(bctx, CLSORT_U32, NULL, 300, 777, 300 * 777, 4, &o, true, false, "fixed 777 pairs");
        o.begin_bit = 3, o.end_bit = 20;
        o.descending = 1;
        seg_case(bctx, CLSORT_U32, NULL, 40, 1000, 40000, 4, &o, false, false, "fixed, bit window");
        memset(&o, 0, sizeof o);
        /* many short segments, several to a work-group (blocks of 16 and
         * 64, read back from both ends): pairs, keys alone over all bits,
         * and mixed lengths 0 to 40, descending (keys through a buffer),
         * with the key and value types above (no further kernel builds) */
        seg_case(bctx, CLSORT_U32, NULL, 1000, 13, 1000 * 13 + 3, 4, &o, false, false,
                 "fixed 13, pairs");
        seg_case(bctx, t_keys, NULL, 517, 64, 517 * 64, 0, &o, false, false, "fixed 64 keys");
        {
            size_t many[300];
            uint64_t moffs[301];
            for (size_t s = 0; s < 300; s++)
                many[s] = (s * 7) % 41;
            size_t mn = make_offsets(moffs, many, 300, 2) + 1;
            o.descending = 1;
            seg_case(bctx, CLSORT_U64, moffs, 300, 0, mn, 0, &o, true, false, "300 short, desc");
            seg_case(bctx, t_rec, moffs, 300, 0, mn, 12, &o, false, false,
                     "300 short pairs, desc");
            o.descending = 0;
        }
        if (test_failures != before)
            test_fail(__FILE__, __LINE__, "(with tuning '%s')", bt_tunings[v] ? bt_tunings[v] : "");
        if (v)
            clsort_context_release(bctx);
    }
    /* forced algorithms */
    static const clsort_algorithm algos[] = {CLSORT_ALGORITHM_BITONIC, CLSORT_ALGORITHM_BITONIC_GLOBAL,
                                             CLSORT_ALGORITHM_ONESWEEP, CLSORT_ALGORITHM_CLASSIC};
    n = make_offsets(offs, lens, count, 11) + 13;
    for (size_t a = 0; a < 4; a++) {
        o.algorithm = algos[a];
        if (!seg_case(ctx, CLSORT_U32, offs, count, 0, n, 4, &o, false, false, "forced algorithm"))
            break;
    }
    /* onesweep forced on segments that fit its tile: a radix work-group each */
    static const size_t fits[] = {5, 100, 0, 2048, 1, 333, 4096, 17, 2};
    o.algorithm = CLSORT_ALGORITHM_ONESWEEP;
    n = make_offsets(offs, fits, 9, 3) + 5;
    seg_case(ctx, CLSORT_U64, offs, 9, 0, n, 8, &o, true, false, "onesweep, segments in a tile");
    o.descending = 1;
    seg_case(ctx, CLSORT_F32, offs, 9, 0, n, 0, &o, false, false, "onesweep, descending floats");
    o.descending = 0;
    /* a tuning whose onesweep shape cannot run (12-bit digits with a
     * work-group ranking): AUTO falls back to the bitonic work-groups,
     * succeeds, and leaves no message behind */
    clsort_context *wide = test_context("radix_bits=12,algorithm=classic,cl_wg=1,hist_wg=1,"
                                        "plan_wg=64,os_rank=local,os_wg=64,os_items=128,"
                                        "seg_radix_min=2,seg_packed_max=0");
    if (wide) {
        o.algorithm = CLSORT_ALGORITHM_AUTO;
        n = make_offsets(offs, fits, 9, 3) + 5;
        seg_case(wide, CLSORT_U32, offs, 9, 0, n, 0, &o, false, false, "onesweep shape unusable");
        CHECK(!clsort_context_last_error(wide)[0], "no message after a success: '%s'",
              clsort_context_last_error(wide));
        clsort_context_release(wide);
    }
    o.algorithm = CLSORT_ALGORITHM_SELECTION;
    uint32_t dummy[4] = {3, 2, 1, 0};
    clsort_segments sg;
    memset(&sg, 0, sizeof sg);
    sg.count = 1;
    sg.length = 4;
    CHECK(clsort_sort_segments(ctx, CLSORT_U32, dummy, 4, &sg, &o) == CLSORT_ERROR_INVALID_OPTIONS,
          "selection does not sort segments");
    CHECK(dummy[0] == 3, "data untouched");
    /* bad segment descriptions */
    memset(&o, 0, sizeof o);
    uint64_t bad[3] = {0, 3, 2};
    sg.offsets = bad;
    sg.count = 2;
    CHECK(clsort_sort_segments(ctx, CLSORT_U32, dummy, 4, &sg, &o) == CLSORT_ERROR_INVALID_ARGUMENT,
          "decreasing offsets");
    bad[2] = 5;
    CHECK(clsort_sort_segments(ctx, CLSORT_U32, dummy, 4, &sg, &o) == CLSORT_ERROR_INVALID_ARGUMENT,
          "offsets past n");
    sg.offsets = NULL;
    sg.count = 3;
    sg.length = 2;
    CHECK(clsort_sort_segments(ctx, CLSORT_U32, dummy, 4, &sg, &o) == CLSORT_ERROR_INVALID_ARGUMENT,
          "fixed segments past n");
    CHECK(clsort_sort_segments(ctx, CLSORT_U32, dummy, 4, NULL, &o) == CLSORT_ERROR_INVALID_ARGUMENT,
          "NULL segments");
    CHECK(dummy[0] == 3 && dummy[3] == 0, "data untouched by failed calls");
    clsort_context_release(ctx);
}

/* Every algorithm on plain sorts: sizes around powers of two, keys, pairs
 * and argsort, against the reference. */
void test_algorithms(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    static const clsort_algorithm algos[] = {CLSORT_ALGORITHM_BITONIC, CLSORT_ALGORITHM_BITONIC_GLOBAL,
                                             CLSORT_ALGORITHM_SELECTION,
                                             CLSORT_ALGORITHM_SELECTION_LOCAL};
    static const size_t sizes[] = {2, 3, 255, 256, 257, 4097, 20011, 70001};
    const bool thorough = test_thorough(ctx);
    for (size_t a = 0; a < 4; a++)
        for (size_t i = 0; i < 8; i++)
            for (int m = 0; m < 3; m++) {
                /* n^2 work: the selection sorts stop at 20011 on a CPU */
                if (a >= 2 && sizes[i] > 30000 && !thorough)
                    continue;
                sort_case c;
                memset(&c, 0, sizeof c);
                c.type = (i + (size_t)m) % 3 == 0 ? CLSORT_F32 : (i % 2 ? CLSORT_U64 : CLSORT_I32);
                c.dist = (data_dist)((i + a) % DATA_DIST_COUNT);
                c.n = sizes[i];
                c.mode = (check_mode)m;
                c.value_size = 4;
                c.index_type = CLSORT_U32;
                c.opt.algorithm = algos[a];
                c.opt.descending = (i + a) % 2;
                c.seed = test_seed("algorithms", c.n, (unsigned)(a * 3 + (size_t)m));
                if (!sort_and_check(ctx, &c, "algorithm"))
                    a = 4, i = 8, m = 3;
            }
    /* the selection sort's limit is a clear error */
    sort_case c;
    memset(&c, 0, sizeof c);
    clsort_options o;
    memset(&o, 0, sizeof o);
    o.algorithm = CLSORT_ALGORITHM_SELECTION;
    uint32_t small[4] = {1, 2, 3, 4};
    /* checked before any data is read (small has 4 elements) */
    CHECK(clsort_sort_keys(ctx, CLSORT_U32, small, (1u << 20) + 1, &o) == CLSORT_ERROR_TOO_LARGE,
          "selection beyond 2^20");
    CHECK(small[0] == 1 && small[3] == 4, "data untouched");
    (void)c;
    clsort_context_release(ctx);
    /* small sorts: the one-launch bitonic path chosen automatically, and a
     * whole-array bitonic sort (local phases between global steps), with
     * the tuned network, with other register runs (bt_regs), and with
     * programs built for each sort's own length (bt_fit_wg) */
    static const char *const small_tunings[] = {"small_max=4096", "small_max=4096,bt_regs=0",
                                                "small_max=4096,bt_regs=8",
                                                "small_max=4096,bt_fit_wg=64"};
    static const size_t smalls[] = {2, 17, 1000, 1024, 4095, 4096, 4097};
    for (size_t v = 0; v < 4; v++) {
        ctx = test_context(small_tunings[v]);
        if (!ctx)
            return;
        const int before = test_failures;
        /* bt_fit_wg builds a program for each length's power of two (512,
         * 1024, 4096 here) and each mode, seconds each on PoCL: on a CPU
         * device (unless CLSORT_TEST_FULL) each of those lengths sorts in
         * one mode, the three modes over the three lengths; every mode
         * runs at every length with the tunings before */
        const bool fit_diagonal = v == 3 && !thorough;
        for (size_t i = 0; i < 7; i++)
            for (int m = 0; m < 3; m++) {
                if (fit_diagonal && (size_t)m != (i / 2) % 3)
                    continue;
                memset(&c, 0, sizeof c);
                c.type = m == 1 ? CLSORT_F64 : CLSORT_U32;
                c.dist = (data_dist)((i + v) % DATA_DIST_COUNT);
                c.n = smalls[i];
                c.mode = (check_mode)m;
                c.value_size = 8;
                c.index_type = CLSORT_U64;
                c.opt.descending = (i + v) % 2;
                c.seed = test_seed("small", c.n, (unsigned)(m + 3 * v));
                if (!sort_and_check(ctx, &c, "small sort") ||
                    !sort_and_check_buffer(ctx, &c, 2, "small sort"))
                    i = 7, m = 3;
            }
        if (v) {
            memset(&c, 0, sizeof c);
            c.type = v == 1 ? CLSORT_U32 : CLSORT_I64;
            c.dist = DATA_UNIFORM;
            c.n = 20011;
            c.mode = (check_mode)(v == 1 ? 0 : 1);
            c.value_size = 4;
            c.index_type = CLSORT_U32;
            c.opt.algorithm = CLSORT_ALGORITHM_BITONIC;
            c.seed = test_seed("bitonic tunings", c.n, (unsigned)v);
            sort_and_check(ctx, &c, "whole-array bitonic");
        }
        if (test_failures != before)
            test_fail(__FILE__, __LINE__, "(with tuning '%s')", small_tunings[v]);
        clsort_context_release(ctx);
    }
}

static double val_of(clsort_type t, const void *p, size_t i)
{
    switch (t) {
    case CLSORT_U32: return ((const uint32_t *)p)[i];
    case CLSORT_U64: return (double)((const uint64_t *)p)[i];
    case CLSORT_I32: return ((const int32_t *)p)[i];
    case CLSORT_I64: return (double)((const int64_t *)p)[i];
    case CLSORT_F32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* The scan against a CPU scan: integers exactly (with wrap-around), floats
 * to a relative tolerance. */
static bool scan_case(clsort_context *ctx, clsort_type t, size_t n, int inclusive, bool in_place,
                      bool buffer)
{
    size_t es = clsort_type_size(t);
    unsigned char *in = malloc(n * es + 8), *out = malloc(n * es + 8), *ref = malloc(n * es + 8);
    data_rng r = {n * 31 + (uint64_t)t};
    for (size_t i = 0; i < n; i++) {
        uint64_t x = data_next(&r);
        switch (t) {
        case CLSORT_U32: ((uint32_t *)in)[i] = (uint32_t)x; break; /* wraps */
        case CLSORT_U64: ((uint64_t *)in)[i] = x >> 20; break;     /* beyond 32 bits */
        case CLSORT_I32: ((int32_t *)in)[i] = (int32_t)(x % 2001) - 1000; break;
        case CLSORT_I64: ((int64_t *)in)[i] = (int64_t)(x >> 24) - (int64_t)(1ull << 39); break;
        case CLSORT_F32: ((float *)in)[i] = (float)((x % 20001) / 1000.0 - 10.0); break;
        default: ((double *)in)[i] = (x % 2000001) / 1000.0 - 1000.0; break;
        }
    }
    /* reference */
    uint64_t au = 0;
    double ad = 0;
    for (size_t i = 0; i < n; i++) {
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double x = val_of(t, in, i);
            double before = ad;
            ad += x;
            if (t == CLSORT_F32)
                ((float *)ref)[i] = (float)(inclusive ? ad : before);
            else
                ((double *)ref)[i] = inclusive ? ad : before;
        } else {
            uint64_t x = 0;
            memcpy(&x, in + i * es, es);
            if (t == CLSORT_I32)
                x = (uint64_t)(int64_t)*(int32_t *)(in + i * es);
            uint64_t before = au;
            au += x;
            uint64_t v = inclusive ? au : before;
            memcpy(ref + i * es, &v, es);
        }
    }
    clsort_status st;
    if (!buffer) {
        if (in_place) {
            memcpy(out, in, n * es);
            st = clsort_scan(ctx, t, out, out, n, inclusive);
        } else {
            st = clsort_scan(ctx, t, in, out, n, inclusive);
        }
    } else {
        cl_context c = clsort_context_cl_context(ctx);
        cl_command_queue q = clsort_context_queue(ctx);
        cl_int e;
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, (2 * n + 5) * es, NULL, &e);
        clEnqueueWriteBuffer(q, b, CL_TRUE, 2 * es, n * es, in, 0, NULL, NULL);
        st = clsort_scan_buffer(ctx, t, b, 2, b, in_place ? 2 : n + 4, n, inclusive, 0, NULL, NULL);
        if (st == CLSORT_SUCCESS)
            clEnqueueReadBuffer(q, b, CL_TRUE, (in_place ? 2 : n + 4) * es, n * es, out, 0, NULL,
                                NULL);
        clReleaseMemObject(b);
    }
    bool ok = true;
    if (st != CLSORT_SUCCESS) {
        test_fail(__FILE__, __LINE__, "scan %s n=%zu: %s\n%s", clsort_type_name(t), n,
                  clsort_status_string(st), clsort_context_last_error(ctx));
        ok = false;
    }
    for (size_t i = 0; i < n && ok; i++) {
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double a = val_of(t, out, i), b = val_of(t, ref, i);
            double tol = (t == CLSORT_F32 ? 2e-3 : 1e-9) * (fabs(b) + (double)(i + 1) * 10.0);
            if (fabs(a - b) > tol) {
                test_fail(__FILE__, __LINE__, "scan %s n=%zu %s: [%zu] = %.9g, expected %.9g",
                          clsort_type_name(t), n, inclusive ? "incl" : "excl", i, a, b);
                ok = false;
            }
        } else if (memcmp(out + i * es, ref + i * es, es)) {
            test_fail(__FILE__, __LINE__, "scan %s n=%zu %s: element %zu differs",
                      clsort_type_name(t), n, inclusive ? "incl" : "excl", i);
            ok = false;
        }
    }
    free(in);
    free(out);
    free(ref);
    return ok;
}

void test_scan(void)
{
    /* both forms: reduce-then-scan and the single-pass look-back scan, the
     * latter also with small tiles (many look-back windows) and with runs
     * of 12 and 16 elements (NVIDIA: tiles staged by 16-byte vectors; runs
     * of 2 there: 8-byte sums by vectors, 4-byte ones element by element);
     * work-groups of 48 take the portable single pass on NVIDIA too; groups
     * of 300 and 1024 take every level of the work-group scan (common.cl:
     * blocks of 16, groups of 16 blocks, the groups' totals) */
    static const char *const tunings[] = {"scan_onepass=0", "scan_onepass=1",
                                          "scan_onepass=1,scan_wg=32,scan_items=2",
                                          "scan_onepass=1,scan_items=16",
                                          "scan_onepass=1,scan_wg=64,scan_items=12",
                                          "scan_onepass=1,scan_wg=48,scan_items=5",
                                          "scan_onepass=0,scan_wg=1024,scan_items=2",
                                          "scan_onepass=1,scan_wg=300,scan_items=3"};
    /* Each element type is a program of its own for each tuning (about 2 s
     * on PoCL): on a CPU device (unless CLSORT_TEST_FULL) the default
     * shape (tunings 0 and 1, one program each type) scans all six types,
     * the other shapes a 4-byte and an 8-byte type each, together every
     * type again (integer and float, signed and unsigned; the rows of
     * tunings 0 and 1 are not read). */
    static const clsort_type shape_types[8][2] = {
        {CLSORT_U32, CLSORT_U64}, {CLSORT_U32, CLSORT_U64}, {CLSORT_U32, CLSORT_F64},
        {CLSORT_I32, CLSORT_U64}, {CLSORT_F32, CLSORT_U64}, {CLSORT_U32, CLSORT_U64},
        {CLSORT_F32, CLSORT_I64}, {CLSORT_I32, CLSORT_F64}};
    for (size_t v = 0; v < 8; v++) {
        clsort_context *ctx = test_context(tunings[v]);
        if (!ctx)
            return;
        static const clsort_type types[] = {CLSORT_U32, CLSORT_U64, CLSORT_I32, CLSORT_I64,
                                            CLSORT_F32, CLSORT_F64};
        static const size_t sizes[] = {1,    2,     255,   256,     257,
                                       4095, 4097,  65537, 1000003, (1u << 24) + 5};
        const bool all_types = v < 2 || test_thorough(ctx);
        for (size_t t = 0; t < 6; t++)
            for (size_t i = 0; i < 10; i++) {
                if (!all_types && types[t] != shape_types[v][0] && types[t] != shape_types[v][1])
                    continue;
                if (sizes[i] > 2000000 && t != 1)
                    continue; /* the largest with 64-bit sums only (time) */
                if ((v == 2 || v >= 5) && sizes[i] > 2000000)
                    continue;
                if (!scan_case(ctx, types[t], sizes[i], (int)(i % 2), i % 3 == 0, i % 4 == 1)) {
                    test_fail(__FILE__, __LINE__, "with tuning %s", tunings[v]);
                    t = 6, i = 10;
                }
            }
        CHECK(clsort_scan(ctx, CLSORT_U8, NULL, NULL, 0, 0) == CLSORT_ERROR_UNSUPPORTED_TYPE,
              "type");
        CHECK(clsort_scan(ctx, CLSORT_U32, NULL, NULL, 5, 0) == CLSORT_ERROR_INVALID_ARGUMENT,
              "NULL");
        clsort_context_release(ctx);
    }
    /* The single pass keeps its tiles' records from scan to scan (a new
     * epoch marks each scan's flags; no fill): one context scans large
     * then small inputs of 8- and 4-byte sums, in the warp form and the
     * portable one (work-groups of 48; one form alone where the device
     * takes that one only), in and out of the records of the scans before:
     * a record of an earlier scan must never pass for this one's. */
    clsort_context *seq = test_context("scan_onepass=1,scan_wg=64,scan_items=4");
    if (seq) {
        static const char *const forms[] = {"scan_wg=64,scan_items=4", "scan_wg=48,scan_items=5"};
        /* (on a CPU device, unless CLSORT_TEST_FULL, 8- and 4-byte sums
         * of unsigned integers alone: the types of tuning 5, which scans
         * in the second form) */
        const bool all_types = test_thorough(seq);
        static const clsort_type st_all[] = {CLSORT_U64, CLSORT_U32, CLSORT_F64, CLSORT_I32};
        static const clsort_type st_cpu[] = {CLSORT_U64, CLSORT_U32, CLSORT_U64, CLSORT_U32};
        const clsort_type *st = all_types ? st_all : st_cpu;
        static const size_t sn[] = {200003, 1025, 70001, 257, 300007};
        for (size_t r = 0; r < 8; r++) {
            CHECK_OK(seq, clsort_context_set_tuning(seq, forms[r % 2]));
            for (size_t i = 0; i < 5; i++)
                if (!scan_case(seq, st[(r + i) % 4], sn[(r + i) % 5], (int)(i % 2), i == 2,
                               i == 3)) {
                    test_fail(__FILE__, __LINE__, "records kept between scans, round %zu", r);
                    r = 8, i = 5;
                }
        }
        clsort_context_release(seq);
    }
    /* A tile larger than the device's local memory (2 MiB of u64 here): the
     * scan takes fewer elements per work-item until it fits and scans
     * correctly (PoCL aborted in the launch before the check). */
    clsort_context *big = test_context("scan_wg=1024,scan_items=256");
    if (big) {
        static const clsort_type bt[] = {CLSORT_U64, CLSORT_F32};
        for (size_t t = 0; t < 2; t++)
            if (!scan_case(big, bt[t], 300007, (int)t, t == 1, t == 0))
                test_fail(__FILE__, __LINE__, "with tuning scan_wg=1024,scan_items=256");
        clsort_context_release(big);
    }
}

/* test_host.c - host arrays through each route (mapped, staged in pinned
 * chunks, the driver's copy), around chunk boundaries, misaligned, and in
 * runs merged on the host when they exceed the device memory the context
 * may use; failures that leave the arrays unchanged. */
#define _POSIX_C_SOURCE 200809L
#include "sortcheck.h"

/* A context on the test device with a host route ($CLSORT_HOST_PATH), a
 * chunk size and a device memory cap (0: none). */
static clsort_context *host_context(const char *path, const char *chunk, uint64_t cap)
{
    /* 16 copy threads whatever the machine: copies split unevenly */
    setenv("CLSORT_HOST_THREADS", "16", 1);
    setenv("CLSORT_HOST_PATH", path, 1);
    if (chunk)
        setenv("CLSORT_HOST_CHUNK", chunk, 1);
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    cfg.device_memory = cap;
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create_with_config(&ctx, &cfg);
    unsetenv("CLSORT_HOST_PATH");
    unsetenv("CLSORT_HOST_CHUNK");
    unsetenv("CLSORT_HOST_THREADS");
    if (s == CLSORT_ERROR_NO_PLATFORM) {
        printf("SKIP: no OpenCL platform\n");
        exit(77);
    }
    CHECK(s == CLSORT_SUCCESS, "context (%s, %s): %s\n%s", path, chunk ? chunk : "-",
          clsort_status_string(s), clsort_context_last_error(NULL));
    return s == CLSORT_SUCCESS ? ctx : NULL;
}

/* Host arrays at an odd address: keys, values and indices misaligned by
 * `shift` bytes, sorted through the API and checked. */
static void misaligned(clsort_context *ctx, clsort_type type, size_t n, size_t shift,
                       const char *label)
{
    const size_t kb = clsort_type_size(type);
    unsigned char *km = malloc(n * kb + 16), *vm = malloc(n * 8 + 16);
    void *orig = malloc(n * kb), *out = malloc(n * kb);
    size_t *perm = malloc(n * sizeof *perm);
    if (!km || !vm || !orig || !out || !perm) {
        CHECK(false, "out of host memory");
        goto done;
    }
    unsigned char *kp = km + shift, *vp = vm + shift;
    data_fill(orig, type, n, DATA_UNIFORM, test_seed(label, n, (unsigned)shift));
    memcpy(kp, orig, n * kb);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = i;
        memcpy(vp + i * 8, &v, 8);
    }
    clsort_status s = clsort_sort_pairs(ctx, type, kp, vp, 8, n, NULL);
    CHECK(s == CLSORT_SUCCESS, "%s pairs: %s", label, clsort_context_last_error(ctx));
    ref_stable_perm(type, orig, n, 0, 0, 0, perm);
    memcpy(out, kp, n * kb);
    check_permuted(label, orig, out, perm, n, kb);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, vp + i * 8, 8);
        if (v != perm[i]) {
            CHECK(false, "%s: value %zu is %llu, expected %zu", label, i, (unsigned long long)v,
                  perm[i]);
            break;
        }
    }
    /* argsort into misaligned 64-bit indices */
    s = clsort_argsort(ctx, type, orig, n, CLSORT_U64, vp, NULL);
    CHECK(s == CLSORT_SUCCESS, "%s argsort: %s", label, clsort_context_last_error(ctx));
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, vp + i * 8, 8);
        if (v != perm[i]) {
            CHECK(false, "%s argsort: index %zu is %llu, expected %zu", label, i,
                  (unsigned long long)v, perm[i]);
            break;
        }
    }
done:
    free(km);
    free(vm);
    free(orig);
    free(out);
    free(perm);
}

/* clsort_sort_keys_copy: the sorted copy against the reference, the input
 * untouched, in place when both are one array, refused when they overlap
 * otherwise. */
static void sorted_copy(clsort_context *ctx, clsort_type type, size_t n, data_dist dist,
                        int descending, const char *label)
{
    const size_t kb = clsort_type_size(type);
    unsigned char *in = malloc(n * kb + 8), *orig = malloc(n * kb + 8), *out = malloc(n * kb + 8);
    size_t *perm = malloc(n * sizeof *perm);
    if (!in || !orig || !out || !perm) {
        CHECK(false, "out of host memory");
        goto done;
    }
    data_fill(in, type, n, dist, test_seed(label, n, 0));
    memcpy(orig, in, n * kb);
    memset(out, 0x5a, n * kb);
    clsort_options o = {.descending = descending};
    clsort_status s = clsort_sort_keys_copy(ctx, type, in, out, n, &o);
    CHECK(s == CLSORT_SUCCESS, "%s: %s", label, clsort_context_last_error(ctx));
    CHECK(!memcmp(in, orig, n * kb), "%s: the input changed", label);
    ref_stable_perm(type, orig, n, 0, 0, descending, perm);
    check_permuted(label, orig, out, perm, n, kb);
    s = clsort_sort_keys_copy(ctx, type, in, in, n, &o); /* one array: in place */
    CHECK(s == CLSORT_SUCCESS, "%s in place: %s", label, clsort_context_last_error(ctx));
    check_permuted(label, orig, in, perm, n, kb);
    if (n > 1) {
        memcpy(in, orig, n * kb);
        s = clsort_sort_keys_copy(ctx, type, in, in + kb, n - 1, &o);
        CHECK(s == CLSORT_ERROR_INVALID_ARGUMENT, "%s: overlapping arrays gave %s", label,
              clsort_status_string(s));
        CHECK(!memcmp(in, orig, n * kb), "%s: a refused call changed the input", label);
    }
done:
    free(in);
    free(orig);
    free(out);
    free(perm);
}

/* Every route, with 4 KiB chunks: sizes at and around the chunk and the
 * ring of chunks (4 slots), every type, pairs (records too) and argsort. */
void test_host_routes(void)
{
    static const char *const paths[] = {"staged", "copy", "mapped"};
    static const clsort_type types[] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64,
                                        CLSORT_I8,  CLSORT_I16, CLSORT_I32, CLSORT_I64,
                                        CLSORT_F32, CLSORT_F64};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        clsort_context *ctx = host_context(paths[p], "4K", 0);
        if (!ctx)
            return;
        /* u32: 1024 keys a chunk; 4 chunks fill the ring */
        static const size_t sizes[] = {2, 1023, 1024, 1025, 4095, 4096, 4097, 5 * 1024 + 7, 65537};
        char label[96];
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            sort_case c = {.type = CLSORT_U32, .dist = DATA_UNIFORM, .n = sizes[i]};
            c.seed = test_seed("host_routes", c.n, (unsigned)p);
            snprintf(label, sizeof label, "%s u32 n=%zu", paths[p], c.n);
            sort_and_check(ctx, &c, label);
            c.mode = CHECK_PAIRS;
            c.value_size = 4;
            snprintf(label, sizeof label, "%s pairs n=%zu", paths[p], c.n);
            sort_and_check(ctx, &c, label);
            c.mode = CHECK_ARGSORT;
            c.index_type = CLSORT_U32;
            snprintf(label, sizeof label, "%s argsort n=%zu", paths[p], c.n);
            sort_and_check(ctx, &c, label);
        }
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            sort_case c = {.type = types[t], .dist = DATA_SPECIALS, .n = 20011};
            c.seed = test_seed("host_routes_t", c.n, (unsigned)t);
            c.opt.descending = (int)(t & 1);
            snprintf(label, sizeof label, "%s %s specials", paths[p], clsort_type_name(types[t]));
            sort_and_check(ctx, &c, label);
        }
        static const size_t vsizes[] = {1, 8, 12, 16, 100};
        for (size_t v = 0; v < sizeof vsizes / sizeof vsizes[0]; v++) {
            sort_case c = {.type = CLSORT_F32, .dist = DATA_FEW_UNIQUE, .n = 9001,
                           .mode = CHECK_PAIRS, .value_size = vsizes[v]};
            c.seed = test_seed("host_routes_v", c.n, (unsigned)v);
            snprintf(label, sizeof label, "%s f32 pairs of %zu bytes", paths[p], vsizes[v]);
            sort_and_check(ctx, &c, label);
        }
        snprintf(label, sizeof label, "%s sorted copy f32", paths[p]);
        sorted_copy(ctx, CLSORT_F32, 70001, DATA_SPECIALS, 0, label);
        snprintf(label, sizeof label, "%s sorted copy u16 descending", paths[p]);
        sorted_copy(ctx, CLSORT_U16, 4097, DATA_FEW_UNIQUE, 1, label);
        sorted_copy(ctx, CLSORT_U8, 1, DATA_UNIFORM, 0, "sorted copy of one key");
        sort_case c = {.type = CLSORT_U64, .dist = DATA_UNIFORM, .n = 30011,
                       .mode = CHECK_ARGSORT, .index_type = CLSORT_U64};
        c.opt.begin_bit = 7;
        c.opt.end_bit = 40;
        c.seed = test_seed("host_routes_a", c.n, 0);
        snprintf(label, sizeof label, "%s u64 argsort bits [7,40)", paths[p]);
        sort_and_check(ctx, &c, label);
        for (size_t shift = 1; shift <= 4; shift += 3) {
            snprintf(label, sizeof label, "%s u32 misaligned by %zu", paths[p], shift);
            misaligned(ctx, CLSORT_U32, 50021, shift, label);
            snprintf(label, sizeof label, "%s f64 misaligned by %zu", paths[p], shift);
            misaligned(ctx, CLSORT_F64, 20011, shift, label);
        }
        clsort_context_release(ctx);
    }
    /* The default chunk: copies of a few MiB by 16 threads, their slices
     * uneven (1 MiB + 4 bytes, ...) */
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        clsort_context *ctx = host_context(paths[p], NULL, 0);
        if (!ctx)
            return;
        static const size_t sizes[] = {262145, 262147, 1000003};
        char label[96];
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            sort_case c = {.type = CLSORT_U32, .dist = DATA_UNIFORM, .n = sizes[i]};
            c.seed = test_seed("host_routes_big", c.n, (unsigned)p);
            snprintf(label, sizeof label, "%s big u32 n=%zu", paths[p], c.n);
            sort_and_check(ctx, &c, label);
            c.mode = CHECK_PAIRS;
            c.value_size = 8;
            snprintf(label, sizeof label, "%s big pairs n=%zu", paths[p], c.n);
            sort_and_check(ctx, &c, label);
        }
        snprintf(label, sizeof label, "%s big sorted copy", paths[p]);
        sorted_copy(ctx, CLSORT_U32, 300001, DATA_UNIFORM, 0, label);
        clsort_context_release(ctx);
    }
}

/* Arrays larger than the device memory the context may use: sorted in runs
 * and merged on the host. */
void test_host_runs(void)
{
    static const char *const paths[] = {"auto", "staged"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        /* 1 MiB: about 100K u32 keys a run */
        clsort_context *ctx = host_context(paths[p], "64K", (uint64_t)1 << 20);
        if (!ctx)
            return;
        char label[96];
        static const size_t sizes[] = {262147, 1000003};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const size_t n = sizes[i];
            sort_case c = {.type = CLSORT_U32, .dist = DATA_UNIFORM, .n = n};
            c.seed = test_seed("host_runs", n, (unsigned)p);
            snprintf(label, sizeof label, "%s runs u32 n=%zu", paths[p], n);
            sort_and_check(ctx, &c, label);
            c.dist = DATA_FEW_UNIQUE; /* ties across runs: stability */
            c.mode = CHECK_PAIRS;
            c.value_size = 8;
            snprintf(label, sizeof label, "%s runs few-unique pairs n=%zu", paths[p], n);
            sort_and_check(ctx, &c, label);
            c.mode = CHECK_ARGSORT;
            c.index_type = i ? CLSORT_U64 : CLSORT_U32;
            c.opt.descending = 1;
            snprintf(label, sizeof label, "%s runs argsort descending n=%zu", paths[p], n);
            sort_and_check(ctx, &c, label);
        }
        snprintf(label, sizeof label, "%s runs sorted copy i64", paths[p]);
        sorted_copy(ctx, CLSORT_I64, 300007, DATA_NARROW_16, 0, label);
        /* a last run of one element (runs of a multiple of 4096) */
        static const size_t odd[] = {12289, 32769};
        for (size_t i = 0; i < 2; i++) {
            snprintf(label, sizeof label, "%s runs sorted copy n=%zu", paths[p], odd[i]);
            sorted_copy(ctx, CLSORT_U32, odd[i], DATA_UNIFORM, 0, label);
            sort_case a = {.type = CLSORT_U32, .dist = DATA_UNIFORM, .n = odd[i],
                           .mode = CHECK_ARGSORT, .index_type = i ? CLSORT_U64 : CLSORT_U32};
            a.seed = test_seed("host_runs_odd", odd[i], (unsigned)p);
            snprintf(label, sizeof label, "%s runs argsort n=%zu", paths[p], odd[i]);
            sort_and_check(ctx, &a, label);
            a.mode = CHECK_PAIRS;
            a.value_size = 8;
            snprintf(label, sizeof label, "%s runs pairs n=%zu", paths[p], odd[i]);
            sort_and_check(ctx, &a, label);
        }
        sort_case c = {.type = CLSORT_F64, .dist = DATA_SPECIALS, .n = 400009};
        c.seed = test_seed("host_runs_f", c.n, (unsigned)p);
        snprintf(label, sizeof label, "%s runs f64 specials", paths[p]);
        sort_and_check(ctx, &c, label);
        c.type = CLSORT_I16;
        c.dist = DATA_ALL_EQUAL;
        c.mode = CHECK_PAIRS;
        c.value_size = 12; /* records moved by the permutation */
        snprintf(label, sizeof label, "%s runs i16 all equal, 12-byte values", paths[p]);
        sort_and_check(ctx, &c, label);
        c.type = CLSORT_I32;
        c.dist = DATA_REVERSED;
        c.mode = CHECK_KEYS;
        c.opt.begin_bit = 4;
        c.opt.end_bit = 20;
        snprintf(label, sizeof label, "%s runs i32 reversed bits [4,20)", paths[p]);
        sort_and_check(ctx, &c, label);
        clsort_context_release(ctx);
    }
}

/* Failures that are found before the sort starts leave the arrays as they
 * were. */
void test_host_unchanged(void)
{
    const size_t n = 100003;
    uint32_t *k = malloc(n * 4), *v = malloc(n * 4), *k0 = malloc(n * 4), *v0 = malloc(n * 4);
    if (!k || !v || !k0 || !v0) {
        CHECK(false, "out of host memory");
        goto done;
    }
    data_fill(k0, CLSORT_U32, n, DATA_UNIFORM, 5);
    data_fill(v0, CLSORT_U32, n, DATA_UNIFORM, 6);
    static const char *const paths[] = {"staged", "mapped"};
    for (size_t p = 0; p < 2; p++) {
        /* 4 KiB: too little for any run of a sort */
        clsort_context *ctx = host_context(paths[p], NULL, 4096);
        if (!ctx)
            goto done;
        memcpy(k, k0, n * 4);
        memcpy(v, v0, n * 4);
        clsort_status s = clsort_sort_pairs(ctx, CLSORT_U32, k, v, 4, n, NULL);
        CHECK(s == CLSORT_ERROR_TOO_LARGE, "%s: expected CLSORT_ERROR_TOO_LARGE, got %s", paths[p],
              clsort_status_string(s));
        CHECK(strstr(clsort_context_last_error(ctx), "device memory") != NULL,
              "%s: message '%s'", paths[p], clsort_context_last_error(ctx));
        CHECK(!memcmp(k, k0, n * 4) && !memcmp(v, v0, n * 4), "%s: arrays changed", paths[p]);
        clsort_options bad = {.begin_bit = 8, .end_bit = 4};
        s = clsort_sort_keys(ctx, CLSORT_U32, k, n, &bad);
        CHECK(s == CLSORT_ERROR_INVALID_BITS, "%s: bad bits gave %s", paths[p],
              clsort_status_string(s));
        s = clsort_sort_pairs(ctx, CLSORT_U32, k, k + 1, 4, n - 1, NULL);
        CHECK(s == CLSORT_ERROR_INVALID_ARGUMENT, "%s: aliasing arrays gave %s", paths[p],
              clsort_status_string(s));
        CHECK(!memcmp(k, k0, n * 4), "%s: keys changed by a refused call", paths[p]);
        clsort_context_release(ctx);
    }
    /* Kernel builds that fail: on the mapped route's sorted copy (the output
     * must stay as it was), and for the short last run of a sort in runs
     * (bitonic, which the other runs do not use: the earlier runs must not
     * have been written to the caller's arrays) */
    for (size_t p = 0; p < 2; p++) {
        setenv("CLSORT_BUILD_OPTIONS", p ? "-DCLSORT_BT_STABLE=+" : "-cl-std=CL9.9", 1);
        setenv("CLSORT_TUNING", "small_max=4096", 1);
        clsort_context_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.device = getenv("CLSORT_TEST_DEVICE");
        cfg.cache_dir = ""; /* no cached binaries */
        cfg.device_memory = p ? (uint64_t)256 << 10 : 0;
        setenv("CLSORT_HOST_PATH", p ? "staged" : "mapped", 1);
        clsort_context *c2 = NULL;
        clsort_status s = clsort_context_create_with_config(&c2, &cfg);
        unsetenv("CLSORT_BUILD_OPTIONS");
        unsetenv("CLSORT_TUNING");
        unsetenv("CLSORT_HOST_PATH");
        CHECK(s == CLSORT_SUCCESS, "context: %s", clsort_context_last_error(NULL));
        if (s != CLSORT_SUCCESS)
            continue;
        const size_t m = p ? 32868 : n; /* in runs: a last run of 100 keys */
        memcpy(k, k0, m * 4);
        memset(v, 0x5a, m * 4);
        s = clsort_sort_keys_copy(c2, CLSORT_U32, k, v, m, NULL);
        CHECK(s == CLSORT_ERROR_BUILD_FAILED, "build failure %zu: %s", p, clsort_status_string(s));
        size_t changed = 0;
        for (size_t i = 0; i < m; i++)
            changed += v[i] != 0x5a5a5a5au;
        CHECK(changed == 0, "build failure %zu: %zu elements of the output changed", p, changed);
        s = clsort_sort_keys(c2, CLSORT_U32, k, m, NULL);
        CHECK(s == CLSORT_ERROR_BUILD_FAILED, "build failure %zu, in place: %s", p,
              clsort_status_string(s));
        CHECK(!memcmp(k, k0, m * 4), "build failure %zu: the keys changed", p);
        clsort_context_release(c2);
    }
    /* a malformed cap in the environment is refused with a message */
    setenv("CLSORT_DEVICE_MEMORY", "12Q", 1);
    clsort_context *ctx = NULL;
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    clsort_status s = clsort_context_create_with_config(&ctx, &cfg);
    unsetenv("CLSORT_DEVICE_MEMORY");
    CHECK(s == CLSORT_ERROR_INVALID_ARGUMENT && !ctx, "CLSORT_DEVICE_MEMORY=12Q gave %s",
          clsort_status_string(s));
    clsort_context_release(ctx);
done:
    free(k);
    free(v);
    free(k0);
    free(v0);
}

/* clsort_buffer_write / _read through every route, with 4 KiB chunks: sizes
 * around the chunk and the ring, odd buffer offsets and host addresses, a
 * read of part of what was written; guards around the host arrays stay
 * untouched; bad arguments fail and write nothing. */
void test_host_buffer_copies(void)
{
    static const char *const paths[] = {"staged", "copy", "mapped"};
    static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 4 * 4096 + 3, 5 * 4096, 100003};
    static const size_t offsets[] = {0, 5, 4096 + 7};
    const size_t cap = 100003 + 4096 + 7 + 64, guard = 16;
    unsigned char *src = malloc(cap + 2 * guard), *dst = malloc(cap + 2 * guard);
    if (!src || !dst) {
        CHECK(false, "out of host memory");
        free(src);
        free(dst);
        return;
    }
    for (size_t i = 0; i < cap + 2 * guard; i++)
        src[i] = (unsigned char)(i * 131 + (i >> 8) * 7 + 1);
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        clsort_context *ctx = host_context(paths[p], "4K", 0);
        if (!ctx)
            break;
        cl_int e = CL_SUCCESS;
        cl_mem buf = clCreateBuffer(clsort_context_cl_context(ctx), CL_MEM_READ_WRITE, cap, NULL,
                                    &e);
        CHECK(e == CL_SUCCESS, "clCreateBuffer: %d", e);
        for (size_t i = 0; e == CL_SUCCESS && i < sizeof sizes / sizeof sizes[0]; i++)
            for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
                const size_t n = sizes[i], off = offsets[o], shift = (i + o) % 3;
                const unsigned char *from = src + guard + shift;
                unsigned char *to = dst + guard + shift;
                memset(dst, 0xa5, cap + 2 * guard);
                clsort_status s = clsort_buffer_write(ctx, buf, off, from, n);
                CHECK_OK(ctx, s);
                s = clsort_buffer_read(ctx, buf, off, to, n);
                CHECK_OK(ctx, s);
                size_t bad = n;
                for (size_t k = 0; k < n && bad == n; k++)
                    if (to[k] != from[k])
                        bad = k;
                CHECK(bad == n, "%s: %zu bytes at offset %zu: byte %zu differs", paths[p], n, off,
                      bad);
                int guards_ok = 1;
                for (size_t k = 0; k < guard + shift; k++)
                    guards_ok &= dst[k] == 0xa5;
                for (size_t k = guard + shift + n; k < cap + 2 * guard; k++)
                    guards_ok &= dst[k] == 0xa5;
                CHECK(guards_ok, "%s: %zu bytes at offset %zu: written outside", paths[p], n, off);
                if (n > 10) { /* the middle of what was written, alone */
                    memset(dst, 0xa5, cap + 2 * guard);
                    s = clsort_buffer_read(ctx, buf, off + 3, dst, n - 7);
                    CHECK(s == CLSORT_SUCCESS && memcmp(dst, from + 3, n - 7) == 0 &&
                              dst[n - 7] == 0xa5,
                          "%s: part of %zu bytes at offset %zu", paths[p], n, off);
                }
            }
        /* bad arguments: an error, a message, nothing written */
        memset(dst, 0xa5, cap);
        clsort_status s = clsort_buffer_read(ctx, buf, cap - 3, dst, 4);
        CHECK(s == CLSORT_ERROR_INVALID_BUFFER && dst[0] == 0xa5 &&
                  strstr(clsort_context_last_error(ctx), "do not fit"),
              "%s: a read past the end: %s", paths[p], clsort_status_string(s));
        s = clsort_buffer_read(ctx, buf, SIZE_MAX, dst, 4);
        CHECK(s == CLSORT_ERROR_INVALID_BUFFER, "%s: an offset of SIZE_MAX: %s", paths[p],
              clsort_status_string(s));
        s = clsort_buffer_write(ctx, buf, 0, NULL, 8);
        CHECK(s == CLSORT_ERROR_INVALID_ARGUMENT, "%s: a NULL source: %s", paths[p],
              clsort_status_string(s));
        s = clsort_buffer_read(ctx, NULL, 0, dst, 8);
        CHECK(s == CLSORT_ERROR_INVALID_BUFFER && dst[0] == 0xa5, "%s: a NULL buffer: %s",
              paths[p], clsort_status_string(s));
        s = clsort_buffer_write(NULL, buf, 0, src, 8);
        CHECK(s == CLSORT_ERROR_INVALID_ARGUMENT, "%s: a NULL context: %s", paths[p],
              clsort_status_string(s));
        if (buf)
            clReleaseMemObject(buf);
        clsort_context_release(ctx);
    }
    free(src);
    free(dst);
}

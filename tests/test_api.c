/* test_api.c - status codes, devices, contexts, bad arguments, the program
 * cache and tuning specs. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <unistd.h>

#include "sortcheck.h"

void test_status_strings(void)
{
    CHECK(strstr(clsort_status_string(CLSORT_SUCCESS), "success"), "success string");
    CHECK(strstr(clsort_status_string(CLSORT_ERROR_INVALID_BITS), "INVALID_BITS"), "own code");
    CHECK(!strcmp(clsort_status_string(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES"), "CL code");
    CHECK(!strcmp(clsort_status_string(12345), "unknown status"), "unknown");
    CHECK(clsort_type_size(CLSORT_F64) == 8 && clsort_type_size((clsort_type)0) == 0, "sizes");
    CHECK(clsort_type_from_name("I16") == CLSORT_I16 && clsort_type_from_name("x") == 0, "names");
}

void test_device_list(void)
{
    size_t n = 0;
    clsort_status s = clsort_device_list(NULL, 0, &n);
    if (s == CLSORT_ERROR_NO_PLATFORM) {
        printf("SKIP: no OpenCL platform\n");
        exit(77);
    }
    CHECK(s == CLSORT_SUCCESS && n > 0, "device_list: %s", clsort_status_string(s));
    clsort_device_info d[16];
    s = clsort_device_list(d, 16, &n);
    CHECK(s == CLSORT_SUCCESS, "device_list");
    int defaults = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        defaults += d[i].is_default;
        CHECK(d[i].device_name[0] && d[i].compute_units > 0, "device %zu described", i);
    }
    CHECK(defaults == 1, "exactly one default device (%d)", defaults);
    CHECK(clsort_device_list(NULL, 4, &n) == CLSORT_ERROR_INVALID_ARGUMENT, "NULL array");
    /* the default is what a NULL device string picks: $CLSORT_DEVICE's */
    const char *env = getenv("CLSORT_DEVICE");
    char *saved = env ? strdup(env) : NULL;
    size_t last = (n < 16 ? n : 16) - 1;
    char sel[32];
    snprintf(sel, sizeof sel, "%u:%u", d[last].platform_index, d[last].device_index);
    setenv("CLSORT_DEVICE", sel, 1);
    CHECK(clsort_device_list(d, 16, &n) == CLSORT_SUCCESS && d[last].is_default,
          "CLSORT_DEVICE=%s marks that device the default", sel);
    setenv("CLSORT_DEVICE", "no-such-device-xyz", 1);
    CHECK(clsort_device_list(d, 16, &n) == CLSORT_SUCCESS, "device_list");
    for (size_t i = 0; i < n && i < 16; i++)
        CHECK(!d[i].is_default, "CLSORT_DEVICE matches no device, yet device %zu is the default", i);
    if (saved)
        setenv("CLSORT_DEVICE", saved, 1);
    else
        unsetenv("CLSORT_DEVICE");
    free(saved);
}

void test_context_selection(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    clsort_device_info info;
    CHECK_OK(ctx, clsort_context_device_info(ctx, &info));
    clsort_context_release(ctx);
    char sel[32];
    snprintf(sel, sizeof sel, "%u:%u", info.platform_index, info.device_index);
    const char *good[] = {sel, info.is_gpu ? "gpu" : "cpu", info.is_gpu ? "GPU" : "CPU", NULL};
    char part[8];
    snprintf(part, sizeof part, "%.4s", info.device_name);
    good[3] = part;
    for (int i = 0; i < 4; i++) {
        clsort_context *c = NULL;
        clsort_status s = clsort_context_create(&c, good[i]);
        CHECK(s == CLSORT_SUCCESS, "create '%s': %s %s", good[i], clsort_status_string(s),
              clsort_context_last_error(NULL));
        clsort_context_release(c);
    }
    clsort_context *c = (clsort_context *)0x1;
    clsort_status s = clsort_context_create(&c, "no-such-device-xyz");
    CHECK(s == CLSORT_ERROR_DEVICE_NOT_FOUND && c == NULL, "unknown device -> %s",
          clsort_status_string(s));
    const char *msg = clsort_context_last_error(NULL);
    CHECK(strstr(msg, "no-such-device-xyz") && strstr(msg, info.device_name),
          "the message lists the devices present: %s", msg);
    CHECK(clsort_context_create(&c, "99:99") == CLSORT_ERROR_DEVICE_NOT_FOUND, "99:99");
    CHECK(clsort_context_create(NULL, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "NULL out");
    /* $CLSORT_DEVICE picks the device when none is named */
    setenv("CLSORT_DEVICE", "no-such-device-xyz", 1);
    CHECK(clsort_context_create(&c, NULL) == CLSORT_ERROR_DEVICE_NOT_FOUND, "CLSORT_DEVICE used");
    setenv("CLSORT_DEVICE", sel, 1);
    CHECK(clsort_context_create(&c, NULL) == CLSORT_SUCCESS, "CLSORT_DEVICE=%s", sel);
    clsort_context_release(c);
    unsetenv("CLSORT_DEVICE");
    clsort_context_release(NULL);
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.reserved[3] = 1;
    CHECK(clsort_context_create_with_config(&c, &cfg) == CLSORT_ERROR_INVALID_OPTIONS,
          "reserved config fields");
}

void test_context_from_queue(void)
{
    char small_text[16] = "x";
    clsort_context *own = test_context(NULL);
    if (!own)
        return;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clsort_context_cl_context(own),
                                              clsort_context_device(own), 0, &err);
    CHECK(err == CL_SUCCESS, "queue");
    clsort_context *ctx = NULL;
    CHECK_OK(NULL, clsort_context_create_from_queue(&ctx, q, NULL));
    CHECK(clsort_context_queue(ctx) == q, "runs on the caller's queue");
    sort_case c;
    memset(&c, 0, sizeof c);
    c.type = CLSORT_U32;
    c.n = 100003;
    c.mode = CHECK_PAIRS;
    c.value_size = 4;
    c.seed = 42;
    sort_and_check_buffer(ctx, &c, 5, "from queue");
    /* profiling needs a queue with CL_QUEUE_PROFILING_ENABLE */
    CHECK(clsort_context_set_profiling(ctx, 1) == CLSORT_ERROR_INVALID_QUEUE,
          "profiling refused without a profiling queue");
    clsort_context_release(ctx);
    /* the caller's queue still works after the context is gone */
    CHECK(clFinish(q) == CL_SUCCESS, "queue alive");
    clReleaseCommandQueue(q);

    /* profiling: one line per kernel, and with CLSORT_PROFILE_LAUNCHES=1
     * one per command too; the records are cleared once reported */
    cl_command_queue pq = clCreateCommandQueue(clsort_context_cl_context(own),
                                               clsort_context_device(own),
                                               CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err == CL_SUCCESS, "profiling queue");
    if (err == CL_SUCCESS && clsort_context_create_from_queue(&ctx, pq, NULL) == CLSORT_SUCCESS) {
        char text[4096], small[8];
        CHECK(clsort_context_profile(ctx, text, sizeof text) == 0 && !text[0], "nothing recorded");
        CHECK_OK(ctx, clsort_context_set_profiling(ctx, 1));
        c.seed = 43;
        sort_and_check_buffer(ctx, &c, 5, "profiled");
        setenv("CLSORT_PROFILE_LAUNCHES", "1", 1);
        size_t len = clsort_context_profile(ctx, text, sizeof text);
        unsetenv("CLSORT_PROFILE_LAUNCHES");
        CHECK(len > 0 && len == strlen(text), "profile length %zu", len);
        CHECK(strstr(text, "clsort_") && strstr(text, " ms\n"), "a kernel's line: %s", text);
        CHECK(strstr(text, "  #0 ") && strstr(text, "after the one before"), "launch lines: %s",
              text);
        CHECK(clsort_context_profile(ctx, text, sizeof text) == 0, "records cleared");
        sort_and_check_buffer(ctx, &c, 5, "profiled again");
        len = clsort_context_profile(ctx, small, sizeof small);
        CHECK(len >= sizeof small && strlen(small) == sizeof small - 1, "truncated report");
        CHECK_OK(ctx, clsort_context_set_profiling(ctx, 0));
        sort_and_check_buffer(ctx, &c, 5, "not profiled");
        CHECK(clsort_context_profile(ctx, text, sizeof text) == 0, "profiling off records nothing");
        clsort_context_release(ctx);
    }
    if (err == CL_SUCCESS)
        clReleaseCommandQueue(pq);
    CHECK(clsort_context_profile(NULL, small_text, sizeof small_text) == 0 && !small_text[0],
          "NULL context");
    CHECK(clsort_context_set_profiling(NULL, 1) == CLSORT_ERROR_INVALID_ARGUMENT, "NULL context");
    CHECK(clsort_context_create_from_queue(&ctx, NULL, NULL) == CLSORT_ERROR_INVALID_QUEUE,
          "NULL queue");
    cl_command_queue ooo = clCreateCommandQueue(clsort_context_cl_context(own),
                                                clsort_context_device(own),
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err == CL_SUCCESS) {
        CHECK(clsort_context_create_from_queue(&ctx, ooo, NULL) == CLSORT_ERROR_INVALID_QUEUE,
              "out-of-order queue refused");
        clReleaseCommandQueue(ooo);
    }
    clsort_context_release(own);
}

/* Every error path returns its status and leaves the data as it was. */
void test_bad_arguments(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    enum { N = 1000 };
    uint32_t keys[N], copy[N], vals[N], vcopy[N];
    uint64_t idx[N];
    data_fill(keys, CLSORT_U32, N, DATA_UNIFORM, 7);
    for (int i = 0; i < N; i++)
        vals[i] = (uint32_t)i;
    memcpy(copy, keys, sizeof keys);
    memcpy(vcopy, vals, sizeof vals);
    memset(idx, 0x77, sizeof idx);
    clsort_options o;
    memset(&o, 0, sizeof o);
#define EXPECT(call, status)                                                                   \
    do {                                                                                       \
        clsort_status s_ = (call);                                                             \
        CHECK(s_ == (status), "%s -> %s, expected %s", #call, clsort_status_string(s_),        \
              clsort_status_string(status));                                                   \
        CHECK(s_ == CLSORT_SUCCESS || clsort_context_last_error(ctx)[0], "%s has a message",    \
              #call);                                                                          \
        CHECK(!memcmp(keys, copy, sizeof keys) && !memcmp(vals, vcopy, sizeof vals),           \
              "%s changed the data", #call);                                                   \
    } while (0)
    CHECK(clsort_sort_keys(NULL, CLSORT_U32, keys, N, NULL) == CLSORT_ERROR_INVALID_ARGUMENT,
          "NULL context");
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, NULL, N, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_sort_keys(ctx, (clsort_type)0, keys, N, NULL), CLSORT_ERROR_UNSUPPORTED_TYPE);
    EXPECT(clsort_sort_keys(ctx, (clsort_type)42, keys, N, NULL), CLSORT_ERROR_UNSUPPORTED_TYPE);
    o.begin_bit = 5, o.end_bit = 5;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, keys, N, &o), CLSORT_ERROR_INVALID_BITS);
    o.begin_bit = 0, o.end_bit = 33;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, keys, N, &o), CLSORT_ERROR_INVALID_BITS);
    o.begin_bit = 9, o.end_bit = 0;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U8, keys, N, &o), CLSORT_ERROR_INVALID_BITS);
    memset(&o, 0, sizeof o);
    o.radix_bits = 13;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, keys, N, &o), CLSORT_ERROR_INVALID_OPTIONS);
    memset(&o, 0, sizeof o);
    o.algorithm = (clsort_algorithm)7;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, keys, N, &o), CLSORT_ERROR_INVALID_OPTIONS);
    memset(&o, 0, sizeof o);
    o.reserved[0] = 1;
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, keys, N, &o), CLSORT_ERROR_INVALID_OPTIONS);
    EXPECT(clsort_sort_pairs(ctx, CLSORT_U32, keys, NULL, 4, N, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_sort_pairs(ctx, CLSORT_U32, keys, vals, 0, N, NULL), CLSORT_ERROR_UNSUPPORTED_VALUE_SIZE);
    EXPECT(clsort_sort_pairs(ctx, CLSORT_U32, keys, vals, 70000, N, NULL), CLSORT_ERROR_UNSUPPORTED_VALUE_SIZE);
    EXPECT(clsort_sort_pairs(ctx, CLSORT_U32, keys, keys + 10, 4, N, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_argsort(ctx, CLSORT_U32, keys, N, CLSORT_I32, idx, NULL), CLSORT_ERROR_UNSUPPORTED_TYPE);
    EXPECT(clsort_argsort(ctx, CLSORT_U32, keys, N, CLSORT_U64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_argsort(ctx, CLSORT_U32, keys, (size_t)1 << 32, CLSORT_U32, idx, NULL), CLSORT_ERROR_TOO_LARGE);
    for (int i = 0; i < N; i++)
        CHECK(idx[i] == 0x7777777777777777ull, "indices untouched");
    /* n too large for the device */
    EXPECT(clsort_sort_keys(ctx, CLSORT_U64, keys, SIZE_MAX / 16, NULL), CLSORT_ERROR_TOO_LARGE);
    /* n = 0 and NULL is fine */
    EXPECT(clsort_sort_keys(ctx, CLSORT_U32, NULL, 0, NULL), CLSORT_SUCCESS);

    /* device buffers */
    cl_int err;
    cl_mem small = clCreateBuffer(clsort_context_cl_context(ctx), CL_MEM_READ_WRITE, 400, NULL, &err);
    CHECK(err == CL_SUCCESS, "buffer");
    EXPECT(clsort_sort_keys_buffer(ctx, CLSORT_U32, small, 0, 101, NULL, 0, NULL, NULL),
           CLSORT_ERROR_INVALID_BUFFER);
    EXPECT(clsort_sort_keys_buffer(ctx, CLSORT_U32, small, 90, 20, NULL, 0, NULL, NULL),
           CLSORT_ERROR_INVALID_BUFFER);
    EXPECT(clsort_sort_keys_buffer(ctx, CLSORT_U32, NULL, 0, 10, NULL, 0, NULL, NULL),
           CLSORT_ERROR_INVALID_BUFFER);
    EXPECT(clsort_sort_keys_buffer(ctx, CLSORT_U32, small, 0, 10, NULL, 1, NULL, NULL),
           CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_sort_pairs_buffer(ctx, CLSORT_U32, small, 0, small, 20, 4, 40, NULL, 0, NULL, NULL),
           CLSORT_ERROR_INVALID_ARGUMENT);
    EXPECT(clsort_argsort_buffer(ctx, CLSORT_U32, small, 0, 50, CLSORT_U32, small, 40, NULL, 0, NULL, NULL),
           CLSORT_ERROR_INVALID_ARGUMENT);
    /* a buffer of another OpenCL context */
    cl_context other = clCreateContext(NULL, 1, (cl_device_id[]){clsort_context_device(ctx)}, NULL,
                                       NULL, &err);
    if (err == CL_SUCCESS) {
        cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 400, NULL, &err);
        EXPECT(clsort_sort_keys_buffer(ctx, CLSORT_U32, foreign, 0, 10, NULL, 0, NULL, NULL),
               CLSORT_ERROR_INVALID_BUFFER);
        clReleaseMemObject(foreign);
        clReleaseContext(other);
    }
    size_t bytes = 1;
    EXPECT(clsort_temp_size(ctx, CLSORT_U32, 0, 1000000, NULL, &bytes), CLSORT_SUCCESS);
    CHECK(bytes >= 4000000, "temp size covers the double buffer (%zu)", bytes);
    EXPECT(clsort_temp_size(ctx, CLSORT_U32, 0, 1000000, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(small);
#undef EXPECT
    clsort_context_release(ctx);
}

/* A damaged cache file never makes a sort fail: it is detected, removed
 * and rewritten. */
/* An exclusive scan of 5000 u32 checked on the host: the smallest program
 * (PoCL compiles every kernel of a program to give its binary: seconds for
 * the scan's, about 25 s for a radix sort's on 2 cores). */
static void scan_and_check(clsort_context *ctx, const char *what)
{
    enum { N = 5000 };
    static uint32_t in[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        in[i] = i * 2654435761u >> 20;
    CHECK_OK(ctx, clsort_scan(ctx, CLSORT_U32, in, out, N, 0));
    uint32_t sum = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (out[i] != sum) {
            CHECK(0, "%s: scan element %u is %u, expected %u", what, i, out[i], sum);
            return;
        }
        sum += in[i];
    }
}

void test_cache_damaged(void)
{
    /* With PoCL's own kernel cache on, clsort stores no program binaries
     * on PoCL; turned off (before the first OpenCL call of this process),
     * it does, on every device. */
    setenv("POCL_KERNEL_CACHE", "0", 1);
    char dir[] = "/tmp/clsort-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail(__FILE__, __LINE__, "mkdtemp");
        return;
    }
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = getenv("CLSORT_TEST_DEVICE");
    cfg.cache_dir = dir;
    sort_case c;
    memset(&c, 0, sizeof c);
    c.type = CLSORT_U32;
    c.n = 5000;
    c.mode = CHECK_KEYS;
    c.seed = 3;
    for (int round = 0; round < 4; round++) {
        clsort_context *ctx = NULL;
        clsort_status s = clsort_context_create_with_config(&ctx, &cfg);
        if (s == CLSORT_ERROR_NO_PLATFORM)
            exit(77);
        CHECK_OK(NULL, s);
        scan_and_check(ctx, "cache round");
        clsort_context_release(ctx);
        /* damage every program file: truncate, then garbage, then a
         * different key inside a valid-looking header */
        DIR *d = opendir(dir);
        struct dirent *e;
        int files = 0;
        while (d && (e = readdir(d))) {
            if (!strstr(e->d_name, ".clbin"))
                continue;
            files++;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (round == 0) {
                CHECK(truncate(path, 20) == 0, "truncate");
            } else if (round == 1) {
                FILE *f = fopen(path, "wb");
                fputs("this is not a program binary", f);
                fclose(f);
            } else if (round == 2) {
                FILE *f = fopen(path, "r+b");
                fseek(f, 40, SEEK_SET);
                fputc('X', f); /* inside the key or binary: checksum fails */
                fclose(f);
            }
        }
        if (d)
            closedir(d);
        CHECK(files > 0, "round %d: the cache holds program files", round);
    }
    /* the cache can also be off */
    cfg.cache_dir = "";
    clsort_context *ctx = NULL;
    CHECK_OK(NULL, clsort_context_create_with_config(&ctx, &cfg));
    scan_and_check(ctx, "no cache");
    sort_and_check(ctx, &c, "no cache");
    clsort_context_release(ctx);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

void test_tuning_spec(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    char before[1024], after[1024];
    clsort_context_get_tuning(ctx, before, sizeof before);
    CHECK(strstr(before, "radix_bits="), "tuning text: %s", before);
    /* the table's rows by core count: PoCL's 11-bit digits (large_min) only
     * below 8 compute units */
    clsort_device_info info;
    CHECK(clsort_context_device_info(ctx, &info) == CLSORT_SUCCESS, "device info");
    if (info.is_cpu && strstr(info.platform_name, "Portable Computing Language") &&
        !getenv("CLSORT_TUNING")) {
        const char *lm = strstr(before, "large_min=");
        CHECK(lm, "large_min in %s", before);
        if (lm)
            CHECK((strtoul(lm + 10, NULL, 10) == 0) == (info.compute_units >= 8),
                  "PoCL row for %u compute units: %s", info.compute_units, before);
    }
    CHECK(clsort_context_set_tuning(ctx, "radix_bits=4,algorithm=classic") == CLSORT_SUCCESS,
          "set: %s", clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "radix_bits=4") && strstr(after, "algorithm=classic"), "applied: %s", after);
    CHECK(clsort_context_set_tuning(ctx, "bogus=1") == CLSORT_ERROR_INVALID_TUNING, "unknown key");
    CHECK(strstr(clsort_context_last_error(ctx), "bogus"), "message names the key");
    CHECK(clsort_context_set_tuning(ctx, "radix_bits=99") == CLSORT_ERROR_INVALID_TUNING, "range");
    CHECK(clsort_context_set_tuning(ctx, "os_wg=100000") == CLSORT_ERROR_INVALID_TUNING, "limit");
    CHECK(clsort_context_set_tuning(ctx, "os_rank=serial,os_wg=64") == CLSORT_ERROR_INVALID_TUNING,
          "serial needs one work-item");
    /* the warp rankings by name: NVIDIA only, in warps (os_wg 48 is refused
     * everywhere, for one reason or the other) */
    CHECK(clsort_context_set_tuning(ctx, "os_rank=atomic_or,os_wg=48") ==
              CLSORT_ERROR_INVALID_TUNING, "atomic_or with 48 work-items");
    CHECK(strstr(clsort_context_last_error(ctx), "os_rank=atomic_or"), "message names the rank: %s",
          clsort_context_last_error(ctx));
    /* the pairs' ranking: a name or "same", and only between warp rankings */
    CHECK(clsort_context_set_tuning(ctx, "os_rank_pairs=bogus") == CLSORT_ERROR_INVALID_TUNING,
          "pairs rank by name");
    CHECK(clsort_context_set_tuning(ctx, "os_rank=local,os_wg=64,os_rank_pairs=ballot") ==
              CLSORT_ERROR_INVALID_TUNING, "pairs rank needs a warp ranking");
    CHECK(strstr(clsort_context_last_error(ctx), "os_rank_pairs"), "message names the key: %s",
          clsort_context_last_error(ctx));
    /* naming the ranking alone means it for pairs too */
    CHECK(clsort_context_set_tuning(ctx, "os_rank=local,os_wg=64,os_items=8") == CLSORT_SUCCESS,
          "local: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "os_rank_pairs=same"), "pairs follow os_rank: %s", after);
    CHECK(strstr(after, "os_wg_wide=0") && strstr(after, "os_items_wide=0"),
          "8-byte keys follow os_wg and os_items: %s", after);
    /* the large keys' shape is checked as the main one, and named */
    /* (values the keys accept, which only the shape's check refuses: a
     * local-ranked tile of 64 x 1025 keys; the error names the shape, which
     * the spec it echoes does not) */
    CHECK(clsort_context_set_tuning(ctx, "big_min=5000,big_items=1025") ==
              CLSORT_ERROR_INVALID_TUNING,
          "big tile above 65536 keys");
    CHECK(strstr(clsort_context_last_error(ctx), "(keys alone from big_min=5000)"),
          "message names the large keys' shape: %s", clsort_context_last_error(ctx));
    /* setting os_wg alone resets os_wg_wide and big_wg, os_items alone
     * os_items_wide and big_items (big_min stays) */
    CHECK(clsort_context_set_tuning(ctx, "os_wg_wide=32,os_items_wide=8,big_min=5000,big_wg=96,"
                                         "big_items=12") == CLSORT_SUCCESS,
          "wide: %s", clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "os_wg=64") == CLSORT_SUCCESS, "os_wg: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "os_wg_wide=0") && strstr(after, "os_items_wide=8") &&
              strstr(after, "big_wg=0") && strstr(after, "big_items=12") &&
              strstr(after, "big_min=5000"),
          "os_wg resets: %s", after);
    CHECK(clsort_context_set_tuning(ctx, "os_items=8") == CLSORT_SUCCESS, "os_items: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "os_items_wide=0") && strstr(after, "big_items=0"), "os_items resets: %s",
          after);
    /* the large pairs' shape: checked and named; os_wg or os_wg_pairs
     * alone resets big_wg_pairs, os_items_pairs alone big_items_pairs */
    CHECK(clsort_context_set_tuning(ctx, "big_min_pairs=5000,big_items_pairs=1025") ==
              CLSORT_ERROR_INVALID_TUNING,
          "big pairs tile above 65536 keys");
    CHECK(strstr(clsort_context_last_error(ctx), "(pairs from big_min_pairs=5000)"),
          "message names the large pairs' shape: %s", clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "os_items_pairs=1025") == CLSORT_ERROR_INVALID_TUNING,
          "pairs tile above 65536 keys");
    CHECK(clsort_context_set_tuning(ctx, "big_min_pairs=5000,big_wg_pairs=96,big_items_pairs=6") ==
              CLSORT_SUCCESS,
          "big pairs: %s", clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "os_items_pairs=4") == CLSORT_SUCCESS, "os_items_pairs: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "big_items_pairs=0") && strstr(after, "big_wg_pairs=96") &&
              strstr(after, "big_min_pairs=5000"),
          "os_items_pairs resets big_items_pairs only: %s", after);
    static const char *const wg_resets[] = {"os_wg_pairs=32", "os_wg=64"};
    for (int i = 0; i < 2; i++) {
        CHECK(clsort_context_set_tuning(ctx, "big_wg_pairs=96") == CLSORT_SUCCESS,
              "big_wg_pairs: %s", clsort_context_last_error(ctx));
        CHECK(clsort_context_set_tuning(ctx, wg_resets[i]) == CLSORT_SUCCESS, "%s: %s",
              wg_resets[i], clsort_context_last_error(ctx));
        clsort_context_get_tuning(ctx, after, sizeof after);
        CHECK(strstr(after, "big_wg_pairs=0"), "%s resets big_wg_pairs: %s", wg_resets[i], after);
    }
    /* lb_batch alone resets lb_batch_pairs; the list ends with every key */
    CHECK(clsort_context_set_tuning(ctx, "lb_batch_pairs=3") == CLSORT_SUCCESS, "lb pairs: %s",
          clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "lb_batch=4") == CLSORT_SUCCESS, "lb: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, ",lb_batch=4,lb_batch_pairs=0"), "lb_batch resets: %s", after);
    CHECK(clsort_context_set_tuning(ctx, "lb_batch=33") == CLSORT_ERROR_INVALID_TUNING,
          "lb_batch above 32");
    CHECK(strstr(clsort_tuning_keys(), "\nlb_batch_pairs "), "last keys listed");
    /* os_persist alone resets os_persist_wide */
    CHECK(clsort_context_set_tuning(ctx, "os_persist_wide=3") == CLSORT_SUCCESS, "persist: %s",
          clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "os_persist=2") == CLSORT_SUCCESS, "persist: %s",
          clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, ",os_persist=2,os_persist_wide=0"), "os_persist resets: %s", after);
    CHECK(strstr(clsort_tuning_keys(), "\nos_persist_wide "), "persist keys listed");
    /* a fault of the main shape is reported as such, not as the wide one's */
    CHECK(clsort_context_set_tuning(ctx, "os_items_wide=8") == CLSORT_SUCCESS, "wide items: %s",
          clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "os_rank=serial,os_wg=64") == CLSORT_ERROR_INVALID_TUNING,
          "serial with 64 work-items");
    CHECK(!strstr(clsort_context_last_error(ctx), "os_items_wide"), "blames the main shape: %s",
          clsort_context_last_error(ctx));
    /* the shape of 8-byte keys is checked as the main one */
    CHECK(clsort_context_set_tuning(ctx, "os_rank=serial,os_wg=1,os_items=64,os_wg_wide=64") ==
              CLSORT_ERROR_INVALID_TUNING, "serial shape with 64 work-items for 8-byte keys");
    CHECK(strstr(clsort_context_last_error(ctx), "os_wg_wide=64"), "message names the key: %s",
          clsort_context_last_error(ctx));
    CHECK(clsort_context_set_tuning(ctx, "radix_bits=4,algorithm=classic") == CLSORT_SUCCESS,
          "back: %s", clsort_context_last_error(ctx));
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(strstr(after, "radix_bits=4"), "a failed set changes nothing: %s", after);
    CHECK(strstr(after, "os_rank_pairs="), "pairs rank listed: %s", after);
    CHECK(clsort_context_set_tuning(ctx, NULL) == CLSORT_SUCCESS, "restore");
    clsort_context_get_tuning(ctx, after, sizeof after);
    CHECK(!strcmp(before, after), "restored: %s vs %s", before, after);
    CHECK(strstr(clsort_tuning_keys(), "os_items"), "keys listed");
    clsort_context_release(ctx);
    /* a bad spec in the environment fails context creation with a message */
    setenv("CLSORT_TUNING", "radix_bits=0", 1);
    clsort_context *c = NULL;
    CHECK(clsort_context_create(&c, getenv("CLSORT_TEST_DEVICE")) == CLSORT_ERROR_INVALID_TUNING,
          "bad CLSORT_TUNING");
    unsetenv("CLSORT_TUNING");
}

/* Index and size logic for inputs too large to allocate here. */
void test_index_logic(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    size_t bytes = 0;
    /* 2^32 + 5 one-byte keys: the temporary size is computed with 64-bit
     * indices and at least covers the second buffer. */
    size_t n = ((size_t)1 << 32) + 5;
    clsort_status s = clsort_temp_size(ctx, CLSORT_U8, 0, n, NULL, &bytes);
    if (s == CLSORT_SUCCESS)
        CHECK(bytes >= n, "temp for 2^32+5 u8 keys: %zu", bytes);
    else
        CHECK(s == CLSORT_ERROR_TOO_LARGE, "temp_size: %s", clsort_status_string(s));
    uint8_t dummy[4] = {0};
    uint32_t idx[4];
    CHECK(clsort_argsort(ctx, CLSORT_U8, dummy, n, CLSORT_U32, idx, NULL) == CLSORT_ERROR_TOO_LARGE,
          "u32 indices refuse n >= 2^32");
    CHECK(strstr(clsort_context_last_error(ctx), "CLSORT_U64"), "message suggests U64");
    clsort_context_release(ctx);
}

/* cli_test.c - tests of the `clsort sort` command. Runs the clsort binary on
 * files written here and checks its outputs against a reference computed
 * here: a stable merge sort of positions with a comparator written from
 * the order documented in clsort.h (numeric order; for floats NaN last and
 * -0.0 == +0.0; bit windows over the order-preserving image), never from
 * the tool's code. Also checks every error path's message and exit status,
 * and that a failure leaves no file behind and existing outputs untouched.
 *
 * usage: cli_test CLSORT_BINARY WORK_FOLDER TEST
 * Exits 0 (pass), 1 (fail) or 77 (skipped: no OpenCL platform). */
#define _XOPEN_SOURCE 700
#define _FILE_OFFSET_BITS 64
#include <clsort.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "data.h"

static const char *tool; /* the clsort binary */
static char work[4096];  /* this test's folder, emptied at the start */
static int failures;
static char err_text[65536]; /* the last run's stderr */
static char out_text[65536]; /* and its stdout */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL (%s:%d): ", __FILE__, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------- files */

static const char *path_of(const char *name)
{
    static char buf[8][4200];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", work, name);
    return buf[k];
}

static void write_file(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path_of(name), strerror(errno));
        exit(1);
    }
}

/* The whole file (NULL if missing); *len its size. */
static unsigned char *read_file(const char *name, size_t *len)
{
    FILE *f = fopen(path_of(name), "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)sz + 1);
    if (!d || fread(d, 1, (size_t)sz, f) != (size_t)sz) {
        fprintf(stderr, "cannot read %s\n", name);
        exit(1);
    }
    fclose(f);
    *len = (size_t)sz;
    return d;
}

static void empty_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            empty_folder(p);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
}

/* Checks that the folder holds exactly the names listed (NULL-terminated):
 * no temporary left behind. */
static void check_folder(const char *sub, const char *const *names, int line)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s%s%s", work, sub ? "/" : "", sub ? sub : "");
    DIR *d = opendir(dir);
    if (!d) {
        CHECK(0, "line %d: cannot list %s", line, dir);
        return;
    }
    struct dirent *e;
    size_t want = 0, seen = 0;
    while (names[want])
        want++;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int listed = 0;
        for (size_t i = 0; i < want; i++)
            listed |= !strcmp(names[i], e->d_name);
        CHECK(listed, "line %d: unexpected file %s/%s left behind", line, dir, e->d_name);
        seen += listed;
    }
    closedir(d);
    CHECK(seen == want, "line %d: %zu of %zu expected files in %s", line, seen, want, dir);
}
#define CHECK_FOLDER(sub, ...)                                                                     \
    do {                                                                                           \
        const char *const names_[] = {__VA_ARGS__, NULL};                                          \
        check_folder(sub, names_, __LINE__);                                                       \
    } while (0)

/* ------------------------------------------------------- running clsort */

static const char *child_chunk_env; /* CLSORT_SORT_CHUNK_BYTES for the child */
static const char *child_device_memory; /* CLSORT_DEVICE_MEMORY for the child */
static rlim_t child_fsize;          /* RLIMIT_FSIZE for the child (0: none) */

static void slurp(const char *file, char *buf, size_t cap)
{
    FILE *f = fopen(file, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Runs `clsort ARGS`, the words of a printf format split at spaces, with
 * file names relative to the test folder (the child runs there). Returns
 * the exit status (128 + signal if killed); stderr lands in err_text. */
static int clsort(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int clsort(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)tool;
    for (char *tok = strtok(line, " "); tok && argc < 63; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    char so[4400], se[4400];
    snprintf(so, sizeof so, "%s/../%s.stdout", work, strrchr(work, '/') + 1);
    snprintf(se, sizeof se, "%s/../%s.stderr", work, strrchr(work, '/') + 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        if (chdir(work) != 0 || !freopen(so, "wb", stdout) || !freopen(se, "wb", stderr))
            _exit(126);
        if (child_chunk_env)
            setenv("CLSORT_SORT_CHUNK_BYTES", child_chunk_env, 1);
        else
            unsetenv("CLSORT_SORT_CHUNK_BYTES");
        if (child_device_memory)
            setenv("CLSORT_DEVICE_MEMORY", child_device_memory, 1);
        if (child_fsize) {
            struct rlimit rl = {child_fsize, child_fsize};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(tool, argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    slurp(so, out_text, sizeof out_text);
    slurp(se, err_text, sizeof err_text);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A run that must succeed silently (stderr is no terminal: no progress). */
#define RUN_OK(...)                                                                                \
    do {                                                                                           \
        int rc_ = clsort(__VA_ARGS__);                                                             \
        CHECK(rc_ == 0 && !err_text[0], "clsort sort failed (%d): %s", rc_, err_text);             \
    } while (0)

/* A run that must fail with this status and message. */
#define RUN_FAILS(code, text, ...)                                                                 \
    do {                                                                                           \
        int rc_ = clsort(__VA_ARGS__);                                                             \
        CHECK(rc_ == (code) && strstr(err_text, (text)) && strstr(err_text, "clsort sort: "),      \
              "expected exit %d with '%s', got %d: %s", code, text, rc_, err_text);                \
    } while (0)

/* ------------------------------------------------------------ reference */

typedef struct ref_order {
    clsort_type type;
    const unsigned char *keys;
    size_t bytes;
    int window;
    unsigned begin, end;
    int descending;
} ref_order;

static int is_signed_type(clsort_type t)
{
    return t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64;
}

static uint64_t raw_bits(const ref_order *o, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, o->keys + i * o->bytes, o->bytes); /* little-endian host */
    return v;
}

static double float_value(const ref_order *o, size_t i)
{
    if (o->type == CLSORT_F32) {
        float f;
        memcpy(&f, o->keys + 4 * i, 4);
        return f;
    }
    double d;
    memcpy(&d, o->keys + 8 * i, 8);
    return d;
}

static int64_t signed_value(const ref_order *o, size_t i)
{
    switch (o->type) {
    case CLSORT_I8: {
        int8_t v;
        memcpy(&v, o->keys + i, 1);
        return v;
    }
    case CLSORT_I16: {
        int16_t v;
        memcpy(&v, o->keys + 2 * i, 2);
        return v;
    }
    case CLSORT_I32: {
        int32_t v;
        memcpy(&v, o->keys + 4 * i, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, o->keys + 8 * i, 8);
        return v;
    }
    }
}

/* The order-preserving image, by arithmetic from the definition. */
static uint64_t ref_image(const ref_order *o, size_t i)
{
    unsigned w = (unsigned)(8 * o->bytes);
    uint64_t half = UINT64_C(1) << (w - 1);
    uint64_t all = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    uint64_t v = raw_bits(o, i);
    if (is_signed_type(o->type))
        return ((uint64_t)signed_value(o, i) + half) & all;
    if (o->type == CLSORT_F32 || o->type == CLSORT_F64) {
        double x = float_value(o, i);
        if (isnan(x))
            return all;
        if (x == 0)
            return half;
        uint64_t magnitude = v & (half - 1);
        return x > 0 ? half + magnitude : half - 1 - magnitude;
    }
    return v;
}

static int ref_cmp(const ref_order *o, size_t i, size_t j)
{
    int c;
    if (o->window) {
        unsigned w = o->end - o->begin;
        uint64_t m = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
        uint64_t a = (ref_image(o, i) >> o->begin) & m, b = (ref_image(o, j) >> o->begin) & m;
        c = (a > b) - (a < b);
    } else if (o->type == CLSORT_F32 || o->type == CLSORT_F64) {
        double x = float_value(o, i), y = float_value(o, j);
        if (isnan(x) || isnan(y))
            c = isnan(x) == isnan(y) ? 0 : isnan(x) ? 1 : -1;
        else
            c = (x > y) - (x < y); /* -0.0 == +0.0 */
    } else if (is_signed_type(o->type)) {
        int64_t x = signed_value(o, i), y = signed_value(o, j);
        c = (x > y) - (x < y);
    } else {
        uint64_t x = raw_bits(o, i), y = raw_bits(o, j);
        c = (x > y) - (x < y);
    }
    return o->descending ? -c : c;
}

static void merge_sort(const ref_order *o, size_t *a, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(o, a, tmp, h);
    merge_sort(o, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = ref_cmp(o, a[j], a[i]) < 0 ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

/* The stable sorting permutation. bits: "" or "B:E". */
static size_t *ref_perm(clsort_type type, const void *keys, size_t n, const char *bits,
                        int descending)
{
    ref_order o = {type, keys, clsort_type_size(type), 0, 0, 0, descending};
    if (bits && *bits && sscanf(bits, "%u:%u", &o.begin, &o.end) == 2)
        o.window = 1;
    size_t *p = malloc((n + 1) * sizeof *p), *t = malloc((n + 1) * sizeof *t);
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    merge_sort(&o, p, t, n);
    free(t);
    return p;
}

/* Checks out[i] == in[perm[i]], size bytes each, over n elements. */
static void check_gather(const char *what, const unsigned char *in, const unsigned char *out,
                         size_t outlen, const size_t *perm, size_t n, size_t size)
{
    if (!out) {
        CHECK(0, "%s: output missing", what);
        return;
    }
    CHECK(outlen == n * size, "%s: %zu bytes, expected %zu", what, outlen, n * size);
    if (outlen != n * size)
        return;
    for (size_t i = 0; i < n; i++)
        if (memcmp(out + i * size, in + perm[i] * size, size)) {
            CHECK(0, "%s: element %zu differs (expected input %zu)", what, i, perm[i]);
            return;
        }
}

static void check_perm_file(const char *what, const unsigned char *out, size_t outlen,
                            const size_t *perm, size_t n, size_t isize)
{
    if (!out) {
        CHECK(0, "%s: output missing", what);
        return;
    }
    CHECK(outlen == n * isize, "%s: %zu bytes, expected %zu", what, outlen, n * isize);
    if (outlen != n * isize)
        return;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        memcpy(&v, out + i * isize, isize);
        if (v != perm[i]) {
            CHECK(0, "%s: entry %zu is %llu, expected %zu", what, i, (unsigned long long)v,
                  perm[i]);
            return;
        }
    }
}

/* ------------------------------------------------------------- .npy */

/* Writes a .npy file with format version ver (1, 2, 3) and the given
 * header dictionary text, padded as NumPy pads it. */
static void write_npy_dict(const char *name, int ver, const char *dict, const void *data,
                           size_t len)
{
    size_t pre = ver == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64;
    unsigned char *buf = malloc(total + len);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)ver;
    buf[7] = 0;
    size_t hl = total - pre;
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    if (ver != 1) {
        buf[10] = (unsigned char)(hl >> 16);
        buf[11] = (unsigned char)(hl >> 24);
    }
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', total - pre - dl - 1);
    buf[total - 1] = '\n';
    if (len)
        memcpy(buf + total, data, len);
    write_file(name, buf, total + len);
    free(buf);
}

static void write_npy(const char *name, int ver, const char *descr, const void *data, size_t n,
                      size_t size)
{
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr,
             n);
    write_npy_dict(name, ver, dict, data, n * size);
}

/* Reads a .npy output: checks magic, version 1.0, 64-byte alignment, the
 * descr and shape; returns its data (*len bytes). */
static unsigned char *read_npy(const char *name, const char *descr, size_t n, size_t *len)
{
    size_t flen;
    unsigned char *d = read_file(name, &flen);
    if (!d) {
        CHECK(0, "%s missing", name);
        return NULL;
    }
    if (flen < 10 || memcmp(d, "\x93NUMPY\x01\x00", 8)) {
        CHECK(0, "%s: not a version 1.0 .npy file", name);
        free(d);
        return NULL;
    }
    size_t hl = d[8] | (size_t)d[9] << 8;
    CHECK((10 + hl) % 64 == 0 && 10 + hl <= flen && d[10 + hl - 1] == '\n', "%s: header layout",
          name);
    char want[128];
    snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr,
             n);
    CHECK(hl >= strlen(want) && !memcmp(d + 10, want, strlen(want)), "%s: header is %.*s", name,
          (int)hl, (const char *)d + 10);
    *len = flen - 10 - hl;
    unsigned char *out = malloc(*len + 1);
    memcpy(out, d + 10 + hl, *len);
    free(d);
    return out;
}

/* ------------------------------------------------------------- data */

/* n keys of the type: specials, few distinct values or narrow ranges, so
 * that ties (stability) and the float order are exercised. */
static unsigned char *make_keys(clsort_type t, size_t n, uint64_t seed)
{
    size_t ks = clsort_type_size(t);
    unsigned char *k = malloc(n * ks + 1);
    data_dist dists[] = {DATA_SPECIALS, DATA_FEW_UNIQUE, DATA_NARROW_8, DATA_UNIFORM};
    data_dist d = dists[seed % 4];
    data_fill(k, t, n, d, seed);
    if (t == CLSORT_F32 || t == CLSORT_F64) {
        /* More ties: -0.0/+0.0 and NaNs of both signs with payloads. */
        data_rng r = {seed};
        for (size_t i = 0; i < n; i += 1 + data_next(&r) % 7) {
            uint64_t pick = data_next(&r) % 6;
            if (t == CLSORT_F32) {
                const uint32_t sp[6] = {0x80000000u, 0,           0x7fc00001u,
                                        0xffc00000u, 0x7f800001u, 0x3f800000u};
                memcpy(k + 4 * i, &sp[pick], 4);
            } else {
                const uint64_t sp[6] = {UINT64_C(0x8000000000000000), 0,
                                        UINT64_C(0x7ff8000000000001), UINT64_C(0xfff8000000000000),
                                        UINT64_C(0x7ff0000000000001), UINT64_C(0x3ff0000000000000)};
                memcpy(k + 8 * i, &sp[pick], 8);
            }
        }
    }
    return k;
}

/* n values of size bytes, each naming its position. */
static unsigned char *make_values(size_t n, size_t size, uint64_t seed)
{
    unsigned char *v = malloc(n * size + 1);
    data_fill_values(v, size, n, seed);
    return v;
}

static const clsort_type all_types[10] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64,
                                          CLSORT_I8,  CLSORT_I16, CLSORT_I32, CLSORT_I64,
                                          CLSORT_F32, CLSORT_F64};

/* Sorts keys (written raw as in.bin) with the given extra options and
 * checks OUT (and --argsort, --values-out when asked) against the
 * reference. vsize 0: no values; isize 0: no permutation. */
static void check_sort(clsort_type t, size_t n, uint64_t seed, size_t vsize, size_t isize,
                       const char *bits, int descending, const char *extra)
{
    size_t ks = clsort_type_size(t);
    unsigned char *keys = make_keys(t, n, seed);
    unsigned char *vals = vsize ? make_values(n, vsize, seed) : NULL;
    write_file("in.bin", keys, n * ks);
    if (vals)
        write_file("vals.bin", vals, n * vsize);
    char opts[512];
    snprintf(opts, sizeof opts, "%s%s%s%s%s", descending ? " --descending" : "",
             bits && *bits ? " --bits " : "", bits && *bits ? bits : "", extra ? " " : "",
             extra ? extra : "");
    char vopt[128] = "", iopt[128] = "";
    if (vsize)
        snprintf(vopt, sizeof vopt, " --values vals.bin --value-size %zu --values-out vout.bin",
                 vsize);
    if (isize)
        snprintf(iopt, sizeof iopt, " --argsort idx.bin --index-type u%zu", 8 * isize);
    unlink(path_of("out.bin"));
    RUN_OK("sort --type %s%s%s%s in.bin out.bin", clsort_type_name(t), opts, vopt, iopt);
    size_t *perm = ref_perm(t, keys, n, bits, descending);
    char what[768];
    snprintf(what, sizeof what, "%s n=%zu v=%zu i=%zu%s", clsort_type_name(t), n, vsize, isize,
             opts);
    size_t len;
    unsigned char *out = read_file("out.bin", &len);
    check_gather(what, keys, out, len, perm, n, ks);
    free(out);
    if (vsize) {
        out = read_file("vout.bin", &len);
        check_gather(what, vals, out, len, perm, n, vsize);
        free(out);
    }
    if (isize) {
        out = read_file("idx.bin", &len);
        check_perm_file(what, out, len, perm, n, isize);
        free(out);
    }
    free(perm);
    free(keys);
    free(vals);
}

/* ---------------------------------------------------------------- tests */

/* Every key type, raw files: in one piece, and in chunks merged on the
 * host (ascending, and descending over a bit window) so that the merge's
 * key order is checked for every type; n = 0, 1, and in place. */
static void test_keys_bin(void)
{
    for (int i = 0; i < 10; i++) {
        clsort_type t = all_types[i];
        unsigned bits = (unsigned)(8 * clsort_type_size(t));
        char window[32];
        snprintf(window, sizeof window, "%u:%u", bits / 4, bits - 1);
        size_t n = 3001 + 17 * (size_t)i;
        check_sort(t, n, 100 + (uint64_t)i, 0, 0, NULL, 0, NULL);
        check_sort(t, n, 200 + (uint64_t)i, 0, 0, NULL, 0, "--chunk-bytes 1K");
        check_sort(t, n, 300 + (uint64_t)i, 0, 0, window, 1, "--chunk-bytes 3333");
    }
    check_sort(CLSORT_U32, 1, 7, 0, 0, NULL, 0, NULL);
    write_file("empty.bin", "", 0);
    RUN_OK("sort --type f64 empty.bin out.bin");
    size_t len = 99;
    free(read_file("out.bin", &len));
    CHECK(len == 0, "empty input: %zu bytes out", len);
    /* In place: IN and OUT the same file. */
    unsigned char *keys = make_keys(CLSORT_I32, 2000, 5);
    write_file("same.bin", keys, 8000);
    RUN_OK("sort --type i32 same.bin same.bin");
    size_t *perm = ref_perm(CLSORT_I32, keys, 2000, NULL, 0);
    unsigned char *out = read_file("same.bin", &len);
    check_gather("in place", keys, out, len, perm, 2000, 4);
    free(out);
    free(perm);
    free(keys);
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "empty.bin", "same.bin");
}

/* .npy in and out: versions 1.0/2.0/3.0, type from the header, conversions,
 * .npy values and permutations. */
static void test_npy(void)
{
    size_t n = 2500, len;
    /* f32, version 1.0, type from the header, .npy out. */
    unsigned char *keys = make_keys(CLSORT_F32, n, 11);
    write_npy("f.npy", 1, "<f4", keys, n, 4);
    RUN_OK("sort f.npy f_sorted.npy");
    size_t *perm = ref_perm(CLSORT_F32, keys, n, NULL, 0);
    unsigned char *out = read_npy("f_sorted.npy", "<f4", n, &len);
    check_gather("npy f32", keys, out, len, perm, n, 4);
    free(out);
    /* The same with --type given, raw out. */
    RUN_OK("sort --type f32 f.npy f_sorted.bin");
    out = read_file("f_sorted.bin", &len);
    check_gather("npy f32 to raw", keys, out, len, perm, n, 4);
    free(out);
    free(perm);
    free(keys);

    /* i16, version 2.0, keys in another order and spacing. */
    keys = make_keys(CLSORT_I16, n, 12);
    char dict[256];
    snprintf(dict, sizeof dict, "{\"shape\": (%zu,),\"fortran_order\":False, \"descr\":\"<i2\"}",
             n);
    write_npy_dict("i.npy", 2, dict, keys, n * 2);
    RUN_OK("sort --type i16 i.npy i_sorted.npy");
    perm = ref_perm(CLSORT_I16, keys, n, NULL, 0);
    out = read_npy("i_sorted.npy", "<i2", n, &len);
    check_gather("npy v2 i16", keys, out, len, perm, n, 2);
    free(out);
    free(perm);
    free(keys);

    /* u64 keys, version 3.0. */
    keys = make_keys(CLSORT_U64, n, 13);
    write_npy("u.npy", 3, "<u8", keys, n, 8);
    RUN_OK("sort u.npy u_sorted.npy");
    perm = ref_perm(CLSORT_U64, keys, n, NULL, 0);
    out = read_npy("u_sorted.npy", "<u8", n, &len);
    check_gather("npy v3 u64", keys, out, len, perm, n, 8);
    free(out);
    free(perm);
    free(keys);

    /* f32 keys with .npy values ('<f8', which they keep) and an .npy
     * permutation. */
    keys = make_keys(CLSORT_F32, n, 17);
    unsigned char *vals = make_values(n, 8, 13);
    write_npy("w.npy", 3, "<f4", keys, n, 4);
    write_npy("v.npy", 1, "<f8", vals, n, 8);
    RUN_OK("sort w.npy w_sorted.npy --values v.npy --values-out v_sorted.npy --argsort p.npy "
           "--index-type u32");
    perm = ref_perm(CLSORT_F32, keys, n, NULL, 0);
    out = read_npy("w_sorted.npy", "<f4", n, &len);
    check_gather("npy f32 with values", keys, out, len, perm, n, 4);
    free(out);
    out = read_npy("v_sorted.npy", "<f8", n, &len);
    check_gather("npy values", vals, out, len, perm, n, 8);
    free(out);
    out = read_npy("p.npy", "<u4", n, &len);
    check_perm_file("npy permutation", out, len, perm, n, 4);
    free(out);
    free(perm);
    free(vals);
    free(keys);

    /* raw u8 in, .npy out ('|u1'); raw f32 keys with 3-byte values to .npy
     * ('|V3'). */
    keys = make_keys(CLSORT_U8, n, 14);
    write_file("b.bin", keys, n);
    RUN_OK("sort --type u8 b.bin b.npy");
    perm = ref_perm(CLSORT_U8, keys, n, NULL, 0);
    out = read_npy("b.npy", "|u1", n, &len);
    check_gather("raw to npy u8", keys, out, len, perm, n, 1);
    free(out);
    free(perm);
    free(keys);
    keys = make_keys(CLSORT_F32, n, 16);
    vals = make_values(n, 3, 14);
    write_file("d.bin", keys, n * 4);
    write_file("b_vals.bin", vals, n * 3);
    RUN_OK("sort --type f32 d.bin d.npy --values b_vals.bin --value-size 3 --values-out bv.npy");
    perm = ref_perm(CLSORT_F32, keys, n, NULL, 0);
    out = read_npy("d.npy", "<f4", n, &len);
    check_gather("raw to npy f32", keys, out, len, perm, n, 4);
    free(out);
    out = read_npy("bv.npy", "|V3", n, &len);
    check_gather("raw values to npy", vals, out, len, perm, n, 3);
    free(out);
    free(perm);
    free(vals);
    free(keys);

    /* i8 '|i1' with a Fortran-order flag (the same bytes in 1-D), and an
     * empty array. */
    keys = make_keys(CLSORT_I8, 300, 15);
    snprintf(dict, sizeof dict, "{'descr': '|i1', 'fortran_order': True, 'shape': (300,), }");
    write_npy_dict("s.npy", 1, dict, keys, 300);
    RUN_OK("sort s.npy s_sorted.npy");
    perm = ref_perm(CLSORT_I8, keys, 300, NULL, 0);
    out = read_npy("s_sorted.npy", "|i1", 300, &len);
    check_gather("npy i8 Fortran flag", keys, out, len, perm, 300, 1);
    free(out);
    free(perm);
    free(keys);
    write_npy("e.npy", 1, "<f8", "", 0, 8);
    RUN_OK("sort e.npy e_sorted.npy");
    out = read_npy("e_sorted.npy", "<f8", 0, &len);
    CHECK(out && len == 0, "empty .npy");
    free(out);
    CHECK_FOLDER(NULL, "f.npy", "f_sorted.npy", "f_sorted.bin", "i.npy", "i_sorted.npy", "u.npy",
                 "u_sorted.npy", "w.npy", "w_sorted.npy", "v.npy", "v_sorted.npy", "p.npy", "b.bin",
                 "b_vals.bin", "b.npy", "d.bin", "d.npy", "bv.npy", "s.npy", "s_sorted.npy",
                 "e.npy", "e_sorted.npy");
}

/* Values of several sizes: the fast ones, an odd one, and one larger than
 * the device carries (gathered on the host). */
static void test_pairs(void)
{
    check_sort(CLSORT_U32, 4099, 21, 4, 0, NULL, 0, NULL);
    check_sort(CLSORT_F32, 3001, 22, 3, 0, NULL, 0, NULL);
    check_sort(CLSORT_U32, 2048, 23, 12, 0, NULL, 0, NULL);
    check_sort(CLSORT_U32, 2048, 26, 4, 0, NULL, 0, "--chunk-bytes 10000");
    check_sort(CLSORT_F32, 1500, 24, 8, 0, NULL, 0, NULL);
    check_sort(CLSORT_F32, 40, 25, 70000, 0, NULL, 0, NULL);
}

/* Permutations: u32 and u64, with and without keys and values. */
static void test_argsort(void)
{
    check_sort(CLSORT_F32, 3333, 31, 0, 4, NULL, 0, NULL);
    check_sort(CLSORT_U32, 2222, 32, 0, 8, NULL, 0, NULL);
    check_sort(CLSORT_U32, 2500, 33, 12, 4, NULL, 0, NULL); /* values gathered by the permutation */
    /* Without OUT. */
    unsigned char *keys = make_keys(CLSORT_U32, 1000, 34);
    write_file("k.bin", keys, 4000);
    RUN_OK("sort --type u32 k.bin --argsort only.bin --index-type u32");
    size_t len, *perm = ref_perm(CLSORT_U32, keys, 1000, NULL, 0);
    unsigned char *out = read_file("only.bin", &len);
    check_perm_file("argsort only", out, len, perm, 1000, 4);
    free(out);
    free(perm);
    free(keys);
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "idx.bin", "vals.bin", "vout.bin", "k.bin", "only.bin");
}

/* --descending and --bits, alone and together, keys and pairs. */
static void test_descending_bits(void)
{
    check_sort(CLSORT_I32, 3000, 41, 0, 0, NULL, 1, NULL);
    check_sort(CLSORT_F32, 3000, 42, 0, 0, NULL, 1, NULL); /* NaN first */
    check_sort(CLSORT_U64, 3000, 43, 0, 0, "8:40", 0, NULL);
    check_sort(CLSORT_F32, 3000, 44, 4, 0, "16:32", 1, NULL);
    check_sort(CLSORT_U32, 3000, 45, 0, 4, "3:11", 0, NULL);
    check_sort(CLSORT_F64, 2000, 46, 0, 0, "60:64", 1, NULL);
}

/* Inputs larger than a chunk: runs merged on the host. */
static void test_merge(void)
{
    /* f32 with NaNs and -0.0/+0.0 ties: keys, pairs, permutation. */
    check_sort(CLSORT_F32, 20000, 51, 0, 0, NULL, 0, "--chunk-bytes 4096");
    check_sort(CLSORT_F32, 20011, 52, 4, 0, NULL, 0, "--chunk-bytes 3000");
    check_sort(CLSORT_F32, 20000, 53, 0, 4, NULL, 0, "--chunk-bytes 8K");
    check_sort(CLSORT_F32, 9000, 54, 6, 8, NULL, 1, "--chunk-bytes 5000");
    /* Many ties across runs; the environment variable; bits. */
    child_chunk_env = "1000";
    check_sort(CLSORT_F32, 30000, 61, 0, 4, NULL, 0, NULL); /* few distinct keys */
    check_sort(CLSORT_U32, 10000, 56, 8, 0, "5:30", 1, NULL);
    child_chunk_env = NULL;
    /* --chunk-bytes wins over the environment; one key per run. */
    child_chunk_env = "junk-is-ignored-when-the-option-is-given";
    check_sort(CLSORT_F32, 300, 57, 2, 8, NULL, 0, "--chunk-bytes 1");
    child_chunk_env = NULL;
    /* Files larger than the device memory the tool may use: the library
     * sorts them in runs merged in host memory; with small chunks too, the
     * runs of both kinds. */
    child_device_memory = "256K";
    check_sort(CLSORT_U32, 300007, 71, 0, 0, NULL, 0, NULL);
    check_sort(CLSORT_F64, 100003, 72, 4, 0, NULL, 1, NULL);
    check_sort(CLSORT_I16, 200003, 73, 0, 8, NULL, 0, NULL);
    check_sort(CLSORT_U32, 200003, 74, 12, 0, NULL, 0, "--chunk-bytes 512K");
    child_device_memory = NULL;
    /* .npy through the merge, with the permutation only. */
    size_t n = 12345, len;
    unsigned char *keys = make_keys(CLSORT_F32, n, 58);
    write_npy("m.npy", 2, "<f4", keys, n, 4);
    RUN_OK("sort m.npy --argsort mp.npy --chunk-bytes 10000");
    size_t *perm = ref_perm(CLSORT_F32, keys, n, NULL, 0);
    unsigned char *out = read_npy("mp.npy", "<u8", n, &len);
    check_perm_file("npy merge argsort", out, len, perm, n, 8);
    free(out);
    free(perm);
    free(keys);
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "vals.bin", "vout.bin", "idx.bin", "m.npy", "mp.npy");
}

/* A kernel build that makes the compiler warn (a macro defined twice in
 * CLSORT_BUILD_OPTIONS, with a define of this process's id so that no
 * kernel cache holds the program): nothing on stderr (PoCL's clang writes
 * "N warnings generated." there), the warning in --build-log's output. */
static void test_quiet(void)
{
    char opts[128];
    snprintf(opts, sizeof opts, "-DCLSORT_TEST_TWICE=1 -DCLSORT_TEST_TWICE=2 -DCLSORT_TEST_PID=%ld",
             (long)getpid());
    setenv("CLSORT_BUILD_OPTIONS", opts, 1);
    check_sort(CLSORT_F32, 50000, 5, 0, 0, NULL, 0, NULL); /* RUN_OK: stderr empty */
    int rc = clsort("bench --build-log --cases u8 --sizes 1K --min-reps 1 --no-qsort");
    CHECK(rc == 0 && !err_text[0], "bench failed (%d): %s", rc, err_text);
    /* PoCL's log names the macro; NVIDIA's says only "1 warning generated." */
    CHECK((strstr(out_text, "CLSORT_TEST_TWICE") && strstr(out_text, "redefined")) ||
              strstr(out_text, "warning generated"),
          "the build log lacks the warning: %s", out_text);
    unsetenv("CLSORT_BUILD_OPTIONS");
}

/* A run of another command that must fail with this status and message
 * on stderr and print nothing on stdout. */
#define CMD_FAILS(code, text, ...)                                                                 \
    do {                                                                                           \
        int rc_ = clsort(__VA_ARGS__);                                                             \
        CHECK(rc_ == (code) && strstr(err_text, (text)) && !out_text[0],                           \
              "expected exit %d with '%s' and no stdout, got %d: %s / %s", code, text, rc_,        \
              err_text, out_text);                                                                 \
    } while (0)

/* The other commands' argument checks: usage errors exit 2 before any
 * output; `info` marks the device CLSORT_DEVICE selects. */
static void test_commands(void)
{
    CMD_FAILS(2, "bad size '0'", "bench --sizes 0");
    CMD_FAILS(2, "bad size '0'", "bench --sizes 1K,0");
    CMD_FAILS(2, "--min-reps takes a count", "bench --min-reps -1 --sizes 1K");
    CMD_FAILS(2, "--min-reps takes a count", "bench --min-reps 0 --sizes 1K");
    CMD_FAILS(2, "--min-reps takes a count", "bench --min-reps 5x --sizes 1K");
    CMD_FAILS(2, "radix_bits", "bench --tuning radix_bits=99 --sizes 1K --no-qsort");
    CMD_FAILS(2, "radix_bits", "bench --tuning radix_bits=99 --scan --sizes 1K");
    CMD_FAILS(2, "radix_bits", "tune --tuning radix_bits=99 --n 1K");
    CMD_FAILS(2, "was removed", "bench --tuning nv_maxreg=0 --sizes 1K --no-qsort");
    int rc = clsort("tune --tuning help");
    CHECK(rc == 0 && strstr(out_text, "\nos_wg_pairs ") && strstr(out_text, "sets os_wg alone"),
          "tune --tuning help (%d): %s", rc, out_text);
    rc = clsort("bench --sizes 1K --min-reps 1 --keys-only --no-qsort");
    CHECK(rc == 0 && !err_text[0] && strstr(out_text, "u32 keys"), "bench (%d): %s", rc,
          err_text);
    /* --keys-only drops the cases with values wherever it stands */
    rc = clsort("bench --keys-only --sizes 1K --min-reps 1 --no-qsort --cases u32+4,u16,u64+8,i8");
    CHECK(rc == 0 && !err_text[0] && strstr(out_text, "\nu16 ") && strstr(out_text, "\ni8 ") &&
              !strstr(out_text, "u32+4") && !strstr(out_text, "u64+8"),
          "bench --keys-only with --cases (%d): %s", rc, out_text);
    CMD_FAILS(2, "leaves no case", "bench --sizes 1K --cases u32+4 --keys-only");
    rc = clsort("info");
    CHECK(rc == 0 && strstr(out_text, "(default)"), "info marks a default (%d): %s", rc, out_text);
    setenv("CLSORT_DEVICE", "no-such-device-anywhere", 1);
    rc = clsort("info");
    CHECK(rc == 0 && !strstr(out_text, "(default)") && strstr(out_text, "matches no device"),
          "info with a CLSORT_DEVICE that matches nothing (%d): %s", rc, out_text);
    unsetenv("CLSORT_DEVICE");
    CMD_FAILS(2, "unknown key type 'u128'", "warmup --types u8,u128");
    CMD_FAILS(2, "unknown option '--frobnicate'", "warmup --frobnicate");
    CMD_FAILS(2, "takes --clear", "cache");
    rc = clsort("warmup --types u16 --pairs --argsort");
    CHECK(rc == 0 && !err_text[0] && strstr(out_text, "u16") && strstr(out_text, "done in"),
          "warmup (%d): %s / %s", rc, err_text, out_text);
}

/* Truncates every file under dir whose name ends in suffix; returns how
 * many. */
static int truncate_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        size_t nl = strlen(e->d_name), sl = strlen(suffix);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            count += truncate_files(p, suffix);
        else if (nl >= sl && !strcmp(e->d_name + nl - sl, suffix) && truncate(p, 100) == 0)
            count++;
    }
    closedir(d);
    return count;
}

/* PoCL's own kernel cache (what a CPU user has by default) damaged: its
 * program files, then its kernels. PoCL 3.1 aborts on either: the command
 * then says so and leaves no file behind; the next run compiles afresh
 * and sorts, with a note. `clsort cache --clear` empties both caches. */
static void test_driver_cache_damaged(void)
{
    clsort_device_info d[16];
    size_t n = 0;
    int pocl = 0;
    if (clsort_device_list(d, 16, &n) == CLSORT_SUCCESS)
        for (size_t i = 0; i < n && i < 16; i++)
            pocl |= d[i].is_default && strstr(d[i].platform_name, "Portable Computing Language");
    if (!pocl) {
        printf("(the default device is not PoCL's: nothing to damage)\n");
        return;
    }
    char pc[4400], cc[4400];
    snprintf(pc, sizeof pc, "%s/pocl-cache", work);
    snprintf(cc, sizeof cc, "%s/clsort-cache", work);
    mkdir(pc, 0755);
    setenv("POCL_CACHE_DIR", pc, 1);
    setenv("CLSORT_CACHE_DIR", cc, 1);
    size_t count = 5000; /* one work-group: few kernels to compile */
    unsigned char *keys = make_keys(CLSORT_U32, count, 7);
    write_file("in.bin", keys, count * 4);
    size_t *perm = ref_perm(CLSORT_U32, keys, count, NULL, 0);
    RUN_OK("sort --type u32 in.bin out.bin");
    const char *what[] = {"program.bc", ".so"};
    for (int round = 0; round < 2; round++) {
        CHECK(truncate_files(pc, what[round]) > 0, "no %s file in PoCL's cache", what[round]);
        unlink(path_of("out.bin"));
        int rc = clsort("sort --type u32 in.bin out.bin");
        printf("damaged %s: exit %d\n", what[round], rc);
        CHECK((rc == 1 && strstr(err_text, "the OpenCL driver crashed") &&
               strstr(err_text, "clsort cache --clear")) || (rc == 0 && !err_text[0]),
              "damaged %s: exit %d: %s", what[round], rc, err_text);
        if (rc == 0)
            CHECK_FOLDER(NULL, "in.bin", "pocl-cache", "clsort-cache", "out.bin");
        else
            CHECK_FOLDER(NULL, "in.bin", "pocl-cache", "clsort-cache");
        if (rc == 1) { /* the next run: a note, and the sort */
            rc = clsort("sort --type u32 in.bin out.bin");
            CHECK(rc == 0 && strstr(err_text, "died inside the OpenCL driver"),
                  "after the crash (%s): exit %d: %s", what[round], rc, err_text);
        }
        size_t len;
        unsigned char *out = read_file("out.bin", &len);
        check_gather(what[round], keys, out, len, perm, count, 4);
        free(out);
        RUN_OK("sort --type u32 in.bin out.bin"); /* and then quietly */
    }
    int rc = clsort("cache --clear");
    CHECK(rc == 0 && !err_text[0], "cache --clear: %d %s", rc, err_text);
    CHECK(truncate_files(pc, "") == 0, "PoCL's cache is empty after cache --clear");
    CHECK(truncate_files(cc, "") == 0, "clsort's cache is empty after cache --clear");
    RUN_OK("sort --type u32 in.bin out.bin");
    unsetenv("POCL_CACHE_DIR");
    unsetenv("CLSORT_CACHE_DIR");
    free(perm);
    free(keys);
}

/* Every error: message, exit status, and no output left. */
static void test_errors(void)
{
    unsigned char k[64];
    for (int i = 0; i < 64; i++)
        k[i] = (unsigned char)(i * 37);
    write_file("k.bin", k, 40);
    write_file("odd.bin", k, 10);
    write_file("v9.bin", k, 36);

    /* Usage errors: 2. */
    RUN_FAILS(2, "missing the input", "sort");
    RUN_FAILS(2, "missing the output", "sort --type u32 k.bin");
    RUN_FAILS(2, "unknown option '--frobnicate'", "sort --frobnicate k.bin o.bin");
    RUN_FAILS(2, "unknown key type 'u128'", "sort --type u128 k.bin o.bin");
    RUN_FAILS(2, "--type needs a value", "sort k.bin o.bin --type");
    RUN_FAILS(2, "--type is needed", "sort k.bin o.bin");
    RUN_FAILS(2, "too many file names", "sort --type u32 k.bin o.bin p.bin");
    RUN_FAILS(2, "--values needs --values-out",
              "sort --type u32 k.bin o.bin --values k.bin --value-size 4");
    RUN_FAILS(2, "--values-out needs --values", "sort --type u32 k.bin o.bin --values-out x.bin");
    RUN_FAILS(2, "--value-size is needed",
              "sort --type u32 k.bin o.bin --values k.bin --values-out x.bin");
    RUN_FAILS(2, "--value-size needs --values", "sort --type u32 k.bin o.bin --value-size 4");
    RUN_FAILS(2, "not a positive byte count",
              "sort --type u32 k.bin o.bin --values k.bin --value-size 0 --values-out x.bin");
    RUN_FAILS(2, "--index-type must be u32 or u64",
              "sort --type u32 k.bin --argsort i.bin --index-type u16");
    RUN_FAILS(2, "--index-type needs --argsort", "sort --type u32 k.bin o.bin --index-type u32");
    RUN_FAILS(2, "--bits takes B:E", "sort --type u32 k.bin o.bin --bits 5");
    RUN_FAILS(2, "not a window", "sort --type u32 k.bin o.bin --bits 5:5");
    RUN_FAILS(2, "outside the 32-bit u32 keys", "sort --type u32 k.bin o.bin --bits 0:40");
    RUN_FAILS(2, "--chunk-bytes '0'", "sort --type u32 k.bin o.bin --chunk-bytes 0");
    RUN_FAILS(2, "--chunk-bytes '12Q'", "sort --type u32 k.bin o.bin --chunk-bytes 12Q");
    child_chunk_env = "lots";
    RUN_FAILS(2, "CLSORT_SORT_CHUNK_BYTES='lots'", "sort --type u32 k.bin o.bin");
    child_chunk_env = NULL;
    RUN_FAILS(2, "name the same file", "sort --type u32 k.bin o.bin --argsort ./o.bin");
    /* The bits check once the type comes from a header. */
    write_npy("h8.npy", 1, "|u1", k, 40, 1);
    RUN_FAILS(2, "outside the 8-bit u8 keys", "sort h8.npy o.bin --bits 4:12");

    /* Runtime errors: 1. */
    RUN_FAILS(1, "cannot open input missing.bin: No such file",
              "sort --type u32 missing.bin o.bin");
    RUN_FAILS(1, "is not a multiple of the u32 key size", "sort --type u32 odd.bin o.bin");
    RUN_FAILS(1, "holds 9 values but k.bin holds 10 keys",
              "sort --type u32 k.bin o.bin --values v9.bin --value-size 4 --values-out x.bin");
    RUN_FAILS(1, "not a multiple of --value-size 8",
              "sort --type u32 k.bin o.bin --values odd.bin --value-size 8 --values-out x.bin");
    RUN_FAILS(1, "cannot open values file nope.bin",
              "sort --type u32 k.bin o.bin --values nope.bin --value-size 4 --values-out x.bin");
    write_npy("f8.npy", 1, "<f8", k, 5, 8);
    RUN_FAILS(1, "holds f64 keys (dtype '<f8'), not --type f32", "sort --type f32 f8.npy o.bin");
    write_npy("f2.npy", 1, "<f2", k, 20, 2);
    RUN_FAILS(1, "dtype '<f2' is not a key type", "sort f2.npy o.bin");
    write_npy("big.npy", 1, ">i4", k, 10, 4);
    RUN_FAILS(1, "big-endian", "sort big.npy o.bin");
    write_npy_dict("2d.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 5), }", k,
                   40);
    RUN_FAILS(1, "a 2-D array of shape (2, 5)", "sort 2d.npy o.bin");
    write_npy_dict("0d.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (), }", k, 4);
    RUN_FAILS(1, "a 0-D array", "sort 0d.npy o.bin");
    write_npy_dict(
        "rec.npy", 1,
        "{'descr': [('a', '<u4'), ('b', '<u4')], 'fortran_order': False, 'shape': (5,), }", k, 40);
    RUN_FAILS(1, "structured dtype", "sort rec.npy o.bin");
    write_npy("short.npy", 1, "<u4", k, 11, 4); /* announces 11, holds 10 */
    unsigned char *sh;
    size_t shl;
    sh = read_file("short.npy", &shl);
    write_file("short.npy", sh, shl - 4);
    free(sh);
    RUN_FAILS(1, "announces 11 elements of 4 bytes", "sort short.npy o.bin");
    write_file("fake.npy", k, 40);
    RUN_FAILS(1, "is not a .npy file", "sort fake.npy o.bin");
    write_npy_dict("v4.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }", k,
                   40);
    sh = read_file("v4.npy", &shl);
    sh[6] = 4;
    write_file("v4.npy", sh, shl);
    free(sh);
    RUN_FAILS(1, "format version 4.0 is not supported", "sort v4.npy o.bin");
    write_npy_dict("garbage.npy", 1, "{'descr': '<u4', 'fortran_order': Maybe, 'shape': (10,), }",
                   k, 40);
    RUN_FAILS(1, "cannot parse the .npy header", "sort garbage.npy o.bin");
    write_npy("vals.npy", 1, "<u2", k, 20, 2);
    RUN_FAILS(1, "holds 2-byte values (dtype '<u2'), not --value-size 4",
              "sort --type u32 k.bin o.bin --values vals.npy --value-size 4 --values-out x.bin");
    RUN_FAILS(1, "holds 20 values but k.bin holds 10 keys",
              "sort --type u32 k.bin o.bin --values vals.npy --values-out x.bin");
    write_npy("obj.npy", 1, "|O8", k, 5, 8);
    RUN_FAILS(1, "object array", "sort --type u64 k.bin o.bin --values obj.npy --values-out x.bin");
    RUN_FAILS(1, "cannot create a temporary file in no/such",
              "sort --type u32 k.bin no/such/o.bin");
    RUN_FAILS(1, "is not a regular file", "sort --type u32 . o.bin");
    RUN_FAILS(1, "names a folder, not a file", "sort --type u32 k.bin o.bin --argsort no/");
    write_npy("q.npy", 1, "<q", k, 5, 8);
    RUN_FAILS(1, "unknown .npy dtype '<q'", "sort q.npy o.bin");
    sh = read_file("f8.npy", &shl);
    write_file("cut.npy", sh, 40); /* the header announces more than the file holds */
    free(sh);
    RUN_FAILS(1, "truncated or corrupt .npy header", "sort cut.npy o.bin");
    /* 2^32 keys (a sparse file): too many for u32 positions; found before
     * anything is read or written. */
    FILE *big = fopen(path_of("4g.bin"), "wb");
    CHECK(big && ftruncate(fileno(big), (off_t)1 << 32) == 0 && fclose(big) == 0, "sparse file");
    RUN_FAILS(1, "u32 positions stop at 2^32 - 1",
              "sort --type u8 4g.bin --argsort i.bin --index-type u32");
    unlink(path_of("4g.bin"));
    RUN_FAILS(1, "", "sort --type u32 k.bin o.bin --device no-such-device-anywhere");
    CHECK(strstr(err_text, "no-such-device-anywhere") || strstr(err_text, "device"),
          "device error names the device: %s", err_text);

    /* Help. */
    int rc = clsort("sort --help");
    CHECK(rc == 0 && strstr(out_text, "clsort sort [options] IN [OUT]") && !err_text[0],
          "sort --help: %d", rc);
    rc = clsort("help");
    CHECK(rc == 0 && strstr(out_text, "--chunk-bytes N"), "clsort help shows sort: %d", rc);

    CHECK_FOLDER(NULL, "k.bin", "odd.bin", "v9.bin", "h8.npy", "f8.npy", "f2.npy", "big.npy",
                 "2d.npy", "0d.npy", "rec.npy", "short.npy", "fake.npy", "v4.npy", "garbage.npy",
                 "vals.npy", "obj.npy", "q.npy", "cut.npy");
}

/* Failures after outputs were started: a full disk (a file-size limit
 * makes writes fail), a device that does not exist, a signal. Existing
 * outputs stay as they were and no temporary is left. */
static void test_no_leftover(void)
{
    size_t n = 100000, len;
    unsigned char *keys = make_keys(CLSORT_U32, n, 61);
    write_file("in.bin", keys, n * 4);
    write_file("out.bin", "old output", 10);
    write_file("idx.bin", "old index", 9);
    chmod(path_of("out.bin"), 0640);

    /* The same sorts succeed without a limit (this also builds their
     * kernels, whose compiler would otherwise be the one to hit the limit).
     * On PoCL, whose compiler writes files even for kernels its own cache
     * holds, that cache is turned off here: clsort then keeps complete
     * program binaries in its cache, which the limited runs load. */
    setenv("POCL_KERNEL_CACHE", "0", 1);
    RUN_OK("sort --type u32 in.bin ok.bin");
    RUN_OK("sort --type u32 in.bin ok.bin --chunk-bytes 64K");
    RUN_OK("sort --type u32 in.bin ok.bin --argsort ok_idx.bin --chunk-bytes 150K");
    /* Disk full while writing the output (200 KB limit, 400 KB output). */
    child_fsize = 200000;
    RUN_FAILS(1, "writing out.bin: File too large", "sort --type u32 in.bin out.bin");
    /* ... while writing the runs, or the merged output. */
    RUN_FAILS(1, "File too large", "sort --type u32 in.bin out.bin --chunk-bytes 64K");
    RUN_FAILS(1, "File too large",
              "sort --type u32 in.bin out.bin --argsort idx.bin --chunk-bytes 150K");
    /* ... in the merge only: the runs fit, the .npy output (128 bytes of
     * header more) does not. */
    child_fsize = 400064;
    RUN_FAILS(1, "writing out.npy: File too large",
              "sort --type u32 in.bin out.npy --chunk-bytes 64K");
    child_fsize = 0;
    unsigned char *out = read_file("out.bin", &len);
    CHECK(out && len == 10 && !memcmp(out, "old output", 10), "out.bin was replaced");
    free(out);
    out = read_file("idx.bin", &len);
    CHECK(out && len == 9 && !memcmp(out, "old index", 9), "idx.bin was replaced");
    free(out);
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "idx.bin", "ok.bin", "ok_idx.bin");

    /* No device: outputs were already started. */
    RUN_FAILS(1, "", "sort --type u32 in.bin out.bin --device no-such-device-anywhere");
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "idx.bin", "ok.bin", "ok_idx.bin");

    /* A values file that is short: found before anything is written. */
    write_file("short.bin", keys, 100);
    RUN_FAILS(
        1, "holds 25 values",
        "sort --type u32 in.bin out.bin --values short.bin --value-size 4 --values-out vo.bin");
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "idx.bin", "ok.bin", "ok_idx.bin", "short.bin");

    /* Success keeps the replaced file's mode. */
    RUN_OK("sort --type u32 in.bin out.bin");
    struct stat st;
    CHECK(stat(path_of("out.bin"), &st) == 0 && (st.st_mode & 0777) == 0640, "mode kept: %o",
          (unsigned)(st.st_mode & 0777));

    /* A symbolic link as OUT stays a link; the file it names is replaced. */
    write_file("target.bin", "old", 3);
    CHECK(symlink("target.bin", path_of("link.bin")) == 0, "symlink: %s", strerror(errno));
    RUN_OK("sort --type u32 in.bin link.bin");
    struct stat lst;
    CHECK(lstat(path_of("link.bin"), &lst) == 0 && S_ISLNK(lst.st_mode), "link.bin replaced");
    size_t *perm = ref_perm(CLSORT_U32, keys, n, NULL, 0);
    out = read_file("target.bin", &len);
    check_gather("through a link", keys, out, len, perm, n, 4);
    free(out);
    free(perm);
    CHECK_FOLDER(NULL, "in.bin", "out.bin", "idx.bin", "ok.bin", "ok_idx.bin", "short.bin",
                 "target.bin", "link.bin");

    /* SIGTERM in the middle of a long chunked sort: the temporaries go. */
    mkdir(path_of("sig"), 0755);
    write_file("sig/in.bin", keys, n * 4);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(path_of("sig")) != 0)
            _exit(126);
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        execl(tool, tool, "sort", "--type", "u32", "in.bin", "out.bin", "--argsort", "idx.bin",
              "--chunk-bytes", "96", (char *)NULL);
        _exit(127);
    }
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        printf("SIGTERM arrived while sorting\n");
        CHECK(WTERMSIG(status) == SIGTERM, "killed by signal %d", WTERMSIG(status));
        CHECK_FOLDER("sig", "in.bin");
    } else {
        /* It finished first: then the outputs are complete. */
        printf("the sort finished before SIGTERM\n");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
        CHECK_FOLDER("sig", "in.bin", "out.bin", "idx.bin");
    }
    /* a signal sent on purpose is no crash in the driver: no note after it */
    RUN_OK("sort --type u32 sig/in.bin sig/again.bin");
    free(keys);
}

/* ------------------------------------------------------------------ main */

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    {"keys_bin", test_keys_bin},
    {"npy", test_npy},
    {"pairs", test_pairs},
    {"argsort", test_argsort},
    {"descending_bits", test_descending_bits},
    {"merge", test_merge},
    {"errors", test_errors},
    {"no_leftover", test_no_leftover},
    {"quiet", test_quiet},
    {"commands", test_commands},
    {"driver_cache_damaged", test_driver_cache_damaged},
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: cli_test CLSORT_BINARY WORK_FOLDER TEST\n");
        return 2;
    }
    tool = argv[1];
    size_t count = 0;
    if (clsort_device_list(NULL, 0, &count) == CLSORT_ERROR_NO_PLATFORM || count == 0) {
        printf("SKIP cli_%s: no OpenCL platform\n", argv[3]);
        return 77;
    }
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(argv[3], tests[i].name))
            continue;
        mkdir(argv[2], 0755);
        snprintf(work, sizeof work, "%s/%s", argv[2], tests[i].name);
        mkdir(work, 0755);
        empty_folder(work);
        tests[i].fn();
        printf("%s cli_%s\n", failures ? "FAIL" : "PASS", tests[i].name);
        return failures ? 1 : 0;
    }
    fprintf(stderr, "no test named '%s'\n", argv[3]);
    return 2;
}

/* bench.c - the benchmark harness (see bench.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdbool.h>
#include <time.h>

const bench_case bench_default_cases[2] = {
    {"u32 keys", CLSORT_U32, 0, 0, 0, DATA_UNIFORM, CLSORT_ALGORITHM_AUTO, 0},
    {"u32 pairs", CLSORT_U32, 4, 0, 0, DATA_UNIFORM, CLSORT_ALGORITHM_AUTO, 0},
};

int bench_parse_case(const char *spec, bench_case *c)
{
    memset(c, 0, sizeof *c);
    c->name = spec;
    c->dist = DATA_UNIFORM;
    char key[16] = {0};
    size_t i = 0;
    while (spec[i] && spec[i] != '+' && spec[i] != ':' && spec[i] != '@' && i < sizeof key - 1) {
        key[i] = spec[i];
        i++;
    }
    c->key_type = clsort_type_from_name(key);
    if (!c->key_type)
        return -1;
    const char *p = spec + i;
    if (*p == '+') {
        char *end;
        c->value_size = strtoul(p + 1, &end, 10);
        if (c->value_size != 4 && c->value_size != 8)
            return -1;
        p = end;
    }
    if (*p == ':') {
        int used = 0;
        if (sscanf(p, ":%u:%u%n", &c->begin_bit, &c->end_bit, &used) != 2)
            return -1;
        p += used;
    }
    if (*p == '@') {
        c->dist = data_dist_from_name(p + 1);
        if (c->dist == DATA_DIST_ALL)
            return -1;
        p += strlen(p);
    }
    return *p ? -1 : 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* qsort's reference: (key, index) records, ordered by key then index, so
 * the result is the stable order. Keys are unsigned integers of 1..8 bytes. */
typedef struct rec {
    uint64_t key, idx;
} rec;

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static inline uint64_t get_key(const void *p, size_t i, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p + i * bytes;
    switch (bytes) { /* constant-size copies compile to single loads */
    case 1: return *c;
    case 2: { uint16_t v; memcpy(&v, c, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, c, 4); return v; }
    default: { uint64_t v; memcpy(&v, c, 8); return v; }
    }
}

/* The key's order-preserving unsigned image (clsort.h, "Key order"): the
 * key for unsigned types, the sign bit flipped for signed ones, and for
 * floats -0.0 read as +0.0, every NaN as all ones, the bits flipped. */
static inline uint64_t ord_key(clsort_type t, const void *p, size_t i)
{
    const size_t kb = clsort_type_size(t);
    uint64_t u = get_key(p, i, kb);
    const uint64_t sign = 1ull << (kb * 8 - 1), all = kb == 8 ? ~0ull : (1ull << (kb * 8)) - 1;
    if (t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64)
        return u ^ sign;
    if (t == CLSORT_F32 || t == CLSORT_F64) {
        const uint64_t expo = kb == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
        const uint64_t mant = kb == 4 ? 0x007fffffull : 0x000fffffffffffffull;
        if ((u & ~sign) == 0)
            return sign;
        if ((u & expo) == expo && (u & mant))
            return all;
        return (u & sign) ? (~u & all) : (u | sign);
    }
    return u;
}

static inline uint64_t get_val(const void *p, size_t i, size_t bytes)
{
    return get_key(p, i, bytes);
}

static void set_err(char *err, size_t size, const char *what, clsort_status s, clsort_context *ctx)
{
    snprintf(err, size, "%s: %s%s%s", what, clsort_status_string(s), ctx ? "\n" : "",
             ctx ? clsort_context_last_error(ctx) : "");
}

typedef struct bufs {
    cl_mem pk, wk, pv, wv, tiny;
} bufs;

static void release_bufs(bufs *b)
{
    cl_mem *m[] = {&b->pk, &b->wk, &b->pv, &b->wv, &b->tiny};
    for (size_t i = 0; i < 5; i++)
        if (*m[i]) {
            clReleaseMemObject(*m[i]);
            *m[i] = NULL;
        }
}

/* The end of a timed run whose start is e0 (the end of the copy that
 * restored its input): when *st is still success, a copy of up to 4 bytes
 * (fewer where the output is smaller: one u8 key) from last (the run's
 * output) into tiny marks the end; returns the device time between the two
 * in ms, or -1 with *st set. Waits, releases e0. */
static double timed_end(cl_command_queue q, cl_event e0, cl_mem last, cl_mem tiny,
                        clsort_status *st)
{
    cl_event e1 = NULL;
    cl_int err = CL_SUCCESS;
    size_t bytes = 4, have = 0;
    if (clGetMemObjectInfo(last, CL_MEM_SIZE, sizeof have, &have, NULL) == CL_SUCCESS &&
        have < bytes)
        bytes = have;
    if (*st == CLSORT_SUCCESS) {
        err = clEnqueueCopyBuffer(q, last, tiny, 0, 0, bytes, 0, NULL, &e1);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &e1);
        if (err != CL_SUCCESS)
            *st = err;
    }
    double ms = -1;
    if (*st == CLSORT_SUCCESS) {
        cl_ulong t0 = 0, t1 = 0;
        err = clGetEventProfilingInfo(e0, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_START, sizeof t1, &t1, NULL);
        if (err != CL_SUCCESS)
            *st = err;
        else
            ms = t1 > t0 ? (double)(t1 - t0) / 1e6 : 0.0;
    }
    clFinish(q);
    if (e0)
        clReleaseEvent(e0);
    if (e1)
        clReleaseEvent(e1);
    return ms;
}

/* One timed sort: restore the input, sort, mark the end. Returns ms of
 * device time, or a negative value on failure. */
static double timed_sort(clsort_context *ctx, cl_command_queue q, const bench_case *c, size_t n,
                         const bufs *b, clsort_status *st)
{
    size_t kb = clsort_type_size(c->key_type);
    cl_event e0 = NULL;
    cl_int err = CL_SUCCESS;
    if (c->value_size)
        err = clEnqueueCopyBuffer(q, b->pv, b->wv, 0, 0, n * c->value_size, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueCopyBuffer(q, b->pk, b->wk, 0, 0, n * kb, 0, NULL, &e0);
    if (err != CL_SUCCESS) {
        *st = err;
        return -1;
    }
    clsort_options o;
    memset(&o, 0, sizeof o);
    o.begin_bit = c->begin_bit;
    o.end_bit = c->end_bit;
    o.algorithm = c->algorithm;
    if (c->seg_len) {
        clsort_segments sg;
        memset(&sg, 0, sizeof sg);
        sg.count = n / c->seg_len;
        sg.length = c->seg_len;
        *st = clsort_sort_segments_buffer(ctx, c->key_type, b->wk, 0, c->value_size ? b->wv : NULL,
                                          0, c->value_size, n, &sg, &o, 0, NULL, NULL);
    } else {
        *st = c->value_size ? clsort_sort_pairs_buffer(ctx, c->key_type, b->wk, 0, b->wv, 0,
                                                       c->value_size, n, &o, 0, NULL, NULL)
                            : clsort_sort_keys_buffer(ctx, c->key_type, b->wk, 0, n, &o, 0, NULL,
                                                      NULL);
    }
    return timed_end(q, e0, b->wk, b->tiny, st);
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* O(n) check that needs no reference sort: the output is ordered on the
 * window's bits, holds the same multiset of keys (three independent sums),
 * and for pairs the values are a permutation of the input indices that
 * carries each key with it and keeps equal keys in input order. When qsort
 * ran, the output is also compared with its stable order element by
 * element. */
static int check_one(const bench_case *c, size_t n, const void *keys_in, const rec *ref,
                     const void *keys_out, const void *vals_out);

/* Segments: each is checked on its own (values hold global indices, so they
 * are rebased). */
static int check_result(const bench_case *c, size_t n, const void *keys_in, const rec *ref,
                        const void *keys_out, const void *vals_out)
{
    if (!c->seg_len)
        return check_one(c, n, keys_in, ref, keys_out, vals_out);
    size_t kb = clsort_type_size(c->key_type);
    bench_case one = *c;
    one.seg_len = 0;
    for (size_t s = 0; s + c->seg_len <= n; s += c->seg_len) {
        void *vo = NULL;
        if (vals_out) {
            vo = malloc(c->seg_len * c->value_size);
            if (!vo)
                return 0;
            for (size_t i = 0; i < c->seg_len; i++) {
                uint64_t v = get_val(vals_out, s + i, c->value_size) - s;
                memcpy((char *)vo + i * c->value_size, &v, c->value_size);
            }
        }
        int ok = check_one(&one, c->seg_len, (const char *)keys_in + s * kb, NULL,
                           (const char *)keys_out + s * kb, vo);
        free(vo);
        if (!ok)
            return 0;
    }
    return 1;
}

static int check_one(const bench_case *c, size_t n, const void *keys_in, const rec *ref,
                     const void *keys_out, const void *vals_out)
{
    size_t kb = clsort_type_size(c->key_type);
    uint64_t mask = 0;
    unsigned end = c->end_bit ? c->end_bit : (unsigned)kb * 8;
    for (unsigned bit = c->begin_bit; bit < end; bit++)
        mask |= 1ull << bit;
    uint64_t s_in[3] = {0, 0, 0}, s_out[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        uint64_t a = get_key(keys_in, i, kb), b = get_key(keys_out, i, kb);
        s_in[0] += a, s_in[1] += a * a, s_in[2] += mix64(a);
        s_out[0] += b, s_out[1] += b * b, s_out[2] += mix64(b);
        const uint64_t ob = ord_key(c->key_type, keys_out, i);
        if (i > 0 && (ord_key(c->key_type, keys_out, i - 1) & mask) > (ob & mask))
            return 0;
        if (ref && (ob & mask) != ref[i].key)
            return 0;
    }
    if (memcmp(s_in, s_out, sizeof s_in))
        return 0;
    if (vals_out) {
        unsigned char *seen = calloc(n / 8 + 1, 1);
        if (!seen)
            return 0;
        int ok = 1;
        for (size_t i = 0; i < n && ok; i++) {
            uint64_t v = get_val(vals_out, i, c->value_size);
            if (v >= n || (seen[v / 8] >> (v % 8)) & 1 ||
                get_key(keys_in, v, kb) != get_key(keys_out, i, kb))
                ok = 0;
            else
                seen[v / 8] |= (unsigned char)(1u << (v % 8));
            if (ok && i > 0 &&
                (ord_key(c->key_type, keys_out, i - 1) & mask) ==
                    (ord_key(c->key_type, keys_out, i) & mask) &&
                get_val(vals_out, i - 1, c->value_size) > v)
                ok = 0; /* not stable */
            if (ok && ref && v != ref[i].idx)
                ok = 0;
        }
        free(seen);
        return ok;
    }
    return 1;
}

/* One host-array sort of the input, wall clock in ms (< 0: failed). */
static double host_once(clsort_context *ctx, const bench_case *c, size_t n, const void *keys,
                        const void *vals, void *out_k, void *out_v, clsort_status *st)
{
    const size_t kb = clsort_type_size(c->key_type);
    memcpy(out_k, keys, n * kb);
    if (c->value_size)
        memcpy(out_v, vals, n * c->value_size);
    clsort_options o;
    memset(&o, 0, sizeof o);
    o.begin_bit = c->begin_bit;
    o.end_bit = c->end_bit;
    o.algorithm = c->algorithm;
    double t0 = now_ms();
    if (c->seg_len) {
        clsort_segments sg;
        memset(&sg, 0, sizeof sg);
        sg.count = n / c->seg_len;
        sg.length = c->seg_len;
        *st = c->value_size ? clsort_sort_segments_pairs(ctx, c->key_type, out_k, out_v,
                                                         c->value_size, n, &sg, &o)
                            : clsort_sort_segments(ctx, c->key_type, out_k, n, &sg, &o);
    } else {
        *st = c->value_size
                  ? clsort_sort_pairs(ctx, c->key_type, out_k, out_v, c->value_size, n, &o)
                  : clsort_sort_keys(ctx, c->key_type, out_k, n, &o);
    }
    double ms = now_ms() - t0;
    return *st == CLSORT_SUCCESS ? ms : -1;
}


/* A row's figures from its timed sorts (sorted in place). */
static void set_row_times(bench_row *row, double *times, int reps, size_t n)
{
    qsort(times, (size_t)reps, sizeof times[0], cmp_double);
    row->reps = reps;
    row->ms = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    row->ms_min = times[0];
    row->mkeys = row->ms > 0 ? (double)n / row->ms / 1e3 : 0;
    row->speedup = row->ms > 0 && row->qsort_ms > 0 ? row->qsort_ms / row->ms : 0;
}

/* The host-array rows: a warm-up, then timed sorts; the last result stays
 * in out_k, out_v. */
static clsort_status host_timed(clsort_context *ctx, const bench_config *cfg, const bench_case *c,
                                size_t n, const void *keys, const void *vals, void *out_k,
                                void *out_v, bench_row *row, char *err, size_t errsize)
{
    clsort_status st = CLSORT_SUCCESS;
    if (host_once(ctx, c, n, keys, vals, out_k, out_v, &st) < 0) {
        snprintf(err, errsize, "%s: %s", c->name, clsort_context_last_error(ctx));
        return st;
    }
    if (cfg->log && clsort_context_build_log(ctx)[0])
        fprintf(cfg->log, "--- build log (%s):\n%s\n", c->name, clsort_context_build_log(ctx));
    double times[1000];
    int reps = 0;
    double spent = 0;
    while (reps < 1000 && (reps < cfg->min_reps || spent < cfg->min_seconds * 1e3)) {
        double ms = host_once(ctx, c, n, keys, vals, out_k, out_v, &st);
        if (ms < 0) {
            snprintf(err, errsize, "%s: %s", c->name, clsort_context_last_error(ctx));
            return st;
        }
        times[reps++] = ms;
        spent += ms;
    }
    set_row_times(row, times, reps, n);
    return CLSORT_SUCCESS;
}

static clsort_status run_one(clsort_context *ctx, cl_command_queue q, const bench_config *cfg,
                             const bench_case *c, size_t n, bench_row *row, char *err,
                             size_t errsize)
{
    size_t kb = clsort_type_size(c->key_type);
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", c->name);
    row->n = n;
    clsort_device_info info;
    if (clsort_context_device_info(ctx, &info) == CLSORT_SUCCESS)
        snprintf(row->device, sizeof row->device, "%s", info.device_name);
    size_t kbytes = n * kb > 0 ? n * kb : 1;
    void *keys = malloc(kbytes), *vals = NULL, *out_k = malloc(kbytes), *out_v = NULL;
    rec *ref = cfg->qsort ? malloc((n ? n : 1) * sizeof *ref) : NULL;
    if (c->value_size) {
        vals = malloc(n * c->value_size);
        out_v = malloc(n * c->value_size);
    }
    bufs b = {0};
    clsort_status st = CLSORT_SUCCESS;
    if (!keys || !out_k || (cfg->qsort && !ref) || (c->value_size && (!vals || !out_v))) {
        snprintf(err, errsize, "out of host memory for n = %zu", n);
        st = CLSORT_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    data_fill(keys, c->key_type, n, c->dist, cfg->seed + n);
    for (size_t i = 0; i < n && c->value_size; i++) {
        uint64_t v = i;
        memcpy((unsigned char *)vals + i * c->value_size, &v, c->value_size);
    }
    /* The reference, timed: qsort of (key over the window, index) records. */
    uint64_t mask = 0;
    unsigned end = c->end_bit ? c->end_bit : (unsigned)kb * 8;
    for (unsigned bit = c->begin_bit; bit < end; bit++)
        mask |= 1ull << bit;
    if (ref && c->seg_len && kb == 4) {
        /* the CPU column of a batch: qsort of every segment on its own */
        uint32_t *copy = malloc(n * 4 + 4);
        if (copy) {
            memcpy(copy, keys, n * 4);
            double t0 = now_ms();
            for (size_t s0 = 0; s0 + c->seg_len <= n; s0 += c->seg_len)
                qsort(copy + s0, c->seg_len, 4, cmp_u32);
            row->qsort_ms = now_ms() - t0;
            free(copy);
        }
        free(ref);
        ref = NULL;
    }
    if (ref) {
        /* Full-width keys alone: qsort of the keys themselves, as a user
         * would call it; otherwise of (key, index) records, which makes it
         * stable. */
        bool plain = !c->value_size && mask == (kb == 8 ? ~0ull : (1ull << (kb * 8)) - 1) &&
                     c->key_type == CLSORT_U32;
        double t0 = 0;
        if (plain && kb == 4) {
            uint32_t *copy = malloc(n * 4 + 4);
            if (copy) {
                memcpy(copy, keys, n * 4);
                t0 = now_ms();
                qsort(copy, n, 4, cmp_u32);
                row->qsort_ms = now_ms() - t0;
                for (size_t i = 0; i < n; i++)
                    ref[i].key = copy[i], ref[i].idx = i;
                free(copy);
                goto timed;
            }
        }
        for (size_t i = 0; i < n; i++) {
            ref[i].key = ord_key(c->key_type, keys, i) & mask;
            ref[i].idx = i;
        }
        t0 = now_ms();
        qsort(ref, n, sizeof *ref, cmp_rec);
        row->qsort_ms = now_ms() - t0;
    }
timed:
    if (cfg->host) {
        row->host = 1;
        st = host_timed(ctx, cfg, c, n, keys, vals, out_k, out_v, row, err, errsize);
        if (st == CLSORT_SUCCESS)
            row->correct = check_result(c, n, keys, ref, out_k, out_v);
        goto out;
    }

    cl_context clc = clsort_context_cl_context(ctx);
    cl_int e = CL_SUCCESS;
    b.pk = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * kb, NULL, &e);
    if (e == CL_SUCCESS)
        b.wk = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * kb, NULL, &e);
    if (e == CL_SUCCESS)
        b.tiny = clCreateBuffer(clc, CL_MEM_READ_WRITE, 64, NULL, &e);
    if (e == CL_SUCCESS && c->value_size)
        b.pv = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * c->value_size, NULL, &e);
    if (e == CL_SUCCESS && c->value_size)
        b.wv = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * c->value_size, NULL, &e);
    if (e == CL_SUCCESS)
        e = clEnqueueWriteBuffer(q, b.pk, CL_TRUE, 0, n * kb, keys, 0, NULL, NULL);
    if (e == CL_SUCCESS && c->value_size)
        e = clEnqueueWriteBuffer(q, b.pv, CL_TRUE, 0, n * c->value_size, vals, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        st = e;
        set_err(err, errsize, "allocating benchmark buffers", st, NULL);
        goto out;
    }
    /* Warm-up (builds or loads the kernels, grows the pool). */
    if (timed_sort(ctx, q, c, n, &b, &st) < 0) {
        set_err(err, errsize, c->name, st, ctx);
        goto out;
    }
    if (cfg->log && clsort_context_build_log(ctx)[0])
        fprintf(cfg->log, "--- build log (%s):\n%s\n", c->name, clsort_context_build_log(ctx));
    double times[1000];
    int reps = 0;
    double spent = 0;
    while (reps < 1000 && (reps < cfg->min_reps || spent < cfg->min_seconds * 1e3)) {
        double w0 = now_ms();
        double ms = timed_sort(ctx, q, c, n, &b, &st);
        if (ms < 0) {
            set_err(err, errsize, c->name, st, ctx);
            goto out;
        }
        times[reps++] = ms;
        spent += now_ms() - w0;
    }
    if (cfg->profile && clsort_context_set_profiling(ctx, 1) == CLSORT_SUCCESS) {
        timed_sort(ctx, q, c, n, &b, &st);
        clsort_context_profile(ctx, row->profile, sizeof row->profile);
        clsort_context_set_profiling(ctx, 0);
    }
    set_row_times(row, times, reps, n);
    e = clEnqueueReadBuffer(q, b.wk, CL_TRUE, 0, n * kb, out_k, 0, NULL, NULL);
    if (e == CL_SUCCESS && c->value_size)
        e = clEnqueueReadBuffer(q, b.wv, CL_TRUE, 0, n * c->value_size, out_v, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        st = e;
        set_err(err, errsize, "reading the result", st, NULL);
        goto out;
    }
    row->correct = check_result(c, n, keys, ref, out_k, out_v);
out:
    release_bufs(&b);
    free(keys);
    free(vals);
    free(out_k);
    free(out_v);
    free(ref);
    return st;
}

clsort_status bench_run(const bench_config *cfg, bench_row *rows, size_t cap, size_t *nrows,
                        char *err, size_t errsize)
{
    *nrows = 0;
    err[0] = '\0';
    clsort_context_config cc;
    memset(&cc, 0, sizeof cc);
    cc.device = cfg->device;
    cc.tuning = cfg->tuning;
    clsort_context *base = NULL;
    clsort_status st = clsort_context_create_with_config(&base, &cc);
    if (st != CLSORT_SUCCESS) {
        snprintf(err, errsize, "%s", clsort_context_last_error(NULL));
        return st;
    }
    /* A queue of our own with profiling, for device times. */
    cl_int e = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(clsort_context_cl_context(base),
                                              clsort_context_device(base),
                                              CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) {
        set_err(err, errsize, "creating a profiling queue", e, NULL);
        clsort_context_release(base);
        return e;
    }
    clsort_context *ctx = NULL;
    st = clsort_context_create_from_queue(&ctx, q, &cc);
    if (st != CLSORT_SUCCESS) {
        snprintf(err, errsize, "%s", clsort_context_last_error(NULL));
        clReleaseCommandQueue(q);
        clsort_context_release(base);
        return st;
    }
    /* the device's kernels are timed, never the host tier of cold ones */
    clsort_context_set_tuning(ctx, "tier_max=0");
    for (size_t ci = 0; ci < cfg->ncases && st == CLSORT_SUCCESS; ci++)
        for (size_t si = 0; si < cfg->nsizes && st == CLSORT_SUCCESS; si++) {
            if (*nrows >= cap)
                break;
            if (!cfg->keep_pool)
                clsort_context_trim(ctx, NULL);
            st = run_one(ctx, q, cfg, &cfg->cases[ci], cfg->sizes[si], &rows[*nrows], err,
                         errsize);
            if (st == CLSORT_SUCCESS) {
                if (cfg->stream) {
                    if (*nrows == 0)
                        bench_print_header(cfg->stream, &rows[0]);
                    bench_print_row(cfg->stream, &rows[*nrows]);
                    fflush(cfg->stream);
                }
                (*nrows)++;
            }
        }
    clsort_context_release(ctx);
    clReleaseCommandQueue(q);
    clsort_context_release(base);
    return st;
}

clsort_status bench_run_one(const char *device, const char *tuning, const bench_case *c, size_t n,
                            int min_reps, double min_seconds, int qsort, uint64_t seed,
                            bench_row *row, char *err, size_t errsize)
{
    bench_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = device;
    cfg.tuning = tuning;
    cfg.sizes = &n;
    cfg.nsizes = 1;
    cfg.cases = c;
    cfg.ncases = 1;
    cfg.min_reps = min_reps;
    cfg.min_seconds = min_seconds;
    cfg.qsort = qsort;
    cfg.seed = seed;
    size_t nr = 0;
    clsort_status st = bench_run(&cfg, row, 1, &nr, err, errsize);
    if (st == CLSORT_SUCCESS && nr != 1) {
        snprintf(err, errsize, "the benchmark gave no result");
        st = CLSORT_ERROR_INTERNAL;
    }
    return st;
}

void bench_print_header(FILE *f, const bench_row *first)
{
    if (first)
        fprintf(f, "device: %s (%s)\n", first->device,
                first->host ? "host arrays in and out, wall clock" : "device buffers, device time");
    fprintf(f, "%-12s %11s %11s %12s %11s %9s %5s %s\n", "case", "n", "time ms", "MKeys/s",
            "qsort ms", "speed-up", "reps", "check");
}

void bench_print_row(FILE *f, const bench_row *r)
{
    if (r->qsort_ms > 0)
        fprintf(f, "%-12s %11zu %11.3f %12.1f %11.1f %9.1f %5d %s\n", r->name, r->n, r->ms,
                r->mkeys, r->qsort_ms, r->speedup, r->reps, r->correct ? "ok" : "WRONG");
    else /* qsort not timed */
        fprintf(f, "%-12s %11zu %11.3f %12.1f %11s %9s %5d %s\n", r->name, r->n, r->ms, r->mkeys,
                "-", "-", r->reps, r->correct ? "ok" : "WRONG");
    if (r->profile[0])
        fprintf(f, "%s", r->profile);
}

void bench_print(FILE *f, const bench_row *rows, size_t nrows)
{
    bench_print_header(f, nrows ? &rows[0] : NULL);
    for (size_t i = 0; i < nrows; i++)
        bench_print_row(f, &rows[i]);
}

void bench_print_json(FILE *f, const bench_row *rows, size_t nrows)
{
    fprintf(f, "[\n");
    for (size_t i = 0; i < nrows; i++) {
        const bench_row *r = &rows[i];
        fprintf(f,
                "  {\"case\": \"%s\", \"device\": \"%s\", \"n\": %zu, \"ms\": %.6f, "
                "\"ms_min\": %.6f, \"mkeys_per_s\": %.3f, \"qsort_ms\": %.3f, \"speedup\": %.3f, "
                "\"reps\": %d, \"correct\": %s, \"timing\": \"%s\"}%s\n",
                r->name, r->device, r->n, r->ms, r->ms_min, r->mkeys, r->qsort_ms, r->speedup,
                r->reps, r->correct ? "true" : "false", r->host ? "host" : "device",
                i + 1 < nrows ? "," : "");
    }
    fprintf(f, "]\n");
}

double bench_copy_bandwidth(const char *device, char *err, size_t errsize)
{
    clsort_context *base = NULL;
    if (clsort_context_create(&base, device) != CLSORT_SUCCESS) {
        snprintf(err, errsize, "%s", clsort_context_last_error(NULL));
        return -1;
    }
    clsort_device_info info;
    clsort_context_device_info(base, &info);
    size_t bytes = (size_t)1 << 30;
    if (bytes > info.max_alloc_bytes / 2)
        bytes = (size_t)(info.max_alloc_bytes / 2) & ~(size_t)4095;
    cl_context clc = clsort_context_cl_context(base);
    cl_int e = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(clc, clsort_context_device(base),
                                              CL_QUEUE_PROFILING_ENABLE, &e);
    cl_mem a = e == CL_SUCCESS ? clCreateBuffer(clc, CL_MEM_READ_WRITE, bytes, NULL, &e) : NULL;
    cl_mem b = e == CL_SUCCESS ? clCreateBuffer(clc, CL_MEM_READ_WRITE, bytes, NULL, &e) : NULL;
    double best[9];
    int k = 0;
    const cl_uint pattern = 0x12345678;
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(q, a, &pattern, 4, 0, bytes, 0, NULL, NULL);
    for (int r = 0; r < 10 && e == CL_SUCCESS; r++) {
        cl_event ev;
        e = clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, NULL, &ev);
        if (e != CL_SUCCESS)
            break;
        clWaitForEvents(1, &ev);
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev);
        if (r > 0 && t1 > t0)
            best[k++] = 2.0 * (double)bytes / (double)(t1 - t0); /* bytes per ns = GB/s */
    }
    double gbs = -1;
    if (e != CL_SUCCESS)
        snprintf(err, errsize, "copy bandwidth: %s", clsort_status_string(e));
    else if (k > 0) {
        qsort(best, (size_t)k, sizeof best[0], cmp_double);
        gbs = best[k / 2];
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    if (q)
        clReleaseCommandQueue(q);
    clsort_context_release(base);
    return gbs;
}

static const char *algo_name(clsort_algorithm a)
{
    switch (a) {
    case CLSORT_ALGORITHM_SELECTION: return "selection";
    case CLSORT_ALGORITHM_SELECTION_LOCAL: return "selection+local";
    case CLSORT_ALGORITHM_BITONIC: return "bitonic+local";
    case CLSORT_ALGORITHM_BITONIC_GLOBAL: return "bitonic";
    case CLSORT_ALGORITHM_ONESWEEP: return "radix onesweep";
    case CLSORT_ALGORITHM_CLASSIC: return "radix classic";
    default: return "auto (tuned)";
    }
}

clsort_status bench_algorithms(const char *device, const char *tuning, unsigned log2_min,
                               unsigned log2_max, unsigned sel_log2_max, size_t batch_count,
                               size_t batch_len, FILE *out, FILE *json, char *err,
                               size_t errsize)
{
    static const clsort_algorithm algos[] = {
        CLSORT_ALGORITHM_SELECTION, CLSORT_ALGORITHM_SELECTION_LOCAL, CLSORT_ALGORITHM_BITONIC_GLOBAL,
        CLSORT_ALGORITHM_BITONIC, CLSORT_ALGORITHM_ONESWEEP, CLSORT_ALGORITHM_CLASSIC};
    const size_t na = sizeof algos / sizeof algos[0];
    const unsigned nl = log2_max >= log2_min ? log2_max - log2_min + 1 : 0;
    double *rate = calloc(na * nl + 1, sizeof *rate);
    char dev[128] = "";
    int first_json = 1;
    if (json)
        fprintf(json, "[\n");
    clsort_status st = CLSORT_SUCCESS;
    /* Bainville's table: u32 keys with u32 values (his key+value records) */
    for (size_t a = 0; a < na && st == CLSORT_SUCCESS; a++)
        for (unsigned l = log2_min; l <= log2_max; l++) {
            bool sel = algos[a] == CLSORT_ALGORITHM_SELECTION ||
                       algos[a] == CLSORT_ALGORITHM_SELECTION_LOCAL;
            if (sel && l > sel_log2_max)
                continue;
            bench_case c = {"u32+4", CLSORT_U32, 4, 0, 0, DATA_UNIFORM, algos[a], 0};
            const size_t n = (size_t)1 << l;
            bench_row row;
            st = bench_run_one(device, tuning, &c, n, 3, 0.1, 0, 20111, &row, err, errsize);
            if (st == CLSORT_SUCCESS) {
                rate[a * nl + (l - log2_min)] = row.correct ? row.mkeys : -1;
                snprintf(dev, sizeof dev, "%s", row.device);
                if (json)
                    fprintf(json,
                            "%s  {\"table\": \"algorithms\", \"algorithm\": \"%s\", \"device\": "
                            "\"%s\", \"n\": %zu, \"ms\": %.6f, \"mkeys_per_s\": %.3f, "
                            "\"correct\": %s}",
                            first_json ? "" : ",\n", algo_name(algos[a]), row.device, n, row.ms,
                            row.mkeys, row.correct ? "true" : "false"),
                        first_json = 0;
            }
        }
    if (st == CLSORT_SUCCESS && nl) {
        fprintf(out, "device: %s\nsort rate of u32 keys with u32 values, MKeys/s (Bainville's table)\n",
                dev);
        fprintf(out, "%-8s", "log2 N");
        for (size_t a = 0; a < na; a++)
            fprintf(out, " %15s", algo_name(algos[a]));
        fprintf(out, "\n");
        for (unsigned l = log2_min; l <= log2_max; l++) {
            fprintf(out, "%-8u", l);
            for (size_t a = 0; a < na; a++) {
                double r = rate[a * nl + (l - log2_min)];
                if (r > 0)
                    fprintf(out, " %15.1f", r);
                else
                    fprintf(out, " %15s", r < 0 ? "WRONG" : "-");
            }
            fprintf(out, "\n");
        }
    }
    /* Zucchi's batch: count arrays of len keys */
    static const clsort_algorithm balgos[] = {CLSORT_ALGORITHM_BITONIC_GLOBAL,
                                              CLSORT_ALGORITHM_BITONIC, CLSORT_ALGORITHM_ONESWEEP,
                                              CLSORT_ALGORITHM_CLASSIC, CLSORT_ALGORITHM_AUTO};
    if (st == CLSORT_SUCCESS && batch_count && batch_len) {
        fprintf(out, "\nbatch of %zu arrays x %zu u32 keys (Zucchi)\n%-16s %12s %12s %8s\n",
                batch_count, batch_len, "algorithm", "time ms", "MKeys/s", "check");
        double cpu_ms = 0;
        for (size_t a = 0; a < sizeof balgos / sizeof balgos[0] && st == CLSORT_SUCCESS; a++) {
            bench_case c = {"batch", CLSORT_U32, 0, 0, 0, DATA_UNIFORM, balgos[a], batch_len};
            const size_t n = batch_count * batch_len;
            bench_row row;
            st = bench_run_one(device, tuning, &c, n, 5, 0.2, a == 0, 20131, &row, err, errsize);
            if (st != CLSORT_SUCCESS)
                break;
            if (a == 0)
                cpu_ms = row.qsort_ms;
            fprintf(out, "%-16s %12.3f %12.1f %8s\n", algo_name(balgos[a]), row.ms, row.mkeys,
                    row.correct ? "ok" : "WRONG");
            if (json)
                fprintf(json,
                        "%s  {\"table\": \"batch\", \"algorithm\": \"%s\", \"device\": \"%s\", "
                        "\"count\": %zu, \"length\": %zu, \"ms\": %.6f, \"correct\": %s}",
                        first_json ? "" : ",\n", algo_name(balgos[a]), row.device, batch_count,
                        batch_len, row.ms, row.correct ? "true" : "false"),
                    first_json = 0;
        }
        if (st == CLSORT_SUCCESS)
            fprintf(out, "%-16s %12.3f %12.1f %8s\n", "qsort (host)", cpu_ms,
                    cpu_ms > 0 ? (double)(batch_count * batch_len) / cpu_ms / 1e3 : 0, "");
    }
    if (json)
        fprintf(json, "\n]\n");
    free(rate);
    return st;
}

/* ------------------------------------------------------------------ scans */

static double timed_scan(clsort_context *ctx, cl_command_queue q, clsort_type t, cl_mem in,
                         cl_mem out, cl_mem tiny, size_t n, clsort_status *st)
{
    cl_event e0 = NULL;
    cl_int err = clEnqueueCopyBuffer(q, tiny, tiny, 0, 32, 4, 0, NULL, &e0);
    if (err != CL_SUCCESS) {
        *st = err;
        return -1;
    }
    *st = clsort_scan_buffer(ctx, t, in, 0, out, 0, n, 0, 0, NULL, NULL);
    return timed_end(q, e0, out, tiny, st);
}

/* Exclusive scan on the host, the check's reference; 1 if out matches. */
static int check_scan(clsort_type t, const void *in, const void *out, size_t n)
{
    if (t == CLSORT_U32) {
        const uint32_t *a = in, *b = out;
        uint32_t s = 0;
        for (size_t i = 0; i < n; s += a[i], i++)
            if (b[i] != s)
                return 0;
    } else if (t == CLSORT_U64) {
        const uint64_t *a = in, *b = out;
        uint64_t s = 0;
        for (size_t i = 0; i < n; s += a[i], i++)
            if (b[i] != s)
                return 0;
    } else { /* f32: tree order against a double sum, relative to the total */
        const float *a = in, *b = out;
        double s = 0, total = 0;
        for (size_t i = 0; i < n; i++)
            total += fabs((double)a[i]);
        for (size_t i = 0; i < n; s += a[i], i++)
            if (fabs((double)b[i] - s) > 1e-5 * (total + 1))
                return 0;
    }
    return 1;
}

clsort_status bench_scan(const char *device, const char *tuning, const size_t *sizes,
                         size_t nsizes, uint64_t seed, FILE *out, FILE *json, char *err,
                         size_t errsize)
{
    err[0] = '\0';
    clsort_context_config cc;
    memset(&cc, 0, sizeof cc);
    cc.device = device;
    cc.tuning = tuning;
    clsort_context *base = NULL, *ctx = NULL;
    clsort_status st = clsort_context_create_with_config(&base, &cc);
    if (st != CLSORT_SUCCESS) {
        snprintf(err, errsize, "%s", clsort_context_last_error(NULL));
        return st;
    }
    cl_context clc = clsort_context_cl_context(base);
    cl_int e = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(clc, clsort_context_device(base),
                                              CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) {
        set_err(err, errsize, "creating a profiling queue", e, NULL);
        clsort_context_release(base);
        return e;
    }
    st = clsort_context_create_from_queue(&ctx, q, &cc);
    if (st != CLSORT_SUCCESS) {
        snprintf(err, errsize, "%s", clsort_context_last_error(NULL));
        clReleaseCommandQueue(q);
        clsort_context_release(base);
        return st;
    }
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    fprintf(out, "device: %s\nexclusive scans of device buffers (in -> out), median device time; "
                 "GB/s counts one read and one write of each element\n",
            info.device_name);
    fprintf(out, "%-6s %12s %10s %12s %9s %s\n", "type", "n", "time ms", "MElems/s", "GB/s",
            "check");
    if (json)
        fprintf(json, "[\n");
    static const clsort_type types[] = {CLSORT_U32, CLSORT_U64, CLSORT_F32};
    int first = 1;
    for (size_t ti = 0; ti < 3 && st == CLSORT_SUCCESS; ti++)
        for (size_t si = 0; si < nsizes && st == CLSORT_SUCCESS; si++) {
            const clsort_type t = types[ti];
            const size_t n = sizes[si], es = clsort_type_size(t), bytes = (n ? n : 1) * es;
            unsigned char *h = malloc(bytes), *r = malloc(bytes);
            cl_mem in = NULL, o = NULL, tiny = NULL;
            if (!h || !r) {
                snprintf(err, errsize, "out of host memory for n = %zu", n);
                st = CLSORT_ERROR_OUT_OF_HOST_MEMORY;
                goto next;
            }
            /* values below 2^16 (u32 sums wrap; u64 sums pass 2^32 at 2^16+ elements) */
            uint32_t *tmp = malloc((n ? n : 1) * 4);
            if (!tmp) {
                snprintf(err, errsize, "out of host memory for n = %zu", n);
                st = CLSORT_ERROR_OUT_OF_HOST_MEMORY;
                goto next;
            }
            data_fill(tmp, CLSORT_U32, n, DATA_NARROW_16, seed + n + ti);
            for (size_t i = 0; i < n; i++) {
                if (t == CLSORT_U32)
                    ((uint32_t *)h)[i] = tmp[i];
                else if (t == CLSORT_U64)
                    ((uint64_t *)h)[i] = (uint64_t)tmp[i] << 16 | (tmp[i] & 0xffff);
                else
                    ((float *)h)[i] = (float)(tmp[i] & 0xff) / 256.0f;
            }
            free(tmp);
            in = clCreateBuffer(clc, CL_MEM_READ_WRITE, bytes, NULL, &e);
            if (e == CL_SUCCESS)
                o = clCreateBuffer(clc, CL_MEM_READ_WRITE, bytes, NULL, &e);
            if (e == CL_SUCCESS)
                tiny = clCreateBuffer(clc, CL_MEM_READ_WRITE, 64, NULL, &e);
            if (e == CL_SUCCESS)
                e = clEnqueueWriteBuffer(q, in, CL_TRUE, 0, n * es, h, 0, NULL, NULL);
            if (e != CL_SUCCESS) {
                st = e;
                set_err(err, errsize, "allocating scan buffers", st, NULL);
                goto next;
            }
            double times[200];
            int reps = 0;
            double ms = timed_scan(ctx, q, t, in, o, tiny, n, &st); /* warm-up */
            while (ms >= 0 && reps < 200 && (reps < 10 || (reps < 200 && times[0] * reps < 300))) {
                ms = timed_scan(ctx, q, t, in, o, tiny, n, &st);
                if (ms >= 0)
                    times[reps++] = ms;
            }
            if (ms < 0) {
                set_err(err, errsize, "scan", st, ctx);
                goto next;
            }
            qsort(times, (size_t)reps, sizeof times[0], cmp_double);
            const double med = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
            e = clEnqueueReadBuffer(q, o, CL_TRUE, 0, n * es, r, 0, NULL, NULL);
            int ok = e == CL_SUCCESS && check_scan(t, h, r, n);
            fprintf(out, "%-6s %12zu %10.3f %12.1f %9.1f %s\n", clsort_type_name(t), n, med,
                    med > 0 ? n / med / 1e3 : 0, med > 0 ? 2.0 * n * es / med / 1e6 : 0,
                    ok ? "ok" : "WRONG");
            if (json)
                fprintf(json, "%s  {\"device\": \"%s\", \"case\": \"scan %s\", \"n\": %zu, \"ms\": %.6f, "
                              "\"gbs\": %.2f, \"correct\": %s}",
                        first ? "" : ",\n", info.device_name, clsort_type_name(t), n, med,
                        med > 0 ? 2.0 * n * es / med / 1e6 : 0, ok ? "true" : "false");
            first = 0;
            if (!ok)
                st = CLSORT_ERROR_INTERNAL, snprintf(err, errsize, "scan %s n=%zu: wrong result",
                                                     clsort_type_name(t), n);
        next:
            if (in)
                clReleaseMemObject(in);
            if (o)
                clReleaseMemObject(o);
            if (tiny)
                clReleaseMemObject(tiny);
            free(h);
            free(r);
        }
    if (json)
        fprintf(json, "\n]\n");
    clsort_context_release(ctx);
    clReleaseCommandQueue(q);
    clsort_context_release(base);
    return st;
}

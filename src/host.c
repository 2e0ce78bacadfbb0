#define _POSIX_C_SOURCE 200809L
/* host.c - moving the caller's host arrays to the device and back, and
 * merging sorted runs on the host.
 *
 * - Staged copies (discrete devices): the pool's pinned chunks
 *   (CL_MEM_ALLOC_HOST_PTR, mapped once) carry the data. Host threads copy
 *   the caller's pages into one chunk while the device reads the chunks
 *   before it; results come back the same way.
 * - Wrapped arrays (devices that share host memory): the caller's array
 *   becomes a CL_MEM_USE_HOST_PTR buffer and is sorted where it is.
 * - Runs: an array larger than the device memory the context may use is
 *   sorted in runs (sort.c), which clsort_host_merge merges on the host,
 *   stably, by several threads. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- threads */

struct clsort_team {
    unsigned n; /* threads working, the caller's included */
    pthread_t th[CLSORT_HOST_MAX_THREADS];
    unsigned idx[CLSORT_HOST_MAX_THREADS];
    pthread_mutex_t m;
    pthread_cond_t go, done;
    unsigned gen, pending;
    bool quit;
    void (*fn)(void *arg, unsigned j, unsigned n);
    void *arg;
};

typedef struct worker_arg {
    clsort_team *t;
    unsigned j;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    clsort_team *t = w->t;
    const unsigned j = w->j;
    free(w);
    unsigned seen = 0;
    pthread_mutex_lock(&t->m);
    for (;;) {
        while (t->gen == seen && !t->quit)
            pthread_cond_wait(&t->go, &t->m);
        if (t->quit)
            break;
        seen = t->gen;
        void (*fn)(void *, unsigned, unsigned) = t->fn;
        void *arg = t->arg;
        unsigned n = t->n;
        pthread_mutex_unlock(&t->m);
        fn(arg, j, n);
        pthread_mutex_lock(&t->m);
        if (--t->pending == 0)
            pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->m);
    return NULL;
}

unsigned clsort_host_threads(const clsort_context *ctx)
{
    unsigned want = ctx->host_threads;
    if (want == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        want = cpus > 0 ? (unsigned)cpus : 1;
        if (want > 16) /* more threads add no copy bandwidth */
            want = 16;
    }
    return want > CLSORT_HOST_MAX_THREADS ? CLSORT_HOST_MAX_THREADS : want;
}

/* A team of up to `want` threads, the caller's included; fewer when threads
 * cannot be created (never none: the caller always works). */
clsort_team *clsort_team_start(unsigned want)
{
    clsort_team *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->m, NULL);
    pthread_cond_init(&t->go, NULL);
    pthread_cond_init(&t->done, NULL);
    t->n = 1;
    if (want > CLSORT_HOST_MAX_THREADS)
        want = CLSORT_HOST_MAX_THREADS;
    for (unsigned j = 1; j < want; j++) {
        worker_arg *w = malloc(sizeof *w);
        if (!w)
            break;
        w->t = t;
        w->j = j;
        if (pthread_create(&t->th[j], NULL, worker, w) != 0) {
            free(w);
            break;
        }
        t->n = j + 1;
    }
    return t;
}

unsigned clsort_team_size(const clsort_team *t) { return t ? t->n : 1; }

/* Runs fn(arg, j, n) on every thread of the team and returns when all are
 * done. t NULL: on the caller alone. */
void clsort_team_run(clsort_team *t, void (*fn)(void *arg, unsigned j, unsigned n), void *arg)
{
    if (!t || t->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&t->m);
    t->fn = fn;
    t->arg = arg;
    t->pending = t->n - 1;
    t->gen++;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->m);
    fn(arg, 0, t->n);
    pthread_mutex_lock(&t->m);
    while (t->pending)
        pthread_cond_wait(&t->done, &t->m);
    pthread_mutex_unlock(&t->m);
}

void clsort_team_stop(clsort_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->m);
    t->quit = true;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->m);
    for (unsigned j = 1; j < t->n; j++)
        pthread_join(t->th[j], NULL);
    pthread_mutex_destroy(&t->m);
    pthread_cond_destroy(&t->go);
    pthread_cond_destroy(&t->done);
    free(t);
}

/* ------------------------------------------------------------- copies */

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t bytes;
} copy_job;

/* Slices of whole pages, so that two threads never write one cache line. */
static void copy_slice(void *p, unsigned j, unsigned n)
{
    const copy_job *c = p;
    const size_t page = 4096;
    size_t per = ((c->bytes + n - 1) / n + page - 1) / page * page;
    size_t lo = (size_t)j * per;
    if (lo >= c->bytes)
        return;
    size_t hi = lo + per < c->bytes ? lo + per : c->bytes;
    memcpy(c->dst + lo, c->src + lo, hi - lo);
}

/* Copies below this many bytes run on the caller's thread alone. */
#define PARALLEL_COPY_MIN ((size_t)1 << 20)

void clsort_host_copy(clsort_team *t, void *dst, const void *src, size_t bytes)
{
    copy_job c = {dst, src, bytes};
    if (bytes < PARALLEL_COPY_MIN)
        memcpy(dst, src, bytes);
    else
        clsort_team_run(t, copy_slice, &c);
}

/* ---------------------------------------------------- pinned staging */

bool clsort_host_staged(const clsort_context *ctx, size_t bytes)
{
    return ctx->host_path != CLSORT_HOST_COPY && bytes >= ctx->stage_min;
}

size_t clsort_stage_chunk(const clsort_context *ctx)
{
    return ctx->host_chunk ? ctx->host_chunk : CLSORT_HOST_CHUNK_DEFAULT;
}

/* Allocates and maps the pool's pinned chunks (once per context). */
static clsort_status stage_ready(clsort_context *ctx)
{
    if (ctx->stage[0])
        return CLSORT_SUCCESS;
    const size_t chunk = clsort_stage_chunk(ctx);
    for (int s = 0; s < CLSORT_STAGE_SLOTS; s++) {
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, chunk, NULL,
                                  &err);
        void *p = NULL;
        if (err == CL_SUCCESS)
            p = clEnqueueMapBuffer(ctx->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, chunk, 0,
                                   NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            if (m)
                clReleaseMemObject(m);
            clsort_stage_release(ctx);
            return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                               "allocating %zu bytes of pinned host memory failed: %s", chunk,
                               clsort_status_string(err));
        }
        ctx->stage[s] = m;
        ctx->stage_ptr[s] = p;
    }
    ctx->stage_bytes = chunk;
    return CLSORT_SUCCESS;
}

void clsort_stage_release(clsort_context *ctx)
{
    for (int s = 0; s < CLSORT_STAGE_SLOTS; s++) {
        if (ctx->stage[s]) {
            if (ctx->stage_ptr[s])
                clEnqueueUnmapMemObject(ctx->queue, ctx->stage[s], ctx->stage_ptr[s], 0, NULL,
                                        NULL);
            clFinish(ctx->queue);
            clReleaseMemObject(ctx->stage[s]);
        }
        ctx->stage[s] = NULL;
        ctx->stage_ptr[s] = NULL;
    }
    ctx->stage_bytes = 0;
}

/* Waits for the events and releases them; the first error. */
static cl_int wait_all(cl_event *ev, int n)
{
    cl_int first = CL_SUCCESS;
    for (int s = 0; s < n; s++) {
        if (!ev[s])
            continue;
        cl_int err = clWaitForEvents(1, &ev[s]);
        clReleaseEvent(ev[s]);
        ev[s] = NULL;
        if (first == CL_SUCCESS)
            first = err;
    }
    return first;
}

clsort_status clsort_host_upload(clsort_context *ctx, clsort_team *t, cl_mem dst, size_t dst_off,
                                 const void *src, size_t bytes)
{
    if (bytes == 0)
        return CLSORT_SUCCESS;
    if (!clsort_host_staged(ctx, bytes)) {
        /* small: the driver's own copy has less latency */
        cl_int err = clEnqueueWriteBuffer(ctx->queue, dst, CL_FALSE, dst_off, bytes, src, 0, NULL,
                                          NULL);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, err, "copying to the device failed: %s",
                               clsort_status_string(err));
        return CLSORT_SUCCESS;
    }
    CLSORT_TRY(stage_ready(ctx));
    const size_t chunk = ctx->stage_bytes;
    cl_event ev[CLSORT_STAGE_SLOTS] = {0};
    cl_int err = CL_SUCCESS;
    size_t i = 0;
    for (size_t off = 0; off < bytes && err == CL_SUCCESS; off += chunk, i++) {
        const size_t len = bytes - off < chunk ? bytes - off : chunk;
        const int s = (int)(i % CLSORT_STAGE_SLOTS);
        if (ev[s])
            err = wait_all(&ev[s], 1);
        if (err != CL_SUCCESS)
            break;
        clsort_host_copy(t, ctx->stage_ptr[s], (const char *)src + off, len);
        err = clEnqueueWriteBuffer(ctx->queue, dst, CL_FALSE, dst_off + off, len, ctx->stage_ptr[s],
                                   0, NULL, &ev[s]);
        if (err == CL_SUCCESS)
            err = clFlush(ctx->queue);
    }
    cl_int w = wait_all(ev, CLSORT_STAGE_SLOTS);
    if (err == CL_SUCCESS)
        err = w;
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, err, "copying to the device failed: %s", clsort_status_string(err));
    return CLSORT_SUCCESS;
}

clsort_status clsort_host_download(clsort_context *ctx, clsort_team *t, cl_mem src, size_t src_off,
                                   void *dst, size_t bytes)
{
    if (bytes == 0)
        return CLSORT_SUCCESS;
    cl_int err;
    if (!clsort_host_staged(ctx, bytes)) {
        err = clEnqueueReadBuffer(ctx->queue, src, CL_TRUE, src_off, bytes, dst, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, err, "copying from the device failed: %s",
                               clsort_status_string(err));
        return CLSORT_SUCCESS;
    }
    CLSORT_TRY(stage_ready(ctx));
    const size_t chunk = ctx->stage_bytes;
    const size_t nchunks = (bytes + chunk - 1) / chunk;
    cl_event ev[CLSORT_STAGE_SLOTS] = {0};
    err = CL_SUCCESS;
    /* chunk i travels through slot i % SLOTS; the next reads are queued
     * while the host copies the chunk that has arrived */
    for (size_t i = 0; i < nchunks && i < CLSORT_STAGE_SLOTS && err == CL_SUCCESS; i++) {
        const size_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        err = clEnqueueReadBuffer(ctx->queue, src, CL_FALSE, src_off + off, len, ctx->stage_ptr[i],
                                  0, NULL, &ev[i]);
    }
    if (err == CL_SUCCESS)
        err = clFlush(ctx->queue);
    for (size_t i = 0; i < nchunks && err == CL_SUCCESS; i++) {
        const int s = (int)(i % CLSORT_STAGE_SLOTS);
        const size_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        err = wait_all(&ev[s], 1);
        if (err != CL_SUCCESS)
            break;
        clsort_host_copy(t, (char *)dst + off, ctx->stage_ptr[s], len);
        const size_t next = i + CLSORT_STAGE_SLOTS;
        if (next < nchunks) {
            const size_t noff = next * chunk, nlen = bytes - noff < chunk ? bytes - noff : chunk;
            err = clEnqueueReadBuffer(ctx->queue, src, CL_FALSE, src_off + noff, nlen,
                                      ctx->stage_ptr[s], 0, NULL, &ev[s]);
            if (err == CL_SUCCESS)
                err = clFlush(ctx->queue);
        }
    }
    cl_int w = wait_all(ev, CLSORT_STAGE_SLOTS);
    if (err == CL_SUCCESS)
        err = w;
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, err, "copying from the device failed: %s",
                           clsort_status_string(err));
    return CLSORT_SUCCESS;
}

/* A copy through the buffer mapped into host memory, by the team's threads
 * (devices that share host memory: one copy, where the driver's own would
 * be one thread's, and staging two). */
clsort_status clsort_host_map_copy(clsort_context *ctx, clsort_team *t, cl_mem buf, size_t off,
                                   void *host, size_t bytes, bool to_buffer)
{
    cl_int err = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(ctx->queue, buf, CL_TRUE,
                                 to_buffer ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ, off,
                                 bytes, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
        if (to_buffer)
            clsort_host_copy(t, p, host, bytes);
        else
            clsort_host_copy(t, host, p, bytes);
        err = clEnqueueUnmapMemObject(ctx->queue, buf, p, 0, NULL, NULL);
        cl_int fin = clFinish(ctx->queue);
        if (err == CL_SUCCESS)
            err = fin;
    }
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, err, "copying %s the device failed: %s", to_buffer ? "to" : "from",
                           clsort_status_string(err));
    return CLSORT_SUCCESS;
}

/* -------------------------------------------------------- wrapped arrays */

clsort_status clsort_host_wrap(clsort_context *ctx, void *ptr, size_t bytes, bool read_only,
                               cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl, (read_only ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) |
                                       CL_MEM_USE_HOST_PTR,
                          bytes, ptr, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return clsort_fail(ctx, err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                        err == CL_OUT_OF_HOST_MEMORY
                                    ? CLSORT_ERROR_OUT_OF_HOST_MEMORY
                                    : err,
                           "wrapping %zu bytes of host memory failed: %s", bytes,
                           clsort_status_string(err));
    }
    return CLSORT_SUCCESS;
}

/* Makes the host copy of a wrapped array current (a map and unmap: a no-op
 * where the device used the memory in place). */
cl_int clsort_host_sync(clsort_context *ctx, cl_mem m, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(ctx->queue, m, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL,
                                 &err);
    if (err != CL_SUCCESS)
        return err;
    err = clEnqueueUnmapMemObject(ctx->queue, m, p, 0, NULL, NULL);
    cl_int fin = clFinish(ctx->queue);
    return err != CL_SUCCESS ? err : fin;
}

/* ------------------------------------------------------------- merging */

/* The key's order-preserving unsigned image over the bit window, inverted
 * for descending order (as the kernels order keys; see clsort.h), from its
 * bits. */
static inline uint64_t image_bits(const clsort_merge *m, uint64_t u)
{
    u = clsort_key_image(u, m->key_bytes, m->key_kind);
    u >>= m->begin_bit;
    const unsigned w = m->end_bit - m->begin_bit;
    if (w < 64)
        u &= ((uint64_t)1 << w) - 1;
    return m->descending ? ~u : u;
}

static inline uint64_t image_of(const clsort_merge *m, const char *key)
{
    return image_bits(m, clsort_load_bits(key, m->key_bytes));
}

/* The key of element i of a run (through the index when merging argsort
 * positions). */
static inline uint64_t key_at(const clsort_merge *m, const char *keys, const char *idx, size_t i)
{
    if (m->by_index) {
        uint64_t p;
        if (m->index_bytes == 4) {
            uint32_t v;
            memcpy(&v, idx + i * 4, 4);
            p = v;
        } else {
            memcpy(&p, idx + i * 8, 8);
        }
        return image_of(m, m->keys_base + p * m->key_bytes);
    }
    return image_of(m, keys + i * m->key_bytes);
}

typedef struct side {
    const char *k, *v; /* keys (not by_index), records */
    size_t n;
} side;

typedef struct merge_pass {
    const clsort_merge *m;
    side a, b;
    char *ok, *ov; /* outputs */
    size_t rec;    /* bytes per record of the second array (values or indices) */
} merge_pass;

/* How many of the first d outputs come from a (ties: a first). */
static size_t split_at(const merge_pass *p, size_t d)
{
    size_t lo = d > p->b.n ? d - p->b.n : 0, hi = d < p->a.n ? d : p->a.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_at(p->m, p->a.k, p->a.v, mid) <= key_at(p->m, p->b.k, p->b.v, d - mid - 1))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Copies one record of b bytes (a constant after inlining for the usual
 * sizes). */
static inline void copy_rec(char *d, const char *s, size_t b)
{
    switch (b) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, b); break;
    }
}

/* Merges outputs [d0, d1) of a pass. The side to take is computed without
 * a branch on it (its outcome is random on random keys), and the keys are
 * stored from the bits already loaded: a load through the chosen pointer
 * would make each step wait for the comparison. */
static inline void merge_range(const merge_pass *p, size_t d0, size_t d1, size_t kb, size_t rb)
{
    /* a local copy of the order: the stores through char pointers below
     * could alias *p->m, and its fields would be loaded again every step */
    const clsort_merge mo = *p->m;
    const clsort_merge *m = &mo;
    size_t i = split_at(p, d0), k = d0 - i;
    const size_t iend = split_at(p, d1), kend = d1 - iend;
    char *ok = p->ok ? p->ok + d0 * kb : NULL, *ov = p->ov ? p->ov + d0 * rb : NULL;
    const char *ak = p->a.k, *av = p->a.v, *bk = p->b.k, *bv = p->b.v;
    if (kb) { /* keys carried: the loaded bits are stored, no second load */
        while (i < iend && k < kend) {
            const uint64_t ra = clsort_load_bits(ak + i * kb, (unsigned)kb);
            const uint64_t rk = clsort_load_bits(bk + k * kb, (unsigned)kb);
            const bool take_a = image_bits(m, ra) <= image_bits(m, rk);
            clsort_store_bits(ok, take_a ? ra : rk, (unsigned)kb);
            ok += kb;
            if (rb) {
                copy_rec(ov, take_a ? av + i * rb : bv + k * rb, rb);
                ov += rb;
            }
            i += take_a;
            k += !take_a;
        }
    } else { /* argsort positions: keys through the positions */
        while (i < iend && k < kend) {
            const bool take_a = key_at(m, ak, av, i) <= key_at(m, bk, bv, k);
            copy_rec(ov, take_a ? av + i * rb : bv + k * rb, rb);
            ov += rb;
            i += take_a;
            k += !take_a;
        }
    }
    /* one side is done: the rest of the other follows as it is */
    const char *rk = i < iend ? ak + i * kb : bk + k * kb;
    const char *rv = i < iend ? av + i * rb : bv + k * rb;
    const size_t rest = i < iend ? iend - i : kend - k;
    if (kb)
        memcpy(ok, rk, rest * kb);
    if (rb)
        memcpy(ov, rv, rest * rb);
}

/* Integer keys alone over their full width, ascending (the most common
 * shape): compared as they are (signed ones with the sign bit flipped),
 * with no image to compute (docs/PERFORMANCE.md, decision log of the host
 * path). */
#define CLSORT_DEFINE_MERGE_INT(NAME, T, FLIP)                                               \
    static void NAME(const merge_pass *p, size_t d0, size_t d1)                              \
    {                                                                                        \
        const T flip = (FLIP);                                                               \
        size_t i = split_at(p, d0), k = d0 - i;                                              \
        const size_t iend = split_at(p, d1), kend = d1 - iend;                               \
        const T *a = (const T *)(const void *)p->a.k, *b = (const T *)(const void *)p->b.k;  \
        T *out = (T *)(void *)p->ok + d0;                                                    \
        while (i < iend && k < kend) {                                                       \
            const T x = a[i], y = b[k];                                                      \
            const bool take_a = (T)(x ^ flip) <= (T)(y ^ flip);                              \
            *out++ = take_a ? x : y;                                                         \
            i += take_a;                                                                     \
            k += !take_a;                                                                    \
        }                                                                                    \
        if (i < iend)                                                                        \
            memcpy(out, a + i, (iend - i) * sizeof(T));                                      \
        else                                                                                 \
            memcpy(out, b + k, (kend - k) * sizeof(T));                                      \
    }
CLSORT_DEFINE_MERGE_INT(merge_range_u32, uint32_t, 0)
CLSORT_DEFINE_MERGE_INT(merge_range_i32, uint32_t, 0x80000000u)
CLSORT_DEFINE_MERGE_INT(merge_range_u64, uint64_t, 0)
CLSORT_DEFINE_MERGE_INT(merge_range_i64, uint64_t, 0x8000000000000000ull)

static void merge_part(void *arg, unsigned j, unsigned n)
{
    const merge_pass *p = arg;
    const size_t total = p->a.n + p->b.n;
    const size_t d0 = total * j / n, d1 = total * (j + 1) / n;
    if (d0 == d1)
        return;
    const size_t kb = p->m->by_index ? 0 : p->m->key_bytes, rb = p->rec;
    /* the common shapes with constant sizes */
    const clsort_merge *m = p->m;
    const bool plain_int = rb == 0 && m->key_kind < 2 && m->begin_bit == 0 &&
                           m->end_bit == kb * 8 && !m->descending;
    if (plain_int && kb == 4)
        (m->key_kind ? merge_range_i32 : merge_range_u32)(p, d0, d1);
    else if (plain_int && kb == 8)
        (m->key_kind ? merge_range_i64 : merge_range_u64)(p, d0, d1);
    else if (kb == 4 && rb == 0)
        merge_range(p, d0, d1, 4, 0);
    else if (kb == 8 && rb == 0)
        merge_range(p, d0, d1, 8, 0);
    else if (kb == 4 && rb == 4)
        merge_range(p, d0, d1, 4, 4);
    else
        merge_range(p, d0, d1, kb, rb);
}

/* Merges the sorted runs of m (run r: elements [starts[r], starts[r+1]),
 * in the caller's arrays or, with runs_in_scratch, in the scratch arrays)
 * into one sorted, stable sequence, in rounds of pairs; the result ends in
 * the caller's arrays. */
void clsort_host_merge(clsort_team *t, const clsort_merge *m)
{
    const size_t kb = m->by_index ? 0 : m->key_bytes;
    const size_t rb = m->by_index ? m->index_bytes : m->value_bytes;
    size_t nruns = m->nruns;
    size_t *starts = m->starts; /* rewritten in place, round by round */
    char *home_k = m->keys, *home_v = m->by_index ? m->indices : m->values;
    char *sk = home_k, *sv = home_v, *dk = m->scratch_keys, *dv = m->scratch_vals;
    if (m->runs_in_scratch) {
        sk = m->scratch_keys;
        sv = m->scratch_vals;
        dk = home_k;
        dv = home_v;
    }
    while (nruns > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nruns; r += 2) {
            const size_t lo = starts[r];
            if (r + 1 == nruns) { /* the odd run out moves as it is */
                const size_t len = starts[r + 1] - lo;
                if (kb)
                    clsort_host_copy(t, dk + lo * kb, sk + lo * kb, len * kb);
                if (rb)
                    clsort_host_copy(t, dv + lo * rb, sv + lo * rb, len * rb);
            } else {
                const size_t mid = starts[r + 1], hi = starts[r + 2];
                merge_pass p = {m,
                                {kb ? sk + lo * kb : NULL, rb ? sv + lo * rb : NULL, mid - lo},
                                {kb ? sk + mid * kb : NULL, rb ? sv + mid * rb : NULL, hi - mid},
                                kb ? dk + lo * kb : NULL,
                                rb ? dv + lo * rb : NULL,
                                rb};
                clsort_team_run(t, merge_part, &p);
            }
            starts[out++] = lo;
        }
        starts[out] = starts[nruns];
        nruns = out;
        char *x = sk; sk = dk; dk = x;
        x = sv; sv = dv; dv = x;
    }
    if (kb && sk != home_k)
        clsort_host_copy(t, home_k, sk, starts[1] * kb);
    if (rb && sv != home_v)
        clsort_host_copy(t, home_v, sv, starts[1] * rb);
}

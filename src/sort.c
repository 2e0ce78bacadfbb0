/* sort.c - the public sorting entry points: argument checks, host arrays,
 * device buffers, records of any size, argsort, and the tuning calls. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ types */

static const struct {
    const char *name;
    unsigned bytes, kind;
} type_table[] = {
    {NULL, 0, 0},  {"u8", 1, 0},  {"u16", 2, 0}, {"u32", 4, 0}, {"u64", 8, 0}, {"i8", 1, 1},
    {"i16", 2, 1}, {"i32", 4, 1}, {"i64", 8, 1}, {"f32", 4, 2}, {"f64", 8, 2},
};
#define NTYPES (sizeof type_table / sizeof type_table[0])

static bool type_ok(clsort_type t) { return (int)t >= 1 && (size_t)t < NTYPES; }

size_t clsort_type_size(clsort_type type) { return type_ok(type) ? type_table[type].bytes : 0; }
const char *clsort_type_name(clsort_type type) { return type_ok(type) ? type_table[type].name : NULL; }

clsort_type clsort_type_from_name(const char *name)
{
    if (!name)
        return (clsort_type)0;
    for (size_t i = 1; i < NTYPES; i++)
        if (!strcasecmp(name, type_table[i].name))
            return (clsort_type)i;
    return (clsort_type)0;
}

bool clsort_key_kind_of(clsort_type type, clsort_key_kind *out)
{
    if (!type_ok(type))
        return false;
    out->bytes = type_table[type].bytes;
    out->kind = type_table[type].kind;
    return true;
}

/* ------------------------------------------------------------- arguments */

typedef enum sort_mode { MODE_KEYS, MODE_PAIRS, MODE_ARGSORT } sort_mode;

/* A checked request: what every entry point resolves before touching data. */
typedef struct request {
    const char *fn;
    sort_mode mode;
    clsort_radix_job job;  /* keys/vals filled in by the caller */
    size_t value_size;     /* caller's record size (pairs) */
    bool records;          /* value size the passes do not carry: permute once */
    unsigned index_bytes;  /* argsort: 4 or 8; records: the permutation's */
    bool segmented;        /* sort segments (seg) instead of the whole range */
    bool host_runs;        /* host arrays that may be sorted in runs: no size limit here */
    clsort_seg_desc seg;
} request;

static bool fast_value_size(size_t vs) { return vs == 1 || vs == 2 || vs == 4 || vs == 8 || vs == 16; }

static clsort_status check_request(clsort_context *ctx, request *rq, clsort_type key_type,
                                   size_t n, size_t value_size, clsort_type index_type,
                                   const clsort_options *opt)
{
    const char *fn = rq->fn;
    clsort_radix_job *job = &rq->job;
    if (!clsort_key_kind_of(key_type, &job->key))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED_TYPE,
                           "%s: unknown key type %d (use CLSORT_U8 .. CLSORT_F64)", fn,
                           (int)key_type);
    const unsigned kbits = job->key.bytes * 8;
    clsort_options o;
    memset(&o, 0, sizeof o);
    if (opt) {
        o = *opt;
        for (size_t i = 0; i < sizeof o.reserved / sizeof o.reserved[0]; i++)
            if (o.reserved[i])
                return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                                   "%s: clsort_options.reserved[%zu] is not zero "
                                   "(zero-initialise the options)",
                                   fn, i);
    }
    unsigned end = o.end_bit ? o.end_bit : kbits;
    if (o.begin_bit >= end || end > kbits)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_BITS,
                           "%s: bit range [%u, %u) is empty or outside the %u-bit key", fn,
                           o.begin_bit, end, kbits);
    if ((unsigned)o.algorithm > CLSORT_ALGORITHM_SELECTION_LOCAL)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS, "%s: unknown algorithm %d", fn,
                           (int)o.algorithm);
    if (o.radix_bits > 12)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                           "%s: radix_bits %u is out of range (1..12, or 0 for the tuned width)",
                           fn, o.radix_bits);
    if ((o.algorithm == CLSORT_ALGORITHM_SELECTION ||
         o.algorithm == CLSORT_ALGORITHM_SELECTION_LOCAL) &&
        n > CLSORT_SELECTION_MAX)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: the selection sort takes at most %u elements (here %zu): it does "
                           "n^2 comparisons; use the radix or bitonic sort",
                           fn, (unsigned)CLSORT_SELECTION_MAX, n);
    if ((o.algorithm == CLSORT_ALGORITHM_BITONIC || o.algorithm == CLSORT_ALGORITHM_BITONIC_GLOBAL) &&
        n > ((size_t)1 << 31))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: the bitonic sort takes at most 2^31 elements (here %zu)", fn, n);
    job->begin_bit = o.begin_bit;
    job->end_bit = end;
    job->descending = o.descending != 0;
    job->algorithm = (unsigned)o.algorithm; /* AUTO is resolved by resolve_algorithm */
    job->radix_bits = o.radix_bits; /* 0: the tuned width, chosen with the shape (radix.c) */
    job->n = n;
    if (rq->mode == MODE_PAIRS) {
        if (value_size == 0 || value_size > 65536)
            return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED_VALUE_SIZE,
                               "%s: value_size %zu is not supported (1 to 65536 bytes)", fn,
                               value_size);
        rq->value_size = value_size;
        rq->records = !fast_value_size(value_size);
    }
    if (rq->mode == MODE_ARGSORT) {
        if (index_type != CLSORT_U32 && index_type != CLSORT_U64)
            return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED_TYPE,
                               "%s: index type must be CLSORT_U32 or CLSORT_U64", fn);
        rq->index_bytes = index_type == CLSORT_U32 ? 4 : 8;
        if (index_type == CLSORT_U32 && n > 0xffffffffull)
            return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                               "%s: %zu keys need 64-bit indices (CLSORT_U64)", fn, n);
    }
    if (rq->records)
        rq->index_bytes = n > 0xffffffffull ? 8 : 4;
    /* Sizes that overflow, or exceed what the device can hold. */
    size_t elem = job->key.bytes + (rq->mode == MODE_PAIRS ? value_size : rq->index_bytes);
    if (n > SIZE_MAX / 4 / (elem ? elem : 1))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%s: n = %zu is too large", fn, n);
    if (rq->host_runs)
        return CLSORT_SUCCESS;
    if ((uint64_t)n * job->key.bytes > ctx->facts.max_alloc_bytes ||
        (rq->mode == MODE_PAIRS && (uint64_t)n * value_size > ctx->facts.max_alloc_bytes))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: %zu elements exceed the device's largest buffer (%llu bytes)", fn,
                           n, (unsigned long long)ctx->facts.max_alloc_bytes);
    return CLSORT_SUCCESS;
}

static clsort_status check_context(clsort_context *ctx, const char *fn)
{
    if (!ctx)
        return CLSORT_ERROR_INVALID_ARGUMENT; /* nowhere to put a message */
    clsort_clear_error(ctx);
    (void)fn;
    /* a background build that has ended: its programs, or its failure */
    return clsort_tier_join(ctx, false);
}

/* The job's value side, once keys and values are known. */
static void set_job_values(request *rq, cl_mem vals, size_t vals_off)
{
    clsort_radix_job *job = &rq->job;
    if (rq->mode == MODE_KEYS) {
        job->vals = NULL;
        job->val_bytes = 0;
        job->gen_index = false;
    } else if (rq->mode == MODE_ARGSORT || rq->records) {
        job->vals = vals;
        job->vals_off = vals_off;
        job->val_bytes = rq->index_bytes;
        job->gen_index = true;
    } else {
        job->vals = vals;
        job->vals_off = vals_off;
        job->val_bytes = (unsigned)rq->value_size;
        job->gen_index = false;
    }
}

static bool is_radix(unsigned a) { return a == CLSORT_ALGORITHM_ONESWEEP || a == CLSORT_ALGORITHM_CLASSIC; }

/* AUTO becomes a bitonic work-group for small sorts (one launch), else the
 * device's tuned radix strategy. */
static void resolve_algorithm(clsort_context *ctx, clsort_radix_job *job)
{
    if (job->algorithm != CLSORT_ALGORITHM_AUTO)
        return;
    const bool stable = job->vals || job->key.kind == 2 || job->begin_bit != 0 ||
                        job->end_bit != job->key.bytes * 8;
    if (job->n <= ctx->tuning.small_max &&
        job->n <= clsort_bitonic_capacity(ctx, job->key.bytes, stable))
        job->algorithm = CLSORT_ALGORITHM_BITONIC;
    else
        job->algorithm = ctx->tuning.algorithm;
}

/* Runs one resolved job over [keys_off, keys_off + n). */
static clsort_status run_job(clsort_context *ctx, const clsort_radix_job *job, clsort_seq *seq)
{
    switch (job->algorithm) {
    case CLSORT_ALGORITHM_BITONIC:
    case CLSORT_ALGORITHM_BITONIC_GLOBAL: {
        clsort_seg_desc seg;
        memset(&seg, 0, sizeof seg);
        seg.count = 1;
        seg.seg_len = job->n;
        seg.covered = job->n;
        seg.maxlen = job->n;
        return clsort_bitonic_run(ctx, job, &seg, job->algorithm == CLSORT_ALGORITHM_BITONIC_GLOBAL,
                                  seq);
    }
    case CLSORT_ALGORITHM_SELECTION:
    case CLSORT_ALGORITHM_SELECTION_LOCAL:
        return clsort_selection_run(ctx, job, job->algorithm == CLSORT_ALGORITHM_SELECTION_LOCAL,
                                    seq);
    default:
        return clsort_radix_sort(ctx, job, seq);
    }
}

/* Segments: AUTO gives one radix sort of (segment, key) where the longest
 * is at most seg_packed_max, a radix work-group per segment where it
 * is at least seg_radix_min and fits one onesweep tile, else a bitonic
 * work-group per segment where it fits one, else one radix sort of
 * (segment, key); ONESWEEP forced takes the radix work-groups where the
 * longest fits a tile. */
static clsort_status run_segments(clsort_context *ctx, clsort_radix_job *job,
                                  const clsort_seg_desc *seg, clsort_seq *seq)
{
    unsigned a = job->algorithm;
    if (a == CLSORT_ALGORITHM_SELECTION || a == CLSORT_ALGORITHM_SELECTION_LOCAL)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                           "the selection sort does not sort segments; use AUTO, a bitonic or a "
                           "radix algorithm");
    const bool stable = job->vals || job->key.kind == 2 || job->begin_bit != 0 ||
                        job->end_bit != job->key.bytes * 8;
    /* (the packed sort where it is one sort: 64-bit keys over all their
     * bits would get a sort per segment, and offsets left on the device
     * would have to be read back) */
    if (a == CLSORT_ALGORITHM_AUTO && seg->maxlen <= ctx->tuning.seg_packed_max &&
        clsort_segments_packable(job, seg)) {
        job->algorithm = ctx->tuning.algorithm;
        return clsort_segments_radix(ctx, job, seg, seq);
    }
    const unsigned wg_min = ctx->tuning.seg_radix_min;
    const bool wg_wanted = a == CLSORT_ALGORITHM_ONESWEEP ||
                           (a == CLSORT_ALGORITHM_AUTO && wg_min && seg->maxlen >= wg_min);
    if (wg_wanted && seg->maxlen <= clsort_radix_segment_tile(ctx, job, seg->maxlen)) {
        job->algorithm = CLSORT_ALGORITHM_ONESWEEP;
        return clsort_radix_segments_wg(ctx, job, seg, seq);
    }
    if (a == CLSORT_ALGORITHM_AUTO)
        a = seg->maxlen <= clsort_bitonic_capacity(ctx, job->key.bytes, stable)
                ? CLSORT_ALGORITHM_BITONIC
                : ctx->tuning.algorithm;
    if (a == CLSORT_ALGORITHM_BITONIC || a == CLSORT_ALGORITHM_BITONIC_GLOBAL) {
        job->algorithm = a;
        return clsort_bitonic_run(ctx, job, seg, a == CLSORT_ALGORITHM_BITONIC_GLOBAL, seq);
    }
    job->algorithm = a;
    return clsort_segments_radix(ctx, job, seg, seq);
}

static clsort_status run_sort(clsort_context *ctx, request *rq, clsort_seq *seq)
{
    if (rq->segmented)
        return run_segments(ctx, &rq->job, &rq->seg, seq);
    resolve_algorithm(ctx, &rq->job);
    return run_job(ctx, &rq->job, seq);
}

/* Device memory the request needs beyond the caller's buffers. */
static clsort_status request_temp_bytes(clsort_context *ctx, request *rq, bool host_arrays,
                                        size_t *bytes)
{
    clsort_radix_job job = rq->job;
    const size_t n = job.n;
    if (rq->mode != MODE_KEYS && !job.vals)
        job.vals = (cl_mem)(uintptr_t)1; /* only the shape is computed */
    job.val_bytes = rq->mode == MODE_KEYS ? 0
                    : (rq->mode == MODE_ARGSORT || rq->records) ? rq->index_bytes
                                                                : (unsigned)rq->value_size;
    size_t t = 0;
    resolve_algorithm(ctx, &job);
    if (is_radix(job.algorithm)) {
        CLSORT_TRY(clsort_radix_temp_bytes(ctx, &job, &t));
    } else {
        /* bitonic: padded keys and indices, gathered keys and values;
         * selection: the output copies */
        size_t pad = 2;
        while (pad < n)
            pad *= 2;
        t = n * (job.key.bytes + job.val_bytes);
        if (job.algorithm != CLSORT_ALGORITHM_SELECTION &&
            job.algorithm != CLSORT_ALGORITHM_SELECTION_LOCAL)
            t += pad * ((size_t)job.key.bytes + 4);
    }
    if (rq->records)
        t += n * rq->index_bytes + n * rq->value_size;
    if (rq->mode == MODE_ARGSORT && !host_arrays)
        t += n * job.key.bytes;
    if (host_arrays) {
        t += n * job.key.bytes;
        if (rq->mode == MODE_PAIRS)
            t += n * rq->value_size;
        if (rq->mode == MODE_ARGSORT)
            t += n * rq->index_bytes;
    }
    *bytes = t;
    return CLSORT_SUCCESS;
}

static clsort_status check_memory(clsort_context *ctx, request *rq, bool host_arrays,
                                  size_t user_bytes)
{
    size_t t = 0;
    CLSORT_TRY(request_temp_bytes(ctx, rq, host_arrays, &t));
    if ((uint64_t)t + user_bytes > ctx->mem_cap)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: sorting %zu elements needs about %.3g GB of device memory; the "
                           "context may use %.3g GB",
                           rq->fn, rq->job.n, (double)(t + user_bytes) / 1e9,
                           (double)ctx->mem_cap / 1e9);
    return CLSORT_SUCCESS;
}

/* Sorts device buffers as the request says. keys_disposable: the keys
 * buffer is the library's own (argsort may sort it in place). */
static clsort_status run_request(clsort_context *ctx, request *rq, cl_mem keys, size_t keys_off,
                                 cl_mem vals, size_t vals_off, bool keys_disposable,
                                 clsort_seq *seq, cl_mem *records_out)
{
    clsort_radix_job *job = &rq->job;
    const size_t n = job->n;
    job->keys = keys;
    job->keys_off = keys_off;
    *records_out = NULL;
    if (rq->mode == MODE_ARGSORT) {
        if (!keys_disposable) {
            cl_mem copy;
            CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_KEYS_COPY, n * job->key.bytes, &copy));
            CLSORT_TRY(clsort_copy(ctx, keys, keys_off * job->key.bytes, copy, 0,
                                   n * job->key.bytes, seq));
            job->keys = copy;
            job->keys_off = 0;
        }
        set_job_values(rq, vals, vals_off);
        return run_sort(ctx, rq, seq);
    }
    if (rq->records) {
        cl_mem perm, recs;
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_PERM, n * rq->index_bytes, &perm));
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_RECORDS, n * rq->value_size, &recs));
        set_job_values(rq, perm, 0);
        /* the gather's program first: a build failure leaves the keys
         * untouched */
        clsort_radix_job probe = *job;
        if (!rq->segmented)
            resolve_algorithm(ctx, &probe);
        CLSORT_TRY(clsort_radix_gather_prepare(ctx, &probe));
        if (rq->segmented) {
            /* Segments move only their own elements: carry an identity
             * permutation instead of generating one. */
            CLSORT_TRY(clsort_radix_iota(ctx, job, perm, seq));
            job->gen_index = false;
        }
        CLSORT_TRY(run_sort(ctx, rq, seq));
        CLSORT_TRY(clsort_radix_gather(ctx, job, vals, vals_off * rq->value_size, recs, perm,
                                       rq->value_size, seq));
        *records_out = recs;
        return CLSORT_SUCCESS;
    }
    set_job_values(rq, vals, vals_off);
    return run_sort(ctx, rq, seq);
}

/* ------------------------------------------------------------ host arrays */

static bool overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + blen && y < x + alen;
}

/* The caller's arrays of one host call. */
typedef struct host_arrays {
    const void *keys_in;
    void *keys_out; /* NULL: argsort */
    void *values;   /* pairs */
    void *indices;  /* argsort */
} host_arrays;

/* Sorts the caller's arrays where they are, through CL_MEM_USE_HOST_PTR
 * buffers (devices that share host memory). */
static clsort_status host_sort_mapped(clsort_context *ctx, request *rq, const host_arrays *ha)
{
    const size_t n = rq->job.n;
    const size_t kbytes = n * rq->job.key.bytes;
    const size_t vbytes = rq->mode == MODE_PAIRS ? n * rq->value_size : 0;
    const size_t ibytes = rq->mode == MODE_ARGSORT ? n * rq->index_bytes : 0;
    CLSORT_TRY(check_memory(ctx, rq, false, 0));
    cl_mem dk = NULL, dv = NULL, din = NULL;
    cl_event gate = NULL;
    const bool copy = ha->keys_out && ha->keys_out != ha->keys_in;
    clsort_status st = clsort_host_wrap(ctx, copy ? ha->keys_out : (void *)ha->keys_in, kbytes,
                                        rq->mode == MODE_ARGSORT, &dk);
    if (st == CLSORT_SUCCESS && (vbytes || ibytes))
        st = clsort_host_wrap(ctx, vbytes ? ha->values : ha->indices, vbytes + ibytes, false, &dv);
    cl_int err = CL_SUCCESS;
    /* A sorted copy: the keys copied into the output, and the sort held
     * back by a user event until it is enqueued, so that a failure to
     * enqueue it (a build, the pool) writes nothing. On a CPU device the
     * host's threads copy, once the sort is enqueued (a copy command runs
     * on one thread, which also takes the output's fresh page faults);
     * other devices may keep their own copy of a CL_MEM_USE_HOST_PTR
     * buffer from its creation on, so there the copy is a command behind
     * the event. */
    const bool host_copy = copy && ctx->facts.is_cpu;
    if (st == CLSORT_SUCCESS && copy) {
        st = clsort_host_wrap(ctx, (void *)ha->keys_in, kbytes, true, &din);
        if (st == CLSORT_SUCCESS)
            gate = clCreateUserEvent(ctx->cl, &err);
        /* with the host's copy, the command behind the event copies one key
         * again (a marker there, failed with its event, crashed PoCL 3.1) */
        if (err == CL_SUCCESS && gate)
            err = clEnqueueCopyBuffer(ctx->queue, din, dk, 0, 0,
                                      host_copy ? rq->job.key.bytes : kbytes, 1, &gate, NULL);
        if (st == CLSORT_SUCCESS && err != CL_SUCCESS)
            st = clsort_fail(ctx, err, "%s: copying the keys failed: %s", rq->fn,
                             clsort_status_string(err));
    }
    if (st != CLSORT_SUCCESS) {
        if (gate) {
            clSetUserEventStatus(gate, -1);
            clFinish(ctx->queue);
        }
        goto out;
    }
    clsort_seq seq = {0, NULL};
    cl_mem recs = NULL;
    st = run_request(ctx, rq, dk, 0, dv, 0, false, &seq, &recs);
    if (st == CLSORT_SUCCESS && host_copy) {
        clsort_team *team = clsort_team_start(clsort_host_threads(ctx));
        clsort_host_copy(team, ha->keys_out, ha->keys_in, kbytes);
        clsort_team_stop(team);
    }
    if (gate)
        clSetUserEventStatus(gate, st == CLSORT_SUCCESS ? CL_COMPLETE : -1);
    if (st == CLSORT_SUCCESS && recs)
        err = clEnqueueCopyBuffer(ctx->queue, recs, dv, 0, 0, vbytes, 0, NULL, NULL);
    cl_int fin = clFinish(ctx->queue);
    if (st != CLSORT_SUCCESS)
        goto out;
    if (err == CL_SUCCESS)
        err = fin;
    if (err == CL_SUCCESS && rq->mode != MODE_ARGSORT)
        err = clsort_host_sync(ctx, dk, kbytes);
    if (err == CL_SUCCESS && dv)
        err = clsort_host_sync(ctx, dv, vbytes + ibytes);
    if (err != CL_SUCCESS)
        st = clsort_fail(ctx, err, "%s: running the sort failed: %s", rq->fn,
                         clsort_status_string(err));
out:
    if (gate)
        clReleaseEvent(gate);
    if (din)
        clReleaseMemObject(din);
    if (dk)
        clReleaseMemObject(dk);
    if (dv)
        clReleaseMemObject(dv);
    return st;
}

/* Copies the caller's arrays to pool buffers (through pinned chunks, by
 * host threads), sorts them there and copies the result back. */
static clsort_status host_sort_staged(clsort_context *ctx, request *rq, const host_arrays *ha)
{
    const size_t n = rq->job.n;
    const size_t kbytes = n * rq->job.key.bytes;
    const size_t vbytes = rq->mode == MODE_PAIRS ? n * rq->value_size : 0;
    const size_t ibytes = rq->mode == MODE_ARGSORT ? n * rq->index_bytes : 0;
    CLSORT_TRY(check_memory(ctx, rq, true, 0));
    cl_mem dk, dv = NULL;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_HOST_KEYS, kbytes, &dk));
    if (vbytes || ibytes)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_HOST_VALS, vbytes + ibytes, &dv));
    clsort_team *team = clsort_host_staged(ctx, kbytes + vbytes)
                            ? clsort_team_start(clsort_host_threads(ctx))
                            : NULL;
    clsort_status st = clsort_host_upload(ctx, team, dk, 0, ha->keys_in, kbytes);
    if (st == CLSORT_SUCCESS)
        st = clsort_host_upload(ctx, team, dv, 0, ha->values, vbytes);
    cl_mem recs = NULL;
    if (st == CLSORT_SUCCESS) {
        clsort_seq seq = {0, NULL};
        st = run_request(ctx, rq, dk, 0, dv, 0, true, &seq, &recs);
    }
    if (st == CLSORT_SUCCESS && ha->keys_out)
        st = clsort_host_download(ctx, team, dk, 0, ha->keys_out, kbytes);
    if (st == CLSORT_SUCCESS && (vbytes || ibytes))
        st = clsort_host_download(ctx, team, recs ? recs : dv, 0,
                                  vbytes ? ha->values : ha->indices, vbytes + ibytes);
    if (st != CLSORT_SUCCESS)
        clFinish(ctx->queue); /* nothing may read the caller's arrays after we return */
    clsort_team_stop(team);
    return st;
}

/* The largest power of two, at most 16, that divides x. */
static size_t natural_align(size_t x)
{
    size_t a = 1;
    while (a < 16 && x % (a * 2) == 0)
        a *= 2;
    return a;
}

static bool aligned_to(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

/* The context's route for host memory: $CLSORT_HOST_PATH, else mapped where
 * the device shares host memory and staged elsewhere. */
static unsigned context_path(const clsort_context *ctx)
{
    if (ctx->host_path != CLSORT_HOST_AUTO)
        return ctx->host_path;
    return ctx->facts.host_unified ? CLSORT_HOST_MAPPED : CLSORT_HOST_STAGED;
}

/* The route of host arrays: in place where the device shares host memory
 * and every array is aligned to its elements (the kernels load them whole),
 * else copied. */
static unsigned host_path(const clsort_context *ctx, const request *rq, const host_arrays *ha)
{
    unsigned path = context_path(ctx);
    if (path == CLSORT_HOST_MAPPED &&
        (!aligned_to(ha->keys_in, rq->job.key.bytes) ||
         (ha->keys_out && !aligned_to(ha->keys_out, rq->job.key.bytes)) ||
         (ha->values && !aligned_to(ha->values, natural_align(rq->value_size))) ||
         (ha->indices && !aligned_to(ha->indices, rq->index_bytes))))
        path = CLSORT_HOST_STAGED;
    return path;
}

static clsort_status host_sort_one(clsort_context *ctx, request *rq, const host_arrays *ha)
{
    if (host_path(ctx, rq, ha) == CLSORT_HOST_MAPPED)
        return host_sort_mapped(ctx, rq, ha);
    return host_sort_staged(ctx, rq, ha);
}

/* Whether a sort of n of the request's elements from host arrays fits the
 * device memory the context may use (and each buffer its largest
 * allocation). */
static bool host_fits(clsort_context *ctx, const request *rq, const host_arrays *ha, size_t n)
{
    request sub = *rq;
    sub.job.n = n;
    if (sub.records)
        sub.index_bytes = n > 0xffffffffull ? 8 : 4;
    size_t t = 0;
    if (request_temp_bytes(ctx, &sub, host_path(ctx, rq, ha) != CLSORT_HOST_MAPPED, &t) !=
        CLSORT_SUCCESS)
        return false;
    size_t elem = sub.job.key.bytes;
    if (rq->mode == MODE_PAIRS && rq->value_size > elem)
        elem = rq->value_size;
    return (uint64_t)t <= ctx->mem_cap && (uint64_t)n * elem <= ctx->facts.max_alloc_bytes;
}

typedef struct add_offset_job {
    char *idx;
    unsigned bytes;
    size_t n, add;
} add_offset_job;

static void add_offset(void *p, unsigned j, unsigned nt)
{
    const add_offset_job *a = p;
    size_t lo = a->n * j / nt, hi = a->n * (j + 1) / nt;
    if (a->bytes == 4)
        for (size_t i = lo; i < hi; i++)
            ((uint32_t *)a->idx)[i] += (uint32_t)a->add;
    else
        for (size_t i = lo; i < hi; i++)
            ((uint64_t *)a->idx)[i] += a->add;
}

/* Host arrays larger than the device memory the context may use: runs that
 * fit are sorted one after the other, in place, then merged on the host.
 * Every host allocation comes first, so a shortage changes nothing. */
static clsort_status host_sort_runs(clsort_context *ctx, request *rq, const host_arrays *ha)
{
    const size_t n = rq->job.n;
    const unsigned kb = rq->job.key.bytes;
    size_t run = n;
    while (run > 1024 && !host_fits(ctx, rq, ha, run))
        run -= run / 4;
    if (!host_fits(ctx, rq, ha, run))
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: not even %zu elements fit the %llu bytes of device memory the "
                           "context may use",
                           rq->fn, run, (unsigned long long)ctx->mem_cap);
    /* runs of about equal length, a multiple of 4096 elements where they
     * can be (never longer than the one that fits) */
    size_t nruns = (n + run - 1) / run;
    run = (n + nruns - 1) / nruns;
    if (run >= 4096)
        run = run / 4096 * 4096;
    nruns = (n + run - 1) / run;
    const bool argsort = rq->mode == MODE_ARGSORT;
    const size_t rb = argsort ? rq->index_bytes : rq->mode == MODE_PAIRS ? rq->value_size : 0;
    if (!argsort && !ha->keys_out)
        return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "%s: no output for the runs", rq->fn);
    size_t *starts = malloc((nruns + 1) * sizeof *starts);
    char *sk = argsort ? NULL : malloc(n * kb);
    char *sv = rb ? malloc(n * rb) : NULL;
    if (!starts || (!argsort && !sk) || (rb && !sv)) {
        free(starts);
        free(sk);
        free(sv);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "%s: no host memory for the merge's %zu bytes", rq->fn,
                           n * ((argsort ? 0 : kb) + rb));
    }
    /* Each run is sorted into the scratch arrays; the caller's arrays are
     * written only by the merge, which cannot fail. */
    clsort_status st = CLSORT_SUCCESS;
    clsort_team *team = clsort_team_start(clsort_host_threads(ctx));
    const bool pairs = rq->mode == MODE_PAIRS;
    const size_t vs = rq->value_size;
    for (size_t r = 0; r < nruns && st == CLSORT_SUCCESS; r++) {
        const size_t lo = r * run, len = n - lo < run ? n - lo : run;
        starts[r] = lo;
        request sub = *rq;
        sub.job.n = len;
        if (sub.records)
            sub.index_bytes = len > 0xffffffffull ? 8 : 4;
        const char *kin = (const char *)ha->keys_in + lo * kb;
        host_arrays h = {kin, NULL, NULL, NULL};
        if (argsort) {
            h.indices = sv + lo * rb;
        } else if (pairs) { /* keys and values copied out, sorted there */
            clsort_host_copy(team, sk + lo * kb, kin, len * kb);
            clsort_host_copy(team, sv + lo * vs, (const char *)ha->values + lo * vs, len * vs);
            h.keys_in = h.keys_out = sk + lo * kb;
            h.values = sv + lo * vs;
        } else { /* a sorted copy */
            h.keys_out = sk + lo * kb;
        }
        if (len == 1) {
            if (argsort && rq->index_bytes == 4) {
                const uint32_t i32 = (uint32_t)lo;
                memcpy(h.indices, &i32, 4);
            } else if (argsort) {
                const uint64_t i64 = lo;
                memcpy(h.indices, &i64, 8);
            } else if (!pairs) {
                memcpy(h.keys_out, kin, kb);
            }
            continue;
        }
        st = host_sort_one(ctx, &sub, &h);
        if (st == CLSORT_SUCCESS && argsort && lo) {
            add_offset_job a = {h.indices, rq->index_bytes, len, lo};
            clsort_team_run(team, add_offset, &a);
        }
    }
    starts[nruns] = n;
    if (st == CLSORT_SUCCESS) {
        clsort_merge m = {.key_bytes = kb,
                          .key_kind = rq->job.key.kind,
                          .begin_bit = rq->job.begin_bit,
                          .end_bit = rq->job.end_bit,
                          .descending = rq->job.descending,
                          .by_index = argsort,
                          .keys_base = ha->keys_in,
                          .index_bytes = rq->index_bytes,
                          .keys = ha->keys_out,
                          .values = ha->values,
                          .indices = ha->indices,
                          .value_bytes = rq->mode == MODE_PAIRS ? rq->value_size : 0,
                          .scratch_keys = sk,
                          .scratch_vals = sv,
                          .runs_in_scratch = true,
                          .nruns = nruns,
                          .starts = starts};
        clsort_host_merge(team, &m);
    }
    clsort_team_stop(team);
    free(starts);
    free(sk);
    free(sv);
    return st;
}

/* Host arrays: sorted where they are on devices that share host memory,
 * else through pinned chunks; in runs merged on the host where they do not
 * fit the device memory the context may use. */
static clsort_status host_sort(clsort_context *ctx, request *rq, const void *keys_in,
                               void *keys_out, void *values, void *indices)
{
    host_arrays ha = {keys_in, keys_out, values, indices};
    if (!rq->segmented && !host_fits(ctx, rq, &ha, rq->job.n))
        return host_sort_runs(ctx, rq, &ha);
    return host_sort_one(ctx, rq, &ha);
}

/* Host arrays through the tier (tier.c): on the host while the kernels of
 * this kind of sort build in the background, else as host_sort. */
static clsort_status host_sort_tiered(clsort_context *ctx, request *rq, clsort_type key_type,
                                      const clsort_options *options, const void *keys_in,
                                      void *keys_out, void *values, void *indices)
{
    const clsort_tier_request tr = {
        key_type, (unsigned)rq->mode, rq->value_size, rq->index_bytes, rq->job.n,
        !options || (options->algorithm == CLSORT_ALGORITHM_AUTO && options->radix_bits == 0)};
    bool on_host = false;
    CLSORT_TRY(clsort_tier_route(ctx, &tr, &on_host));
    if (!on_host)
        return host_sort(ctx, rq, keys_in, keys_out, values, indices);
    const clsort_radix_job *j = &rq->job;
    const clsort_host_radix_job h = {j->key,         j->begin_bit,   j->end_bit,
                                     j->descending,  j->n,           keys_in,
                                     keys_out,       values,         rq->value_size,
                                     indices,        rq->index_bytes};
    if (clsort_host_radix_sort(ctx, rq->fn, &h) == CLSORT_SUCCESS)
        return CLSORT_SUCCESS;
    /* no host memory for the host sort (nothing written): the device, as
     * without the tier */
    clsort_clear_error(ctx);
    ctx->tier_last = 0;
    return host_sort(ctx, rq, keys_in, keys_out, values, indices);
}

clsort_status clsort_sort_keys(clsort_context *ctx, clsort_type key_type, void *keys, size_t n,
                               const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_sort_keys"));
    request rq = {.fn = "clsort_sort_keys", .mode = MODE_KEYS, .host_runs = true};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, 0, options));
    if (n > 0 && !keys)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "clsort_sort_keys: keys is NULL");
    if (n < 2)
        return CLSORT_SUCCESS;
    return host_sort_tiered(ctx, &rq, key_type, options, keys, keys, NULL, NULL);
}

clsort_status clsort_sort_keys_copy(clsort_context *ctx, clsort_type key_type, const void *keys,
                                    void *sorted, size_t n, const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_sort_keys_copy"));
    request rq = {.fn = "clsort_sort_keys_copy", .mode = MODE_KEYS, .host_runs = true};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, 0, options));
    if (n > 0 && (!keys || !sorted))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_keys_copy: keys or sorted is NULL");
    const size_t bytes = n * rq.job.key.bytes;
    if (n > 0 && keys != sorted && overlap(keys, bytes, sorted, bytes))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_keys_copy: keys and sorted overlap without being the "
                           "same array");
    if (n < 2) {
        if (n == 1 && keys != sorted)
            memcpy(sorted, keys, bytes);
        return CLSORT_SUCCESS;
    }
    return host_sort_tiered(ctx, &rq, key_type, options, keys, sorted, NULL, NULL);
}

clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type key_type, void *keys,
                                void *values, size_t value_size, size_t n,
                                const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_sort_pairs"));
    request rq = {.fn = "clsort_sort_pairs", .mode = MODE_PAIRS, .host_runs = true};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, value_size, 0, options));
    if (n > 0 && (!keys || !values))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_pairs: keys or values is NULL");
    if (n > 0 && overlap(keys, n * rq.job.key.bytes, values, n * value_size))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_sort_pairs: keys and values overlap");
    if (n < 2)
        return CLSORT_SUCCESS;
    return host_sort_tiered(ctx, &rq, key_type, options, keys, keys, values, NULL);
}

clsort_status clsort_argsort(clsort_context *ctx, clsort_type key_type, const void *keys,
                             size_t n, clsort_type index_type, void *indices,
                             const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_argsort"));
    request rq = {.fn = "clsort_argsort", .mode = MODE_ARGSORT, .host_runs = true};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, index_type, options));
    if (n > 0 && (!keys || !indices))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_argsort: keys or indices is NULL");
    if (n > 0 && overlap(keys, n * rq.job.key.bytes, indices, n * rq.index_bytes))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_argsort: keys and indices overlap");
    if (n == 0)
        return CLSORT_SUCCESS;
    if (n == 1) {
        if (rq.index_bytes == 4)
            *(uint32_t *)indices = 0;
        else
            *(uint64_t *)indices = 0;
        return CLSORT_SUCCESS;
    }
    return host_sort_tiered(ctx, &rq, key_type, options, keys, NULL, NULL, indices);
}

/* --------------------------------------------------------- device buffers */

static clsort_status check_buffer(clsort_context *ctx, const char *fn, const char *what,
                                  cl_mem m, size_t offset, size_t n, size_t elem)
{
    if (!m)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER, "%s: %s buffer is NULL", fn, what);
    cl_mem_object_type type = 0;
    cl_context c = NULL;
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS || type != CL_MEM_OBJECT_BUFFER)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER, "%s: %s is not a valid buffer", fn,
                           what);
    if (c != ctx->cl)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER,
                           "%s: %s buffer belongs to another OpenCL context", fn, what);
    if (offset > SIZE_MAX / elem - n || (offset + n) * elem > size)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER,
                           "%s: elements [%zu, %zu) of %zu bytes do not fit the %s buffer "
                           "(%zu bytes)",
                           fn, offset, offset + n, elem, what, size);
    return CLSORT_SUCCESS;
}

static bool ranges_overlap(cl_mem a, size_t a_off, size_t a_len, cl_mem b, size_t b_off,
                           size_t b_len)
{
    return a == b && a_off < b_off + b_len && b_off < a_off + a_len;
}

static clsort_status check_wait(clsort_context *ctx, const char *fn, cl_uint nwait,
                                const cl_event *wait)
{
    if ((nwait > 0) != (wait != NULL))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: num_events_in_wait_list and event_wait_list disagree", fn);
    return CLSORT_SUCCESS;
}

/* The buffer entry points share this: run, then hand back an event. */
static clsort_status buffer_sort(clsort_context *ctx, request *rq, cl_mem keys, size_t koff,
                                 cl_mem vals, size_t voff, cl_uint nwait, const cl_event *wait,
                                 cl_event *event)
{
    if (event)
        *event = NULL;
    clsort_seq seq = {nwait, wait};
    if (rq->job.n < 2 && !(rq->mode == MODE_ARGSORT && rq->job.n == 1))
        return clsort_seq_finish(ctx, &seq, event);
    CLSORT_TRY(check_memory(ctx, rq, false, 0));
    cl_mem recs = NULL;
    CLSORT_TRY(run_request(ctx, rq, keys, koff, vals, voff, false, &seq, &recs));
    if (recs)
        CLSORT_TRY(clsort_copy(ctx, recs, 0, vals, voff * rq->value_size,
                               rq->job.n * rq->value_size, &seq));
    return clsort_seq_finish(ctx, &seq, event);
}

clsort_status clsort_sort_keys_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                      size_t offset, size_t n, const clsort_options *options,
                                      cl_uint nwait, const cl_event *wait, cl_event *event)
{
    const char *fn = "clsort_sort_keys_buffer";
    CLSORT_TRY(check_context(ctx, fn));
    request rq = {.fn = fn, .mode = MODE_KEYS};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, 0, options));
    CLSORT_TRY(check_wait(ctx, fn, nwait, wait));
    CLSORT_TRY(check_buffer(ctx, fn, "keys", keys, offset, n, rq.job.key.bytes));
    return buffer_sort(ctx, &rq, keys, offset, NULL, 0, nwait, wait, event);
}

clsort_status clsort_sort_pairs_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                       size_t keys_offset, cl_mem values, size_t values_offset,
                                       size_t value_size, size_t n, const clsort_options *options,
                                       cl_uint nwait, const cl_event *wait, cl_event *event)
{
    const char *fn = "clsort_sort_pairs_buffer";
    CLSORT_TRY(check_context(ctx, fn));
    request rq = {.fn = fn, .mode = MODE_PAIRS};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, value_size, 0, options));
    CLSORT_TRY(check_wait(ctx, fn, nwait, wait));
    CLSORT_TRY(check_buffer(ctx, fn, "keys", keys, keys_offset, n, rq.job.key.bytes));
    CLSORT_TRY(check_buffer(ctx, fn, "values", values, values_offset, n, value_size));
    if (ranges_overlap(keys, keys_offset * rq.job.key.bytes, n * rq.job.key.bytes, values,
                       values_offset * value_size, n * value_size))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys and values overlap", fn);
    return buffer_sort(ctx, &rq, keys, keys_offset, values, values_offset, nwait, wait, event);
}

clsort_status clsort_argsort_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                    size_t keys_offset, size_t n, clsort_type index_type,
                                    cl_mem indices, size_t indices_offset,
                                    const clsort_options *options, cl_uint nwait,
                                    const cl_event *wait, cl_event *event)
{
    const char *fn = "clsort_argsort_buffer";
    CLSORT_TRY(check_context(ctx, fn));
    request rq = {.fn = fn, .mode = MODE_ARGSORT};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, index_type, options));
    CLSORT_TRY(check_wait(ctx, fn, nwait, wait));
    CLSORT_TRY(check_buffer(ctx, fn, "keys", keys, keys_offset, n, rq.job.key.bytes));
    CLSORT_TRY(check_buffer(ctx, fn, "indices", indices, indices_offset, n, rq.index_bytes));
    if (ranges_overlap(keys, keys_offset * rq.job.key.bytes, n * rq.job.key.bytes, indices,
                       indices_offset * rq.index_bytes, n * rq.index_bytes))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys and indices overlap", fn);
    if (event)
        *event = NULL;
    if (n == 1) { /* the identity: no sort to run */
        clsort_seq seq = {nwait, wait};
        const cl_event *w;
        cl_uint nw = clsort_seq_take(&seq, &w);
        const cl_ulong zero = 0;
        cl_int err = clEnqueueFillBuffer(ctx->queue, indices, &zero, rq.index_bytes,
                                         indices_offset * rq.index_bytes, rq.index_bytes, nw, w,
                                         event);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, err, "%s: clEnqueueFillBuffer failed: %s", fn,
                               clsort_status_string(err));
        return CLSORT_SUCCESS;
    }
    return buffer_sort(ctx, &rq, keys, keys_offset, indices, indices_offset, nwait, wait, event);
}

/* ------------------------------------------------ host <-> buffer copies */

/* The route of the host-array sorts: where the device shares host memory,
 * the buffer mapped and copied by host threads; else through the pinned
 * chunks (the driver's copy below stage_min, or with $CLSORT_HOST_PATH=copy).
 * Blocks until the copy is done. */
static clsort_status buffer_copy(clsort_context *ctx, const char *fn, cl_mem buf, size_t off,
                                 void *host, size_t bytes, bool to_buffer)
{
    CLSORT_TRY(check_context(ctx, fn));
    CLSORT_TRY(check_buffer(ctx, fn, "the", buf, off, bytes, 1));
    if (bytes > 0 && !host)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: the host pointer is NULL", fn);
    if (bytes == 0)
        return CLSORT_SUCCESS;
    clsort_team *team =
        clsort_host_staged(ctx, bytes) ? clsort_team_start(clsort_host_threads(ctx)) : NULL;
    clsort_status st;
    if (context_path(ctx) == CLSORT_HOST_MAPPED)
        st = clsort_host_map_copy(ctx, team, buf, off, host, bytes, to_buffer);
    else if (to_buffer)
        st = clsort_host_upload(ctx, team, buf, off, host, bytes);
    else
        st = clsort_host_download(ctx, team, buf, off, host, bytes);
    cl_int err = clFinish(ctx->queue);
    clsort_team_stop(team);
    if (st == CLSORT_SUCCESS && err != CL_SUCCESS)
        st = clsort_fail(ctx, err, "%s: the copy failed: %s", fn, clsort_status_string(err));
    return st;
}

clsort_status clsort_buffer_write(clsort_context *ctx, cl_mem buffer, size_t offset,
                                  const void *src, size_t bytes)
{
    return buffer_copy(ctx, "clsort_buffer_write", buffer, offset, (void *)src, bytes, true);
}

clsort_status clsort_buffer_read(clsort_context *ctx, cl_mem buffer, size_t offset, void *dst,
                                 size_t bytes)
{
    return buffer_copy(ctx, "clsort_buffer_read", buffer, offset, dst, bytes, false);
}

/* ----------------------------------------------------------- temp memory */

static clsort_status shape_request(clsort_context *ctx, request *rq, clsort_type key_type,
                                   size_t value_size, size_t n, const clsort_options *options)
{
    rq->mode = value_size ? MODE_PAIRS : MODE_KEYS;
    return check_request(ctx, rq, key_type, n, value_size, 0, options);
}

clsort_status clsort_temp_size(clsort_context *ctx, clsort_type key_type, size_t value_size,
                               size_t n, const clsort_options *options, size_t *bytes)
{
    CLSORT_TRY(check_context(ctx, "clsort_temp_size"));
    if (!bytes)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "clsort_temp_size: bytes is NULL");
    request rq = {.fn = "clsort_temp_size"};
    CLSORT_TRY(shape_request(ctx, &rq, key_type, value_size, n, options));
    *bytes = 0;
    if (n < 2)
        return CLSORT_SUCCESS;
    return request_temp_bytes(ctx, &rq, false, bytes);
}

clsort_status clsort_context_reserve(clsort_context *ctx, clsort_type key_type,
                                     size_t value_size, size_t n, const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_context_reserve"));
    request rq = {.fn = "clsort_context_reserve"};
    CLSORT_TRY(shape_request(ctx, &rq, key_type, value_size, n, options));
    if (n < 2)
        return CLSORT_SUCCESS;
    CLSORT_TRY(check_memory(ctx, &rq, false, 0));
    /* Sorting nothing through a dry job allocates every slot the shape
     * needs: run the real allocation path with a scratch keys buffer. */
    rq.job.keys = NULL;
    set_job_values(&rq, (cl_mem)(uintptr_t)1, 0);
    /* AUTO resolves as the sort would: small sorts go to one bitonic
     * work-group, which needs no temporaries. */
    resolve_algorithm(ctx, &rq.job);
    const size_t rec = rq.records ? n * rq.value_size : 0, perm = rq.records ? n * rq.index_bytes : 0;
    cl_mem m;
    if (rec)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_RECORDS, rec, &m));
    if (perm)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_PERM, perm, &m));
    if (is_radix(rq.job.algorithm))
        return clsort_radix_reserve(ctx, &rq.job, 0, 0);
    const unsigned a = rq.job.algorithm;
    const size_t kb = rq.job.key.bytes, vb = rq.job.vals ? rq.job.val_bytes : 0;
    const bool stable = rq.job.vals || rq.job.key.kind == 2 || rq.job.begin_bit != 0 ||
                        rq.job.end_bit != rq.job.key.bytes * 8;
    if (a == CLSORT_ALGORITHM_BITONIC && n <= clsort_bitonic_capacity(ctx, rq.job.key.bytes, stable))
        return CLSORT_SUCCESS;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_KEYS, n * kb, &m));
    if (vb)
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_OUT_VALS, n * vb, &m));
    if (a == CLSORT_ALGORITHM_BITONIC || a == CLSORT_ALGORITHM_BITONIC_GLOBAL) {
        size_t pad = 2;
        while (pad < n)
            pad *= 2;
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_KEYS, pad * kb, &m));
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_BT_INDEX, pad * 4, &m));
    }
    return CLSORT_SUCCESS;
}

clsort_status clsort_context_trim(clsort_context *ctx, size_t *freed)
{
    CLSORT_TRY(check_context(ctx, "clsort_context_trim"));
    size_t b = clsort_pool_bytes(ctx) + ctx->stage_bytes * CLSORT_STAGE_SLOTS;
    clsort_pool_release(ctx);
    clsort_stage_release(ctx);
    if (freed)
        *freed = b;
    return CLSORT_SUCCESS;
}

/* ----------------------------------------------------------------- tuning */

clsort_status clsort_context_set_tuning(clsort_context *ctx, const char *spec)
{
    CLSORT_TRY(check_context(ctx, "clsort_context_set_tuning"));
    if (!spec || !spec[0]) {
        ctx->tuning = ctx->tuned;
        return CLSORT_SUCCESS;
    }
    clsort_tuning t = ctx->tuning;
    char err[512];
    clsort_status s = clsort_tuning_apply(&t, spec, err, sizeof err);
    if (s == CLSORT_SUCCESS)
        s = clsort_tuning_check(&t, &ctx->facts, err, sizeof err);
    if (s != CLSORT_SUCCESS)
        return clsort_fail(ctx, s, "tuning '%s': %s", spec, err);
    ctx->tuning = t;
    return CLSORT_SUCCESS;
}

size_t clsort_context_get_tuning(const clsort_context *ctx, char *buf, size_t size)
{
    if (!ctx) {
        if (buf && size)
            buf[0] = '\0';
        return 0;
    }
    return clsort_tuning_format(&ctx->tuning, buf, buf ? size : 0);
}

clsort_status clsort_context_save_tuning(clsort_context *ctx)
{
    CLSORT_TRY(check_context(ctx, "clsort_context_save_tuning"));
    if (!ctx->cache_dir)
        return clsort_fail(ctx, CLSORT_ERROR_IO,
                           "clsort_context_save_tuning: the cache folder is disabled");
    char name[64], text[2048]; /* every key at its widest: about 920 characters */
    clsort_tuning_file_name(ctx, name, sizeof name);
    clsort_tuning_format(&ctx->tuning, text, sizeof text);
    if (!clsort_cache_write_text(ctx->cache_dir, name, text))
        return clsort_fail(ctx, CLSORT_ERROR_IO, "could not write %s/%s", ctx->cache_dir, name);
    ctx->tuned = ctx->tuning;
    return CLSORT_SUCCESS;
}

/* ------------------------------------------------------- segmented sorts */

static bool stable_needed(const request *rq)
{
    const clsort_radix_job *j = &rq->job;
    return rq->mode != MODE_KEYS || j->key.kind == 2 || j->begin_bit != 0 ||
           j->end_bit != j->key.bytes * 8;
}

/* Checks host offsets and fills the descriptor's ranges from them. */
static clsort_status seg_from_offsets(clsort_context *ctx, const char *fn, const uint64_t *o,
                                      size_t count, size_t n, clsort_seg_desc *d)
{
    size_t maxlen = 0;
    for (size_t s = 0; s < count; s++) {
        if (o[s + 1] < o[s])
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "%s: segment offsets decrease at segment %zu (%llu > %llu)", fn, s,
                               (unsigned long long)o[s], (unsigned long long)o[s + 1]);
        if (o[s + 1] - o[s] > maxlen)
            maxlen = (size_t)(o[s + 1] - o[s]);
    }
    if (o[count] > n)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: the last segment ends at %llu, past the %zu elements", fn,
                           (unsigned long long)o[count], n);
    d->use_offsets = true;
    d->host_offsets = o;
    d->count = count;
    d->base0 = (size_t)o[0];
    d->covered = (size_t)(o[count] - o[0]);
    d->maxlen = maxlen;
    return CLSORT_SUCCESS;
}

static clsort_status seg_fixed(clsort_context *ctx, const char *fn, const clsort_segments *sg,
                               size_t n, clsort_seg_desc *d)
{
    if (sg->count && sg->length && sg->count > n / sg->length)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: %zu segments of %zu elements exceed the %zu elements", fn,
                           sg->count, sg->length, n);
    d->use_offsets = false;
    d->count = sg->length ? sg->count : 0;
    d->seg_len = sg->length;
    d->covered = sg->count * sg->length;
    d->maxlen = sg->length;
    return CLSORT_SUCCESS;
}

static clsort_status seg_common(clsort_context *ctx, const char *fn, const clsort_segments *sg)
{
    if (!sg)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: segments is NULL", fn);
    for (size_t i = 0; i < sizeof sg->reserved / sizeof sg->reserved[0]; i++)
        if (sg->reserved[i])
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_OPTIONS,
                               "%s: clsort_segments.reserved must be zero", fn);
    return CLSORT_SUCCESS;
}

/* The host entry points: host offsets (or fixed length), arrays copied to
 * the device and back like the plain sorts. */
static clsort_status host_segments(clsort_context *ctx, request *rq, void *keys, void *values,
                                   const clsort_segments *sg)
{
    const char *fn = rq->fn;
    CLSORT_TRY(seg_common(ctx, fn, sg));
    if (sg->offsets_buffer)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: host arrays take host offsets (offsets), not offsets_buffer", fn);
    const size_t n = rq->job.n;
    if (n > 0 && (!keys || (rq->mode == MODE_PAIRS && !values)))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys or values is NULL", fn);
    if (rq->mode == MODE_PAIRS && n > 0 &&
        overlap(keys, n * rq->job.key.bytes, values, n * rq->value_size))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys and values overlap", fn);
    rq->segmented = true;
    memset(&rq->seg, 0, sizeof rq->seg);
    if (sg->offsets) {
        CLSORT_TRY(seg_from_offsets(ctx, fn, sg->offsets, sg->count, n, &rq->seg));
        cl_mem ob;
        CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_SEG_OFFSETS, (sg->count + 1) * 8, &ob));
        cl_int err = clEnqueueWriteBuffer(ctx->queue, ob, CL_TRUE, 0, (sg->count + 1) * 8,
                                          sg->offsets, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, err, "%s: copying the offsets failed: %s", fn,
                               clsort_status_string(err));
        rq->seg.offsets = ob;
    } else {
        CLSORT_TRY(seg_fixed(ctx, fn, sg, n, &rq->seg));
    }
    if (rq->seg.count == 0 || rq->seg.maxlen < 2)
        return CLSORT_SUCCESS; /* nothing to reorder */
    return host_sort(ctx, rq, keys, keys, values, NULL);
}

clsort_status clsort_sort_segments(clsort_context *ctx, clsort_type key_type, void *keys, size_t n,
                                   const clsort_segments *segments, const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_sort_segments"));
    request rq = {.fn = "clsort_sort_segments", .mode = MODE_KEYS};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, 0, 0, options));
    return host_segments(ctx, &rq, keys, NULL, segments);
}

clsort_status clsort_sort_segments_pairs(clsort_context *ctx, clsort_type key_type, void *keys,
                                         void *values, size_t value_size, size_t n,
                                         const clsort_segments *segments,
                                         const clsort_options *options)
{
    CLSORT_TRY(check_context(ctx, "clsort_sort_segments_pairs"));
    request rq = {.fn = "clsort_sort_segments_pairs", .mode = MODE_PAIRS};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, value_size, 0, options));
    return host_segments(ctx, &rq, keys, values, segments);
}

clsort_status clsort_sort_segments_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                          size_t keys_offset, cl_mem values,
                                          size_t values_offset, size_t value_size, size_t n,
                                          const clsort_segments *sg, const clsort_options *options,
                                          cl_uint nwait, const cl_event *wait, cl_event *event)
{
    const char *fn = "clsort_sort_segments_buffer";
    CLSORT_TRY(check_context(ctx, fn));
    if (event)
        *event = NULL;
    request rq = {.fn = fn, .mode = values ? MODE_PAIRS : MODE_KEYS};
    CLSORT_TRY(check_request(ctx, &rq, key_type, n, values ? value_size : 0, 0, options));
    CLSORT_TRY(check_wait(ctx, fn, nwait, wait));
    CLSORT_TRY(seg_common(ctx, fn, sg));
    if (sg->offsets)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: device buffers take offsets_buffer, not host offsets", fn);
    CLSORT_TRY(check_buffer(ctx, fn, "keys", keys, keys_offset, n, rq.job.key.bytes));
    if (values) {
        CLSORT_TRY(check_buffer(ctx, fn, "values", values, values_offset, n, value_size));
        if (ranges_overlap(keys, keys_offset * rq.job.key.bytes, n * rq.job.key.bytes, values,
                           values_offset * value_size, n * value_size))
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys and values overlap",
                               fn);
    }
    CLSORT_TRY(check_memory(ctx, &rq, false, 0));
    rq.segmented = true;
    memset(&rq.seg, 0, sizeof rq.seg);
    uint64_t *host = NULL;
    if (sg->offsets_buffer) {
        CLSORT_TRY(check_buffer(ctx, fn, "offsets", sg->offsets_buffer, sg->offsets_offset,
                                sg->count + 1, 8));
        const unsigned a = rq.job.algorithm;
        const size_t cap = clsort_bitonic_capacity(ctx, rq.job.key.bytes, stable_needed(&rq));
        /* (with the offsets left on the device, AUTO does not take the
         * sort of (segment, key): run_segments) */
        const bool local_only = sg->max_length && sg->max_length <= cap && !rq.records &&
                                (a == CLSORT_ALGORITHM_AUTO || a == CLSORT_ALGORITHM_BITONIC);
        if (local_only) { /* trust max_length: no read back, no blocking */
            rq.seg.use_offsets = true;
            rq.seg.count = sg->count;
            rq.seg.maxlen = sg->max_length;
        } else {
            host = malloc((sg->count + 1) * 8);
            if (!host)
                return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                                   fn);
            cl_int err = clEnqueueReadBuffer(ctx->queue, sg->offsets_buffer, CL_TRUE,
                                             sg->offsets_offset * 8, (sg->count + 1) * 8, host,
                                             nwait, wait, NULL);
            clsort_status st = err == CL_SUCCESS
                                   ? seg_from_offsets(ctx, fn, host, sg->count, n, &rq.seg)
                                   : clsort_fail(ctx, err, "%s: reading the offsets failed: %s",
                                                 fn, clsort_status_string(err));
            if (st != CLSORT_SUCCESS) {
                free(host);
                return st;
            }
            nwait = 0; /* the blocking read waited for the list */
            wait = NULL;
        }
        rq.seg.offsets = sg->offsets_buffer;
        rq.seg.offsets_off = sg->offsets_offset;
    } else {
        CLSORT_TRY(seg_fixed(ctx, fn, sg, n, &rq.seg));
    }
    clsort_seq seq = {nwait, wait};
    clsort_status st = CLSORT_SUCCESS;
    if (rq.seg.count > 0 && rq.seg.maxlen >= 2) {
        cl_mem recs = NULL;
        st = run_request(ctx, &rq, keys, keys_offset, values, values_offset, false, &seq, &recs);
        if (st == CLSORT_SUCCESS && recs)
            st = clsort_copy(ctx, recs, 0, values, values_offset * rq.value_size, n * rq.value_size,
                             &seq);
    }
    if (st == CLSORT_SUCCESS)
        st = clsort_seq_finish(ctx, &seq, event);
    if (host) {
        /* The offsets were read back; kernels may still use the device copy
         * only, so the host copy can go once everything is enqueued... but
         * the per-segment radix path reads it while enqueuing, which is done. */
        free(host);
    }
    return st;
}

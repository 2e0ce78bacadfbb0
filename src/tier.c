#define _DEFAULT_SOURCE /* syscall(SYS_gettid) */
/* tier.c - a host-array sort whose kernels are not built yet: sorted on the
 * host while they build in the background (issue 37).
 *
 * Through PoCL with empty caches a program's build and its kernels' first
 * launches take seconds, more than sorting millions of keys on one core.
 * So a host-array sort of a kind (key type; keys, pairs with a value size,
 * or argsort with an index type) not yet warm on the device, of at most
 * the tuning's tier_max elements on the tuned route, runs the host radix
 * sort (host_radix.c) on the calling thread, and a background thread warms
 * that kind as clsort_context_warmup does. Calls made meanwhile sort on
 * the host too and never wait for it; once it has ended, a call joins it,
 * takes over its programs, and the kind runs on the device.
 *
 * The background thread works in a context of its own: its own queue,
 * programs, pool and messages, on the caller's cl_context (which OpenCL
 * lets threads share) and with its guard (which locks). Nothing the
 * caller's thread touches is touched by it until joined, so the calls that
 * use the device meanwhile need not wait for it either.
 *
 * A kind is warm when this context has warmed it, or when a mark in the
 * cache folder says that a warmup of it succeeded for this library, these
 * kernel sources, device, driver, build options and tuning (written by
 * the background thread and by clsort_context_warmup): a new process with
 * warm caches goes straight to the device. The check reads one small file,
 * once per kind and context. */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

struct clsort_tier_job {
    struct clsort_tier_job *next; /* the process's running builds */
    pthread_t thread, sentinel;
    clsort_context *shadow; /* the thread's context */
    clsort_tier_request rq;
    _Atomic bool done, cancel;
    clsort_status status;
};

/* A kind of sort as one number: the key type, then keys (0), pairs with
 * value_size bytes (sizes the passes carry) or records of another size
 * (one kind: the permutation and a gather), or an argsort's index size. */
static uint32_t kind_code(const clsort_tier_request *rq)
{
    uint32_t v = 0;
    if (rq->mode == 1) {
        const size_t s = rq->value_size;
        v = (s == 1 || s == 2 || s == 4 || s == 8 || s == 16) ? (uint32_t)s : 32;
    } else if (rq->mode == 2) {
        v = 64 + rq->index_bytes;
    }
    return (uint32_t)rq->key_type << 8 | v;
}

static bool known_warm(const clsort_context *ctx, uint32_t code)
{
    for (size_t i = 0; i < ctx->ntier_warm; i++)
        if (ctx->tier_warm[i] == code)
            return true;
    return false;
}

static void add_warm(clsort_context *ctx, uint32_t code)
{
    if (!known_warm(ctx, code) &&
        ctx->ntier_warm < sizeof ctx->tier_warm / sizeof ctx->tier_warm[0])
        ctx->tier_warm[ctx->ntier_warm++] = code;
}

/* The mark's file name and content: two hashes of everything that changes
 * the programs a kind takes (the tuning without tier_max, which changes
 * none). */
static bool mark_of(const clsort_context *ctx, uint32_t code, char *name, size_t nsize,
                    char *text, size_t tsize)
{
    char tuning[2048];
    clsort_tuning t = ctx->tuning;
    t.tier_max = 0;
    clsort_tuning_format(&t, tuning, sizeof tuning);
    size_t cap = 4096 + clsort_embedded_file_count * 96;
    char *key = malloc(cap);
    if (!key)
        return false;
    const clsort_device_facts *f = &ctx->facts;
    size_t len = (size_t)snprintf(key, cap, "clsort %s warm %u\n", CLSORT_VERSION_STRING, code);
    for (size_t i = 0; i < clsort_embedded_file_count && len < cap; i++)
        len += (size_t)snprintf(key + len, cap - len, "%s:%s\n", clsort_embedded_files[i].name,
                                clsort_embedded_files[i].sha256);
    if (len < cap)
        snprintf(key + len, cap - len, "%s | %s\n%s | %s\n%s\nsalt %u\noptions %s\ntuning %s\n",
                 f->platform_name, f->platform_version, f->device_name, f->device_version,
                 f->driver_version, ctx->salt, ctx->extra_options ? ctx->extra_options : "",
                 tuning);
    snprintf(name, nsize, "warm-%016llx.txt",
             (unsigned long long)clsort_hash64(key, strlen(key), 0));
    snprintf(text, tsize, "%016llx", (unsigned long long)clsort_hash64(key, strlen(key), 0x3a7));
    free(key);
    return true;
}

static bool marked_warm(const clsort_context *ctx, uint32_t code)
{
    char name[64], want[32];
    if (!ctx->cache_dir || !mark_of(ctx, code, name, sizeof name, want, sizeof want))
        return false;
    char *text = clsort_cache_read_text(ctx->cache_dir, name);
    const bool ok = text && !strcmp(text, want);
    free(text);
    return ok;
}

void clsort_tier_mark_warm(clsort_context *ctx, const clsort_tier_request *rq)
{
    const uint32_t code = kind_code(rq);
    add_warm(ctx, code);
    char name[64], text[32];
    if (ctx->cache_dir && !marked_warm(ctx, code) &&
        mark_of(ctx, code, name, sizeof name, text, sizeof text))
        clsort_cache_write_text(ctx->cache_dir, name, text);
}

/* ------------------------------------------------------------ the thread */

/* Exit and builds still running (a context never released): exit must not
 * cut the driver off inside a build, which the next context would take for
 * a crash there (guard.c) and answer by building everything anew. So the
 * handler stop_at_exit stops every build at its next step and waits for
 * it. It has to run before the destructors that the driver's compiler
 * registers when it first uses something, during the build (exit runs the
 * last registered first; waiting behind them crashed in clang): while a
 * build runs, a sentinel thread registers the handler again every
 * SENTINEL_NS. */
#define SENTINEL_NS 50000000L
/* The background thread's nice value (Linux: a thread's own). */
#define BUILD_NICE 10

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct clsort_tier_job *live;

static void stop_at_exit(void)
{
    pthread_mutex_lock(&live_lock);
    for (struct clsort_tier_job *j = live; j; j = j->next)
        atomic_store(&j->cancel, true);
    for (struct clsort_tier_job *j = live; j; j = j->next)
        while (!atomic_load(&j->done))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    pthread_mutex_unlock(&live_lock);
}

static void *sentinel_main(void *arg)
{
    struct clsort_tier_job *job = arg;
    while (!atomic_load(&job->done)) {
        (void)atexit(stop_at_exit);
        nanosleep(&(struct timespec){0, SENTINEL_NS}, NULL);
    }
    return NULL;
}

static void live_remove(struct clsort_tier_job *job)
{
    pthread_mutex_lock(&live_lock);
    for (struct clsort_tier_job **p = &live; *p; p = &(*p)->next)
        if (*p == job) {
            *p = job->next;
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

/* A context for the thread: the caller's device, cl_context, settings and
 * guard; a queue, programs and pool of its own; no tier. */
static clsort_context *shadow_create(const clsort_context *ctx)
{
    clsort_context *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->platform = ctx->platform;
    s->device = ctx->device;
    s->cl = ctx->cl;
    s->facts = ctx->facts;
    s->store_binaries = ctx->store_binaries;
    s->tuned = ctx->tuned;
    s->tuning = ctx->tuning;
    s->mem_cap = ctx->mem_cap;
    s->host_path = ctx->host_path;
    s->host_threads = ctx->host_threads;
    s->host_chunk = ctx->host_chunk;
    s->stage_min = ctx->stage_min;
    s->guard = ctx->guard;
    s->salt = ctx->salt;
    s->recovered = ctx->recovered;
    s->tier_bypass = true;
    cl_int err = CL_SUCCESS;
    if ((ctx->cache_dir && !(s->cache_dir = strdup(ctx->cache_dir))) ||
        (ctx->extra_options && !(s->extra_options = strdup(ctx->extra_options)))) {
        err = CL_OUT_OF_HOST_MEMORY;
    } else {
        s->queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
    }
    if (err != CL_SUCCESS) {
        free(s->cache_dir);
        free(s->extra_options);
        free(s);
        return NULL;
    }
    clRetainContext(s->cl);
    s->owns_cl = true; /* its queue and its reference to the cl_context */
    return s;
}

static void shadow_release(clsort_context *s)
{
    s->guard = NULL; /* the caller's */
    s->nfresh = 0;
    clsort_context_release(s);
}

static void *tier_main(void *arg)
{
    struct clsort_tier_job *job = arg;
    clsort_context *s = job->shadow;
#if defined(__linux__)
    /* below the caller's threads: the build takes what they leave, and a
     * first call on the host does not share its core with the compiler
     * (PERFORMANCE.md, decision log, area start-up: the build's priority) */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), BUILD_NICE);
#endif
    job->status = clsort_warm_kind(s, &job->rq, &job->cancel);
    if (job->status == CLSORT_SUCCESS && !atomic_load(&job->cancel))
        clsort_tier_mark_warm(s, &job->rq);
    atomic_store(&job->done, true);
    return NULL;
}

static bool tier_start(clsort_context *ctx, const clsort_tier_request *rq)
{
    struct clsort_tier_job *job = calloc(1, sizeof *job);
    if (!job)
        return false;
    job->rq = *rq;
    atomic_init(&job->done, false);
    atomic_init(&job->cancel, false);
    job->shadow = shadow_create(ctx);
    pthread_mutex_lock(&live_lock);
    bool started = job->shadow && pthread_create(&job->thread, NULL, tier_main, job) == 0;
    if (started && pthread_create(&job->sentinel, NULL, sentinel_main, job) != 0) {
        atomic_store(&job->cancel, true); /* no sentinel: no build */
        pthread_join(job->thread, NULL);
        started = false;
    }
    if (started) {
        job->next = live;
        live = job;
    }
    pthread_mutex_unlock(&live_lock);
    if (!started) {
        if (job->shadow)
            shadow_release(job->shadow);
        free(job);
        return false;
    }
    ctx->tier_job = job;
    return true;
}

/* Takes over what the thread built: its programs (with the kernels not yet
 * launched, still guarded) and its build log; or its failure. */
static clsort_status adopt(clsort_context *ctx, struct clsort_tier_job *job)
{
    clsort_context *s = job->shadow;
    if (s->programs) {
        clsort_program *last = s->programs;
        while (last->next)
            last = last->next;
        last->next = ctx->programs;
        ctx->programs = s->programs;
        s->programs = NULL;
        for (size_t i = 0; i < s->nfresh; i++)
            if (ctx->nfresh < sizeof ctx->fresh / sizeof ctx->fresh[0])
                ctx->fresh[ctx->nfresh++] = s->fresh[i];
    }
    if (s->build_log) {
        free(ctx->build_log);
        ctx->build_log = s->build_log;
        s->build_log = NULL;
    }
    clsort_status st = job->status;
    if (st == CLSORT_SUCCESS && !atomic_load(&job->cancel)) {
        add_warm(ctx, kind_code(&job->rq));
    } else if (st != CLSORT_SUCCESS) {
        ctx->tier_off = true;
        clsort_fail(ctx, st, "building the kernels in the background failed: %s",
                    clsort_context_last_error(s));
    }
    return st;
}

clsort_status clsort_tier_join(clsort_context *ctx, bool wait)
{
    struct clsort_tier_job *job = ctx->tier_job;
    if (!job || (!wait && !atomic_load(&job->done)))
        return CLSORT_SUCCESS;
    pthread_join(job->thread, NULL);
    pthread_join(job->sentinel, NULL);
    live_remove(job);
    ctx->tier_job = NULL;
    clsort_status st = adopt(ctx, job);
    shadow_release(job->shadow);
    free(job);
    return st;
}

void clsort_tier_release(clsort_context *ctx)
{
    if (!ctx->tier_job)
        return;
    atomic_store(&ctx->tier_job->cancel, true);
    (void)clsort_tier_join(ctx, true);
}

clsort_status clsort_tier_route(clsort_context *ctx, const clsort_tier_request *rq, bool *on_host)
{
    *on_host = false;
    ctx->tier_last = 0;
    CLSORT_TRY(clsort_tier_join(ctx, false));
    if (ctx->tier_bypass || ctx->tier_off || !rq->tuned_route || rq->n < 2 ||
        rq->n > ctx->tuning.tier_max)
        return CLSORT_SUCCESS;
    if (ctx->tier_force == 1) {
        *on_host = true;
    } else {
        const uint32_t code = kind_code(rq);
        if (known_warm(ctx, code))
            return CLSORT_SUCCESS;
        if (marked_warm(ctx, code)) {
            add_warm(ctx, code);
            return CLSORT_SUCCESS;
        }
        /* one build at a time: this kind's starts with a later call */
        if (!ctx->tier_job && !tier_start(ctx, rq))
            return CLSORT_SUCCESS; /* no thread: the device, as before */
        *on_host = true;
    }
    ctx->tier_last = 1;
    return CLSORT_SUCCESS;
}

void clsort_tier_force(clsort_context *ctx, int on) { ctx->tier_force = on; }
int clsort_tier_last(const clsort_context *ctx) { return ctx->tier_last; }
int clsort_tier_running(const clsort_context *ctx)
{
    return ctx->tier_job && !atomic_load(&ctx->tier_job->done);
}

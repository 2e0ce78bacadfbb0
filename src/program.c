#define _POSIX_C_SOURCE 200809L
/* program.c - building kernel programs, with an in-memory cache per context
 * and the disk cache of cache.c, and small enqueue helpers. */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const clsort_embedded_file *find_file(const char *name)
{
    for (size_t i = 0; i < clsort_embedded_file_count; i++)
        if (!strcmp(clsort_embedded_files[i].name, name))
            return &clsort_embedded_files[i];
    return NULL;
}

/* The cache key: everything that changes the compiled program. */
static char *make_key(clsort_context *ctx, const char *const *files, size_t nfiles,
                      const char *options)
{
    const clsort_device_facts *f = &ctx->facts;
    size_t cap = 1024 + strlen(options) + nfiles * 96;
    char *key = malloc(cap);
    if (!key)
        return NULL;
    size_t len = (size_t)snprintf(key, cap, "clsort %s\nsources", CLSORT_VERSION_STRING);
    for (size_t i = 0; i < nfiles; i++) {
        const clsort_embedded_file *e = find_file(files[i]);
        len += (size_t)snprintf(key + len, cap - len, " %s:%s", files[i], e ? e->sha256 : "?");
    }
    snprintf(key + len, cap - len, "\noptions %s\nplatform %s | %s\ndevice %s | %s\ndriver %s\n",
             options, f->platform_name, f->platform_version, f->device_name, f->device_version,
             f->driver_version);
    return key;
}

static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
        return NULL;
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    return log;
}

/* PoCL's clang (and NVIDIA's compiler) write their "N warnings generated."
 * line to the process's fd 2, outside the build log. Around a build, fd 2
 * goes to a temporary file; the compiler's summary lines join the build log and
 * anything else (another thread's output, written meanwhile) goes back to
 * stderr afterwards, late but not lost. One build at a time in the
 * process holds fd 2 (the mutex). */
typedef struct stderr_capture {
    FILE *tmp;
    int saved; /* the caller's fd 2 (-1: it was closed) */
} stderr_capture;

static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

static bool capture_begin(stderr_capture *c)
{
    pthread_mutex_lock(&capture_lock);
    fflush(stderr);
    c->tmp = tmpfile();
    c->saved = c->tmp ? dup(STDERR_FILENO) : -1;
    if (!c->tmp || dup2(fileno(c->tmp), STDERR_FILENO) < 0) {
        if (c->tmp)
            fclose(c->tmp);
        if (c->saved >= 0)
            close(c->saved);
        pthread_mutex_unlock(&capture_lock);
        return false;
    }
    return true;
}

/* clang's count of diagnostics, e.g. "3 warnings generated." */
static bool is_summary_line(const char *line)
{
    return strstr(line, " generated.") &&
           (strstr(line, " warning") || strstr(line, " error")) && line[0] >= '0' &&
           line[0] <= '9';
}

/* Restores fd 2; returns the compiler's lines (allocated, may be NULL). */
static char *capture_end(stderr_capture *c)
{
    fflush(stderr);
    if (c->saved >= 0) {
        dup2(c->saved, STDERR_FILENO);
        close(c->saved);
    } else {
        close(STDERR_FILENO);
    }
    pthread_mutex_unlock(&capture_lock);
    char *mine = NULL;
    size_t mlen = 0;
    long size = fseek(c->tmp, 0, SEEK_END) == 0 ? ftell(c->tmp) : -1;
    if (size > 0 && fseek(c->tmp, 0, SEEK_SET) == 0 && (mine = malloc((size_t)size + 1))) {
        char line[1024];
        while (fgets(line, sizeof line, c->tmp)) {
            size_t len = strlen(line);
            if (is_summary_line(line)) {
                memcpy(mine + mlen, line, len);
                mlen += len;
            } else if (c->saved >= 0) {
                (void)!write(STDERR_FILENO, line, len);
            }
        }
        mine[mlen] = '\0';
    }
    fclose(c->tmp);
    if (mine && mlen == 0) {
        free(mine);
        mine = NULL;
    }
    return mine;
}

static cl_program from_binary(clsort_context *ctx, const char *key, const char *options)
{
    unsigned char *bin = NULL;
    size_t len = 0;
    if (!ctx->store_binaries || !clsort_cache_load(ctx->cache_dir, key, &bin, &len))
        return NULL;
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program prog = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &len, bins, &status, &err);
    free(bin);
    cl_int built = CL_INVALID_BINARY;
    if (err == CL_SUCCESS && status == CL_SUCCESS) {
        clsort_guard_enter(ctx);
        built = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
        clsort_guard_leave(ctx);
    }
    if (built == CL_SUCCESS)
        return prog;
    if (prog && err == CL_SUCCESS)
        clReleaseProgram(prog);
    /* The driver refused the binary: drop the entry; the caller builds from
     * source and stores a fresh one. */
    clsort_cache_remove(ctx->cache_dir, key);
    return NULL;
}

static void store_binary(clsort_context *ctx, const char *key, cl_program prog)
{
    if (!ctx->store_binaries)
        return;
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (!bin)
        return;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        clsort_cache_store(ctx->cache_dir, key, bin, size);
    free(bin);
}

static clsort_status from_source(clsort_context *ctx, const char *const *files, size_t nfiles,
                                 const char *options, cl_program *out)
{
    const char *parts[32];
    size_t lens[32];
    char lines[32][96];
    size_t np = 0;
    if (nfiles > 16)
        return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "too many source files");
    for (size_t i = 0; i < nfiles; i++) {
        const clsort_embedded_file *e = find_file(files[i]);
        if (!e)
            return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "kernel source %s is not embedded",
                               files[i]);
        snprintf(lines[i], sizeof lines[i], "\n#line 1 \"%s\"\n", e->name);
        parts[np] = lines[i];
        lens[np++] = strlen(lines[i]);
        parts[np] = e->data;
        lens[np++] = e->size;
    }
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx->cl, (cl_uint)np, parts, lens, &err);
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, err, "clCreateProgramWithSource failed: %s",
                           clsort_status_string(err));
    stderr_capture cap;
    /* PoCL's clang and NVIDIA's compiler both write "N warnings generated."
     * to the process's stderr: it belongs in the build log */
    const bool capture = capture_begin(&cap);
    clsort_guard_enter(ctx);
    err = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
    clsort_guard_leave(ctx);
    char *said = capture ? capture_end(&cap) : NULL;
    free(ctx->build_log);
    ctx->build_log = build_log(prog, ctx->device);
    if (said) { /* the log, then the compiler's summary line */
        size_t a = ctx->build_log ? strlen(ctx->build_log) : 0, b = strlen(said);
        char *both = malloc(a + b + 2);
        if (both) {
            snprintf(both, a + b + 2, "%s%s%s", a ? ctx->build_log : "",
                     a && ctx->build_log[a - 1] != '\n' ? "\n" : "", said);
            free(ctx->build_log);
            ctx->build_log = both;
        }
        free(said);
    }
    if (err != CL_SUCCESS) {
        char *log = ctx->build_log ? strdup(ctx->build_log) : NULL;
        clsort_fail(ctx, CLSORT_ERROR_BUILD_FAILED,
                    "building kernels (%s) with options '%s' failed: %s\n--- build log ---\n",
                    files[nfiles - 1], options, clsort_status_string(err));
        clsort_fail_append(ctx, log ? log : "(no build log)");
        free(log);
        clReleaseProgram(prog);
        return CLSORT_ERROR_BUILD_FAILED;
    }
    *out = prog;
    return CLSORT_SUCCESS;
}

clsort_status clsort_program_get(clsort_context *ctx, const char *const *files, size_t nfiles,
                                 const char *base_options, clsort_program **out)
{
    char options[2048], salt[48] = "";
    if (ctx->salt) /* new driver cache entries after a crash in the driver (guard.c) */
        snprintf(salt, sizeof salt, " -DCLSORT_CACHE_SALT=%u", ctx->salt);
    snprintf(options, sizeof options, "%s%s%s%s", base_options, salt,
             ctx->extra_options ? " " : "", ctx->extra_options ? ctx->extra_options : "");
    char *key = make_key(ctx, files, nfiles, options);
    if (!key)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (clsort_program *p = ctx->programs; p; p = p->next)
        if (!strcmp(p->key, key)) {
            free(key);
            *out = p;
            return CLSORT_SUCCESS;
        }
    cl_program prog = from_binary(ctx, key, options);
    if (!prog) {
        clsort_status s = from_source(ctx, files, nfiles, options, &prog);
        if (s != CLSORT_SUCCESS) {
            free(key);
            return s;
        }
        store_binary(ctx, key, prog);
    }
    clsort_program *p = calloc(1, sizeof *p);
    if (!p) {
        clReleaseProgram(prog);
        free(key);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    p->key = key;
    p->program = prog;
    p->next = ctx->programs;
    ctx->programs = p;
    *out = p;
    return CLSORT_SUCCESS;
}

clsort_status clsort_program_kernel(clsort_context *ctx, clsort_program *prog, const char *name,
                                    cl_kernel *out)
{
    for (size_t i = 0; i < prog->nkernels; i++)
        if (!strcmp(prog->kernels[i].name, name)) {
            *out = prog->kernels[i].kernel;
            return CLSORT_SUCCESS;
        }
    if (prog->nkernels == sizeof prog->kernels / sizeof prog->kernels[0])
        return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "too many kernels in one program");
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(prog->program, name, &err);
    if (err != CL_SUCCESS)
        return clsort_fail(ctx, err, "clCreateKernel(%s) failed: %s", name,
                           clsort_status_string(err));
    char *copy = malloc(strlen(name) + 1);
    if (!copy) {
        clReleaseKernel(k);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    strcpy(copy, name);
    clsort_guard_new_kernel(ctx, k);
    prog->kernels[prog->nkernels].name = copy;
    prog->kernels[prog->nkernels].kernel = k;
    prog->nkernels++;
    *out = k;
    return CLSORT_SUCCESS;
}

void clsort_programs_release(clsort_context *ctx)
{
    clsort_program *p = ctx->programs;
    while (p) {
        clsort_program *next = p->next;
        for (size_t i = 0; i < p->nkernels; i++) {
            clReleaseKernel(p->kernels[i].kernel);
            free(p->kernels[i].name);
        }
        clReleaseProgram(p->program);
        free(p->key);
        free(p);
        p = next;
    }
    ctx->programs = NULL;
}

/* ------------------------------------------------------- enqueue helpers */

/* CLSORT_SET_ARGS's struct of clsort_arg members is read as an array of
 * them: members of one type lie one after another, with no padding. */
_Static_assert(sizeof(struct { clsort_arg a, b, c; }) == 3 * sizeof(clsort_arg),
               "a struct of clsort_arg members has padding");

clsort_status clsort_set_args(clsort_context *ctx, cl_kernel k, const char *name, const void *args,
                              const char *const *names, size_t nargs)
{
    cl_uint want = 0;
    if (clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof want, &want, NULL) == CL_SUCCESS &&
        want != nargs)
        return clsort_fail(ctx, CLSORT_ERROR_INTERNAL,
                           "%s takes %u arguments, not the %zu of its list (layout.h)", name,
                           want, nargs);
    for (size_t i = 0; i < nargs; i++) {
        clsort_arg a;
        memcpy(&a, (const unsigned char *)args + i * sizeof a, sizeof a);
        if (a.size == 0)
            return clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "%s: argument %zu (%s) is not set",
                               name, i, names[i]);
        cl_int err = clSetKernelArg(k, (cl_uint)i, a.size, a.ptr);
        if (err != CL_SUCCESS)
            return clsort_fail(ctx, err, "clSetKernelArg(%s, %zu: %s) failed: %s", name, i,
                               names[i], clsort_status_string(err));
    }
    return CLSORT_SUCCESS;
}

static clsort_status enqueue_error(clsort_context *ctx, cl_int err, const char *what)
{
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_DEVICE_MEMORY,
                           "%s failed: %s (out of device memory or resources)", what,
                           clsort_status_string(err));
    return clsort_fail(ctx, err, "%s failed: %s", what, clsort_status_string(err));
}

clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, const char *name, size_t global,
                            size_t local, clsort_seq *seq)
{
    const cl_event *wait;
    cl_uint nwait = clsort_seq_take(seq, &wait);
    cl_event ev = NULL;
    const bool fresh = clsort_guard_before_launch(ctx, k);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, local ? &local : NULL,
                                        nwait, wait, ctx->profiling || fresh ? &ev : NULL);
    if (fresh)
        clsort_guard_after_launch(ctx, err == CL_SUCCESS ? ev : NULL);
    if (err != CL_SUCCESS) {
        seq->nwait = nwait; /* nothing was enqueued: the wait list still applies */
        seq->wait = wait;
        return enqueue_error(ctx, err, name);
    }
    if (ev && ctx->profiling)
        clsort_profile_add(ctx, name, ev);
    else if (ev)
        clReleaseEvent(ev);
    return CLSORT_SUCCESS;
}

clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                          clsort_seq *seq)
{
    if (bytes == 0)
        return CLSORT_SUCCESS;
    const cl_event *wait;
    cl_uint nwait = clsort_seq_take(seq, &wait);
    const cl_uint zero = 0;
    cl_event ev = NULL;
    cl_int err = clEnqueueFillBuffer(ctx->queue, buf, &zero, sizeof zero, offset, bytes, nwait,
                                     wait, ctx->profiling ? &ev : NULL);
    if (err != CL_SUCCESS) {
        seq->nwait = nwait;
        seq->wait = wait;
        return enqueue_error(ctx, err, "clEnqueueFillBuffer");
    }
    if (ev)
        clsort_profile_add(ctx, "fill", ev);
    return CLSORT_SUCCESS;
}

clsort_status clsort_copy(clsort_context *ctx, cl_mem src, size_t src_off, cl_mem dst,
                          size_t dst_off, size_t bytes, clsort_seq *seq)
{
    if (bytes == 0)
        return CLSORT_SUCCESS;
    const cl_event *wait;
    cl_uint nwait = clsort_seq_take(seq, &wait);
    cl_event ev = NULL;
    cl_int err = clEnqueueCopyBuffer(ctx->queue, src, dst, src_off, dst_off, bytes, nwait, wait,
                                     ctx->profiling ? &ev : NULL);
    if (err != CL_SUCCESS) {
        seq->nwait = nwait;
        seq->wait = wait;
        return enqueue_error(ctx, err, "clEnqueueCopyBuffer");
    }
    if (ev)
        clsort_profile_add(ctx, "copy", ev);
    return CLSORT_SUCCESS;
}

clsort_status clsort_seq_finish(clsort_context *ctx, clsort_seq *seq, cl_event *event)
{
    if (!event && seq->nwait == 0)
        return CLSORT_SUCCESS;
    const cl_event *wait;
    cl_uint nwait = clsort_seq_take(seq, &wait);
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait, wait, event);
    if (err != CL_SUCCESS)
        return enqueue_error(ctx, err, "clEnqueueMarkerWithWaitList");
    return CLSORT_SUCCESS;
}

/* ------------------------------------------------------------- profiling */

void clsort_profile_add(clsort_context *ctx, const char *name, cl_event ev)
{
    if (ctx->nprof == ctx->prof_cap) {
        size_t cap = ctx->prof_cap ? ctx->prof_cap * 2 : 64;
        void *p = realloc(ctx->prof, cap * sizeof *ctx->prof);
        if (!p) {
            clReleaseEvent(ev);
            return;
        }
        ctx->prof = p;
        ctx->prof_cap = cap;
    }
    ctx->prof[ctx->nprof].name = name;
    ctx->prof[ctx->nprof].event = ev;
    ctx->nprof++;
}

void clsort_profile_clear(clsort_context *ctx)
{
    for (size_t i = 0; i < ctx->nprof; i++)
        clReleaseEvent(ctx->prof[i].event);
    ctx->nprof = 0;
}

clsort_status clsort_context_set_profiling(clsort_context *ctx, int on)
{
    if (!ctx)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (on && !(props & CL_QUEUE_PROFILING_ENABLE))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_QUEUE,
                           "profiling needs a queue created with CL_QUEUE_PROFILING_ENABLE");
    ctx->profiling = on != 0;
    if (!on)
        clsort_profile_clear(ctx);
    return CLSORT_SUCCESS;
}

/* A profiled command's start and end stamps (0 where the device gives none). */
static void event_span(cl_event ev, cl_ulong *t0, cl_ulong *t1)
{
    *t0 = *t1 = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof *t0, t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *t1, t1, NULL);
}

size_t clsort_context_profile(clsort_context *ctx, char *buf, size_t size)
{
    char text[4096];
    size_t len = 0;
    text[0] = '\0';
    if (ctx) {
        const char *names[32];
        double ms[32];
        unsigned count[32];
        size_t nn = 0;
        for (size_t i = 0; i < ctx->nprof; i++) {
            cl_ulong t0, t1;
            clWaitForEvents(1, &ctx->prof[i].event);
            event_span(ctx->prof[i].event, &t0, &t1);
            size_t k = 0;
            while (k < nn && strcmp(names[k], ctx->prof[i].name))
                k++;
            if (k == nn) {
                if (nn == 32)
                    continue;
                names[nn] = ctx->prof[i].name;
                ms[nn] = 0;
                count[nn] = 0;
                nn++;
            }
            ms[k] += t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
            count[k]++;
        }
        for (size_t k = 0; k < nn && len < sizeof text; k++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%-24s %5u %10.4f ms\n", names[k],
                                    count[k], ms[k]);
        /* CLSORT_PROFILE_LAUNCHES (a diagnostic): every command on a line of
         * its own, with the gap since the end of the one before */
        const char *each = getenv("CLSORT_PROFILE_LAUNCHES");
        cl_ulong prev_end = 0;
        for (size_t i = 0; each && each[0] == '1' && i < ctx->nprof && len < sizeof text; i++) {
            cl_ulong t0, t1;
            event_span(ctx->prof[i].event, &t0, &t1);
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "  #%-3zu %-24s %10.4f ms, %+8.1f us after the one before\n", i,
                                    ctx->prof[i].name, t1 > t0 ? (double)(t1 - t0) / 1e6 : 0.0,
                                    i && t0 ? ((double)t0 - (double)prev_end) / 1e3 : 0.0);
            prev_end = t1;
        }
        clsort_profile_clear(ctx);
    }
    if (buf && size)
        snprintf(buf, size, "%s", text);
    return len;
}

const char *clsort_context_build_log(const clsort_context *ctx)
{
    return ctx && ctx->build_log ? ctx->build_log : "";
}

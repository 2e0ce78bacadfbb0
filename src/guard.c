#define _POSIX_C_SOURCE 200809L
/* guard.c - surviving a crash inside the OpenCL driver's compiler or cache.
 *
 * PoCL keeps compiled kernels in its own disk cache and trusts it: a
 * truncated file there aborts the process (an assertion while loading the
 * program, or a failed dlopen of a kernel in its worker thread), with no
 * error the library could return. So while the driver compiles or loads
 * clsort's kernels (clBuildProgram; a kernel's first launch, up to its
 * completion) the context holds a mark in its cache folder: a file
 * "busy-<pid>-<n>" locked with fcntl for as long as it exists. A later
 * context that finds such a file unlocked knows its process died in
 * there; it removes the mark, counts one more in "driver-salt.txt" and,
 * like every context after it, builds its programs with
 * -DCLSORT_CACHE_SALT=<count>: new cache entries, the damaged ones never
 * read again. clsort_context_recovered tells the application, which may
 * suggest clsort_cache_clear. On PoCL only, and only with a cache folder.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SALT_FILE "driver-salt.txt"

/* Shared by the context and its pending completion callbacks, so that a
 * callback that runs after the context is gone finds it still there. */
struct clsort_guard {
    pthread_mutex_t lock;
    unsigned refs;  /* the context and each pending callback */
    unsigned busy;  /* builds and first launches not yet finished */
    int fd;         /* the mark's file, locked (-1: none) */
    char dir[4096];
    char path[4096 + 64];
};

static bool lock_fd(int fd)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    return fcntl(fd, F_SETLK, &fl) == 0;
}

/* Creates the mark: locked under a name the scan ignores, then renamed. */
static void mark_create(clsort_guard *g)
{
    static _Atomic unsigned serial;
    unsigned n = serial++;
    char tmp[4096 + 64];
    snprintf(tmp, sizeof tmp, "%s/tmp-busy-%ld-%u", g->dir, (long)getpid(), n);
    snprintf(g->path, sizeof g->path, "%s/busy-%ld-%u", g->dir, (long)getpid(), n);
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && clsort_cache_make_dirs(g->dir))
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return; /* no mark: this build's crash would not be recognised */
    if (!lock_fd(fd) || rename(tmp, g->path) != 0) {
        unlink(tmp);
        close(fd);
        return;
    }
    g->fd = fd;
}

/* Unlinked before it is closed (closing drops the lock): a scan that gets
 * the lock then finds the name gone. */
static void mark_remove(clsort_guard *g)
{
    if (g->fd < 0)
        return;
    unlink(g->path);
    close(g->fd);
    g->fd = -1;
}

static void guard_unref(clsort_guard *g)
{
    pthread_mutex_lock(&g->lock);
    bool last = --g->refs == 0;
    if (last)
        mark_remove(g);
    pthread_mutex_unlock(&g->lock);
    if (last) {
        pthread_mutex_destroy(&g->lock);
        free(g);
    }
}

void clsort_guard_enter(clsort_context *ctx)
{
    clsort_guard *g = ctx->guard;
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    if (g->busy++ == 0)
        mark_create(g);
    pthread_mutex_unlock(&g->lock);
}

static void leave(clsort_guard *g)
{
    pthread_mutex_lock(&g->lock);
    if (g->busy && --g->busy == 0)
        mark_remove(g);
    pthread_mutex_unlock(&g->lock);
}

void clsort_guard_leave(clsort_context *ctx)
{
    if (ctx->guard)
        leave(ctx->guard);
}

static void CL_CALLBACK launch_done(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    (void)status;
    clsort_guard *g = data;
    leave(g);
    guard_unref(g);
}

/* The mark goes up before the enqueue: the driver's thread may load the
 * kernel before clEnqueueNDRangeKernel returns. */
bool clsort_guard_before_launch(clsort_context *ctx, cl_kernel k)
{
    for (size_t i = 0; i < ctx->nfresh; i++) {
        if (ctx->fresh[i] != k)
            continue;
        ctx->fresh[i] = ctx->fresh[--ctx->nfresh];
        clsort_guard_enter(ctx);
        return true;
    }
    return false;
}

void clsort_guard_after_launch(clsort_context *ctx, cl_event ev)
{
    clsort_guard *g = ctx->guard;
    if (!g)
        return;
    if (ev) {
        pthread_mutex_lock(&g->lock);
        g->refs++;
        pthread_mutex_unlock(&g->lock);
        if (clSetEventCallback(ev, CL_COMPLETE, launch_done, g) == CL_SUCCESS)
            return;
        guard_unref(g);
    }
    leave(g); /* not enqueued, or no callback: this launch is not watched */
}

void clsort_guard_new_kernel(clsort_context *ctx, cl_kernel k)
{
    if (ctx->guard && ctx->nfresh < sizeof ctx->fresh / sizeof ctx->fresh[0])
        ctx->fresh[ctx->nfresh++] = k;
}

/* Removes the marks of processes that are gone; true if there was one. */
static bool sweep_dead_marks(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    /* this process's own marks (a build of another context, maybe in the
     * background) are alive: fcntl locks never conflict within a process */
    char mine[40];
    snprintf(mine, sizeof mine, "busy-%ld-", (long)getpid());
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "busy-", 5) || !strncmp(e->d_name, mine, strlen(mine)))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* the lock is free: its holder is gone; the name still there: it
         * did not remove it, so it died inside the driver */
        if (lock_fd(fd) && unlink(path) == 0)
            found = true;
        close(fd);
    }
    closedir(d);
    return found;
}

void clsort_guard_setup(clsort_context *ctx)
{
    if (!ctx->cache_dir || ctx->facts.vendor != CLSORT_VENDOR_POCL)
        return;
    char *text = clsort_cache_read_text(ctx->cache_dir, SALT_FILE);
    unsigned salt = text ? (unsigned)strtoul(text, NULL, 10) : 0;
    free(text);
    if (sweep_dead_marks(ctx->cache_dir)) {
        char num[32];
        snprintf(num, sizeof num, "%u", ++salt);
        clsort_cache_write_text(ctx->cache_dir, SALT_FILE, num);
        ctx->recovered = true;
    }
    ctx->salt = salt;
    clsort_guard *g = calloc(1, sizeof *g);
    if (!g)
        return; /* no guard: sorts work, a crash is not recognised */
    pthread_mutex_init(&g->lock, NULL);
    g->refs = 1;
    g->fd = -1;
    snprintf(g->dir, sizeof g->dir, "%s", ctx->cache_dir);
    ctx->guard = g;
}

void clsort_guard_release(clsort_context *ctx)
{
    if (ctx->guard)
        guard_unref(ctx->guard);
    ctx->guard = NULL;
    ctx->nfresh = 0;
}

void clsort_cache_forget_process(const char *cache_dir, long pid)
{
    char *dir = cache_dir ? (cache_dir[0] ? strdup(cache_dir) : NULL) : clsort_cache_default_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    if (d) {
        char mine[64], tmp[64];
        int ml = snprintf(mine, sizeof mine, "busy-%ld-", pid);
        int tl = snprintf(tmp, sizeof tmp, "tmp-busy-%ld-", pid);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strncmp(e->d_name, mine, (size_t)ml) && strncmp(e->d_name, tmp, (size_t)tl))
                continue;
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    free(dir);
}

int clsort_context_recovered(const clsort_context *ctx)
{
    return ctx && ctx->recovered ? 1 : 0;
}

/* pool.c - the context's temporary device memory: one buffer per role,
 * grown on demand and reused by later sorts. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "internal.h"

#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Pool buffers from this size on may get transparent huge pages. */
#define HUGE_PAGE_MIN ((size_t)8 << 20)

/* PoCL keeps a buffer in host memory that it allocates with malloc: a new
 * process's first sort faults each 4 KiB page of its pool in on first touch
 * (20M float keys: 75,000 faults, 0.13-0.26 s of system time on 2 cores).
 * Where Linux gives transparent huge pages only on request (THP "madvise",
 * or defrag "madvise"), asking before the first touch makes them 2 MiB
 * faults. The buffer's storage is what mapping it returns on PoCL; the
 * advice changes nothing but the page size, and where it is not taken,
 * nothing at all. */
static void advise_huge_pages(clsort_context *ctx, cl_mem m, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (ctx->facts.vendor != CLSORT_VENDOR_POCL || !ctx->facts.is_cpu || bytes < HUGE_PAGE_MIN ||
        !ctx->aux_queue)
        return;
    cl_int err = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(ctx->aux_queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                 bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS || !p)
        return;
    const uintptr_t huge = (uintptr_t)2 << 20;
    const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    clEnqueueUnmapMemObject(ctx->aux_queue, m, p, 0, NULL, NULL);
#else
    (void)ctx;
    (void)m;
    (void)bytes;
#endif
}

/* zero_all: a new buffer is zeroed whole, else only touched (4 bytes). */
static clsort_status pool_get(clsort_context *ctx, clsort_slot slot, size_t bytes, bool zero_all,
                              cl_mem *out)
{
    bytes = (bytes + 63) / 64 * 64; /* whole words; never 0 (kernels take the argument) */
    if (bytes == 0)
        bytes = 64;
    if (ctx->pool[slot] && ctx->pool_size[slot] >= bytes) {
        *out = ctx->pool[slot];
        return CLSORT_SUCCESS;
    }
    if (bytes > ctx->facts.max_alloc_bytes)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "a temporary buffer of %zu bytes exceeds the device's largest "
                           "allocation (%llu bytes)",
                           bytes, (unsigned long long)ctx->facts.max_alloc_bytes);
    /* The old buffer may still be used by enqueued work: OpenCL frees it
     * only after that work is done. */
    clsort_pool_drop(ctx, slot);
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return clsort_fail(ctx,
                           (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                            err == CL_INVALID_BUFFER_SIZE)
                               ? CLSORT_ERROR_OUT_OF_DEVICE_MEMORY
                               : err,
                           "allocating %zu bytes of device memory failed: %s", bytes,
                           clsort_status_string(err));
    /* Touch it now so that a device that allocates lazily reports a
     * shortage here, before anything of the caller's is changed. This runs
     * on a queue of our own: the caller's queue may hold work that waits for
     * events the caller sets only after we return. */
    if (!ctx->aux_queue) {
        ctx->aux_queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
        if (err != CL_SUCCESS)
            ctx->aux_queue = NULL;
    }
    advise_huge_pages(ctx, m, bytes);
    const cl_uint zero = 0;
    if (ctx->aux_queue) {
        err = clEnqueueFillBuffer(ctx->aux_queue, m, &zero, sizeof zero, 0, zero_all ? bytes : 4,
                                  0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clFinish(ctx->aux_queue);
    }
    if (err == CL_SUCCESS && zero_all && !ctx->aux_queue)
        err = CL_OUT_OF_RESOURCES; /* a zeroed buffer is needed: no queue to zero it */
    if (err != CL_SUCCESS) {
        clReleaseMemObject(m);
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_DEVICE_MEMORY,
                           "allocating %zu bytes of device memory failed: %s", bytes,
                           clsort_status_string(err));
    }
    ctx->pool[slot] = m;
    ctx->pool_size[slot] = bytes;
    *out = m;
    return CLSORT_SUCCESS;
}

clsort_status clsort_pool_get(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out)
{
    return pool_get(ctx, slot, bytes, false, out);
}

clsort_status clsort_pool_get_zeroed(clsort_context *ctx, clsort_slot slot, size_t bytes,
                                     cl_mem *out)
{
    return pool_get(ctx, slot, bytes, true, out);
}

/* Lets go of one slot's buffer (the next get makes a new one): for a slot
 * whose contents a failed call may have left wrong, such as the sync
 * slot's counts, which must be zero between sorts. */
void clsort_pool_drop(clsort_context *ctx, clsort_slot slot)
{
    if (ctx->pool[slot])
        clReleaseMemObject(ctx->pool[slot]);
    ctx->pool[slot] = NULL;
    ctx->pool_size[slot] = 0;
}

void clsort_pool_release(clsort_context *ctx)
{
    for (int i = 0; i < CLSORT_SLOT_COUNT; i++)
        clsort_pool_drop(ctx, (clsort_slot)i);
}

size_t clsort_pool_bytes(const clsort_context *ctx)
{
    size_t total = 0;
    for (int i = 0; i < CLSORT_SLOT_COUNT; i++)
        total += ctx->pool_size[i];
    return total;
}

/* scan.c - prefix sums on device buffers and host arrays (scan.cl). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *scan_c_type(clsort_type t)
{
    switch (t) {
    case CLSORT_U32: return "uint";
    case CLSORT_U64: return "ulong";
    case CLSORT_I32: return "int";
    case CLSORT_I64: return "long";
    case CLSORT_F32: return "float";
    case CLSORT_F64: return "double";
    default: return NULL;
    }
}

static clsort_status scan_program(clsort_context *ctx, clsort_type t, unsigned items,
                                  clsort_program **prog)
{
    if (t == CLSORT_F64) {
        cl_device_fp_config fp = 0;
        clGetDeviceInfo(ctx->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
        if (!fp)
            return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                               "the device has no double precision for an f64 scan");
    }
    char opts[512];
    snprintf(opts, sizeof opts,
             "-cl-std=CL1.2 -DCLSORT_KEY_BYTES=4 -DCLSORT_KEY_KIND=0 -DCLSORT_VAL_BYTES=0 "
             "-DCLSORT_INDEX64=0 -DCLSORT_NVIDIA=%d -DCLSORT_SCAN_T=%s -DCLSORT_SCAN_FP64=%d "
             "-DCLSORT_SCAN_WG=%u -DCLSORT_SCAN_ITEMS=%u -DCLSORT_SCAN_BYTES=%u",
             ctx->facts.vendor == CLSORT_VENDOR_NVIDIA ? 1 : 0, scan_c_type(t),
             t == CLSORT_F64 ? 1 : 0, ctx->tuning.scan_wg, items, (unsigned)clsort_type_size(t));
    static const char *const files[] = {"layout.h", "common.cl", "scan.cl"};
    return clsort_program_get(ctx, files, sizeof files / sizeof files[0], opts, prog);
}

/* Bytes of local memory the scan program's kernels declare (scan.cl) for
 * tiles of scan_wg x items elements of es bytes: the most of
 * clsort_scan_blocks (the tile, padded, and the group scan's scratch; the
 * reduce needs less) and clsort_scan_onepass in its form for the device
 * (one program holds them all, and a device may compile them all). */
static size_t scan_local_bytes(const clsort_context *ctx, size_t es, size_t items)
{
    const size_t wg = ctx->tuning.scan_wg, block = wg * items;
    const size_t group_scan = SCAN_LOCAL_WORDS(wg) * es;
    const size_t tile = (block + block / 32) * es;
    const size_t blocks = tile + group_scan;
    size_t onepass;
    if (ctx->facts.vendor == CLSORT_VENDOR_NVIDIA && wg % 32 == 0) {
        const size_t vec = 16 / es; /* elements of a 16-byte vector */
        const size_t vtile =
            items % vec == 0 ? ((block + block / 32 * vec) * es + 15) / 16 * 16 : tile;
        onepass = vtile + wg / 32 * es + 4 + es;
    } else {
        onepass = tile + group_scan + wg * (es + 4) + 12 + es;
    }
    return blocks > onepass ? blocks : onepass;
}

/* Elements per work-item: scan_items, or fewer until the program's local
 * memory fits the device's (as the radix sort does for its tiles); 0 when
 * not even one fits. */
static unsigned scan_items_fit(const clsort_context *ctx, size_t es)
{
    unsigned items = ctx->tuning.scan_items;
    while (items > 0 && scan_local_bytes(ctx, es, items) > ctx->facts.local_mem_bytes)
        items--;
    return items;
}

/* Scans in[0..n) into out, recursively scanning the block sums kept in
 * sums[at..]. */
static clsort_status scan_level(clsort_context *ctx, clsort_program *prog, size_t block, cl_mem in,
                                size_t in_off, cl_mem out, size_t out_off, size_t n,
                                int inclusive, cl_mem sums, size_t at, clsort_seq *seq)
{
    const size_t wg = ctx->tuning.scan_wg;
    const size_t nb = div_up(n, block);
    cl_kernel kr, kb;
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_scan_reduce", &kr));
    CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_scan_blocks", &kb));
    cl_ulong a_in = in_off, a_out = out_off, a_n = n, a_at = at;
    cl_uint use_carry = nb > 1, incl = inclusive != 0;
    if (nb > 1) {
        /* block sums at sums[at .. at+nb), their exclusive scan in place */
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, kr, clsort_scan_reduce, .in = CLSORT_ARG(in),
                                   .in_off = CLSORT_ARG(a_in), .n = CLSORT_ARG(a_n),
                                   .sums = CLSORT_ARG(sums), .sums_off = CLSORT_ARG(a_at)));
        CLSORT_TRY(clsort_launch(ctx, kr, "clsort_scan_reduce", nb * wg, wg, seq));
        CLSORT_TRY(scan_level(ctx, prog, block, sums, at, sums, at, nb, 0, sums, at + nb, seq));
    }
    CLSORT_TRY(CLSORT_SET_ARGS(ctx, kb, clsort_scan_blocks, .in = CLSORT_ARG(in),
                               .in_off = CLSORT_ARG(a_in), .out = CLSORT_ARG(out),
                               .out_off = CLSORT_ARG(a_out), .n = CLSORT_ARG(a_n),
                               .carry = CLSORT_ARG(sums), .carry_off = CLSORT_ARG(a_at),
                               .use_carry = CLSORT_ARG(use_carry), .inclusive = CLSORT_ARG(incl)));
    return clsort_launch(ctx, kb, "clsort_scan_blocks", nb * wg, wg, seq);
}

/* Words of block sums every level needs together. */
static size_t sums_needed(size_t n, size_t block)
{
    size_t total = 0;
    while (n > block) {
        n = div_up(n, block);
        total += n;
    }
    return total + 1;
}

static clsort_status scan_enqueue(clsort_context *ctx, const char *fn, clsort_type type, cl_mem in,
                                  size_t in_off, cl_mem out, size_t out_off, size_t n,
                                  int inclusive, clsort_seq *seq)
{
    const size_t es = clsort_type_size(type);
    const unsigned items = scan_items_fit(ctx, es);
    if (!items)
        return clsort_fail(ctx, CLSORT_ERROR_DEVICE_UNSUPPORTED,
                           "%s: scans of %s in work-groups of scan_wg=%u need %zu bytes of local "
                           "memory even at one element per work-item; the device has %zu",
                           fn, clsort_type_name(type), ctx->tuning.scan_wg,
                           scan_local_bytes(ctx, es, 1), (size_t)ctx->facts.local_mem_bytes);
    clsort_program *prog;
    CLSORT_TRY(scan_program(ctx, type, items, &prog));
    const size_t block = (size_t)ctx->tuning.scan_wg * items;
    cl_mem sums;
    const size_t tiles = div_up(n, block);
    if (ctx->tuning.scan_onepass && tiles < 0xfffffff0u) {
        /* the tile counter and the tiles' records (scan.cl: 32 bytes each
         * after the first 32), zero when allocated and never cleared: each
         * scan flags its records with a new epoch, and a fill clears them
         * only when the epochs wrap around */
        cl_mem st;
        CLSORT_TRY(clsort_pool_get_zeroed(ctx, CLSORT_SLOT_SCAN_STATE, 32 + tiles * 32, &st));
        if (ctx->scan_epoch >= (1u << 30) - 1) {
            CLSORT_TRY(clsort_fill(ctx, st, 0, ctx->pool_size[CLSORT_SLOT_SCAN_STATE], seq));
            ctx->scan_epoch = 0;
        }
        cl_uint epoch = ++ctx->scan_epoch;
        cl_kernel k;
        CLSORT_TRY(clsort_program_kernel(ctx, prog, "clsort_scan_onepass", &k));
        cl_ulong a_in = in_off, a_out = out_off, a_n = n;
        cl_uint incl = inclusive != 0;
        CLSORT_TRY(CLSORT_SET_ARGS(ctx, k, clsort_scan_onepass, .in = CLSORT_ARG(in),
                                   .in_off = CLSORT_ARG(a_in), .out = CLSORT_ARG(out),
                                   .out_off = CLSORT_ARG(a_out), .n = CLSORT_ARG(a_n),
                                   .state = CLSORT_ARG(st), .epoch = CLSORT_ARG(epoch),
                                   .inclusive = CLSORT_ARG(incl)));
        return clsort_launch(ctx, k, "clsort_scan_onepass", tiles * ctx->tuning.scan_wg,
                             ctx->tuning.scan_wg, seq);
    }
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_SCAN_SUMS, sums_needed(n, block) * es, &sums));
    return scan_level(ctx, prog, block, in, in_off, out, out_off, n, inclusive, sums, 0, seq);
}

static clsort_status scan_check(clsort_context *ctx, const char *fn, clsort_type type, size_t n)
{
    if (!scan_c_type(type))
        return clsort_fail(ctx, CLSORT_ERROR_UNSUPPORTED_TYPE,
                           "%s: scans take CLSORT_U32, U64, I32, I64, F32 or F64", fn);
    if (n > SIZE_MAX / 16)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE, "%s: n = %zu is too large", fn, n);
    if ((uint64_t)n * clsort_type_size(type) > ctx->facts.max_alloc_bytes)
        return clsort_fail(ctx, CLSORT_ERROR_TOO_LARGE,
                           "%s: %zu elements exceed the device's largest buffer", fn, n);
    return CLSORT_SUCCESS;
}

clsort_status clsort_scan_buffer(clsort_context *ctx, clsort_type type, cl_mem in, size_t in_offset,
                                 cl_mem out, size_t out_offset, size_t n, int inclusive,
                                 cl_uint nwait, const cl_event *wait, cl_event *event)
{
    const char *fn = "clsort_scan_buffer";
    if (!ctx)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    clsort_clear_error(ctx);
    if (event)
        *event = NULL;
    CLSORT_TRY(scan_check(ctx, fn, type, n));
    if ((nwait > 0) != (wait != NULL))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: num_events_in_wait_list and event_wait_list disagree", fn);
    const size_t es = clsort_type_size(type);
    const cl_mem bufs[2] = {in, out};
    const size_t offs[2] = {in_offset, out_offset};
    for (int i = 0; i < 2; i++) {
        size_t size = 0;
        cl_context c = NULL;
        if (!bufs[i] ||
            clGetMemObjectInfo(bufs[i], CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS ||
            clGetMemObjectInfo(bufs[i], CL_MEM_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS ||
            c != ctx->cl)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER, "%s: %s is not a buffer of the context",
                               fn, i ? "out" : "in");
        if (offs[i] > SIZE_MAX / es - n || (offs[i] + n) * es > size)
            return clsort_fail(ctx, CLSORT_ERROR_INVALID_BUFFER,
                               "%s: elements [%zu, %zu) do not fit the %s buffer (%zu bytes)", fn,
                               offs[i], offs[i] + n, i ? "out" : "in", size);
    }
    if (in == out && in_offset != out_offset && in_offset < out_offset + n &&
        out_offset < in_offset + n)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: in and out overlap without being the same range", fn);
    clsort_seq seq = {nwait, wait};
    if (n > 0)
        CLSORT_TRY(scan_enqueue(ctx, fn, type, in, in_offset, out, out_offset, n, inclusive, &seq));
    return clsort_seq_finish(ctx, &seq, event);
}

clsort_status clsort_scan(clsort_context *ctx, clsort_type type, const void *in, void *out,
                          size_t n, int inclusive)
{
    const char *fn = "clsort_scan";
    if (!ctx)
        return CLSORT_ERROR_INVALID_ARGUMENT;
    clsort_clear_error(ctx);
    CLSORT_TRY(scan_check(ctx, fn, type, n));
    if (n > 0 && (!in || !out))
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: in or out is NULL", fn);
    if (n == 0)
        return CLSORT_SUCCESS;
    const size_t bytes = n * clsort_type_size(type);
    cl_mem d;
    CLSORT_TRY(clsort_pool_get(ctx, CLSORT_SLOT_HOST_KEYS, bytes, &d));
    void *stage = malloc(bytes);
    if (!stage)
        return clsort_fail(ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    clsort_status st = CLSORT_SUCCESS;
    cl_int err = clEnqueueWriteBuffer(ctx->queue, d, CL_FALSE, 0, bytes, in, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        st = clsort_fail(ctx, err, "%s: copying to the device failed: %s", fn,
                         clsort_status_string(err));
    } else {
        clsort_seq seq = {0, NULL};
        st = scan_enqueue(ctx, fn, type, d, 0, d, 0, n, inclusive, &seq);
        if (st == CLSORT_SUCCESS) {
            err = clEnqueueReadBuffer(ctx->queue, d, CL_TRUE, 0, bytes, stage, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                st = clsort_fail(ctx, err, "%s: the scan failed: %s", fn,
                                 clsort_status_string(err));
            else
                memcpy(out, stage, bytes);
        } else {
            clFinish(ctx->queue);
        }
    }
    free(stage);
    return st;
}

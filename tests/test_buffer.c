/* test_buffer.c - the device-buffer entry points: offsets, guards, events,
 * the temporary pool. */
#include "sortcheck.h"

static bool buffer_offsets(const char *spec);

void test_buffer_offsets(void)
{
    /* The tuned shape, and a work-group shape on every device: its upfront
     * count loads 16-byte vectors from the first aligned key on, which an
     * offset of a guard of 1, 3 or 17 keys moves. The work-group shape
     * leaves the one-work-group sort (single_max) to the tuned shape, which
     * takes it on PoCL (radix_small_sizes tests that kernel in the
     * work-group shapes; before the scan of common.cl lost its barrier
     * loops, PoCL 3.1 took about two minutes to build it for them). */
    static const char *const specs[] = {
        NULL, "algorithm=onesweep,os_wg=64,os_items=4,os_rank=local,hist_wg=64,hist_items=8,"
              "plan_wg=64,msd=0,prologue_max=0,fused_max=0,single_max=0"};
    for (size_t si = 0; si < 2; si++)
        if (!buffer_offsets(specs[si]))
            break;
}

static bool buffer_offsets(const char *spec)
{
    clsort_context *ctx = test_context(spec);
    if (!ctx)
        return false;
    static const size_t sizes[] = {1, 2, 100, 4099, 200003};
    static const size_t guards[] = {1, 3, 17, 1000};
    bool ok = true;
    for (size_t i = 0; i < 5; i++)
        for (int m = 0; m < 3; m++) {
            sort_case c;
            memset(&c, 0, sizeof c);
            c.type = i % 2 ? CLSORT_U64 : CLSORT_U32;
            c.dist = i % 3 ? DATA_UNIFORM : DATA_FEW_UNIQUE;
            c.n = sizes[i];
            c.mode = (check_mode)m;
            c.value_size = i == 3 ? 12 : 8; /* 12: records moved by a permutation */
            c.index_type = CLSORT_U32;
            c.opt.descending = i == 2;
            c.seed = test_seed("offsets", sizes[i], (unsigned)m);
            if (!sort_and_check_buffer(ctx, &c, guards[i % 4], spec ? spec : "buffer"))
                i = 5, m = 3, ok = false;
        }
    clsort_context_release(ctx);
    return ok;
}

/* Wait lists are honoured and the returned event completes the sort; the
 * pool is reused, reserved and trimmed. */
void test_buffer_events(void)
{
    clsort_context *ctx = test_context(NULL);
    if (!ctx)
        return;
    cl_context clc = clsort_context_cl_context(ctx);
    cl_command_queue q = clsort_context_queue(ctx);
    enum { N = 300000 };
    uint32_t *keys = malloc(N * 4), *out = malloc(N * 4);
    size_t *perm = malloc(N * sizeof *perm);
    data_fill(keys, CLSORT_U32, N, DATA_UNIFORM, 99);
    ref_stable_perm(CLSORT_U32, keys, N, 0, 0, 0, perm);
    cl_int err;
    cl_mem buf = clCreateBuffer(clc, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    /* A user event gates the upload... */
    cl_event gate = clCreateUserEvent(clc, &err);
    CHECK(err == CL_SUCCESS, "user event");
    cl_event written = NULL, sorted = NULL;
    err = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, N * 4, keys, 1, &gate, &written);
    CHECK(err == CL_SUCCESS, "write");
    /* ...and the sort waits for the upload through its wait list. */
    CHECK_OK(ctx, clsort_sort_keys_buffer(ctx, CLSORT_U32, buf, 0, N, NULL, 1, &written, &sorted));
    cl_int st = 0;
    clGetEventInfo(sorted, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    CHECK(st != CL_COMPLETE, "the sort cannot finish before its wait list");
    clSetUserEventStatus(gate, CL_COMPLETE);
    CHECK(clWaitForEvents(1, &sorted) == CL_SUCCESS, "event completes");
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * 4, out, 0, NULL, NULL);
    check_permuted("event sort", keys, out, perm, N, 4);
    clReleaseEvent(gate);
    clReleaseEvent(written);
    clReleaseEvent(sorted);
    /* Segments in a buffer with max_length given (short: 50 keys, where a
     * CPU tuning sorts (segment, key) when the offsets are on the host):
     * the call must not read the offsets back, so it returns while its
     * wait list is still gated. */
    {
        enum { SEGS = 600, LEN = 50 };
        uint64_t offs[SEGS + 1];
        for (size_t i = 0; i <= SEGS; i++)
            offs[i] = i * LEN;
        cl_mem ob = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof offs,
                                   offs, &err);
        cl_event g2 = clCreateUserEvent(clc, &err), w2 = NULL, s2 = NULL;
        clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, SEGS * LEN * 4, keys, 1, &g2, &w2);
        clsort_segments sg;
        memset(&sg, 0, sizeof sg);
        sg.count = SEGS;
        sg.offsets_buffer = ob;
        sg.max_length = LEN;
        CHECK_OK(ctx, clsort_sort_segments_buffer(ctx, CLSORT_U32, buf, 0, NULL, 0, 0, SEGS * LEN,
                                                  &sg, NULL, 1, &w2, &s2));
        clSetUserEventStatus(g2, CL_COMPLETE);
        CHECK(s2 && clWaitForEvents(1, &s2) == CL_SUCCESS, "segments event completes");
        clEnqueueReadBuffer(q, buf, CL_TRUE, 0, SEGS * LEN * 4, out, 0, NULL, NULL);
        int bad = 0;
        for (size_t sgi = 0; sgi < SEGS && !bad; sgi++) {
            uint32_t *ref = malloc(LEN * 4);
            memcpy(ref, keys + sgi * LEN, LEN * 4);
            for (size_t i = 1; i < LEN; i++) /* insertion sort of 50 keys */
                for (size_t j = i; j > 0 && ref[j - 1] > ref[j]; j--) {
                    uint32_t t = ref[j];
                    ref[j] = ref[j - 1];
                    ref[j - 1] = t;
                }
            bad = memcmp(ref, out + sgi * LEN, LEN * 4) != 0;
            free(ref);
        }
        CHECK(!bad, "segments sorted after the gate");
        clReleaseEvent(g2);
        clReleaseEvent(w2);
        if (s2)
            clReleaseEvent(s2);
        clReleaseMemObject(ob);
    }
    /* n = 0 still gives an event */
    cl_event e0 = NULL;
    CHECK_OK(ctx, clsort_sort_keys_buffer(ctx, CLSORT_U32, buf, 0, 0, NULL, 0, NULL, &e0));
    CHECK(e0 && clWaitForEvents(1, &e0) == CL_SUCCESS, "event for n = 0");
    if (e0)
        clReleaseEvent(e0);
    /* reserve, then sorts allocate nothing; trim frees it all */
    CHECK_OK(ctx, clsort_context_reserve(ctx, CLSORT_U32, 4, N, NULL));
    size_t need = 0, freed = 0;
    CHECK_OK(ctx, clsort_temp_size(ctx, CLSORT_U32, 4, N, NULL, &need));
    CHECK_OK(ctx, clsort_context_trim(ctx, &freed));
    CHECK(freed >= need, "trim freed %zu of the %zu reserved", freed, need);
    /* back-to-back sorts on one queue, no waiting between them */
    for (int r = 0; r < 3; r++) {
        clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, N * 4, keys, 0, NULL, NULL);
        CHECK_OK(ctx, clsort_sort_keys_buffer(ctx, CLSORT_U32, buf, 0, N, NULL, 0, NULL, NULL));
    }
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * 4, out, 0, NULL, NULL);
    check_permuted("back-to-back", keys, out, perm, N, 4);
    clReleaseMemObject(buf);
    free(keys);
    free(out);
    free(perm);
    clsort_context_release(ctx);
}

/* Keys and values in the caller's memory (CL_MEM_USE_HOST_PTR, which PoCL
 * uses in place) at host pointers 4 bytes off the alignment of their 8-byte
 * elements: the CPU shape's streaming stores (nt_min=1 here) write whole
 * 64-byte lines only where elements fall on line boundaries, so such a
 * buffer takes ordinary stores (whole-line stores at an element boundary
 * off the line faulted). Checked: keys in order, and the values, each key's
 * original position, a stable permutation. */
static bool host_unaligned(const char *spec);

void test_buffer_host_unaligned(void)
{
    /* MSD order (the top pass and the buckets streamed) and LSD order
     * (every pass streamed); CPU devices only, where the streaming stores
     * are built (and where PoCL keeps such buffers in place) */
    if (test_on_cpu() && host_unaligned("nt_min=1"))
        host_unaligned("nt_min=1,msd=0");
}

static bool host_unaligned(const char *spec)
{
    clsort_context *ctx = test_context(spec);
    if (!ctx)
        return false;
    bool ok = false;
    const size_t n = 300007;
    unsigned char *kmem = malloc(n * 8 + 64), *vmem = malloc(n * 8 + 64);
    uint64_t *orig = malloc(n * 8), *out_k = malloc(n * 8), *out_v = malloc(n * 8);
    unsigned char *kp = kmem + 4, *vp = vmem + 4; /* malloc's 16-byte alignment, plus 4 */
    cl_mem kb = NULL, vb = NULL;
    if (!kmem || !vmem || !orig || !out_k || !out_v) {
        CHECK(false, "out of host memory");
        goto done;
    }
    data_fill(orig, CLSORT_U64, n, DATA_UNIFORM, test_seed("host_unaligned", n, 0));
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = i;
        memcpy(kp + i * 8, &orig[i], 8);
        memcpy(vp + i * 8, &v, 8);
    }
    cl_int e = CL_SUCCESS;
    kb = clCreateBuffer(clsort_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                        n * 8, kp, &e);
    if (e == CL_SUCCESS)
        vb = clCreateBuffer(clsort_context_cl_context(ctx),
                            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 8, vp, &e);
    if (e != CL_SUCCESS) {
        CHECK(false, "clCreateBuffer(CL_MEM_USE_HOST_PTR): %d", e);
        goto done;
    }
    clsort_status s = clsort_sort_pairs_buffer(ctx, CLSORT_U64, kb, 0, vb, 0, 8, n, NULL, 0,
                                               NULL, NULL);
    CHECK(s == CLSORT_SUCCESS, "sort: %s\n%s", clsort_status_string(s),
          clsort_context_last_error(ctx));
    cl_command_queue q = clsort_context_queue(ctx);
    e = clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n * 8, out_k, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(q, vb, CL_TRUE, 0, n * 8, out_v, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "clEnqueueReadBuffer: %d", e);
    if (s != CLSORT_SUCCESS || e != CL_SUCCESS)
        goto done;
    unsigned char *seen = calloc(n, 1);
    ok = seen != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const uint64_t v = out_v[i];
        ok = v < n && !seen[v] && out_k[i] == orig[v] &&
             (i == 0 || out_k[i - 1] < out_k[i] ||
              (out_k[i - 1] == out_k[i] && out_v[i - 1] < v));
        if (ok)
            seen[v] = 1;
        else
            CHECK(false, "%s, n=%zu: element %zu (key %llu, value %llu) out of order or not the input's",
                  spec, n, i, (unsigned long long)out_k[i], (unsigned long long)v);
    }
    free(seen);
done:
    if (kb)
        clReleaseMemObject(kb);
    if (vb)
        clReleaseMemObject(vb);
    free(kmem);
    free(vmem);
    free(orig);
    free(out_k);
    free(out_v);
    clsort_context_release(ctx);
    return ok;
}

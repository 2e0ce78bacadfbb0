/* latency.c - where the device time of a small sort goes (NVIDIA's OpenCL
 * adds several microseconds per command, which dominates sorts below a
 * million keys).
 *
 * usage: clsort_latency [DEVICE [TUNING]]   (default: gpu, the tuned shape)
 *
 * Prints, for the device:
 *   floors  the bench's measurement with nothing between its two copies,
 *           and with one or two empty kernels there (what a command costs);
 *   ends    the same region with copies, markers or empty kernels as its
 *           ends, empty and around u32 sorts of 1K, 4K and 64K keys;
 *   sorts   for u32 and u64 keys of 1K to 1M: the median device time the
 *           way clsort bench measures it (from the end of the copy that
 *           restores the input to the start of a 4-byte copy enqueued after
 *           the sort), the median host time of the clsort call itself, and
 *           the kernels of one profiled run (NVIDIA's start stamps include
 *           queueing: their sum may exceed the device time). */
#define _POSIX_C_SOURCE 200809L
#include "clsort.h"
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double ev_us(cl_event a, int ea, cl_event b, int eb) {
    cl_ulong t0, t1;
    clGetEventProfilingInfo(a, ea ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START, 8, &t0,
                            NULL);
    clGetEventProfilingInfo(b, eb ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START, 8, &t1,
                            NULL);
    return ((double)t1 - (double)t0) / 1e3;
}
#define R 200

/* The ends of a timed region: how = 0, copies of 4 bytes (clsort bench's
 * way); 1, markers; 2, empty kernels. *ev gets the command's event. */
static void bracket(cl_command_queue q, int how, cl_kernel ke, cl_mem a, cl_mem b, cl_event *ev) {
    size_t g = 32;
    if (how == 0)
        clEnqueueCopyBuffer(q, a, b, 0, 0, 4, 0, NULL, ev);
    else if (how == 1)
        clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
    else
        clEnqueueNDRangeKernel(q, ke, 1, NULL, &g, &g, 0, NULL, ev);
}

/* Microseconds from the end of a to the start of b; -1 when the device
 * gives no such stamps (markers, on some drivers). */
static double gap_us(cl_event a, cl_event b) {
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_END, 8, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_START, 8, &t1, NULL) != CL_SUCCESS ||
        t0 == 0 || t1 == 0)
        return -1;
    return ((double)t1 - (double)t0) / 1e3;
}
/* The SM clock while small sorts run (NVIDIA only: PTX's %clock64 and
 * %globaltimer): a probe kernel spins for a number of SM cycles and notes
 * the global timer's nanoseconds over them, (a) after the device idled for
 * 200 ms, (b) right after each of R u32 1K sorts enqueued as the benchmark
 * enqueues them, (c) back to back, the device busy; and the profiled
 * duration (end - start) of the probe and of an empty kernel, against
 * what the probe's own timer saw. Returns nonzero on an error. */
static const char *probe_src =
    "__kernel void probe(__global ulong *out, uint cycles, uint slot) {\n"
    "  ulong c0, c1, g0, g1;\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g0));\n"
    "  asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c0));\n"
    "  do { asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c1)); } while (c1 - c0 < cycles);\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g1));\n"
    "  if (get_global_id(0) == 0) { out[2 * slot] = c1 - c0; out[2 * slot + 1] = g1 - g0; }\n"
    "}\n";
static int clock_probe(cl_command_queue q, cl_context cc, cl_device_id d, clsort_context *ctx) {
    char vendor[256] = "";
    clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    if (!strstr(vendor, "NVIDIA"))
        return 0;
    cl_int e;
    cl_program p = clCreateProgramWithSource(cc, 1, &probe_src, NULL, &e);
    if (e != CL_SUCCESS || clBuildProgram(p, 1, &d, "", NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "clsort_latency: the clock probe did not build\n");
        return 1;
    }
    cl_kernel k = clCreateKernel(p, "probe", &e);
    cl_mem out = clCreateBuffer(cc, CL_MEM_READ_WRITE, 2 * 8 * (R + 2), NULL, &e);
    cl_mem wk = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4096 * 4, NULL, &e);
    cl_mem pk = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4096 * 4, NULL, &e);
    unsigned hk[4096];
    for (int i = 0; i < 4096; i++)
        hk[i] = (unsigned)i * 2654435761u;
    clEnqueueWriteBuffer(q, pk, CL_TRUE, 0, sizeof hk, hk, 0, NULL, NULL);
    const unsigned cycles_list[] = {4000, 40000};
    for (int ci = 0; ci < 2; ci++) {
        cl_uint cycles = cycles_list[ci];
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof cycles, &cycles);
        size_t g = 32;
        static const char *const what[] = {"after 200 ms idle", "after each u32 1K sort",
                                           "after each u32 4K sort", "back to back"};
        for (int mode = 0; mode < 4; mode++) {
            double mhz[R], prof[R], own[R];
            cl_event evs[R];
            int reps = mode == 0 ? 5 : R;
            for (int r = 0; r < reps; r++) {
                cl_uint slot = (cl_uint)r;
                clSetKernelArg(k, 2, sizeof slot, &slot);
                cl_event ev;
                if (mode == 0) {
                    struct timespec ts = {0, 200000000};
                    nanosleep(&ts, NULL);
                } else if (mode <= 2) {
                    size_t n = mode == 1 ? 1024 : 4096;
                    clEnqueueCopyBuffer(q, pk, wk, 0, 0, n * 4, 0, NULL, NULL);
                    if (clsort_sort_keys_buffer(ctx, CLSORT_U32, wk, 0, n, NULL, 0, NULL, NULL)) {
                        fprintf(stderr, "clsort_latency: %s\n", clsort_context_last_error(ctx));
                        return 1;
                    }
                }
                clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &g, 0, NULL, &ev);
                if (mode != 3) /* back to back: no wait between the probes */
                    clWaitForEvents(1, &ev);
                evs[r] = ev;
            }
            clFinish(q);
            for (int r = 0; r < reps; r++) {
                prof[r] = ev_us(evs[r], 0, evs[r], 1);
                clReleaseEvent(evs[r]);
            }
            cl_ulong hv[2 * R];
            clEnqueueReadBuffer(q, out, CL_TRUE, 0, 2 * 8 * (size_t)reps, hv, 0, NULL, NULL);
            for (int r = 0; r < reps; r++) {
                own[r] = hv[2 * r + 1] / 1e3;
                mhz[r] = hv[2 * r + 1] ? 1e3 * (double)hv[2 * r] / (double)hv[2 * r + 1] : 0;
            }
            qsort(mhz, reps, sizeof mhz[0], cmpd);
            qsort(prof, reps, sizeof prof[0], cmpd);
            qsort(own, reps, sizeof own[0], cmpd);
            printf("clock probe, %u cycles, %s: SM clock median %.0f MHz (min %.0f, max %.0f); "
                   "the probe's own time %.2f us, its profiled duration %.2f us\n",
                   cycles, what[mode], mhz[reps / 2], mhz[0], mhz[reps - 1], own[reps / 2],
                   prof[reps / 2]);
        }
    }
    clReleaseMemObject(out);
    clReleaseMemObject(wk);
    clReleaseMemObject(pk);
    clReleaseKernel(k);
    clReleaseProgram(p);
    return 0;
}

int main(int argc, char **argv) {
    const char *dev = argc > 1 ? argv[1] : "gpu";
    const char *tun = argc > 2 ? argv[2] : "";
    clsort_context *c0;
    if (clsort_context_create(&c0, dev)) {
        fprintf(stderr, "clsort_latency: no device '%s': %s\n", dev,
                clsort_context_last_error(NULL));
        return 1;
    }
    cl_command_queue q0 = clsort_context_queue(c0);
    cl_context cc = clsort_context_cl_context(c0);
    cl_device_id d = clsort_context_device(c0);
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(cc, d, CL_QUEUE_PROFILING_ENABLE, &e);
    (void)q0;
    clsort_context *ctx;
    if (e != CL_SUCCESS || clsort_context_create_from_queue(&ctx, q, NULL)) {
        fprintf(stderr, "clsort_latency: no profiling queue\n");
        return 2;
    }
    if (tun[0] && clsort_context_set_tuning(ctx, tun)) {
        fprintf(stderr, "clsort_latency: %s\n", clsort_context_last_error(ctx));
        return 3;
    }
    const char *src =
        "__kernel void empty(__global uint *a) { if (get_global_id(0) == 123456789) a[0] = 1; }";
    cl_program p = clCreateProgramWithSource(cc, 1, &src, NULL, &e);
    clBuildProgram(p, 1, &d, "", NULL, NULL);
    cl_kernel ke = clCreateKernel(p, "empty", &e);
    if (e != CL_SUCCESS) {
        fprintf(stderr, "clsort_latency: the empty kernel did not build\n");
        return 2;
    }
    if (clock_probe(q, cc, d, ctx))
        return 5;
    if (getenv("CLSORT_LATENCY_CLOCKS_ONLY"))
        return 0;
    size_t sizes[] = {1024, 4096, 8192, 12288, 16384, 32768, 65536, 262144, 1048576};
    cl_mem pk = clCreateBuffer(cc, CL_MEM_READ_WRITE, 1048576 * 8, NULL, &e);
    cl_mem wk = clCreateBuffer(cc, CL_MEM_READ_WRITE, 1048576 * 8, NULL, &e);
    cl_mem tiny = clCreateBuffer(cc, CL_MEM_READ_WRITE, 64, NULL, &e);
    unsigned *h = malloc(1048576 * 8);
    if (!pk || !wk || !tiny || !h) {
        fprintf(stderr, "clsort_latency: out of memory\n");
        return 2;
    }
    srand(1);
    for (int i = 0; i < 1048576 * 2; i++)
        h[i] = (unsigned)rand() * 2654435761u;
    clEnqueueWriteBuffer(q, pk, CL_TRUE, 0, 1048576 * 8, h, 0, NULL, NULL);
    clSetKernelArg(ke, 0, sizeof wk, &wk);
    /* floors: copy -> marker copy; copy -> empty kernel -> marker; copy -> 2 empty */
    for (int mode = 0; mode < 3; mode++) {
        double t[R];
        for (int r = 0; r < R; r++) {
            cl_event e0, e1;
            clEnqueueCopyBuffer(q, pk, wk, 0, 0, 4096, 0, NULL, &e0);
            size_t g = 256;
            for (int m = 0; m < mode; m++)
                clEnqueueNDRangeKernel(q, ke, 1, NULL, &g, &g, 0, NULL, NULL);
            clEnqueueCopyBuffer(q, wk, tiny, 0, 0, 4, 0, NULL, &e1);
            clWaitForEvents(1, &e1);
            t[r] = ev_us(e0, 1, e1, 0);
            clReleaseEvent(e0);
            clReleaseEvent(e1);
        }
        qsort(t, R, sizeof t[0], cmpd);
        printf("floor: %d empty kernels: median %.1f us (min %.1f)\n", mode, t[R / 2], t[0]);
    }
    /* The region's ends as copies, markers or empty kernels: nothing
     * between them, then a u32 sort of 1K, 4K and 64K keys (after the copy
     * that restores the input). */
    static const char *const hows[] = {"copies", "markers", "empty kernels"};
    for (int how = 0; how < 3; how++) {
        const size_t bn[] = {0, 1024, 4096, 65536};
        printf("ends as %s:", hows[how]);
        for (int bi = 0; bi < 4; bi++) {
            double t[R];
            int ok = 1;
            for (int r = 0; r < R; r++) {
                cl_event e0, e1;
                clEnqueueCopyBuffer(q, pk, wk, 0, 0, bn[bi] ? bn[bi] * 4 : 4, 0, NULL, NULL);
                bracket(q, how, ke, pk, tiny, &e0);
                if (bn[bi] &&
                    clsort_sort_keys_buffer(ctx, CLSORT_U32, wk, 0, bn[bi], NULL, 0, NULL, NULL)) {
                    fprintf(stderr, "clsort_latency: %s\n", clsort_context_last_error(ctx));
                    return 4;
                }
                bracket(q, how, ke, wk, tiny, &e1);
                clWaitForEvents(1, &e1);
                t[r] = gap_us(e0, e1);
                ok &= t[r] >= 0;
                clReleaseEvent(e0);
                clReleaseEvent(e1);
            }
            qsort(t, R, sizeof t[0], cmpd);
            if (ok)
                printf("  %s %.1f us",
                       bn[bi] ? (bn[bi] == 1024   ? "u32 1K"
                                 : bn[bi] == 4096 ? "4K"
                                                  : "64K")
                              : "nothing",
                       t[R / 2]);
            else
                printf("  (no profiling stamps)");
        }
        printf("\n");
    }
    clsort_type types[] = {CLSORT_U32, CLSORT_U64};
    for (int ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si], kb = clsort_type_size(types[ti]);
            double t[R], hst[R];
            for (int r = 0; r < R + 5; r++) {
                cl_event e0, e1;
                clEnqueueCopyBuffer(q, pk, wk, 0, 0, n * kb, 0, NULL, &e0);
                double w0 = now_us();
                clsort_status s =
                    clsort_sort_keys_buffer(ctx, types[ti], wk, 0, n, NULL, 0, NULL, NULL);
                double w1 = now_us();
                if (s) {
                    fprintf(stderr, "clsort_latency: %s\n", clsort_context_last_error(ctx));
                    return 4;
                }
                clEnqueueCopyBuffer(q, wk, tiny, 0, 0, 4, 0, NULL, &e1);
                clWaitForEvents(1, &e1);
                if (r >= 5) {
                    t[r - 5] = ev_us(e0, 1, e1, 0);
                    hst[r - 5] = w1 - w0;
                }
                clReleaseEvent(e0);
                clReleaseEvent(e1);
            }
            qsort(t, R, sizeof t[0], cmpd);
            qsort(hst, R, sizeof t[0], cmpd);
            /* one profiled run: per-kernel */
            char prof[4096];
            clsort_context_set_profiling(ctx, 1);
            cl_event e0, e1;
            clEnqueueCopyBuffer(q, pk, wk, 0, 0, n * kb, 0, NULL, &e0);
            clsort_sort_keys_buffer(ctx, types[ti], wk, 0, n, NULL, 0, NULL, NULL);
            clEnqueueCopyBuffer(q, wk, tiny, 0, 0, 4, 0, NULL, &e1);
            clWaitForEvents(1, &e1);
            double tot = ev_us(e0, 1, e1, 0);
            clsort_context_profile(ctx, prof, sizeof prof);
            clsort_context_set_profiling(ctx, 0);
            printf("%s n=%zu: device median %.1f us (min %.1f), host call median %.1f us; profiled "
                   "run %.1f us:\n%s",
                   clsort_type_name(types[ti]), n, t[R / 2], t[0], hst[R / 2], tot, prof);
        }
    free(h);
    clReleaseMemObject(pk);
    clReleaseMemObject(wk);
    clReleaseMemObject(tiny);
    clReleaseKernel(ke);
    clReleaseProgram(p);
    clsort_context_release(ctx);
    clReleaseCommandQueue(q);
    clsort_context_release(c0);
    return 0;
}

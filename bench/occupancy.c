/* occupancy.c - how many work-groups of a given size and local memory NVIDIA's
 * OpenCL keeps resident on one SM at once (each group records its SM and the
 * global timer at its start and end, spinning ~40 us). NVIDIA only (inline PTX:
 * %smid, %globaltimer). Registers are not probed: the kernel uses few; the
 * onesweep kernel's count comes from ptxas (-cl-nv-verbose).
 * usage: clsort_occupancy [WG]   prints, for local sizes 1 KB to 47 KB, the
 * most groups seen at once on any SM (two launches of 16 groups per SM). */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvprobe.h"

static const char *src =
    "kernel void probe(global ulong *out, uint spin) {\n"
    "  local uint buf[LW];\n"
    "  uint sm; ulong t0, t1;\n"
    "  asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(sm));\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "  for (uint i = get_local_id(0); i < LW; i += get_local_size(0)) buf[i] = sm + i;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  do { asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t1)); } while (t1 - t0 < spin);\n"
    "  uint x = buf[(get_local_id(0) * 7) % LW];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) { size_t g = get_group_id(0);\n"
    "    out[3 * g] = sm; out[3 * g + 1] = t0; out[3 * g + 2] = t1 + (x == 0xffffffffu); }\n"
    "}\n";

int main(int argc, char **argv)
{
    size_t wg = argc > 1 ? (size_t)atoi(argv[1]) : 256;
    cl_device_id dev = nvprobe_device("clsort_occupancy");
    if (!dev)
        return 1;
    if (wg == 0 || wg > 1024) {
        fprintf(stderr, "clsort_occupancy: work-group size 1..1024\n");
        return 1;
    }
    cl_uint cus = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    const unsigned kbs[] = {1, 8, 16, 20, 24, 28, 29, 32, 36, 40, 44, 47};
    for (size_t k = 0; k < sizeof kbs / sizeof kbs[0]; k++) {
        char opts[64];
        snprintf(opts, sizeof opts, "-DLW=%u", kbs[k] * 256);
        cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
        if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
            char log[4096] = "";
            clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            fprintf(stderr, "build failed: %s\n", log);
            return 1;
        }
        cl_kernel kr = clCreateKernel(p, "probe", &err);
        size_t groups = (size_t)cus * 16, gsz = groups * wg;
        cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, groups * 3 * 8, NULL, &err);
        cl_uint spin = 40000;
        clSetKernelArg(kr, 0, sizeof out, &out);
        clSetKernelArg(kr, 1, sizeof spin, &spin);
        int best = 0;
        for (int rep = 0; rep < 2; rep++) {
            err = clEnqueueNDRangeKernel(q, kr, 1, NULL, &gsz, &wg, 0, NULL, NULL);
            if (err) {
                fprintf(stderr, "launch: %d\n", err);
                return 1;
            }
            cl_ulong *h = malloc(groups * 3 * 8);
            if (!h || clEnqueueReadBuffer(q, out, CL_TRUE, 0, groups * 3 * 8, h, 0, NULL, NULL)) {
                fprintf(stderr, "clsort_occupancy: reading the stamps failed\n");
                return 1;
            }
            /* most overlapping intervals on one SM: for each group's start,
             * count the groups of its SM running then */
            best = 0;
            for (size_t a = 0; a < groups; a++) {
                int c = 0;
                for (size_t b = 0; b < groups; b++)
                    if (h[3 * b] == h[3 * a] && h[3 * b + 1] <= h[3 * a + 1] &&
                        h[3 * b + 2] > h[3 * a + 1])
                        c++;
                if (c > best)
                    best = c;
            }
            free(h);
        }
        printf("wg %zu, local %2u KB: at most %d groups at once on one SM\n", wg, kbs[k], best);
        clReleaseMemObject(out);
        clReleaseKernel(kr);
        clReleaseProgram(p);
    }
    return 0;
}

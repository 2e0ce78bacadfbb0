/* example_util.c - the helpers of example_util.h: checked OpenCL calls,
 * program building with the build log on failure, a monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include "example_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ex_cl_check(cl_int err, const char *what, const char *file, int line)
{
    if (err == CL_SUCCESS)
        return;
    /* clsort_status_string names OpenCL codes too ("CL_OUT_OF_RESOURCES (-5)"). */
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, clsort_status_string(err));
    exit(1);
}

void ex_clsort_check(const clsort_context *ctx, clsort_status s, const char *what,
                   const char *file, int line)
{
    if (s == CLSORT_SUCCESS)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s\n%s\n", file, line, what, clsort_status_string(s),
            clsort_context_last_error(ctx));
    exit(1);
}

clsort_context *ex_context_create(const char *device)
{
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create(&ctx, device);
    if (s == CLSORT_ERROR_NO_PLATFORM) {
        printf("SKIPPED: no OpenCL platform (%s)\n", clsort_context_last_error(NULL));
        exit(EX_SKIP);
    }
    if (s != CLSORT_SUCCESS) {
        fprintf(stderr, "cannot create a clsort context: %s\n%s\n", clsort_status_string(s),
                clsort_context_last_error(NULL));
        exit(1);
    }
    return ctx;
}

const char *ex_device_name(const clsort_context *ctx, char *buf, size_t size)
{
    clsort_device_info info;
    clsort_status s = clsort_context_device_info(ctx, &info);
    if (s != CLSORT_SUCCESS)
        snprintf(buf, size, "unknown device (%s)", clsort_status_string(s));
    else
        snprintf(buf, size, "%s (%s)", info.device_name, info.platform_name);
    return buf;
}

cl_program ex_program_build(clsort_context *ctx, const char *source, const char *options)
{
    cl_int err = CL_SUCCESS;
    cl_device_id dev = clsort_context_device(ctx);
    cl_program prog =
        clCreateProgramWithSource(clsort_context_cl_context(ctx), 1, &source, NULL, &err);
    EX_CL(err);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t len = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = ex_malloc(len + 1);
        log[0] = '\0';
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
        log[len] = '\0';
        fprintf(stderr, "building the example's OpenCL kernels failed: %s\nbuild log:\n%s\n",
                clsort_status_string(err), log);
        free(log);
        exit(1);
    }
    return prog;
}

cl_kernel ex_kernel_create(cl_program program, const char *name)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateKernel(%s) failed: %s\n", name, clsort_status_string(err));
        exit(1);
    }
    return k;
}

cl_mem ex_buffer(clsort_context *ctx, cl_mem_flags flags, size_t size, void *host,
                 const char *what)
{
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(clsort_context_cl_context(ctx), flags, size ? size : 16, host, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "cannot allocate %zu bytes of device memory for %s: %s\n", size, what,
                clsort_status_string(err));
        exit(1);
    }
    return b;
}

void ex_args(cl_kernel kernel, unsigned count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (unsigned i = 0; i < count; i++) {
        size_t size = va_arg(ap, size_t);
        const void *ptr = va_arg(ap, const void *);
        cl_int err = clSetKernelArg(kernel, i, size, ptr);
        if (err != CL_SUCCESS) {
            char name[128] = "?";
            clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
            fprintf(stderr, "clSetKernelArg(%s, %u) failed: %s\n", name, i,
                    clsort_status_string(err));
            exit(1);
        }
    }
    va_end(ap);
}

void ex_launch(cl_command_queue queue, cl_kernel kernel, size_t n, size_t local)
{
    if (n == 0)
        return;
    if (local == 0) {
        /* A fixed size rather than the driver's choice: some drivers (PoCL)
         * compile a kernel anew for every work-group size they meet. */
        cl_device_id dev;
        size_t kwg = 0;
        EX_CL(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL));
        EX_CL(clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                       NULL));
        local = 64;
        while (local > kwg && local > 1)
            local /= 2;
    }
    size_t global = (n + local - 1) / local * local;
    cl_int err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        char name[128] = "?";
        clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        fprintf(stderr, "launching kernel %s over %zu work-items failed: %s\n", name, global,
                clsort_status_string(err));
        exit(1);
    }
}

void ex_write(cl_command_queue queue, cl_mem buf, size_t offset, size_t size, const void *src)
{
    if (size)
        EX_CL(clEnqueueWriteBuffer(queue, buf, CL_TRUE, offset, size, src, 0, NULL, NULL));
}

void ex_read(cl_command_queue queue, cl_mem buf, size_t offset, size_t size, void *dst)
{
    if (size)
        EX_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, offset, size, dst, 0, NULL, NULL));
}

void ex_zero(cl_command_queue queue, cl_mem buf, size_t size)
{
    const cl_uint zero = 0;
    if (size)
        EX_CL(clEnqueueFillBuffer(queue, buf, &zero, sizeof zero, 0, size, 0, NULL, NULL));
}

double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ex_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void *ex_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

void *ex_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu x %zu bytes)\n", count, size);
        exit(1);
    }
    return p;
}

int ex_parse_count(const char *s, uint64_t *out)
{
    if (!s || s[0] < '0' || s[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

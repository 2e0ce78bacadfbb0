/* example_util.h - small helpers shared by the example programs (pic,
 * spgemm): a clsort context that reports "skipped" when there is no OpenCL
 * platform, building OpenCL C source on the context's device, device
 * buffers, kernel launches, a monotonic clock and medians.
 *
 * The examples use only the public header clsort.h and plain OpenCL 1.2.
 * Every helper checks its OpenCL calls and, on failure, prints what failed
 * (the OpenCL or clsort status by name, and for clsort calls the context's
 * detailed message) and exits with status 1: an example program has nothing
 * better to do with an error than to explain it and stop. */
#ifndef CLSORT_EXAMPLE_UTIL_H
#define CLSORT_EXAMPLE_UTIL_H

#include <clsort.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status a test reports when it cannot run here (ctest: skipped). */
#define EX_SKIP 77

/* Stops the program if an OpenCL call failed: "file:line: call: CL_... (-5)". */
#define EX_CL(call) ex_cl_check((call), #call, __FILE__, __LINE__)
void ex_cl_check(cl_int err, const char *what, const char *file, int line);

/* Stops the program if a clsort call failed, printing its status and
 * clsort_context_last_error(ctx). */
#define EX_CLSORT(ctx, call) ex_clsort_check((ctx), (call), #call, __FILE__, __LINE__)
void ex_clsort_check(const clsort_context *ctx, clsort_status s, const char *what,
                   const char *file, int line);

/* Creates a context on device (NULL: $CLSORT_DEVICE, else the first GPU,
 * else the first CPU). With no OpenCL platform at all it prints why and
 * exits EX_SKIP; any other failure exits 1. */
clsort_context *ex_context_create(const char *device);

/* "device name (platform name)" of the context's device, into buf. */
const char *ex_device_name(const clsort_context *ctx, char *buf, size_t size);

/* Builds OpenCL C source for the context's device with the build options;
 * on a build failure prints the compiler's log and exits. */
cl_program ex_program_build(clsort_context *ctx, const char *source, const char *options);

/* The kernel of that name (exits if absent). */
cl_kernel ex_kernel_create(cl_program program, const char *name);

/* A device buffer of size bytes in the context's cl_context (flags as for
 * clCreateBuffer; size 0 is rounded up to a small buffer, since OpenCL
 * refuses empty ones). Exits on failure, naming what the buffer was for. */
cl_mem ex_buffer(clsort_context *ctx, cl_mem_flags flags, size_t size, void *host,
                 const char *what);

/* Sets kernel arguments in order: ex_args(k, n, size0, ptr0, size1, ptr1, ...). */
void ex_args(cl_kernel kernel, unsigned count, ...);

/* Enqueues a 1-D kernel over n work-items, rounded up to a multiple of the
 * work-group size local (0: 64, or less where the kernel needs less);
 * kernels check their bounds. Does nothing when n is 0. */
void ex_launch(cl_command_queue queue, cl_kernel kernel, size_t n, size_t local);

/* Blocking copies between host and device, with checks. */
void ex_write(cl_command_queue queue, cl_mem buf, size_t offset, size_t size, const void *src);
void ex_read(cl_command_queue queue, cl_mem buf, size_t offset, size_t size, void *dst);

/* Fills size bytes of a buffer with zeros (enqueued, not waited for). */
void ex_zero(cl_command_queue queue, cl_mem buf, size_t size);

/* Seconds on a monotonic clock. */
double ex_now(void);

/* Median of v[0..n) (sorts v); 0 when n is 0. */
double ex_median(double *v, size_t n);

/* malloc/calloc that exit with a message when memory runs out. */
void *ex_malloc(size_t size);
void *ex_calloc(size_t count, size_t size);

/* Parses a count: decimal digits with an optional K, M or G suffix (powers
 * of two). Returns 0 on success, -1 when malformed. */
int ex_parse_count(const char *s, uint64_t *out);

#endif

/* pic.c - particle-in-cell sorting with clsort (Helluy 2011, section 4.2 and
 * Table 7).
 *
 * N particles live in the periodic unit square [0,1)^2 on a G x G grid; the
 * cell of a particle at (x, y) is k = G i + j with i = floor(x G) and
 * j = floor(y G). Their positions (x, y), velocities (u, v) and ids are
 * stored on the device as a structure of arrays. Particle p starts at the
 * p-th points of four van der Corput sequences: x in base 2, y in base 3,
 * and u, v from bases 5 and 7, scaled from [0,1) to [-1,1) so that particles
 * drift in every direction (Helluy keeps the velocities in [0,1)).
 *
 * The particles are sorted by cell once. Then every step
 *   1. moves each particle by (u h, v h), h = 1/G, modulo 1, so it stays in
 *      its cell or moves to a neighbouring one, and recomputes its cell key;
 *   2. sorts the keys with the permutation: clsort_argsort_buffer (u32
 *      indices, then a gather of the keys), or clsort_sort_pairs_buffer of
 *      (key, index) pairs;
 *   3. applies the permutation to x, y, u, v and id (a gather kernel);
 *   4. deposits the charge of each cell twice: from the segment boundaries
 *      of the sorted keys (count = last - first), and by a direct histogram
 *      of the positions with atomics. Every particle carries unit charge.
 * After each step (outside the timings) the device checks that the keys
 * are sorted, that every key is the cell of its particle's position, that
 * the velocities still belong to the ids and that the ids are a
 * permutation; the host checks that both deposits agree and sum to N. With
 * --check the host also reads every array and verifies the move, the
 * stable sorting permutation (computed on the host by a counting sort), the
 * gather and the deposits element by element.
 *
 * It prints Table 7 for the device: the median time of the sort with the
 * permutation for keys restricted to the cell bits (2 passes of 5 bits for
 * a 32 x 32 grid), for 30-bit keys (6 passes of 5 bits) and for full 32-bit
 * keys with the library's own choice (options NULL), each with both ways of
 * getting the permutation, and the time of the whole step. The library
 * skips passes whose digit is the same for every key; --no-skip turns that
 * off, to compare 2 with 6 full passes as the paper does.
 *
 * usage: pic [--device D] [--n N] [--grid G] [--steps S] [--method M]
 *            [--check] [--no-skip]          (pic --help explains them)
 */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

/* ------------------------------------------------------------ the kernels */

static const char pic_kernels[] =
    "/* Kernels of the particle-in-cell example: move, cell keys, gather,\n"
    " * charge deposit and checks. One work-item per particle (or cell). */\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "\n"
    "/* Wraps a coordinate back into [0,1) after a move of less than one period. */\n"
    "float pic_wrap(float x)\n"
    "{\n"
    "    if (x < 0.0f)\n"
    "        x += 1.0f;\n"
    "    if (x >= 1.0f) /* also catches -tiny + 1 rounding up to 1 */\n"
    "        x -= 1.0f;\n"
    "    return x;\n"
    "}\n"
    "\n"
    "/* The cell k = g i + j of the point (x, y) of [0,1)^2. */\n"
    "uint pic_cell(float x, float y, uint g)\n"
    "{\n"
    "    uint i = min((uint)(x * (float)g), g - 1u);\n"
    "    uint j = min((uint)(y * (float)g), g - 1u);\n"
    "    return g * i + j;\n"
    "}\n"
    "\n"
    "__kernel void pic_cells(uint n, uint g, __global const float *x, __global const float *y,\n"
    "                        __global uint *key)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p < n)\n"
    "        key[p] = pic_cell(x[p], y[p], g);\n"
    "}\n"
    "\n"
    "/* x += u h, y += v h modulo 1, and the new cell key. */\n"
    "__kernel void pic_move(uint n, uint g, float h, __global float *x, __global float *y,\n"
    "                       __global const float *u, __global const float *v,\n"
    "                       __global uint *key)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p >= n)\n"
    "        return;\n"
    "    float xp = pic_wrap(x[p] + u[p] * h);\n"
    "    float yp = pic_wrap(y[p] + v[p] * h);\n"
    "    x[p] = xp;\n"
    "    y[p] = yp;\n"
    "    key[p] = pic_cell(xp, yp, g);\n"
    "}\n"
    "\n"
    "__kernel void pic_iota(uint n, __global uint *idx)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p < n)\n"
    "        idx[p] = p;\n"
    "}\n"
    "\n"
    "__kernel void pic_gather_keys(uint n, __global const uint *perm, __global const uint *key,\n"
    "                              __global uint *key_out)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p < n)\n"
    "        key_out[p] = key[perm[p]];\n"
    "}\n"
    "\n"
    "/* Applies the permutation to every particle attribute: out[p] = in[perm[p]]. */\n"
    "__kernel void pic_gather(uint n, __global const uint *perm,\n"
    "                         __global const float *x, __global const float *y,\n"
    "                         __global const float *u, __global const float *v,\n"
    "                         __global const uint *id,\n"
    "                         __global float *xo, __global float *yo,\n"
    "                         __global float *uo, __global float *vo, __global uint *ido)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p >= n)\n"
    "        return;\n"
    "    uint s = perm[p];\n"
    "    xo[p] = x[s];\n"
    "    yo[p] = y[s];\n"
    "    uo[p] = u[s];\n"
    "    vo[p] = v[s];\n"
    "    ido[p] = id[s];\n"
    "}\n"
    "\n"
    "/* Segments of equal keys in the sorted list: first[k] = start of cell k's\n"
    " * run, last[k] = one past its end (both zeroed beforehand, so empty cells\n"
    " * keep 0 and 0). */\n"
    "__kernel void pic_segment_bounds(uint n, __global const uint *key, __global uint *first,\n"
    "                                 __global uint *last)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p >= n)\n"
    "        return;\n"
    "    uint k = key[p];\n"
    "    if (p == 0 || key[p - 1] != k)\n"
    "        first[k] = p;\n"
    "    if (p == n - 1 || key[p + 1] != k)\n"
    "        last[k] = p + 1;\n"
    "}\n"
    "\n"
    "__kernel void pic_segment_charge(uint cells, __global const uint *first,\n"
    "                                 __global const uint *last, __global uint *charge)\n"
    "{\n"
    "    uint c = get_global_id(0);\n"
    "    if (c < cells)\n"
    "        charge[c] = last[c] - first[c];\n"
    "}\n"
    "\n"
    "/* The direct deposit: every particle adds its unit charge to its cell. */\n"
    "__kernel void pic_histogram(uint n, uint g, __global const float *x,\n"
    "                            __global const float *y, __global uint *hist)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p < n)\n"
    "        atomic_inc(&hist[pic_cell(x[p], y[p], g)]);\n"
    "}\n"
    "\n"
    "/* Checks after a step. errors[0]: keys out of order; [1]: key differs from\n"
    " * the cell of the particle's position; [2]: velocity differs from the\n"
    " * initial velocity of the particle's id; [3]: id out of range. Counts\n"
    " * each id in seen[] for pic_verify_seen. */\n"
    "__kernel void pic_verify(uint n, uint g, __global const uint *key,\n"
    "                         __global const float *x, __global const float *y,\n"
    "                         __global const float *u, __global const float *v,\n"
    "                         __global const uint *id, __global const float *u0,\n"
    "                         __global const float *v0, __global uint *seen,\n"
    "                         __global uint *errors)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p >= n)\n"
    "        return;\n"
    "    if (p > 0 && key[p - 1] > key[p])\n"
    "        atomic_inc(&errors[0]);\n"
    "    if (key[p] != pic_cell(x[p], y[p], g))\n"
    "        atomic_inc(&errors[1]);\n"
    "    uint i = id[p];\n"
    "    if (i >= n) {\n"
    "        atomic_inc(&errors[3]);\n"
    "        return;\n"
    "    }\n"
    "    if (u[p] != u0[i] || v[p] != v0[i])\n"
    "        atomic_inc(&errors[2]);\n"
    "    atomic_inc(&seen[i]);\n"
    "}\n"
    "\n"
    "/* errors[3] += ids seen other than exactly once. */\n"
    "__kernel void pic_verify_seen(uint n, __global const uint *seen, __global uint *errors)\n"
    "{\n"
    "    uint i = get_global_id(0);\n"
    "    if (i < n && seen[i] != 1u)\n"
    "        atomic_inc(&errors[3]);\n"
    "}\n";

/* ------------------------------------------------------------- the state */

enum { PIC_ARGSORT = 0, PIC_PAIRS = 1 };
static const char *method_names[2] = {"argsort", "pairs"};

typedef struct pic {
    clsort_context *ctx;
    cl_command_queue queue;
    cl_uint n, g, cells;
    float h; /* 1/G: a particle moves by (u h, v h) per step */
    /* Particle attributes, double-buffered: [cur] is the live copy, the
     * gather writes [1 - cur]. */
    cl_mem x[2], y[2], u[2], v[2], id[2];
    int cur;
    cl_mem key;        /* cell keys in particle order (sorted in place by pairs) */
    cl_mem key_sorted; /* argsort: the keys gathered into sorted order */
    cl_mem perm;       /* the sorting permutation */
    cl_mem u0, v0;     /* initial velocities by id, for the checks */
    cl_mem seen, errors, first, last, charge, hist;
    cl_program program;
    cl_kernel k_cells, k_move, k_iota, k_gather_keys, k_gather, k_bounds, k_charge, k_hist,
        k_verify, k_seen;
} pic;

/* Host copies for --check: the particles as the host last verified them. */
typedef struct host_particles {
    float *x, *y, *u, *v;
    cl_uint *id, *key;
} host_particles;

/* The radical inverse of i in base b: the i-th point of the van der Corput
 * sequence, in [0,1). */
static double van_der_corput(uint64_t i, unsigned b)
{
    double inv = 1.0 / b, f = inv, r = 0.0;
    while (i) {
        r += f * (double)(i % b);
        i /= b;
        f *= inv;
    }
    return r;
}

/* Rounds to float, keeping the value below 1 (rounding could reach 1.0f). */
static float below_one(double d)
{
    float f = (float)d;
    return f < 1.0f ? f : 0x1.fffffep-1f;
}

/* The host's copy of the kernels' cell formula (same float arithmetic:
 * one correctly rounded product, then truncation). */
static cl_uint host_cell(float x, float y, cl_uint g)
{
    cl_uint i = (cl_uint)(x * (float)g), j = (cl_uint)(y * (float)g);
    if (i > g - 1)
        i = g - 1;
    if (j > g - 1)
        j = g - 1;
    return g * i + j;
}

static float host_wrap(float x)
{
    if (x < 0.0f)
        x += 1.0f;
    if (x >= 1.0f)
        x -= 1.0f;
    return x;
}

static void host_alloc(host_particles *h, size_t n)
{
    h->x = ex_malloc(n * sizeof(float));
    h->y = ex_malloc(n * sizeof(float));
    h->u = ex_malloc(n * sizeof(float));
    h->v = ex_malloc(n * sizeof(float));
    h->id = ex_malloc(n * sizeof(cl_uint));
    h->key = ex_malloc(n * sizeof(cl_uint));
}

static void host_free(host_particles *h)
{
    free(h->x);
    free(h->y);
    free(h->u);
    free(h->v);
    free(h->id);
    free(h->key);
}

/* Creates the device arrays and fills them with the initial particles;
 * init receives the same particles on the host. */
static void pic_create(pic *s, clsort_context *ctx, cl_uint n, cl_uint g, host_particles *init)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->queue = clsort_context_queue(ctx);
    s->n = n;
    s->g = g;
    s->cells = g * g;
    s->h = (float)(1.0 / g);

    for (cl_uint p = 0; p < n; p++) {
        init->x[p] = below_one(van_der_corput(p, 2));
        init->y[p] = below_one(van_der_corput(p, 3));
        init->u[p] = below_one(2.0 * van_der_corput(p, 5) - 1.0);
        init->v[p] = below_one(2.0 * van_der_corput(p, 7) - 1.0);
        init->id[p] = p;
    }

    size_t fb = (size_t)n * sizeof(float), ub = (size_t)n * sizeof(cl_uint);
    size_t cb = (size_t)s->cells * sizeof(cl_uint);
    for (int b = 0; b < 2; b++) {
        s->x[b] = ex_buffer(ctx, CL_MEM_READ_WRITE, fb, NULL, "particle x");
        s->y[b] = ex_buffer(ctx, CL_MEM_READ_WRITE, fb, NULL, "particle y");
        s->u[b] = ex_buffer(ctx, CL_MEM_READ_WRITE, fb, NULL, "particle u");
        s->v[b] = ex_buffer(ctx, CL_MEM_READ_WRITE, fb, NULL, "particle v");
        s->id[b] = ex_buffer(ctx, CL_MEM_READ_WRITE, ub, NULL, "particle ids");
    }
    s->key = ex_buffer(ctx, CL_MEM_READ_WRITE, ub, NULL, "cell keys");
    s->key_sorted = ex_buffer(ctx, CL_MEM_READ_WRITE, ub, NULL, "sorted cell keys");
    s->perm = ex_buffer(ctx, CL_MEM_READ_WRITE, ub, NULL, "permutation");
    s->u0 = ex_buffer(ctx, CL_MEM_READ_ONLY, fb, NULL, "initial u");
    s->v0 = ex_buffer(ctx, CL_MEM_READ_ONLY, fb, NULL, "initial v");
    s->seen = ex_buffer(ctx, CL_MEM_READ_WRITE, ub, NULL, "id check");
    s->errors = ex_buffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(cl_uint), NULL, "error counters");
    s->first = ex_buffer(ctx, CL_MEM_READ_WRITE, cb, NULL, "segment starts");
    s->last = ex_buffer(ctx, CL_MEM_READ_WRITE, cb, NULL, "segment ends");
    s->charge = ex_buffer(ctx, CL_MEM_READ_WRITE, cb, NULL, "charge (segments)");
    s->hist = ex_buffer(ctx, CL_MEM_READ_WRITE, cb, NULL, "charge (histogram)");

    ex_write(s->queue, s->x[0], 0, fb, init->x);
    ex_write(s->queue, s->y[0], 0, fb, init->y);
    ex_write(s->queue, s->u[0], 0, fb, init->u);
    ex_write(s->queue, s->v[0], 0, fb, init->v);
    ex_write(s->queue, s->id[0], 0, ub, init->id);
    ex_write(s->queue, s->u0, 0, fb, init->u);
    ex_write(s->queue, s->v0, 0, fb, init->v);

    s->program = ex_program_build(ctx, pic_kernels, "");
    s->k_cells = ex_kernel_create(s->program, "pic_cells");
    s->k_move = ex_kernel_create(s->program, "pic_move");
    s->k_iota = ex_kernel_create(s->program, "pic_iota");
    s->k_gather_keys = ex_kernel_create(s->program, "pic_gather_keys");
    s->k_gather = ex_kernel_create(s->program, "pic_gather");
    s->k_bounds = ex_kernel_create(s->program, "pic_segment_bounds");
    s->k_charge = ex_kernel_create(s->program, "pic_segment_charge");
    s->k_hist = ex_kernel_create(s->program, "pic_histogram");
    s->k_verify = ex_kernel_create(s->program, "pic_verify");
    s->k_seen = ex_kernel_create(s->program, "pic_verify_seen");
}

static void pic_release(pic *s)
{
    cl_kernel ks[] = {s->k_cells,  s->k_move,   s->k_iota, s->k_gather_keys, s->k_gather,
                      s->k_bounds, s->k_charge, s->k_hist, s->k_verify,      s->k_seen};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        clReleaseKernel(ks[i]);
    clReleaseProgram(s->program);
    for (int b = 0; b < 2; b++) {
        clReleaseMemObject(s->x[b]);
        clReleaseMemObject(s->y[b]);
        clReleaseMemObject(s->u[b]);
        clReleaseMemObject(s->v[b]);
        clReleaseMemObject(s->id[b]);
    }
    cl_mem ms[] = {s->key,  s->key_sorted, s->perm,  s->u0,     s->v0,  s->seen,
                   s->errors, s->first,    s->last,  s->charge, s->hist};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        clReleaseMemObject(ms[i]);
}

/* ------------------------------------------------------------ the phases */

/* The initial keys, from the positions (no move). */
static void pic_keys(pic *s)
{
    int c = s->cur;
    ex_args(s->k_cells, 5, sizeof s->n, &s->n, sizeof s->g, &s->g, sizeof(cl_mem), &s->x[c],
            sizeof(cl_mem), &s->y[c], sizeof(cl_mem), &s->key);
    ex_launch(s->queue, s->k_cells, s->n, 0);
}

static void pic_move(pic *s)
{
    int c = s->cur;
    ex_args(s->k_move, 8, sizeof s->n, &s->n, sizeof s->g, &s->g, sizeof s->h, &s->h,
            sizeof(cl_mem), &s->x[c], sizeof(cl_mem), &s->y[c], sizeof(cl_mem), &s->u[c],
            sizeof(cl_mem), &s->v[c], sizeof(cl_mem), &s->key);
    ex_launch(s->queue, s->k_move, s->n, 0);
}

/* Sorts the keys with the permutation into s->perm; returns the buffer that
 * holds the sorted keys. opt NULL: the library's defaults. */
static cl_mem pic_sort(pic *s, int method, const clsort_options *opt)
{
    if (method == PIC_ARGSORT) {
        /* perm = the stable sorting permutation; the keys stay as they are,
         * so gather them too. */
        EX_CLSORT(s->ctx, clsort_argsort_buffer(s->ctx, CLSORT_U32, s->key, 0, s->n, CLSORT_U32,
                                              s->perm, 0, opt, 0, NULL, NULL));
        ex_args(s->k_gather_keys, 4, sizeof s->n, &s->n, sizeof(cl_mem), &s->perm,
                sizeof(cl_mem), &s->key, sizeof(cl_mem), &s->key_sorted);
        ex_launch(s->queue, s->k_gather_keys, s->n, 0);
        return s->key_sorted;
    }
    /* (key, index) pairs: the indices 0..n-1 ride along and become the
     * permutation; the keys are sorted in place. */
    ex_args(s->k_iota, 2, sizeof s->n, &s->n, sizeof(cl_mem), &s->perm);
    ex_launch(s->queue, s->k_iota, s->n, 0);
    EX_CLSORT(s->ctx, clsort_sort_pairs_buffer(s->ctx, CLSORT_U32, s->key, 0, s->perm, 0,
                                             sizeof(cl_uint), s->n, opt, 0, NULL, NULL));
    return s->key;
}

static void pic_gather(pic *s)
{
    int c = s->cur, o = 1 - s->cur;
    ex_args(s->k_gather, 12, sizeof s->n, &s->n, sizeof(cl_mem), &s->perm, sizeof(cl_mem),
            &s->x[c], sizeof(cl_mem), &s->y[c], sizeof(cl_mem), &s->u[c], sizeof(cl_mem),
            &s->v[c], sizeof(cl_mem), &s->id[c], sizeof(cl_mem), &s->x[o], sizeof(cl_mem),
            &s->y[o], sizeof(cl_mem), &s->u[o], sizeof(cl_mem), &s->v[o], sizeof(cl_mem),
            &s->id[o]);
    ex_launch(s->queue, s->k_gather, s->n, 0);
    s->cur = o;
}

/* Charge per cell from the sorted keys: each cell's run of equal keys. */
static void pic_deposit_segments(pic *s, cl_mem sorted_key)
{
    size_t cb = (size_t)s->cells * sizeof(cl_uint);
    ex_zero(s->queue, s->first, cb);
    ex_zero(s->queue, s->last, cb);
    ex_args(s->k_bounds, 4, sizeof s->n, &s->n, sizeof(cl_mem), &sorted_key, sizeof(cl_mem),
            &s->first, sizeof(cl_mem), &s->last);
    ex_launch(s->queue, s->k_bounds, s->n, 0);
    ex_args(s->k_charge, 4, sizeof s->cells, &s->cells, sizeof(cl_mem), &s->first,
            sizeof(cl_mem), &s->last, sizeof(cl_mem), &s->charge);
    ex_launch(s->queue, s->k_charge, s->cells, 0);
}

/* Charge per cell by a histogram of the positions (atomics). */
static void pic_deposit_histogram(pic *s)
{
    int c = s->cur;
    ex_zero(s->queue, s->hist, (size_t)s->cells * sizeof(cl_uint));
    ex_args(s->k_hist, 5, sizeof s->n, &s->n, sizeof s->g, &s->g, sizeof(cl_mem), &s->x[c],
            sizeof(cl_mem), &s->y[c], sizeof(cl_mem), &s->hist);
    ex_launch(s->queue, s->k_hist, s->n, 0);
}

/* ------------------------------------------------------------ the checks */

/* Reports a failed check and stops. */
static void fail(const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "CHECK FAILED (%s): ", where);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* The checks run after every step, on the device and on the cell charges.
 * cells_ref (may be NULL) is the host's own count of particles per cell. */
static void pic_verify(pic *s, cl_mem sorted_key, const char *where, const cl_uint *cells_ref)
{
    int c = s->cur;
    ex_zero(s->queue, s->seen, (size_t)s->n * sizeof(cl_uint));
    ex_zero(s->queue, s->errors, 4 * sizeof(cl_uint));
    ex_args(s->k_verify, 12, sizeof s->n, &s->n, sizeof s->g, &s->g, sizeof(cl_mem),
            &sorted_key, sizeof(cl_mem), &s->x[c], sizeof(cl_mem), &s->y[c], sizeof(cl_mem),
            &s->u[c], sizeof(cl_mem), &s->v[c], sizeof(cl_mem), &s->id[c], sizeof(cl_mem),
            &s->u0, sizeof(cl_mem), &s->v0, sizeof(cl_mem), &s->seen, sizeof(cl_mem),
            &s->errors);
    ex_launch(s->queue, s->k_verify, s->n, 0);
    ex_args(s->k_seen, 3, sizeof s->n, &s->n, sizeof(cl_mem), &s->seen, sizeof(cl_mem),
            &s->errors);
    ex_launch(s->queue, s->k_seen, s->n, 0);
    cl_uint errors[4];
    ex_read(s->queue, s->errors, 0, sizeof errors, errors);
    if (errors[0])
        fail(where, "%u keys out of order", errors[0]);
    if (errors[1])
        fail(where, "%u keys differ from their particle's cell", errors[1]);
    if (errors[2])
        fail(where, "%u particles' velocities do not belong to their id", errors[2]);
    if (errors[3])
        fail(where, "the ids are not a permutation (%u bad)", errors[3]);

    cl_uint *charge = ex_malloc((size_t)s->cells * sizeof(cl_uint));
    cl_uint *hist = ex_malloc((size_t)s->cells * sizeof(cl_uint));
    ex_read(s->queue, s->charge, 0, (size_t)s->cells * sizeof(cl_uint), charge);
    ex_read(s->queue, s->hist, 0, (size_t)s->cells * sizeof(cl_uint), hist);
    uint64_t total = 0;
    for (cl_uint k = 0; k < s->cells; k++) {
        if (charge[k] != hist[k])
            fail(where, "cell %u: charge %u from the segments, %u from the histogram", k,
                 charge[k], hist[k]);
        if (cells_ref && charge[k] != cells_ref[k])
            fail(where, "cell %u: charge %u on the device, %u on the host", k, charge[k],
                 cells_ref[k]);
        total += charge[k];
    }
    if (total != s->n)
        fail(where, "total charge %llu, expected %u", (unsigned long long)total, s->n);
    free(charge);
    free(hist);
}

/* --check, before the sort: reads the moved positions and the keys into
 * pre and checks them against the host's last state prev (moved: by one
 * step of the motion; not moved: unchanged). */
static void check_before_sort(pic *s, const host_particles *prev, host_particles *pre, int moved,
                              const char *where)
{
    int c = s->cur;
    size_t fb = (size_t)s->n * sizeof(float);
    ex_read(s->queue, s->x[c], 0, fb, pre->x);
    ex_read(s->queue, s->y[c], 0, fb, pre->y);
    ex_read(s->queue, s->key, 0, (size_t)s->n * sizeof(cl_uint), pre->key);
    for (cl_uint p = 0; p < s->n; p++) {
        float ex = prev->x[p], ey = prev->y[p];
        if (moved) {
            ex = host_wrap(ex + prev->u[p] * s->h);
            ey = host_wrap(ey + prev->v[p] * s->h);
        }
        /* The device may round differently (e.g. fused multiply-add), so
         * allow a few units in the last place, across the periodic seam too. */
        float dx = fabsf(pre->x[p] - ex), dy = fabsf(pre->y[p] - ey);
        dx = fminf(dx, 1.0f - dx);
        dy = fminf(dy, 1.0f - dy);
        if (!(pre->x[p] >= 0.0f && pre->x[p] < 1.0f && pre->y[p] >= 0.0f && pre->y[p] < 1.0f) ||
            dx > 1e-6f || dy > 1e-6f)
            fail(where, "particle at %u moved to (%.9g, %.9g), expected (%.9g, %.9g)", p,
                 pre->x[p], pre->y[p], ex, ey);
        if (pre->key[p] != host_cell(pre->x[p], pre->y[p], s->g))
            fail(where, "key %u of particle at %u, the host computes %u", pre->key[p], p,
                 host_cell(pre->x[p], pre->y[p], s->g));
    }
}

/* --check, after sort, gather and deposits: the host computes the stable
 * sorting permutation of pre->key by counting sort (unique, since the sort
 * is stable) and compares the device's permutation, sorted keys and
 * gathered attributes with it element by element; then prev becomes the
 * new state. cells receives the host's particle count per cell. */
static void check_after_sort(pic *s, cl_mem sorted_key, host_particles *prev,
                             const host_particles *pre, cl_uint *cells, const char *where)
{
    size_t n = s->n, fb = n * sizeof(float), ub = n * sizeof(cl_uint);
    cl_uint *start = ex_calloc((size_t)s->cells + 1, sizeof(cl_uint));
    cl_uint *ref = ex_malloc(ub);
    memset(cells, 0, (size_t)s->cells * sizeof(cl_uint));
    for (size_t p = 0; p < n; p++)
        cells[pre->key[p]]++;
    for (cl_uint k = 0; k < s->cells; k++)
        start[k + 1] = start[k] + cells[k];
    for (size_t p = 0; p < n; p++)
        ref[start[pre->key[p]]++] = (cl_uint)p;

    cl_uint *perm = ex_malloc(ub), *skey = ex_malloc(ub);
    host_particles post;
    post.x = ex_malloc(fb);
    post.y = ex_malloc(fb);
    post.u = ex_malloc(fb);
    post.v = ex_malloc(fb);
    post.id = ex_malloc(ub);
    post.key = skey;
    int c = s->cur;
    ex_read(s->queue, s->perm, 0, ub, perm);
    ex_read(s->queue, sorted_key, 0, ub, skey);
    ex_read(s->queue, s->x[c], 0, fb, post.x);
    ex_read(s->queue, s->y[c], 0, fb, post.y);
    ex_read(s->queue, s->u[c], 0, fb, post.u);
    ex_read(s->queue, s->v[c], 0, fb, post.v);
    ex_read(s->queue, s->id[c], 0, ub, post.id);
    for (size_t i = 0; i < n; i++) {
        cl_uint r = ref[i];
        if (perm[i] != r)
            fail(where, "permutation[%zu] = %u, the stable order has %u", i, perm[i], r);
        if (skey[i] != pre->key[r])
            fail(where, "sorted key %zu is %u, expected %u", i, skey[i], pre->key[r]);
        if (memcmp(&post.x[i], &pre->x[r], sizeof(float)) ||
            memcmp(&post.y[i], &pre->y[r], sizeof(float)) ||
            memcmp(&post.u[i], &prev->u[r], sizeof(float)) ||
            memcmp(&post.v[i], &prev->v[r], sizeof(float)) || post.id[i] != prev->id[r])
            fail(where, "particle %zu after the gather is not particle %u before it", i, r);
    }
    free(prev->x);
    free(prev->y);
    free(prev->u);
    free(prev->v);
    free(prev->id);
    free(prev->key);
    *prev = post;
    free(perm);
    free(ref);
    free(start);
}

/* ------------------------------------------------------------------ main */

typedef struct row_spec {
    char label[48];
    char passes[16];
    clsort_options opt;
    int use_opt; /* 0: options NULL */
} row_spec;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pic [options]\n"
            "Particle-in-cell sorting (Helluy 2011, Table 7) with clsort.\n"
            "  --device D    OpenCL device: gpu, cpu, P:D or part of its name\n"
            "  --n N         particles (default 8M = 8388608; suffixes K, M, G)\n"
            "  --grid G      G x G cells (default 32; 1..32768)\n"
            "  --steps S     timed steps per table row (default 5)\n"
            "  --method M    argsort, pairs or both (default both)\n"
            "  --check       verify every step on the host, element by element\n"
            "  --no-skip     run every pass: turn off the library's skipping of passes\n"
            "                whose digit is the same for every key (tuning skip_min), to\n"
            "                compare 2 against 6 passes as the paper does\n");
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    uint64_t n64 = 8388608, g64 = 32, steps64 = 5;
    int check = 0, no_skip = 0, methods[2] = {1, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--no-skip")) {
            no_skip = 1;
        } else if (!next) {
            fprintf(stderr, "pic: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        } else if (!strcmp(a, "--device")) {
            device = argv[++i];
        } else if (!strcmp(a, "--n")) {
            if (ex_parse_count(argv[++i], &n64) || n64 < 1 || n64 >= UINT32_MAX) {
                fprintf(stderr, "pic: --n must be 1 .. 2^32-2\n");
                return 2;
            }
        } else if (!strcmp(a, "--grid")) {
            if (ex_parse_count(argv[++i], &g64) || g64 < 1 || g64 > 32768) {
                fprintf(stderr, "pic: --grid must be 1 .. 32768\n");
                return 2;
            }
        } else if (!strcmp(a, "--steps")) {
            if (ex_parse_count(argv[++i], &steps64) || steps64 < 1 || steps64 > 100000) {
                fprintf(stderr, "pic: --steps must be at least 1\n");
                return 2;
            }
        } else if (!strcmp(a, "--method")) {
            const char *m = argv[++i];
            methods[0] = !strcmp(m, "argsort") || !strcmp(m, "both");
            methods[1] = !strcmp(m, "pairs") || !strcmp(m, "both");
            if (!methods[0] && !methods[1]) {
                fprintf(stderr, "pic: --method must be argsort, pairs or both\n");
                return 2;
            }
        } else {
            fprintf(stderr, "pic: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    cl_uint n = (cl_uint)n64, g = (cl_uint)g64;
    size_t steps = (size_t)steps64;

    /* The table's rows: the cell bits rounded up to whole 5-bit digits
     * (2 passes for 32 x 32 cells), 30-bit keys in 6 passes of 5 bits, and
     * full 32-bit keys with the library's defaults. */
    unsigned cell_bits = 1;
    while (cell_bits < 32 && ((uint64_t)1 << cell_bits) < (uint64_t)g * g)
        cell_bits++;
    unsigned cell_passes = (cell_bits + 4) / 5;
    row_spec rows[3];
    memset(rows, 0, sizeof rows);
    snprintf(rows[0].label, sizeof rows[0].label, "%u bits (cells), 5-bit digits",
             5 * cell_passes);
    snprintf(rows[0].passes, sizeof rows[0].passes, "%u", cell_passes);
    rows[0].opt.end_bit = 5 * cell_passes;
    rows[0].opt.radix_bits = 5;
    rows[0].use_opt = 1;
    snprintf(rows[1].label, sizeof rows[1].label, "30 bits, 5-bit digits");
    snprintf(rows[1].passes, sizeof rows[1].passes, "6");
    rows[1].opt.end_bit = 30;
    rows[1].opt.radix_bits = 5;
    rows[1].use_opt = 1;
    snprintf(rows[2].label, sizeof rows[2].label, "32 bits, options NULL");
    snprintf(rows[2].passes, sizeof rows[2].passes, "auto");

    clsort_context *ctx = ex_context_create(device);
    if (no_skip)
        EX_CLSORT(ctx, clsort_context_set_tuning(ctx, "skip_min=2147483647"));
    char devname[300];
    printf("clsort particle-in-cell example (Helluy 2011, section 4.2, Table 7)\n");
    printf("device     %s\n", ex_device_name(ctx, devname, sizeof devname));
    printf("particles  %u, grid %u x %u (%u cells, keys < 2^%u), %zu timed steps per row\n", n,
           g, g, g * g, cell_bits, steps);
    printf("init       van der Corput: x base 2, y base 3, u base 5, v base 7 (u, v in [-1,1))\n");
    printf("step       move by (u/G, v/G) mod 1, cell keys, sort with permutation, gather\n"
           "           x y u v id, deposit charge (segments and atomic histogram)\n");
    printf("passes     %s\n", no_skip ? "all of them (--no-skip)"
                                          : "the library skips those whose digit is the same "
                                            "for every key");
    printf("checks     every step on the device%s\n\n",
           check ? " and element by element on the host (--check)" : "");
    fflush(stdout);

    host_particles hp;
    host_alloc(&hp, n);
    pic s;
    pic_create(&s, ctx, n, g, &hp);
    host_particles pre = {0};
    cl_uint *cells_ref = NULL;
    if (check) {
        pre.x = ex_malloc((size_t)n * sizeof(float));
        pre.y = ex_malloc((size_t)n * sizeof(float));
        pre.key = ex_malloc((size_t)n * sizeof(cl_uint));
        cells_ref = ex_malloc((size_t)g * g * sizeof(cl_uint));
    }

    /* The first sort, from the random (van der Corput) order, full keys. */
    EX_CL(clFinish(s.queue));
    double t0 = ex_now();
    pic_keys(&s);
    EX_CL(clFinish(s.queue));
    double t_initial = ex_now() - t0;
    if (check)
        check_before_sort(&s, &hp, &pre, 0, "initial sort");
    t0 = ex_now();
    cl_mem sorted = pic_sort(&s, PIC_ARGSORT, NULL);
    pic_gather(&s);
    EX_CL(clFinish(s.queue));
    t_initial += ex_now() - t0;
    pic_deposit_segments(&s, sorted);
    pic_deposit_histogram(&s);
    if (check)
        check_after_sort(&s, sorted, &hp, &pre, cells_ref, "initial sort");
    pic_verify(&s, sorted, "initial sort", cells_ref);
    printf("initial sort from the van der Corput order (32-bit keys, argsort + gather): "
           "%.2f ms\n\n",
           1e3 * t_initial);

    printf("Table 7: sort with the permutation, N = %u, median of %zu steps (ms)\n", n, steps);
    printf("%-30s %-6s %-8s %9s %9s | %8s %8s %9s %9s %9s\n", "keys", "passes", "method",
           "sort", "Mkeys/s", "move", "gather", "dep.seg", "dep.atom", "step");
    double *ts = ex_malloc(steps * 6 * sizeof(double));
    size_t checked = 0;
    for (int r = 0; r < 3; r++) {
        for (int m = 0; m < 2; m++) {
            if (!methods[m])
                continue;
            double *tm = ts, *tsrt = ts + steps, *tg = ts + 2 * steps, *tds = ts + 3 * steps,
                   *tdh = ts + 4 * steps, *tst = ts + 5 * steps;
            for (size_t st = 0; st < steps; st++) {
                char where[128];
                snprintf(where, sizeof where, "%.47s, %s, step %zu", rows[r].label,
                         method_names[m], st + 1);
                const clsort_options *opt = rows[r].use_opt ? &rows[r].opt : NULL;
                double a = ex_now();
                pic_move(&s);
                EX_CL(clFinish(s.queue));
                double b = ex_now();
                if (check)
                    check_before_sort(&s, &hp, &pre, 1, where);
                double c0 = ex_now();
                cl_mem sk = pic_sort(&s, m, opt);
                EX_CL(clFinish(s.queue));
                double c1 = ex_now();
                pic_gather(&s);
                EX_CL(clFinish(s.queue));
                double c2 = ex_now();
                pic_deposit_segments(&s, sk);
                EX_CL(clFinish(s.queue));
                double c3 = ex_now();
                pic_deposit_histogram(&s);
                EX_CL(clFinish(s.queue));
                double c4 = ex_now();
                tm[st] = b - a;
                tsrt[st] = c1 - c0;
                tg[st] = c2 - c1;
                tds[st] = c3 - c2;
                tdh[st] = c4 - c3;
                tst[st] = tm[st] + tsrt[st] + tg[st] + tds[st] + tdh[st];
                if (check)
                    check_after_sort(&s, sk, &hp, &pre, cells_ref, where);
                pic_verify(&s, sk, where, cells_ref);
                checked++;
            }
            double sort_ms = 1e3 * ex_median(tsrt, steps);
            printf("%-30s %-6s %-8s %9.2f %9.1f | %8.2f %8.2f %9.2f %9.2f %9.2f\n",
                   rows[r].label, rows[r].passes, method_names[m], sort_ms,
                   sort_ms > 0 ? n / (1e3 * sort_ms) : 0.0, 1e3 * ex_median(tm, steps),
                   1e3 * ex_median(tg, steps), 1e3 * ex_median(tds, steps),
                   1e3 * ex_median(tdh, steps), 1e3 * ex_median(tst, steps));
            fflush(stdout);
        }
    }
    printf("\nsort: from the keys to the sorted keys and the permutation (argsort: with the\n"
           "gather of the keys; pairs: with the fill of the indices). step: move + sort +\n"
           "gather + both deposits. Each phase is timed with clFinish and a monotonic clock.\n");
    printf("verified: initial sort and %zu steps (%s): all checks passed\n", checked,
           check ? "device checks and full host check" : "device checks; --check for the full "
                                                         "host check");

    free(ts);
    if (check) {
        free(pre.x);
        free(pre.y);
        free(pre.key);
        free(cells_ref);
    }
    host_free(&hp);
    pic_release(&s);
    clsort_context_release(ctx);
    return 0;
}

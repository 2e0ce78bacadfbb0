/* spgemm_device.c - expand, sort, compress on the device (see
 * spgemm_device.h): the example's OpenCL C kernels and the host code that
 * runs them around clsort's sort and scan. */
#define _POSIX_C_SOURCE 200809L
#include "spgemm_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

static const char spgemm_source[] =
    "/* Kernels of the spgemm example. KEY_T (uint or ulong) comes from the\n"
    " * build options. One work-item per row, entry, pair or entry of C. */\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "\n"
    "/* erow[e] = the row of entry e of A. One work-item per row. */\n"
    "__kernel void sp_entry_rows(uint nrows, __global const uint *rowptr, __global uint *erow)\n"
    "{\n"
    "    uint r = get_global_id(0);\n"
    "    if (r >= nrows)\n"
    "        return;\n"
    "    for (uint e = rowptr[r]; e < rowptr[r + 1]; e++)\n"
    "        erow[e] = r;\n"
    "}\n"
    "\n"
    "/* count[e] = the number of products of entry e = a_ik: the length of row k of B. */\n"
    "__kernel void sp_count(uint nnz, __global const uint *acol, __global const uint *browptr,\n"
    "                       __global uint *count)\n"
    "{\n"
    "    uint e = get_global_id(0);\n"
    "    if (e < nnz)\n"
    "        count[e] = browptr[acol[e] + 1] - browptr[acol[e]];\n"
    "}\n"
    "\n"
    "/* Entry e = a_ik writes its products a_ik * b_kj from position offset[e] on,\n"
    " * keyed by i * ncols + j. */\n"
    "__kernel void sp_expand(uint nnz, KEY_T ncols, __global const uint *erow,\n"
    "                        __global const uint *acol, __global const double *aval,\n"
    "                        __global const uint *browptr, __global const uint *bcol,\n"
    "                        __global const double *bval, __global const uint *offset,\n"
    "                        __global KEY_T *key, __global double *val)\n"
    "{\n"
    "    uint e = get_global_id(0);\n"
    "    if (e >= nnz)\n"
    "        return;\n"
    "    KEY_T row = (KEY_T)erow[e] * ncols;\n"
    "    uint k = acol[e], out = offset[e];\n"
    "    double a = aval[e];\n"
    "    for (uint t = browptr[k]; t < browptr[k + 1]; t++, out++) {\n"
    "        key[out] = row + bcol[t];\n"
    "        val[out] = a * bval[t];\n"
    "    }\n"
    "}\n"
    "\n"
    "/* head[p] = 1 where a run of equal keys starts. */\n"
    "__kernel void sp_heads(uint n, __global const KEY_T *key, __global uint *head)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p < n)\n"
    "        head[p] = p == 0 || key[p - 1] != key[p];\n"
    "}\n"
    "\n"
    "/* The first pair of each run sums the run into entry pos[p] of C. Runs are\n"
    " * short (one pair per k), so a loop is enough. */\n"
    "__kernel void sp_reduce(uint n, __global const KEY_T *key, __global const double *val,\n"
    "                        __global const uint *head, __global const uint *pos,\n"
    "                        __global KEY_T *ckey, __global double *cval)\n"
    "{\n"
    "    uint p = get_global_id(0);\n"
    "    if (p >= n || !head[p])\n"
    "        return;\n"
    "    double sum = val[p];\n"
    "    for (uint q = p + 1; q < n && !head[q]; q++)\n"
    "        sum += val[q];\n"
    "    ckey[pos[p]] = key[p];\n"
    "    cval[pos[p]] = sum;\n"
    "}\n"
    "\n"
    "/* Columns and row pointers of C from its sorted keys. Entry e starts the\n"
    " * rows after the previous entry's row up to its own; the last entry ends\n"
    " * the rest. */\n"
    "__kernel void sp_csr(uint nnz, uint nrows, KEY_T ncols, __global const KEY_T *ckey,\n"
    "                     __global uint *ccol, __global uint *rowptr)\n"
    "{\n"
    "    uint e = get_global_id(0);\n"
    "    if (e >= nnz)\n"
    "        return;\n"
    "    uint r = (uint)(ckey[e] / ncols);\n"
    "    ccol[e] = (uint)(ckey[e] - (KEY_T)r * ncols);\n"
    "    uint from = e == 0 ? 0u : (uint)(ckey[e - 1] / ncols) + 1u;\n"
    "    for (uint q = from; q <= r; q++)\n"
    "        rowptr[q] = e;\n"
    "    if (e == nnz - 1)\n"
    "        for (uint q = r + 1; q <= nrows; q++)\n"
    "            rowptr[q] = nnz;\n"
    "}\n";

typedef struct spgemm_kernels {
    cl_program program;
    cl_kernel entry_rows, count, expand, heads, reduce, csr;
} spgemm_kernels;

struct spgemm_device {
    clsort_context *ctx;
    cl_command_queue queue;
    spgemm_kernels kern[2];  /* [0]: u32 keys, [1]: u64 keys; built on first use */
};

spgemm_device *spgemm_device_create(clsort_context *ctx)
{
    cl_device_id dev = clsort_context_device(ctx);
    cl_device_fp_config fp64 = 0;
    EX_CL(clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL));
    if (fp64 == 0) {
        printf("SKIPPED: the device has no double precision (cl_khr_fp64), which the matrix "
               "values need\n");
        exit(EX_SKIP);
    }
    spgemm_device *d = ex_calloc(1, sizeof *d);
    d->ctx = ctx;
    d->queue = clsort_context_queue(ctx);
    return d;
}

static spgemm_kernels *kernels_for(spgemm_device *d, clsort_type key_type)
{
    spgemm_kernels *k = &d->kern[key_type == CLSORT_U64];
    if (k->program)
        return k;
    const char *options = key_type == CLSORT_U64 ? "-DKEY_T=ulong" : "-DKEY_T=uint";
    k->program = ex_program_build(d->ctx, spgemm_source, options);
    k->entry_rows = ex_kernel_create(k->program, "sp_entry_rows");
    k->count = ex_kernel_create(k->program, "sp_count");
    k->expand = ex_kernel_create(k->program, "sp_expand");
    k->heads = ex_kernel_create(k->program, "sp_heads");
    k->reduce = ex_kernel_create(k->program, "sp_reduce");
    k->csr = ex_kernel_create(k->program, "sp_csr");
    return k;
}

void spgemm_device_release(spgemm_device *d)
{
    if (!d)
        return;
    for (int i = 0; i < 2; i++) {
        spgemm_kernels *k = &d->kern[i];
        if (!k->program)
            continue;
        cl_kernel ks[] = {k->entry_rows, k->count, k->expand, k->heads, k->reduce, k->csr};
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++)
            clReleaseKernel(ks[j]);
        clReleaseProgram(k->program);
    }
    free(d);
}

/* out[i] = in[0] + ... + in[i-1] for i < n: clsort's exclusive scan
 * (enqueued on the context's queue, like the sort). */
static void scan_exclusive(spgemm_device *d, cl_mem in, cl_mem out, cl_uint n)
{
    if (n > 0)
        EX_CLSORT(d->ctx, clsort_scan_buffer(d->ctx, CLSORT_U32, in, 0, out, 0, n, 0, 0, NULL,
                                           NULL));
}

/* Reads element i of a uint buffer. */
static cl_uint read_u32(cl_command_queue q, cl_mem buf, size_t i)
{
    cl_uint v = 0;
    ex_read(q, buf, i * sizeof v, sizeof v, &v);
    return v;
}

static unsigned bits_for(uint64_t range)
{
    unsigned bits = 1;
    while (bits < 64 && (range - 1) >> bits)
        bits++;
    return bits;
}

/* Sorts n pairs reps times, restoring the input from a copy in between;
 * returns the median time of one sort. */
static double timed_sorts(spgemm_device *d, clsort_type key_type, unsigned key_bits, cl_mem key,
                          cl_mem val, size_t n, int reps)
{
    size_t ks = clsort_type_size(key_type);
    cl_mem key_copy = NULL, val_copy = NULL;
    if (reps > 1) {
        key_copy = ex_buffer(d->ctx, CL_MEM_READ_WRITE, n * ks, NULL, "copy of the keys");
        val_copy = ex_buffer(d->ctx, CL_MEM_READ_WRITE, n * sizeof(double), NULL,
                             "copy of the values");
        EX_CL(clEnqueueCopyBuffer(d->queue, key, key_copy, 0, 0, n * ks, 0, NULL, NULL));
        EX_CL(clEnqueueCopyBuffer(d->queue, val, val_copy, 0, 0, n * sizeof(double), 0, NULL,
                                  NULL));
    }
    clsort_options opt;
    memset(&opt, 0, sizeof opt);
    opt.end_bit = key_bits; /* the keys' significant bits only */
    double *t = ex_malloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        if (r > 0) {
            EX_CL(clEnqueueCopyBuffer(d->queue, key_copy, key, 0, 0, n * ks, 0, NULL, NULL));
            EX_CL(clEnqueueCopyBuffer(d->queue, val_copy, val, 0, 0, n * sizeof(double), 0,
                                      NULL, NULL));
        }
        EX_CL(clFinish(d->queue));
        double t0 = ex_now();
        EX_CLSORT(d->ctx, clsort_sort_pairs_buffer(d->ctx, key_type, key, 0, val, 0,
                                                 sizeof(double), n, &opt, 0, NULL, NULL));
        EX_CL(clFinish(d->queue));
        t[r] = ex_now() - t0;
    }
    double median = ex_median(t, (size_t)reps);
    free(t);
    if (key_copy) {
        clReleaseMemObject(key_copy);
        clReleaseMemObject(val_copy);
    }
    return median;
}

void spgemm_multiply(spgemm_device *d, const csr_matrix *a, const csr_matrix *b, int sort_reps,
                     csr_matrix *c, spgemm_stats *st)
{
    cl_command_queue q = d->queue;
    memset(st, 0, sizeof *st);
    memset(c, 0, sizeof *c);
    st->key_range = (uint64_t)a->nrows * b->ncols;
    st->key_type = st->key_range <= ((uint64_t)1 << 32) ? CLSORT_U32 : CLSORT_U64;
    st->key_bits = bits_for(st->key_range);
    st->products = csr_product_count(a, b);
    if (st->products >= UINT32_MAX) {
        fprintf(stderr, "the product has %llu scalar products; this example handles fewer "
                        "than 2^32\n", (unsigned long long)st->products);
        exit(1);
    }
    cl_uint P = (cl_uint)st->products, nnza = a->nnz, nrows = a->nrows;
    size_t ks = clsort_type_size(st->key_type);
    spgemm_kernels *k = kernels_for(d, st->key_type);
    cl_uint ncols32 = b->ncols;
    cl_ulong ncols64 = b->ncols;
    size_t ncols_size = ks;
    const void *ncols_arg = st->key_type == CLSORT_U64 ? (const void *)&ncols64 : &ncols32;

    /* Upload A and B. */
    EX_CL(clFinish(q));
    double t0 = ex_now();
    cl_mem arow = ex_buffer(d->ctx, CL_MEM_READ_ONLY, ((size_t)a->nrows + 1) * 4, NULL, "A rows");
    cl_mem acol = ex_buffer(d->ctx, CL_MEM_READ_ONLY, (size_t)a->nnz * 4, NULL, "A columns");
    cl_mem aval = ex_buffer(d->ctx, CL_MEM_READ_ONLY, (size_t)a->nnz * 8, NULL, "A values");
    cl_mem brow = ex_buffer(d->ctx, CL_MEM_READ_ONLY, ((size_t)b->nrows + 1) * 4, NULL, "B rows");
    cl_mem bcol = ex_buffer(d->ctx, CL_MEM_READ_ONLY, (size_t)b->nnz * 4, NULL, "B columns");
    cl_mem bval = ex_buffer(d->ctx, CL_MEM_READ_ONLY, (size_t)b->nnz * 8, NULL, "B values");
    ex_write(q, arow, 0, ((size_t)a->nrows + 1) * 4, a->rowptr);
    ex_write(q, acol, 0, (size_t)a->nnz * 4, a->col);
    ex_write(q, aval, 0, (size_t)a->nnz * 8, a->val);
    ex_write(q, brow, 0, ((size_t)b->nrows + 1) * 4, b->rowptr);
    ex_write(q, bcol, 0, (size_t)b->nnz * 4, b->col);
    ex_write(q, bval, 0, (size_t)b->nnz * 8, b->val);
    double t1 = ex_now();
    st->t.upload = t1 - t0;

    /* 1. count: products per entry of A, and their exclusive scan. */
    cl_mem erow = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnza * 4, NULL, "A entry rows");
    cl_mem count = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnza * 4, NULL, "product counts");
    cl_mem offset = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnza * 4, NULL,
                              "product offsets");
    ex_args(k->entry_rows, 3, sizeof nrows, &nrows, sizeof(cl_mem), &arow, sizeof(cl_mem), &erow);
    ex_launch(q, k->entry_rows, nrows, 0);
    ex_args(k->count, 4, sizeof nnza, &nnza, sizeof(cl_mem), &acol, sizeof(cl_mem), &brow,
            sizeof(cl_mem), &count);
    ex_launch(q, k->count, nnza, 0);
    scan_exclusive(d, count, offset, nnza);
    EX_CL(clFinish(q));
    double t2 = ex_now();
    st->t.count = t2 - t1;
    if (nnza > 0) {
        cl_uint total = read_u32(q, offset, nnza - 1) + read_u32(q, count, nnza - 1);
        if (total != P) {
            fprintf(stderr, "internal error: the device counts %u products, the host %u\n",
                    total, P);
            exit(1);
        }
    }

    /* 2. expand the products into (key, value) pairs. */
    cl_mem key = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)P * ks, NULL, "product keys");
    cl_mem val = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)P * 8, NULL, "product values");
    EX_CL(clFinish(q));
    double t3 = ex_now();
    ex_args(k->expand, 11, sizeof nnza, &nnza, ncols_size, ncols_arg, sizeof(cl_mem), &erow,
            sizeof(cl_mem), &acol, sizeof(cl_mem), &aval, sizeof(cl_mem), &brow, sizeof(cl_mem),
            &bcol, sizeof(cl_mem), &bval, sizeof(cl_mem), &offset, sizeof(cl_mem), &key,
            sizeof(cl_mem), &val);
    if (P > 0)
        ex_launch(q, k->expand, nnza, 0);
    EX_CL(clFinish(q));
    st->t.expand = ex_now() - t3;

    /* 3. sort the pairs by key. */
    if (P > 0)
        st->t.sort = timed_sorts(d, st->key_type, st->key_bits, key, val, P, sort_reps);

    /* 4. reduce runs of equal keys. */
    EX_CL(clFinish(q));
    double t4 = ex_now();
    cl_mem head = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)P * 4, NULL, "run heads");
    cl_mem pos = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)P * 4, NULL, "run numbers");
    ex_args(k->heads, 3, sizeof P, &P, sizeof(cl_mem), &key, sizeof(cl_mem), &head);
    ex_launch(q, k->heads, P, 0);
    scan_exclusive(d, head, pos, P);
    cl_uint nnzc = P ? read_u32(q, pos, P - 1) + read_u32(q, head, P - 1) : 0;
    cl_mem ckey = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnzc * ks, NULL, "keys of C");
    cl_mem cval = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnzc * 8, NULL, "values of C");
    ex_args(k->reduce, 7, sizeof P, &P, sizeof(cl_mem), &key, sizeof(cl_mem), &val,
            sizeof(cl_mem), &head, sizeof(cl_mem), &pos, sizeof(cl_mem), &ckey, sizeof(cl_mem),
            &cval);
    ex_launch(q, k->reduce, P, 0);
    EX_CL(clFinish(q));
    double t5 = ex_now();
    st->t.reduce = t5 - t4;

    /* 5. CSR: columns and row pointers. */
    cl_mem ccol = ex_buffer(d->ctx, CL_MEM_READ_WRITE, (size_t)nnzc * 4, NULL, "columns of C");
    cl_mem crow = ex_buffer(d->ctx, CL_MEM_READ_WRITE, ((size_t)nrows + 1) * 4, NULL,
                            "row pointers of C");
    if (nnzc == 0)
        ex_zero(q, crow, ((size_t)nrows + 1) * 4);
    ex_args(k->csr, 6, sizeof nnzc, &nnzc, sizeof nrows, &nrows, ncols_size, ncols_arg,
            sizeof(cl_mem), &ckey, sizeof(cl_mem), &ccol, sizeof(cl_mem), &crow);
    ex_launch(q, k->csr, nnzc, 0);
    EX_CL(clFinish(q));
    double t6 = ex_now();
    st->t.csr = t6 - t5;

    /* Read C back. */
    c->nrows = a->nrows;
    c->ncols = b->ncols;
    c->nnz = nnzc;
    c->rowptr = ex_malloc(((size_t)nrows + 1) * sizeof *c->rowptr);
    c->col = ex_malloc((size_t)nnzc * sizeof *c->col);
    c->val = ex_malloc((size_t)nnzc * sizeof *c->val);
    ex_read(q, crow, 0, ((size_t)nrows + 1) * 4, c->rowptr);
    ex_read(q, ccol, 0, (size_t)nnzc * 4, c->col);
    ex_read(q, cval, 0, (size_t)nnzc * 8, c->val);
    st->t.download = ex_now() - t6;

    cl_mem all[] = {arow, acol, aval,  brow, bcol, bval, erow, count, offset, key,
                    val,  head, pos,   ckey, cval, ccol, crow};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clReleaseMemObject(all[i]);
}

/* splitmix64 */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double spgemm_sort_random(spgemm_device *d, clsort_type key_type, unsigned key_bits,
                          uint64_t key_range, size_t n, int reps, uint64_t seed)
{
    if (n == 0)
        return 0.0;
    size_t ks = clsort_type_size(key_type);
    void *keys = ex_malloc(n * ks);
    double *vals = ex_malloc(n * sizeof *vals);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = next_random(&s) % key_range;
        if (key_type == CLSORT_U64)
            ((uint64_t *)keys)[i] = x;
        else
            ((uint32_t *)keys)[i] = (uint32_t)x;
        vals[i] = (double)i;
    }
    cl_mem key = ex_buffer(d->ctx, CL_MEM_READ_WRITE, n * ks, NULL, "random keys");
    cl_mem val = ex_buffer(d->ctx, CL_MEM_READ_WRITE, n * sizeof(double), NULL, "random values");
    ex_write(d->queue, key, 0, n * ks, keys);
    ex_write(d->queue, val, 0, n * sizeof(double), vals);
    double t = timed_sorts(d, key_type, key_bits, key, val, n, reps);
    ex_read(d->queue, key, 0, n * ks, keys);
    for (size_t i = 1; i < n; i++) {
        int bad = key_type == CLSORT_U64 ? ((uint64_t *)keys)[i - 1] > ((uint64_t *)keys)[i]
                                         : ((uint32_t *)keys)[i - 1] > ((uint32_t *)keys)[i];
        if (bad) {
            fprintf(stderr, "the sort of random keys left key %zu out of order\n", i);
            exit(1);
        }
    }
    clReleaseMemObject(key);
    clReleaseMemObject(val);
    free(keys);
    free(vals);
    return t;
}

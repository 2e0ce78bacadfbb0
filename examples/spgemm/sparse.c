/* sparse.c - COO and CSR matrices on the host, the reference CPU product
 * (Gustavson's row-by-row algorithm) and the generated test matrices. */
#include "sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

void coo_init(coo_matrix *m, uint32_t nrows, uint32_t ncols, size_t capacity)
{
    memset(m, 0, sizeof *m);
    m->nrows = nrows;
    m->ncols = ncols;
    m->cap = capacity ? capacity : 16;
    m->row = ex_malloc(m->cap * sizeof *m->row);
    m->col = ex_malloc(m->cap * sizeof *m->col);
    m->val = ex_malloc(m->cap * sizeof *m->val);
}

void coo_push(coo_matrix *m, uint32_t row, uint32_t col, double val)
{
    if (m->nnz == m->cap) {
        size_t cap = 2 * m->cap;
        uint32_t *r = realloc(m->row, cap * sizeof *r);
        if (r)
            m->row = r;
        uint32_t *c = realloc(m->col, cap * sizeof *c);
        if (c)
            m->col = c;
        double *v = realloc(m->val, cap * sizeof *v);
        if (v)
            m->val = v;
        if (!r || !c || !v) {
            fprintf(stderr, "out of host memory for %zu matrix entries\n", cap);
            exit(1);
        }
        m->cap = cap;
    }
    m->row[m->nnz] = row;
    m->col[m->nnz] = col;
    m->val[m->nnz] = val;
    m->nnz++;
}

void coo_free(coo_matrix *m)
{
    free(m->row);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

int csr_from_coo(const coo_matrix *coo, csr_matrix *out, char *err, size_t errsize)
{
    size_t nnz = coo->nnz;
    if (nnz >= UINT32_MAX) {
        snprintf(err, errsize, "%zu entries: this example handles fewer than 2^32", nnz);
        return -1;
    }
    /* Two stable counting sorts, by column and then by row, put the
     * entries in (row, column) order. */
    size_t *order = ex_malloc(nnz * sizeof *order), *tmp = ex_malloc(nnz * sizeof *tmp);
    size_t *count = ex_calloc((size_t)(coo->ncols > coo->nrows ? coo->ncols : coo->nrows) + 1,
                              sizeof *count);
    for (size_t e = 0; e < nnz; e++)
        count[coo->col[e] + 1]++;
    for (uint32_t c = 0; c < coo->ncols; c++)
        count[c + 1] += count[c];
    for (size_t e = 0; e < nnz; e++)
        tmp[count[coo->col[e]]++] = e;
    memset(count, 0, ((size_t)coo->nrows + 1) * sizeof *count);
    for (size_t e = 0; e < nnz; e++)
        count[coo->row[e] + 1]++;
    for (uint32_t r = 0; r < coo->nrows; r++)
        count[r + 1] += count[r];
    for (size_t q = 0; q < nnz; q++)
        order[count[coo->row[tmp[q]]]++] = tmp[q];
    free(tmp);
    free(count);

    out->nrows = coo->nrows;
    out->ncols = coo->ncols;
    out->rowptr = ex_calloc((size_t)coo->nrows + 1, sizeof *out->rowptr);
    out->col = ex_malloc(nnz * sizeof *out->col);
    out->val = ex_malloc(nnz * sizeof *out->val);
    uint32_t k = 0;
    for (size_t q = 0; q < nnz; q++) {
        size_t e = order[q];
        if (k > 0 && coo->row[order[q - 1]] == coo->row[e] && out->col[k - 1] == coo->col[e]) {
            out->val[k - 1] += coo->val[e]; /* a repeated entry: summed */
            continue;
        }
        out->col[k] = coo->col[e];
        out->val[k] = coo->val[e];
        out->rowptr[coo->row[e] + 1]++;
        k++;
    }
    for (uint32_t r = 0; r < coo->nrows; r++)
        out->rowptr[r + 1] += out->rowptr[r];
    out->nnz = k;
    free(order);
    return 0;
}

void csr_free(csr_matrix *m)
{
    free(m->rowptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

void csr_transpose(const csr_matrix *m, csr_matrix *t)
{
    t->nrows = m->ncols;
    t->ncols = m->nrows;
    t->nnz = m->nnz;
    t->rowptr = ex_calloc((size_t)t->nrows + 1, sizeof *t->rowptr);
    t->col = ex_malloc((size_t)m->nnz * sizeof *t->col);
    t->val = ex_malloc((size_t)m->nnz * sizeof *t->val);
    for (uint32_t e = 0; e < m->nnz; e++)
        t->rowptr[m->col[e] + 1]++;
    for (uint32_t r = 0; r < t->nrows; r++)
        t->rowptr[r + 1] += t->rowptr[r];
    uint32_t *next = ex_malloc(((size_t)t->nrows + 1) * sizeof *next);
    memcpy(next, t->rowptr, ((size_t)t->nrows + 1) * sizeof *next);
    /* Rows of m in order, so the columns of each row of t ascend. */
    for (uint32_t r = 0; r < m->nrows; r++)
        for (uint32_t e = m->rowptr[r]; e < m->rowptr[r + 1]; e++) {
            uint32_t q = next[m->col[e]]++;
            t->col[q] = r;
            t->val[q] = m->val[e];
        }
    free(next);
}

uint64_t csr_product_count(const csr_matrix *a, const csr_matrix *b)
{
    uint64_t p = 0;
    for (uint32_t e = 0; e < a->nnz; e++)
        p += b->rowptr[a->col[e] + 1] - b->rowptr[a->col[e]];
    return p;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

int csr_multiply_cpu(const csr_matrix *a, const csr_matrix *b, csr_matrix *c, double **bound)
{
    uint32_t nr = a->nrows, nc = b->ncols;
    /* mark[j] == i + 1: column j already seen in row i. */
    uint32_t *mark = ex_calloc((size_t)nc + 1, sizeof *mark);
    double *acc = ex_calloc((size_t)nc + 1, sizeof *acc), *abs = ex_calloc((size_t)nc + 1, 8);
    /* First pass: the structure's size, row by row. */
    uint32_t *rowptr = ex_calloc((size_t)nr + 1, sizeof *rowptr);
    uint64_t total = 0;
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t len = 0;
        for (uint32_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
            uint32_t k = a->col[e];
            for (uint32_t t = b->rowptr[k]; t < b->rowptr[k + 1]; t++)
                if (mark[b->col[t]] != i + 1) {
                    mark[b->col[t]] = i + 1;
                    len++;
                }
        }
        total += len;
        if (total >= UINT32_MAX) {
            free(mark);
            free(acc);
            free(abs);
            free(rowptr);
            return -1;
        }
        rowptr[i + 1] = (uint32_t)total;
    }
    c->nrows = nr;
    c->ncols = nc;
    c->nnz = (uint32_t)total;
    c->rowptr = rowptr;
    c->col = ex_malloc(total * sizeof *c->col);
    c->val = ex_malloc(total * sizeof *c->val);
    double *bnd = bound ? ex_malloc(total * sizeof *bnd) : NULL;
    /* Second pass: accumulate each row, in the order of k as stored in A. */
    memset(mark, 0, ((size_t)nc + 1) * sizeof *mark);
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t *cols = c->col + rowptr[i], len = 0;
        for (uint32_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
            uint32_t k = a->col[e];
            double aik = a->val[e];
            for (uint32_t t = b->rowptr[k]; t < b->rowptr[k + 1]; t++) {
                uint32_t j = b->col[t];
                double p = aik * b->val[t];
                if (mark[j] != i + 1) {
                    mark[j] = i + 1;
                    cols[len++] = j;
                    acc[j] = p;
                    abs[j] = fabs(p);
                } else {
                    acc[j] += p;
                    abs[j] += fabs(p);
                }
            }
        }
        qsort(cols, len, sizeof *cols, cmp_u32);
        for (uint32_t q = 0; q < len; q++) {
            c->val[rowptr[i] + q] = acc[cols[q]];
            if (bnd)
                bnd[rowptr[i] + q] = abs[cols[q]];
        }
    }
    free(mark);
    free(acc);
    free(abs);
    if (bound)
        *bound = bnd;
    return 0;
}

/* A Laplacian stencil on a grid of dims[0] x dims[1] x dims[2] points:
 * 2 * (number of dimensions) on the diagonal, -1 for each neighbour. */
static void gen_stencil(const uint32_t dims[3], int ndim, csr_matrix *out)
{
    uint64_t n = (uint64_t)dims[0] * dims[1] * dims[2];
    uint64_t stride[3] = {1, dims[0], (uint64_t)dims[0] * dims[1]};
    out->nrows = out->ncols = (uint32_t)n;
    out->rowptr = ex_malloc((n + 1) * sizeof *out->rowptr);
    size_t cap = (size_t)n * (size_t)(2 * ndim + 1);
    out->col = ex_malloc(cap * sizeof *out->col);
    out->val = ex_malloc(cap * sizeof *out->val);
    uint32_t k = 0;
    out->rowptr[0] = 0;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t coord[3] = {r % dims[0], r / dims[0] % dims[1], r / stride[2]};
        /* Neighbours in ascending column order: -z, -y, -x, self, +x, +y, +z. */
        for (int d = ndim - 1; d >= 0; d--)
            if (coord[d] > 0) {
                out->col[k] = (uint32_t)(r - stride[d]);
                out->val[k++] = -1.0;
            }
        out->col[k] = (uint32_t)r;
        out->val[k++] = 2.0 * ndim;
        for (int d = 0; d < ndim; d++)
            if (coord[d] + 1 < dims[d]) {
                out->col[k] = (uint32_t)(r + stride[d]);
                out->val[k++] = -1.0;
            }
        out->rowptr[r + 1] = k;
    }
    out->nnz = k;
}

void gen_poisson2d(uint32_t m, csr_matrix *out)
{
    const uint32_t dims[3] = {m, m, 1};
    gen_stencil(dims, 2, out);
}

void gen_poisson3d(uint32_t m, csr_matrix *out)
{
    const uint32_t dims[3] = {m, m, m};
    gen_stencil(dims, 3, out);
}

/* splitmix64: a small, fixed-seed generator. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double next_unit(uint64_t *s)
{
    return ((double)(next_random(s) >> 11) + 1.0) * 0x1.0p-53;
}

void gen_powerlaw(uint32_t n, double avg, double alpha, uint64_t seed, csr_matrix *out)
{
    /* Pareto lengths x_min u^(-1/(alpha-1)), whose mean is
     * x_min (alpha-1)/(alpha-2) = avg, rounded to the nearest integer. */
    double xmin = avg * (alpha - 2.0) / (alpha - 1.0);
    uint64_t s = seed;
    coo_matrix coo;
    coo_init(&coo, n, n, (size_t)(avg * n * 1.1) + 16);
    for (uint32_t r = 0; r < n; r++) {
        double x = xmin * pow(next_unit(&s), -1.0 / (alpha - 1.0));
        uint32_t len = x >= n ? n : (uint32_t)(x + 0.5);
        for (uint32_t q = 0; q < len; q++) {
            uint32_t c = (uint32_t)(next_random(&s) % n);
            double v = 2.0 * next_unit(&s) - 1.0;
            coo_push(&coo, r, c, v);
        }
    }
    char err[128];
    if (csr_from_coo(&coo, out, err, sizeof err) != 0) {
        fprintf(stderr, "powerlaw generator: %s\n", err);
        exit(1);
    }
    coo_free(&coo);
}

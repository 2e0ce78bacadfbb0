/* sparse.h - host-side sparse matrices for the spgemm example: coordinate
 * (COO) lists as read from files, compressed sparse rows (CSR), transpose,
 * the reference CPU product and the test-matrix generators. */
#ifndef SPGEMM_SPARSE_H
#define SPGEMM_SPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Compressed sparse rows. Entry e of row r (rowptr[r] <= e < rowptr[r+1])
 * is val[e] at column col[e]; columns ascend within a row, without
 * repeats. Row and column indices start at 0. */
typedef struct csr_matrix {
    uint32_t nrows, ncols;
    uint32_t nnz;
    uint32_t *rowptr; /* nrows + 1 */
    uint32_t *col;    /* nnz */
    double *val;      /* nnz */
} csr_matrix;

/* A growing list of (row, col, value) entries, in any order, repeats
 * allowed (they are summed when converted to CSR). */
typedef struct coo_matrix {
    uint32_t nrows, ncols;
    size_t nnz, cap;
    uint32_t *row, *col;
    double *val;
} coo_matrix;

void coo_init(coo_matrix *m, uint32_t nrows, uint32_t ncols, size_t capacity);
void coo_push(coo_matrix *m, uint32_t row, uint32_t col, double val);
void coo_free(coo_matrix *m);

/* CSR from COO: sorts by (row, col) and sums repeated entries. Returns 0,
 * or -1 when the matrix has 2^32 or more entries (message in err). */
int csr_from_coo(const coo_matrix *coo, csr_matrix *out, char *err, size_t errsize);

void csr_free(csr_matrix *m);

/* t = m^T (also in CSR, columns ascending). */
void csr_transpose(const csr_matrix *m, csr_matrix *t);

/* The number of scalar products a_ik * b_kj of A * B (A->ncols == B->nrows). */
uint64_t csr_product_count(const csr_matrix *a, const csr_matrix *b);

/* c = a * b on the CPU, row by row with a dense accumulator (Gustavson),
 * keeping every structurally non-zero entry (also those that cancel to 0).
 * bound (if not NULL) receives, per entry of c, sum_k |a_ik| |b_kj|: the
 * scale against which rounding errors of the entry are judged. Returns 0,
 * or -1 when c would have 2^32 or more entries. */
int csr_multiply_cpu(const csr_matrix *a, const csr_matrix *b, csr_matrix *c, double **bound);

/* The 5-point Laplacian of an m x m grid (4 on the diagonal, -1 for each
 * neighbour): m^2 rows. */
void gen_poisson2d(uint32_t m, csr_matrix *out);
/* The 7-point Laplacian of an m x m x m grid: m^3 rows. */
void gen_poisson3d(uint32_t m, csr_matrix *out);
/* An n x n matrix whose row lengths follow a power law (Pareto with
 * exponent alpha > 2, mean about avg, at most n), with uniformly random
 * columns and values in (-1, 1]. Fixed seed. */
void gen_powerlaw(uint32_t n, double avg, double alpha, uint64_t seed, csr_matrix *out);

#endif

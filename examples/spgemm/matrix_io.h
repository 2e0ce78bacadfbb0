/* matrix_io.h - readers for sparse matrix files:
 *   Matrix Market (.mtx): "coordinate" format; fields real, integer or
 *     pattern (pattern entries read as 1); symmetry general, symmetric or
 *     skew-symmetric (the stored triangle is mirrored). Repeated entries
 *     are summed.
 *   Harwell-Boeing (.rua, .rsa, .rza, .pua, .psa, ...): assembled real or
 *     pattern matrices, unsymmetric, rectangular, symmetric or
 *     skew-symmetric, with the Fortran fixed-width formats of the header.
 * A file whose first line starts with %%MatrixMarket, or named .mtx/.mm,
 * is read as Matrix Market; any other as Harwell-Boeing. When built with
 * zlib, gzip-compressed files (e.g. big.rua.gz) are read too.
 * Complex and Hermitian matrices, dense ("array") Matrix Market files and
 * elemental Harwell-Boeing files are refused with a message. */
#ifndef SPGEMM_MATRIX_IO_H
#define SPGEMM_MATRIX_IO_H

#include <stddef.h>

#include "sparse.h"

typedef struct matrix_info {
    char format[32];   /* "Matrix Market" or "Harwell-Boeing RUA" */
    char kind[64];     /* "real symmetric", "pattern general", ... */
    size_t stored;     /* entries stored in the file */
} matrix_info;

enum { MATRIX_OK = 0, MATRIX_NOT_FOUND = 1, MATRIX_BAD = 2 };

/* Reads the matrix in path into out (CSR). Returns MATRIX_OK;
 * MATRIX_NOT_FOUND when the file does not exist; MATRIX_BAD for any other
 * failure. On failure err holds "path:line: what is wrong" and out is
 * empty. */
int matrix_read(const char *path, csr_matrix *out, matrix_info *info, char *err, size_t errsize);

#endif

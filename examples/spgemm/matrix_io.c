/* matrix_io.c - Matrix Market and Harwell-Boeing readers (see matrix_io.h).
 * Every error names the file and the line it was found on. */
#define _POSIX_C_SOURCE 200809L
#include "matrix_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef SPGEMM_HAVE_ZLIB
#include <zlib.h>
#endif

#include "example_util.h"

/* ------------------------------------------------------- a line reader */

typedef struct reader {
    const char *path;
#ifdef SPGEMM_HAVE_ZLIB
    gzFile gz; /* gzopen reads plain files as they are */
#else
    FILE *f;
#endif
    char *buf; /* the current line, without its end-of-line characters */
    size_t cap, len;
    unsigned long line; /* its number, from 1 */
    char *err;
    size_t errsize;
} reader;

/* Formats "path:line: message" into the error buffer; returns MATRIX_BAD. */
static int fail_at(reader *r, unsigned long line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(r->err, r->errsize, "%s:%lu: %s", r->path, line, msg);
    else
        snprintf(r->err, r->errsize, "%s: %s", r->path, msg);
    return MATRIX_BAD;
}

#define fail(r, ...) fail_at((r), (r)->line, __VA_ARGS__)

static int reader_open(reader *r, const char *path, char *err, size_t errsize)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->errsize = errsize;
    r->cap = 256;
    r->buf = ex_malloc(r->cap);
    errno = 0;
#ifdef SPGEMM_HAVE_ZLIB
    r->gz = gzopen(path, "rb");
    int ok = r->gz != NULL;
#else
    r->f = fopen(path, "rb");
    int ok = r->f != NULL;
#endif
    if (!ok) {
        int e = errno;
        free(r->buf);
        r->buf = NULL;
        snprintf(err, errsize, "%s: cannot open: %s", path, e ? strerror(e) : "out of memory");
        return e == ENOENT ? MATRIX_NOT_FOUND : MATRIX_BAD;
    }
    return MATRIX_OK;
}

static void reader_close(reader *r)
{
#ifdef SPGEMM_HAVE_ZLIB
    if (r->gz)
        gzclose(r->gz);
#else
    if (r->f)
        fclose(r->f);
#endif
    free(r->buf);
    r->buf = NULL;
}

/* Reads the next line into r->buf. Returns 1, 0 at the end of the file, or
 * -1 on a read error (with the message set). */
static int reader_next(reader *r)
{
    r->len = 0;
    r->buf[0] = '\0';
    for (;;) {
        if (r->cap - r->len < 2) {
            char *b = realloc(r->buf, 2 * r->cap);
            if (!b) {
                fail_at(r, r->line + 1, "line too long for the memory available");
                return -1;
            }
            r->buf = b;
            r->cap *= 2;
        }
#ifdef SPGEMM_HAVE_ZLIB
        char *got = gzgets(r->gz, r->buf + r->len, (int)(r->cap - r->len));
        int failed = 0;
        if (!got) {
            int code = 0;
            gzerror(r->gz, &code);
            failed = code != Z_OK && code != Z_BUF_ERROR;
        }
#else
        char *got = fgets(r->buf + r->len, (int)(r->cap - r->len), r->f);
        int failed = !got && ferror(r->f);
#endif
        if (failed) {
            fail_at(r, r->line + 1, "read error");
            return -1;
        }
        if (!got) {
            if (r->len == 0)
                return 0; /* end of file */
            break;        /* a last line without a newline */
        }
        r->len += strlen(r->buf + r->len);
        if (r->len > 0 && r->buf[r->len - 1] == '\n')
            break;
    }
    while (r->len > 0 && (r->buf[r->len - 1] == '\n' || r->buf[r->len - 1] == '\r'))
        r->buf[--r->len] = '\0';
    r->line++;
    return 1;
}

/* Splits s at white space into at most max tokens; returns how many tokens
 * the line has (which may exceed max). */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    char *p = s;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *start = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (n < max)
            tok[n] = start;
        n++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static int is_blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* A non-negative decimal integer, the whole token. */
static int parse_u64(const char *s, unsigned long long *v)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end = NULL;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

/* ----------------------------------------------------- Matrix Market */

static int read_matrix_market(reader *r, coo_matrix *coo, matrix_info *info)
{
    char *tok[6];
    int nt = split(r->buf, tok, 6);
    if (nt != 5 || strcmp(tok[0], "%%MatrixMarket") != 0)
        return fail(r, "bad Matrix Market header: expected \"%%%%MatrixMarket matrix "
                       "coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>\"");
    if (strcasecmp(tok[1], "matrix") != 0)
        return fail(r, "object '%s' is not supported (only 'matrix')", tok[1]);
    if (strcasecmp(tok[2], "array") == 0)
        return fail(r, "dense 'array' files are not supported, only 'coordinate'");
    if (strcasecmp(tok[2], "coordinate") != 0)
        return fail(r, "unknown format '%s' (expected 'coordinate')", tok[2]);
    int pattern = 0, integer = 0;
    if (strcasecmp(tok[3], "pattern") == 0)
        pattern = 1;
    else if (strcasecmp(tok[3], "integer") == 0)
        integer = 1;
    else if (strcasecmp(tok[3], "complex") == 0)
        return fail(r, "complex matrices are not supported (real, integer or pattern only)");
    else if (strcasecmp(tok[3], "real") != 0 && strcasecmp(tok[3], "double") != 0)
        return fail(r, "unknown field '%s' (expected real, integer or pattern)", tok[3]);
    int sym = 0, skew = 0;
    if (strcasecmp(tok[4], "symmetric") == 0)
        sym = 1;
    else if (strcasecmp(tok[4], "skew-symmetric") == 0)
        skew = 1;
    else if (strcasecmp(tok[4], "hermitian") == 0)
        return fail(r, "hermitian matrices are not supported");
    else if (strcasecmp(tok[4], "general") != 0)
        return fail(r, "unknown symmetry '%s' (expected general, symmetric or "
                       "skew-symmetric)", tok[4]);
    snprintf(info->format, sizeof info->format, "Matrix Market");
    snprintf(info->kind, sizeof info->kind, "%s %s",
             pattern ? "pattern" : integer ? "integer" : "real",
             sym ? "symmetric" : skew ? "skew-symmetric" : "general");

    /* The size line, after the comments. */
    int rc;
    while ((rc = reader_next(r)) == 1 && (r->buf[0] == '%' || is_blank(r->buf)))
        ;
    if (rc < 0)
        return MATRIX_BAD;
    if (rc == 0)
        return fail(r, "the file ends before the size line (rows columns entries)");
    nt = split(r->buf, tok, 4);
    unsigned long long rows, cols, nnz;
    if (nt != 3)
        return fail(r, "the size line must hold 3 numbers (rows columns entries), not %d fields",
                     nt);
    if (parse_u64(tok[0], &rows) || parse_u64(tok[1], &cols) || parse_u64(tok[2], &nnz))
        return fail(r, "the size line must hold 3 non-negative integers (rows columns entries)");
    if (rows < 1 || cols < 1 || rows >= UINT32_MAX || cols >= UINT32_MAX)
        return fail(r, "matrix size %llu x %llu: rows and columns must be 1 .. %u", rows, cols,
                    UINT32_MAX - 1);
    if ((sym || skew) && rows != cols)
        return fail(r, "a %s matrix must be square, not %llu x %llu",
                    sym ? "symmetric" : "skew-symmetric", rows, cols);
    if (nnz / cols > rows)
        return fail(r, "%llu entries declared, more than the %llu x %llu positions", nnz, rows,
                    cols);
    unsigned long size_line = r->line;
    info->stored = (size_t)nnz;
    coo_init(coo, (uint32_t)rows, (uint32_t)cols,
             (size_t)(nnz < (1u << 24) ? nnz : (1u << 24)) * (sym || skew ? 2 : 1));

    size_t k = 0;
    while ((rc = reader_next(r)) == 1) {
        if (r->buf[0] == '%' || is_blank(r->buf))
            continue;
        if (k == nnz)
            return fail(r, "more entries than the %llu declared on line %lu", nnz, size_line);
        int want = pattern ? 2 : 3;
        nt = split(r->buf, tok, 4);
        if (nt != want)
            return fail(r, "expected %d fields (row column%s), found %d", want,
                        pattern ? "" : " value", nt);
        unsigned long long i, j;
        if (parse_u64(tok[0], &i))
            return fail(r, "row index '%s' is not a positive integer", tok[0]);
        if (parse_u64(tok[1], &j))
            return fail(r, "column index '%s' is not a positive integer", tok[1]);
        if (i < 1 || i > rows)
            return fail(r, "row index %llu out of range 1..%llu", i, rows);
        if (j < 1 || j > cols)
            return fail(r, "column index %llu out of range 1..%llu", j, cols);
        double v = 1.0;
        if (integer) {
            char *end = NULL;
            errno = 0;
            long long iv = strtoll(tok[2], &end, 10);
            if (errno || end == tok[2] || *end)
                return fail(r, "value '%s' is not an integer", tok[2]);
            v = (double)iv;
        } else if (!pattern) {
            char *end = NULL;
            v = strtod(tok[2], &end);
            if (end == tok[2] || *end)
                return fail(r, "value '%s' is not a number", tok[2]);
            if (!isfinite(v))
                return fail(r, "value '%s' is not finite", tok[2]);
        }
        if (sym && i < j)
            return fail(r, "entry (%llu, %llu) lies above the diagonal; a symmetric file "
                           "stores only the lower triangle", i, j);
        if (skew && i <= j)
            return fail(r, "entry (%llu, %llu) is not below the diagonal; a skew-symmetric "
                           "file stores only the strict lower triangle", i, j);
        coo_push(coo, (uint32_t)(i - 1), (uint32_t)(j - 1), v);
        if ((sym || skew) && i != j)
            coo_push(coo, (uint32_t)(j - 1), (uint32_t)(i - 1), skew ? -v : v);
        k++;
    }
    if (rc < 0)
        return MATRIX_BAD;
    if (k < nnz)
        return fail(r, "the file ends after %zu of the %llu entries declared on line %lu", k,
                    nnz, size_line);
    return MATRIX_OK;
}

/* ---------------------------------------------------- Harwell-Boeing */

/* One Fortran edit descriptor, as used by Harwell-Boeing headers:
 * "(13I6)", "(16I5)", "(3E26.18)", "(1P,5D16.8)", "(4(1P,E20.12))". */
typedef struct fortran_format {
    unsigned count; /* fields per line */
    unsigned width; /* characters per field */
    char kind;      /* 'I' integer, else a real (E, D, F, G) */
    char text[24];
} fortran_format;

static int parse_fortran_format(const char *s, fortran_format *f)
{
    memset(f, 0, sizeof *f);
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    while (len && isspace((unsigned char)*s))
        s++, len--;
    snprintf(f->text, sizeof f->text, "%.*s", (int)len, s);
    unsigned long count = 1, num = 0;
    int have_num = 0;
    for (size_t i = 0; i < len; i++) {
        char c = (char)toupper((unsigned char)s[i]);
        if (isdigit((unsigned char)c)) {
            num = num * 10 + (unsigned long)(c - '0');
            have_num = 1;
            if (num > 100000)
                return -1;
        } else if (c == '(') {
            if (have_num)
                count *= num; /* a repeated group: 4(1P,E20.12) */
            have_num = 0, num = 0;
        } else if (c == 'P') {
            have_num = 0, num = 0; /* a scale factor: no effect on the layout */
        } else if (c == 'I' || c == 'E' || c == 'D' || c == 'F' || c == 'G') {
            if (have_num)
                count *= num;
            unsigned long w = 0;
            for (i++; i < len && isdigit((unsigned char)s[i]); i++)
                w = w * 10 + (unsigned long)(s[i] - '0');
            if (w == 0 || w > 1000 || count == 0 || count > 10000)
                return -1;
            f->count = (unsigned)count;
            f->width = (unsigned)w;
            f->kind = c == 'I' ? 'I' : 'R';
            return 0;
        } else if (c == ',' || c == ' ' || c == ')') {
            have_num = 0, num = 0;
        } else {
            return -1;
        }
    }
    return -1;
}

/* A Fortran real field: exponent letters D or E, or none ("1.5-03"). */
static int parse_fortran_real(const char *field, size_t len, double *v)
{
    char tmp[128];
    size_t n = 0;
    for (size_t i = 0; i < len && n + 2 < sizeof tmp; i++) {
        char c = field[i];
        if (c == ' ')
            continue;
        if (c == 'D' || c == 'd')
            c = 'E';
        /* A sign after a digit or point starts an exponent without a letter. */
        if ((c == '+' || c == '-') && n > 0 &&
            (isdigit((unsigned char)tmp[n - 1]) || tmp[n - 1] == '.'))
            tmp[n++] = 'E';
        tmp[n++] = c;
    }
    tmp[n] = '\0';
    if (n == 0)
        return -1;
    char *end = NULL;
    *v = strtod(tmp, &end);
    return *end || !isfinite(*v) ? -1 : 0;
}

static int parse_fortran_int(const char *field, size_t len, long long *v)
{
    size_t i = 0;
    while (i < len && field[i] == ' ')
        i++;
    int neg = 0;
    if (i < len && (field[i] == '-' || field[i] == '+'))
        neg = field[i++] == '-';
    if (i >= len || !isdigit((unsigned char)field[i]))
        return -1;
    long long x = 0;
    for (; i < len && isdigit((unsigned char)field[i]); i++) {
        x = x * 10 + (field[i] - '0');
        if (x > (1ll << 40))
            return -1;
    }
    while (i < len && field[i] == ' ')
        i++;
    if (i != len)
        return -1;
    *v = neg ? -x : x;
    return 0;
}

/* Reads count numbers laid out in format f, starting on the next line.
 * Integers go to ints (each in lo..hi, and non-decreasing if monotone),
 * reals to reals. first_line receives the line the section starts on. */
static int read_section(reader *r, const fortran_format *f, size_t count, const char *what,
                        uint32_t *ints, long long lo, long long hi, int monotone, double *reals,
                        unsigned long *first_line)
{
    size_t got = 0;
    long long prev = lo;
    *first_line = r->line + 1;
    if ((ints && f->kind != 'I') || (reals && f->kind == 'I')) {
        fail_at(r, 4, "the format %s of the %s does not read %s", f->text, what,
                ints ? "integers" : "reals");
        return MATRIX_BAD;
    }
    while (got < count) {
        int rc = reader_next(r);
        if (rc < 0)
            return MATRIX_BAD;
        if (rc == 0)
            return fail(r, "the file ends in the %s after %zu of %zu values", what, got, count);
        for (unsigned q = 0; q < f->count && got < count; q++) {
            size_t start = (size_t)q * f->width;
            if (start >= r->len)
                break;
            size_t len = r->len - start < f->width ? r->len - start : f->width;
            const char *field = r->buf + start;
            int blank = 1;
            for (size_t i = 0; i < len; i++)
                blank &= field[i] == ' ';
            if (blank)
                break;
            if (ints) {
                long long v;
                if (parse_fortran_int(field, len, &v))
                    return fail(r, "%s: bad integer '%.*s' (format %s)", what, (int)len, field,
                                f->text);
                if (v < lo || v > hi)
                    return fail(r, "%s: %lld out of range %lld..%lld", what, v, lo, hi);
                if (monotone && v < prev)
                    return fail(r, "%s: %lld is less than the %lld before it", what, v, prev);
                prev = v;
                ints[got++] = (uint32_t)v;
            } else {
                double v;
                if (parse_fortran_real(field, len, &v))
                    return fail(r, "%s: bad number '%.*s' (format %s)", what, (int)len, field,
                                f->text);
                reals[got++] = v;
            }
        }
    }
    return MATRIX_OK;
}

/* Parses the format in the fixed columns [from, from + width) of the
 * fourth header line, or else the index-th blank-separated word. */
static int header_format(const char *line, size_t len, size_t from, size_t width, int index,
                         fortran_format *f)
{
    char field[96] = "";
    if (from < len)
        snprintf(field, sizeof field, "%.*s", (int)(len - from < width ? len - from : width),
                 line + from);
    if (parse_fortran_format(field, f) == 0)
        return 0;
    char copy[512], *tok[8];
    snprintf(copy, sizeof copy, "%s", line);
    int nt = split(copy, tok, 8);
    if (index < nt && index < 8)
        return parse_fortran_format(tok[index], f);
    return -1;
}

static int read_harwell_boeing(reader *r, coo_matrix *coo, matrix_info *info)
{
    /* Line 1 (title and key) is in r->buf already. */
    char *tok[8];
    unsigned long long cards[5] = {0, 0, 0, 0, 0};
    int rc = reader_next(r);
    if (rc < 0)
        return MATRIX_BAD;
    int nt = rc ? split(r->buf, tok, 8) : 0;
    if (rc == 0 || nt < 4 || nt > 5)
        return fail_at(r, 2, "not a Harwell-Boeing header: expected the card counts TOTCRD "
                             "PTRCRD INDCRD VALCRD [RHSCRD] (a Matrix Market file must start "
                             "with %%%%MatrixMarket)");
    for (int i = 0; i < nt; i++)
        if (parse_u64(tok[i], &cards[i]))
            return fail(r, "card count '%s' is not a non-negative integer", tok[i]);

    rc = reader_next(r);
    if (rc < 0)
        return MATRIX_BAD;
    nt = rc ? split(r->buf, tok, 8) : 0;
    if (rc == 0 || nt < 4 || strlen(tok[0]) != 3)
        return fail_at(r, 3, "expected the matrix type (3 letters, e.g. RUA) followed by NROW "
                             "NCOL NNZERO");
    char type[4];
    for (int i = 0; i < 3; i++)
        type[i] = (char)toupper((unsigned char)tok[0][i]);
    type[3] = '\0';
    unsigned long long nrow, ncol, nnz;
    if (parse_u64(tok[1], &nrow) || parse_u64(tok[2], &ncol) || parse_u64(tok[3], &nnz))
        return fail(r, "NROW NCOL NNZERO must be non-negative integers");
    if (type[0] == 'C')
        return fail(r, "complex matrices (type %s) are not supported", type);
    if (type[0] != 'R' && type[0] != 'P' && type[0] != 'I')
        return fail(r, "unknown value type '%c' in matrix type %s (expected R or P)", type[0],
                    type);
    if (type[1] == 'H')
        return fail(r, "hermitian matrices (type %s) are not supported", type);
    if (type[1] != 'U' && type[1] != 'R' && type[1] != 'S' && type[1] != 'Z')
        return fail(r, "unknown structure '%c' in matrix type %s (expected U, R, S or Z)",
                    type[1], type);
    if (type[2] == 'E')
        return fail(r, "elemental (unassembled) matrices (type %s) are not supported", type);
    if (type[2] != 'A')
        return fail(r, "unknown storage '%c' in matrix type %s (expected A)", type[2], type);
    int sym = type[1] == 'S', skew = type[1] == 'Z', pattern = type[0] == 'P';
    if (nrow < 1 || ncol < 1 || nrow >= UINT32_MAX || ncol >= UINT32_MAX)
        return fail(r, "matrix size %llu x %llu: rows and columns must be 1 .. %u", nrow, ncol,
                    UINT32_MAX - 1);
    if ((sym || skew) && nrow != ncol)
        return fail(r, "a symmetric matrix (type %s) must be square, not %llu x %llu", type,
                    nrow, ncol);
    if (nnz / ncol > nrow || nnz >= UINT32_MAX - 1)
        return fail(r, "NNZERO %llu does not fit a %llu x %llu matrix", nnz, nrow, ncol);

    rc = reader_next(r);
    if (rc < 0)
        return MATRIX_BAD;
    fortran_format fp, fi, fv;
    if (rc == 0)
        return fail_at(r, 4, "the file ends before the format line");
    if (header_format(r->buf, r->len, 0, 16, 0, &fp))
        return fail(r, "bad Fortran format for the column pointers");
    if (header_format(r->buf, r->len, 16, 16, 1, &fi))
        return fail(r, "bad Fortran format for the row indices");
    if (!pattern && header_format(r->buf, r->len, 32, 20, 2, &fv))
        return fail(r, "bad Fortran format for the values");
    if (cards[4] > 0) { /* right-hand sides follow the matrix: their header is skipped */
        rc = reader_next(r);
        if (rc <= 0)
            return rc < 0 ? MATRIX_BAD : fail(r, "the file ends before the right-hand side line");
    }

    snprintf(info->format, sizeof info->format, "Harwell-Boeing %s", type);
    snprintf(info->kind, sizeof info->kind, "%s %s", pattern ? "pattern" : "real",
             sym ? "symmetric" : skew ? "skew-symmetric" : type[1] == 'R' ? "rectangular"
                                                                         : "unsymmetric");
    info->stored = (size_t)nnz;

    uint32_t *ptr = ex_malloc(((size_t)ncol + 1) * sizeof *ptr);
    uint32_t *ind = ex_malloc(((size_t)nnz + 1) * sizeof *ind);
    double *val = pattern ? NULL : ex_malloc(((size_t)nnz + 1) * sizeof *val);
    unsigned long ptr_line, ind_line, val_line;
    int status = read_section(r, &fp, (size_t)ncol + 1, "column pointers", ptr, 1,
                              (long long)nnz + 1, 1, NULL, &ptr_line);
    if (status == MATRIX_OK && ptr[0] != 1)
        status = fail_at(r, ptr_line, "the first column pointer is %u, not 1", ptr[0]);
    if (status == MATRIX_OK && ptr[ncol] != nnz + 1)
        status = fail(r, "the last column pointer is %u, not NNZERO + 1 = %llu", ptr[ncol],
                      nnz + 1);
    if (status == MATRIX_OK)
        status = read_section(r, &fi, (size_t)nnz, "row indices", ind, 1, (long long)nrow, 0,
                              NULL, &ind_line);
    if (status == MATRIX_OK && !pattern)
        status = read_section(r, &fv, (size_t)nnz, "values", NULL, 0, 0, 0, val, &val_line);
    if (status == MATRIX_OK) {
        coo_init(coo, (uint32_t)nrow, (uint32_t)ncol, (size_t)nnz * (sym || skew ? 2 : 1));
        for (uint32_t j = 0; j < ncol && status == MATRIX_OK; j++)
            for (uint32_t e = ptr[j] - 1; e < ptr[j + 1] - 1; e++) {
                uint32_t i = ind[e] - 1;
                double v = pattern ? 1.0 : val[e];
                if ((sym && i < j) || (skew && i <= j)) {
                    status = fail_at(r, 0, "entry (%u, %u) (row indices from line %lu) is "
                                           "%s the diagonal; a %s file stores only the "
                                           "%slower triangle",
                                     i + 1, j + 1, ind_line, sym ? "above" : "on or above",
                                     sym ? "symmetric" : "skew-symmetric", sym ? "" : "strict ");
                    break;
                }
                coo_push(coo, i, j, v);
                if ((sym || skew) && i != j)
                    coo_push(coo, j, i, skew ? -v : v);
            }
    }
    free(ptr);
    free(ind);
    free(val);
    return status;
}

/* --------------------------------------------------------------- entry */

/* The file name without a .gz suffix ends in ext (case-insensitive). */
static int has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    if (n > 3 && strcasecmp(path + n - 3, ".gz") == 0)
        n -= 3;
    return n > e && strncasecmp(path + n - e, ext, e) == 0;
}

int matrix_read(const char *path, csr_matrix *out, matrix_info *info, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    reader r;
    int status = reader_open(&r, path, err, errsize);
    if (status != MATRIX_OK)
        return status;
    coo_matrix coo;
    memset(&coo, 0, sizeof coo);
    int rc = reader_next(&r);
    if (rc < 0) {
        status = MATRIX_BAD;
    } else if (rc == 0) {
        status = fail_at(&r, 0, "the file is empty");
    } else if (strncmp(r.buf, "%%MatrixMarket", 14) == 0 || has_extension(path, ".mtx") ||
               has_extension(path, ".mm")) {
        status = read_matrix_market(&r, &coo, info);
    } else {
        status = read_harwell_boeing(&r, &coo, info);
    }
    reader_close(&r);
    if (status == MATRIX_OK && csr_from_coo(&coo, out, err, errsize) != 0)
        status = MATRIX_BAD;
    coo_free(&coo);
    return status;
}

/* spgemm.c - sparse matrix products on an OpenCL device by expand, sort and
 * compress, with clsort sorting the products (Polok, Ila and Smrz 2014,
 * "Fast radix sort for sparse linear algebra on GPU", section 5).
 *
 * For each matrix A (a Matrix Market or Harwell-Boeing file, or a generated
 * Poisson stencil or power-law matrix) it forms C = A * A, or A * A^T as in
 * the paper, or A * B with B from another file: every product a_ik * b_kj
 * becomes a pair (key i * ncols + j, value), the pairs are sorted by key
 * with clsort_sort_pairs_buffer, and runs of equal keys are summed into the
 * entries of C, built as CSR on the device (spgemm_device.c).
 *
 * It reports the time of each phase and the sort's share, and the sort's
 * rate on these keys against uniformly random keys of the same count, type
 * and bit width (the comparison of the paper's Figure 5). It checks C
 * against a plain CPU product: the same structure exactly, and every value
 * within 1e-12 of sum_k |a_ik b_kj| (the relative error, when nothing
 * cancels). It exits 1 if any product differs.
 *
 * usage: spgemm [options] [FILE ...]      (spgemm --help lists them)
 */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"
#include "matrix_io.h"
#include "sparse.h"
#include "spgemm_device.h"

/* Values of C may differ from the CPU's by rounding only: the device sums
 * each entry in the same order of k, but a compiler may fuse operations. */
#define TOLERANCE 1e-12

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spgemm [options] [FILE ...]\n"
            "Sparse matrix products C = A * A (or A * A^T, A * B) on an OpenCL device by\n"
            "expand, sort (clsort) and compress; checked against a CPU product.\n"
            "  FILE               a Matrix Market (.mtx) or Harwell-Boeing (.rua, .rsa, ...)\n"
            "                     file, one product (or two with --op both) per file\n"
            "  --gen SPEC         a generated A instead (repeatable):\n"
            "                       poisson2d:M            5-point Laplacian, M x M grid\n"
            "                       poisson3d:M            7-point Laplacian, M x M x M grid\n"
            "                       powerlaw:N:AVG[:ALPHA] N x N, power-law row lengths of\n"
            "                                              mean AVG (exponent ALPHA > 2,\n"
            "                                              default 2.5), random columns\n"
            "  --op aa|aat|both   C = A * B (default), A * B^T, or both (both skips A * B\n"
            "                     when the inner dimensions differ)\n"
            "  --b FILE           B (default: B = A)\n"
            "  --device D         OpenCL device: gpu, cpu, P:D or part of its name\n"
            "  --reps R           time the sort R times per product, report the median\n"
            "                     (default 3)\n"
            "  --no-check         skip the CPU product\n"
            "  --no-random        skip the sort of random keys for comparison\n"
            "  --skip-missing PKG a FILE that does not exist makes the program exit 77\n"
            "                     (a skipped test), naming the Debian package PKG\n"
            "  --same-as FILE     first check that every A equals the matrix in FILE (same\n"
            "                     structure, values within 1e-7 relative: the formats may\n"
            "                     print fewer digits); tests the readers\n"
            "sizes for products of tens of millions of pairs: poisson2d:1000 (25M),\n"
            "poisson3d:100 (48M), powerlaw:1000000:5 (about 26M)\n");
}

typedef struct input {
    char name[256];
    csr_matrix a;
    matrix_info info;
} input;

typedef struct summary_row {
    char matrix[40], op[16];
    uint64_t pairs, nnzc;
    clsort_type key_type;
    unsigned bits;
    double sort_ms, total_ms, rate, random_rate;
} summary_row;

/* Generates the matrix named by spec; returns -1 if the spec is malformed. */
static int generate(const char *spec, input *in)
{
    unsigned long long m = 0, n = 0;
    double avg = 0, alpha = 2.5;
    char extra;
    memset(in, 0, sizeof *in);
    snprintf(in->name, sizeof in->name, "%s", spec);
    snprintf(in->info.format, sizeof in->info.format, "generated");
    if (sscanf(spec, "poisson2d:%llu%c", &m, &extra) == 1) {
        if (m < 1 || m > 65535)
            return -1;
        gen_poisson2d((uint32_t)m, &in->a);
        snprintf(in->info.kind, sizeof in->info.kind, "5-point Laplacian, %llu x %llu grid", m,
                 m);
    } else if (sscanf(spec, "poisson3d:%llu%c", &m, &extra) == 1) {
        if (m < 1 || m > 1625)
            return -1;
        gen_poisson3d((uint32_t)m, &in->a);
        snprintf(in->info.kind, sizeof in->info.kind, "7-point Laplacian, %llu^3 grid", m);
    } else {
        int got = sscanf(spec, "powerlaw:%llu:%lf:%lf%c", &n, &avg, &alpha, &extra);
        if ((got != 2 && got != 3) || n < 1 || n >= UINT32_MAX || !(avg > 0) ||
            avg > (double)n || !(alpha > 2.0) || alpha > 100)
            return -1;
        gen_powerlaw((uint32_t)n, avg, alpha, 20140101u, &in->a);
        snprintf(in->info.kind, sizeof in->info.kind, "power-law rows, mean %.4g, alpha %.4g",
                 avg, alpha);
    }
    in->info.stored = in->a.nnz;
    return 0;
}

/* Reads a file; on failure prints the reader's message and exits (77 for a
 * missing file when skip_pkg names the package that provides it). */
static void load(const char *path, const char *skip_pkg, input *in)
{
    char err[1024];
    memset(in, 0, sizeof *in);
    const char *base = strrchr(path, '/');
    snprintf(in->name, sizeof in->name, "%s", base ? base + 1 : path);
    int rc = matrix_read(path, &in->a, &in->info, err, sizeof err);
    if (rc == MATRIX_NOT_FOUND && skip_pkg) {
        printf("SKIPPED: %s not found; it comes with the Debian package %s "
               "(apt-get install %s)\n", path, skip_pkg, skip_pkg);
        exit(EX_SKIP);
    }
    if (rc != MATRIX_OK) {
        fprintf(stderr, "spgemm: %s\n", err);
        exit(1);
    }
}

/* Whether two matrices have the same structure and values within 1e-7
 * relative (for --same-as); returns 0 when they do. */
static int same_matrix(const csr_matrix *a, const csr_matrix *b, char *msg, size_t size)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) {
        snprintf(msg, size, "%u x %u with %u nonzeros against %u x %u with %u", a->nrows,
                 a->ncols, a->nnz, b->nrows, b->ncols, b->nnz);
        return -1;
    }
    for (uint32_t r = 0; r < a->nrows; r++)
        if (a->rowptr[r + 1] != b->rowptr[r + 1]) {
            snprintf(msg, size, "row %u has %u nonzeros against %u", r + 1,
                     a->rowptr[r + 1] - a->rowptr[r], b->rowptr[r + 1] - b->rowptr[r]);
            return -1;
        }
    for (uint32_t r = 0; r < a->nrows; r++)
        for (uint32_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
            if (a->col[e] != b->col[e]) {
                snprintf(msg, size, "row %u: column %u against %u", r + 1, a->col[e] + 1,
                         b->col[e] + 1);
                return -1;
            }
            if (!(fabs(a->val[e] - b->val[e]) <= 1e-7 * fabs(b->val[e]))) {
                snprintf(msg, size, "entry (%u, %u) is %.17g against %.17g", r + 1,
                         a->col[e] + 1, a->val[e], b->val[e]);
                return -1;
            }
        }
    return 0;
}

/* One small untimed product with u32 (or u64) keys: the first launch of a
 * kernel may include its compilation, which the timings should not show. */
static void warm_up(spgemm_device *dev, int u64)
{
    uint32_t n = u64 ? 65537 : 256; /* 65537^2 > 2^32: u64 keys */
    coo_matrix coo;
    csr_matrix a, c;
    spgemm_stats st;
    char err[128];
    /* 256 rows of 16 entries: 65536 products, enough for every kernel
     * (two-level scans included) to run. */
    coo_init(&coo, n, n, 4096);
    for (uint32_t i = 0; i < 256; i++)
        for (uint32_t q = 0; q < 16; q++)
            coo_push(&coo, i, (i + 17 * q) % 256, 1.0 + q);
    if (csr_from_coo(&coo, &a, err, sizeof err) != 0) {
        fprintf(stderr, "spgemm: %s\n", err);
        exit(1);
    }
    spgemm_multiply(dev, &a, &a, 1, &c, &st);
    csr_free(&c);
    csr_free(&a);
    coo_free(&coo);
}

/* Compares the device's C with the CPU's; returns 0 when they agree. */
static int compare(const csr_matrix *c, const csr_matrix *ref, const double *bound,
                   double *max_err, char *msg, size_t size)
{
    *max_err = 0.0;
    if (c->nrows != ref->nrows || c->ncols != ref->ncols || c->nnz != ref->nnz) {
        snprintf(msg, size, "C is %u x %u with %u entries, the CPU's %u x %u with %u", c->nrows,
                 c->ncols, c->nnz, ref->nrows, ref->ncols, ref->nnz);
        return -1;
    }
    for (uint32_t r = 0; r <= c->nrows; r++)
        if (c->rowptr[r] != ref->rowptr[r]) {
            snprintf(msg, size, "row pointer %u is %u, the CPU's %u", r, c->rowptr[r],
                     ref->rowptr[r]);
            return -1;
        }
    for (uint32_t r = 0; r < c->nrows; r++)
        for (uint32_t e = c->rowptr[r]; e < c->rowptr[r + 1]; e++) {
            if (c->col[e] != ref->col[e]) {
                snprintf(msg, size, "row %u: column %u where the CPU has %u", r + 1,
                         c->col[e] + 1, ref->col[e] + 1);
                return -1;
            }
            double diff = fabs(c->val[e] - ref->val[e]);
            double rel = diff == 0.0 ? 0.0 : bound[e] > 0.0 ? diff / bound[e] : INFINITY;
            if (!(rel <= TOLERANCE)) {
                snprintf(msg, size, "C(%u, %u) = %.17g, the CPU gives %.17g (sum |a b| = %g)",
                         r + 1, c->col[e] + 1, c->val[e], ref->val[e], bound[e]);
                return -1;
            }
            if (rel > *max_err)
                *max_err = rel;
        }
    return 0;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *b_path = NULL, *skip_pkg = NULL, *same_as = NULL;
    int op_aa = 1, op_aat = 0, both = 0, check = 1, random_keys = 1;
    uint64_t reps64 = 3;
    const char **files = ex_calloc((size_t)argc, sizeof *files);
    const char **gens = ex_calloc((size_t)argc, sizeof *gens);
    size_t nfiles = 0, ngens = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = !strcmp(a, "--gen") || !strcmp(a, "--op") || !strcmp(a, "--b") ||
                          !strcmp(a, "--device") || !strcmp(a, "--reps") ||
                          !strcmp(a, "--skip-missing") || !strcmp(a, "--same-as");
        if (takes_value && !next) {
            fprintf(stderr, "spgemm: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--gen")) {
            gens[ngens++] = argv[++i];
        } else if (!strcmp(a, "--op")) {
            const char *o = argv[++i];
            both = !strcmp(o, "both");
            op_aa = both || !strcmp(o, "aa");
            op_aat = both || !strcmp(o, "aat");
            if (!op_aa && !op_aat) {
                fprintf(stderr, "spgemm: --op must be aa, aat or both\n");
                return 2;
            }
        } else if (!strcmp(a, "--b")) {
            b_path = argv[++i];
        } else if (!strcmp(a, "--device")) {
            device = argv[++i];
        } else if (!strcmp(a, "--reps")) {
            if (ex_parse_count(argv[++i], &reps64) || reps64 < 1 || reps64 > 1000) {
                fprintf(stderr, "spgemm: --reps must be 1 .. 1000\n");
                return 2;
            }
        } else if (!strcmp(a, "--skip-missing")) {
            skip_pkg = argv[++i];
        } else if (!strcmp(a, "--same-as")) {
            same_as = argv[++i];
        } else if (!strcmp(a, "--no-check")) {
            check = 0;
        } else if (!strcmp(a, "--no-random")) {
            random_keys = 0;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "spgemm: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else {
            files[nfiles++] = a;
        }
    }
    if (nfiles + ngens == 0) {
        usage(stderr);
        return 2;
    }
    int reps = (int)reps64;

    /* Read (or generate) every matrix first, so that a bad file is reported
     * before any OpenCL work starts. */
    size_t ninputs = nfiles + ngens;
    input *inputs = ex_calloc(ninputs, sizeof *inputs);
    for (size_t i = 0; i < nfiles; i++)
        load(files[i], skip_pkg, &inputs[i]);
    for (size_t i = 0; i < ngens; i++)
        if (generate(gens[i], &inputs[nfiles + i]) != 0) {
            fprintf(stderr, "spgemm: bad --gen '%s' (poisson2d:M with M 1..65535, "
                            "poisson3d:M with M 1..1625, or powerlaw:N:AVG[:ALPHA] with "
                            "0 < AVG <= N, ALPHA > 2)\n", gens[i]);
            return 2;
        }
    input b_in;
    memset(&b_in, 0, sizeof b_in);
    if (b_path)
        load(b_path, skip_pkg, &b_in);
    if (same_as) {
        input ref;
        load(same_as, skip_pkg, &ref);
        for (size_t i = 0; i < ninputs; i++) {
            char msg[512];
            if (same_matrix(&inputs[i].a, &ref.a, msg, sizeof msg) != 0) {
                fprintf(stderr, "spgemm: %s differs from %s: %s\n", inputs[i].name, ref.name,
                        msg);
                return 1;
            }
            printf("%s equals %s (%u x %u, %u nonzeros)\n", inputs[i].name, ref.name,
                   ref.a.nrows, ref.a.ncols, ref.a.nnz);
        }
        csr_free(&ref.a);
    }
    /* The shapes must fit, unless --op both (which skips what does not). */
    for (size_t i = 0; i < ninputs && !both; i++) {
        const csr_matrix *A = &inputs[i].a, *B = b_path ? &b_in.a : A;
        uint32_t inner = op_aat ? B->ncols : B->nrows;
        if (A->ncols != inner) {
            const char *bname = b_path ? (op_aat ? "B^T" : "B") : (op_aat ? "A^T" : "A");
            fprintf(stderr, "spgemm: cannot form A * %s for %s: A is %u x %u and %s is %u x %u "
                            "(the inner dimensions differ)\n", bname, inputs[i].name, A->nrows,
                    A->ncols, bname, op_aat ? B->ncols : B->nrows,
                    op_aat ? B->nrows : B->ncols);
            return 1;
        }
    }

    clsort_context *ctx = ex_context_create(device);
    spgemm_device *dev = spgemm_device_create(ctx);
    char devname[300];
    printf("clsort sparse matrix product example (expand, sort, compress)\n");
    printf("device  %s\n", ex_device_name(ctx, devname, sizeof devname));
    printf("timing  each phase between clFinish calls; the sort: median of %d\n", reps);
    if (b_path)
        printf("B       %s: %s %s, %u x %u, %u nonzeros\n", b_in.name, b_in.info.format,
               b_in.info.kind, b_in.a.nrows, b_in.a.ncols, b_in.a.nnz);

    summary_row *rows = ex_calloc(2 * ninputs, sizeof *rows);
    size_t nrows = 0, failures = 0, verified = 0;
    int warmed[2] = {0, 0};
    for (size_t i = 0; i < ninputs; i++) {
        input *in = &inputs[i];
        const csr_matrix *A = &in->a;
        printf("\nA = %s: %s %s, %u x %u, %u nonzeros (%zu stored)\n", in->name,
               in->info.format, in->info.kind, A->nrows, A->ncols, A->nnz, in->info.stored);
        for (int op = 0; op < 2; op++) {
            if ((op == 0 && !op_aa) || (op == 1 && !op_aat))
                continue;
            const csr_matrix *B = b_path ? &b_in.a : A;
            csr_matrix bt;
            memset(&bt, 0, sizeof bt);
            if (op == 1) {
                csr_transpose(B, &bt); /* B^T in CSR: a host-side preparation */
                B = &bt;
            }
            const char *bname = b_path ? (op ? "B^T" : "B") : (op ? "A^T" : "A");
            char label[16];
            snprintf(label, sizeof label, "A * %s", bname);
            if (A->ncols != B->nrows) { /* only with --op both: checked above */
                printf("C = %s: skipped, the inner dimensions differ (A is %u x %u, %s is "
                       "%u x %u)\n", label, A->nrows, A->ncols, bname, B->nrows, B->ncols);
                csr_free(&bt);
                continue;
            }

            int u64 = (uint64_t)A->nrows * B->ncols > ((uint64_t)1 << 32);
            if (!warmed[u64]) {
                warm_up(dev, u64);
                warmed[u64] = 1;
            }
            csr_matrix C;
            spgemm_stats st;
            spgemm_multiply(dev, A, B, reps, &C, &st);
            spgemm_times *t = &st.t;
            double total = t->count + t->expand + t->sort + t->reduce + t->csr;
            printf("C = %s: %u x %u, %u nonzeros from %llu products; keys %s, %u bits "
                   "sorted, values f64\n", label, C.nrows, C.ncols, C.nnz,
                   (unsigned long long)st.products, clsort_type_name(st.key_type), st.key_bits);
            printf("  device ms   count %.3f  expand %.3f  sort %.3f  reduce %.3f  csr %.3f  "
                   "total %.3f (sort %.0f%%)\n", 1e3 * t->count, 1e3 * t->expand, 1e3 * t->sort,
                   1e3 * t->reduce, 1e3 * t->csr, 1e3 * total,
                   total > 0 ? 100.0 * t->sort / total : 0.0);
            printf("  transfers   upload %.3f ms, download %.3f ms (not in the total)\n",
                   1e3 * t->upload, 1e3 * t->download);

            summary_row *row = &rows[nrows++];
            snprintf(row->matrix, sizeof row->matrix, "%.39s", in->name);
            snprintf(row->op, sizeof row->op, "%s", label);
            row->pairs = st.products;
            row->nnzc = C.nnz;
            row->key_type = st.key_type;
            row->bits = st.key_bits;
            row->sort_ms = 1e3 * t->sort;
            row->total_ms = 1e3 * total;
            row->rate = t->sort > 0 ? (double)st.products / t->sort / 1e6 : 0.0;
            if (random_keys && st.products > 0) {
                double tr = spgemm_sort_random(dev, st.key_type, st.key_bits, st.key_range,
                                               (size_t)st.products, reps, 42 + i);
                row->random_rate = tr > 0 ? (double)st.products / tr / 1e6 : 0.0;
                printf("  sort rate   %.1f Mpairs/s on the product keys, %.1f Mpairs/s on "
                       "uniformly random keys (same count, type and bits)\n",
                       row->rate, row->random_rate);
            } else if (st.products > 0) {
                printf("  sort rate   %.1f Mpairs/s on the product keys\n", row->rate);
            }

            if (check) {
                csr_matrix R;
                double *bound = NULL, max_err = 0.0;
                char msg[512];
                if (csr_multiply_cpu(A, B, &R, &bound) != 0) {
                    fprintf(stderr, "spgemm: the CPU product has 2^32 or more entries\n");
                    return 1;
                }
                if (compare(&C, &R, bound, &max_err, msg, sizeof msg) != 0) {
                    printf("  check       FAILED: %s\n", msg);
                    failures++;
                } else {
                    printf("  check       same structure as the CPU product; largest error "
                           "%.2g of sum |a_ik b_kj| (limit %g): OK\n", max_err, TOLERANCE);
                    verified++;
                }
                free(bound);
                csr_free(&R);
            }
            csr_free(&C);
            csr_free(&bt);
        }
    }

    if (nrows > 1) {
        printf("\nsummary: sort rate on product keys against uniformly random keys of the same\n"
               "count, type and bit width (Polok et al., Figure 5), pairs of key and f64\n");
        printf("%-24s %-8s %11s %11s %4s %4s %10s %6s %9s %9s\n", "matrix", "C", "pairs",
               "nnz(C)", "key", "bits", "sort ms", "share", "Mpairs/s", "random");
        for (size_t r = 0; r < nrows; r++) {
            summary_row *row = &rows[r];
            char rnd[16] = "-";
            if (row->random_rate > 0)
                snprintf(rnd, sizeof rnd, "%.1f", row->random_rate);
            printf("%-24s %-8s %11llu %11llu %4s %4u %10.3f %5.0f%% %9.1f %9s\n", row->matrix,
                   row->op, (unsigned long long)row->pairs, (unsigned long long)row->nnzc,
                   clsort_type_name(row->key_type), row->bits, row->sort_ms,
                   row->total_ms > 0 ? 100.0 * row->sort_ms / row->total_ms : 0.0, row->rate,
                   rnd);
        }
    }
    if (check)
        printf("\n%zu products checked against the CPU: %s\n", verified + failures,
               failures ? "FAILED" : "all agree");

    for (size_t i = 0; i < ninputs; i++)
        csr_free(&inputs[i].a);
    csr_free(&b_in.a);
    free(inputs);
    free(rows);
    free(files);
    free(gens);
    spgemm_device_release(dev);
    clsort_context_release(ctx);
    return failures ? 1 : 0;
}

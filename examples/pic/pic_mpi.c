/* pic_mpi.c - particle-in-cell sorting on several MPI ranks, one device
 * each (the multi-rank version of pic.c).
 *
 * N particles live in the periodic unit square on a G x G grid, cell
 * k = G i + j of a particle at (x, y) with i = floor(x G), j = floor(y G).
 * They start at the points of van der Corput sequences (x base 2, y base 3,
 * u and v bases 5 and 7 scaled to [-1,1)), rank r holding the global
 * indices [r N / P, (r + 1) N / P), so every rank starts with particles
 * all over the grid. Each particle is a 20-byte record (x, y, u, v, id) on
 * the host.
 *
 * Every step:
 *   1. each rank moves its particles by (u/G, v/G) modulo 1 and computes
 *      their cell keys;
 *   2. clsort_mpi_sort_pairs sorts (cell, particle) over all ranks, on the
 *      cell bits only: afterwards rank r holds the particles of a run of
 *      cells, as many particles as before (the ranks' shares of cells move
 *      with the particles: a dynamic domain decomposition that keeps the
 *      load equal), so the particles that left the rank's cells have moved
 *      to their new rank, and those of one cell are contiguous;
 *   3. each rank deposits the charge of its cells from the segment
 *      boundaries of its sorted keys, and again directly from the positions;
 *      the grids are summed over the ranks (MPI_Reduce).
 * Checks after every step (outside the timings): keys sorted within and
 * across ranks, each key the cell of its particle, the ids a permutation
 * (count, sum and sum of squares over the ranks), the velocities still the
 * ones each id started with, both deposits equal and summing to N.
 *
 * usage: mpirun -np P pic_mpi [--device D[,D...]] [--n N] [--grid G] [--steps S]
 */
#define _POSIX_C_SOURCE 200809L
#include <clsort_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct particle {
    float x, y, u, v;
    uint32_t id;
} particle;

static int rank, nranks;

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

static float velocity(uint64_t id, unsigned base)
{
    return (float)(2.0 * van_der_corput(id, base) - 1.0);
}

static float wrap(float x)
{
    if (x >= 1.0f)
        x -= 1.0f;
    if (x < 0.0f)
        x += 1.0f;
    return x >= 1.0f ? 0.0f : x; /* -tiny + 1 rounds to 1 */
}

static uint32_t cell(const particle *p, unsigned g)
{
    unsigned i = (unsigned)(p->x * (float)g), j = (unsigned)(p->y * (float)g);
    if (i >= g)
        i = g - 1;
    if (j >= g)
        j = g - 1;
    return i * g + j;
}

static int fail(const char *what, clsort_context *ctx, clsort_status s)
{
    fprintf(stderr, "pic_mpi: rank %d: %s: %s\n%s\n", rank, what, clsort_status_string(s),
            clsort_context_last_error(ctx));
    return 1;
}

/* The checks of one step; returns the number of failures over all ranks. */
static long long check_step(const uint32_t *keys, const particle *parts, size_t n, unsigned g,
                            uint64_t total, const uint64_t *dep_seg, const uint64_t *dep_dir)
{
    long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && keys[i] < keys[i - 1])
            bad++;
        if (keys[i] != cell(&parts[i], g))
            bad++;
        if (parts[i].u != velocity(parts[i].id, 5) || parts[i].v != velocity(parts[i].id, 7))
            bad++;
    }
    /* across ranks: my first key >= the last key of the nearest non-empty rank before */
    uint32_t mine[2] = {n > 0, n > 0 ? keys[n - 1] : 0}, *lasts = malloc(2 * sizeof mine[0] * nranks);
    MPI_Allgather(mine, 2, MPI_UINT32_T, lasts, 2, MPI_UINT32_T, MPI_COMM_WORLD);
    for (int r = rank - 1; r >= 0 && n > 0; r--)
        if (lasts[2 * r]) {
            bad += keys[0] < lasts[2 * r + 1];
            break;
        }
    free(lasts);
    /* ids: a permutation of 0..total-1 (count, sum, sum of squares) */
    double sums[3] = {(double)n, 0, 0}, all[3];
    for (size_t i = 0; i < n; i++) {
        sums[1] += parts[i].id;
        sums[2] += (double)parts[i].id * parts[i].id;
    }
    MPI_Allreduce(sums, all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t = (double)total;
    if (all[0] != t || fabs(all[1] - t * (t - 1) / 2) > 0.5 ||
        fabs(all[2] - (t - 1) * t * (2 * t - 1) / 6) > 1e-9 * t * t * t + 0.5)
        bad++;
    if (rank == 0) { /* deposits, summed on rank 0 */
        uint64_t sum = 0;
        for (size_t c = 0; c < (size_t)g * g; c++) {
            bad += dep_seg[c] != dep_dir[c];
            sum += dep_seg[c];
        }
        bad += sum != total;
    }
    long long allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return allbad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    uint64_t total = 1u << 20;
    unsigned g = 32, steps = 5;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n") && next)
            total = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--grid") && next)
            g = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--steps") && next)
            steps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--device") && next)
            device = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np P pic_mpi [--device D[,D...]] [--n N] "
                                "[--grid G] [--steps S]\n");
            MPI_Finalize();
            return strcmp(a, "--help") ? 2 : 0;
        }
    }
    if (g < 1 || g > 32768 || total >= (1ull << 32)) {
        if (rank == 0)
            fprintf(stderr, "pic_mpi: --grid 1..32768, --n below 2^32\n");
        MPI_Finalize();
        return 2;
    }
    /* this rank's device: entry rank mod count of a comma-separated list */
    char dev[256] = "";
    if (device) {
        int count = 1;
        for (const char *p = device; *p; p++)
            count += *p == ',';
        const char *p = device;
        for (int k = rank % count; k > 0; k--)
            p = strchr(p, ',') + 1;
        snprintf(dev, sizeof dev, "%.*s", (int)strcspn(p, ","), p);
    }
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create(&ctx, device ? dev : NULL);
    int ok = s == CLSORT_SUCCESS, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (!ok)
            fail("clsort_context_create", NULL, s);
        clsort_context_release(ctx);
        MPI_Finalize();
        return s == CLSORT_ERROR_NO_PLATFORM ? 77 : 1;
    }
    uint64_t first = total * (uint64_t)rank / nranks, last = total * (uint64_t)(rank + 1) / nranks;
    size_t n = (size_t)(last - first), cells = (size_t)g * g;
    particle *parts = malloc((n ? n : 1) * sizeof *parts);
    uint32_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint64_t *dep = calloc(cells * 4, sizeof *dep); /* seg, dir, and their sums */
    for (size_t i = 0; i < n; i++) {
        uint64_t id = first + i;
        parts[i] = (particle){(float)van_der_corput(id, 2), (float)van_der_corput(id, 3),
                              velocity(id, 5), velocity(id, 7), (uint32_t)id};
    }
    unsigned bits = 1;
    while ((1ull << bits) < cells)
        bits++;
    clsort_options opt = {.end_bit = bits};
    if (rank == 0)
        printf("pic_mpi: %d rank%s, %llu particles, %u x %u cells (keys on bits [0,%u)), %u "
               "steps, 20-byte particles\n",
               nranks, nranks > 1 ? "s" : "", (unsigned long long)total, g, g, bits, steps);
    float h = 1.0f / (float)g;
    int rc = 0;
    for (unsigned step = 0; step <= steps && rc == 0; step++) {
        /* 1. move (step 0: the initial positions, sorted once) */
        for (size_t i = 0; i < n; i++) {
            if (step > 0) {
                parts[i].x = wrap(parts[i].x + parts[i].u * h);
                parts[i].y = wrap(parts[i].y + parts[i].v * h);
            }
            keys[i] = cell(&parts[i], g);
        }
        /* 2. the distributed sort: particles move to the rank of their cell */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        s = clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, CLSORT_U32, keys, parts, sizeof *parts,
                                  n, &opt);
        double t_sort = MPI_Wtime() - t0;
        if (s != CLSORT_SUCCESS) {
            rc = fail("clsort_mpi_sort_pairs", ctx, s);
            break;
        }
        clsort_mpi_times tm;
        clsort_mpi_last_times(&tm);
        /* 3. deposits: segment boundaries of the sorted keys, and direct */
        uint64_t *seg = dep, *dir = dep + cells;
        memset(dep, 0, cells * 2 * sizeof *dep);
        for (size_t i = 0; i < n;) {
            size_t e = i + 1;
            while (e < n && keys[e] == keys[i])
                e++;
            seg[keys[i]] += e - i;
            i = e;
        }
        for (size_t i = 0; i < n; i++)
            dir[cell(&parts[i], g)]++;
        MPI_Reduce(dep, dep + 2 * cells, (int)(2 * cells), MPI_UINT64_T, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        long long bad = check_step(keys, parts, n, g, total, dep + 2 * cells, dep + 3 * cells);
        /* report: time, particles that changed rank, this rank's cells */
        double times[2] = {t_sort, tm.exchange}, worst[2];
        unsigned long long moved = tm.sent, moved_all = 0;
        MPI_Reduce(times, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&moved, &moved_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("step %u: sort %.2f ms (exchange %.2f ms), %llu particles changed rank; rank 0 "
                   "holds cells %u..%u; check %s\n",
                   step, 1e3 * worst[0], 1e3 * worst[1], moved_all, n ? keys[0] : 0,
                   n ? keys[n - 1] : 0, bad ? "FAILED" : "passed");
        if (bad)
            rc = 1;
    }
    free(parts);
    free(keys);
    free(dep);
    clsort_context_release(ctx);
    MPI_Finalize();
    return rc;
}

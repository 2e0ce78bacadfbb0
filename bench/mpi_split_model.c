/* mpi_split_model.c - the local work of clsort_mpi's splitter search
 * (src/mpi/mpi_sort.c, split) for p ranks, on one process: n sorted random
 * u32 keys stand for every rank's sorted keys (all ranks alike), so the
 * global count of each candidate is p times the local one and no MPI is
 * needed. Each of the p - 1 boundaries runs the same rounds as the library
 * (4 bits a round: 15 binary searches per boundary per round within the
 * range that still matches the digits found so far), and the model checks
 * that each boundary lands on the key at its position. It prints the time
 * of the local searches, the part of the split that grows with p; the
 * MPI_Allreduce per round comes on top (docs/PERFORMANCE.md, projection).
 *
 *   gcc -O2 -o mpi_split_model bench/mpi_split_model.c
 *   ./mpi_split_model 26 2 64 1024     # n = 2^26 keys, p = 2, 64, 1024
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BITS = 4, CANDS = (1 << BITS) - 1, WIDTH = 32 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* First index in [lo, hi) whose key exceeds v. */
static uint64_t upper_bound(const uint32_t *k, uint64_t lo, uint64_t hi, uint64_t v)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (k[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mpi_split_model LOG2_N P [P ...]\n");
        return 2;
    }
    uint64_t n = 1ull << atoi(argv[1]);
    uint32_t *k = malloc(n * sizeof *k);
    if (!k)
        return 1;
    uint64_t s = 88172645463325252ull;
    for (uint64_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        k[i] = (uint32_t)(s >> 16);
    }
    qsort(k, n, sizeof *k, cmp_u32);
    for (int a = 2; a < argc; a++) {
        uint64_t p = strtoull(argv[a], NULL, 10), nb = p - 1, total = n * p;
        uint64_t *st = calloc(nb * (4 + 2 * CANDS) + 1, sizeof *st);
        uint64_t *target = st, *prefix = st + nb, *lo = st + 2 * nb, *hi = st + 3 * nb,
                 *cnt = st + 4 * nb, *glob = cnt + CANDS * nb;
        for (uint64_t b = 0; b < nb; b++) {
            target[b] = (b + 1) * total / p; /* P_r: every rank holds n */
            hi[b] = n;
        }
        double t0 = now();
        int rounds = 0;
        for (int top = WIDTH; top > 0; rounds++) {
            int d = top < BITS ? top : BITS, shift = top - d, cands = (1 << d) - 1;
            for (uint64_t b = 0; b < nb; b++) {
                uint64_t from = lo[b];
                for (int m = 0; m < cands; m++)
                    cnt[b * CANDS + m] = from = upper_bound(
                        k, from, hi[b], prefix[b] | ((((uint64_t)m + 1) << shift) - 1));
            }
            for (uint64_t i = 0; i < nb * CANDS; i++) /* the MPI_Allreduce: p alike ranks */
                glob[i] = cnt[i] * p;
            for (uint64_t b = 0; b < nb; b++) {
                const uint64_t *c = cnt + b * CANDS, *g = glob + b * CANDS;
                int digit = cands;
                for (int m = 0; m < cands; m++)
                    if (g[m] > target[b]) {
                        digit = m;
                        break;
                    }
                if (digit > 0)
                    lo[b] = c[digit - 1];
                if (digit < cands)
                    hi[b] = c[digit];
                prefix[b] |= (uint64_t)digit << shift;
            }
            top -= d;
        }
        double t1 = now();
        /* each boundary's key is the key at its position in the p-fold copy */
        uint64_t bad = 0;
        for (uint64_t b = 0; b < nb; b++)
            bad += prefix[b] != k[target[b] / p];
        printf("n = 2^%d keys a rank, p = %llu: %d rounds, local searches %.3f ms "
               "(%.2f us a boundary), %s\n",
               atoi(argv[1]), (unsigned long long)p, rounds, 1e3 * (t1 - t0),
               nb ? 1e6 * (t1 - t0) / (double)nb : 0.0, bad ? "WRONG" : "checked");
        free(st);
    }
    free(k);
    return 0;
}

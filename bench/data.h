/* data.h - input generators shared by the benchmarks, the tests and the
 * examples: fixed seeds, every key type, the adversarial distributions. */
#ifndef CLSORT_BENCH_DATA_H
#define CLSORT_BENCH_DATA_H

#include <clsort.h>
#include <stddef.h>
#include <stdint.h>

typedef enum data_dist {
    DATA_UNIFORM = 0,   /* every bit random */
    DATA_ALL_EQUAL,     /* one value */
    DATA_SORTED,        /* ascending (in the key's order) */
    DATA_REVERSED,      /* descending */
    DATA_FEW_UNIQUE,    /* 16 distinct random values */
    DATA_NARROW_8,      /* integers 0..255 */
    DATA_NARROW_16,     /* integers 0..65535 */
    DATA_NARROW_10,     /* integers 0..1023 (particle-in-cell cells of a 32x32 grid) */
    DATA_HIGH_BITS,     /* only the top 8 bits vary */
    DATA_ONE_DIGIT,     /* keys differ only in bits 8..15 */
    DATA_SPECIALS,      /* uniform with the type's special values sprinkled:
                           min, max, 0, and for floats +-0.0, +-inf, quiet and
                           signalling NaNs of both signs with payloads */
    DATA_DIST_COUNT,    /* the set above: the unit tests loop over it */
    /* The distribution suite of the benchmark (real data: skewed, repeated,
     * presorted); `clsort bench --dist all` runs every one. Integer keys
     * take the same shapes over their range (normal and exponential about
     * the middle and the bottom of the range). */
    DATA_NORMAL = DATA_DIST_COUNT, /* N(0, 1) floats */
    DATA_EXPONENTIAL,   /* Exp(1) floats */
    DATA_ZIPF_1K,       /* Zipf, s = 1, over 2^10 values drawn from the whole range */
    DATA_ZIPF_1M,       /* the same over 2^20 values */
    DATA_FEW_2,         /* 2 distinct values drawn from the whole range */
    DATA_FEW_1024,      /* 1024 of them (few-unique has 16) */
    DATA_SORTED_SWAPS,  /* sorted, then 1% of the positions swapped in pairs */
    DATA_SORTED_RUNS,   /* 64 sorted runs one after the other */
    DATA_AND_2,         /* entropy-reduced: the AND of 2 uniform words */
    DATA_AND_4,         /* the AND of 4 */
    DATA_LOW_20,        /* one random value with its low 20 bits random */
    DATA_DIST_ALL       /* every distribution, the suite included */
} data_dist;

const char *data_dist_name(data_dist d);
/* The distribution of that name, or DATA_DIST_ALL when none has it. */
data_dist data_dist_from_name(const char *name);

/* A small fast generator (splitmix64). */
typedef struct data_rng {
    uint64_t s;
} data_rng;
static inline uint64_t data_next(data_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fills n keys of the type at dst with the distribution; the same seed
 * gives the same data. */
void data_fill(void *dst, clsort_type type, size_t n, data_dist dist, uint64_t seed);

/* Fills n values of value_size bytes with their index's bytes (so a test can
 * tell which input position each value came from) followed by a pattern. */
void data_fill_values(void *dst, size_t value_size, size_t n, uint64_t seed);

#endif

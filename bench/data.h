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
    DATA_DIST_COUNT
} data_dist;

const char *data_dist_name(data_dist d);

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

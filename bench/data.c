/* data.c - input generators (see data.h). */
#include "data.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *data_dist_name(data_dist d)
{
    static const char *const names[] = {
        "uniform",  "all-equal", "sorted",  "reversed", "few-unique",   "0-255",
        "0-65535",  "0-1023",    "high-bits", "one-digit", "specials",  "normal",
        "exponential", "zipf-1k", "zipf-1m", "few-2",   "few-1024",     "sorted-swaps",
        "sorted-runs", "and-2",  "and-4",   "low-20"};
    _Static_assert(sizeof names / sizeof names[0] == DATA_DIST_ALL, "a name per distribution");
    return (unsigned)d < DATA_DIST_ALL ? names[d] : "?";
}

data_dist data_dist_from_name(const char *name)
{
    for (int d = 0; d < DATA_DIST_ALL; d++)
        if (name && !strcmp(name, data_dist_name((data_dist)d)))
            return (data_dist)d;
    return DATA_DIST_ALL;
}

static void put(void *dst, size_t i, unsigned bytes, uint64_t v)
{
    unsigned char *p = (unsigned char *)dst + i * bytes;
    switch (bytes) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static uint64_t width_mask(unsigned bytes) { return bytes == 8 ? ~0ull : (1ull << (bytes * 8)) - 1; }

/* The bit pattern of the i-th value of an increasing sequence in the
 * type's order (for sorted and reversed inputs). */
static uint64_t ordered_pattern(clsort_type type, unsigned bytes, uint64_t rank, uint64_t n)
{
    uint64_t m = width_mask(bytes);
    /* Spread the ranks over the whole range, as unsigned images (in exact
     * integers: through a double, rank n - 1 of 64-bit keys overflowed to
     * 2^63, below its predecessor) */
    uint64_t img = n > 1 ? (uint64_t)((unsigned __int128)rank * m / (n - 1)) : 0;
    uint64_t sign = 1ull << (bytes * 8 - 1);
    switch (type) {
    case CLSORT_I8: case CLSORT_I16: case CLSORT_I32: case CLSORT_I64:
        return (img ^ sign) & m;
    case CLSORT_F32: case CLSORT_F64: {
        /* Keep to finite numbers: the image range below +inf. */
        uint64_t inf = bytes == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t lo = (~(inf | sign)) & m; /* image of -inf + 1 step */
        uint64_t hi = inf | sign;          /* image of +inf */
        uint64_t span = hi - lo - 2;
        uint64_t im = lo + 1 + (n > 1 ? (uint64_t)((unsigned __int128)rank * span / (n - 1)) : 0);
        return (im & sign) ? (im ^ sign) : (~im & m);
    }
    default:
        return img;
    }
}

static uint64_t special(clsort_type type, unsigned bytes, uint64_t r)
{
    uint64_t m = width_mask(bytes), sign = 1ull << (bytes * 8 - 1);
    bool is_float = type == CLSORT_F32 || type == CLSORT_F64;
    bool is_signed = type >= CLSORT_I8 && type <= CLSORT_I64;
    if (is_float) {
        uint64_t inf = bytes == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t quiet = bytes == 4 ? 0x00400000ull : 0x0008000000000000ull;
        uint64_t payload = (r >> 8) & (quiet - 1);
        if (!payload)
            payload = 1;
        switch (r % 10) {
        case 0: return 0;                          /* +0.0 */
        case 1: return sign;                       /* -0.0 */
        case 2: return inf;                        /* +inf */
        case 3: return inf | sign;                 /* -inf */
        case 4: return inf | quiet | payload;      /* quiet NaN */
        case 5: return inf | quiet | payload | sign;
        case 6: return inf | payload;              /* signalling NaN */
        case 7: return inf | payload | sign;
        case 8: return (inf - 1);                  /* largest finite */
        default: return (inf - 1) | sign;          /* lowest finite */
        }
    }
    switch (r % 3) {
    case 0: return is_signed ? sign : 0;           /* min */
    case 1: return is_signed ? (m ^ sign) : m;     /* max */
    default: return 0;
    }
}

/* A uniform double in (0, 1). */
static double unit(data_rng *r) { return ((double)(data_next(r) >> 11) + 0.5) / 9007199254740992.0; }

/* The bit pattern of a real number in the key type: floats themselves,
 * integers the value scaled by `scale` about `mid`, clamped to the type. */
static uint64_t real_pattern(clsort_type type, unsigned bytes, double x, double mid, double scale)
{
    if (type == CLSORT_F32) {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (type == CLSORT_F64) {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    const bool is_signed = type >= CLSORT_I8 && type <= CLSORT_I64;
    const double top = bytes == 8 ? 18446744073709549568.0 : (double)width_mask(bytes);
    double img = mid + x * scale; /* the unsigned image */
    if (img < 0)
        img = 0;
    if (img > top)
        img = top;
    uint64_t v = (uint64_t)img;
    return is_signed ? v ^ (1ull << (bytes * 8 - 1)) : v;
}

/* Zipf ranks (s = 1) over k values by inverse transform on the cumulative
 * harmonic table. */
static size_t zipf_rank(const double *cum, size_t k, double u)
{
    size_t lo = 0, hi = k - 1;
    u *= cum[k - 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cum[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The suite's distributions (DATA_NORMAL and after). */
static void fill_suite(void *dst, clsort_type type, unsigned bytes, size_t n, data_dist dist,
                       data_rng *r)
{
    const uint64_t m = width_mask(bytes);
    const double range = bytes == 8 ? 18446744073709551615.0 : (double)m;
    switch (dist) {
    case DATA_NORMAL:
        for (size_t i = 0; i < n; i++) {
            double u1 = unit(r), u2 = unit(r);
            double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            put(dst, i, bytes, real_pattern(type, bytes, z, range / 2, range / 16) & m);
        }
        return;
    case DATA_EXPONENTIAL:
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, real_pattern(type, bytes, -log(unit(r)), 0, range / 64) & m);
        return;
    case DATA_ZIPF_1K:
    case DATA_ZIPF_1M: {
        const size_t k = dist == DATA_ZIPF_1K ? 1024 : (size_t)1 << 20;
        double *cum = malloc(k * sizeof *cum);
        uint64_t *val = malloc(k * sizeof *val);
        if (!cum || !val) {
            free(cum);
            free(val);
            memset(dst, 0, n * bytes);
            return;
        }
        double acc = 0;
        for (size_t j = 0; j < k; j++) {
            acc += 1.0 / (double)(j + 1);
            cum[j] = acc;
            val[j] = data_next(r) & m;
        }
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, val[zipf_rank(cum, k, unit(r))]);
        free(cum);
        free(val);
        return;
    }
    case DATA_FEW_2:
    case DATA_FEW_1024: {
        const size_t k = dist == DATA_FEW_2 ? 2 : 1024;
        uint64_t pool[1024];
        for (size_t j = 0; j < k; j++)
            pool[j] = data_next(r) & m;
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, pool[data_next(r) % k]);
        return;
    }
    case DATA_SORTED_SWAPS: {
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, ordered_pattern(type, bytes, i, n));
        unsigned char tmp[8], *p = dst;
        for (size_t s = 0; n > 1 && s < n / 200; s++) { /* 1% of the positions */
            size_t a = data_next(r) % n, b = data_next(r) % n;
            memcpy(tmp, p + a * bytes, bytes);
            memcpy(p + a * bytes, p + b * bytes, bytes);
            memcpy(p + b * bytes, tmp, bytes);
        }
        return;
    }
    case DATA_SORTED_RUNS: {
        const size_t runs = 64, len = (n + runs - 1) / runs;
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, ordered_pattern(type, bytes, i % len, len));
        return;
    }
    case DATA_AND_2:
    case DATA_AND_4:
        for (size_t i = 0; i < n; i++) {
            uint64_t v = data_next(r) & data_next(r);
            if (dist == DATA_AND_4)
                v &= data_next(r) & data_next(r);
            put(dst, i, bytes, v & m);
        }
        return;
    case DATA_LOW_20: {
        const uint64_t low = bytes >= 4 ? 0xfffffull : m, base = data_next(r) & m & ~low;
        for (size_t i = 0; i < n; i++)
            put(dst, i, bytes, base | (data_next(r) & low));
        return;
    }
    default:
        memset(dst, 0, n * bytes);
        return;
    }
}

void data_fill(void *dst, clsort_type type, size_t n, data_dist dist, uint64_t seed)
{
    unsigned bytes = (unsigned)clsort_type_size(type);
    if (!bytes || !dst)
        return;
    data_rng r = {seed * 0x2545f4914f6cdd1dull + (uint64_t)dist + 1};
    uint64_t m = width_mask(bytes);
    if (dist >= DATA_DIST_COUNT) {
        fill_suite(dst, type, bytes, n, dist, &r);
        return;
    }
    uint64_t pool[16];
    for (int i = 0; i < 16; i++)
        pool[i] = data_next(&r) & m;
    uint64_t one = data_next(&r) & m;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = data_next(&r);
        uint64_t v;
        switch (dist) {
        case DATA_ALL_EQUAL: v = one; break;
        case DATA_SORTED: v = ordered_pattern(type, bytes, i, n); break;
        case DATA_REVERSED: v = ordered_pattern(type, bytes, n - 1 - i, n); break;
        case DATA_FEW_UNIQUE: v = pool[x & 15]; break;
        case DATA_NARROW_8: v = x & 0xff; break;
        case DATA_NARROW_16: v = x & 0xffff & m; break;
        case DATA_NARROW_10: v = x & 0x3ff & m; break;
        case DATA_HIGH_BITS: v = bytes == 1 ? (x & 0xf0) : ((x & 0xff) << (bytes * 8 - 8)); break;
        case DATA_ONE_DIGIT: v = bytes == 1 ? (x & 0xff) : (((x & 0xff) << 8) | (one & ~0xff00ull)) & m; break;
        case DATA_SPECIALS:
            v = (x % 8 == 0) ? special(type, bytes, x >> 3) : (data_next(&r) & m);
            break;
        default: v = x & m; break;
        }
        put(dst, i, bytes, v & m);
    }
}

void data_fill_values(void *dst, size_t value_size, size_t n, uint64_t seed)
{
    unsigned char *p = dst;
    for (size_t i = 0; i < n; i++) {
        unsigned char *v = p + i * value_size;
        uint64_t idx = i;
        size_t k = value_size < 8 ? value_size : 8;
        memcpy(v, &idx, k);
        for (size_t b = k; b < value_size; b++)
            v[b] = (unsigned char)(seed + i * 31 + b * 7);
    }
}

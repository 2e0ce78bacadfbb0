/* data.c - input generators (see data.h). */
#include "data.h"

#include <stdbool.h>
#include <string.h>

const char *data_dist_name(data_dist d)
{
    static const char *const names[] = {"uniform",   "all-equal", "sorted",    "reversed",
                                        "few-unique", "0-255",     "0-65535",   "0-1023",    "high-bits",
                                        "one-digit", "specials"};
    return (unsigned)d < DATA_DIST_COUNT ? names[d] : "?";
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
    /* Spread the ranks over the whole range, as unsigned images. */
    uint64_t img = n > 1 ? (uint64_t)((double)rank / (double)(n - 1) * (double)m) : 0;
    if (img > m)
        img = m;
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
        uint64_t im = lo + 1 + (n > 1 ? (uint64_t)((double)rank / (double)(n - 1) * (double)span) : 0);
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

void data_fill(void *dst, clsort_type type, size_t n, data_dist dist, uint64_t seed)
{
    unsigned bytes = (unsigned)clsort_type_size(type);
    if (!bytes || !dst)
        return;
    data_rng r = {seed * 0x2545f4914f6cdd1dull + (uint64_t)dist + 1};
    uint64_t m = width_mask(bytes);
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

/* reference.c - the tests' independent reference: a stable merge sort of
 * indices with a comparator written from the documented order, not from
 * the library's code. */
#include <math.h>

#include "harness.h"

typedef struct ref_ctx {
    clsort_type type;
    const unsigned char *keys;
    unsigned bytes, begin, end;
    bool window, descending;
} ref_ctx;

static uint64_t raw(const ref_ctx *c, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, c->keys + i * c->bytes, c->bytes);
    return v;
}

static bool is_signed(clsort_type t) { return t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64; }
static bool is_float(clsort_type t) { return t == CLSORT_F32 || t == CLSORT_F64; }

static int natural_cmp(const ref_ctx *c, size_t i, size_t j)
{
    uint64_t a = raw(c, i), b = raw(c, j);
    if (is_float(c->type)) {
        double x, y;
        if (c->type == CLSORT_F32) {
            float fx, fy;
            uint32_t ax = (uint32_t)a, bx = (uint32_t)b;
            memcpy(&fx, &ax, 4);
            memcpy(&fy, &bx, 4);
            x = fx;
            y = fy;
        } else {
            memcpy(&x, &a, 8);
            memcpy(&y, &b, 8);
        }
        bool nx = isnan(x), ny = isnan(y);
        if (nx || ny)
            return nx == ny ? 0 : (nx ? 1 : -1);
        return (x > y) - (x < y); /* -0.0 == +0.0 */
    }
    if (is_signed(c->type)) {
        unsigned shift = 64 - c->bytes * 8;
        int64_t x = (int64_t)(a << shift) >> shift, y = (int64_t)(b << shift) >> shift;
        return (x > y) - (x < y);
    }
    return (a > b) - (a < b);
}

/* The order-preserving unsigned image, as clsort.h defines it. */
static uint64_t image(const ref_ctx *c, uint64_t v)
{
    unsigned bits = c->bytes * 8;
    uint64_t sign = 1ull << (bits - 1);
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (is_signed(c->type))
        return v ^ sign;
    if (is_float(c->type)) {
        uint64_t expo = c->bytes == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t mant = c->bytes == 4 ? 0x007fffffull : 0x000fffffffffffffull;
        if ((v & expo) == expo && (v & mant))
            return all; /* NaN */
        if (v == sign)
            v = 0; /* -0.0 */
        return (v & sign) ? (~v & all) : (v | sign);
    }
    return v;
}

static int window_cmp(const ref_ctx *c, size_t i, size_t j)
{
    uint64_t a = image(c, raw(c, i)), b = image(c, raw(c, j));
    unsigned w = c->end - c->begin;
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    a = (a >> c->begin) & m;
    b = (b >> c->begin) & m;
    return (a > b) - (a < b);
}

static int cmp(const ref_ctx *c, size_t i, size_t j)
{
    int r = c->window ? window_cmp(c, i, j) : natural_cmp(c, i, j);
    return c->descending ? -r : r;
}

void ref_stable_perm(clsort_type type, const void *keys, size_t n, unsigned begin_bit,
                     unsigned end_bit, int descending, size_t *perm)
{
    ref_ctx c = {type, keys, (unsigned)clsort_type_size(type), begin_bit, end_bit, false,
                 descending != 0};
    if (c.end == 0)
        c.end = c.bytes * 8;
    c.window = !(c.begin == 0 && c.end == c.bytes * 8);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) {
        fprintf(stderr, "reference: out of memory\n");
        exit(1);
    }
    /* Bottom-up merge sort: stable, so ties keep input order. */
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = cmp(&c, perm[b], perm[a]) < 0 ? perm[b++] : perm[a++];
            while (a < mid)
                tmp[k++] = perm[a++];
            while (b < hi)
                tmp[k++] = perm[b++];
        }
        memcpy(perm, tmp, n * sizeof *perm);
    }
    free(tmp);
}

/* reference.c - the tests' independent reference: a stable merge sort of
 * (key, index) records with a comparator written from the documented
 * order, not from the library's code. */
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

/* What the merge sort moves: a key's bits (raw) and its input index. */
typedef struct ref_rec {
    uint64_t key;
    size_t index;
} ref_rec;

static bool is_signed(clsort_type t) { return t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64; }
static bool is_float(clsort_type t) { return t == CLSORT_F32 || t == CLSORT_F64; }

/* The comparators take two keys' bits, as raw() reads them. */
static int natural_cmp(const ref_ctx *c, uint64_t a, uint64_t b)
{
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

static int window_cmp(const ref_ctx *c, uint64_t a, uint64_t b)
{
    a = image(c, a);
    b = image(c, b);
    unsigned w = c->end - c->begin;
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    a = (a >> c->begin) & m;
    b = (b >> c->begin) & m;
    return (a > b) - (a < b);
}

static int cmp(const ref_ctx *c, const ref_rec *x, const ref_rec *y)
{
    int r = c->window ? window_cmp(c, x->key, y->key) : natural_cmp(c, x->key, y->key);
    return c->descending ? -r : r;
}

/* Sorts r[lo, hi) stably by insertion: the short runs the merges start
 * from. */
static void insertion_run(const ref_ctx *c, ref_rec *r, size_t lo, size_t hi)
{
    for (size_t i = lo + 1; i < hi; i++) {
        ref_rec x = r[i];
        size_t j = i;
        while (j > lo && cmp(c, &r[j - 1], &x) > 0) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

/* Recent results, so that a test that sorts the same input under several
 * kernel shapes computes its reference once: the keys are kept and
 * compared in full (the hash only picks the entry). */
enum { MEMO_SLOTS = 64 };
#define MEMO_BYTES ((size_t)384 << 20)
typedef struct memo_entry {
    clsort_type type;
    size_t n;
    unsigned begin, end;
    bool descending;
    uint64_t hash;
    unsigned char *keys;
    size_t *perm;
    size_t bytes;
    unsigned long long used;
} memo_entry;
static memo_entry memo[MEMO_SLOTS];
static size_t memo_total;
static unsigned long long memo_clock;

static uint64_t keys_hash(const unsigned char *k, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, k + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ k[i]) * 0x100000001b3ull;
    return h;
}

static memo_entry *memo_find(const ref_ctx *c, size_t n, uint64_t h)
{
    for (size_t i = 0; i < MEMO_SLOTS; i++) {
        memo_entry *e = &memo[i];
        if (e->perm && e->type == c->type && e->n == n && e->begin == c->begin &&
            e->end == c->end && e->descending == c->descending && e->hash == h &&
            !memcmp(e->keys, c->keys, n * c->bytes))
            return e;
    }
    return NULL;
}

static void memo_drop(memo_entry *e)
{
    memo_total -= e->bytes;
    free(e->keys);
    free(e->perm);
    memset(e, 0, sizeof *e);
}

static void memo_store(const ref_ctx *c, size_t n, uint64_t h, const size_t *perm)
{
    const size_t bytes = n * (c->bytes + sizeof *perm);
    if (bytes > MEMO_BYTES / 4)
        return;
    memo_entry *slot = NULL;
    for (;;) { /* the least recently used slot, until the new entry fits */
        memo_entry *old = NULL;
        for (size_t i = 0; i < MEMO_SLOTS; i++)
            if (!memo[i].perm) {
                if (!slot)
                    slot = &memo[i];
            } else if (!old || memo[i].used < old->used) {
                old = &memo[i];
            }
        if (slot && memo_total + bytes <= MEMO_BYTES)
            break;
        if (!old)
            return;
        memo_drop(old);
        slot = NULL;
    }
    slot->keys = malloc(n * c->bytes + 1);
    slot->perm = malloc(n * sizeof *perm + 1);
    if (!slot->keys || !slot->perm) {
        free(slot->keys);
        free(slot->perm);
        memset(slot, 0, sizeof *slot);
        return;
    }
    memcpy(slot->keys, c->keys, n * c->bytes);
    memcpy(slot->perm, perm, n * sizeof *perm);
    slot->type = c->type;
    slot->n = n;
    slot->begin = c->begin;
    slot->end = c->end;
    slot->descending = c->descending;
    slot->hash = h;
    slot->bytes = bytes;
    slot->used = ++memo_clock;
    memo_total += bytes;
}

void ref_stable_perm(clsort_type type, const void *keys, size_t n, unsigned begin_bit,
                     unsigned end_bit, int descending, size_t *perm)
{
    ref_ctx c = {type, keys, (unsigned)clsort_type_size(type), begin_bit, end_bit, false,
                 descending != 0};
    if (c.end == 0)
        c.end = c.bytes * 8;
    c.window = !(c.begin == 0 && c.end == c.bytes * 8);
    const uint64_t h = keys_hash(keys, n * c.bytes);
    memo_entry *hit = memo_find(&c, n, h);
    if (hit) {
        memcpy(perm, hit->perm, n * sizeof *perm);
        hit->used = ++memo_clock;
        return;
    }
    ref_rec *rec = malloc((n ? n : 1) * sizeof *rec), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!rec || !tmp) {
        fprintf(stderr, "reference: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        rec[i].key = raw(&c, i);
        rec[i].index = i;
    }
    /* Bottom-up merge sort: stable, so ties keep input order. Runs of 16
     * by insertion first; then each level merges from one buffer into the
     * other (a pair of runs already in order is copied as it is). */
    enum { RUN = 16 };
    for (size_t lo = 0; lo < n; lo += RUN)
        insertion_run(&c, rec, lo, lo + RUN < n ? lo + RUN : n);
    ref_rec *src = rec, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            if (mid == hi || cmp(&c, &src[mid - 1], &src[mid]) <= 0) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);
                continue;
            }
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = cmp(&c, &src[b], &src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid)
                dst[k++] = src[a++];
            while (b < hi)
                dst[k++] = src[b++];
        }
        ref_rec *t = src;
        src = dst;
        dst = t;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = src[i].index;
    free(rec);
    free(tmp);
    memo_store(&c, n, h, perm);
}

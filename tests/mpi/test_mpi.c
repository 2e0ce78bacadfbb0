/* test_mpi.c - the distributed sort (clsort_mpi.h) under mpiexec with any
 * number of ranks. Every case generates each rank's keys (and values
 * tagged with their global position), sorts them with clsort_mpi_sort_*,
 * gathers inputs and outputs on rank 0 and compares the output byte for
 * byte with the stable order of the tests' independent reference
 * (tests/reference.c), rank by rank at the caller's own counts. The error
 * cases (bad arguments on one rank, arguments that differ, a device failure
 * after the arguments agreed) check that every rank fails (the bad rank
 * with its own code, the others with CLSORT_ERROR_REMOTE and a message
 * naming the bad rank) and that no rank's arrays changed. One case sorts on
 * a split communicator. Exits 0 when every check passed, 1 otherwise, 77
 * (skipped) when there is no OpenCL platform.
 *
 * The cases alternate the merge of the received runs ($CLSORT_MPI_MERGE
 * host / sort; every other host merge in 3 threads, $CLSORT_MPI_THREADS)
 * and every third one exchanges through MPI_Alltoallw
 * ($CLSORT_MPI_EXCHANGE=mpi) with the datatypes split into blocks of 7
 * elements ($CLSORT_MPI_CHUNK), the path that carries messages over 2^31
 * bytes; the others read the runs in the peers' shared-memory window (the
 * ranks of a test share a node), which grows with the cases' sizes.
 */
#define _POSIX_C_SOURCE 200809L
#include <clsort_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int rank, nranks, failures;
static int one_node; /* every rank on one node: the runs read in the shared window */
static clsort_context *ctx;

#define EXPECT(cond, ...)                                                 \
    do {                                                                  \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* How a case picks each rank's n. */
typedef enum sizes {
    SIZES_EQUAL,    /* base on every rank */
    SIZES_UNEQUAL,  /* base/3 + 997 r */
    SIZES_ZEROS,    /* base on even ranks, 0 on odd ones */
    SIZES_ONE,      /* one key each */
    SIZES_LAST,     /* all on the last rank */
    SIZES_FIRST,    /* all on rank 0 */
    SIZES_EMPTY,    /* nothing anywhere */
} sizes;

typedef enum dist {
    DIST_RANDOM, /* random bits, floats with NaNs, infinities and zeros */
    DIST_FEW,    /* 5 distinct keys */
    DIST_EQUAL,  /* one key */
    DIST_SORTED, /* ascending over the global array */
    DIST_REVERSED,
} dist;

typedef struct tcase {
    const char *name;
    clsort_type type;
    size_t value_size; /* 0: keys only */
    sizes sizes;
    size_t base;
    dist dist;
    unsigned begin_bit, end_bit;
    int descending;
} tcase;

static size_t local_n(const tcase *c, int r)
{
    switch (c->sizes) {
    case SIZES_EQUAL:
        return c->base;
    case SIZES_UNEQUAL:
        return c->base / 3 + 997 * (size_t)r;
    case SIZES_ZEROS:
        return r % 2 ? 0 : c->base;
    case SIZES_ONE:
        return 1;
    case SIZES_LAST:
        return r == nranks - 1 ? c->base : 0;
    case SIZES_FIRST:
        return r == 0 ? c->base : 0;
    default:
        return 0;
    }
}

static void make_key(const tcase *c, uint64_t g, uint64_t seed, unsigned char *out)
{
    size_t kb = clsort_type_size(c->type);
    uint64_t v = mix(seed ^ g);
    switch (c->dist) {
    case DIST_FEW:
        v = mix(v % 5);
        break;
    case DIST_EQUAL:
        v = mix(seed);
        break;
    case DIST_SORTED:
    case DIST_REVERSED:
        v = c->dist == DIST_SORTED ? g : ~g;
        if (c->type == CLSORT_F32) {
            float f = (float)(c->dist == DIST_SORTED ? (double)g : -(double)g);
            memcpy(out, &f, 4);
            return;
        }
        if (c->type == CLSORT_F64) {
            double d = c->dist == DIST_SORTED ? (double)g : -(double)g;
            memcpy(out, &d, 8);
            return;
        }
        if (kb < 8 && c->dist == DIST_SORTED) /* stays ascending in the low bits */
            v = g >> (kb < 4 ? 4 : 0);
        if (c->type >= CLSORT_I8 && c->type <= CLSORT_I64 && kb < 8)
            v ^= 1ull << (kb * 8 - 1); /* the same order after the sign flip */
        break;
    default:
        break;
    }
    if (c->dist == DIST_RANDOM && (c->type == CLSORT_F32 || c->type == CLSORT_F64)) {
        unsigned pick = (unsigned)(mix(v) % 16);
        if (c->type == CLSORT_F32) {
            uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x80000000u,
                                   0x00000000u, 0x7f800000u, 0xff800000u, 0x00000001u};
            uint32_t b = pick < 8 ? specials[pick] : (uint32_t)v;
            if (pick >= 8) { /* finite: plain numbers of both signs */
                float f = (float)((int64_t)(v % 2001) - 1000) / 8.0f;
                memcpy(&b, &f, 4);
            }
            memcpy(out, &b, 4);
        } else {
            uint64_t specials[] = {0x7ff8000000000000ull, 0xfff0000000000001ull,
                                   0x8000000000000000ull, 0, 0x7ff0000000000000ull,
                                   0xfff0000000000000ull, 1, 0x7ff0000000000abcull};
            uint64_t b = pick < 8 ? specials[pick] : v;
            if (pick >= 8) {
                double d = (double)((int64_t)(v % 2001) - 1000) / 8.0;
                memcpy(&b, &d, 8);
            }
            memcpy(out, &b, 8);
        }
        return;
    }
    memcpy(out, &v, kb); /* little-endian: the low bytes */
}

/* Gathers each rank's bytes to rank 0 (in rank order); returns the buffer
 * there (NULL elsewhere). */
static unsigned char *gather(const void *mine, size_t bytes)
{
    long long b = (long long)bytes;
    long long *all = malloc((size_t)nranks * sizeof *all);
    MPI_Allgather(&b, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    int *counts = malloc((size_t)nranks * sizeof *counts), *displs = malloc((size_t)nranks * sizeof *displs);
    long long total = 0;
    for (int r = 0; r < nranks; r++) {
        counts[r] = (int)all[r];
        displs[r] = (int)total;
        total += all[r];
    }
    unsigned char *out = rank == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(mine, (int)bytes, MPI_BYTE, out, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(all);
    free(counts);
    free(displs);
    return out;
}

static void run_case(const tcase *c, unsigned index)
{
    setenv("CLSORT_MPI_MERGE", index % 2 ? "sort" : "host", 1);
    if (index % 4 == 0) /* the host merge cut into 3 threaded pieces */
        setenv("CLSORT_MPI_THREADS", "3", 1);
    else
        unsetenv("CLSORT_MPI_THREADS");
    int through_mpi = index % 3 == 2;
    if (through_mpi) {
        setenv("CLSORT_MPI_CHUNK", "7", 1);
        setenv("CLSORT_MPI_EXCHANGE", "mpi", 1);
    } else {
        unsetenv("CLSORT_MPI_CHUNK");
        unsetenv("CLSORT_MPI_EXCHANGE");
    }
    /* the device-resident steps (forced on PoCL): on every rank, or wished
     * by the odd ranks only (the ranks agree: none); the split's sample of
     * 3, 1000 or 4096 brackets, two kept between rounds (many reads) */
    int resident = index % 5 == 1 || index % 5 == 3;
    if (resident || (index % 5 == 2 && rank % 2 == 1))
        setenv("CLSORT_MPI_RESIDENT", "1", 1);
    else
        setenv("CLSORT_MPI_RESIDENT", "0", 1);
    setenv("CLSORT_MPI_PROBES", index % 3 == 0 ? "3" : index % 3 == 1 ? "1000" : "4096", 1);
    if (getenv("CLSORT_MPI_FAIL_RESIDENT")) /* (run_fallback) */
        resident = 0;
    size_t kb = clsort_type_size(c->type), vb = c->value_size;
    size_t n = local_n(c, rank);
    uint64_t first = 0;
    for (int r = 0; r < rank; r++)
        first += local_n(c, r);
    uint64_t seed = mix(index * 7919u + 17);
    unsigned char *keys = malloc(n * kb + 1), *values = malloc(n * (vb ? vb : 1) + 1);
    for (size_t i = 0; i < n; i++) {
        make_key(c, first + i, seed, keys + i * kb);
        for (size_t b = 0; b < vb; b++) /* the global position, then a pattern */
            values[i * vb + b] = b < 8 ? (unsigned char)((first + i) >> (8 * b))
                                       : (unsigned char)(mix(first + i) >> (b % 8));
    }
    unsigned char *in_k = gather(keys, n * kb), *in_v = vb ? gather(values, n * vb) : NULL;
    clsort_options opt = {.begin_bit = c->begin_bit, .end_bit = c->end_bit,
                          .descending = c->descending};
    clsort_status s = vb ? clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, c->type, keys, values, vb,
                                                 n, &opt)
                         : clsort_mpi_sort_keys(ctx, MPI_COMM_WORLD, c->type, keys, n, &opt);
    EXPECT(s == CLSORT_SUCCESS, "%s: %s\n%s", c->name, clsort_status_string(s),
           clsort_context_last_error(ctx));
    clsort_mpi_times t;
    clsort_mpi_last_times(&t);
    EXPECT(t.shared == (one_node && !through_mpi), "%s: the exchange was %s", c->name,
           t.shared ? "shared" : "through MPI");
    EXPECT(t.resident == resident, "%s: the elements %s on the device", c->name,
           t.resident ? "stayed" : "did not stay");
    unsigned char *out_k = gather(keys, n * kb), *out_v = vb ? gather(values, n * vb) : NULL;
    if (rank == 0) {
        size_t total = 0;
        for (int r = 0; r < nranks; r++)
            total += local_n(c, r);
        size_t *perm = malloc((total + 1) * sizeof *perm);
        ref_stable_perm(c->type, in_k, total, c->begin_bit, c->end_bit, c->descending, perm);
        size_t bad_k = 0, bad_v = 0, first_bad = total;
        for (size_t i = 0; i < total; i++) {
            int bk = memcmp(out_k + i * kb, in_k + perm[i] * kb, kb) != 0;
            int bv = vb && memcmp(out_v + i * vb, in_v + perm[i] * vb, vb) != 0;
            bad_k += bk;
            bad_v += bv;
            if ((bk || bv) && first_bad == total)
                first_bad = i;
        }
        EXPECT(bad_k == 0 && bad_v == 0,
               "%s (%d ranks, %zu keys): %zu keys and %zu values out of place, the first at %zu",
               c->name, nranks, total, bad_k, bad_v, first_bad);
        free(perm);
    }
    free(in_k);
    free(in_v);
    free(out_k);
    free(out_v);
    free(keys);
    free(values);
}

/* ------------------------------------------------------------- error cases */

enum bad { BAD_NULL_KEYS, BAD_NULL_VALUES, BAD_CTX, BAD_BITS, BAD_VALUE_SIZE, MISMATCH_TYPE,
           MISMATCH_DESCENDING, MISMATCH_VALUE_SIZE, MISMATCH_WINDOW };

static void run_error(enum bad what, const char *name)
{
    int bad = nranks - 1; /* the rank with the bad argument */
    int mismatch = what >= MISMATCH_TYPE;
    if (mismatch && nranks < 2)
        return;
    size_t n = 1000 + 10 * (size_t)rank, vb = 8;
    uint32_t *keys = malloc(n * 4), *copy_k = malloc(n * 4);
    uint64_t *values = malloc(n * 8), *copy_v = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (uint32_t)mix(i + 1000 * (size_t)rank);
        values[i] = i;
    }
    memcpy(copy_k, keys, n * 4);
    memcpy(copy_v, values, n * 8);
    clsort_type type = CLSORT_U32;
    clsort_options opt = {0};
    clsort_context *c = ctx;
    void *k = keys, *v = values;
    int me = rank == bad;
    if (me) {
        switch (what) {
        case BAD_NULL_KEYS: k = NULL; break;
        case BAD_NULL_VALUES: v = NULL; break;
        case BAD_CTX: c = NULL; break;
        case BAD_BITS: opt.begin_bit = 40; break;
        case BAD_VALUE_SIZE: vb = 0; break;
        case MISMATCH_TYPE: type = CLSORT_I32; break;
        case MISMATCH_DESCENDING: opt.descending = 1; break;
        case MISMATCH_VALUE_SIZE: vb = 4; break;
        case MISMATCH_WINDOW: opt.end_bit = 16; break;
        }
    }
    clsort_status s = clsort_mpi_sort_pairs(c, MPI_COMM_WORLD, type, k, v, vb, n, &opt);
    const char *msg = clsort_context_last_error(c);
    EXPECT(s != CLSORT_SUCCESS, "%s: succeeded", name);
    if (mismatch) {
        EXPECT(s == CLSORT_ERROR_INVALID_ARGUMENT, "%s: %s", name, clsort_status_string(s));
        EXPECT(strstr(msg, "differs between ranks") != NULL, "%s: message '%s'", name, msg);
    } else if (me) {
        EXPECT(s != CLSORT_ERROR_REMOTE, "%s: the bad rank says REMOTE", name);
    } else {
        char want[32];
        snprintf(want, sizeof want, "rank %d failed", bad);
        EXPECT(s == CLSORT_ERROR_REMOTE, "%s: %s", name, clsort_status_string(s));
        EXPECT(strstr(msg, want) != NULL, "%s: message '%s'", name, msg);
    }
    EXPECT(memcmp(keys, copy_k, n * 4) == 0 && memcmp(values, copy_v, n * 8) == 0,
           "%s: the arrays changed", name);
    free(keys);
    free(values);
    free(copy_k);
    free(copy_v);
}

/* A device failure after the arguments agree: the last rank's context may
 * use 4 KiB of device memory, too little for any sort of its 100000 keys,
 * so its local sort fails; or (merge set: device-resident steps) the last
 * rank fails in the merge, after the exchange ($CLSORT_MPI_FAIL_MERGE). The
 * others return CLSORT_ERROR_REMOTE, and every rank's keys are unchanged. */
static void run_device_failure(int resident, int merge)
{
    setenv("CLSORT_MPI_RESIDENT", resident ? "1" : "0", 1);
    char last[16];
    snprintf(last, sizeof last, "%d", nranks - 1);
    if (merge)
        setenv("CLSORT_MPI_FAIL_MERGE", last, 1);
    int bad = nranks - 1, me = rank == bad;
    clsort_context *use = ctx, *small = NULL;
    if (me && !merge) {
        clsort_context_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.device = getenv("CLSORT_TEST_DEVICE");
        cfg.device_memory = 4096;
        if (clsort_context_create_with_config(&small, &cfg) == CLSORT_SUCCESS)
            use = small;
    }
    int have = use != ctx || !me || merge, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            printf("device failure case skipped: no second context\n");
        clsort_context_release(small);
        return;
    }
    const size_t n = 100000;
    uint32_t *keys = malloc(n * 4), *copy = malloc(n * 4);
    int ok = keys && copy, every = 0;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (every) {
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)mix(i + 7 * (size_t)rank);
        memcpy(copy, keys, n * 4);
        clsort_status s = clsort_mpi_sort_keys(use, MPI_COMM_WORLD, CLSORT_U32, keys, n, NULL);
        const char *msg = clsort_context_last_error(use);
        EXPECT(s != CLSORT_SUCCESS, "device failure: succeeded");
        if (me && getenv("CLSORT_TEST_VERBOSE"))
            fprintf(stderr, "device failure on rank %d: %s: %s\n", rank, clsort_status_string(s),
                    msg);
        clsort_mpi_times t;
        clsort_mpi_last_times(&t);
        EXPECT(!merge || (t.resident && t.exchange > 0), "device failure: not in the merge");
        if (me) {
            EXPECT(s == (merge ? CLSORT_ERROR_INTERNAL : CLSORT_ERROR_TOO_LARGE),
                   "device failure: the failed rank says %s", clsort_status_string(s));
        } else {
            char want[32];
            snprintf(want, sizeof want, "rank %d failed", bad);
            EXPECT(s == CLSORT_ERROR_REMOTE && strstr(msg, want), "device failure: %s, '%s'",
                   clsort_status_string(s), msg);
        }
        EXPECT(memcmp(keys, copy, n * 4) == 0, "device failure: the keys changed");
    }
    free(keys);
    free(copy);
    clsort_context_release(small);
    unsetenv("CLSORT_MPI_FAIL_MERGE");
    unsetenv("CLSORT_MPI_RESIDENT");
}

/* A communicator whose shared-memory state failed to attach on the last
 * rank (CLSORT_MPI_FAIL_ATTACH): every rank exchanges through MPI, on the
 * first call and on the next (the ranks' states then differ), nobody
 * hangs, and both sorts are right. */
static void run_failed_attach(void)
{
    if (nranks < 2)
        return;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    unsetenv("CLSORT_MPI_EXCHANGE");
    char last[16];
    snprintf(last, sizeof last, "%d", nranks - 1);
    size_t n = 3000 + 17 * (size_t)rank;
    uint32_t *keys = malloc(n * 4);
    for (int call = 0; call < 2; call++) {
        setenv("CLSORT_MPI_FAIL_ATTACH", last, 1);
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)mix(i + 5000 * (size_t)rank + (size_t)call);
        clsort_status s = clsort_mpi_sort_keys(ctx, comm, CLSORT_U32, keys, n, NULL);
        unsetenv("CLSORT_MPI_FAIL_ATTACH");
        EXPECT(s == CLSORT_SUCCESS, "failed attach, call %d: %s\n%s", call,
               clsort_status_string(s), clsort_context_last_error(ctx));
        clsort_mpi_times t;
        clsort_mpi_last_times(&t);
        EXPECT(!t.shared, "failed attach, call %d: the exchange was shared", call);
        int ok = 1;
        for (size_t i = 1; i < n; i++)
            ok &= keys[i - 1] <= keys[i];
        uint32_t edge[2] = {keys[0], keys[n - 1]}, prev_last = 0;
        /* each rank's first key not below the previous rank's last */
        MPI_Sendrecv(&edge[1], 1, MPI_UINT32_T, (rank + 1) % nranks, 0, &prev_last, 1,
                     MPI_UINT32_T, (rank + nranks - 1) % nranks, 0, comm, MPI_STATUS_IGNORE);
        if (rank > 0)
            ok &= prev_last <= edge[0];
        EXPECT(ok, "failed attach, call %d: rank %d's keys out of order", call, rank);
    }
    free(keys);
    MPI_Comm_free(&comm);
}

/* A sort on a communicator of its own: the world split into even and odd
 * ranks, each half sorting its keys at once, checked within the half
 * against the reference (ranks numbered within the half, keys that differ
 * between halves so that a mix-up shows), through the half's own shared
 * window, freed with the half. */
static void run_split_comm(void)
{
    MPI_Comm half;
    int color = rank % 2, hrank, hsize;
    unsetenv("CLSORT_MPI_EXCHANGE");
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    size_t n = 2000 + 333 * (size_t)hrank;
    uint32_t *keys = malloc(n * 4), *vals = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (uint32_t)(mix(i + 10000 * (size_t)hrank + 7 * (size_t)color) % 1000) * 2 + color;
        vals[i] = (uint32_t)(i << 8 | (unsigned)hrank);
    }
    /* gather the half's input on its rank 0 */
    int *counts = malloc((size_t)hsize * sizeof *counts), *displs = malloc((size_t)hsize * sizeof *displs);
    int mine = (int)n;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, half);
    int total = 0;
    for (int r = 0; r < hsize; r++) {
        displs[r] = total;
        total += counts[r];
    }
    uint32_t *in_k = malloc((size_t)total * 4), *in_v = malloc((size_t)total * 4);
    uint32_t *out_k = malloc((size_t)total * 4), *out_v = malloc((size_t)total * 4);
    MPI_Gatherv(keys, mine, MPI_UINT32_T, in_k, counts, displs, MPI_UINT32_T, 0, half);
    MPI_Gatherv(vals, mine, MPI_UINT32_T, in_v, counts, displs, MPI_UINT32_T, 0, half);
    clsort_status s = clsort_mpi_sort_pairs(ctx, half, CLSORT_U32, keys, vals, 4, n, NULL);
    EXPECT(s == CLSORT_SUCCESS, "split communicator: %s\n%s", clsort_status_string(s),
           clsort_context_last_error(ctx));
    clsort_mpi_times t;
    clsort_mpi_last_times(&t);
    EXPECT(t.shared == one_node, "split communicator: the exchange was %s",
           t.shared ? "shared" : "through MPI");
    MPI_Gatherv(keys, mine, MPI_UINT32_T, out_k, counts, displs, MPI_UINT32_T, 0, half);
    MPI_Gatherv(vals, mine, MPI_UINT32_T, out_v, counts, displs, MPI_UINT32_T, 0, half);
    if (hrank == 0) {
        size_t *perm = malloc(((size_t)total + 1) * sizeof *perm), bad = 0;
        ref_stable_perm(CLSORT_U32, in_k, (size_t)total, 0, 0, 0, perm);
        for (int i = 0; i < total; i++)
            bad += out_k[i] != in_k[perm[i]] || out_v[i] != in_v[perm[i]];
        EXPECT(bad == 0, "split communicator (half %d, %d ranks): %zu elements out of place",
               color, hsize, bad);
        free(perm);
    }
    free(counts);
    free(displs);
    free(in_k);
    free(in_v);
    free(out_k);
    free(out_v);
    free(keys);
    free(vals);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm node;
    int node_size = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    MPI_Allreduce(MPI_IN_PLACE, &node_size, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    one_node = node_size == nranks;
    const char *dev = getenv("CLSORT_TEST_DEVICE");
    clsort_status s = clsort_context_create(&ctx, dev);
    int ok = s == CLSORT_SUCCESS, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "no OpenCL device: %s\n", clsort_context_last_error(NULL));
        clsort_context_release(ctx);
        MPI_Finalize();
        return s == CLSORT_ERROR_NO_PLATFORM ? 77 : 1;
    }
    static const tcase cases[] = {
        /* every type, unequal sizes, random keys (floats with specials) */
        {"u8", CLSORT_U8, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"u16", CLSORT_U16, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"u32", CLSORT_U32, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"u64", CLSORT_U64, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"i8", CLSORT_I8, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"i16", CLSORT_I16, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"i32", CLSORT_I32, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"i64", CLSORT_I64, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"f32", CLSORT_F32, 4, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        {"f64", CLSORT_F64, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 0},
        /* sizes: zeros on some ranks, one key, all on one rank, nothing */
        {"zeros on odd ranks", CLSORT_U32, 8, SIZES_ZEROS, 2000, DIST_RANDOM, 0, 0, 0},
        {"one key each", CLSORT_U32, 8, SIZES_ONE, 1, DIST_RANDOM, 0, 0, 0},
        {"all on the last rank", CLSORT_U64, 8, SIZES_LAST, 5000, DIST_RANDOM, 0, 0, 0},
        {"all on rank 0", CLSORT_I32, 8, SIZES_FIRST, 5000, DIST_FEW, 0, 0, 0},
        {"empty", CLSORT_U32, 8, SIZES_EMPTY, 0, DIST_RANDOM, 0, 0, 0},
        /* pairs with 1, 8 and 100-byte values */
        {"pairs 1 B", CLSORT_U32, 1, SIZES_UNEQUAL, 4000, DIST_FEW, 0, 0, 0},
        {"pairs 8 B", CLSORT_U32, 8, SIZES_UNEQUAL, 4000, DIST_RANDOM, 0, 0, 0},
        {"pairs 100 B", CLSORT_U16, 100, SIZES_UNEQUAL, 4000, DIST_FEW, 0, 0, 0},
        /* ties split across ranks, order kept */
        {"all equal", CLSORT_U32, 8, SIZES_UNEQUAL, 3000, DIST_EQUAL, 0, 0, 0},
        {"all equal f64", CLSORT_F64, 8, SIZES_ZEROS, 3000, DIST_EQUAL, 0, 0, 0},
        {"few keys", CLSORT_U8, 8, SIZES_EQUAL, 2000, DIST_FEW, 0, 0, 0},
        /* descending, bit windows */
        {"descending i32", CLSORT_I32, 8, SIZES_UNEQUAL, 3000, DIST_FEW, 0, 0, 1},
        {"descending f32", CLSORT_F32, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 1},
        {"descending u64", CLSORT_U64, 0, SIZES_UNEQUAL, 3000, DIST_RANDOM, 0, 0, 1},
        {"window u32 [4,12)", CLSORT_U32, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 4, 12, 0},
        {"window u64 [8,40) desc", CLSORT_U64, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 8, 40, 1},
        {"window f32 [20,32)", CLSORT_F32, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 20, 32, 0},
        {"window i16 [3,9)", CLSORT_I16, 8, SIZES_UNEQUAL, 3000, DIST_RANDOM, 3, 9, 0},
        /* orders that move everything between ranks */
        {"sorted", CLSORT_U32, 8, SIZES_UNEQUAL, 3000, DIST_SORTED, 0, 0, 0},
        {"reversed", CLSORT_U32, 8, SIZES_UNEQUAL, 3000, DIST_REVERSED, 0, 0, 0},
        {"reversed f32", CLSORT_F32, 0, SIZES_UNEQUAL, 3000, DIST_REVERSED, 0, 0, 0},
        {"sorted i64 descending", CLSORT_I64, 8, SIZES_EQUAL, 3000, DIST_SORTED, 0, 0, 1},
        /* ~100k per rank */
        {"large u32", CLSORT_U32, 0, SIZES_EQUAL, 100000, DIST_RANDOM, 0, 0, 0},
        {"large pairs u64", CLSORT_U64, 8, SIZES_UNEQUAL, 100000, DIST_RANDOM, 0, 0, 0},
        {"large equal", CLSORT_U32, 4, SIZES_UNEQUAL, 100000, DIST_EQUAL, 0, 0, 0},
    };
    unsigned count = (unsigned)(sizeof cases / sizeof cases[0]);
    for (unsigned i = 0; i < count; i++) {
        run_case(&cases[i], i);
        if (rank == 0 && getenv("CLSORT_TEST_VERBOSE"))
            fprintf(stderr, "case %u: %s done\n", i, cases[i].name);
    }
    unsetenv("CLSORT_MPI_CHUNK");
    run_error(BAD_NULL_KEYS, "NULL keys on one rank");
    run_error(BAD_NULL_VALUES, "NULL values on one rank");
    run_error(BAD_CTX, "NULL context on one rank");
    run_error(BAD_BITS, "bad bit window on one rank");
    run_error(BAD_VALUE_SIZE, "value size 0 on one rank");
    run_error(MISMATCH_TYPE, "key types differ");
    run_error(MISMATCH_DESCENDING, "directions differ");
    run_error(MISMATCH_VALUE_SIZE, "value sizes differ");
    run_error(MISMATCH_WINDOW, "bit windows differ");
    run_device_failure(0, 0);
    run_device_failure(1, 0);
    run_device_failure(1, 1);
    /* no room on the last rank's card: every rank sorts through host
     * memory instead, and the sort succeeds (run_case checks the route) */
    char last[16];
    snprintf(last, sizeof last, "%d", nranks - 1);
    setenv("CLSORT_MPI_FAIL_RESIDENT", last, 1);
    setenv("CLSORT_MPI_RESIDENT", "1", 1);
    run_case(&cases[17], 101);
    unsetenv("CLSORT_MPI_FAIL_RESIDENT");
    run_split_comm();
    run_failed_attach();
    /* still works after the failures */
    run_case(&cases[16], 100);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("clsort_mpi tests on %d rank%s: %s (%d failed checks)\n", nranks,
               nranks > 1 ? "s" : "", total ? "FAILED" : "passed", total);
    clsort_context_release(ctx);
    MPI_Finalize();
    return total ? 1 : 0;
}

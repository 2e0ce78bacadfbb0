/* clsort-mpi - the distributed sort from the command line, under mpirun:
 * sorts a distributed array (generated, or a raw file split between the
 * ranks), checks the result, and times it with the split of
 * clsort_mpi_last_times per rank. Uses only the public headers (and the
 * bench data generators).
 *
 *   mpirun -np 4 clsort-mpi sort --n 64M --type u32 --rounds 5
 *   mpirun -np 2 clsort-mpi sort --input keys.u32 --output sorted.u32
 *
 * (clsort-mpi sort --help lists the options.)
 */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <clsort_mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

static int rank, nranks;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np P clsort-mpi sort [options]\n"
            "\n"
            "Sorts a distributed array with clsort_mpi_sort_keys (or _pairs), one rank\n"
            "per device, checks it and prints the time split of each rank.\n"
            "\n"
            "  --device D        this rank's device: default, gpu, cpu, P:D or a name;\n"
            "                    a list D0,D1,... gives rank r the entry r mod the count\n"
            "                    (e.g. 0:0,0:1 for two GPUs of one platform)\n"
            "  --type T          key type u8..f64 (default u32)\n"
            "  --values B        carry values of B bytes (default: keys only); the values\n"
            "                    hold each element's global position, and the check\n"
            "                    verifies stability with them\n"
            "  --n N             keys in total, split evenly (suffixes K, M, G: powers of\n"
            "                    two; default 1M)\n"
            "  --n-per-rank N    keys on each rank instead\n"
            "  --layout L        even (default), one-rank (everything on rank 0),\n"
            "                    ramp (rank r holds a share proportional to r + 1)\n"
            "  --dist D          uniform (default), all-equal, sorted, reversed, few-unique,\n"
            "                    0-255, 0-65535, 0-1023, high-bits, one-digit, specials\n"
            "  --bits B:E        sort on bits [B, E) of the key's image\n"
            "  --descending      largest first\n"
            "  --rounds R        timed sorts (default 1); times are medians over them\n"
            "  --warmup W        untimed sorts before them (default 1: kernel builds)\n"
            "  --baseline        instead of the distributed sort, each rank times\n"
            "                    clsort_sort_keys/_pairs of its own keys alone\n"
            "  --no-check        skip the check\n"
            "  --input F         read the keys from raw file F (each rank a contiguous\n"
            "                    share) instead of generating them\n"
            "  --output F        write the sorted keys to raw file F (each rank its part)\n"
            "  --seed S          generator seed (default 20111; rank r uses S + r, but\n"
            "                    all-equal gives every rank the same key)\n"
            "\n"
            "Environment: CLSORT_MPI_MERGE=host|sort picks the merge of received runs;\n"
            "CLSORT_MPI_RESIDENT=1|0 keeps the elements on the devices between the steps\n"
            "(default on discrete GPUs) or not; CLSORT_MPI_EXCHANGE=mpi exchanges through\n"
            "MPI_Alltoallw even where the ranks share a node.\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    if (*end)
        return 0;
    *out = (size_t)v;
    return 1;
}

/* The key's order-preserving image over [begin, end), as clsort.h defines
 * it, complemented for descending: the check's order. */
static uint64_t image(clsort_type t, const unsigned char *p, unsigned begin, unsigned end,
                      int descending)
{
    size_t bytes = clsort_type_size(t);
    uint64_t v = 0;
    memcpy(&v, p, bytes); /* little-endian */
    unsigned bits = (unsigned)bytes * 8;
    uint64_t sign = 1ull << (bits - 1), all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64)
        v ^= sign;
    else if (t == CLSORT_F32 || t == CLSORT_F64) {
        uint64_t expo = bits == 32 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t mant = bits == 32 ? 0x007fffffull : 0x000fffffffffffffull;
        if ((v & expo) == expo && (v & mant))
            v = all;
        else {
            if (v == sign)
                v = 0;
            v = (v & sign) ? (~v & all) : (v | sign);
        }
    }
    unsigned w = end - begin;
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    v = (v >> begin) & m;
    return descending ? (~v & m) : v;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Order-independent fingerprint of (key, value) multisets. */
static uint64_t fingerprint(const unsigned char *keys, size_t kb, const unsigned char *values,
                            size_t vb, size_t n)
{
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 0, v = 0;
        memcpy(&k, keys + i * kb, kb);
        if (vb)
            memcpy(&v, values + i * vb, vb < 8 ? vb : 8);
        h += mix(k ^ mix(v + 0x1234567ull));
    }
    return h;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct settings {
    const char *device, *input, *output;
    clsort_type type;
    size_t vb, n, n_per_rank;
    const char *layout;
    data_dist dist;
    unsigned begin, end;
    int descending, rounds, warmup, baseline, check;
    uint64_t seed;
} settings;

/* This rank's n and the global position of its first key. */
static void share(const settings *st, size_t total, size_t *n, size_t *first)
{
    size_t f = 0, mine = 0;
    for (int r = 0; r <= rank; r++) {
        size_t c;
        if (st->n_per_rank)
            c = st->n_per_rank;
        else if (!strcmp(st->layout, "one-rank"))
            c = r == 0 ? total : 0;
        else if (!strcmp(st->layout, "ramp")) {
            size_t w = (size_t)nranks * (nranks + 1) / 2, lo = 0;
            for (int q = 0; q < r; q++)
                lo += q + 1;
            c = (size_t)((double)total * (lo + r + 1) / w) - (size_t)((double)total * lo / w);
        } else
            c = total / nranks + ((size_t)r < total % nranks);
        if (r < rank)
            f += c;
        else
            mine = c;
    }
    *n = mine;
    *first = f;
}

static int read_share(const settings *st, unsigned char **keys, size_t *n, size_t *first)
{
    size_t kb = clsort_type_size(st->type);
    FILE *f = fopen(st->input, "rb");
    if (!f || fseeko(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "clsort-mpi: rank %d: cannot open %s\n", rank, st->input);
        if (f)
            fclose(f);
        return 0;
    }
    size_t total = (size_t)ftello(f) / kb;
    share(st, total, n, first);
    *keys = malloc(*n * kb + 1);
    int ok = *keys && fseeko(f, (off_t)(*first * kb), SEEK_SET) == 0 &&
             fread(*keys, kb, *n, f) == *n;
    fclose(f);
    if (!ok)
        fprintf(stderr, "clsort-mpi: rank %d: cannot read %s\n", rank, st->input);
    return ok;
}

static int write_share(const settings *st, const unsigned char *keys, size_t n, size_t first)
{
    size_t kb = clsort_type_size(st->type);
    if (rank == 0) { /* create or truncate it first */
        FILE *f = fopen(st->output, "wb");
        if (f)
            fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    FILE *f = fopen(st->output, "r+b");
    int ok = f && fseeko(f, (off_t)(first * kb), SEEK_SET) == 0 && fwrite(keys, kb, n, f) == n;
    if (f)
        ok = (fclose(f) == 0) && ok;
    if (!ok)
        fprintf(stderr, "clsort-mpi: rank %d: cannot write %s\n", rank, st->output);
    return ok;
}

/* Checks the distributed result: sorted within and across ranks (with the
 * values' global positions as tie-breaks: stable), and the same multiset
 * of (key, value) as the input (fingerprints summed over the ranks). */
static int check(const settings *st, const unsigned char *keys, const unsigned char *values,
                 size_t n, uint64_t fp_in)
{
    size_t kb = clsort_type_size(st->type), vb = st->vb;
    unsigned end = st->end ? st->end : (unsigned)kb * 8;
    long long bad = 0;
    uint64_t prev_k = 0, prev_t = 0;
    int have_prev = 0;
    /* every rank's last element: (non-empty, image, position value) */
    uint64_t last[3] = {0, 0, 0};
    if (n > 0) {
        last[0] = 1;
        last[1] = image(st->type, keys + (n - 1) * kb, st->begin, end, st->descending);
        if (vb >= 8)
            memcpy(&last[2], values + (n - 1) * vb, 8);
    }
    uint64_t *lasts = malloc((size_t)nranks * sizeof last);
    MPI_Allgather(last, 3, MPI_UINT64_T, lasts, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = rank - 1; r >= 0; r--) /* the nearest non-empty rank before */
        if (lasts[3 * r]) {
            have_prev = 1;
            prev_k = lasts[3 * r + 1];
            prev_t = lasts[3 * r + 2];
            break;
        }
    free(lasts);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = image(st->type, keys + i * kb, st->begin, end, st->descending), t = 0;
        if (vb >= 8)
            memcpy(&t, values + i * vb, 8);
        if (have_prev && (k < prev_k || (vb >= 8 && k == prev_k && t <= prev_t)))
            bad++;
        prev_k = k;
        prev_t = t;
        have_prev = 1;
    }
    uint64_t fp_out = fingerprint(keys, kb, values, vb, n), sums[2] = {fp_in, fp_out}, tot[2];
    long long allbad = 0;
    MPI_Allreduce(sums, tot, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (allbad)
            printf("check: FAILED, %lld elements out of order\n", allbad);
        if (tot[0] != tot[1])
            printf("check: FAILED, the output is not a permutation of the input\n");
        if (!allbad && tot[0] == tot[1])
            printf("check: passed (order%s, multiset of keys%s)\n",
                   vb >= 8 ? " and stability" : "", vb ? " and values" : "");
    }
    return !allbad && tot[0] == tot[1];
}

static int cmd_sort(int argc, char **argv)
{
    settings st = {.type = CLSORT_U32, .n = 1u << 20, .layout = "even", .rounds = 1, .warmup = 1,
                   .check = 1, .seed = 20111, .dist = DATA_UNIFORM};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 1;
        if (!strcmp(a, "--device") && next)
            st.device = next;
        else if (!strcmp(a, "--type") && next) {
            if (!(st.type = clsort_type_from_name(next)))
                goto bad;
        } else if (!strcmp(a, "--values") && next)
            st.vb = strtoul(next, NULL, 10);
        else if (!strcmp(a, "--n") && next) {
            if (!parse_size(next, &st.n))
                goto bad;
        } else if (!strcmp(a, "--n-per-rank") && next) {
            if (!parse_size(next, &st.n_per_rank))
                goto bad;
        } else if (!strcmp(a, "--layout") && next)
            st.layout = next;
        else if (!strcmp(a, "--dist") && next) {
            int d = 0;
            while (d < DATA_DIST_COUNT && strcmp(data_dist_name((data_dist)d), next))
                d++;
            if (d == DATA_DIST_COUNT)
                goto bad;
            st.dist = (data_dist)d;
        } else if (!strcmp(a, "--bits") && next) {
            if (sscanf(next, "%u:%u", &st.begin, &st.end) != 2)
                goto bad;
        } else if (!strcmp(a, "--rounds") && next)
            st.rounds = atoi(next);
        else if (!strcmp(a, "--warmup") && next)
            st.warmup = atoi(next);
        else if (!strcmp(a, "--seed") && next)
            st.seed = strtoull(next, NULL, 10);
        else if (!strcmp(a, "--input") && next)
            st.input = next;
        else if (!strcmp(a, "--output") && next)
            st.output = next;
        else {
            used = 0;
            if (!strcmp(a, "--descending"))
                st.descending = 1;
            else if (!strcmp(a, "--baseline"))
                st.baseline = 1;
            else if (!strcmp(a, "--no-check"))
                st.check = 0;
            else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
                if (rank == 0)
                    usage(stdout);
                return 0;
            } else {
            bad:
                if (rank == 0) {
                    fprintf(stderr, "clsort-mpi sort: bad option '%s'\n", a);
                    usage(stderr);
                }
                return 2;
            }
        }
        i += used;
    }
    if (st.rounds < 1)
        st.rounds = 1;

    /* this rank's device: entry rank mod count of a comma-separated list */
    char dev[256] = "";
    if (st.device) {
        int count = 1;
        for (const char *p = st.device; *p; p++)
            count += *p == ',';
        const char *p = st.device;
        for (int k = rank % count; k > 0; k--)
            p = strchr(p, ',') + 1;
        size_t len = strcspn(p, ",");
        snprintf(dev, sizeof dev, "%.*s", (int)(len < sizeof dev ? len : sizeof dev - 1), p);
    }
    clsort_context *ctx = NULL;
    clsort_status s = clsort_context_create(&ctx, st.device && strcmp(dev, "default") ? dev : NULL);
    int ok = s == CLSORT_SUCCESS, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        fprintf(stderr, "clsort-mpi: rank %d: %s\n%s\n", rank, clsort_status_string(s),
                clsort_context_last_error(NULL));
    if (!all_ok) {
        clsort_context_release(ctx);
        return 1;
    }
    size_t kb = clsort_type_size(st.type), vb = st.vb, n, first;
    unsigned char *keys = NULL, *input = NULL, *values = NULL, *input_v = NULL;
    int good = 1;
    if (st.input)
        good = read_share(&st, &input, &n, &first);
    else {
        share(&st, st.n, &n, &first);
        input = malloc(n * kb + 1);
        good = input != NULL;
        if (good)
            /* all-equal: one key on every rank, so ties cross the ranks */
            data_fill(input, st.type, n, st.dist,
                      st.seed + (st.dist == DATA_ALL_EQUAL ? 0 : (uint64_t)rank));
    }
    keys = malloc(n * kb + 1);
    if (vb) {
        values = malloc(n * vb + 1);
        input_v = malloc(n * vb + 1);
        for (size_t i = 0; input_v && i < n; i++) { /* the global position, then zeros */
            uint64_t g = first + i;
            memset(input_v + i * vb, 0, vb);
            memcpy(input_v + i * vb, &g, vb < 8 ? vb : 8);
        }
    }
    good = good && keys && (!vb || (values && input_v));
    MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!good) {
        if (rank == 0)
            fprintf(stderr, "clsort-mpi: input or memory failed on some rank\n");
        return 1;
    }
    uint64_t mine = n, total64 = 0;
    MPI_Allreduce(&mine, &total64, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    size_t total = (size_t)total64;
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    if (rank == 0) {
        char what[64] = "";
        if (vb)
            snprintf(what, sizeof what, " + %zu-byte values", vb);
        printf("clsort-mpi sort: %d rank%s, %s keys%s, %zu in total, %s, %s, %d round%s; "
               "rank 0 on %s\n",
               nranks, nranks > 1 ? "s" : "", clsort_type_name(st.type), what, total,
               st.input ? st.input : data_dist_name(st.dist),
               st.baseline ? "each rank alone (baseline)" : "distributed", st.rounds,
               st.rounds > 1 ? "s" : "", info.device_name);
    }
    clsort_options opt = {.begin_bit = st.begin, .end_bit = st.end, .descending = st.descending};
    enum { T_TOTAL, T_CHECK, T_LOCAL, T_SPLIT, T_EXCH, T_MERGE, T_COUNT };
    double *t = calloc((size_t)st.rounds * T_COUNT, sizeof *t);
    clsort_mpi_times last = {0};
    int status_ok = 1;
    if (st.warmup < 0)
        st.warmup = 0;
    for (int round = -st.warmup; round < st.rounds && status_ok; round++) {
        memcpy(keys, input, n * kb);
        if (vb)
            memcpy(values, input_v, n * vb);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (st.baseline)
            s = vb ? clsort_sort_pairs(ctx, st.type, keys, values, vb, n, &opt)
                   : clsort_sort_keys(ctx, st.type, keys, n, &opt);
        else
            s = vb ? clsort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, st.type, keys, values, vb, n, &opt)
                   : clsort_mpi_sort_keys(ctx, MPI_COMM_WORLD, st.type, keys, n, &opt);
        double t1 = MPI_Wtime();
        if (s != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort-mpi: rank %d: %s\n%s\n", rank, clsort_status_string(s),
                    clsort_context_last_error(ctx));
            status_ok = 0;
        }
        clsort_mpi_last_times(&last);
        MPI_Allreduce(MPI_IN_PLACE, &status_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (round < 0)
            continue;
        double *r = t + (size_t)round * T_COUNT;
        r[T_TOTAL] = t1 - t0;
        if (!st.baseline) {
            r[T_CHECK] = last.check;
            r[T_LOCAL] = last.local_sort;
            r[T_SPLIT] = last.splitters;
            r[T_EXCH] = last.exchange;
            r[T_MERGE] = last.merge;
        } else
            r[T_LOCAL] = t1 - t0;
    }
    if (!status_ok) {
        clsort_context_release(ctx);
        return 1;
    }
    /* per-rank medians, gathered and printed by rank 0 */
    double med[T_COUNT + 3], *col = malloc((size_t)st.rounds * sizeof *col);
    for (int c = 0; c < T_COUNT; c++) {
        for (int round = 0; round < st.rounds; round++)
            col[round] = t[(size_t)round * T_COUNT + c];
        med[c] = median(col, st.rounds);
    }
    med[T_COUNT] = (double)n;
    med[T_COUNT + 1] = (double)last.sent;
    med[T_COUNT + 2] = (double)last.received;
    double *all = rank == 0 ? malloc((size_t)nranks * (T_COUNT + 3) * sizeof *all) : NULL;
    MPI_Gather(med, T_COUNT + 3, MPI_DOUBLE, all, T_COUNT + 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("rank          n   total_ms   check_ms   local_ms   split_ms  exchange_ms  "
               "merge_ms       sent   received   (medians)\n");
        double worst = 0, exch = 0, local = 0, split = 0, merge = 0;
        for (int r = 0; r < nranks; r++) {
            double *m = all + (size_t)r * (T_COUNT + 3);
            printf("%4d %10.0f %10.2f %10.2f %10.2f %10.2f %12.2f %9.2f %10.0f %10.0f\n", r,
                   m[T_COUNT], 1e3 * m[T_TOTAL], 1e3 * m[T_CHECK], 1e3 * m[T_LOCAL],
                   1e3 * m[T_SPLIT], 1e3 * m[T_EXCH], 1e3 * m[T_MERGE], m[T_COUNT + 1],
                   m[T_COUNT + 2]);
            if (m[T_TOTAL] > worst)
                worst = m[T_TOTAL];
            exch += m[T_EXCH] / nranks;
            local += m[T_LOCAL] / nranks;
            split += m[T_SPLIT] / nranks;
            merge += m[T_MERGE] / nranks;
        }
        printf("RESULT mode=%s ranks=%d type=%s values=%zu n=%zu time_ms=%.3f mkeys_s=%.1f "
               "local_ms=%.3f split_ms=%.3f exchange_ms=%.3f merge_ms=%.3f exchange_share=%.3f "
               "merge=%s exchange=%s steps=%s\n",
               st.baseline ? "baseline" : "distributed", nranks, clsort_type_name(st.type), vb,
               total, 1e3 * worst, worst > 0 ? total / worst / 1e6 : 0.0, 1e3 * local,
               1e3 * split, 1e3 * exch, 1e3 * merge, worst > 0 ? exch / worst : 0.0,
               st.baseline ? "-" : last.merge_by_sort ? "sort" : "host",
               st.baseline ? "-" : last.shared ? "shared" : "mpi",
               st.baseline ? "-" : last.resident ? "resident" : "host");
    }
    int result = 0;
    if (st.check && !st.baseline) {
        uint64_t fp_in = fingerprint(input, kb, input_v, vb, n);
        result = check(&st, keys, values, n, fp_in) ? 0 : 1;
    }
    if (st.output && !write_share(&st, keys, n, first))
        result = 1;
    free(all);
    free(col);
    free(t);
    free(keys);
    free(values);
    free(input);
    free(input_v);
    clsort_context_release(ctx);
    return result;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc;
    if (argc >= 2 && !strcmp(argv[1], "sort"))
        rc = cmd_sort(argc - 2, argv + 2);
    else {
        if (rank == 0)
            usage(argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
        rc = argc >= 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    MPI_Finalize();
    return rc;
}

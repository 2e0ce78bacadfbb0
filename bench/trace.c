/* trace.c - where a onesweep tile's time goes (NVIDIA). Builds the library's
 * onesweep kernel from src/kernels with CLSORT_OS_TRACE, runs one radix pass
 * (the low 8 bits) over n random keys with the shape given, checks the
 * output against a counting sort on the host, and prints, from the cycle
 * counter that work-item 0 of each tile notes at the end of each phase, the
 * median and mean cycles of the phases, the tiles in flight, and the pass's
 * time with and without the trace (the trace must not change the kernel's
 * registers: ptxas's line is printed for both builds).
 *
 * usage: clsort_trace KERNEL_DIR [n=268435456] [wg=256] [items=24] [rank=4]
 *                     [lb_batch=2] [key_bytes=4] [val_bytes=0] [extra -D options]
 * environment: CLSORT_TRACE_PTX=FILE writes the plain build's PTX (for
 * ptxas -v and cuobjdump -sass); CLSORT_TRACE_PATCH=".maxnreg 64;..." adds
 * builds of that PTX with each performance directive put before the onesweep
 * entry's body (NVIDIA honours these where it ignores -cl-nv-maxrregcount),
 * timed and checked beside the others; CLSORT_TRACE_ORDERED=1 first orders
 * the keys by their second byte (stably), as a later LSD pass finds its
 * input: ordered by a digit other than its own. Set CUDA_CACHE_DISABLE=1 to see
 * ptxas's register line for every build (a cached build prints none).
 * CLSORT_TRACE_MODE=chain or cold: see the timing loop.
 * The phases (marks in radix_onesweep.cl): start (the tile-counter atomic
 * and zeroing the counters, to the first barrier), load+count (the keys
 * loaded, per-warp digit counts), scan (warp counts to tile offsets, the
 * tile's counts published), rank (each key's place), look-back (the keys
 * staged in digit order and the global offsets learned), write (the keys
 * written out), values (pairs only). */
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvprobe.h"

#define WORDS 12 /* OS_TRACE_WORDS */
#define RADIX 256u

static char *read_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) {
        free(s);
        s = NULL;
    }
    if (s)
        s[len] = 0;
    fclose(f);
    return s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define CHECK(e, what)                                                           \
    do {                                                                         \
        cl_int e_ = (e);                                                         \
        if (e_ != CL_SUCCESS) {                                                  \
            fprintf(stderr, "clsort_trace: %s failed (%d)\n", what, e_);          \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

typedef struct build {
    cl_program prog;
    cl_kernel k;
} build;

/* Builds from source (ptx NULL) or from NVIDIA's PTX text (a program binary
 * there); returns a build with k NULL when a PTX build fails. */
static build make(cl_context ctx, cl_device_id dev, const char **src, const char *opts,
                  const char *ptx)
{
    cl_int err;
    build b;
    if (ptx) {
        size_t len = strlen(ptx) + 1;
        const unsigned char *bin = (const unsigned char *)ptx;
        cl_int st;
        b.prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &st, &err);
        CHECK(err, "clCreateProgramWithBinary");
    } else {
        b.prog = clCreateProgramWithSource(ctx, 4, src, NULL, &err);
        CHECK(err, "clCreateProgramWithSource");
    }
    cl_int berr = clBuildProgram(b.prog, 1, &dev, ptx ? "-cl-nv-verbose" : opts, NULL, NULL);
    size_t loglen = 0;
    clGetProgramBuildInfo(b.prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &loglen);
    char *log = malloc(loglen + 1);
    clGetProgramBuildInfo(b.prog, dev, CL_PROGRAM_BUILD_LOG, loglen, log, NULL);
    log[loglen] = 0;
    if (berr != CL_SUCCESS) {
        fprintf(stderr, "clsort_trace: build failed (%d):\n%s\n", berr, log);
        if (!ptx)
            exit(1);
        free(log);
        b.k = NULL;
        return b;
    }
    /* ptxas's lines for the onesweep kernel */
    const char *p = strstr(log, "entry function 'clsort_radix_onesweep'");
    for (const char *l = p ? p : log; l && *l;) {
        const char *e = strchr(l, '\n');
        if (strstr(l, "ptxas info") && strstr(l, "Used") && (!e || strstr(l, "Used") < e)) {
            printf("  %.*s\n", e ? (int)(e - l) : (int)strlen(l), l);
            break;
        }
        l = e ? e + 1 : NULL;
    }
    free(log);
    b.k = clCreateKernel(b.prog, "clsort_radix_onesweep", &err);
    CHECK(err, "clCreateKernel");
    return b;
}

/* The program's PTX (NVIDIA's program binary), NUL-terminated. */
static char *program_ptx(cl_program prog)
{
    size_t size = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char *bin = malloc(size + 1), *bins[1] = {bin};
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
    bin[size] = 0;
    return (char *)bin;
}

/* The PTX with a performance directive (".maxnreg 64", ".minnctapersm 4")
 * put before the body of the onesweep entry; NULL if it is not found. */
static char *patch_ptx(const char *ptx, const char *directive)
{
    const char *e = strstr(ptx, ".entry clsort_radix_onesweep(");
    const char *body = e ? strstr(e, "\n{") : NULL;
    if (!body)
        return NULL;
    size_t head = (size_t)(body - ptx), dl = strlen(directive);
    char *out = malloc(strlen(ptx) + dl + 2);
    memcpy(out, ptx, head);
    out[head] = '\n';
    memcpy(out + head + 1, directive, dl);
    strcpy(out + head + 1 + dl, body);
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: clsort_trace KERNEL_DIR [n] [wg] [items] [rank] [lb_batch] "
                        "[key_bytes] [val_bytes] [extra options]\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 268435456u;
    unsigned wg = argc > 3 ? (unsigned)atoi(argv[3]) : 256;
    unsigned items = argc > 4 ? (unsigned)atoi(argv[4]) : 24;
    unsigned rank = argc > 5 ? (unsigned)atoi(argv[5]) : 4;
    unsigned lbb = argc > 6 ? (unsigned)atoi(argv[6]) : 2;
    unsigned kb = argc > 7 ? (unsigned)atoi(argv[7]) : 4;
    unsigned vb = argc > 8 ? (unsigned)atoi(argv[8]) : 0;
    const char *extra = argc > 9 ? argv[9] : "";
    if (n == 0 || n >= (1u << 30) || (kb != 4 && kb != 8) || (vb != 0 && vb != 4) ||
        wg % 32 || wg == 0 || items == 0 || (size_t)wg * items > 65536 || rank < 2 || rank > 4) {
        fprintf(stderr, "clsort_trace: n in 1..2^30-1, key_bytes 4 or 8, val_bytes 0 or 4, "
                        "wg a multiple of 32, wg * items at most 65536, rank 2..4\n");
        return 2;
    }
    const char *names[4] = {"common.cl", "radix_layout.h", "radix.cl", "radix_onesweep.cl"};
    const char *src[4];
    for (int i = 0; i < 4; i++)
        if (!(src[i] = read_file(dir, names[i]))) {
            fprintf(stderr, "clsort_trace: cannot read %s/%s\n", dir, names[i]);
            return 1;
        }

    cl_device_id dev = nvprobe_device("clsort_trace");
    if (!dev)
        return 1;
    /* what the library reads to choose relaxed look-back accesses
     * (CLSORT_NV_SM70): cl_nv_device_attribute_query's compute capability */
    cl_uint cc[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        if (clGetDeviceInfo(dev, (cl_device_info)(0x4000 + i), sizeof cc[i], &cc[i], NULL))
            cc[i] = 0;
    printf("compute capability %u.%u (0.0: not reported)\n", cc[0], cc[1]);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err, "clCreateCommandQueue");

    char base[1024], traced[1200];
    snprintf(base, sizeof base,
             "-cl-std=CL1.2 -cl-nv-verbose -DCLSORT_KEY_BYTES=%u -DCLSORT_KEY_KIND=0 "
             "-DCLSORT_VAL_BYTES=%u -DCLSORT_INDEX64=0 -DCLSORT_NVIDIA=1 -DCLSORT_RADIX_BITS=8 "
             "-DCLSORT_HIST_WG=128 -DCLSORT_HIST_ITEMS=8 -DCLSORT_PLAN_WG=256 -DCLSORT_NV_SM70=1 "
             "-DCLSORT_OS_WG=%u "
             "-DCLSORT_OS_ITEMS=%u -DCLSORT_OS_RANK=%u -DCLSORT_LB_BATCH=%u %s",
             kb, vb, wg, items, rank, lbb, extra);
    snprintf(traced, sizeof traced, "%s -DCLSORT_OS_TRACE", base);
    printf("clsort_trace: n %zu, %u x %u, rank %u, lb_batch %u, key %u B, values %u B %s\n", n,
           wg, items, rank, lbb, kb, vb, extra);
    /* builds: 0 plain, 1 traced, then the plain PTX with each directive of
     * CLSORT_TRACE_PATCH (';'-separated) */
    enum { MAXB = 8 };
    build b[MAXB];
    char label[MAXB][64];
    int nb = 0;
    for (int t = 0; t < 2; t++) {
        snprintf(label[nb], sizeof label[nb], "%s", t ? "traced" : "plain");
        printf("build %s:\n", label[nb]);
        b[nb++] = make(ctx, dev, src, t ? traced : base, NULL);
    }
    char *ptx = program_ptx(b[0].prog);
    const char *dump = getenv("CLSORT_TRACE_PTX"); /* the plain build's PTX, for ptxas */
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (f) {
            fputs(ptx, f);
            fclose(f);
        }
    }
    const char *patches = getenv("CLSORT_TRACE_PATCH");
    char pbuf[512];
    snprintf(pbuf, sizeof pbuf, "%s", patches ? patches : "");
    for (char *tok = strtok(pbuf, ";"); tok && nb < MAXB; tok = strtok(NULL, ";")) {
        char *pp = patch_ptx(ptx, tok);
        if (!pp) {
            printf("patch %s: the onesweep entry not found in the PTX\n", tok);
            continue;
        }
        snprintf(label[nb], sizeof label[nb], "ptx %s", tok);
        printf("build %s:\n", label[nb]);
        build pb = make(ctx, dev, src, NULL, pp);
        free(pp);
        if (pb.k)
            b[nb++] = pb;
    }

    /* data: random keys (xorshift64*, fixed seed), values their indices */
    const size_t tile = (size_t)wg * items, tiles = (n + tile - 1) / tile;
    uint8_t *keys = malloc(n * kb), *out = malloc(n * kb);
    uint32_t *vals = vb ? malloc(n * 4) : NULL, *vout = vb ? malloc(n * 4) : NULL;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        uint64_t r = s * 2685821657736338717ull;
        memcpy(keys + i * kb, &r, kb);
        if (vb)
            vals[i] = (uint32_t)i;
    }
    const char *ordered = getenv("CLSORT_TRACE_ORDERED");
    if (ordered && *ordered == '1' && kb > 1) { /* stably by the second byte */
        size_t at[RADIX] = {0};
        for (size_t i = 0; i < n; i++)
            at[keys[i * kb + 1]]++;
        for (size_t d = 0, sum = 0; d < RADIX; d++) {
            const size_t c = at[d];
            at[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            memcpy(out + at[keys[i * kb + 1]]++ * kb, keys + i * kb, kb);
        memcpy(keys, out, n * kb);
        printf("keys ordered by their second byte\n");
    }
    uint32_t bases[RADIX] = {0}, cnt[RADIX] = {0};
    for (size_t i = 0; i < n; i++)
        cnt[keys[i * kb]]++; /* little-endian: the low byte */
    for (unsigned d = 1; d < RADIX; d++)
        bases[d] = bases[d - 1] + cnt[d - 1];

    cl_mem ku = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * kb, keys, &err);
    CHECK(err, "keys");
    cl_mem ka = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * kb, NULL, &err);
    CHECK(err, "output");
    cl_mem vu = vb ? clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, vals, &err)
                   : clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    CHECK(err, "values");
    cl_mem va = clCreateBuffer(ctx, CL_MEM_READ_WRITE, vb ? n * 4 : 16, NULL, &err);
    CHECK(err, "values out");
    uint32_t state[64] = {0};
    state[8] = 1; /* ST_PASS(0): PASS_LSD, from ku (0) to ka (1), values as they are */
    state[9] = 0;
    state[10] = 1;
    state[11] = 0;
    cl_mem st = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof state, state, &err);
    CHECK(err, "state");
    cl_mem bs = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof bases, bases, &err);
    CHECK(err, "bases");
    const size_t lb_words = tiles * RADIX + 1;
    cl_mem scratch = clCreateBuffer(ctx, CL_MEM_READ_WRITE, lb_words * 4, NULL, &err);
    CHECK(err, "scratch");
    cl_mem tr = clCreateBuffer(ctx, CL_MEM_READ_WRITE, tiles * WORDS * 8, NULL, &err);
    CHECK(err, "trace");

    cl_ulong zero64 = 0;
    cl_uint zero = 0, len = (cl_uint)n, pass = 0, begin = 0, end = 8 * kb, counter = (cl_uint)(tiles * RADIX);
    double ms[MAXB][9];
    const int reps = 9;
    /* the arguments of clsort_radix_onesweep, in order (the traced build
     * takes the trace buffer after them) */
    const struct {
        size_t size;
        const void *p;
    } args[] = {{sizeof ku, &ku},           {8, &zero64},     {sizeof ka, &ka},
                {sizeof ka, &ka},           {sizeof vu, &vu}, {8, &zero64},
                {sizeof va, &va},           {sizeof va, &va},
                {4, &zero} /* portion_start (idx_t: 32 bits) */,
                {4, &len},                  {4, &pass},       {4, &begin},
                {4, &end},                  {4, &zero} /* ascending */,
                {sizeof st, &st},           {sizeof bs, &bs}, {8, &zero64} /* bases_off */,
                {sizeof scratch, &scratch}, {8, &zero64} /* lb_off */,
                {sizeof scratch, &scratch}, {4, &counter},    {4, &zero} /* finish */,
                {sizeof tr, &tr}};
    const cl_uint nargs = sizeof args / sizeof args[0];
    for (int t = 0; t < nb; t++)
        for (cl_uint a = 0; a < nargs - (t != 1); a++)
            CHECK(clSetKernelArg(b[t].k, a, args[a].size, args[a].p), "clSetKernelArg");
    /* CLSORT_TRACE_MODE: "chain", the runs after the first check enqueued
     * back to back (fill, pass, fill, pass ..., as the passes of a sort
     * follow each other) and waited for at the end; "cold", a copy of the
     * keys (n * key_bytes) between the look-back fill and the pass, so that
     * the pass starts with the look-back words out of L2 and L2 full of the
     * copy's dirty lines, as a pass of a sort does */
    const char *mode = getenv("CLSORT_TRACE_MODE");
    const int chain = mode && !strcmp(mode, "chain"), cold = mode && !strcmp(mode, "cold");
    cl_mem flush = NULL;
    if (cold) {
        flush = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * kb, NULL, &err);
        CHECK(err, "flush buffer");
    }
    if (mode)
        printf("mode %s\n", mode);
    cl_event evs[9][MAXB];
    /* the two builds alternate, so that drift of the card falls on both */
    for (int r = 0; r < reps; r++)
        for (int t = 0; t < nb; t++) {
            CHECK(clEnqueueFillBuffer(q, scratch, &zero, 4, 0, lb_words * 4, 0, NULL, NULL), "fill");
            if (cold)
                CHECK(clEnqueueCopyBuffer(q, ku, flush, 0, 0, n * kb, 0, NULL, NULL), "flush copy");
            size_t gsz = tiles * wg, lsz = wg;
            cl_event ev;
            CHECK(clEnqueueNDRangeKernel(q, b[t].k, 1, NULL, &gsz, &lsz, 0, NULL, &ev), "launch");
            if (chain && r > 0) { /* timed after the last run */
                evs[r][t] = ev;
                ms[t][r] = 0;
                if (r == reps - 1 && t == nb - 1) {
                    CHECK(clFinish(q), "finish");
                    for (int r2 = 1; r2 < reps; r2++)
                        for (int t2 = 0; t2 < nb; t2++) {
                            cl_ulong a0, a1;
                            clGetEventProfilingInfo(evs[r2][t2], CL_PROFILING_COMMAND_START, 8, &a0, NULL);
                            clGetEventProfilingInfo(evs[r2][t2], CL_PROFILING_COMMAND_END, 8, &a1, NULL);
                            ms[t2][r2] = (a1 - a0) * 1e-6;
                            clReleaseEvent(evs[r2][t2]);
                        }
                }
                continue;
            }
            CHECK(clWaitForEvents(1, &ev), "wait");
            cl_ulong t0, t1;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, NULL);
            ms[t][r] = (t1 - t0) * 1e-6;
            clReleaseEvent(ev);
            if (r == 0) { /* check this build's output */
                CHECK(clEnqueueReadBuffer(q, ka, CL_TRUE, 0, n * kb, out, 0, NULL, NULL), "read");
                if (vb)
                    CHECK(clEnqueueReadBuffer(q, va, CL_TRUE, 0, n * 4, vout, 0, NULL, NULL), "read");
                uint32_t at[RADIX];
                memcpy(at, bases, sizeof at);
                size_t bad = 0;
                for (size_t i = 0; i < n; i++) {
                    size_t p = at[keys[i * kb]]++;
                    if (memcmp(out + p * kb, keys + i * kb, kb) || (vb && vout[p] != (uint32_t)i))
                        bad++;
                }
                printf("check %s: %s (%zu wrong)\n", label[t], bad ? "FAILED" : "ok", bad);
                if (bad)
                    return 1;
                CHECK(clEnqueueFillBuffer(q, ka, &zero, 4, 0, n * kb, 0, NULL, NULL), "clear");
                if (vb)
                    CHECK(clEnqueueFillBuffer(q, va, &zero, 4, 0, n * 4, 0, NULL, NULL), "clear");
            }
        }
    for (int t = 0; t < nb; t++) {
        double v[9];
        memcpy(v, ms[t], sizeof v);
        for (int i = 0; i < reps; i++)
            for (int j = i + 1; j < reps; j++)
                if (v[j] < v[i]) {
                    double x = v[i];
                    v[i] = v[j];
                    v[j] = x;
                }
        printf("pass %s: median %.4f ms (min %.4f, max %.4f), %.2f GB/s moved\n",
               label[t], v[reps / 2], v[0], v[reps - 1],
               n * (2.0 * kb + 2.0 * vb) / (v[reps / 2] * 1e6));
    }

    /* the last traced run's marks */
    uint64_t *T = malloc(tiles * WORDS * 8);
    CHECK(clEnqueueReadBuffer(q, tr, CL_TRUE, 0, tiles * WORDS * 8, T, 0, NULL, NULL), "read trace");
    static const char *const phase[] = {"start", "load+count", "scan", "rank", "look-back",
                                        "write keys", "values"};
    const int nph = vb ? 7 : 6;
    /* marks: 11 (kernel entry), 2 (tile function), 3, 4, 5, 6, 7, 8, 9 */
    uint64_t *c = malloc(tiles * 8);
    double total_mean = 0;
    printf("phase (cycles of work-item 0's SM clock; all %zu tiles)   median    mean     p90\n",
           tiles);
    for (int ph = 0; ph <= nph; ph++) {
        double sum = 0;
        for (size_t i = 0; i < tiles; i++) {
            const uint64_t *w = T + i * WORDS;
            uint64_t a, z;
            if (ph == nph) { /* the whole tile */
                a = w[11];
                z = w[vb ? 9 : 8];
            } else {
                a = ph == 0 ? w[11] : w[2 + ph];
                z = w[3 + ph];
            }
            c[i] = z - a;
            sum += (double)(z - a);
        }
        qsort(c, tiles, 8, cmp_u64);
        printf("  %-12s %8llu %8.0f %8llu\n", ph == nph ? "tile" : phase[ph],
               (unsigned long long)c[tiles / 2], sum / tiles,
               (unsigned long long)c[tiles * 9 / 10]);
        if (ph == nph)
            total_mean = sum / tiles;
    }
    /* global timer: the span, tiles in flight, the clock's rate; the first
     * tile's end and the last tile's start */
    uint64_t g0 = UINT64_MAX, g1 = 0, first_end = UINT64_MAX, last_start = 0;
    double busy = 0;
    unsigned sms = 0;
    for (size_t i = 0; i < tiles; i++) {
        const uint64_t *w = T + i * WORDS;
        g0 = w[1] < g0 ? w[1] : g0;
        g1 = w[10] > g1 ? w[10] : g1;
        first_end = w[10] < first_end ? w[10] : first_end;
        last_start = w[1] > last_start ? w[1] : last_start;
        busy += (double)(w[10] - w[1]);
        if (w[0] + 1 > sms)
            sms = (unsigned)w[0] + 1;
    }
    printf("global timer: span %.4f ms, tile %.2f us on average, %.0f tiles in flight (%u SMs: "
           "%.2f a SM), %.2f cycles/ns\n",
           (g1 - g0) * 1e-6, busy / tiles * 1e-3, busy / (double)(g1 - g0), sms,
           busy / (double)(g1 - g0) / sms, total_mean / (busy / tiles));
    printf("first tile ends %.2f us after the start; last tile starts %.2f us before the end\n",
           (first_end - g0) * 1e-3, (g1 - last_start) * 1e-3);
    return 0;
}

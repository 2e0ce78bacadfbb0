/* firstcall.c - where a new process's first sort goes (issue 37): the
 * context's creation, an optional warmup, then the same sort of host
 * arrays several times, each phase with its wall time, the process's user
 * and system time and its minor page faults. The first sort carries the
 * program builds (or loads from the caches), each kernel's first launch
 * (PoCL compiles its work-group function then) and the first touch of the
 * pool; the later ones are the sort alone. Run it in a new process with
 * empty or filled caches (bench/firstcall.sh does both).
 *
 * usage: clsort_firstcall [N [KEY [REPS [warmup]]]]
 *   N     keys (default 20000000), KEY f32 (default), u32, u64, i32, f64
 *   REPS  sorts (default 3), warmup: clsort_context_warmup(KEY) first
 * Output: one line per phase, "phase wall_s user_s sys_s minflt". Exits 1
 * when a call fails or the result is not sorted. Uses the public header
 * only. */
#define _POSIX_C_SOURCE 200809L
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

static struct rusage last_ru;
static double last_t;

static void phase(const char *name)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    const double t = now();
    printf("%-10s %8.3f %8.3f %8.3f %8ld\n", name, t - last_t,
           secs(r.ru_utime) - secs(last_ru.ru_utime), secs(r.ru_stime) - secs(last_ru.ru_stime),
           r.ru_minflt - last_ru.ru_minflt);
    fflush(stdout);
    last_ru = r;
    last_t = t;
}

static const struct {
    const char *name;
    clsort_type type;
    size_t bytes;
} key_types[] = {{"f32", CLSORT_F32, 4}, {"u32", CLSORT_U32, 4}, {"i32", CLSORT_I32, 4},
                 {"u64", CLSORT_U64, 8}, {"f64", CLSORT_F64, 8}};

/* Non-decreasing in the key type's order (no NaNs are generated). */
static int sorted(const void *p, size_t n, clsort_type t)
{
    for (size_t i = 1; i < n; i++) {
        int bad = 0;
        switch (t) {
        case CLSORT_F32: bad = ((const float *)p)[i] < ((const float *)p)[i - 1]; break;
        case CLSORT_F64: bad = ((const double *)p)[i] < ((const double *)p)[i - 1]; break;
        case CLSORT_U32: bad = ((const uint32_t *)p)[i] < ((const uint32_t *)p)[i - 1]; break;
        case CLSORT_I32: bad = ((const int32_t *)p)[i] < ((const int32_t *)p)[i - 1]; break;
        default: bad = ((const uint64_t *)p)[i] < ((const uint64_t *)p)[i - 1]; break;
        }
        if (bad)
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    const char *key = argc > 2 ? argv[2] : "f32";
    const int reps = argc > 3 ? atoi(argv[3]) : 3;
    const int warm = argc > 4 && !strcmp(argv[4], "warmup");
    size_t k = 0;
    while (k < sizeof key_types / sizeof key_types[0] && strcmp(key_types[k].name, key))
        k++;
    if (n < 2 || reps < 1 || k == sizeof key_types / sizeof key_types[0]) {
        fprintf(stderr, "usage: clsort_firstcall [N [f32|u32|i32|u64|f64 [REPS [warmup]]]]\n");
        return 2;
    }
    const clsort_type type = key_types[k].type;
    const size_t kb = key_types[k].bytes;
    /* input and output both touched before the clock starts: what is
     * timed is the library's own memory */
    unsigned char *in = malloc(n * kb), *out = malloc(n * kb);
    if (!in || !out) {
        fprintf(stderr, "clsort_firstcall: out of memory\n");
        return 1;
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (type == CLSORT_F32) {
            const float f = (float)(x >> 40) / (float)(1u << 24);
            memcpy(in + i * 4, &f, 4);
        } else if (type == CLSORT_F64) {
            const double d = (double)(x >> 11) / 9007199254740992.0;
            memcpy(in + i * 8, &d, 8);
        } else {
            memcpy(in + i * kb, &x, kb);
        }
    }
    memcpy(out, in, n * kb); /* not memset 0: malloc and memset 0 may become calloc */
    printf("%-10s %8s %8s %8s %8s\n", "phase", "wall_s", "user_s", "sys_s", "minflt");
    getrusage(RUSAGE_SELF, &last_ru);
    last_t = now();
    clsort_context *ctx = NULL;
    if (clsort_context_create(&ctx, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort_firstcall: %s\n", clsort_context_last_error(NULL));
        return 1;
    }
    phase("create");
    if (warm) {
        if (clsort_context_warmup(ctx, &type, 1, 0) != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort_firstcall: %s\n", clsort_context_last_error(ctx));
            return 1;
        }
        phase("warmup");
    }
    for (int r = 0; r < reps; r++) {
        if (clsort_sort_keys_copy(ctx, type, in, out, n, NULL) != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort_firstcall: %s\n", clsort_context_last_error(ctx));
            return 1;
        }
        char name[16];
        snprintf(name, sizeof name, "sort%d", r + 1);
        phase(name);
    }
    clsort_context_release(ctx);
    phase("release");
    if (!sorted(out, n, type)) {
        fprintf(stderr, "clsort_firstcall: the result is not sorted\n");
        return 1;
    }
    free(in);
    free(out);
    return 0;
}

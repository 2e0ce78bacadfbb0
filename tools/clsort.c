/* clsort - the command-line tool: device information and benchmarks.
 * Uses only the public header (and the bench harness built on it). */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clsort <command> [options]\n"
            "\n"
            "commands:\n"
            "  info                 list OpenCL platforms and devices; mark the default\n"
            "  bench                sort random u32 keys and (key, value) pairs at 1M, 8M and\n"
            "                       32M on the default device; print time, MKeys/s, the\n"
            "                       speed-up over qsort, and check every result\n"
            "  help                 this text\n"
            "\n"
            "bench options:\n"
            "  --device D           gpu, cpu, P:D or part of a device/platform name\n"
            "  --sizes N,N,...      sizes (suffixes K, M, G: powers of two)\n"
            "  --keys-only          skip the pairs\n"
            "  --cases C,C,...      cases instead of u32 keys and pairs: KEY[+VBYTES][:B:E][@DIST]\n"
            "                       e.g. u32, u32+4, u64+4, u32:0:10, u32+4@0-1023\n"
            "  --copy               also measure the device's copy bandwidth\n"
            "  --json FILE          also write the rows as JSON ('-' for stdout)\n"
            "  --tuning SPEC        override tuned parameters (see clsort_tuning_keys)\n"
            "  --min-reps N         timed sorts per size at least (default 5)\n"
            "  --no-qsort           do not time qsort\n"
            "\n"
            "environment: CLSORT_DEVICE, CLSORT_CACHE_DIR, CLSORT_TUNING\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30, end++;
    if (*end)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int cmd_info(void)
{
    clsort_device_info devs[64];
    size_t n = 0;
    clsort_status s = clsort_device_list(devs, 64, &n);
    if (s != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort info: %s\n", clsort_context_last_error(NULL));
        return 1;
    }
    printf("clsort %s: %zu OpenCL device%s\n", CLSORT_VERSION_STRING, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < 64; i++) {
        const clsort_device_info *d = &devs[i];
        printf("\n%u:%u %s%s\n", d->platform_index, d->device_index, d->device_name,
               d->is_default ? "   (default)" : "");
        printf("    platform        %s (%s)\n", d->platform_name, d->platform_version);
        printf("    type            %s\n", d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "other");
        printf("    vendor          %s\n", d->vendor);
        printf("    version         %s, driver %s\n", d->device_version, d->driver_version);
        printf("    compute units   %u at %u MHz\n", d->compute_units, d->max_clock_mhz);
        printf("    global memory   %.2f GB (largest buffer %.2f GB)\n", d->global_mem_bytes / 1e9,
               d->max_alloc_bytes / 1e9);
        printf("    local memory    %llu KiB, work-groups up to %u\n",
               (unsigned long long)(d->local_mem_bytes / 1024), d->max_work_group_size);
    }
    const char *env = getenv("CLSORT_DEVICE");
    if (env && env[0])
        printf("\nCLSORT_DEVICE=%s selects the device instead of the default.\n", env);
    return 0;
}

static int cmd_bench(int argc, char **argv)
{
    bench_config cfg;
    memset(&cfg, 0, sizeof cfg);
    static size_t sizes[64];
    size_t default_sizes[] = {1u << 20, 1u << 23, 1u << 25};
    cfg.sizes = default_sizes;
    cfg.nsizes = 3;
    cfg.cases = bench_default_cases;
    cfg.ncases = 2;
    cfg.min_reps = 5;
    cfg.min_seconds = 0.5;
    cfg.qsort = 1;
    cfg.seed = 20111;
    const char *json = NULL;
    static bench_case cases[32];
    int copy = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && next)
            cfg.device = argv[++i];
        else if (!strcmp(a, "--tuning") && next)
            cfg.tuning = argv[++i];
        else if (!strcmp(a, "--json") && next)
            json = argv[++i];
        else if (!strcmp(a, "--keys-only"))
            cfg.ncases = 1;
        else if (!strcmp(a, "--copy"))
            copy = 1;
        else if (!strcmp(a, "--cases") && next) {
            char *list = argv[++i];
            size_t k = 0;
            for (char *tok = strtok(list, ","); tok && k < 32; tok = strtok(NULL, ",")) {
                if (bench_parse_case(tok, &cases[k]) != 0) {
                    fprintf(stderr, "clsort bench: bad case '%s'\n", tok);
                    return 2;
                }
                k++;
            }
            cfg.cases = cases;
            cfg.ncases = k;
        }
        else if (!strcmp(a, "--no-qsort"))
            cfg.qsort = 0;
        else if (!strcmp(a, "--min-reps") && next)
            cfg.min_reps = atoi(argv[++i]);
        else if (!strcmp(a, "--sizes") && next) {
            char *list = strdup(argv[++i]);
            size_t k = 0;
            for (char *tok = strtok(list, ","); tok && k < 64; tok = strtok(NULL, ",")) {
                if (parse_size(tok, &sizes[k]) != 0) {
                    fprintf(stderr, "clsort bench: bad size '%s'\n", tok);
                    free(list);
                    return 2;
                }
                k++;
            }
            free(list);
            if (k == 0) {
                fprintf(stderr, "clsort bench: --sizes needs at least one size\n");
                return 2;
            }
            cfg.sizes = sizes;
            cfg.nsizes = k;
        } else {
            fprintf(stderr, "clsort bench: unknown option '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    bench_row rows[128];
    size_t nrows = 0;
    char err[8192];
    double gbs = 0;
    if (copy) {
        gbs = bench_copy_bandwidth(cfg.device, err, sizeof err);
        if (gbs > 0)
            printf("copy bandwidth: %.1f GB/s (read + write, clEnqueueCopyBuffer)\n", gbs);
        else
            fprintf(stderr, "clsort bench: %s\n", err);
    }
    clsort_status s = bench_run(&cfg, rows, 128, &nrows, err, sizeof err);
    bench_print(stdout, rows, nrows);
    if (json) {
        FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
        if (!f) {
            fprintf(stderr, "clsort bench: cannot write %s: %s\n", json, strerror(errno));
            return 1;
        }
        bench_print_json(f, rows, nrows);
        if (f != stdout)
            fclose(f);
    }
    if (s != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort bench: %s\n", err);
        return 1;
    }
    for (size_t i = 0; i < nrows; i++)
        if (!rows[i].correct) {
            fprintf(stderr, "clsort bench: a result was WRONG\n");
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "info"))
        return cmd_info();
    if (!strcmp(argv[1], "bench"))
        return cmd_bench(argc - 2, argv + 2);
    fprintf(stderr, "clsort: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}

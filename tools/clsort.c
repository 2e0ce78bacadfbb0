/* clsort - the command-line tool: device information and benchmarks.
 * Uses only the public header (and the bench harness built on it). */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "sortfile.h"

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
            "  tune                 time candidate kernel shapes on the device, print them\n"
            "                       fastest first; --save stores the winner in the cache\n"
            "  sort                 sort a file of keys (raw or .npy), with values or an\n"
            "                       argsort; files larger than the device are merged\n"
            "                       (options below)\n"
            "  warmup               compile the kernels of the common sorts on the device\n"
            "                       now (kept in the caches), so that the first sorts of\n"
            "                       later runs start at once (options below)\n"
            "  cache --clear        empty clsort's cache folder (saved tunings stay) and\n"
            "                       PoCL's kernel cache (shared with other programs)\n"
            "  help                 this text (also: clsort <command> --help)\n"
            "\n"
            "bench options:\n"
            "  --device D           default, gpu, cpu, P:D or part of a device/platform name\n"
            "  --sizes N,N,...      sizes (suffixes K, M, G: powers of two)\n"
            "  --keys-only          skip the pairs\n"
            "  --cases C,C,...      cases instead of u32 keys and pairs: KEY[+VBYTES][:B:E][@DIST]\n"
            "                       KEY u8..u64, i8..i64, f32, f64; VBYTES 4 or 8; B:E the bits;\n"
            "                       DIST uniform (default), all-equal, sorted, reversed,\n"
            "                       few-unique, 0-255, 0-65535, 0-1023, high-bits,\n"
            "                       one-digit, specials, and the suite: normal,\n"
            "                       exponential, zipf-1k, zipf-1m, few-2, few-1024,\n"
            "                       sorted-swaps, sorted-runs, and-2, and-4, low-20\n"
            "                       e.g. u32, u32+4, u64+4, u32:0:10, u32+4@0-1023, f32@normal\n"
            "  --dist D             every case with distribution D, or with each one (all)\n"
            "  --copy               also measure the device's copy bandwidth\n"
            "  --algorithms         instead: Bainville's table (selection, bitonic and radix\n"
            "                       sorts, rate against log2 N from 8 to 20; selection\n"
            "                       stops at 2^16 on devices that are not GPUs) and\n"
            "                       Zucchi's batch (200 arrays x 8192 keys); --batch C,L\n"
            "                       changes it, --no-table skips the first table\n"
            "  --scan               instead: exclusive scans (u32, u64, f32) of device\n"
            "                       buffers at --sizes, in GB/s, each result checked\n"
            "  --json FILE          also write the rows as JSON ('-' for stdout)\n"
            "  --tuning SPEC        override tuned parameters: key=value,... (--tuning help:\n"
            "                       the keys; docs/TUNING.md)\n"
            "  --min-reps N         timed sorts per size at least (default 5)\n"
            "  --seed S             random inputs from seed S + n (default 20111; the CUB\n"
            "                       and CPU peer programs take the same --seed)\n"
            "  --no-qsort           do not time qsort\n"
            "  --profile            print each kernel's device time for every row\n"
            "  --host               time the host-array API (clsort_sort_keys, _pairs): host\n"
            "                       arrays in, sorted host arrays out, wall clock\n"
            "  --keep-pool          keep temporary device memory from row to row (default:\n"
            "                       freed before each, allocated after the row's buffers)\n"
            "  --build-log          print the compiler's log of each kernel build\n"
            "                       (with CLSORT_BUILD_OPTIONS=-cl-nv-verbose: registers)\n"
            "\n"
            "tune options:\n"
            "  --device D, --tuning SPEC (the base the candidates modify)\n"
            "  --case C             the case to time (default u32), as for bench --cases\n"
            "  --n N                keys per sort (default 32M)\n"
            "  --candidates S;S;..  tuning specs to try (default: a grid for the device)\n"
            "  --save               store the fastest in the cache folder for this device\n"
            "\n"
            "warmup options:\n"
            "  --device D           as for bench\n"
            "  --types T,T,...      key types (default: all ten)\n"
            "  --pairs              also (key, 4-byte value) pairs\n"
            "  --argsort            also argsorts with 32-bit indices\n"
            "\n"
            "environment: CLSORT_DEVICE, CLSORT_CACHE_DIR, CLSORT_TUNING\n");
    fprintf(f, "\n%s", clsort_sort_usage);
}

/* `--tuning help`: the tuning keys with a line on each. */
static int print_tuning_keys(void)
{
    fputs(clsort_tuning_keys(), stdout);
    return 0;
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
    int marked = 0;
    for (size_t i = 0; i < n && i < 64; i++)
        marked |= devs[i].is_default;
    if (env && env[0])
        printf("\nCLSORT_DEVICE=%s %s.\n", env,
               marked ? "selects the device marked (default)" : "matches no device");
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
    const char *dist = NULL;
    int copy = 0, algorithms = 0, table = 1, scan = 0, keys_only = 0;
    size_t batch_count = 200, batch_len = 8192;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && next)
            cfg.device = argv[++i];
        else if (!strcmp(a, "--tuning") && next && !strcmp(next, "help"))
            return print_tuning_keys();
        else if (!strcmp(a, "--tuning") && next)
            cfg.tuning = argv[++i];
        else if (!strcmp(a, "--seed") && next) {
            char *end = NULL;
            cfg.seed = strtoull(argv[++i], &end, 10);
            if (!end || *end) {
                fprintf(stderr, "clsort bench: bad --seed '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--json") && next)
            json = argv[++i];
        else if (!strcmp(a, "--keys-only"))
            keys_only = 1;
        else if (!strcmp(a, "--copy"))
            copy = 1;
        else if (!strcmp(a, "--profile"))
            cfg.profile = 1;
        else if (!strcmp(a, "--keep-pool"))
            cfg.keep_pool = 1;
        else if (!strcmp(a, "--host"))
            cfg.host = 1;
        else if (!strcmp(a, "--dist") && next) {
            dist = argv[++i];
            if (strcmp(dist, "all") && data_dist_from_name(dist) == DATA_DIST_ALL) {
                fprintf(stderr, "clsort bench: unknown distribution '%s'\n", dist);
                return 2;
            }
        }
        else if (!strcmp(a, "--algorithms"))
            algorithms = 1;
        else if (!strcmp(a, "--scan"))
            scan = 1;
        else if (!strcmp(a, "--no-table"))
            table = 0;
        else if (!strcmp(a, "--batch") && next) {
            if (sscanf(argv[++i], "%zu,%zu", &batch_count, &batch_len) != 2) {
                fprintf(stderr, "clsort bench: --batch takes COUNT,LENGTH\n");
                return 2;
            }
        }
        else if (!strcmp(a, "--build-log"))
            cfg.log = stdout;
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
        else if (!strcmp(a, "--min-reps") && next) {
            char *end = NULL;
            errno = 0;
            long v = strtol(argv[++i], &end, 10);
            if (errno || end == argv[i] || *end || v < 1 || v > 1000000) {
                fprintf(stderr, "clsort bench: --min-reps takes a count from 1 to 1000000, "
                                "not '%s'\n", argv[i]);
                return 2;
            }
            cfg.min_reps = (int)v;
        }
        else if (!strcmp(a, "--sizes") && next) {
            char *list = strdup(argv[++i]);
            size_t k = 0;
            for (char *tok = strtok(list, ","); tok && k < 64; tok = strtok(NULL, ",")) {
                if (parse_size(tok, &sizes[k]) != 0 || sizes[k] == 0) {
                    fprintf(stderr, "clsort bench: bad size '%s' (sizes are at least 1)\n", tok);
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
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clsort bench: unknown option '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    char err[8192];
    if (scan) {
        FILE *jf = NULL;
        if (json && !(jf = strcmp(json, "-") ? fopen(json, "w") : stdout)) {
            fprintf(stderr, "clsort bench: cannot write %s: %s\n", json, strerror(errno));
            return 1;
        }
        clsort_status s = bench_scan(cfg.device, cfg.tuning, cfg.sizes, cfg.nsizes, cfg.seed,
                                     stdout, jf, err, sizeof err);
        if (jf && jf != stdout)
            fclose(jf);
        if (s != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort bench: %s\n", err);
            return s == CLSORT_ERROR_INVALID_TUNING ? 2 : 1;
        }
        if (copy) {
            double gbs = bench_copy_bandwidth(cfg.device, err, sizeof err);
            if (gbs > 0)
                printf("copy bandwidth: %.1f GB/s (read + write, clEnqueueCopyBuffer)\n", gbs);
        }
        return 0;
    }
    if (algorithms) {
        FILE *jf = NULL;
        if (json && !(jf = strcmp(json, "-") ? fopen(json, "w") : stdout)) {
            fprintf(stderr, "clsort bench: cannot write %s: %s\n", json, strerror(errno));
            return 1;
        }
        /* The selection sort is n^2: to 2^20 on GPUs, less on CPUs. */
        clsort_context *probe = NULL;
        unsigned sel_max = 16;
        if (clsort_context_create(&probe, cfg.device) == CLSORT_SUCCESS) {
            clsort_device_info di;
            if (clsort_context_device_info(probe, &di) == CLSORT_SUCCESS && di.is_gpu)
                sel_max = 20;
            clsort_context_release(probe);
        }
        clsort_status s = bench_algorithms(cfg.device, cfg.tuning, table ? 8 : 1, table ? 20 : 0,
                                           sel_max, batch_count, batch_len, stdout, jf, err,
                                           sizeof err);
        if (jf && jf != stdout)
            fclose(jf);
        if (s != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort bench: %s\n", err);
            return s == CLSORT_ERROR_INVALID_TUNING ? 2 : 1;
        }
        return 0;
    }
    if (keys_only) { /* the cases without values, in any argument order */
        static bench_case kept[32];
        size_t k = 0;
        for (size_t c = 0; c < cfg.ncases; c++)
            if (cfg.cases[c].value_size == 0 && k < 32)
                kept[k++] = cfg.cases[c];
        if (k == 0) {
            fprintf(stderr, "clsort bench: --keys-only leaves no case\n");
            return 2;
        }
        cfg.cases = kept;
        cfg.ncases = k;
    }
    if (dist) { /* every case with the distribution, or with each one */
        static bench_case expanded[512];
        static char names[512][64];
        size_t k = 0;
        for (size_t c = 0; c < cfg.ncases; c++)
            for (int d = 0; d < DATA_DIST_ALL && k < 512; d++) {
                if (strcmp(dist, "all") && d != (int)data_dist_from_name(dist))
                    continue;
                expanded[k] = cfg.cases[c];
                expanded[k].dist = (data_dist)d;
                snprintf(names[k], sizeof names[k], "%.40s@%s", cfg.cases[c].name,
                         data_dist_name((data_dist)d));
                expanded[k].name = names[k];
                k++;
            }
        cfg.cases = expanded;
        cfg.ncases = k;
    }
    static bench_row rows[1024];
    size_t nrows = 0;
    double gbs = 0;
    if (copy) {
        gbs = bench_copy_bandwidth(cfg.device, err, sizeof err);
        if (gbs > 0)
            printf("copy bandwidth: %.1f GB/s (read + write, clEnqueueCopyBuffer)\n", gbs);
        else
            fprintf(stderr, "clsort bench: %s\n", err);
    }
    cfg.stream = stdout; /* each row as it is measured */
    clsort_status s = bench_run(&cfg, rows, sizeof rows / sizeof rows[0], &nrows, err, sizeof err);
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
        return s == CLSORT_ERROR_INVALID_TUNING ? 2 : 1; /* a bad --tuning: usage */
    }
    for (size_t i = 0; i < nrows; i++)
        if (!rows[i].correct) {
            fprintf(stderr, "clsort bench: a result was WRONG\n");
            return 1;
        }
    return 0;
}


/* The value of key in a tuning spec ("" when absent). */
static void spec_value(const char *spec, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            size_t vl = strcspn(p + kl + 1, ",");
            snprintf(out, size, "%.*s", (int)(vl < size ? vl : size - 1), p + kl + 1);
            return;
        }
}

/* The default candidates for `clsort tune`: a grid over the kernel shapes
 * that matter on the device's kind. On NVIDIA each grid varies only the
 * fields the tuned case uses (keys of 4 bytes, pairs, keys of 8 bytes), and
 * a grid over the keys' shape names the pairs' ranking and work-groups
 * (os_wg_pairs, big_wg_pairs) and the 8-byte shape as they are (`current`),
 * which setting os_rank, os_wg and os_items would otherwise reset: a saved
 * winner keeps what the other cases were tuned to. */
static size_t default_candidates(const clsort_device_info *d, const bench_case *bc,
                                 const char *current, char specs[][256], size_t cap)
{
    size_t k = 0;
    if (d->is_gpu && strstr(d->platform_name, "NVIDIA")) {
        static const unsigned wgs[] = {256, 384, 512};
        static const unsigned items[] = {8, 12, 16, 20, 24, 28};
        static const char *const ranks[] = {"ballot", "atomic_or"};
        if (clsort_type_size(bc->key_type) == 8) {
            /* with persistent work-groups for keys alone, and without */
            static const unsigned wide_wgs[] = {128, 256, 384, 512};
            for (int p = 0; p < (bc->value_size ? 1 : 2); p++)
                for (int w = 0; w < 4; w++)
                    for (int i = 0; i < 5 && k < cap; i++)
                        snprintf(specs[k++], 256, "os_wg_wide=%u,os_items_wide=%u%s", wide_wgs[w],
                                 items[i], p ? ",os_persist_wide=0" : "");
        } else if (bc->value_size) {
            /* the tuning's os_wg_pairs named, so that each candidate's shape
             * holds at every size (it resets big_wg_pairs, os_items_pairs
             * big_items_pairs) */
            char wp[32];
            spec_value(current, "os_wg_pairs", wp, sizeof wp);
            for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++)
                for (int i = 0; i < 6 && k < cap; i++)
                    snprintf(specs[k++], 256, "os_rank_pairs=%s,os_wg_pairs=%s,os_items_pairs=%u",
                             ranks[r], wp[0] ? wp : "0", items[i]);
        } else {
            char rp[32], ww[32], iw[32], wp[32], bp[32];
            spec_value(current, "os_rank_pairs", rp, sizeof rp);
            spec_value(current, "os_wg_wide", ww, sizeof ww);
            spec_value(current, "os_items_wide", iw, sizeof iw);
            spec_value(current, "os_wg_pairs", wp, sizeof wp);
            spec_value(current, "big_wg_pairs", bp, sizeof bp);
            for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++)
                for (int w = 0; w < 3; w++)
                    for (int i = 0; i < 6 && k < cap; i++)
                        snprintf(specs[k++], 256,
                                 "algorithm=onesweep,os_rank=%s,os_wg=%u,os_items=%u,"
                                 "os_rank_pairs=%.15s,os_wg_wide=%.15s,os_items_wide=%.15s,"
                                 "os_wg_pairs=%.15s,big_wg_pairs=%.15s",
                                 ranks[r], wgs[w], items[i], rp[0] ? rp : "same",
                                 ww[0] ? ww : "0", iw[0] ? iw : "0", wp[0] ? wp : "0",
                                 bp[0] ? bp : "0");
        }
    } else if (d->is_gpu) {
        static const unsigned wgs[] = {128, 256};
        static const unsigned items[] = {4, 8, 16};
        for (int w = 0; w < 2; w++)
            for (int i = 0; i < 3 && k < cap; i++)
                snprintf(specs[k++], 256, "algorithm=onesweep,os_rank=local,os_wg=%u,os_items=%u",
                         wgs[w], items[i]);
        for (int w = 0; w < 2 && k < cap; w++)
            snprintf(specs[k++], 256, "algorithm=classic,cl_wg=%u,cl_items=8", wgs[w]);
    } else {
        static const unsigned tiles[] = {16384, 65536, 262144};
        static const unsigned widths[] = {8, 11};
        for (int t = 0; t < 3; t++)
            for (int w = 0; w < 2; w++)
                for (int m = 0; m < 2 && k < cap; m++)
                    snprintf(specs[k++], 256,
                             "algorithm=onesweep,os_rank=serial,os_wg=1,os_items=%u,hist_wg=1,"
                             "radix_bits=%u,large_min=0,msd=%d",
                             tiles[t], widths[w], m);
        static const unsigned cg[] = {1, 2, 4};
        for (int g = 0; g < 3 && k < cap; g++)
            snprintf(specs[k++], 256, "algorithm=classic,cl_wg=1,cl_groups=%u,hist_wg=1", cg[g]);
    }
    return k;
}

typedef struct tune_result {
    char spec[512];
    double ms;
    int ok;
} tune_result;

static int cmp_tune(const void *a, const void *b)
{
    const tune_result *x = a, *y = b;
    if (x->ok != y->ok)
        return y->ok - x->ok;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

static int cmd_tune(int argc, char **argv)
{
    const char *device = NULL, *base = NULL, *case_spec = "u32", *cand_list = NULL;
    size_t n = (size_t)1 << 25;
    int save = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && next)
            device = argv[++i];
        else if (!strcmp(a, "--tuning") && next && !strcmp(next, "help"))
            return print_tuning_keys();
        else if (!strcmp(a, "--tuning") && next)
            base = argv[++i];
        else if (!strcmp(a, "--case") && next)
            case_spec = argv[++i];
        else if (!strcmp(a, "--candidates") && next)
            cand_list = argv[++i];
        else if (!strcmp(a, "--n") && next) {
            if (parse_size(argv[++i], &n) != 0 || n == 0) {
                fprintf(stderr, "clsort tune: bad --n\n");
                return 2;
            }
        } else if (!strcmp(a, "--save"))
            save = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clsort tune: unknown option '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    bench_case bc;
    if (bench_parse_case(case_spec, &bc) != 0) {
        fprintf(stderr, "clsort tune: bad case '%s'\n", case_spec);
        return 2;
    }
    clsort_context *ctx = NULL;
    if (clsort_context_create(&ctx, device) != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort tune: %s\n", clsort_context_last_error(NULL));
        return 1;
    }
    if (base) { /* a bad base spec is a usage error, found before any timing */
        clsort_status s = clsort_context_set_tuning(ctx, base);
        if (s != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort tune: %s\n", clsort_context_last_error(ctx));
            clsort_context_release(ctx);
            return s == CLSORT_ERROR_INVALID_TUNING ? 2 : 1;
        }
    }
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    static char specs[256][256];
    size_t nspec = 0;
    if (cand_list) {
        char *list = strdup(cand_list);
        for (char *tok = strtok(list, ";"); tok && nspec < 256; tok = strtok(NULL, ";"))
            snprintf(specs[nspec++], 256, "%s", tok);
        free(list);
    } else {
        char current[2048];
        clsort_context_get_tuning(ctx, current, sizeof current);
        nspec = default_candidates(&info, &bc, current, specs, 256);
    }
    printf("tuning on %s: case %s, n = %zu, %zu candidates\n", info.device_name, case_spec, n,
           nspec);
    tune_result *res = calloc(nspec, sizeof *res);
    for (size_t i = 0; i < nspec; i++) {
        snprintf(res[i].spec, sizeof res[i].spec, "%s%s%s", base ? base : "", base ? "," : "",
                 specs[i]);
        bench_row row;
        char err[4096];
        clsort_status s =
            bench_run_one(device, res[i].spec, &bc, n, 5, 0.2, 0, 20111, &row, err, sizeof err);
        res[i].ok = s == CLSORT_SUCCESS && row.correct;
        res[i].ms = res[i].ok ? row.ms : 0;
        if (res[i].ok)
            printf("  %9.3f ms %9.1f MKeys/s  %s\n", row.ms, row.mkeys, res[i].spec);
        else
            printf("  %9s    %9s          %s: %s\n", "failed", "", res[i].spec,
                   s != CLSORT_SUCCESS ? clsort_status_string(s) : "wrong result");
        fflush(stdout);
    }
    qsort(res, nspec, sizeof *res, cmp_tune);
    printf("\nfastest first:\n");
    for (size_t i = 0; i < nspec && i < 10; i++)
        if (res[i].ok)
            printf("  %9.3f ms  %s\n", res[i].ms, res[i].spec);
    int rc = 0;
    if (nspec > 0 && res[0].ok && save) {
        if (clsort_context_set_tuning(ctx, res[0].spec) == CLSORT_SUCCESS &&
            clsort_context_save_tuning(ctx) == CLSORT_SUCCESS)
            printf("saved: later contexts on this device use %s\n", res[0].spec);
        else {
            fprintf(stderr, "clsort tune: %s\n", clsort_context_last_error(ctx));
            rc = 1;
        }
    }
    if (nspec == 0 || !res[0].ok)
        rc = 1;
    free(res);
    clsort_context_release(ctx);
    return rc;
}

/* ------------------------------------------------- cache and crashes */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmd_warmup(int argc, char **argv)
{
    const char *device = NULL;
    clsort_type types[16];
    size_t ntypes = 0;
    unsigned flags = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && next)
            device = argv[++i];
        else if (!strcmp(a, "--types") && next) {
            char *list = strdup(argv[++i]);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                clsort_type t = clsort_type_from_name(tok);
                if (!t || ntypes == 16) {
                    fprintf(stderr, "clsort warmup: unknown key type '%s'\n", tok);
                    free(list);
                    return 2;
                }
                types[ntypes++] = t;
            }
            free(list);
            if (!ntypes) {
                fprintf(stderr, "clsort warmup: --types needs at least one type\n");
                return 2;
            }
        } else if (!strcmp(a, "--pairs"))
            flags |= CLSORT_WARMUP_PAIRS;
        else if (!strcmp(a, "--argsort"))
            flags |= CLSORT_WARMUP_ARGSORT;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clsort warmup: unknown option '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    clsort_context *ctx = NULL;
    if (clsort_context_create(&ctx, device) != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort warmup: %s\n", clsort_context_last_error(NULL));
        return 1;
    }
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    printf("warming up %s\n", info.device_name);
    static const clsort_type all[] = {CLSORT_U8,  CLSORT_U16, CLSORT_U32, CLSORT_U64, CLSORT_I8,
                                      CLSORT_I16, CLSORT_I32, CLSORT_I64, CLSORT_F32, CLSORT_F64};
    const clsort_type *list = ntypes ? types : all;
    size_t count = ntypes ? ntypes : sizeof all / sizeof all[0];
    double t0 = seconds_now();
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) { /* one type at a time: progress */
        double t = seconds_now();
        if (clsort_context_warmup(ctx, &list[i], 1, flags) != CLSORT_SUCCESS) {
            fprintf(stderr, "clsort warmup: %s\n", clsort_context_last_error(ctx));
            rc = 1;
            break;
        }
        printf("  %-4s %6.2f s\n", clsort_type_name(list[i]), seconds_now() - t);
        fflush(stdout);
    }
    if (rc == 0)
        printf("done in %.2f s\n", seconds_now() - t0);
    clsort_context_release(ctx);
    return rc;
}

static int cmd_cache(int argc, char **argv)
{
    if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc != 1 || strcmp(argv[0], "--clear")) {
        fprintf(stderr, "clsort cache: takes --clear\n\n");
        usage(stderr);
        return 2;
    }
    if (clsort_cache_clear(NULL, 1) != CLSORT_SUCCESS) {
        fprintf(stderr, "clsort cache: %s\n", clsort_context_last_error(NULL));
        return 1;
    }
    printf("cleared clsort's compiled programs and PoCL's kernel cache\n");
    return 0;
}

static volatile pid_t sort_child;

static void forward_signal(int sig)
{
    if (sort_child > 0)
        kill(sort_child, sig);
}

/* Runs `clsort sort` in a child process. A crash inside the OpenCL driver
 * (PoCL aborts on a damaged kernel cache; LLVM's signal handlers run then,
 * not the command's) ends only the child: this process removes the
 * temporary outputs the child reported and says what happened. Where no
 * child can be made, the command runs here. */
static int sort_guarded(int argc, char **argv)
{
    int fds[2];
    if (pipe(fds) != 0)
        return clsort_cmd_sort(argc, argv);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return clsort_cmd_sort(argc, argv);
    }
    if (pid == 0) {
        close(fds[0]);
        clsort_sort_report_fd = fds[1];
        int rc = clsort_cmd_sort(argc, argv);
        (void)!write(fds[1], "", 1); /* an empty name: the command returned */
        exit(rc);
    }
    close(fds[1]);
    /* the terminal's signals reach the child too; others are passed on */
    sort_child = pid;
    static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
    struct sigaction fwd, old[4];
    memset(&fwd, 0, sizeof fwd);
    fwd.sa_handler = forward_signal;
    sigemptyset(&fwd.sa_mask);
    for (int i = 0; i < 4; i++)
        sigaction(sigs[i], &fwd, &old[i]);
    char *names = NULL;
    size_t len = 0, cap = 0;
    bool returned = false;
    for (;;) {
        if (len + 4096 > cap) {
            char *p = realloc(names, cap = cap * 2 + 8192);
            if (!p)
                break;
            names = p;
        }
        ssize_t r = read(fds[0], names + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < 4; i++)
        sigaction(sigs[i], &old[i], NULL);
    for (size_t i = 0; i < len; i += strlen(names + i) + 1)
        returned |= names[i] == '\0';
    if (WIFEXITED(st) && returned) {
        free(names);
        return WEXITSTATUS(st);
    }
    for (size_t i = 0; i < len; i += strlen(names + i) + 1)
        if (names[i] && memchr(names + i, 0, len - i))
            unlink(names + i); /* already renamed into place: gone, no harm */
    free(names);
    if (WIFEXITED(st)) { /* exit() inside the driver (LLVM's fatal errors) */
        fprintf(stderr,
                "clsort sort: the OpenCL driver ended the process (exit status %d): no output "
                "was written. If it happens again, 'clsort cache --clear' empties the caches.\n",
                WEXITSTATUS(st));
        return 1;
    }
    int sig = WTERMSIG(st);
    if (sig == SIGINT || sig == SIGQUIT || sig == SIGTERM || sig == SIGHUP || sig == SIGKILL) {
        clsort_cache_forget_process(NULL, (long)pid); /* ended on purpose, not a crash */
        signal(sig, SIG_DFL);
        raise(sig);
        return 128 + sig;
    }
    fprintf(stderr,
            "clsort sort: the OpenCL driver crashed (%s): no output was written, the temporary "
            "files are removed. A damaged kernel cache does this: the next run compiles the "
            "kernels afresh, and 'clsort cache --clear' empties the caches. If it happens "
            "again, please report it.\n",
            strsignal(sig));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "info")) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            usage(stdout);
            return 0;
        }
        if (argc > 2) {
            fprintf(stderr, "clsort info: unexpected argument '%s'\n\n", argv[2]);
            usage(stderr);
            return 2;
        }
        return cmd_info();
    }
    if (!strcmp(argv[1], "bench"))
        return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(argv[1], "tune"))
        return cmd_tune(argc - 2, argv + 2);
    if (!strcmp(argv[1], "sort"))
        return sort_guarded(argc - 2, argv + 2);
    if (!strcmp(argv[1], "cache"))
        return cmd_cache(argc - 2, argv + 2);
    if (!strcmp(argv[1], "warmup"))
        return cmd_warmup(argc - 2, argv + 2);
    fprintf(stderr, "clsort: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}

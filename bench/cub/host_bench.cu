// host_bench.cu - host arrays in, sorted host arrays out, wall clock: clsort's
// host API (clsort_sort_keys / clsort_sort_pairs on the GPU through OpenCL)
// against the plainest CUDA program (cudaMemcpy from the same pageable
// arrays, CUB DeviceRadixSort, cudaMemcpy back), in one process, on the same
// inputs, the order alternating round by round; and the copy bandwidths
// that bound both (pageable and pinned, each way). Each round's two results
// must be identical (both sorts are stable), else it exits 1.
// Built by bench/gpu_run.sh (stage host) where nvcc is present.
//
// usage: host_bench --cases u32,u32+4,u64 --sizes 32M,256M [--rounds R]
//                   [--device gpu] [--seed S]
// One JSON object per line.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <clsort.h>

#include "../data.h"
}
#include "../peer_util.h"

#define CK(x)                                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

// Touches every page so that no first-touch fault is timed.
static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "host_bench: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}

// GB/s of cudaMemcpy between host memory (pageable or pinned) and the GPU.
static void bandwidths(size_t bytes)
{
    void *d;
    CK(cudaMalloc(&d, bytes));
    void *pageable = host_alloc(bytes), *pinned;
    CK(cudaMallocHost(&pinned, bytes));
    memset(pinned, 1, bytes);
    struct { const char *name; void *h; bool up; } runs[] = {
        {"pageable_h2d", pageable, true}, {"pageable_d2h", pageable, false},
        {"pinned_h2d", pinned, true},     {"pinned_d2h", pinned, false}};
    for (auto &r : runs) {
        std::vector<double> t;
        for (int i = 0; i < 7; i++) {
            double t0 = now_ms();
            if (r.up)
                CK(cudaMemcpy(d, r.h, bytes, cudaMemcpyHostToDevice));
            else
                CK(cudaMemcpy(r.h, d, bytes, cudaMemcpyDeviceToHost));
            t.push_back(now_ms() - t0);
        }
        printf("{\"copy\": \"%s\", \"bytes\": %zu, \"gbs\": %.2f}\n", r.name, bytes,
               bytes / median(t) / 1e6);
    }
    std::vector<double> t;
    void *dst = host_alloc(bytes);
    for (int i = 0; i < 7; i++) {
        double t0 = now_ms();
        memcpy(dst, pageable, bytes);
        t.push_back(now_ms() - t0);
    }
    printf("{\"copy\": \"host_memcpy_1thread\", \"bytes\": %zu, \"gbs\": %.2f}\n", bytes,
           bytes / median(t) / 1e6);
    fflush(stdout);
    free(dst);
    free(pageable);
    cudaFreeHost(pinned);
    cudaFree(d);
}

struct Case {
    std::string spec;
    clsort_type type = CLSORT_U32;
    unsigned vbytes = 0;
};

static bool parse_case(const std::string &s, Case &c)
{
    c.spec = s;
    std::string k = s;
    size_t p = s.find('+');
    if (p != std::string::npos) {
        k = s.substr(0, p);
        c.vbytes = (unsigned)atoi(s.c_str() + p + 1);
        if (c.vbytes != 4 && c.vbytes != 8)
            return false;
    }
    c.type = clsort_type_from_name(k.c_str());
    return c.type == CLSORT_U32 || c.type == CLSORT_U64;
}

template <typename K, typename V>
static void run(clsort_context *ctx, const Case &c, size_t n, int rounds, uint64_t seed,
                const char *devname)
{
    const bool pairs = c.vbytes != 0;
    K *orig_k = (K *)host_alloc(n * sizeof(K)), *wk = (K *)host_alloc(n * sizeof(K)),
      *ck = (K *)host_alloc(n * sizeof(K));
    V *orig_v = nullptr, *wv = nullptr, *cv = nullptr;
    data_fill(orig_k, c.type, n, DATA_UNIFORM, seed + n);
    if (pairs) {
        orig_v = (V *)host_alloc(n * sizeof(V));
        wv = (V *)host_alloc(n * sizeof(V));
        cv = (V *)host_alloc(n * sizeof(V));
        for (size_t i = 0; i < n; i++)
            orig_v[i] = (V)i;
    }
    // CUDA: buffers and CUB's temporary allocated once, outside the timing
    K *dk, *dk2;
    V *dv = nullptr, *dv2 = nullptr;
    CK(cudaMalloc(&dk, n * sizeof(K)));
    CK(cudaMalloc(&dk2, n * sizeof(K)));
    if (pairs) {
        CK(cudaMalloc(&dv, n * sizeof(V)));
        CK(cudaMalloc(&dv2, n * sizeof(V)));
    }
    size_t temp = 0;
    if (pairs)
        CK(cub::DeviceRadixSort::SortPairs(nullptr, temp, dk, dk2, dv, dv2, n));
    else
        CK(cub::DeviceRadixSort::SortKeys(nullptr, temp, dk, dk2, n));
    void *dtemp;
    CK(cudaMalloc(&dtemp, temp ? temp : 1));
    auto cuda_sort = [&]() {
        memcpy(wk, orig_k, n * sizeof(K));
        if (pairs)
            memcpy(wv, orig_v, n * sizeof(V));
        double t0 = now_ms();
        CK(cudaMemcpy(dk, wk, n * sizeof(K), cudaMemcpyHostToDevice));
        if (pairs) {
            CK(cudaMemcpy(dv, wv, n * sizeof(V), cudaMemcpyHostToDevice));
            CK(cub::DeviceRadixSort::SortPairs(dtemp, temp, dk, dk2, dv, dv2, n));
            CK(cudaMemcpy(wv, dv2, n * sizeof(V), cudaMemcpyDeviceToHost));
        } else {
            CK(cub::DeviceRadixSort::SortKeys(dtemp, temp, dk, dk2, n));
        }
        CK(cudaMemcpy(wk, dk2, n * sizeof(K), cudaMemcpyDeviceToHost));
        CK(cudaDeviceSynchronize());
        double ms = now_ms() - t0;
        memcpy(ck, wk, n * sizeof(K));
        if (pairs)
            memcpy(cv, wv, n * sizeof(V));
        return ms;
    };
    auto clsort_once = [&]() {
        memcpy(wk, orig_k, n * sizeof(K));
        if (pairs)
            memcpy(wv, orig_v, n * sizeof(V));
        double t0 = now_ms();
        clsort_status s = pairs ? clsort_sort_pairs(ctx, c.type, wk, wv, sizeof(V), n, nullptr)
                                : clsort_sort_keys(ctx, c.type, wk, n, nullptr);
        double ms = now_ms() - t0;
        if (s != CLSORT_SUCCESS) {
            fprintf(stderr, "host_bench: %s\n", clsort_context_last_error(ctx));
            exit(1);
        }
        return ms;
    };
    clsort_once(); // warm-up: programs, pool, pinned chunks
    cuda_sort();
    std::vector<double> tc, tu;
    for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
            tc.push_back(clsort_once());
            tu.push_back(cuda_sort());
        } else {
            tu.push_back(cuda_sort());
            tc.push_back(clsort_once());
        }
        // clsort's result (in wk, wv after clsort_once ran last or first)
        clsort_once();
        if (memcmp(wk, ck, n * sizeof(K)) || (pairs && memcmp(wv, cv, n * sizeof(V)))) {
            fprintf(stderr, "host_bench: clsort and CUB differ (%s, n=%zu)\n", c.spec.c_str(), n);
            exit(1);
        }
    }
    const double mc = median(tc), mu = median(tu);
    const double bytes = (double)n * (sizeof(K) + (pairs ? sizeof(V) : 0));
    printf("{\"case\": \"%s\", \"n\": %zu, \"device\": \"%s\", \"rounds\": %d, "
           "\"clsort_ms\": %.3f, \"cuda_pageable_ms\": %.3f, \"speedup\": %.3f, "
           "\"limit_ms_55gbs\": %.3f, \"fraction_of_limit\": %.3f}\n",
           c.spec.c_str(), n, devname, rounds, mc, mu, mu / mc, 2 * bytes / 55e6,
           2 * bytes / 55e6 / mc);
    fflush(stdout);
    cudaFree(dk); cudaFree(dk2); cudaFree(dtemp);
    if (pairs) { cudaFree(dv); cudaFree(dv2); }
    free(orig_k); free(wk); free(ck);
    free(orig_v); free(wv); free(cv);
}

int main(int argc, char **argv)
{
    std::vector<std::string> cases;
    std::vector<size_t> sizes;
    int rounds = 7;
    uint64_t seed = 20111;
    const char *device = "gpu";
    size_t bw_bytes = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--cases" && i + 1 < argc)
            split(argv[++i], cases);
        else if (a == "--sizes" && i + 1 < argc) {
            std::vector<std::string> s;
            split(argv[++i], s);
            for (auto &x : s)
                sizes.push_back(parse_size(x));
        } else if (a == "--rounds" && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = strtoull(argv[++i], nullptr, 10);
        else if (a == "--device" && i + 1 < argc)
            device = argv[++i];
        else if (a == "--bandwidth" && i + 1 < argc)
            bw_bytes = parse_size(argv[++i]);
        else {
            fprintf(stderr, "usage: host_bench --cases C,.. --sizes N,.. [--rounds R] [--seed S] "
                            "[--device D] [--bandwidth BYTES]\n");
            return 2;
        }
    }
    if (bw_bytes)
        bandwidths(bw_bytes);
    clsort_context *ctx = nullptr;
    if (clsort_context_create(&ctx, device) != CLSORT_SUCCESS) {
        fprintf(stderr, "host_bench: %s\n", clsort_context_last_error(nullptr));
        return 1;
    }
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    for (auto &cs : cases) {
        Case c;
        if (!parse_case(cs, c)) {
            fprintf(stderr, "host_bench: unsupported case '%s'\n", cs.c_str());
            return 2;
        }
        for (size_t n : sizes) {
            if (c.type == CLSORT_U32)
                c.vbytes == 8 ? run<uint32_t, uint64_t>(ctx, c, n, rounds, seed, info.device_name)
                              : run<uint32_t, uint32_t>(ctx, c, n, rounds, seed, info.device_name);
            else
                c.vbytes == 8 ? run<uint64_t, uint64_t>(ctx, c, n, rounds, seed, info.device_name)
                              : run<uint64_t, uint32_t>(ctx, c, n, rounds, seed, info.device_name);
        }
    }
    clsort_context_release(ctx);
    return 0;
}

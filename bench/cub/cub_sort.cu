// cub_sort.cu - NVIDIA CUB's DeviceRadixSort on the same inputs as
// `clsort bench` (the same generator, bench/data.c, and the same case
// strings), timed with CUDA events around the sort only, median of reps.
// Built by bench/gpu_run.sh where nvcc is present; not part of clsort.
//
// usage: cub_sort --cases u32,u32+4,... --sizes 1M,8M,... [--reps N]
//        (keys u32 and u64 with 4- or 8-byte values, i32, i64, f32 and f64
//        with 4-byte values; @DIST any distribution of bench/data.h, the
//        suite's included, e.g. f32@normal, u32+4@zipf-1m)
//        cub_sort [--reps N] --scan 1M,256M   (DeviceScan::ExclusiveSum, u32, u64, f32)
//        cub_sort [--reps N] --floor   (events around nothing, one and two empty kernels)
// Prints one JSON object per line.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include "../data.h"
}

#define CK(x)                                                                             \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct Case {
    std::string spec;
    clsort_type type = CLSORT_U32;
    unsigned vbytes = 0, begin = 0, end = 0;
    data_dist dist = DATA_UNIFORM;
};

// Parses KEY[+VALBYTES][:BEGIN:END][@DIST] as bench.c does.
static bool parse_case(const std::string &s, Case &c)
{
    c.spec = s;
    std::string rest = s;
    size_t at = rest.find('@');
    if (at != std::string::npos) {
        std::string d = rest.substr(at + 1);
        rest = rest.substr(0, at);
        bool found = false;
        for (int i = 0; i < DATA_DIST_ALL; i++)
            if (d == data_dist_name((data_dist)i)) {
                c.dist = (data_dist)i;
                found = true;
            }
        if (!found)
            return false;
    }
    size_t colon = rest.find(':');
    if (colon != std::string::npos) {
        if (sscanf(rest.c_str() + colon, ":%u:%u", &c.begin, &c.end) != 2)
            return false;
        rest = rest.substr(0, colon);
    }
    size_t plus = rest.find('+');
    if (plus != std::string::npos) {
        c.vbytes = (unsigned)atoi(rest.c_str() + plus + 1);
        rest = rest.substr(0, plus);
    }
    c.type = clsort_type_from_name(rest.c_str());
    if (c.type == CLSORT_U32 || c.type == CLSORT_U64)
        return true;
    // signed and float keys, alone or with 4-byte values
    return (c.type == CLSORT_I32 || c.type == CLSORT_I64 || c.type == CLSORT_F32 ||
            c.type == CLSORT_F64) && c.vbytes != 8;
}

static size_t parse_size(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (*e == 'K' || *e == 'k') v *= 1024;
    if (*e == 'M' || *e == 'm') v *= 1024 * 1024;
    if (*e == 'G' || *e == 'g') v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

static unsigned long long g_seed = 20111; // --seed, as clsort bench

/* The median of reps timed runs of work() (after two warm-up runs), each
 * between two CUDA events; restore() runs before each, outside the events
 * (it restores the input of an in-place sort). */
template <typename R, typename W> static double median_ms(int reps, R restore, W work)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int r = 0; r < reps + 2; r++) {
        restore();
        CK(cudaEventRecord(e0));
        work();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (r >= 2)
            ms.push_back(t);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(ms.begin(), ms.end());
    const size_t m = ms.size();
    return m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]);
}

/* --floor: what the events measure around nothing and around one or two
 * empty kernels (each run after a 4-byte copy, as the sorts' restore), to
 * set beside clsort_latency's floors of NVIDIA's OpenCL. */
__global__ void empty_kernel(unsigned *a)
{
    if (threadIdx.x == 123456789u)
        a[0] = 1;
}
static void floors(int reps)
{
    unsigned *buf;
    CK(cudaMalloc(&buf, 64));
    for (int k = 0; k < 3; k++) {
        const double ms = median_ms(
            reps, [&] { CK(cudaMemcpyAsync(buf + 4, buf, 4, cudaMemcpyDeviceToDevice)); },
            [&] {
                for (int i = 0; i < k; i++)
                    empty_kernel<<<1, 32>>>(buf);
                CK(cudaGetLastError());
            });
        printf("{\"floor_empty_kernels\": %d, \"us\": %.2f}\n", k, ms * 1e3);
    }
    cudaFree(buf);
}

// The bits CUB orders a key by: the key for unsigned types, the sign bit
// flipped for signed ones, and for floats the bits flipped as IEEE order
// needs (CUB's own: -0.0 before +0.0, NaNs by their sign).
template <typename K> static unsigned long long cub_image(K k)
{
    unsigned long long u = 0;
    memcpy(&u, &k, sizeof k);
    const unsigned long long sign = 1ull << (sizeof(K) * 8 - 1);
    const unsigned long long all = sizeof(K) == 8 ? ~0ull : (1ull << (sizeof(K) * 8)) - 1;
    if constexpr (std::is_floating_point<K>::value)
        return (u & sign) ? (~u & all) : (u | sign);
    else if constexpr (std::is_signed<K>::value)
        return u ^ sign;
    else
        return u;
}

template <typename K, typename V>
static double run(const Case &c, size_t n, int reps, bool &sorted)
{
    std::vector<K> hk(n);
    data_fill(hk.data(), c.type, n, c.dist, g_seed + n); // as clsort bench --seed
    K *pk, *wk, *ok;
    V *pv = nullptr, *wv = nullptr, *ov = nullptr;
    CK(cudaMalloc(&pk, n * sizeof(K)));
    CK(cudaMalloc(&wk, n * sizeof(K)));
    CK(cudaMalloc(&ok, n * sizeof(K)));
    CK(cudaMemcpy(pk, hk.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    const bool pairs = c.vbytes != 0;
    if (pairs) {
        std::vector<V> hv(n);
        for (size_t i = 0; i < n; i++)
            hv[i] = (V)i;
        CK(cudaMalloc(&pv, n * sizeof(V)));
        CK(cudaMalloc(&wv, n * sizeof(V)));
        CK(cudaMalloc(&ov, n * sizeof(V)));
        CK(cudaMemcpy(pv, hv.data(), n * sizeof(V), cudaMemcpyHostToDevice));
    }
    int begin = (int)c.begin, end = c.end ? (int)c.end : (int)(sizeof(K) * 8);
    size_t temp = 0;
    if (pairs)
        CK(cub::DeviceRadixSort::SortPairs(nullptr, temp, wk, ok, wv, ov, n, begin, end));
    else
        CK(cub::DeviceRadixSort::SortKeys(nullptr, temp, wk, ok, n, begin, end));
    void *dtemp;
    CK(cudaMalloc(&dtemp, temp));
    const double median = median_ms(
        reps,
        [&] {
            CK(cudaMemcpyAsync(wk, pk, n * sizeof(K), cudaMemcpyDeviceToDevice));
            if (pairs)
                CK(cudaMemcpyAsync(wv, pv, n * sizeof(V), cudaMemcpyDeviceToDevice));
        },
        [&] {
            if (pairs)
                CK(cub::DeviceRadixSort::SortPairs(dtemp, temp, wk, ok, wv, ov, n, begin, end));
            else
                CK(cub::DeviceRadixSort::SortKeys(dtemp, temp, wk, ok, n, begin, end));
        });
    std::vector<K> out(n);
    CK(cudaMemcpy(out.data(), ok, n * sizeof(K), cudaMemcpyDeviceToHost));
    unsigned long long mask = 0;
    for (int b = begin; b < end; b++)
        mask |= 1ull << b;
    sorted = true;
    for (size_t i = 1; i < n; i++)
        if ((cub_image(out[i - 1]) & mask) > (cub_image(out[i]) & mask)) {
            sorted = false;
            break;
        }
    cudaFree(pk); cudaFree(wk); cudaFree(ok); cudaFree(dtemp);
    if (pairs) { cudaFree(pv); cudaFree(wv); cudaFree(ov); }
    return median;
}

// Zucchi's batch with DeviceSegmentedRadixSort and DeviceSegmentedSort.
static void run_batch(size_t count, size_t len, int reps)
{
    size_t n = count * len;
    std::vector<uint32_t> hk(n);
    data_fill(hk.data(), CLSORT_U32, n, DATA_UNIFORM, 20131 + n);
    std::vector<int> ho(count + 1);
    for (size_t s = 0; s <= count; s++)
        ho[s] = (int)(s * len);
    uint32_t *pk, *wk, *ok;
    int *offs;
    CK(cudaMalloc(&pk, n * 4));
    CK(cudaMalloc(&wk, n * 4));
    CK(cudaMalloc(&ok, n * 4));
    CK(cudaMalloc(&offs, (count + 1) * sizeof(int)));
    CK(cudaMemcpy(pk, hk.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(offs, ho.data(), (count + 1) * sizeof(int), cudaMemcpyHostToDevice));
    for (int which = 0; which < 2; which++) {
        size_t temp = 0;
        if (which == 0)
            CK(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, temp, wk, ok, (int)n, (int)count,
                                                       offs, offs + 1));
        else
            CK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp, wk, ok, (int)n, (int)count, offs,
                                                  offs + 1));
        void *dtemp;
        CK(cudaMalloc(&dtemp, temp ? temp : 1));
        const double median = median_ms(
            reps, [&] { CK(cudaMemcpyAsync(wk, pk, n * 4, cudaMemcpyDeviceToDevice)); },
            [&] {
                if (which == 0)
                    CK(cub::DeviceSegmentedRadixSort::SortKeys(dtemp, temp, wk, ok, (int)n,
                                                               (int)count, offs, offs + 1));
                else
                    CK(cub::DeviceSegmentedSort::SortKeys(dtemp, temp, wk, ok, (int)n, (int)count,
                                                          offs, offs + 1));
            });
        printf("{\"lib\": \"cub\", \"case\": \"batch %s\", \"count\": %zu, \"length\": %zu, "
               "\"ms\": %.6f}\n",
               which == 0 ? "DeviceSegmentedRadixSort" : "DeviceSegmentedSort", count, len,
               median);
        cudaFree(dtemp);
    }
    cudaFree(pk); cudaFree(wk); cudaFree(ok); cudaFree(offs);
}

/* CUB's DeviceScan::ExclusiveSum of n elements of T (in -> out), median
 * ms over reps, checked against a host scan (integers exactly; floats to a
 * relative 1e-3 of the running magnitude). */
template <typename T> static double run_scan(size_t n, int reps, bool &ok)
{
    std::vector<T> h(n);
    uint64_t x = g_seed ^ 0x5ca1ab1eull;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = (T)((x >> 33) & 0xffff);
    }
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t temp = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp, in, out, n));
    void *dtemp;
    CK(cudaMalloc(&dtemp, temp ? temp : 1));
    const double median = median_ms(
        reps, [] {}, [&] { CK(cub::DeviceScan::ExclusiveSum(dtemp, temp, in, out, n)); });
    std::vector<T> o(n);
    CK(cudaMemcpy(o.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    ok = true;
    const bool exact = (T)0.5 == 0; /* integers: exact, wrapping alike */
    T acc = 0;
    double dacc = 0;
    for (size_t i = 0; i < n && ok; i++) {
        const double d = (double)o[i] - dacc, m = dacc < 1 ? 1 : dacc;
        if (exact ? o[i] != acc : (d > 1e-3 * m || d < -1e-3 * m))
            ok = false;
        acc += h[i];
        dacc += (double)h[i];
    }
    cudaFree(in); cudaFree(out); cudaFree(dtemp);
    return median;
}

static void scans(const std::vector<size_t> &sizes, int reps)
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    for (int t = 0; t < 3; t++)
        for (size_t n : sizes) {
            bool ok = false;
            const double ms = t == 0 ? run_scan<uint32_t>(n, reps, ok)
                              : t == 1 ? run_scan<uint64_t>(n, reps, ok)
                                       : run_scan<float>(n, reps, ok);
            const size_t es = t == 1 ? 8 : 4;
            printf("{\"lib\": \"cub\", \"case\": \"scan %s\", \"device\": \"%s\", \"n\": %zu, "
                   "\"ms\": %.6f, \"gb_per_s\": %.1f, \"correct\": %s}\n",
                   t == 0 ? "u32" : t == 1 ? "u64" : "f32", prop.name, n, ms,
                   2.0 * n * es / ms / 1e6, ok ? "true" : "false");
            fflush(stdout);
        }
}

int main(int argc, char **argv)
{
    std::vector<std::string> cases;
    std::vector<size_t> sizes;
    int reps = 20;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto split = [](const char *s, std::vector<std::string> &out) {
            std::string t = s;
            size_t p;
            while ((p = t.find(',')) != std::string::npos) {
                out.push_back(t.substr(0, p));
                t = t.substr(p + 1);
            }
            if (!t.empty())
                out.push_back(t);
        };
        if (a == "--cases" && i + 1 < argc)
            split(argv[++i], cases);
        else if (a == "--sizes" && i + 1 < argc) {
            std::vector<std::string> s;
            split(argv[++i], s);
            for (auto &x : s)
                sizes.push_back(parse_size(x.c_str()));
        } else if (a == "--reps" && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (a == "--scan" && i + 1 < argc) {
            /* DeviceScan::ExclusiveSum at these sizes, u32, u64 and f32 */
            std::vector<std::string> s;
            std::vector<size_t> ns;
            split(argv[++i], s);
            for (auto &x : s)
                ns.push_back(parse_size(x.c_str()));
            scans(ns, reps);
        } else if (a == "--seed" && i + 1 < argc)
            g_seed = strtoull(argv[++i], nullptr, 10);
        else if (a == "--floor")
            floors(reps);
        else if (a == "--batch" && i + 1 < argc) {
            size_t count = 0, len = 0;
            if (sscanf(argv[++i], "%zu,%zu", &count, &len) == 2)
                run_batch(count, len, reps);
        }
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    for (auto &cs : cases) {
        Case c;
        if (!parse_case(cs, c)) {
            fprintf(stderr, "cub_sort: unsupported case '%s'\n", cs.c_str());
            return 2;
        }
        for (size_t n : sizes) {
            bool ok = false;
            double ms;
            switch (c.type) {
            case CLSORT_U32:
                ms = c.vbytes == 8 ? run<uint32_t, uint64_t>(c, n, reps, ok)
                                   : run<uint32_t, uint32_t>(c, n, reps, ok);
                break;
            case CLSORT_U64:
                ms = c.vbytes == 8 ? run<uint64_t, uint64_t>(c, n, reps, ok)
                                   : run<uint64_t, uint32_t>(c, n, reps, ok);
                break;
            case CLSORT_I32: ms = run<int32_t, uint32_t>(c, n, reps, ok); break;
            case CLSORT_I64: ms = run<int64_t, uint32_t>(c, n, reps, ok); break;
            case CLSORT_F32: ms = run<float, uint32_t>(c, n, reps, ok); break;
            default: ms = run<double, uint32_t>(c, n, reps, ok); break;
            }
            printf("{\"lib\": \"cub\", \"case\": \"%s\", \"device\": \"%s\", \"n\": %zu, \"ms\": %.6f, "
                   "\"mkeys_per_s\": %.3f, \"correct\": %s}\n",
                   cs.c_str(), prop.name, n, ms, n / ms / 1e3, ok ? "true" : "false");
            fflush(stdout);
        }
    }
    return 0;
}

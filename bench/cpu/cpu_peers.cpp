// cpu_peers.cpp - the CPU anchors of the benchmark, on the inputs that
// `clsort bench` sorts (bench/data.c, the same seeds): ips4o (parallel and
// sequential), Highway's vqsort (one thread), std::sort, std::stable_sort and
// the C library's qsort, for u32 keys and for (u32 key, u32 value) pairs held
// as 64-bit records ordered by their key. Built by bench/gpu_run.sh (or by
// hand) where libips4o-dev and libhwy-dev are installed:
//
//   g++ -O3 -march=native -std=c++17 -Iinclude -x c++ bench/cpu/cpu_peers.cpp \
//       -x none build/libclsort_bench.a build/libclsort.a -lOpenCL \
//       -fopenmp -lhwy_contrib -lhwy -latomic -pthread -o cpu_peers
//
// usage: cpu_peers [--sizes 1M,8M,32M] [--cases u32,u32+4] [--impls a,b,...]
//                  [--threads T] [--reps R]
// A case is u32, f32, u64 (keys) or u32+4 (pairs), with @DIST for any
// distribution of bench/data.c (default uniform), as clsort bench takes it.
// One JSON object per line on stdout, as the CUB program writes:
//   {"impl": "ips4o", "threads": 16, "case": "u32", "n": 33554432, "ms": ..., "mkeys_per_s": ...}
// --impls memcpy (not in the default list) copies the input to another
// buffer with T threads instead of sorting it, and adds "gbs": the memory
// bandwidth the machine gives (bytes read + written per second), the
// measure the PoCL copy of `clsort bench --copy` cannot give on CPUs.
// Every result is checked (sorted, and the same multiset as the input by a
// checksum); a wrong result exits 1. Floats with NaN are sorted in clsort's
// order (NaN last); vqsort, whose order of NaNs is its own, skips them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <hwy/contrib/sort/vqsort.h>
#include <ips4o.hpp>
#include <omp.h>

extern "C" {
#include "../data.h"
}

namespace {

double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

size_t parse_size(const std::string &s)
{
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (*end == 'K' || *end == 'k') v *= 1024;
    if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    if (*end == 'G' || *end == 'g') v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    size_t a = 0;
    while (a <= s.size()) {
        size_t b = s.find(',', a);
        if (b == std::string::npos) b = s.size();
        if (b > a) out.push_back(s.substr(a, b - a));
        a = b + 1;
    }
    return out;
}

int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// A record (key in the high half, value in the low half) ordered by key:
// the K32V32 layout of vqsort.
int cmp_rec(const void *a, const void *b)
{
    uint32_t x = (uint32_t)(*(const uint64_t *)a >> 32), y = (uint32_t)(*(const uint64_t *)b >> 32);
    return (x > y) - (x < y);
}

struct rec_less {
    bool operator()(uint64_t a, uint64_t b) const { return (a >> 32) < (b >> 32); }
};

uint64_t checksum(const uint64_t *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += v[i] * 0x9e3779b97f4a7c15ull ^ (v[i] >> 7);
    return s;
}
template <typename T> uint64_t checksum_of(const T *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        std::memcpy(&x, &v[i], sizeof(T));
        s += x * 0x9e3779b97f4a7c15ull ^ (x >> 7);
    }
    return s;
}
uint64_t checksum(const uint32_t *v, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += (uint64_t)v[i] * 0x9e3779b97f4a7c15ull ^ (v[i] >> 7);
    return s;
}

// dst = src with `threads` threads, each copying one contiguous chunk
void parallel_copy(void *dst, const void *src, size_t bytes, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++) {
        size_t a = bytes / threads * t, b = t + 1 == threads ? bytes : bytes / threads * (t + 1);
        std::memcpy((char *)dst + a, (const char *)src + a, b - a);
    }
}

// One implementation's median time over reps sorts of keys (a copy each
// time), checked; returns a negative time for a wrong result, 0 for an
// implementation that does not take this key type.
// Floats with NaN in the order clsort sorts them (its radix image: -0.0 as
// +0.0, every NaN last), a strict weak order where std::less is none once
// NaNs appear; without NaN, std::less (the image costs ips4o about half its
// speed).
struct float_less {
    bool total = false;
    static uint32_t image(float f)
    {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
        if (u == 0x80000000u) u = 0;
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    bool operator()(float a, float b) const { return total ? image(a) < image(b) : a < b; }
};
template <typename T> struct peer_less : std::less<T> {
    explicit peer_less(bool) {}
};
template <> struct peer_less<float> : float_less {
    explicit peer_less(bool nan) { total = nan; }
};

template <typename T>
double time_keys(const std::string &im, const hwy::Sorter &vq, const std::vector<T> &keys,
                 int threads, int reps, uint64_t want)
{
    const size_t n = keys.size();
    bool nan = false;
    for (size_t i = 0; std::is_same<T, float>::value && i < n && !nan; i++) nan = keys[i] != keys[i];
    // vqsort's order of NaNs is its own: it does not take inputs with NaN
    if (im == "vqsort" && nan) return 0;
    const peer_less<T> less(nan);
    std::vector<double> ms;
    for (int r = 0; r < reps; r++) {
        std::vector<T> k = keys;
        T *b = k.data(), *e = b + n;
        double t0 = now_ms();
        if (im == "ips4o") ips4o::parallel::sort(b, e, less, threads);
        else if (im == "ips4o_seq") ips4o::sort(b, e, less);
        else if (im == "vqsort") vq(b, n, hwy::SortAscending());
        else if (im == "std_sort") std::sort(b, e, less);
        else if (im == "std_stable_sort") std::stable_sort(b, e, less);
        else if (im == "qsort" && sizeof(T) == 4 && T(-1) > T(0))
            std::qsort(b, n, 4, cmp_u32);
        else return 0;
        ms.push_back(now_ms() - t0);
        if (!std::is_sorted(k.begin(), k.end(), less) || checksum_of(k.data(), n) != want)
            return -1;
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char **argv)
{
    std::string sizes = "1M,8M,32M", cases = "u32,u32+4",
                impls = "ips4o,ips4o_seq,vqsort,std_sort,std_stable_sort,qsort";
    int threads = (int)std::thread::hardware_concurrency();
    int reps = 5;
    unsigned long long seed = 20111; // as clsort bench --seed
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cpu_peers: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--sizes") sizes = next();
        else if (a == "--cases") cases = next();
        else if (a == "--impls") impls = next();
        else if (a == "--threads") threads = std::atoi(next().c_str());
        else if (a == "--reps") reps = std::atoi(next().c_str());
        else if (a == "--seed") seed = std::strtoull(next().c_str(), nullptr, 10);
        else {
            std::fprintf(stderr, "usage: cpu_peers [--sizes L] [--cases u32,u32+4,f32@normal,...] "
                                 "[--impls L] [--threads T] [--reps R] [--seed S]\n");
            return 2;
        }
    }
    if (threads < 1 || reps < 1) {
        std::fprintf(stderr, "cpu_peers: --threads and --reps must be positive\n");
        return 2;
    }
    const hwy::Sorter vq;
    for (const std::string &cs : split(cases)) {
        const size_t at = cs.find('@');
        const std::string kind = cs.substr(0, at);
        data_dist dist = DATA_UNIFORM;
        if (at != std::string::npos) {
            int d = data_dist_from_name(cs.c_str() + at + 1);
            if (d < 0) {
                std::fprintf(stderr, "cpu_peers: case %s: unknown distribution\n", cs.c_str());
                return 2;
            }
            dist = (data_dist)d;
        }
        bool pairs = kind == "u32+4";
        if (!pairs && kind != "u32" && kind != "f32" && kind != "u64") {
            std::fprintf(stderr, "cpu_peers: case %s: only u32, f32, u64 and u32+4\n", cs.c_str());
            return 2;
        }
        for (const std::string &ss : split(sizes)) {
            size_t n = parse_size(ss);
            // the keys clsort bench sorts: seed S + n (bench.c)
            std::vector<uint32_t> keys;
            std::vector<float> fkeys;
            std::vector<uint64_t> wkeys;
            if (kind == "f32") {
                fkeys.resize(n);
                data_fill(fkeys.data(), CLSORT_F32, n, dist, seed + n);
            } else if (kind == "u64") {
                wkeys.resize(n);
                data_fill(wkeys.data(), CLSORT_U64, n, dist, seed + n);
            } else {
                keys.resize(n);
                data_fill(keys.data(), CLSORT_U32, n, dist, seed + n);
            }
            std::vector<uint64_t> recs;
            if (pairs) {
                recs.resize(n);
                for (size_t i = 0; i < n; i++) recs[i] = (uint64_t)keys[i] << 32 | (uint32_t)i;
            }
            const uint64_t want = pairs             ? checksum(recs.data(), n)
                                  : kind == "f32" ? checksum_of(fkeys.data(), n)
                                  : kind == "u64" ? checksum_of(wkeys.data(), n)
                                                    : checksum(keys.data(), n);
            for (const std::string &im : split(impls)) {
                int used_threads = im == "ips4o" || im == "memcpy" ? threads : 1;
                if ((im == "qsort" || im == "std_stable_sort" || im == "std_sort") && n > (32u << 20))
                    continue;
                double med = 0;
                if (!pairs && im != "memcpy") {
                    med = kind == "f32"   ? time_keys(im, vq, fkeys, threads, reps, want)
                          : kind == "u64" ? time_keys(im, vq, wkeys, threads, reps, want)
                                          : time_keys(im, vq, keys, threads, reps, want);
                    if (med == 0) continue;
                    if (med < 0) {
                        std::fprintf(stderr, "cpu_peers: %s %s n=%zu: WRONG RESULT\n", im.c_str(),
                                     cs.c_str(), n);
                        return 1;
                    }
                } else {
                    std::vector<double> ms;
                    bool ok = true;
                    for (int r = 0; r < reps && ok; r++) {
                        std::vector<uint32_t> k = keys;
                        std::vector<uint64_t> v = recs;
                        if (im == "memcpy") { // the copy, into memory already touched
                            const void *src = pairs ? (const void *)recs.data() : keys.data();
                            void *dst = pairs ? (void *)v.data() : k.data();
                            size_t bytes = n * (pairs ? 8 : 4);
                            std::memset(dst, 0, bytes);
                            double t0 = now_ms();
                            parallel_copy(dst, src, bytes, threads);
                            ms.push_back(now_ms() - t0);
                            ok = std::memcmp(dst, src, bytes) == 0;
                            continue;
                        }
                        double t0 = now_ms();
                        uint64_t *b = v.data(), *e = b + n;
                        if (im == "ips4o") ips4o::parallel::sort(b, e, rec_less(), threads);
                        else if (im == "ips4o_seq") ips4o::sort(b, e, rec_less());
                        else if (im == "vqsort")
                            vq(reinterpret_cast<hwy::K32V32 *>(b), n, hwy::SortAscending());
                        else if (im == "std_sort") std::sort(b, e, rec_less());
                        else if (im == "std_stable_sort") std::stable_sort(b, e, rec_less());
                        else if (im == "qsort") std::qsort(b, n, 8, cmp_rec);
                        else { std::fprintf(stderr, "cpu_peers: unknown impl %s\n", im.c_str()); return 2; }
                        ms.push_back(now_ms() - t0);
                        ok = std::is_sorted(v.begin(), v.end(), rec_less()) &&
                             checksum(v.data(), n) == want;
                    }
                    if (!ok) {
                        std::fprintf(stderr, "cpu_peers: %s %s n=%zu: WRONG RESULT\n", im.c_str(),
                                     cs.c_str(), n);
                        return 1;
                    }
                    std::sort(ms.begin(), ms.end());
                    med = ms[ms.size() / 2];
                }
                char extra[64] = "";
                if (im == "memcpy")
                    std::snprintf(extra, sizeof extra, ", \"gbs\": %.1f",
                                  med > 0 ? 2.0 * n * (pairs ? 8 : 4) / med / 1e6 : 0.0);
                std::printf("{\"impl\": \"%s\", \"threads\": %d, \"case\": \"%s\", \"n\": %zu, "
                            "\"ms\": %.4f, \"mkeys_per_s\": %.1f%s}\n",
                            im.c_str(), used_threads, cs.c_str(), n, med,
                            med > 0 ? n / med / 1e3 : 0.0, extra);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

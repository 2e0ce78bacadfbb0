// host_peers.cpp - host arrays in, sorted host arrays out, wall clock, on a
// CPU: clsort's host API (on the OpenCL CPU device, PoCL) against ips4o on
// every thread, Highway's vqsort (one thread) and std::sort, and against
// clsort's own sort of device buffers (clsort_buffers), in one
// process, on the same inputs (bench/data.c), the order of the programs
// rotating round by round. u32 keys, and u32 keys with u32 values (the
// peers sort an array of (key, value) structs by key). clsort's result is
// checked against std::stable_sort every round. Built by bench/gpu_run.sh
// (stage host) where libips4o-dev and libhwy-dev are installed:
//
//   g++ -O3 -march=native -std=c++17 -Iinclude bench/cpu/host_peers.cpp \
//       build/libclsort_bench.a build/libclsort.a -lOpenCL -fopenmp \
//       -lhwy_contrib -lhwy -latomic -pthread -o host_peers
//
// usage: host_peers [--sizes 1M,8M,32M] [--cases u32,u32+4] [--rounds R]
//                   [--threads T] [--device cpu] [--seed S]
// One JSON object per line.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <hwy/contrib/sort/vqsort.h>
#include <ips4o.hpp>

extern "C" {
#include <clsort.h>

#include "../data.h"
}
#include "../peer_util.h"

namespace {

struct Rec {
    uint32_t key, val;
};

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> cases = {"u32", "u32+4"};
    std::vector<size_t> sizes = {1u << 20, 8u << 20, 32u << 20};
    int rounds = 7;
    int threads = (int)std::thread::hardware_concurrency();
    uint64_t seed = 20111;
    const char *device = "cpu";
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--cases" && i + 1 < argc) {
            cases.clear();
            split(argv[++i], cases);
        } else if (a == "--sizes" && i + 1 < argc) {
            std::vector<std::string> s;
            sizes.clear();
            split(argv[++i], s);
            for (auto &x : s)
                sizes.push_back(parse_size(x));
        } else if (a == "--rounds" && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (a == "--threads" && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = strtoull(argv[++i], nullptr, 10);
        else if (a == "--device" && i + 1 < argc)
            device = argv[++i];
        else {
            fprintf(stderr, "usage: host_peers [--sizes N,..] [--cases u32,u32+4] [--rounds R] "
                            "[--threads T] [--device D] [--seed S]\n");
            return 2;
        }
    }
    clsort_context *ctx = nullptr;
    if (clsort_context_create(&ctx, device) != CLSORT_SUCCESS) {
        fprintf(stderr, "host_peers: %s\n", clsort_context_last_error(nullptr));
        return 1;
    }
    clsort_device_info info;
    clsort_context_device_info(ctx, &info);
    const hwy::Sorter vq;
    for (auto &cs : cases) {
        const bool pairs = cs == "u32+4";
        if (!pairs && cs != "u32") {
            fprintf(stderr, "host_peers: unsupported case '%s'\n", cs.c_str());
            return 2;
        }
        for (size_t n : sizes) {
            std::vector<uint32_t> keys(n), vals(n), wk(n), wv(n);
            data_fill(keys.data(), CLSORT_U32, n, DATA_UNIFORM, seed + n);
            for (size_t i = 0; i < n; i++)
                vals[i] = (uint32_t)i;
            std::vector<Rec> recs(n), wr(n), ref(n);
            for (size_t i = 0; i < n; i++)
                recs[i] = {keys[i], vals[i]};
            ref = recs;
            std::stable_sort(ref.begin(), ref.end(),
                             [](const Rec &a, const Rec &b) { return a.key < b.key; });
            std::vector<std::string> impls = {"clsort", "clsort_buffers", "ips4o", "vqsort",
                                              "std_sort"};
            if (pairs)
                impls = {"clsort", "clsort_buffers", "ips4o", "std_sort"};
            // device buffers of the same data (wall clock of the sort alone)
            cl_context clc = clsort_context_cl_context(ctx);
            cl_command_queue q = clsort_context_queue(ctx);
            cl_int e = CL_SUCCESS;
            cl_mem pk = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4,
                                       keys.data(), &e);
            cl_mem bk = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * 4, nullptr, &e);
            cl_mem pv = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4,
                                       vals.data(), &e);
            cl_mem bv = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * 4, nullptr, &e);
            if (!pk || !bk || !pv || !bv) {
                fprintf(stderr, "host_peers: device buffers: %d\n", e);
                return 1;
            }
            std::vector<std::vector<double>> t(impls.size());
            auto once = [&](const std::string &im) {
                double t0 = 0, ms = 0;
                if (im == "clsort") {
                    memcpy(wk.data(), keys.data(), n * 4);
                    if (pairs)
                        memcpy(wv.data(), vals.data(), n * 4);
                    t0 = now_ms();
                    clsort_status s = pairs ? clsort_sort_pairs(ctx, CLSORT_U32, wk.data(),
                                                                wv.data(), 4, n, nullptr)
                                            : clsort_sort_keys(ctx, CLSORT_U32, wk.data(), n,
                                                               nullptr);
                    ms = now_ms() - t0;
                    if (s != CLSORT_SUCCESS) {
                        fprintf(stderr, "host_peers: %s\n", clsort_context_last_error(ctx));
                        exit(1);
                    }
                    for (size_t i = 0; i < n; i++)
                        if (wk[i] != ref[i].key || (pairs && wv[i] != ref[i].val)) {
                            fprintf(stderr, "host_peers: clsort wrong at %zu (n=%zu)\n", i, n);
                            exit(1);
                        }
                } else if (im == "clsort_buffers") {
                    clEnqueueCopyBuffer(q, pk, bk, 0, 0, n * 4, 0, nullptr, nullptr);
                    if (pairs)
                        clEnqueueCopyBuffer(q, pv, bv, 0, 0, n * 4, 0, nullptr, nullptr);
                    clFinish(q);
                    t0 = now_ms();
                    clsort_status s = pairs ? clsort_sort_pairs_buffer(ctx, CLSORT_U32, bk, 0, bv,
                                                                       0, 4, n, nullptr, 0,
                                                                       nullptr, nullptr)
                                            : clsort_sort_keys_buffer(ctx, CLSORT_U32, bk, 0, n,
                                                                      nullptr, 0, nullptr,
                                                                      nullptr);
                    clFinish(q);
                    ms = now_ms() - t0;
                    if (s != CLSORT_SUCCESS) {
                        fprintf(stderr, "host_peers: %s\n", clsort_context_last_error(ctx));
                        exit(1);
                    }
                } else if (!pairs) {
                    memcpy(wk.data(), keys.data(), n * 4);
                    t0 = now_ms();
                    if (im == "ips4o")
                        ips4o::parallel::sort(wk.begin(), wk.end(), std::less<>(), threads);
                    else if (im == "vqsort")
                        vq(wk.data(), n, hwy::SortAscending());
                    else
                        std::sort(wk.begin(), wk.end());
                    ms = now_ms() - t0;
                    for (size_t i = 0; i < n; i++)
                        if (wk[i] != ref[i].key) {
                            fprintf(stderr, "host_peers: %s wrong\n", im.c_str());
                            exit(1);
                        }
                } else {
                    wr = recs;
                    auto less = [](const Rec &a, const Rec &b) { return a.key < b.key; };
                    t0 = now_ms();
                    if (im == "ips4o")
                        ips4o::parallel::sort(wr.begin(), wr.end(), less, threads);
                    else
                        std::sort(wr.begin(), wr.end(), less);
                    ms = now_ms() - t0;
                }
                return ms;
            };
            for (auto &im : impls)
                once(im); // warm-up (clsort: programs, pool)
            for (int r = 0; r < rounds; r++)
                for (size_t j = 0; j < impls.size(); j++) {
                    size_t k = (j + (size_t)r) % impls.size(); // rotate the order
                    if (impls[k] == "std_sort" && r >= 3)
                        continue; // slow: three rounds are enough
                    t[k].push_back(once(impls[k]));
                }
            for (size_t k = 0; k < impls.size(); k++)
                printf("{\"impl\": \"%s\", \"case\": \"%s\", \"n\": %zu, \"device\": \"%s\", "
                       "\"threads\": %d, \"rounds\": %zu, \"ms\": %.3f, \"mkeys_per_s\": %.1f, "
                       "\"clsort_speedup\": %.3f, \"timing\": \"host\"}\n",
                       impls[k].c_str(), cs.c_str(), n,
                       impls[k].rfind("clsort", 0) == 0 ? info.device_name : "host",
                       impls[k] == "vqsort" || impls[k] == "std_sort" ? 1 : threads, t[k].size(),
                       median(t[k]), n / median(t[k]) / 1e3, median(t[k]) / median(t[0]));
            fflush(stdout);
            clReleaseMemObject(pk);
            clReleaseMemObject(bk);
            clReleaseMemObject(pv);
            clReleaseMemObject(bv);
        }
    }
    clsort_context_release(ctx);
    return 0;
}

// peer_util.h - what the C++ peer programs of the benchmark share (host
// wall clock, medians, size and list arguments). Header-only.
#ifndef CLSORT_BENCH_PEER_UTIL_H
#define CLSORT_BENCH_PEER_UTIL_H

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

static inline double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline size_t parse_size(const std::string &s)
{
    char *end = nullptr;
    double v = strtod(s.c_str(), &end);
    size_t m = 1;
    if (*end == 'K' || *end == 'k') m = 1024;
    if (*end == 'M' || *end == 'm') m = 1024 * 1024;
    if (*end == 'G' || *end == 'g') m = 1024ull * 1024 * 1024;
    return (size_t)(v * m);
}

static inline void split(const char *s, std::vector<std::string> &out)
{
    std::string t = s;
    size_t p;
    while ((p = t.find(',')) != std::string::npos) {
        out.push_back(t.substr(0, p));
        t = t.substr(p + 1);
    }
    if (!t.empty())
        out.push_back(t);
}

#endif

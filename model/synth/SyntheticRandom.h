#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tpg::synth {

// splitmix64's finaliser: a strong 64-bit mix, used for seeds and for content hashes.
inline uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A seed derived from a parent seed and a path of integers (collection, graph index, ...), so
// that every graph gets its own stream whatever order or thread generates it.
inline uint64_t deriveSeed(uint64_t seed, std::initializer_list<uint64_t> path) {
    uint64_t s = mix64(seed);
    for (uint64_t p : path) s = mix64(s ^ mix64(p + 0x632be59bd9b4e019ULL));
    return s;
}

// xoshiro256** with our own distributions: std::uniform_int_distribution and friends differ
// between standard libraries, and the synthetic dataset must be the same everywhere for a seed.
class Rng {
public:
    explicit Rng(uint64_t seed) {
        for (auto& w : m_s) {
            seed = mix64(seed);
            w = seed;
        }
    }

    uint64_t next() {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }

    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    // [0, n) without modulo bias worth caring about at our n (< 2^32).
    int64_t below(int64_t n) {
        return n <= 1 ? 0 : static_cast<int64_t>((next() >> 32) * static_cast<uint64_t>(n) >> 32);
    }
    int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
    bool chance(double p) { return uniform() < p; }
    double normal() {
        // Box-Muller; one value per call keeps the stream simple.
        const double u1 = 1.0 - uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    double logUniform(double lo, double hi) {
        return std::exp(uniform(std::log(lo), std::log(hi)));
    }
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[static_cast<size_t>(below(static_cast<int64_t>(v.size())))];
    }
    template <typename T>
    void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; --i)
            std::swap(v[i - 1], v[static_cast<size_t>(below(static_cast<int64_t>(i)))]);
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t m_s[4];
};

}  // namespace tpg::synth

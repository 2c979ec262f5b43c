// xoshiro256** seeded by splitmix64 (Blackman & Vigna, prng.di.unimi.it):
// fast, small state, and the same sequence on every machine, unlike
// std::uniform_int_distribution whose output is implementation-defined.
#pragma once

#include <cstdint>

namespace fscost::workload {

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  // One independent stream per (seed, thread).
  Rng(std::uint64_t seed, int thread) {
    std::uint64_t x = seed;
    x = splitmix64(x) ^ (std::uint64_t(thread) * 0xd1b54a32d192ed03ull);
    for (auto& w : s_) w = splitmix64(x);
  }

  std::uint64_t next() {
    std::uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3];
    s_[2] ^= t, s_[3] = rotl(s_[3], 45);
    return result;
  }

  // In [0, n): the high bits scaled (Lemire), bias below 2^-32.
  std::uint32_t below(std::uint32_t n) {
    return std::uint32_t(((next() >> 32) * std::uint64_t(n)) >> 32);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace fscost::workload

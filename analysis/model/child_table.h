// ChildTable: a tree's child lookup by (parent node, frame id), for the
// tries that merge stacks (flame/profile_tree.cpp, diff/descent.cpp).
// Open addressing with linear probing, key and value inline: a lookup is
// one cache line where std::unordered_map's chains cost two or three
// misses (perf: the chain walk was half of `fscost diff` at 2 × 10 runs of
// 100k stacks).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace fscost {

class ChildTable {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // Room for `n` children before it grows.
  explicit ChildTable(std::size_t n = 512) : slots_(std::bit_ceil(2 * n + 2), {kEmpty, 0}) {}

  // The child of `parent` named `frame`, or kNone: the caller sets it for a
  // new child. The reference is good until the next call.
  std::uint32_t& at(std::uint32_t parent, std::uint32_t frame) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    std::uint64_t key = (std::uint64_t{parent} << 32) | frame;
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i].first == key) return slots_[i].second;
      if (slots_[i].first == kEmpty) {
        ++used_;
        slots_[i] = {key, kNone};
        return slots_[i].second;
      }
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();
  static std::size_t hash(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  void grow() {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> old(slots_.size() * 2, {kEmpty, 0});
    old.swap(slots_);
    std::size_t mask = slots_.size() - 1;
    for (const auto& s : old) {
      if (s.first == kEmpty) continue;
      std::size_t i = hash(s.first) & mask;
      while (slots_[i].first != kEmpty) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<std::pair<std::uint64_t, std::uint32_t>> slots_;
  std::size_t used_ = 0;
};

}  // namespace fscost

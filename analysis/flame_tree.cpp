// Stacks → merged tree. Sorting the stacks first (as flamegraph.pl sorts its
// input lines) makes merging a walk along the previous stack: a stack shares
// a prefix with the one before it, and children come out in name order.
// Frames are interned to their rank in name order first, so the sort
// compares integers instead of strings (a diff of 2 x 100k stacks: 1.0 s
// → 0.75 s, docs/FLAMEGRAPH.md).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "flamegraph.h"

namespace fscost {

namespace {

struct Entry {
  const std::vector<std::string>* frames;
  double value;
  bool is_b;
};

// Each stack as the name-order ranks of its frames.
std::vector<std::vector<std::uint32_t>> ranked_keys(const std::vector<Entry>& entries) {
  std::unordered_map<std::string_view, std::uint32_t> ids;
  std::vector<std::vector<std::uint32_t>> keys(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    keys[i].reserve(entries[i].frames->size());
    for (const auto& f : *entries[i].frames)
      keys[i].push_back(ids.try_emplace(f, static_cast<std::uint32_t>(ids.size())).first->second);
  }
  std::vector<std::pair<std::string_view, std::uint32_t>> names(ids.begin(), ids.end());
  std::sort(names.begin(), names.end());
  std::vector<std::uint32_t> rank(names.size());
  for (std::size_t r = 0; r < names.size(); ++r)
    rank[names[r].second] = static_cast<std::uint32_t>(r);
  for (auto& k : keys)
    for (auto& id : k) id = rank[id];
  return keys;
}

FlameNode merge(const std::vector<Entry>& entries) {
  auto keys = ranked_keys(entries);
  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
  FlameNode root{"all"};
  // path[d] is the node at depth d of the previous stack; valid while the
  // tree below it is not reallocated, i.e. until a sibling is appended at a
  // shallower depth, which also truncates `path` to that depth first.
  std::vector<FlameNode*> path{&root};
  const std::vector<std::uint32_t>* prev = nullptr;
  for (std::size_t i : order) {
    const Entry& e = entries[i];
    const auto& key = keys[i];
    std::size_t common = 0;
    if (prev) {
      auto [it, unused] = std::mismatch(prev->begin(), prev->end(), key.begin(), key.end());
      common = static_cast<std::size_t>(it - prev->begin());
    }
    path.resize(std::min(path.size(), common + 1));
    for (std::size_t d = path.size() - 1; d < key.size(); ++d) {
      path.back()->children.push_back(FlameNode{(*e.frames)[d]});
      path.push_back(&path.back()->children.back());
    }
    for (FlameNode* n : path) (e.is_b ? n->value_b : n->value) += e.value;
    prev = &key;
  }
  return root;
}

void add(std::vector<Entry>& entries, const FlameInput& in, bool is_b) {
  for (const auto& [frames, value] : in.stacks)
    if (value > 0) entries.push_back({&frames, value, is_b});
}

}  // namespace

FlameNode flame_tree(const FlameInput& in) {
  std::vector<Entry> entries;
  add(entries, in, false);
  return merge(entries);
}

FlameNode flame_diff_tree(const FlameInput& a, const FlameInput& b) {
  std::vector<Entry> entries;
  add(entries, a, false);
  add(entries, b, true);
  return merge(entries);
}

}  // namespace fscost

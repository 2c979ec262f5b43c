// Stacks → merged tree. Sorting the stacks first (as flamegraph.pl sorts its
// input lines) makes merging a walk along the previous stack: a stack shares
// a prefix with the one before it, and children come out in name order.
// Frames are interned to their rank in name order first, so the sort
// compares integers instead of strings (a diff of 2 x 100k stacks: 1.0 s
// → 0.75 s, docs/FLAMEGRAPH.md).
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "flamegraph.h"

namespace fscost {

namespace {

struct Entry {
  const Stack* frames;
  double value;
  bool is_b;
};

// Each stack as the name-order ranks of its frames. Frames are interned, so
// the local numbering indexes by pool id: no string is hashed.
std::vector<std::vector<std::uint32_t>> ranked_keys(const std::vector<Entry>& entries) {
  constexpr std::uint32_t kUnseen = UINT32_MAX;
  std::vector<std::uint32_t> local(Frame::pool_size(), kUnseen);  // pool id → local id
  std::vector<Frame> seen;                                         // local id → frame
  std::vector<std::vector<std::uint32_t>> keys(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    keys[i].reserve(entries[i].frames->size());
    for (const Frame& f : *entries[i].frames) {
      std::uint32_t& id = local[f.id()];
      if (id == kUnseen) {
        id = static_cast<std::uint32_t>(seen.size());
        seen.push_back(f);
      }
      keys[i].push_back(id);
    }
  }
  std::vector<std::uint32_t> order(seen.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t x, std::uint32_t y) { return seen[x].str() < seen[y].str(); });
  std::vector<std::uint32_t> rank(seen.size());
  for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<std::uint32_t>(r);
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

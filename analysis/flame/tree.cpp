// Stacks → merged tree. Sorting the stacks first (as flamegraph.pl sorts its
// input lines) makes merging a walk along the previous stack: a stack shares
// a prefix with the one before it, and children come out in name order.
// Frames are interned to their rank in name order first, so the sort
// compares integers instead of strings (a diff of 2 x 100k stacks: 1.0 s
// → 0.75 s, docs/FLAMEGRAPH.md).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>

#include "flame/drawn.h"
#include "flame/flamegraph.h"

namespace fscost {

namespace {

struct Entry {
  const Stack* frames;
  double value;
  bool is_b;
};

// Each stack as the name-order ranks of its frames, back to back in one
// array. Frames are interned, so the local numbering indexes by pool id: no
// string is hashed.
struct RankedKeys {
  std::vector<std::uint32_t> ranks;
  std::vector<std::size_t> start;  // entry → its first rank; one past the last

  std::span<const std::uint32_t> operator[](std::size_t i) const {
    return {ranks.data() + start[i], start[i + 1] - start[i]};
  }
  bool less(std::size_t x, std::size_t y) const {
    return std::ranges::lexicographical_compare((*this)[x], (*this)[y]);
  }
};

// `frames_of(i)`: the i-th of `n` stacks.
template <typename FramesOf>
RankedKeys ranked_keys(std::size_t n, const FramesOf& frames_of) {
  constexpr std::uint32_t kUnseen = UINT32_MAX;
  std::vector<std::uint32_t> local(Frame::pool_size(), kUnseen);  // pool id → local id
  std::vector<Frame> seen;                                         // local id → frame
  RankedKeys keys;
  keys.start.reserve(n + 1);
  keys.start.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const Frame& f : frames_of(i)) {
      std::uint32_t& id = local[f.id()];
      if (id == kUnseen) {
        id = static_cast<std::uint32_t>(seen.size());
        seen.push_back(f);
      }
      keys.ranks.push_back(id);
    }
    keys.start.push_back(keys.ranks.size());
  }
  std::vector<std::uint32_t> order(seen.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t x, std::uint32_t y) { return seen[x].str() < seen[y].str(); });
  std::vector<std::uint32_t> rank(seen.size());
  for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<std::uint32_t>(r);
  for (auto& id : keys.ranks) id = rank[id];
  return keys;
}

// The entries in stack order. When A's and B's entries (`split` is B's
// first) each come sorted already, as the diff's mean stacks do, one merge
// of the two replaces a sort of both. (Parsed folded text is sorted by whole
// line, where ';' sorts after '.', so it usually takes the sort.)
std::vector<std::size_t> stack_order(const RankedKeys& keys, std::size_t split, std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto less = [&](std::size_t x, std::size_t y) { return keys.less(x, y); };
  auto mid = order.begin() + static_cast<std::ptrdiff_t>(split);
  if (std::is_sorted(order.begin(), mid, less) && std::is_sorted(mid, order.end(), less))
    std::inplace_merge(order.begin(), mid, order.end(), less);
  else
    std::sort(order.begin(), order.end(), less);
  return order;
}

FlameNode merge(const std::vector<Entry>& entries, std::size_t split) {
  const RankedKeys keys = ranked_keys(
      entries.size(), [&](std::size_t i) -> const Stack& { return *entries[i].frames; });
  FlameNode root{"all"};
  // path[d] is the node at depth d of the previous stack; valid while the
  // tree below it is not reallocated, i.e. until a sibling is appended at a
  // shallower depth, which also truncates `path` to that depth first.
  std::vector<FlameNode*> path{&root};
  std::span<const std::uint32_t> prev;
  for (std::size_t i : stack_order(keys, split, entries.size())) {
    const Entry& e = entries[i];
    const auto key = keys[i];
    auto [it, unused] = std::ranges::mismatch(prev, key);
    const auto common = static_cast<std::size_t>(it - prev.begin());
    path.resize(std::min(path.size(), common + 1));
    for (std::size_t d = path.size() - 1; d < key.size(); ++d) {
      path.back()->children.push_back(FlameNode{(*e.frames)[d]});
      path.push_back(&path.back()->children.back());
    }
    for (FlameNode* n : path) (e.is_b ? n->value_b : n->value) += e.value;
    prev = key;
  }
  return root;
}

void add(std::vector<Entry>& entries, const FlameInput& in, bool is_b) {
  for (const auto& [frames, value] : in.stacks)
    if (value > 0) entries.push_back({&frames, value, is_b});
}

}  // namespace

namespace flame {

std::vector<std::size_t> tree_order(std::span<const Stack* const> stacks) {
  const RankedKeys keys =
      ranked_keys(stacks.size(), [&](std::size_t i) -> const Stack& { return *stacks[i]; });
  return stack_order(keys, stacks.size(), stacks.size());
}

std::vector<std::size_t> tree_order(std::span<const Stack* const> stacks, std::size_t split) {
  const RankedKeys keys =
      ranked_keys(stacks.size(), [&](std::size_t i) -> const Stack& { return *stacks[i]; });
  return stack_order(keys, split, stacks.size());
}

}  // namespace flame

FlameNode flame_tree(const FlameInput& in) {
  std::vector<Entry> entries;
  add(entries, in, false);
  return merge(entries, entries.size());
}

FlameNode flame_diff_tree(const FlameInput& a, const FlameInput& b) {
  std::vector<Entry> entries;
  add(entries, a, false);
  const std::size_t split = entries.size();
  add(entries, b, true);
  return merge(entries, split);
}

}  // namespace fscost

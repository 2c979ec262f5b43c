#include "diff/delta_tree.h"

#include "views/spin_check.h"  // is_spin_stack

namespace fscost {

namespace {

struct Annotate {
  std::size_t depth = 0;     // of the node being annotated; the op's is 1
  std::uint32_t next = 0;    // pre-order numbers
  std::vector<char> absent;  // by the same numbers: absent from A
  // is_spin_leaf by frame id, asked once per frame (0: not yet, 1 no, 2 yes):
  // a stack spins by its leaf alone (is_spin_stack).
  std::vector<char> spin_leaf;

  bool spins(const Frame& leaf) {
    if (leaf.id() >= spin_leaf.size()) spin_leaf.resize(Frame::pool_size(), 0);
    char& known = spin_leaf[leaf.id()];
    if (!known) known = is_spin_leaf(leaf.str()) ? 2 : 1;
    return known == 2;
  }

  DeltaNode node(const FlameNode& n, bool caller_in_a) {
    DeltaNode out{&n, n.value_b - n.value};
    out.id = next++;
    absent.push_back(n.value == 0 && n.value_b > 0 && caller_in_a);
    ++depth;
    double self = out.net;
    out.kids.reserve(n.children.size());
    for (const auto& c : n.children) {
      self -= c.value_b - c.value;
      out.kids.push_back(node(c, n.value > 0 || depth == 1));
      out.spin += out.kids.back().spin;
    }
    out.spins = spins(n.name);
    if (out.spins) out.spin += self;
    --depth;
    return out;
  }
};

// Kids get their caller once they sit in place; the candidates are listed
// in pre-order, as they were numbered.
void link(DeltaNode& n, const std::vector<char>& absent, std::vector<const DeltaNode*>& out) {
  if (absent[n.id]) out.push_back(&n);
  for (auto& k : n.kids) {
    k.up = &n;
    link(k, absent, out);
  }
}

void mark(const DeltaNode& n, std::vector<char>& is_new) {
  is_new[n.id] = 1;
  for (const auto& k : n.kids) mark(k, is_new);
}

}  // namespace

DeltaTree::DeltaTree(FlameNode diff, const std::string& op)
    : flame_(std::make_unique<FlameNode>(std::move(diff))) {
  const FlameNode* at = nullptr;
  for (const auto& c : flame_->children)
    if (c.name == op) at = &c;
  if (!at) return;
  // The op itself is never new: its own comparison says what it costs.
  Annotate a;
  root_ = std::make_unique<DeltaNode>(a.node(*at, false));
  link(*root_, a.absent, absent_);
  is_new_.assign(a.next, 0);
}

void DeltaTree::mark_new(const DeltaNode& n) { mark(n, is_new_); }

}  // namespace fscost

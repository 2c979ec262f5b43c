// Call graph and dominator tree from literal folded stacks: inclusive and
// self cost with recursion, dominators of a diamond, and where a delta
// flows (narrowest_flow) for new code, spread deltas, either sign, zero, a
// caller-given self delta; plus a 2 × 100k-stack build timed.
#include "diff/callgraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "flame/flamegraph.h"

namespace fscost {
namespace {

std::vector<FlameStack> stacks(std::string_view folded) {
  return flame_input(take(parse_folded(folded, "test", FoldedColumns::One))).stacks;
}

CallGraph graph(std::string_view a, std::string_view b, const std::string& root = "op") {
  return CallGraph::build(stacks(a), stacks(b), root);
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

const std::string& name(const CallGraph& cg, CallVertexId v) { return cg.vertex(v).name; }

// "name incl=A/B self=A/B idom=NAME" per vertex, then "from -> to A/B" per
// edge, each sorted.
std::string print(const CallGraph& cg) {
  std::vector<std::string> vs, es;
  for (CallVertexId v = 0; v < cg.size(); ++v) {
    const auto& x = cg.vertex(v);
    vs.push_back(x.name + " incl=" + num(x.incl_a) + "/" + num(x.incl_b) + " self=" +
                 num(x.self_a) + "/" + num(x.self_b) + " idom=" + name(cg, cg.idom()[v]));
  }
  for (auto [it, end] = boost::edges(cg.graph()); it != end; ++it) {
    const auto& e = cg.graph()[*it];
    es.push_back(name(cg, boost::source(*it, cg.graph())) + " -> " +
                 name(cg, boost::target(*it, cg.graph())) + " " + num(e.a) + "/" + num(e.b));
  }
  std::sort(vs.begin(), vs.end());
  std::sort(es.begin(), es.end());
  std::string out;
  for (const auto& l : vs) out += l + "\n";
  for (const auto& l : es) out += l + "\n";
  return out;
}

std::string path(const CallGraph& cg, const std::vector<CallVertexId>& p) {
  std::string out;
  for (CallVertexId v : p) out += (out.empty() ? "" : " > ") + name(cg, v);
  return out;
}

// "through=NAME delta=X total=Y path=a > b".
std::string print(const CallGraph& cg, const Flow& f) {
  return "through=" + name(cg, f.through) + " delta=" + num(f.through_delta) +
         " total=" + num(f.total) + " path=" + path(cg, f.path);
}

TEST(CallGraph, InclusiveOnceAndSelfAtTheLeafWithRecursion) {
  auto cg = graph(
      "op;f;g;f 3\n"
      "op;f;f 2\n"
      "op;f;g;f;g 1\n"
      "op 1\n",
      "op;g 4\n");
  EXPECT_EQ(print(cg),
            "f incl=6/0 self=5/0 idom=op\n"
            "g incl=4/4 self=1/4 idom=op\n"
            "op incl=7/4 self=1/0 idom=op\n"
            "f -> f 2/0\n"
            "f -> g 4/0\n"
            "g -> f 4/0\n"
            "op -> f 6/0\n"
            "op -> g 0/4\n");
  EXPECT_EQ(cg.root(), *cg.find("op"));
  EXPECT_FALSE(cg.find("h"));
}

TEST(CallGraph, StacksOfOtherRootsAreIgnoredAndTheRootAlwaysExists) {
  std::vector<FlameStack> a = {{{"op", "f"}, 1}, {{"other", "f", "g"}, 100}, {{}, 5}};
  auto cg = CallGraph::build(a, {{{"unlink", "f"}, 7}}, "op");
  EXPECT_EQ(print(cg),
            "f incl=1/0 self=1/0 idom=op\n"
            "op incl=1/0 self=0/0 idom=op\n"
            "op -> f 1/0\n");

  auto empty = CallGraph::build({}, {}, "op");
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(print(empty), "op incl=0/0 self=0/0 idom=op\n");
  EXPECT_EQ(print(empty, narrowest_flow(empty, 0.5)), "through=op delta=0 total=0 path=op");
}

TEST(CallGraph, DiamondIsDominatedByItsForkNotByEitherArm) {
  auto cg = graph("op;a;b;d;e 1\nop;a;c;d 1\n", "");
  auto id = [&](const char* n) { return *cg.find(n); };
  EXPECT_EQ(name(cg, cg.idom()[id("d")]), "a");
  EXPECT_EQ(name(cg, cg.idom()[id("e")]), "d");
  EXPECT_EQ(path(cg, cg.dominator_path(id("e"))), "op > a > d > e");
  EXPECT_EQ(path(cg, cg.dominator_path(cg.root())), "op");
  EXPECT_EQ(path(cg, cg.dominated()[id("a")]), "b > c > d");  // by name
  EXPECT_TRUE(cg.dominated()[id("b")].empty());
}

// Same-path cost in both, plus new_fn (B only) under xfs_create: 70 of the
// delta of 100; the other 30 is more lookup_fast.
const char* kCreateA =
    "create;path_openat;xfs_generic_create;xfs_create;xfs_trans_alloc 40\n"
    "create;path_openat;xfs_generic_create;xfs_create;xfs_dir_createname 30\n"
    "create;path_openat;lookup_fast 30\n";
const char* kCreateB =
    "create;path_openat;xfs_generic_create;xfs_create;xfs_trans_alloc 40\n"
    "create;path_openat;xfs_generic_create;xfs_create;xfs_dir_createname 30\n"
    "create;path_openat;xfs_generic_create;xfs_create;new_fn;xfs_rmap_a 40\n"
    "create;path_openat;xfs_generic_create;xfs_create;new_fn;xfs_rmap_b 30\n"
    "create;path_openat;lookup_fast 60\n";

TEST(NarrowestFlow, NewCodeIsFollowedDownToNewFn) {
  auto cg = graph(kCreateA, kCreateB, "create");
  EXPECT_EQ(print(cg, narrowest_flow(cg, 0.5)),
            "through=new_fn delta=70 total=100 path=create > path_openat > "
            "xfs_generic_create > xfs_create > new_fn");
  // A share new_fn's children carry goes one deeper; one nobody but the
  // root carries stays at path_openat.
  EXPECT_EQ(name(cg, narrowest_flow(cg, 0.4).through), "xfs_rmap_a");
  EXPECT_EQ(name(cg, narrowest_flow(cg, 0.8).through), "path_openat");
  EXPECT_EQ(name(cg, narrowest_flow(cg, 1.0).through), "path_openat");
}

TEST(NarrowestFlow, NewCodesCalleesSharedWithOtherPathsStopAtTheirDominator) {
  // Most of new_fn's cost is in callees xfs_trans_alloc also calls: new_fn
  // does not dominate them, so the flow stops at xfs_create, which does
  // (neither callee alone carries half).
  auto cg = graph(
      "op;xfs_create;xfs_trans_alloc;xfs_btree_insert 10\n"
      "op;xfs_create;xfs_trans_alloc;xfs_alloc_vextent 10\n",
      "op;xfs_create;xfs_trans_alloc;xfs_btree_insert 10\n"
      "op;xfs_create;xfs_trans_alloc;xfs_alloc_vextent 10\n"
      "op;xfs_create;new_fn 10\n"
      "op;xfs_create;new_fn;xfs_btree_insert 30\n"
      "op;xfs_create;new_fn;xfs_alloc_vextent 30\n");
  EXPECT_EQ(print(cg, narrowest_flow(cg, 0.5)),
            "through=xfs_create delta=70 total=70 path=op > xfs_create");
}

TEST(NarrowestFlow, DeltaSpreadOverTwoSiblingsStopsAtTheirCommonDominator) {
  auto cg = graph(
      "op;path_openat;xfs_create;xfs_trans_alloc 10\n"
      "op;path_openat;xfs_create;xfs_dir_createname 10\n"
      "op;lookup_fast 10\n",
      "op;path_openat;xfs_create;xfs_trans_alloc 50\n"
      "op;path_openat;xfs_create;xfs_dir_createname 50\n"
      "op;lookup_fast 30\n");
  EXPECT_EQ(print(cg, narrowest_flow(cg, 0.5)),
            "through=xfs_create delta=80 total=100 path=op > path_openat > xfs_create");
}

TEST(NarrowestFlow, NegativeTotalFollowsNegativeChildren) {
  auto cg = graph(kCreateB, kCreateA, "create");
  EXPECT_EQ(name(cg, narrowest_flow(cg, 0.5).through), "new_fn");
  EXPECT_EQ(narrowest_flow(cg, 0.5).through_delta, -70);

  // Total −20: b's +40 is larger but goes the other way; a and c tie at −30
  // and a comes first by name.
  auto mixed = graph("op;x;a 30\nop;x;c 30\n", "op;x;b 40\n");
  EXPECT_EQ(print(mixed, narrowest_flow(mixed, 0.5)),
            "through=a delta=-30 total=-20 path=op > x > a");
}

TEST(NarrowestFlow, ZeroTotalStaysAtTheRoot) {
  auto cg = graph("op;f;g 10\n", "op;f;h 10\n");
  EXPECT_EQ(print(cg, narrowest_flow(cg, 0.5)), "through=op delta=0 total=0 path=op");
}

TEST(NarrowestFlow, CallerGivenSelfDelta) {
  // The graph's own delta is all under c; the caller attributes only b's.
  auto cg = graph("op;a;b;d 1\nop;a;c;d 1\n", "op;a;b;d 1\nop;a;c;d 1\nop;a;c 9\n");
  EXPECT_EQ(name(cg, narrowest_flow(cg, 0.5).through), "c");
  std::vector<double> self(cg.size(), 0.0);
  self[*cg.find("b")] = 2;
  self[*cg.find("d")] = -0.5;
  EXPECT_EQ(print(cg, narrowest_flow(cg, self, 0.5)),
            "through=b delta=2 total=1.5 path=op > a > b");
  EXPECT_THROW(narrowest_flow(cg, std::vector<double>(2), 0.5), std::invalid_argument);
}

// Stacks as a walk down a synthetic kernel: each function calls one of four
// callees picked from 3000 functions, so paths merge as real ones do.
std::vector<FlameStack> random_stacks(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> depth(3, 40), pick(0, 3), value(1, 100);
  std::vector<FlameStack> out(n);
  for (auto& [frames, v] : out) {
    frames = {"op"};
    unsigned f = 0;
    for (int d = depth(rng); d > 0; --d) {
      f = (f * 31 + pick(rng) * 7919 + 1) % 3000;
      frames.push_back("fn_" + std::to_string(f));
    }
    v = value(rng);
  }
  return out;
}

// Structure at bench scale; speed itself is measured in bench/, not here.
TEST(CallGraph, HundredThousandStacksPerSide) {
  auto a = random_stacks(100'000, 1), b = random_stacks(100'000, 2);
  auto t0 = std::chrono::steady_clock::now();
  auto cg = CallGraph::build(a, b, "op");
  auto t1 = std::chrono::steady_clock::now();
  auto flow = narrowest_flow(cg, 0.5);
  auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("2 x 100k stacks: %zu vertices, %zu edges; build %.0f ms, idom + flow %.0f ms\n",
              cg.size(), boost::num_edges(cg.graph()), ms(t1 - t0), ms(t2 - t1));
  double total_a = 0;
  for (const auto& s : a) total_a += s.second;
  EXPECT_EQ(cg.vertex(cg.root()).incl_a, total_a);
  EXPECT_EQ(flow.path.front(), cg.root());
}

}  // namespace
}  // namespace fscost

// Frame: interning identity, text ordering, hashing, thread safety.
#include "model/frame.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_set>

namespace fscost {
namespace {

// Names no earlier test (or --gtest_repeat round) interned.
std::string fresh(std::string_view what) {
  static int round = 0;
  return fmt::format("frame_test_{}_{}", what, round++);
}

TEST(Frame, SameTextIsTheSameEntry) {
  Frame a("frame_test_same");
  std::string text = "frame_test_same";
  Frame b(text);
  Frame c{std::string_view(text)};
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(&a.str(), &c.str());
  EXPECT_EQ(a.id(), b.id());
  EXPECT_EQ(a, b);
  EXPECT_EQ(sizeof(Frame), sizeof(void*));
}

TEST(Frame, DifferentTextIsADifferentEntry) {
  Frame a("frame_test_diff_a"), b("frame_test_diff_b");
  EXPECT_NE(a, b);
  EXPECT_NE(a.id(), b.id());
  EXPECT_NE(&a.str(), &b.str());
  EXPECT_EQ(a.str(), "frame_test_diff_a");
}

TEST(Frame, IdsAreDenseInInterningOrder) {
  std::size_t before = Frame::pool_size();
  std::string xs = fresh("dense"), ys = fresh("dense");
  Frame x(xs);
  Frame y(ys);
  Frame x2(xs);
  EXPECT_EQ(Frame::pool_size(), before + 2);
  EXPECT_EQ(x.id(), before);
  EXPECT_EQ(y.id(), before + 1);
  EXPECT_EQ(x2.id(), x.id());
}

TEST(Frame, OrdersByTextNotById) {
  Frame b("frame_test_order_b");  // interned first: the smaller id
  Frame a("frame_test_order_a");
  ASSERT_LT(b.id(), a.id());
  EXPECT_LT(a, b);
  EXPECT_GT(b, a);
  EXPECT_LT(a, "frame_test_order_b");
  EXPECT_LT(a, std::string("frame_test_order_b"));
  std::vector<Frame> v = {b, a};
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, (std::vector<Frame>{a, b}));
  std::set<Frame> s = {b, a};
  EXPECT_EQ(*s.begin(), a);
}

TEST(Frame, ComparesWithText) {
  Frame f("frame_test_text");
  EXPECT_TRUE(f == "frame_test_text");
  EXPECT_TRUE(f == std::string("frame_test_text"));
  EXPECT_TRUE(f == std::string_view("frame_test_text"));
  EXPECT_TRUE("frame_test_text" == f);
  EXPECT_TRUE(std::string("frame_test_text") == f);
  EXPECT_FALSE(f == "frame_test_tex");
  EXPECT_TRUE(f != "other");
}

// Stacks of Frames sort exactly as the same stacks of strings did, so maps
// keyed by stacks iterate (and reports list) in the same order as before.
TEST(Frame, StackMapOrderEqualsStringOrder) {
  std::vector<std::vector<std::string>> texts = {
      {"zeta", "alpha"}, {"alpha"}, {"alpha", "beta"}, {},      {"alpha", ""},
      {"Beta"},          {"_a"},    {"alpha", "b"},    {"zeta"}};
  // Intern in reverse text order so ids disagree with text order.
  std::vector<std::string> all;
  for (const auto& t : texts) all.insert(all.end(), t.begin(), t.end());
  std::sort(all.rbegin(), all.rend());
  for (const auto& t : all) Frame{t};

  std::map<std::vector<std::string>, int> by_text;
  std::map<std::vector<Frame>, int> by_frame;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    by_text[texts[i]] = static_cast<int>(i);
    by_frame[to_frames(texts[i])] = static_cast<int>(i);
  }
  std::vector<std::pair<std::vector<std::string>, int>> a, b;
  for (const auto& [k, v] : by_text) a.emplace_back(k, v);
  for (const auto& [k, v] : by_frame) b.emplace_back(frame_strings(k), v);
  EXPECT_EQ(a, b);
}

TEST(Frame, HashAndEqualityAgree) {
  Frame a("frame_test_hash"), b(std::string("frame_test_hash")), c("frame_test_hash2");
  std::hash<Frame> h;
  EXPECT_EQ(h(a), h(b));
  EXPECT_EQ(h(a), a.id());
  EXPECT_NE(h(a), h(c));
  std::unordered_set<Frame> set = {a, b, c};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_TRUE(set.contains(Frame("frame_test_hash")));
}

TEST(Frame, EmptyFrameIsTheEmptyString) {
  Frame e;
  EXPECT_EQ(e.str(), "");
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e, Frame(""));
  EXPECT_EQ(e, Frame(std::string()));
  EXPECT_LT(e, Frame("a"));
  std::vector<Frame> v(3);
  EXPECT_EQ(v[2], e);
}

TEST(Frame, ConvertsToStringAndPrints) {
  Frame f("frame_test_print");
  std::string s = f;
  const std::string& r = f;
  EXPECT_EQ(s, "frame_test_print");
  EXPECT_EQ(&r, &f.str());
  EXPECT_EQ(fmt::format("[{}]", f), "[frame_test_print]");
  EXPECT_EQ(fmt::format("{:>18}", f), "  frame_test_print");
  std::ostringstream os;
  os << f;
  EXPECT_EQ(os.str(), "frame_test_print");
  Stack stack = {"a", "b"};
  EXPECT_EQ(frame_strings(stack), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(to_frames({"a", "b"}), stack);
}

// Several threads intern overlapping name sets at once: each name gets one
// entry and every thread sees the same id for it.
TEST(Frame, ConcurrentInterningIsConsistent) {
  constexpr int kThreads = 4, kNames = 2000;
  std::size_t before = Frame::pool_size();
  std::string prefix = fresh("concurrent");
  std::vector<std::vector<Frame>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &got, &prefix] {
      // Thread t interns names [t*500, t*500 + kNames): neighbours overlap;
      // odd threads walk backwards so they collide from the other end.
      for (int i = 0; i < kNames; ++i) {
        int n = t * 500 + (t % 2 ? kNames - 1 - i : i);
        got[t].emplace_back(fmt::format("{}_{}", prefix, n));
      }
    });
  for (auto& th : threads) th.join();

  int distinct = (kThreads - 1) * 500 + kNames;
  EXPECT_EQ(Frame::pool_size(), before + distinct);
  std::map<std::string, std::uint32_t> id_of;
  std::set<std::uint32_t> ids;
  for (const auto& frames : got)
    for (const Frame& f : frames) {
      auto [it, added] = id_of.try_emplace(f.str(), f.id());
      EXPECT_EQ(it->second, f.id()) << f;
      EXPECT_EQ(Frame(f.str()), f);
      if (added) ids.insert(f.id());
    }
  EXPECT_EQ(id_of.size(), static_cast<std::size_t>(distinct));
  EXPECT_EQ(ids.size(), id_of.size());  // no two names share an id
  EXPECT_GE(*ids.begin(), before);
  EXPECT_LT(*ids.rbegin(), before + distinct);  // dense
}

}  // namespace
}  // namespace fscost

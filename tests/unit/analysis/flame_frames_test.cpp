// Measuring instead of drawing: DiffGraph::size and draw_within's SizeFn
// must give exactly the bytes and the pruning that drawing gives, and the
// run-copying escaper must escape as the byte-by-byte one it replaced.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "flame/svg.h"
#include "flame/flamegraph.h"
#include "io/folded.h"
#include "report/html/graphs.h"
#include "model/result.h"

namespace fscost {
namespace {

// Names that escape, hold UTF-8 (valid, invalid, cut by a label), control
// characters, DEL, tabs, and long ones that labels truncate.
std::string awkward(int k) {
  static const char* kNames[] = {"xfs_&_<lock>",
                                 "naïve_ünïcödé_function_name_that_is_long",
                                 "bad\xC3(utf8",
                                 "tab\there",
                                 "del\177end",
                                 "quote\"'s",
                                 "€€€€€€€€€€€€€€€€€€€€€€€€€€€€",
                                 "ctl\x01x",
                                 "trail\xE2\x82"};
  return std::string(kNames[k % std::size(kNames)]) + std::to_string(k);
}

FlameInput input(unsigned seed, int stacks) {
  std::mt19937 rng(seed);
  FlameInput in;
  for (int s = 0; s < stacks; ++s) {
    Stack frames{"op" + std::to_string(rng() % 3)};
    int depth = 1 + static_cast<int>(rng() % 8);
    for (int d = 0; d < depth; ++d) frames.push_back(awkward(static_cast<int>(rng() % 40)));
    in.stacks.emplace_back(frames, static_cast<double>(1 + rng() % 1000));
  }
  return in;
}

TEST(FlameFrames, DiffGraphSizeIsTheDrawingsSize) {
  FlameInput a = input(1, 400), b = input(2, 400);
  for (auto w : {DiffWidth::A, DiffWidth::B, DiffWidth::Max})
    for (auto c : {DiffColor::Inclusive, DiffColor::Self}) {
      DiffOptions o;
      o.svg.unit = "ns/op";
      o.width = w;
      o.color = c;
      o.significant = [](std::span<const std::string_view> path) -> std::optional<bool> {
        if (path.empty()) return std::nullopt;
        return path.back().size() % 2 == 0;
      };
      DiffGraph g(a, b, o);
      for (double px : {0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 0.1, 2000.0})
        EXPECT_EQ(g.size(px), g.render(px).size()) << px;
    }
  DiffGraph empty({}, {}, {});
  EXPECT_EQ(empty.size(0.1), empty.render(0.1).size());
}

// The escaper before runs were copied whole (flame_svg.cpp at 91f2707, now model/escape.cpp),
// kept as the reference; UTF-8 validation is shared (valid_utf8).
std::string escaped_bytewise(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else if (c == '\'')
      out += "&apos;";
    else if (c >= 0x80) {
      std::size_t len = valid_utf8(s, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";
      } else {
        out.append(s.substr(i, len));
        i += len - 1;
      }
    } else if (c < 0x20 && c != '\t') {
      out += "\xEF\xBF\xBD";
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

TEST(FlameFrames, EscapingMatchesByteByByte) {
  std::mt19937 rng(7);
  const std::string alphabet =
      "ab&<>\"'\t\x01\x7F \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF";
  for (int k = 0; k < 2000; ++k) {
    std::string s;
    for (std::size_t n = rng() % 24; n > 0; --n) s += alphabet[rng() % alphabet.size()];
    std::string out;
    append_escaped(out, s);
    EXPECT_EQ(out, escaped_bytewise(s));
    EXPECT_EQ(escaped_size(s), out.size());
  }
}

// For a <pre>: newlines stay, everything else as append_escaped.
TEST(FlameFrames, EscapingLinesKeepsNewlines) {
  std::string out;
  append_escaped_lines(out, "a<b\n\x01\n\nc&");
  EXPECT_EQ(out, "a&lt;b\n\xEF\xBF\xBD\n\nc&amp;");
  out.clear();
  append_escaped_lines(out, "\n");
  EXPECT_EQ(out, "\n");
}

// With a SizeFn each graph is drawn once, at the width drawing every
// candidate would have settled on.
TEST(FlameFrames, DrawWithinMeasuredEqualsRedrawn) {
  std::vector<std::unique_ptr<DiffGraph>> graphs;
  for (unsigned k = 0; k < 4; ++k)
    graphs.push_back(std::make_unique<DiffGraph>(input(10 + k, 100 + 300 * k),
                                                 input(20 + k, 100 + 300 * k), DiffOptions{}));
  auto draw = [&](std::size_t i, double px) { return graphs[i]->render(px); };
  auto size = [&](std::size_t i, double px) { return graphs[i]->size(px); };
  bool pruned = false;
  for (std::size_t budget : {std::size_t{0}, std::size_t{200'000}, std::size_t{600'000}}) {
    std::vector<double> w1(4, 0.1), w2(4, 0.1);
    auto redrawn = html::draw_within(w1, draw, budget);
    auto measured = html::draw_within(w2, draw, budget, size);
    EXPECT_EQ(w1, w2) << budget;
    EXPECT_EQ(redrawn, measured) << budget;
    for (double w : w1) pruned |= w > 0.1;
  }
  EXPECT_TRUE(pruned) << "a budget should make some graph prune harder";
}

}  // namespace
}  // namespace fscost

// Folded stacks in and out: parse/write round trips, exact error messages,
// and the mapping of roots onto a Profile.
#include "io/folded.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "fixture.h"
#include "full_fixture.h"
#include "report/report.h"

namespace fscost {
namespace {

using Frames = std::vector<std::string>;

FoldedStacks parse_ok(std::string_view text, FoldedColumns columns = FoldedColumns::Detect) {
  auto r = parse_folded(text, "t.folded", columns);
  EXPECT_TRUE(r) << r.error().message;
  return r ? r.value() : FoldedStacks{};
}

std::string parse_error(std::string_view text) {
  auto r = parse_folded(text, "t.folded");
  if (r) return "parsed";
  EXPECT_FALSE(r.error().hint.empty()) << r.error().message;
  return r.error().message;
}

TEST(FormatFolded, OneColumnRoundTrip) {
  const std::string text =
      "create;entry_SYSCALL_64;xfs_create 300\n"
      "[user] 80\n"
      "java;Foo bar(int);baz 0.25\n"
      "a;;b; 7\n";
  FoldedStacks f = parse_ok(text);
  EXPECT_FALSE(f.two_column);
  ASSERT_EQ(f.stacks.size(), 4u);
  EXPECT_EQ(f.stacks[0].frames, (Frames{"create", "entry_SYSCALL_64", "xfs_create"}));
  EXPECT_EQ(f.stacks[0].value, 300);
  EXPECT_FALSE(f.stacks[0].value2);
  EXPECT_EQ(f.stacks[1].frames, (Frames{"[user]"}));
  EXPECT_EQ(f.stacks[2].frames, (Frames{"java", "Foo bar(int)", "baz"}));
  EXPECT_EQ(f.stacks[2].value, 0.25);
  EXPECT_EQ(f.stacks[3].frames, (Frames{"a", "", "b", ""}));
  EXPECT_EQ(write_folded(f), text);
}

TEST(FormatFolded, TwoColumnRoundTrip) {
  const std::string text = "a;b;c 10 12\na;d 0 5.5\nx 3 0\n";
  FoldedStacks f = parse_ok(text);
  EXPECT_TRUE(f.two_column);
  ASSERT_EQ(f.stacks.size(), 3u);
  EXPECT_EQ(f.stacks[0].frames, (Frames{"a", "b", "c"}));
  EXPECT_EQ(f.stacks[0].value, 10);
  EXPECT_EQ(f.stacks[0].value2, 12);
  EXPECT_EQ(f.stacks[1].value, 0);
  EXPECT_EQ(f.stacks[1].value2, 5.5);
  EXPECT_EQ(f.stacks[2].value2, 0);
  EXPECT_EQ(write_folded(f), text);
}

TEST(FormatFolded, CanonicalNumbersBlankLinesAndCrlf) {
  FoldedStacks f = parse_ok("\r\na;b 1e3\r\n\n  \nc 2.50  \n-0;x -0\n");
  ASSERT_EQ(f.stacks.size(), 3u);
  EXPECT_EQ(f.stacks[0].value, 1000);
  EXPECT_EQ(write_folded(f), "a;b 1000\nc 2.5\n-0;x 0\n");
}

TEST(FormatFolded, ForcedOneColumnKeepsNumbersInFrames) {
  FoldedStacks f = parse_ok("worker 3 12\n", FoldedColumns::One);
  EXPECT_FALSE(f.two_column);
  ASSERT_EQ(f.stacks.size(), 1u);
  EXPECT_EQ(f.stacks[0].frames, (Frames{"worker 3"}));
  EXPECT_EQ(f.stacks[0].value, 12);
  // Detected, the same line is a diff.
  EXPECT_TRUE(parse_ok("worker 3 12\n").two_column);
}

TEST(FormatFolded, EmptyInputIsNoStacks) {
  EXPECT_TRUE(parse_ok("").stacks.empty());
  EXPECT_TRUE(parse_ok("\n\n").stacks.empty());
}

TEST(FormatFolded, MalformedLinesNameTheLine) {
  EXPECT_EQ(parse_error("a;b;c\n"), "t.folded:1: no count after the stack");
  EXPECT_EQ(parse_error("a;b 1\n\nc;d abc\n"), "t.folded:3: \"abc\" is not a count");
  EXPECT_EQ(parse_error("a;b -5\n"), "t.folded:1: negative count -5");
  EXPECT_EQ(parse_error("a 1\n7\n"), "t.folded:2: no stack before the count");
  EXPECT_EQ(parse_error("a 1 2\nb 3\n"),
            "t.folded:2: one count, but the first line has two (a two-column diff needs both on "
            "every line)");
  EXPECT_EQ(parse_error("a 1 2\nb -1 3\n"), "t.folded:2: negative count -1");
  EXPECT_EQ(parse_error("a nan\n"), "t.folded:1: \"nan\" is not a count");
  EXPECT_EQ(parse_error("a inf\n"), "t.folded:1: \"inf\" is not a count");
  EXPECT_EQ(parse_error("a 1e999\n"), "t.folded:1: \"1e999\" is not a count");
  EXPECT_EQ(parse_error("a 12abc\n"), "t.folded:1: \"12abc\" is not a count");
  EXPECT_EQ(parse_error("a 0x10\n"), "t.folded:1: \"0x10\" is not a count");
  EXPECT_EQ(parse_error("a +3\n"), "t.folded:1: \"+3\" is not a count");
}

// Whatever the bytes, parsing returns a value or an error.
TEST(FormatFolded, ArbitraryBytesNeverCrash) {
  std::mt19937 rng(42);
  const std::string alphabet = "ab;; 0123456789.-e\n\r\t+x";
  std::size_t parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 40, ' ');
    for (char& c : s) c = rng() % 4 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    auto r = parse_folded(s, "fuzz");
    if (r) {
      ++parsed;
      // What parsed writes back and parses to the same stacks.
      auto again = parse_folded(write_folded(r.value()), "again",
                                r.value().two_column ? FoldedColumns::Two : FoldedColumns::One);
      ASSERT_TRUE(again) << again.error().message;
      EXPECT_EQ(again.value().stacks.size(), r.value().stacks.size());
    } else {
      ++rejected;
      EXPECT_TRUE(r.error().message.starts_with("fuzz:")) << r.error().message;
    }
  }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(rejected, 0u);
}

// parse_folded_interned reads the same lines, values and errors as
// parse_folded, with the frames interned (frames repeated from the line
// before included).
TEST(FormatFolded, InternedParseEqualsParse) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab;; 0123456789.-e\n\r\t+x";
  std::vector<std::string> inputs = {
      "a;b;c 1\na;b;d 2\na;b 3\na;bb;c 4\nx 5\n", "a;b 1 2\na;c 3 4\n", "a;b 1 2\nb 3\n",
      "a;;b 1\na;;c 2\n;a 3\n",
      render_folded(test::full_profile(), {}),
  };
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 40, ' ');
    for (char& c : s) c = rng() % 4 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    inputs.push_back(s);
  }
  for (const auto& text : inputs)
    for (auto columns : {FoldedColumns::Detect, FoldedColumns::One, FoldedColumns::Two}) {
      auto want = parse_folded(text, "t", columns);
      auto got = parse_folded_interned(text, "t", columns);
      ASSERT_EQ(bool(got), bool(want)) << text;
      if (!want) {
        EXPECT_EQ(got.error().message, want.error().message);
        continue;
      }
      EXPECT_EQ(got.value().two_column, want.value().two_column);
      ASSERT_EQ(got.value().stacks.size(), want.value().stacks.size());
      for (std::size_t k = 0; k < want.value().stacks.size(); ++k) {
        const auto& w = want.value().stacks[k];
        const auto& g = got.value().stacks[k];
        EXPECT_EQ(g.frames, w.frames) << text;
        EXPECT_EQ(g.value, w.value);
        EXPECT_EQ(g.value2, w.value2);
      }
    }
}

TEST(FormatFolded, OwnerFromRoot) {
  using Owner = std::optional<std::pair<SampleKind, std::string>>;
  EXPECT_EQ(owner_from_root("create"), (Owner{{SampleKind::Op, "create"}}));
  EXPECT_EQ(owner_from_root("other"), (Owner{{SampleKind::Op, "other"}}));
  EXPECT_EQ(owner_from_root("[user]"), (Owner{{SampleKind::User, ""}}));
  EXPECT_EQ(owner_from_root("[kernel]"), (Owner{{SampleKind::Kernel, ""}}));
  EXPECT_EQ(owner_from_root("[kthread:kworker/u8:1]"),
            (Owner{{SampleKind::Kthread, "kworker/u8:1"}}));
  EXPECT_EQ(owner_from_root("none"), Owner{});  // the BPF side's "no op", never a root
  EXPECT_EQ(owner_from_root("[kthread:]"), Owner{});
  EXPECT_EQ(owner_from_root("main"), Owner{});
}

TEST(FormatFolded, ProfileFromFoldedMapsRoots) {
  FoldedStacks f = parse_ok(
      "unlink;do_unlinkat;xfs_remove 4\n"
      "create;xfs_create 2.6\n"
      "java;main;read 3\n"
      "[kthread:xfsaild/loop0];kthread;xfsaild 5\n"
      "[user] 0.4\n"
      "[kernel];asm_exc_page_fault 1\n"
      "unlink;do_unlinkat;xfs_remove 1\n"
      "[user] 2\n");
  FoldedImportOptions opt;
  opt.origin = "other-tool.folded";
  Profile p = profile_from_folded(f, opt);
  auto row = [](const StackSample& s) { return std::tie(s.kind, s.name, s.frames, s.count); };
  using Row = std::tuple<SampleKind, std::string, Stack, std::uint64_t>;
  std::vector<Row> rows;
  for (const auto& s : p.samples) rows.push_back(row(s));
  EXPECT_EQ(rows, (std::vector<Row>{
                      {SampleKind::Op, "create", {"xfs_create"}, 3},
                      {SampleKind::Op, "other", {"java", "main", "read"}, 3},
                      {SampleKind::Op, "unlink", {"do_unlinkat", "xfs_remove"}, 5},
                      {SampleKind::User, "", {}, 2},
                      {SampleKind::Kernel, "", {"asm_exc_page_fault"}, 1},
                      {SampleKind::Kthread, "xfsaild/loop0", {"kthread", "xfsaild"}, 5},
                  }));
  EXPECT_EQ(p.samples_total, 19u);
  EXPECT_EQ(p.drops, (std::map<std::string, std::uint64_t>{{"folded_rounded_to_zero", 1}}));
  EXPECT_EQ(p.meta.target, "folded");
  EXPECT_EQ(p.meta.command, "other-tool.folded");
  EXPECT_TRUE(p.ops.empty());
}

TEST(FormatFolded, ProfileFromSecondColumn) {
  FoldedStacks f = parse_ok("create;a 10 0\ncreate;b 1 7\n");
  FoldedImportOptions opt;
  opt.column = 1;
  Profile p = profile_from_folded(f, opt);
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].frames, (Stack{"b"}));
  EXPECT_EQ(p.samples[0].count, 7u);
  EXPECT_EQ(p.drops.at("folded_rounded_to_zero"), 1u);
}

// fscost's own folded output comes back as the same stacks.
TEST(FormatFolded, RenderParseImportRenderIsIdentity) {
  Profile original = test::full_profile();
  std::string folded = render_folded(original, {});
  ASSERT_FALSE(folded.empty());
  FoldedStacks f = parse_ok(folded);
  EXPECT_FALSE(f.two_column);
  EXPECT_EQ(write_folded(f), folded);
  Profile back = profile_from_folded(f);
  EXPECT_EQ(render_folded(back, {}), folded);
}

}  // namespace
}  // namespace fscost

// Text for a terminal: no escape sequence from a frame or a thread name
// reaches it; ordinary text, UTF-8 included, is untouched.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "io/profile_io.h"
#include "model/escape.h"
#include "report/report.h"

namespace fscost {
namespace {

// The offset of the first control a terminal would obey in `s` (C0 but
// newline and tab, DEL, a C1 control as UTF-8 or as a byte outside any
// UTF-8 character), or npos.
std::size_t control_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return i;
    std::size_t len = c >= 0x80 ? valid_utf8(s, i) : 0;
    if ((len == 0 && c >= 0x80 && c <= 0x9f) ||
        (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f))
      return i;
    i += std::max<std::size_t>(len, 1);
  }
  return std::string_view::npos;
}

TEST(TerminalSafe, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_safe("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(terminal_safe("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_EQ(terminal_safe("c1 \xc2\x9b" "31m"), "c1 \\u009b31m");
  EXPECT_EQ(terminal_safe("line\n\ttab µs → ok"), "line\n\ttab µs → ok");
}

// C1 controls (0x9B is CSI, as ESC [ is): as UTF-8 (U+0080..U+009F) and as
// raw bytes outside any UTF-8 character, which a terminal reading 8-bit
// controls obeys. UTF-8 whose continuation bytes are 0x80..0x9F ("€" is
// E2 82 AC) and other bytes that are no UTF-8 (Latin-1 "é") stay.
TEST(TerminalSafe, C1ControlsBecomeVisibleEscapes) {
  for (int c = 0x80; c <= 0x9f; ++c) {
    std::string utf8 = {'a', '\xc2', static_cast<char>(c), 'b'};
    EXPECT_EQ(terminal_safe(utf8), fmt::format("a\\u{:04x}b", c));
    std::string raw = {'a', static_cast<char>(c), 'b'};
    EXPECT_EQ(terminal_safe(raw), fmt::format("a\\x{:02x}b", c));
  }
  EXPECT_EQ(terminal_safe("\x9b" "31m \xc2\x9b" "0m"), "\\x9b31m \\u009b0m");
  EXPECT_EQ(terminal_safe("euro \xe2\x82\xac, \xc3\x80, caf\xe9"), "euro \xe2\x82\xac, \xc3\x80, caf\xe9");
  // A cut character: its lead byte stays, the 0x9B after it does not.
  EXPECT_EQ(terminal_safe("\xe2\x9b"), "\xe2\\x9b");
  EXPECT_EQ(terminal_safe("\xc2"), "\xc2");
  EXPECT_EQ(terminal_safe("\xc2\xc2\x9b"), "\xc2\\u009b");
}

// Whatever the bytes, the result holds no ESC, no C1 control as UTF-8 and
// no byte 0x80..0x9F outside a UTF-8 character.
TEST(TerminalSafe, NoControlSurvivesRandomBytes) {
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 10, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 2 ? 0x80 + rng() % 0x60 : rng() % 0x100);
    EXPECT_EQ(control_at(terminal_safe(s)), std::string::npos) << s;
  }
}

TEST(TerminalSafe, AReportOfAHostileProfileCarriesNoEscape) {
  Profile p;
  p.meta.command = "evil\x1b]0;owned\x07";
  p.ops = {{"create", 1, 0, 10, 5}};
  p.ops[0].latency_log2.assign(kLatencyBuckets, 0);
  p.samples = {{SampleKind::Kthread, "kworker\x1b[31m", {"f\x1b[2J"}, 3},
               {SampleKind::Op, "create", {"xfs\x1b[0m_create"}, 2}};
  p.samples_total = 5;
  std::string text = terminal_safe(render_text(p, {}));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("evil\\x1b]0;owned\\x07"), std::string::npos) << text;
}

}  // namespace
}  // namespace fscost

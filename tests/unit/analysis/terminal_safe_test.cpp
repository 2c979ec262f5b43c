// Text for a terminal: no escape sequence from a frame or a thread name
// reaches it; ordinary text, UTF-8 included, is untouched.
#include <gtest/gtest.h>

#include "io/profile_io.h"
#include "model/escape.h"
#include "report/report.h"

namespace fscost {
namespace {

TEST(TerminalSafe, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_safe("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(terminal_safe("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_EQ(terminal_safe("c1 \xc2\x9b" "31m"), "c1 \\u009b31m");
  EXPECT_EQ(terminal_safe("line\n\ttab µs → ok"), "line\n\ttab µs → ok");
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

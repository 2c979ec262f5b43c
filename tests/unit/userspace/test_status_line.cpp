// The status line: redrawn in place on a terminal, plain lines elsewhere,
// nothing before its delay or when quiet.
#include "system/status_line.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>

namespace fscost {
namespace {

using std::chrono::milliseconds;

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[256];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
  return s;
}

TEST(StatusLine, TerminalRedrawsInPlaceAndClears) {
  std::FILE* f = std::tmpfile();
  {
    StatusLine s(f, false, true, milliseconds(0), milliseconds(0));
    s.stage("loading A");
    s.stage("loading B");
  }
  EXPECT_EQ(contents(f), "\r\033[Kloading A\r\033[Kloading B\r\033[K");
  std::fclose(f);
}

TEST(StatusLine, ElsewherePlainLinesAtMostEveryPeriod) {
  std::FILE* f = std::tmpfile();
  {
    StatusLine s(f, false, false, milliseconds(0), milliseconds(60'000));
    s.update("1s");
    s.update("2s");  // within the period: not printed
    s.stage("writing");  // a stage is
  }
  EXPECT_EQ(contents(f), "1s\nwriting\n");
  std::fclose(f);
}

TEST(StatusLine, NothingBeforeTheDelayOrWhenQuiet) {
  std::FILE* f = std::tmpfile();
  {
    StatusLine early(f, false, true, milliseconds(60'000), milliseconds(0));
    early.stage("too early");
    StatusLine quiet(f, true, true, milliseconds(0), milliseconds(0));
    quiet.stage("quiet");
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(StatusLine, TickerUpdatesUntilDestroyed) {
  std::FILE* f = std::tmpfile();
  {
    StatusLine s(f, false, false, milliseconds(0), milliseconds(0));
    StatusTicker t(s, [] { return std::string("tick"); }, milliseconds(50));
    std::this_thread::sleep_for(milliseconds(200));
  }
  std::string out = contents(f);
  EXPECT_NE(out.find("tick\ntick\n"), std::string::npos) << out;
  std::fclose(f);
}

}  // namespace
}  // namespace fscost

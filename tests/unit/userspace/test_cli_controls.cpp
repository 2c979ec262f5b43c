// Frame, thread and waker names carry whatever bytes their process chose
// (PR_SET_NAME is open to any user under -a): an ESC or a C1 control (CSI,
// U+009B) in one must reach root's terminal as visible text, never as a
// command. Runs the real fscost on a hostile profile and folded file, and
// reads every byte each command prints: convert to stdout, report in every
// view and format, diff as text and JSON, flamegraph and html to stdout.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "io/profile_io.h"
#include "model/escape.h"
#include "model/profile.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

// ESC sequences, C1 controls as UTF-8 (CSI, OSC, NEL) and a name that is
// only text. A profile file stores UTF-8 (a raw 0x9B becomes U+FFFD);
// folded files carry raw bytes too.
const std::string kEsc = "evil\x1b[2J\x1b]0:owned\x07";
const std::string kC1 = "csi\xc2\x9b" "31m\xc2\x9d" "0:t\xc2\x85";
const std::string kRawC1 = "raw\x9b" "31m\x9d";

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

struct Outcome {
  int status = -1;
  std::string out;  // stdout and stderr
};

Outcome run(const std::string& args) {
  Outcome r;
  FILE* f = popen((std::string(FSCOST_BIN) + " " + args + " 2>&1 </dev/null").c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), f)) r.out.append(buf.data(), n);
  int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

Profile hostile() {
  Profile p;
  p.meta.command = kEsc;
  p.meta.hostname = kC1;
  p.meta.freq_hz = 997;
  p.meta.duration_ns = 1'000'000'000;
  p.ops = {{"create", 10, 0, 100'000, 60'000}};
  p.ops[0].latency_log2.assign(kLatencyBuckets, 0);
  p.ops[0].offcpu_ns = 40'000;
  p.samples = {{SampleKind::Op, "create", {"xfs_create", kEsc, kC1}, 5},
               {SampleKind::Kthread, kC1, {"worker_thread", kEsc}, 3},
               {SampleKind::User, "", {kC1}, 2}};
  p.samples_total = 10;
  OffCpuStack off;
  off.name = "create";
  off.wait_class = "io";
  off.frames = {"xfs_create", kC1, "io_schedule"};
  off.waker_frames = {kEsc, "try_to_wake_up"};
  off.waker = kC1;
  off.count = 4;
  off.total_ns = 40'000;
  p.offcpu = {off};
  LockStat lock;
  lock.name = "create";
  lock.address = 1;
  lock.symbol = kC1;
  lock.frames = {"xfs_create", kEsc, "down_write"};
  lock.count = 2;
  lock.total_ns = 5'000;
  lock.max_ns = 3'000;
  lock.sleep_ns = 5'000;
  p.locks = {lock};
  return p;
}

class CliControls : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fscost-controls.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(write_profile_atomic(hostile(), profile()));
    std::ofstream(folded()) << "create;" << kEsc << ";" << kC1 << " 5\n"
                            << kRawC1 << ";" << kC1 << " 3\n";
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string profile() const { return dir_ + "/hostile.profile"; }
  std::string folded() const { return dir_ + "/hostile.folded"; }

  // Runs `args`: it must succeed, and print no control a terminal obeys.
  std::string clean(const std::string& args) {
    Outcome r = run(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
    std::size_t at = control_at(r.out);
    EXPECT_EQ(at, std::string::npos)
        << "fscost " << args << " printed a control at byte " << at << ": \""
        << terminal_safe(r.out.substr(at == std::string::npos ? 0 : at, 40)) << "\"";
    return r.out;
  }

  std::string dir_;
};

TEST_F(CliControls, ConvertToStdoutEscapesAFileKeepsTheBytes) {
  std::string out = clean("convert " + profile() + " --to folded");
  EXPECT_NE(out.find("evil\\x1b[2J\\x1b]0:owned\\x07"), std::string::npos) << out;
  EXPECT_NE(out.find("csi\\u009b31m\\u009d0:t\\u0085"), std::string::npos) << out;
  for (const char* view : {"offcpu", "locks"})
    clean("convert " + profile() + " --to folded --view " + view);
  out = clean("convert " + profile() + " --to speedscope");
  EXPECT_NE(out.find("csi\\u009b31m"), std::string::npos) << out;
  EXPECT_NE(out.find("evil\\u001b[2J"), std::string::npos) << out;
  // A file is data for other tools: the frames as they are.
  ASSERT_EQ(run("convert " + profile() + " --to folded -o " + dir_ + "/out.folded").status, 0);
  std::ifstream in(dir_ + "/out.folded", std::ios::binary);
  std::string file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(file.find(kEsc), std::string::npos);
  EXPECT_NE(file.find(kC1), std::string::npos);
}

TEST_F(CliControls, ReportInEveryViewAndFormat) {
  for (const char* view : {"oncpu", "offcpu", "locks"})
    for (const char* format : {"text", "json", "folded"}) {
      std::string out = clean(fmt::format("report {} --view {} --format {}", profile(), view, format));
      EXPECT_TRUE(out.find("\\x1b") != std::string::npos || out.find("\\u001b") != std::string::npos ||
                  out.find("\\u009b") != std::string::npos)
          << view << " " << format << ": the hostile names are not in it:\n" << out;
    }
}

TEST_F(CliControls, DiffTextAndJson) {
  std::string text = clean("diff -q " + profile() + " " + profile());
  EXPECT_NE(text.find("\\u009b"), std::string::npos) << text;  // the hostname, at least
  clean("diff -q --format json " + profile() + " " + profile());
  clean("diff -q " + profile() + " " + profile() + " -o " + dir_ + "/diff");
}

TEST_F(CliControls, FlamegraphAndHtmlToStdout) {
  for (const char* view : {"oncpu", "offcpu", "locks"})
    clean(fmt::format("flamegraph {} --view {} -o -", profile(), view));
  std::string svg = clean("flamegraph " + folded() + " -o -");
  EXPECT_NE(svg.find("raw\xEF\xBF\xBD" "31m\xEF\xBF\xBD"), std::string::npos);
  clean("flamegraph -q --diff " + profile() + " " + profile() + " -o -");
  clean("flamegraph -q --diff " + folded() + " " + folded() + " -o -");
  clean("html -q " + profile() + " -o -");
}

}  // namespace
}  // namespace fscost

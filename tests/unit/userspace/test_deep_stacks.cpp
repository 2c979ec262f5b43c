// A 100,000-frame stack (a profile, or folded stacks imported) used to end
// flamegraph, flamegraph --diff, html and diff with SIGSEGV: every tree walk
// recursed once per frame. Readers now cut stacks to kMaxStackDepth and
// count it; these commands must finish.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "io/profile_io.h"
#include "model/profile.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

int run(const std::string& args) {
  int st = std::system((std::string(FSCOST_BIN) + " " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Profile deep(std::size_t depth) {
  Profile p;
  p.meta.freq_hz = 997;
  p.ops = {{"create", 10, 0, 1000, 800}};
  p.ops[0].latency_log2.assign(kLatencyBuckets, 0);
  Stack frames;
  for (std::size_t i = 0; i < depth; ++i) frames.emplace_back("f" + std::to_string(i % 1000));
  p.samples = {{SampleKind::Op, "create", frames, 5}, {SampleKind::Op, "create", {"xfs_create"}, 3}};
  p.samples_total = 8;
  return p;
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/fscost-deep.XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(DeepStacks, ReadersCutThemAndCountIt) {
  TempDir d;
  std::string file = d.path + "/deep.profile";
  ASSERT_TRUE(write_profile_atomic(deep(100'000), file));
  Profile p = take(read_profile(file));
  EXPECT_EQ(p.samples[0].frames.size(), kMaxStackDepth);
  EXPECT_EQ(p.samples[0].frames.back(), "[truncated]");
  EXPECT_EQ(p.drops["stack_depth_truncated"], 1u);
  EXPECT_EQ(p.samples[1].frames.size(), 1u);
}

TEST(DeepStacks, EveryCommandThatDrawsOrDiffsFinishes) {
  TempDir d;
  std::string a = d.path + "/a.profile", b = d.path + "/b.profile";
  ASSERT_TRUE(write_profile_atomic(deep(100'000), a));
  ASSERT_TRUE(write_profile_atomic(deep(60'000), b));
  EXPECT_EQ(run("flamegraph " + a + " -o " + d.path + "/f.svg"), 0);
  EXPECT_EQ(run("flamegraph --diff " + a + " " + b + " -o " + d.path + "/d.svg"), 0);
  EXPECT_EQ(run("html " + a + " -o " + d.path + "/r.html"), 0);
  EXPECT_EQ(run("diff " + a + " " + b + " -o " + d.path + "/diff"), 0);
  EXPECT_EQ(run("report " + a), 0);
  // Folded stacks of that depth, imported and drawn.
  {
    std::ofstream f(d.path + "/deep.folded");
    f << "create";
    for (int i = 0; i < 100'000; ++i) f << ";g" << i % 100;
    f << " 7\n";
  }
  EXPECT_EQ(run("import folded " + d.path + "/deep.folded -o " + d.path + "/folded.profile"), 0);
  EXPECT_EQ(run("flamegraph " + d.path + "/folded.profile -o " + d.path + "/g.svg"), 0);
  EXPECT_TRUE(fs::exists(d.path + "/g.svg"));
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_deep_folded(const std::string& path, int depth, const std::string& counts) {
  std::ofstream f(path);
  f << "create";
  for (int i = 1; i < depth; ++i) f << ";g" << i % 100;
  f << " " << counts << "\ncreate;xfs_create " << counts << "\n";
}

// flamegraph reads folded text itself, not through a profile: its reader
// cuts too (a 100,000-frame line ended it with SIGSEGV, rc 139).
TEST(DeepStacks, FlamegraphOfFoldedStacksCutsThemAndSaysSo) {
  TempDir d;
  std::string a = d.path + "/a.folded", b = d.path + "/b.folded", two = d.path + "/two.folded";
  write_deep_folded(a, 100'000, "7");
  write_deep_folded(b, 60'000, "5");
  write_deep_folded(two, 100'000, "7 5");
  EXPECT_EQ(run("flamegraph " + a + " -o " + d.path + "/a.svg"), 0);
  std::string svg = slurp(d.path + "/a.svg");
  EXPECT_NE(svg.find("[truncated]"), std::string::npos);
  EXPECT_NE(svg.find("frames beyond 1024 of 1 stack (stack_depth_truncated)"), std::string::npos);
  EXPECT_EQ(run("flamegraph --diff " + a + " " + b + " -o " + d.path + "/d.svg"), 0);
  EXPECT_NE(slurp(d.path + "/d.svg").find("[truncated]"), std::string::npos);
  EXPECT_EQ(run("flamegraph " + two + " -o " + d.path + "/two.svg"), 0);
  EXPECT_NE(slurp(d.path + "/two.svg").find("[truncated]"), std::string::npos);
}

}  // namespace
}  // namespace fscost

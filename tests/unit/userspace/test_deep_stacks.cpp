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

}  // namespace
}  // namespace fscost

// One Recorder, many recordings (issue 19: fscost compare loads its BPF
// programs once). What one recording tracked and left running must not
// count in the next: the maps are emptied and per-thread state left in task
// storage goes stale (run_gen).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "collector/hooks.h"
#include "collector/kernel_features.h"
#include "collector/recording.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

std::uint64_t count_of(const Profile& p, const std::string& op) {
  for (const OpStats& o : p.ops)
    if (o.name == op) return o.count;
  return 0;
}

Profile record(Recorder& rec, const std::vector<std::string>& argv) {
  Target t = take(Target::command(argv));
  Metadata meta = rec.metadata(t);
  take(rec.start(t, {}));
  Rusage r = t.wait(std::nullopt);
  take(rec.stop({}, false));
  return take(rec.profile(std::move(meta), r, nullptr));
}

// Kills the loop the first recording leaves behind, however the test ends.
struct Reaper {
  std::string pidfile;
  ~Reaper() {
    std::ifstream in(pidfile);
    pid_t pid = 0;
    if (in >> pid && pid > 0) ::kill(pid, SIGKILL);
    fs::remove(pidfile);
  }
};

TEST(RecorderTest, ASecondRecordingCountsNothingOfTheFirst) {
  FSCOST_REQUIRE_ROOT();
  const Features& f = Features::for_record();
  ASSERT_TRUE(check_can_record(f)) << check_can_record(f).error().message;
  CollectorConfig cfg;
  cfg.groups = take(parse_probe_groups("default"));
  auto opened = Recorder::open(cfg, f);
  ASSERT_TRUE(opened) << opened.error().message;
  Recorder& rec = opened.value();

  // The first target forks a process that stats in a loop and outlives it
  // (1.5 s: python starts slowly on a loaded machine).
  Reaper loop{(fs::temp_directory_path() / ("fscost-recorder-" + std::to_string(::getpid()))).string()};
  Profile first = record(rec, {"/bin/sh", "-c",
                               "python3 -c 'import os\nwhile True: os.stat(\"/\")' "
                               "</dev/null >/dev/null 2>&1 & echo $! >" + loop.pidfile + "; sleep 1.5"});
  EXPECT_GT(count_of(first, "stat"), 1000u) << "the loop ran inside the first recording";

  Profile second = record(rec, {"/bin/sleep", "0.5"});
  EXPECT_LT(count_of(second, "stat"), 100u) << "the loop was tracked only by the first recording";
  EXPECT_EQ(count_of(second, "create"), 0u);
  for (const auto& [name, n] : second.drops) EXPECT_EQ(n, 0u) << name;

  // And a third sees only itself too: the same counts as the second.
  Profile third = record(rec, {"/bin/sleep", "0.5"});
  EXPECT_EQ(count_of(third, "stat"), count_of(second, "stat"));
  EXPECT_EQ(count_of(third, "open"), count_of(second, "open"));
}

}  // namespace
}  // namespace fscost

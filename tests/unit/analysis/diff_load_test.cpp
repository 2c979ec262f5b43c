// load_runs: one profile, a directory of them, and the ways that fails.
#include <gtest/gtest.h>

#include <fstream>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "fixture.h"
#include "io/profile_io.h"

namespace fscost::test {
namespace {

void write_run(const TempDir& dir, const std::string& name, std::uint32_t seed) {
  ASSERT_TRUE(write_profile_atomic(make_run(base_spec(), 0, seed), dir.file(name)));
}

TEST(DiffLoad, DirectoryOfProfilesSortedByName) {
  TempDir dir;
  write_run(dir, "run2.profile", 2);
  write_run(dir, "run10.profile", 10);
  write_run(dir, "run1.profile", 1);
  std::ofstream(dir.file("notes.txt")) << "not a profile\n";
  std::filesystem::create_directory(dir.path() / "sub.profile");  // not a file: skipped
  auto set = load_runs(dir.path().string());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set.value().label, dir.path().string());
  ASSERT_EQ(set.value().runs.size(), 3u);
  EXPECT_EQ(set.value().sources, (std::vector<std::string>{
                                     dir.file("run1.profile"), dir.file("run10.profile"),
                                     dir.file("run2.profile")}));
  expect_same_profile(set.value().runs[0], make_run(base_spec(), 0, 1));
  expect_same_profile(set.value().runs[2], make_run(base_spec(), 0, 2));
}

TEST(DiffLoad, OneFileWithLabel) {
  TempDir dir;
  write_run(dir, "a.profile", 3);
  auto set = load_runs(dir.file("a.profile"), "rmapbt=0");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set.value().label, "rmapbt=0");
  ASSERT_EQ(set.value().runs.size(), 1u);
  EXPECT_EQ(set.value().sources[0], dir.file("a.profile"));
}

TEST(DiffLoad, BadFileInDirectoryNamesTheFile) {
  TempDir dir;
  write_run(dir, "run1.profile", 1);
  std::ofstream(dir.file("run2.profile")) << "{ not json";
  auto set = load_runs(dir.path().string());
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message.find(dir.file("run2.profile")), std::string::npos)
      << set.error().message;
}

TEST(DiffLoad, EmptyDirectoryIsAnError) {
  TempDir dir;
  std::ofstream(dir.file("run1.txt")) << "x";
  auto set = load_runs(dir.path().string());
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message, dir.path().string() + ": no *.profile files in the directory");
  EXPECT_FALSE(set.error().hint.empty());
}

TEST(DiffLoad, MissingPathIsAnError) {
  TempDir dir;
  auto set = load_runs(dir.file("nope"));
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message, dir.file("nope") + ": no such file or directory");
}

}  // namespace
}  // namespace fscost::test

// Reading profile files and writing them atomically.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "fixture.h"
#include "io/profile_io.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using test::sample_profile;
using test::TempDir;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ProfileFile, MissingFileSaysWhy) {
  TempDir dir;
  std::string path = dir.file("nope.json");
  auto r = read_profile(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot open profile '" + path + "': No such file or directory");
  EXPECT_FALSE(r.error().hint.empty());
}

TEST(ProfileFile, DirectoryIsNotAProfile) {
  TempDir dir;
  auto r = read_profile(dir.path().string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot read profile '" + dir.path().string() + "': Is a directory");
}

TEST(ProfileFile, CorruptFileIsNamedInTheError) {
  TempDir dir;
  std::string path = dir.file("bad.json");
  ASSERT_TRUE(write_file_atomic("{\"format\": \"fscost-pro", path));
  auto r = read_profile(path);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, path + ": truncated or corrupt JSON at byte 22 (end of file)");
}

TEST(ProfileFile, AtomicWriteThenReadBack) {
  TempDir dir;
  std::string path = dir.file("out.json");
  auto w = write_profile_atomic(sample_profile(), path);
  ASSERT_TRUE(w) << w.error().message;
  auto r = read_profile(path);
  ASSERT_TRUE(r) << r.error().message;
  test::expect_same_profile(sample_profile(), r.value());
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.json"});  // no temp file left
}

TEST(ProfileFile, AtomicWriteReplacesOldContents) {
  TempDir dir;
  std::string path = dir.file("out.json");
  ASSERT_TRUE(write_file_atomic(std::string(100000, 'x'), path));
  Profile small;
  small.samples_total = 7;
  ASSERT_TRUE(write_profile_atomic(small, path));
  auto r = read_profile(path);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().samples_total, 7u);
}

TEST(ProfileFile, AtomicWriteRespectsUmask) {
  TempDir dir;
  std::string path = dir.file("out.json");
  mode_t old = ::umask(022);
  auto w = write_profile_atomic(sample_profile(), path);
  ::umask(old);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(fs::status(path).permissions(), fs::perms(0644));
}

TEST(ProfileFile, FailedWriteLeavesNoTempFile) {
  TempDir dir;
  // rename() cannot replace a directory: the write fails after the temp
  // file was fully written, which must then be removed.
  std::string target = dir.file("target");
  fs::create_directory(target);
  auto w = write_profile_atomic(sample_profile(), target);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message.rfind("cannot rename temporary file over '" + target + "': ", 0), 0u)
      << w.error().message;
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"target"});
}

TEST(ProfileFile, MissingDirectory) {
  TempDir dir;
  auto w = write_profile_atomic(sample_profile(), dir.file("no/such/dir/out.json"));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message.rfind("cannot create temporary file '", 0), 0u) << w.error().message;
  EXPECT_NE(w.error().message.find(": No such file or directory"), std::string::npos);
  EXPECT_FALSE(w.error().hint.empty());
}

}  // namespace
}  // namespace fscost

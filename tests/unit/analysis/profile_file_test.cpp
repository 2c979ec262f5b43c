// Reading profile files and writing them atomically.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fixture.h"
#include "io/profile_io.h"
#include "model/file_io.h"

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

TEST(ProfileFile, ADirectoryIsRefusedAndNoTempFileLeft) {
  TempDir dir;
  // rename() would fail over a directory after the temp file was written;
  // the target is refused before that, and nothing is left beside it.
  std::string target = dir.file("target");
  fs::create_directory(target);
  auto w = write_profile_atomic(sample_profile(), target);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message,
            "'" + target + "' exists and is a directory; fscost replaces only regular files");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"target"});
}

// As root `-o /dev/null` must not replace /dev/null: no node but a regular
// file is replaced, and a symlink (to /proc/self/fd/1, say) is not followed.
TEST(ProfileFile, NodesFifosAndSymlinksAreNeverReplaced) {
  TempDir dir;
  std::string fifo = dir.file("fifo"), link = dir.file("link");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/proc/self/fd/1", link);
  for (const auto& [path, kind] : {std::pair{std::string("/dev/null"), "a character device"},
                                   {fifo, "a FIFO"}, {link, "a symbolic link"}}) {
    auto w = write_file_atomic("x", path);
    ASSERT_FALSE(w) << path;
    EXPECT_EQ(w.error().message,
              "'" + path + "' exists and is " + kind + "; fscost replaces only regular files");
    auto c = check_output_path(path);
    ASSERT_FALSE(c) << path;
    EXPECT_EQ(c.error().message, w.error().message);
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(ProfileFile, OutputPathIsCheckedBeforeAnyWork) {
  TempDir dir;
  EXPECT_TRUE(check_output_path(dir.file("new.profile")));
  auto missing = check_output_path(dir.file("no/such/out.profile"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot write '" + dir.file("no/such/out.profile") +
                                         "': its directory '" + dir.file("no/such") +
                                         "' does not exist");
}

TEST(ProfileFile, InputsPastTheLimitAreRefusedBeforeTheyAreRead) {
  TempDir dir;
  std::string big = dir.file("big.json");
  { std::ofstream(big) << std::string(4096, ' '); }
  ::setenv("FSCOST_MAX_INPUT", "1K", 1);
  auto r = read_whole_file(big, "profile");
  // A device is not read at all: opening one may run its driver.
  auto zero = read_whole_file("/dev/zero", "profile");
  ::unsetenv("FSCOST_MAX_INPUT");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "profile '" + big + "' is larger than the input limit of 1 KiB");
  EXPECT_NE(r.error().hint.find("FSCOST_MAX_INPUT"), std::string::npos);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message,
            "cannot read profile '/dev/zero': it is a character device; fscost reads only "
            "regular files");
  EXPECT_EQ(max_input_bytes(), std::size_t{1} << 30);
}

TEST(ProfileFile, MissingDirectory) {
  TempDir dir;
  auto w = write_profile_atomic(sample_profile(), dir.file("no/such/dir/out.json"));
  ASSERT_FALSE(w);
  // The first missing component is named: the writer walks the path one
  // held directory at a time and stops where it ends.
  EXPECT_EQ(w.error().message,
            "cannot use directory '" + dir.file("no") + "': No such file or directory");
  EXPECT_FALSE(w.error().hint.empty());
}

}  // namespace
}  // namespace fscost

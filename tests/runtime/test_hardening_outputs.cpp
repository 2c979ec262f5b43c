// Issue 41: fscost's writers of outputs run as root beside an unprivileged
// user (setpriv to nobody) who plants a symlink where root writes: at
// `diff -o DIR` itself, at a component above it, at a single output file's
// name (flamegraph, convert, html, import -o) or above it. Each write is
// refused or lands where it should, and the directory the link points to
// keeps every file's checksum.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

// The unprivileged user's shell command; its failure fails the test.
void as_nobody(const std::string& script) {
  auto r = run_capture({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
                        script});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r.value().ok()) << script << ": " << r.value().err;
}

ProcessOutput fscost(const Args& args) {
  Args argv{FSCOST_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_capture(argv);
  EXPECT_TRUE(r) << r.error().message;
  return r ? r.value() : ProcessOutput{};
}

// Every entry under `dir` by name, with each regular file's sha256: what
// a write through a link into it would change.
std::string tree_sum(const std::string& dir) {
  std::string sums;
  std::vector<std::string> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir)) entries.push_back(e.path().string());
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    sums += p + "\n";
    if (!fs::is_regular_file(fs::symlink_status(p))) continue;
    auto r = run_capture({"sha256sum", p});
    sums += r && r.value().ok() ? r.value().out : "unreadable\n";
  }
  return sums;
}

void expect_refused(const ProcessOutput& r, const std::string& why, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << what << ": " << r.err;
}

constexpr const char* kLinkRefused = "symbolic link owned by uid 65534";

class HardeningOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    const std::string pid = std::to_string(::getpid());
    // The user's own directory, as theirs under /tmp would be.
    user_ = "/tmp/fscost-outputs-" + pid;
    // Root's: the inputs, and the victim directory the links point to,
    // holding files of the names fscost writes.
    root_ = "/root/fscost-outputs-" + pid;
    victim_ = root_ + "/victim";
    for (const auto& d : {user_, root_}) fs::remove_all(d);
    ASSERT_EQ(::mkdir(user_.c_str(), 0755), 0);
    ASSERT_EQ(::chown(user_.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::mkdir(root_.c_str(), 0700), 0);
    fs::create_directories(victim_ + "/out");
    for (const char* name : {"summary.txt", "report.html", "x.svg", "x.folded", "x.html",
                             "x.profile", "out/summary.txt"})
      std::ofstream(victim_ + "/" + name) << "root's own " << name << "\n";
    before_ = tree_sum(victim_);
    std::ofstream(root_ + "/a.folded") << "vfs_write;xfs_file_write_iter;xfs_ilock 30\n";
    std::ofstream(root_ + "/b.folded") << "vfs_write;xfs_file_write_iter;xfs_ilock 50\n";
    for (const char* side : {"a", "b"})
      ASSERT_EQ(fscost({"import", "folded", "-q", root_ + "/" + side + ".folded", "-o",
                        root_ + "/" + side + ".profile"})
                    .exit_code,
                0);
  }
  void TearDown() override {
    std::error_code ec;
    for (const auto& d : {user_, root_})
      if (!d.empty()) fs::remove_all(d, ec);
  }
  Args diff_to(const std::string& out) const {
    return {"diff", "-q", root_ + "/a.profile", root_ + "/b.profile", "-o", out};
  }
  std::string user_, root_, victim_, before_;
};

// The tester's trap: -o DIR is the user's symlink to a directory holding a
// summary.txt. diff refuses it; nothing in the directory changes.
TEST_F(HardeningOutputs, DiffIntoAUsersSymlinkIsRefused) {
  as_nobody("ln -s " + victim_ + " " + user_ + "/out");
  expect_refused(fscost(diff_to(user_ + "/out")), "is a symbolic link", "diff -o link");
  EXPECT_EQ(tree_sum(victim_), before_);
}

// A symlink above DIR: root would make or fill DIR wherever it points.
TEST_F(HardeningOutputs, DiffBelowAUsersSymlinkedParentIsRefused) {
  as_nobody("ln -s " + victim_ + " " + user_ + "/up");
  expect_refused(fscost(diff_to(user_ + "/up/out")), kLinkRefused, "diff -o link/out");
  expect_refused(fscost(diff_to(user_ + "/up/new/out")), kLinkRefused, "diff -o link/new/out");
  EXPECT_EQ(tree_sum(victim_), before_);
  EXPECT_FALSE(fs::exists(victim_ + "/new"));
  // compare's -o takes the same walk (OwnedDir::claim): refused before any
  // mkfs.
  expect_refused(fscost({"compare", "--a", "", "--b", "mkfs: -m rmapbt=1", "--size", "512M",
                         "--runs", "1", "-q", "-o", user_ + "/up/new"}),
                 kLinkRefused, "compare -o link/new");
  EXPECT_EQ(tree_sum(victim_), before_);
}

// A DIR the user made: not root's, so not taken (another user could swap
// root's files in it after). Root's own private DIR, made or existing, is.
TEST_F(HardeningOutputs, DiffTakesOnlyItsOwnDirectory) {
  as_nobody("mkdir " + user_ + "/theirs");
  expect_refused(fscost(diff_to(user_ + "/theirs")), "owned by uid 65534", "diff -o user's dir");
  EXPECT_TRUE(fs::is_empty(user_ + "/theirs"));
  std::string open = root_ + "/open";
  ASSERT_EQ(::mkdir(open.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  expect_refused(fscost(diff_to(open)), "writable by others", "diff -o a 0777 dir");
  // Made by fscost, with its parents; then again into the same directory.
  for (int i = 0; i < 2; ++i) {
    auto r = fscost(diff_to(user_ + "/mine/nested"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* name : {"summary.txt", "tables.txt", "summary.json", "report.html"})
    EXPECT_TRUE(fs::is_regular_file(user_ + "/mine/nested/" + name)) << name;
  EXPECT_EQ(fs::status(user_ + "/mine").permissions() & fs::perms::others_write, fs::perms::none);
}

// Single output files: a user's symlink at the final name is refused (the
// rename would replace the link, but fscost says so rather than guess); a
// symlink in the parent path is refused; a new file in the user's sticky,
// world-writable directory (as /tmp) is written there, never through a
// link.
TEST_F(HardeningOutputs, SingleFilesThroughAUsersSymlinkAreRefused) {
  const std::string a = root_ + "/a.profile", folded = root_ + "/a.folded";
  auto writers = [&](const std::string& dir) -> std::vector<std::pair<std::string, Args>> {
    return {{"flamegraph", {"flamegraph", "-q", a, "-o", dir + "/x.svg"}},
            {"flamegraph --diff", {"flamegraph", "-q", "--diff", a, a, "-o", dir + "/x.svg"}},
            {"convert", {"convert", a, "--to", "folded", "-o", dir + "/x.folded"}},
            {"html", {"html", "-q", a, "-o", dir + "/x.html"}},
            {"import", {"import", "folded", "-q", folded, "-o", dir + "/x.profile"}}};
  };
  // At the final name: each its own link to the victim's file of that name.
  as_nobody("cd " + user_ + " && for f in x.svg x.folded x.html x.profile; do ln -s " + victim_ +
            "/$f $f; done");
  for (const auto& [what, args] : writers(user_))
    expect_refused(fscost(args), "exists and is a symbolic link", what + " -o link");
  EXPECT_EQ(tree_sum(victim_), before_);
  // In the parent.
  as_nobody("ln -s " + victim_ + " " + user_ + "/up");
  for (const auto& [what, args] : writers(user_ + "/up"))
    expect_refused(fscost(args), kLinkRefused, what + " -o link/x");
  EXPECT_EQ(tree_sum(victim_), before_);
  // A sticky world-writable directory of the user's: new files are made
  // there, O_EXCL and renamed, and are root's.
  std::string sticky = user_ + "/sticky";
  as_nobody("mkdir " + sticky + " && chmod 1777 " + sticky);
  for (const auto& [what, args] : writers(sticky)) {
    auto r = fscost(args);
    EXPECT_EQ(r.exit_code, 0) << what << ": " << r.err;
  }
  for (const char* name : {"x.svg", "x.folded", "x.html", "x.profile"}) {
    struct stat st {};
    ASSERT_EQ(::lstat((sticky + "/" + name).c_str(), &st), 0) << name;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << name;
    EXPECT_EQ(st.st_uid, 0u) << name;
  }
  // Root's own symlink in the path is followed: only others' are not.
  std::string roots_link = root_ + "/to-sticky";
  fs::create_symlink(sticky, roots_link);
  auto r = fscost({"flamegraph", "-q", a, "-o", roots_link + "/y.svg"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(sticky + "/y.svg"));
  EXPECT_EQ(tree_sum(victim_), before_);
}

}  // namespace
}  // namespace fscost

// Issue 28: fscost compare run as root beside an unprivileged user who
// prepares the trap (setpriv to nobody): a pre-made or swapped output
// directory, device names hidden in spec words and mount options. Each is
// refused or harmless, and the target keeps its checksum.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/file_io.h"
#include "system/owned_dir.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The unprivileged user's shell command; its failure fails the test.
void as_nobody(const std::string& script) {
  auto r = run_capture({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
                        script});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r.value().ok()) << script << ": " << r.value().err;
}

ProcessOutput fscost(const std::vector<std::string>& args) {
  std::vector<std::string> argv{FSCOST_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_capture(argv);
  EXPECT_TRUE(r) << r.error().message;
  return r ? r.value() : ProcessOutput{};
}

class HardeningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    // A directory the user owns, in /tmp as a user's would be; the victim
    // is a root file outside it.
    base_ = "/tmp/fscost-hardening-" + std::to_string(::getpid());
    fs::remove_all(base_);
    ASSERT_EQ(::mkdir(base_.c_str(), 0755), 0);
    ASSERT_EQ(::chown(base_.c_str(), 65534, 65534), 0);
    victim_ = "/root/fscost-victim-" + std::to_string(::getpid());
    std::ofstream(victim_) << "root's own file\n";
    before_ = slurp(victim_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!base_.empty()) fs::remove_all(base_, ec);
    if (!victim_.empty()) fs::remove(victim_, ec);
  }
  std::string base_, victim_, before_;
};

const std::vector<std::string> kQuick{"compare", "--a", "", "--b", "mkfs: -m rmapbt=1",
                                      "--size", "512M", "--runs", "1", "-q"};

std::vector<std::string> with(std::vector<std::string> v, const std::vector<std::string>& more) {
  v.insert(v.end(), more.begin(), more.end());
  return v;
}

// The trap: the user pre-makes -o DIR with runs/a/run-00.out a
// symlink to root's file. The directory is refused (not root's), and the
// file is untouched.
TEST_F(HardeningTest, OutputDirectoryAUserMadeIsRefused) {
  std::string out = base_ + "/out";
  as_nobody("mkdir -p " + out + "/runs/a && ln -s " + victim_ + " " + out + "/runs/a/run-00.out");
  // Not empty, and not root's: refused on either count.
  auto r = fscost(with(kQuick, {"-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("owned by uid 65534"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(victim_), before_);
  // Empty, still the user's: refused.
  as_nobody("rm -r " + out + "/runs");
  r = fscost(with(kQuick, {"-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("owned by uid 65534"), std::string::npos) << r.err;
  // A symlink as -o itself, to a directory of root's: refused, not followed.
  std::string roots = base_ + "-rootdir";
  ASSERT_EQ(::mkdir(roots.c_str(), 0700), 0);
  as_nobody("rmdir " + out + " && ln -s " + roots + " " + out);
  r = fscost(with(kQuick, {"-o", out}));
  fs::remove_all(roots);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("exists and is not a directory"), std::string::npos) << r.err;
}

TEST_F(HardeningTest, OutputDirectoryWritableByOthersIsRefused) {
  std::string out = base_ + "-open";
  ASSERT_EQ(::mkdir(out.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(out.c_str(), 01777), 0);
  auto r = fscost(with(kQuick, {"-o", out}));
  fs::remove_all(out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("writable by others"), std::string::npos) << r.err;
}

// fscost makes -o inside the user's directory, where the user can rename
// it away and put a trap under its name. Writes go through the directory
// fscost holds: into the renamed one, never through the trap.
TEST_F(HardeningTest, OutputDirectoryRenamedAwayStillGetsTheFiles) {
  std::string out = base_ + "/out";
  auto dir = OwnedDir::claim(out, "output directory");
  ASSERT_TRUE(dir) << dir.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  as_nobody("mv " + out + " " + base_ + "/moved && mkdir " + out + " && ln -s " + victim_ + " " +
            out + "/summary.txt");
  ASSERT_TRUE(write_file_atomic("the summary\n", dir.value().path() + "/summary.txt"));
  fs::create_directories(dir.value().path() + "/runs/a");
  int fd = ::open((dir.value().path() + "/runs/a/run-00.out").c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(slurp(victim_), before_);
  EXPECT_EQ(slurp(base_ + "/moved/summary.txt"), "the summary\n");
  EXPECT_TRUE(fs::exists(base_ + "/moved/runs/a/run-00.out"));
  EXPECT_EQ(dir.value().shown(dir.value().path() + "/summary.txt"), out + "/summary.txt");
  // In a message, every one; a longer descriptor number is another's.
  const std::string io = dir.value().path();
  EXPECT_EQ(dir.value().shown("cannot read " + io + "/a: x; " + io + "/b; " + io + "7/c"),
            "cannot read " + out + "/a: x; " + out + "/b; " + io + "7/c");
}

// A loop device fscost did not make, holding a filesystem: no spec word and
// no mount option can have it formatted or mounted.
TEST_F(HardeningTest, DevicesInSpecWordsAndMountOptionsAreRefused) {
  std::string image = "/dev/shm/fscost-hardening-" + std::to_string(::getpid()) + ".img";
  {
    std::ofstream f(image, std::ios::binary);
  }
  ASSERT_EQ(::truncate(image.c_str(), 320ll << 20), 0);  // mkfs.xfs wants > 300 MB
  auto lo = run_capture({"losetup", "-f", "--show", image});
  ASSERT_TRUE(lo && lo.value().ok()) << (lo ? lo.value().err : lo.error().message);
  std::string dev = lo.value().out.substr(0, lo.value().out.find('\n'));
  struct Detach {
    std::string dev, image;
    ~Detach() {
      (void)run_capture({"losetup", "-d", dev});
      ::unlink(image.c_str());
    }
  } detach{dev, image};
  // A filesystem on it: data that a format would destroy.
  auto mkfs = run_capture({"mkfs.xfs", "-q", dev});
  ASSERT_TRUE(mkfs && mkfs.value().ok()) << (mkfs ? mkfs.value().err : mkfs.error().message);
  ::sync();
  auto sum = [&] {
    auto r = run_capture({"sha256sum", image});
    return r && r.value().ok() ? r.value().out.substr(0, 64) : std::string("unreadable");
  };
  const std::string before = sum();
  for (const std::string& spec : std::vector<std::string>{
           "mkfs: -l logdev=" + dev + ",size=64m", "mkfs: -r rtdev=" + dev, "mkfs: /" + dev,
        "mkfs: /proc/self/root" + dev, "mkfs: -f", "fs: ext4; mkfs: -J device=" + dev,
        "fs: ext4; mkfs: -F", "mount: logdev=" + dev, "fs: ext4; mount: journal_path=" + dev,
        "fs: btrfs; mount: device=" + dev}) {
    std::string out = base_ + "-out";
    auto r = fscost({"compare", "--a", spec, "--b", "", "--size", "512M", "--runs", "1", "-q",
                     "-o", out});
    EXPECT_EQ(r.exit_code, 1) << spec << ": " << r.err;
    EXPECT_TRUE(r.err.find("names a device") != std::string::npos ||
                r.err.find("overwrite") != std::string::npos)
        << spec << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << spec;
  }
  EXPECT_EQ(sum(), before) << "the loop device's data changed";
  // A symlink the user made to it, as --device: resolved once to the
  // device's own node, which still holds data and is refused.
  as_nobody("ln -s " + dev + " " + base_ + "/disk");
  auto r = fscost({"compare", "--a", "", "--b", "mkfs: -m rmapbt=1", "--device", base_ + "/disk",
                   "--runs", "1", "-q", "-o", base_ + "-out"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(dev + " holds an xfs filesystem"), std::string::npos) << r.err;
  EXPECT_EQ(sum(), before) << "the loop device's data changed";
}

}  // namespace
}  // namespace fscost

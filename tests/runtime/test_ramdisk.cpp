// RAM-disk scratch storage: the RAII owners create and remove image, loop
// device and mount; the safety check refuses devices in use; fscost-workload runs on it.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "system/leftovers.h"
#include "system/ramdisk.h"
#include "system/run_state.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

std::vector<std::string> leftover_lines() {
  std::vector<std::string> lines;
  for (const Leftover& l : find_leftovers()) lines.push_back(l.line);
  return lines;
}

constexpr uint64_t kSize = 512ull << 20;  // mkfs.xfs 6.1 wants > 300 MB

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The mountinfo line of `dir`, or "".
std::string mountinfo_line(const std::string& dir) {
  std::istringstream in(read_file("/proc/self/mountinfo"));
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + dir + " ") != std::string::npos) return line;
  }
  return "";
}

std::string backing_file(const std::string& loop_dev) {
  std::string name = loop_dev.substr(loop_dev.rfind('/') + 1);
  return read_file("/sys/block/" + name + "/loop/backing_file");
}

// The kernel finishes an autoclear detach on the last close; allow it a moment.
bool loop_released(const std::string& loop_dev, const std::string& image) {
  for (int i = 0; i < 100; i++) {
    if (backing_file(loop_dev).find(image) == std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Ramdisk, ScratchXfsCreatesAndRemovesEverything) {
  FSCOST_REQUIRE_ROOT();
  std::string image, device, dir;
  {
    auto scratch = ScratchXfs::create(kSize);
    ASSERT_TRUE(scratch) << scratch.error().message;
    const ScratchXfs& s = scratch.value();
    image = s.image(), device = s.device(), dir = s.dir();
    EXPECT_EQ(image.rfind("/dev/shm/fscost-", 0), 0u) << image;
    // Short (fs_mark 3.3's -D overflows at 37 characters), beside the
    // state directories in root's 0700 /run/fscost.
    EXPECT_EQ(dir.rfind("/run/fscost/m-", 0), 0u) << dir;
    EXPECT_LE(dir.size(), 20u) << dir;
    EXPECT_NE(backing_file(device).find(image), std::string::npos);
    std::string loop_name = device.substr(device.rfind('/') + 1);
    EXPECT_EQ(read_file("/sys/block/" + loop_name + "/loop/autoclear"), "1\n");
    EXPECT_NE(mountinfo_line(dir).find(" - xfs " + device), std::string::npos)
        << mountinfo_line(dir);
    // Issue 28: no set-id program or device node acts on it, and only root
    // can reach it: its parent is the 0700 state directory.
    EXPECT_NE(mountinfo_line(dir).find(" rw,nosuid,nodev"), std::string::npos)
        << mountinfo_line(dir);
    struct stat parent {};
    ASSERT_EQ(::stat(std::filesystem::path(dir).parent_path().c_str(), &parent), 0);
    EXPECT_EQ(parent.st_mode & 07777, 0700u);
    EXPECT_EQ(parent.st_uid, 0u);
    std::ofstream(dir + "/hello") << "hello";
    EXPECT_EQ(read_file(dir + "/hello"), "hello");
    for (const std::string& l : leftover_lines()) {
      EXPECT_EQ(l.find(image), std::string::npos) << "live resources are no leftovers: " << l;
      EXPECT_EQ(l.find(dir), std::string::npos) << "live resources are no leftovers: " << l;
    }
  }
  EXPECT_FALSE(exists(image));
  EXPECT_FALSE(exists(dir));
  EXPECT_EQ(mountinfo_line(dir), "");
  EXPECT_TRUE(loop_released(device, image)) << backing_file(device);
}

// Names of this process's images and state directories that still exist.
std::vector<std::string> own_leftovers() {
  std::vector<std::string> found;
  std::string tag = "fscost-" + std::to_string(::getpid()) + "-";
  std::string state_tag = std::to_string(::getpid()) + "-";
  for (const auto& [dir, prefix] : {std::pair{"/dev/shm", tag}, std::pair{"/run/fscost", state_tag}}) {
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir), ::closedir);
    while (dirent* e = d ? ::readdir(d.get()) : nullptr) {
      if (std::string(e->d_name).rfind(prefix, 0) == 0)
        found.push_back(std::string(dir) + "/" + e->d_name);
    }
  }
  return found;
}

TEST(Ramdisk, FailedCreateLeavesNothing) {
  FSCOST_REQUIRE_ROOT();
  auto small = ScratchXfs::create(64ull << 20);
  ASSERT_FALSE(small);
  EXPECT_NE(small.error().message.find("larger than 300MB"), std::string::npos)
      << small.error().message;
  auto bad_mount = ScratchXfs::create(kSize, {}, "fscost_bogus_option");
  ASSERT_FALSE(bad_mount);
  EXPECT_NE(bad_mount.error().message.find("cannot mount"), std::string::npos)
      << bad_mount.error().message;
  EXPECT_NE(bad_mount.error().hint.find("dmesg"), std::string::npos);
  EXPECT_EQ(own_leftovers(), std::vector<std::string>{});
}

TEST(Ramdisk, MkfsAndMountOptionsApply) {
  FSCOST_REQUIRE_ROOT();
  auto scratch =
      ScratchXfs::create(kSize, {"-m", "rmapbt=1", "-L", "fscosttest"}, "noatime,logbsize=256k");
  ASSERT_TRUE(scratch) << scratch.error().message;
  EXPECT_EQ(scratch.value().mkfs_command(),
            "mkfs.xfs -f -m rmapbt=1 -L fscosttest " + scratch.value().device());
  std::string line = mountinfo_line(scratch.value().dir());
  EXPECT_NE(line.find("noatime"), std::string::npos) << line;
  EXPECT_NE(line.find("logbsize=256k"), std::string::npos) << line;
}

TEST(Ramdisk, CheckDeviceUnusedRefusesFilesystemAndMount) {
  FSCOST_REQUIRE_ROOT();
  auto image = ShmImage::create(kSize);
  ASSERT_TRUE(image) << image.error().message;
  auto loop = LoopDevice::attach(image.value().path());
  ASSERT_TRUE(loop) << loop.error().message;
  const std::string dev = loop.value().path();

  auto empty = check_device_unused(dev, false);
  ASSERT_TRUE(empty) << empty.error().message;
  auto mkfs = run_mkfs_xfs(dev, {});
  ASSERT_TRUE(mkfs) << mkfs.error().message;

  auto with_fs = check_device_unused(dev, false);
  ASSERT_FALSE(with_fs);
  EXPECT_NE(with_fs.error().message.find(dev + " holds an xfs filesystem (UUID "),
            std::string::npos)
      << with_fs.error().message;
  EXPECT_NE(with_fs.error().hint.find("--force"), std::string::npos);
  EXPECT_TRUE(check_device_unused(dev, true));

  auto mount = Mount::create(dev, "xfs", "");
  ASSERT_TRUE(mount) << mount.error().message;
  auto mounted = check_device_unused(dev, false);
  ASSERT_FALSE(mounted);
  EXPECT_NE(mounted.error().message.find("is mounted on " + mount.value().dir()), std::string::npos)
      << mounted.error().message;
  // --force overwrites a signature, never a mounted device, and the hint says so.
  EXPECT_EQ(mounted.error().hint.find("pass --force"), std::string::npos) << mounted.error().hint;
  EXPECT_NE(mounted.error().hint.find("unmount it"), std::string::npos) << mounted.error().hint;
  auto forced = check_device_unused(dev, true);
  ASSERT_FALSE(forced);
  EXPECT_NE(forced.error().message.find("is mounted on " + mount.value().dir()), std::string::npos);
  // And mkfs.xfs itself will not format a mounted device either.
  auto mkfs_mounted = run_mkfs_xfs(dev, {});
  ASSERT_FALSE(mkfs_mounted);
  EXPECT_NE(mkfs_mounted.error().message.find("contains a mounted filesystem"), std::string::npos)
      << mkfs_mounted.error().message;
}

TEST(Ramdisk, CheckDeviceUnusedRejectsNonBlockDevices) {
  auto r = check_device_unused("/dev/null", true);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a block device"), std::string::npos);
  auto missing = check_device_unused("/dev/fscost-no-such-device", false);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("No such file or directory"), std::string::npos);
}

TEST(Ramdisk, MkfsErrorCarriesMkfsMessage) {
  FSCOST_REQUIRE_ROOT();
  auto image = ShmImage::create(kSize);
  ASSERT_TRUE(image) << image.error().message;
  auto loop = LoopDevice::attach(image.value().path());
  ASSERT_TRUE(loop) << loop.error().message;
  auto mkfs = run_mkfs_xfs(loop.value().path(), {"-m", "bogus=1"});
  ASSERT_FALSE(mkfs);
  EXPECT_NE(mkfs.error().message.find("unknown option -m bogus=1"), std::string::npos)
      << mkfs.error().message;
  EXPECT_EQ(mkfs.error().message.find("Usage:"), std::string::npos) << "usage text is trimmed";
}

TEST(Ramdisk, AbsurdImageSizeIsAClearError) {
  // /dev/shm is writable without root.
  auto image = ShmImage::create(1ull << 60);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("does not fit in /dev/shm"), std::string::npos)
      << image.error().message;
  EXPECT_NE(image.error().hint.find("remount"), std::string::npos);
}

TEST(Ramdisk, KilledOwnerLeavesNoLoopDevice) {
  FSCOST_REQUIRE_ROOT();
  auto image = ShmImage::create(64ull << 20);
  ASSERT_TRUE(image) << image.error().message;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto loop = LoopDevice::attach(image.value().path());
    std::string path = loop ? loop.value().path() : "";
    (void)!::write(fds[1], path.c_str(), path.size() + 1);
    ::pause();  // SIGKILLed: no destructor runs
    ::_exit(0);
  }
  ::close(fds[1]);
  char buf[64] = {};
  (void)!::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  std::string dev = buf;
  ASSERT_FALSE(dev.empty()) << "child could not attach a loop device";
  EXPECT_TRUE(loop_released(dev, image.value().path()))
      << "LO_FLAGS_AUTOCLEAR did not detach " << dev;
}

// Issue 28: a name is no leftover. Files and directories any user can make
// under the names fscost once used (/tmp/fscost-mnt-<dead pid>-*, pid -1,
// /dev/shm/fscost-<dead pid>-*.img) are not listed, and `fscost cleanup`
// leaves them as they were.
TEST(Ramdisk, NamesAloneAreNoLeftovers) {
  FSCOST_REQUIRE_ROOT();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);  // a pid that is now gone
  std::string p = std::to_string(pid);
  std::vector<std::string> traps = {"/dev/shm/fscost-" + p + "-deadbeef.img",
                                    "/tmp/fscost-mnt-" + p + "-trap", "/tmp/fscost-mnt--1-trap"};
  struct Remove {
    std::vector<std::string> paths;
    ~Remove() {
      for (const auto& t : paths) std::filesystem::remove_all(t);
    }
  } remove{traps};
  // Made by an unprivileged user, as an attacker would.
  auto made = run_capture({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh",
                           "-c", "echo x > " + traps[0] + " && mkdir " + traps[1] + " " + traps[2]});
  ASSERT_TRUE(made && made.value().ok()) << (made ? made.value().err : made.error().message);
  for (const std::string& l : leftover_lines())
    for (const auto& t : traps) EXPECT_EQ(l.find(t), std::string::npos) << l;
  auto run = run_capture({FSCOST_BIN, "cleanup"});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run.value().ok()) << run.value().out << run.value().err;
  for (const auto& t : traps) EXPECT_TRUE(exists(t)) << t << " was removed";
  EXPECT_EQ(read_file(traps[0]), "x\n");
}

// A state file is trusted only where only root can write it: a state
// directory someone else owns is skipped, whatever it names.
TEST(Ramdisk, ForeignStateDirectoryIsIgnored) {
  FSCOST_REQUIRE_ROOT();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  std::string dir = "/run/fscost/" + std::to_string(pid) + "-trap00";
  std::string victim = "/dev/shm/fscost-victim-" + std::to_string(::getpid());
  struct Remove {
    std::string a, b;
    ~Remove() { std::filesystem::remove_all(a), std::filesystem::remove(b); }
  } remove{dir, victim};
  { std::ofstream(victim) << "keep"; }
  struct stat st {};
  ASSERT_EQ(::stat(victim.c_str(), &st), 0);
  ASSERT_EQ(::mkdir("/run/fscost", 0700) == 0 || errno == EEXIST, true);
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  RunStateData s;
  s.pid = pid;
  s.images.push_back({victim, st.st_dev, st.st_ino});
  { std::ofstream(dir + "/state") << state_json(s); }
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);  // as if a user had made it
  for (const std::string& l : leftover_lines()) EXPECT_EQ(l.find(victim), std::string::npos) << l;
  // Root's own directory with a state file a user may write: also skipped.
  ASSERT_EQ(::chown(dir.c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod((dir + "/state").c_str(), 0666), 0);
  for (const std::string& l : leftover_lines()) EXPECT_EQ(l.find(victim), std::string::npos) << l;
  // Root's, private: named, and removed by `fscost cleanup` only because
  // its inode is still the one recorded.
  ASSERT_EQ(::chmod((dir + "/state").c_str(), 0600), 0);
  auto found = leftover_lines();
  EXPECT_NE(std::find(found.begin(), found.end(), "image " + victim + " (rm " + victim + ")"),
            found.end());
  std::filesystem::remove(victim);
  { std::ofstream(victim) << "new file, same name"; }
  auto run = run_capture({FSCOST_BIN, "cleanup"});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(exists(victim)) << "a new file under the recorded name is not the image";
  EXPECT_FALSE(exists(dir)) << run.value().out << run.value().err;
}

// The state directories of process `pid`: /run/fscost/<pid>-XXXXXX.
std::vector<std::string> state_dirs_of(pid_t pid) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/run/fscost", ec))
    if (e.path().filename().string().rfind(std::to_string(pid) + "-", 0) == 0)
      dirs.push_back(e.path().string());
  return dirs;
}

// Removes what a killed ScratchXfs owner left, even when assertions fail.
struct LeftoverCleanup {
  pid_t pid = 0;
  std::string dir, image;
  ~LeftoverCleanup() {
    if (!dir.empty()) ::umount2(dir.c_str(), 0), ::rmdir(dir.c_str());
    if (!image.empty()) ::unlink(image.c_str());
    for (const std::string& state : state_dirs_of(pid)) std::filesystem::remove_all(state);
  }
};

TEST(Ramdisk, KilledScratchOwnerIsReportedAsLeftover) {
  FSCOST_REQUIRE_ROOT();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto s = ScratchXfs::create(kSize);
    std::string msg = s ? s.value().dir() + " " + s.value().image() + " " + s.value().device() : "";
    (void)!::write(fds[1], msg.c_str(), msg.size() + 1);
    ::pause();  // SIGKILLed: the mount outlives us, and the loop and image with it
    ::_exit(0);
  }
  ::close(fds[1]);
  char buf[256] = {};
  (void)!::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  LeftoverCleanup cleanup{pid};
  std::string device;
  std::istringstream(buf) >> cleanup.dir >> cleanup.image >> device;
  ASSERT_FALSE(device.empty()) << "child could not create a ScratchXfs";

  std::vector<std::string> found = leftover_lines();
  auto has = [&](const std::string& line) {
    return std::find(found.begin(), found.end(), line) != found.end();
  };
  EXPECT_TRUE(has("mount " + cleanup.dir + " (umount " + cleanup.dir + ")"));
  EXPECT_TRUE(has("loop device " + device + " (losetup -d " + device + ")"));
  EXPECT_TRUE(has("image " + cleanup.image + " (rm " + cleanup.image + ")"));

  // `fscost cleanup` removes all of it.
  auto run = run_capture({FSCOST_BIN, "cleanup"});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run.value().ok()) << run.value().out << run.value().err;
  EXPECT_NE(run.value().out.find("removed mount " + cleanup.dir), std::string::npos) << run.value().out;
  EXPECT_EQ(mountinfo_line(cleanup.dir), "");
  EXPECT_FALSE(exists(cleanup.dir));
  EXPECT_FALSE(exists(cleanup.image));
  EXPECT_EQ(state_dirs_of(pid), std::vector<std::string>{}) << "the state directory";
  EXPECT_TRUE(loop_released(device, cleanup.image)) << backing_file(device);
  for (const std::string& l : leftover_lines())
    EXPECT_EQ(l.find(cleanup.image), std::string::npos) << "still there: " << l;
}

nlohmann::json run_workload(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {WORKLOAD_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = run_capture(argv);
  if (!run) ADD_FAILURE() << run.error().message;
  if (!run || !run.value().ok()) {
    ADD_FAILURE() << "fscost-workload " << (run ? run.value().status_text() + ": " + run.value().err : "");
    return {};
  }
  return nlohmann::json::parse(run.value().out);
}

TEST(Ramdisk, WorkloadMixedCountsEveryOp) {
  FSCOST_REQUIRE_ROOT();
  auto scratch = ScratchXfs::create(kSize);
  ASSERT_TRUE(scratch) << scratch.error().message;
  nlohmann::json j =
      run_workload({scratch.value().dir(), "--files", "50", "--threads", "2", "--write", "8192"});
  ASSERT_TRUE(j.is_object());
  const auto& c = j["counts"];
  EXPECT_EQ(j["mode"], "mixed");
  EXPECT_EQ(c["create"], 100);
  EXPECT_EQ(c["fsync"], 100);
  EXPECT_EQ(c["link"], 100);
  EXPECT_EQ(c["rename"], 100);
  EXPECT_EQ(c["unlink"], 300);
  EXPECT_EQ(c["mkdir"], 100 + 2);  // + t0, t1
  EXPECT_EQ(c["rmdir"], 100);
  EXPECT_EQ(c["symlink"], 100);
  EXPECT_GE(c["write"], 100);
  EXPECT_EQ(c["close"], 100 + 3);  // + DIR, t0, t1
  EXPECT_GT(j["elapsed_s"].get<double>(), 0);
  EXPECT_GT(j["ops_per_s"].get<double>(), 0);
  EXPECT_TRUE(exists(scratch.value().dir() + "/t1"));
  EXPECT_FALSE(exists(scratch.value().dir() + "/t1/r0")) << "every iteration cleans up";
}

TEST(Ramdisk, WorkloadCreateFillsSharedDirectory) {
  FSCOST_REQUIRE_ROOT();
  auto scratch = ScratchXfs::create(kSize);
  ASSERT_TRUE(scratch) << scratch.error().message;
  nlohmann::json j =
      run_workload({scratch.value().dir(), "--workload", "create", "--files", "200", "--threads", "2"});
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["counts"]["create"], 400);
  EXPECT_EQ(j["counts"]["fsync"], 0);
  EXPECT_TRUE(exists(scratch.value().dir() + "/shared/t1-199"));
}

}  // namespace
}  // namespace fscost

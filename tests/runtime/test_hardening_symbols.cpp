// Traps an unprivileged user sets for root's user-stack symbolizer (issue
// 41; docs/HARDENING.md, "Symbolizer"): the user runs a copy of a program,
// deletes it, and puts a FIFO or a symlink to a device node where
// /proc/PID/maps names the deleted file ("spin (deleted)"). `fscost record
// -a --user-stacks` must finish on time, write its profile, and never open
// the trap: it reads the mapped file through /proc/PID/map_files (named
// frames), or, without the capability that takes, refuses the name whose
// dev:inode is not the mapping's (unnamed frames, counted in the drops).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "io/profile_io.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;
constexpr int kSeconds = 2;  // record -d
// Record's own start and end (BPF load, reading kallsyms, symbolizing,
// writing) on top of -d: 4.0 to 6.3 s measured, with or without a trap, on
// a 2-vCPU VM with five builds running (load 13), 1.4 to 2.3 s with fewer.
// A hang lasts until the alarm (60 s), or forever without it.
constexpr double kSlack = 12;

std::vector<std::string> as_user(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  return argv;
}

// A temporary directory, removed with everything in it; `owner` owns it.
class TempDir {
 public:
  explicit TempDir(uid_t owner) {
    std::string tmpl = (fs::temp_directory_path() / "fscost-symbols.XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    path_ = tmpl;
    ok_ = ::chown(path_.c_str(), owner, owner) == 0 && ::chmod(path_.c_str(), 0755) == 0;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  bool ok_ = false;
};

// A child running argv, killed when the test ends.
class Child {
 public:
  explicit Child(std::vector<std::string> argv) {
    pid_ = ::fork();
    if (pid_ != 0) return;
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

struct Ran {
  int exit_code = -1, signal = 0;
  double seconds = 0;
  std::string err;
  std::string show() const {
    return "rc " + std::to_string(exit_code) + ", signal " + std::to_string(signal) + ", " +
           std::to_string(seconds) + " s; stderr: " + err;
  }
};

// argv with an alarm (it survives exec): a hung command fails, as signal 14.
Ran run_bounded(const std::vector<std::string>& argv, unsigned alarm_s = 60) {
  Ran r;
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return r;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open("/dev/null", O_RDWR), 0);
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    ::alarm(alarm_s);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) r.err.append(buf, n);
  ::close(pipefd[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

// Whether anyone opened or read `path`'s inode after construction
// (inotify; an O_PATH descriptor opens nothing and is not reported).
class OpenWatch {
 public:
  explicit OpenWatch(const std::string& path)
      : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)),
        ok_(fd_ >= 0 && ::inotify_add_watch(fd_, path.c_str(), IN_OPEN | IN_ACCESS) >= 0) {}
  ~OpenWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return ok_; }
  bool opened() const {
    alignas(inotify_event) char buf[4096];
    return ::read(fd_, buf, sizeof buf) > 0;
  }

 private:
  int fd_;
  bool ok_;
};

// Every entry of `dir` as lstat sees it, and each regular file's bytes: the
// trap and the user's files, compared before and after the recording.
std::string digest(const std::string& dir) {
  std::string out;
  std::vector<fs::path> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path());
  std::sort(names.begin(), names.end());
  for (const auto& p : names) {
    struct stat st {};
    ::lstat(p.c_str(), &st);
    out += p.filename().string() + " " + std::to_string(st.st_mode) + " " +
           std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
           std::to_string(st.st_rdev);
    if (S_ISREG(st.st_mode))
      out += " " + std::to_string(std::hash<std::string>{}(test::slurp(p.string())));
    if (S_ISLNK(st.st_mode)) out += " -> " + fs::read_symlink(p).string();
    out += "\n";
  }
  return out;
}

class HardeningSymbols : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    FSCOST_REQUIRE(fs::exists("/usr/bin/setpriv"), "needs setpriv (util-linux)");
    FSCOST_REQUIRE(fs::exists("/usr/bin/perl"), "needs /usr/bin/perl, the program the user copies");
    ASSERT_TRUE(user_.ok() && root_.ok());
    profile_ = root_ / "trap.profile";
    // A device node of the test's own (/dev/zero's numbers), so that an
    // open of it is the recorder's and nobody else's.
    ASSERT_EQ(::mknod(device_.c_str(), S_IFCHR | 0666, makedev(1, 5)), 0) << strerror(errno);
  }

  // The user runs a copy of perl spinning in its interpreter loop, then
  // deletes the copy and runs `trap` (sh) in the directory to put something
  // under the name maps now shows.
  void spin_then(const std::string& trap) {
    ASSERT_EQ(run_bounded(as_user({"cp", "/usr/bin/perl", user_ / kName})).exit_code, 0);
    spinner_.emplace(as_user({user_ / kName, "-e", "1 while 1"}));
    ASSERT_GT(spinner_->pid(), 0);
    std::string exe = "/proc/" + std::to_string(spinner_->pid()) + "/exe";
    for (int i = 0; i < 500 && fs::read_symlink(exe, ec_).string() != user_ / kName; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(fs::read_symlink(exe, ec_).string(), user_ / kName) << "the copy never ran";
    Ran placed = run_bounded(
        as_user({"sh", "-c", "cd '" + user_.path() + "' && rm " + kName + " && " + trap}));
    ASSERT_EQ(placed.exit_code, 0) << placed.show();
    std::string maps = test::slurp("/proc/" + std::to_string(spinner_->pid()) + "/maps");
    ASSERT_NE(maps.find(user_ / kName + " (deleted)"), std::string::npos) << maps;
  }

  // fscost record TARGET --user-stacks, as root or as root without the
  // capabilities /proc/PID/map_files takes; the profile it wrote.
  Profile record(bool without_map_files, const std::string& target = "-a") {
    std::vector<std::string> argv = {FSCOST_BIN, "record", "-q", "--user-stacks", "-d",
                                     std::to_string(kSeconds), "-o", profile_};
    if (target == "-a") argv.push_back("-a");
    else argv.insert(argv.end(), {"-p", target});
    if (without_map_files)
      argv.insert(argv.begin(), {"setpriv", "--bounding-set=-sys_admin,-checkpoint_restore", "--"});
    Ran r = run_bounded(argv);
    std::printf("record %s --user-stacks -d %d%s: %s\n", target == "-a" ? "-a" : "-p PID",
                kSeconds, without_map_files ? " (no map_files)" : "", r.show().c_str());
    EXPECT_EQ(r.signal, 0) << "14: it hung until the alarm; " << r.show();
    EXPECT_EQ(r.exit_code, 0) << r.show();
    EXPECT_LT(r.seconds, kSeconds + kSlack) << r.show();
    auto p = read_profile(profile_);
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    return p ? std::move(p).value() : Profile{};
  }

  // User-mode samples with a frame that `match` accepts.
  static std::uint64_t user_samples(const Profile& p,
                                    const std::function<bool(const std::string&)>& match) {
    std::uint64_t n = 0;
    for (const auto& s : p.samples)
      if (s.kind == SampleKind::User &&
          std::any_of(s.frames.begin(), s.frames.end(), [&](const Frame& f) { return match(f.str()); }))
        n += s.count;
    return n;
  }

  // Records with the trap set, -a under both ways of opening the mapped
  // file, then -p (the process's owner sets the trap for whoever records it).
  void expect_held(const std::string& trap_path) {
    OpenWatch watch(trap_path);
    ASSERT_TRUE(watch.ok()) << trap_path;
    const std::string before = digest(user_.path());
    const std::string unnamed = "[" + kName + " (deleted)+0x";
    auto is_unnamed = [&](const std::string& f) { return f.starts_with(unnamed); };
    auto is_perl = [](const std::string& f) { return f.starts_with("Perl_"); };

    // map_files: the deleted copy itself, named; its name never looked up.
    Profile p = record(false);
    EXPECT_GT(user_samples(p, is_perl), 100u) << "2 s of the spinning copy, its functions named";
    EXPECT_EQ(user_samples(p, is_unnamed), 0u);
    EXPECT_FALSE(watch.opened()) << trap_path << " was opened";

    // By name in the process's root: the trap is not the mapped inode.
    Profile q = record(true);
    if (testing::Test::HasFailure() && q.samples.empty()) return;
    EXPECT_GT(user_samples(q, is_unnamed), 100u) << "2 s of the spinning copy, unnamed";
    EXPECT_GE(q.drops["user_mapping_replaced"], 1u);
    EXPECT_FALSE(watch.opened()) << trap_path << " was opened";

    Profile r = record(false, std::to_string(spinner_->pid()));
    EXPECT_GT(user_samples(r, is_perl), 100u);
    EXPECT_EQ(user_samples(r, is_unnamed), 0u);
    EXPECT_FALSE(watch.opened()) << trap_path << " was opened";

    EXPECT_EQ(digest(user_.path()), before);
    EXPECT_EQ(::kill(spinner_->pid(), 0), 0) << "the user's program still runs";
  }

  inline static const std::string kName = "spin";
  TempDir user_{kNobody}, root_{0};
  std::string device_ = root_ / "zero";
  std::string profile_;
  std::optional<Child> spinner_;
  std::error_code ec_;
};

// Opening the FIFO would block until a writer came (forever), and SIGTERM
// would only restart the open.
TEST_F(HardeningSymbols, FifoBehindADeletedMappingIsNeverOpened) {
  spin_then("mkfifo '" + kName + " (deleted)'");
  struct stat st {};
  ASSERT_EQ(::lstat((user_ / kName + " (deleted)").c_str(), &st), 0);
  ASSERT_TRUE(S_ISFIFO(st.st_mode));
  expect_held(user_ / kName + " (deleted)");
}

// Opening the device would run its driver's open (/dev/watchdog arms).
TEST_F(HardeningSymbols, SymlinkToADeviceBehindADeletedMappingIsNeverFollowed) {
  spin_then("ln -s '" + device_ + "' '" + kName + " (deleted)'");
  expect_held(device_);
}

}  // namespace
}  // namespace fscost

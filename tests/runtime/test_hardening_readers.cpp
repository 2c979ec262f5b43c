// Inputs an unprivileged user prepares for root's fscost (issue 28,
// "Readers"; docs/HARDENING.md): a FIFO and symlinks to devices where a
// profile, folded stacks or a pprof file is expected, a 100,000-frame folded
// file, and a few KB of gzip that name K × L frames per pprof sample. Each is
// refused, or read bounded and counted, with a clear message: never a hang,
// a device opened, a crash (rc 139) or gigabytes of memory. Every fscost
// here runs with its address space limited and an alarm set, so a
// regression fails the test instead of hanging or swapping the machine.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "io/pprof.h"
#include "io/profile_io.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;
constexpr rlim_t kAddressSpace = rlim_t{2} << 30;  // far below what the bombs asked for

// A directory the unprivileged user owns, removed with everything in it.
class UserDir {
 public:
  UserDir() {
    std::string tmpl = (fs::temp_directory_path() / "fscost-readers.XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    path_ = tmpl;
    ok_ = ::chown(path_.c_str(), kNobody, kNobody) == 0 && ::chmod(path_.c_str(), 0755) == 0;
  }
  ~UserDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  bool ok() const { return ok_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  bool ok_ = false;
};

std::vector<std::string> as_user(const std::string& script) {
  return {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script};
}

struct Measured {
  int exit_code = -1;
  int signal = 0;
  long maxrss_kib = 0;
  double seconds = 0;
  std::string err;
  bool ok() const { return signal == 0 && exit_code == 0; }
};

// Runs argv (argv[0] looked up in PATH) with stdin on /dev/null, stdout
// into `out` (a file), RLIMIT_AS `as_bytes` and SIGALRM after `alarm_s` (an
// alarm survives exec); its stderr, peak RSS and wall time.
Measured run_bounded(const std::vector<std::string>& argv, const std::string& out = "/dev/null",
                     rlim_t as_bytes = kAddressSpace, unsigned alarm_s = 60) {
  Measured m;
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return m;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open("/dev/null", O_RDONLY), 0);
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 1);
    ::dup2(pipefd[1], 2);
    rlimit rl{as_bytes, as_bytes};
    ::setrlimit(RLIMIT_AS, &rl);
    ::alarm(alarm_s);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) m.err.append(buf, n);
  ::close(pipefd[0]);
  int status = 0;
  rusage ru{};
  if (pid < 0 || ::wait4(pid, &status, 0, &ru) != pid) return m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.maxrss_kib = ru.ru_maxrss;
  if (WIFSIGNALED(status)) m.signal = WTERMSIG(status);
  if (WIFEXITED(status)) m.exit_code = WEXITSTATUS(status);
  return m;
}

std::string show(const Measured& m) {
  return "rc " + std::to_string(m.exit_code) + ", signal " + std::to_string(m.signal) + ", " +
         std::to_string(m.maxrss_kib >> 10) + " MiB, " + std::to_string(m.seconds) +
         " s; stderr: " + m.err;
}

// The user's writer, blocked in open(O_WRONLY) on its FIFO until someone
// opens it for reading: it touches `marker` only if fscost did. Killed,
// whatever happened, when the test ends.
class FifoWitness {
 public:
  FifoWitness(const std::string& fifo, const std::string& marker) : marker_(marker) {
    auto argv = as_user("echo x > '" + fifo + "' && touch '" + marker + "'");
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ != 0) return;
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ~FifoWitness() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  // Still blocked: nobody opened the FIFO.
  bool untouched() const {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a woken writer's time to finish
    return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0 && !fs::exists(marker_);
  }

 private:
  std::string marker_;
  pid_t pid_ = -1;
};

class HardeningReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    FSCOST_REQUIRE(fs::exists("/usr/bin/setpriv"), "needs setpriv (util-linux)");
    ASSERT_TRUE(dir_.ok());
  }

  // Runs fscost ARGS as root, bounded; the command must end by itself.
  Measured fscost(std::vector<std::string> args, const std::string& out = "/dev/null") {
    args.insert(args.begin(), FSCOST_BIN);
    Measured m = run_bounded(args, out);
    EXPECT_EQ(m.signal, 0) << show(m);  // 14: hung until the alarm; 11: the old SIGSEGV
    return m;
  }

  // A file the user owns, as if the user wrote it.
  void user_file(const std::string& path, const std::string& data) {
    std::ofstream(path, std::ios::binary) << data;
    ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
  }

  UserDir dir_;
};

void expect_refused(const Measured& m, const std::string& what) {
  EXPECT_FALSE(m.ok()) << show(m);
  EXPECT_NE(m.err.find(what), std::string::npos) << show(m);
  EXPECT_NE(m.err.find("hint:"), std::string::npos) << show(m);
  EXPECT_LT(m.seconds, 10) << show(m);
}

TEST_F(HardeningReaders, FifosTheUserMadeAreNeverOpened) {
  std::string trap = dir_ / "trap.profile";
  auto made = run_bounded(as_user("mkfifo '" + trap + "' && cd '" + (dir_ / "") +
                                  "' && ln -s trap.profile trap.folded && "
                                  "ln -s trap.profile trap.pb.gz && mkdir runs && "
                                  "ln -s ../trap.profile runs/a.profile"));
  ASSERT_TRUE(made.ok()) << show(made);
  struct stat st {};
  ASSERT_EQ(::lstat(trap.c_str(), &st), 0);
  ASSERT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(st.st_uid, kNobody);
  FifoWitness witness(trap, dir_ / "opened");

  const std::string fifo = "it is a FIFO; fscost reads only regular files";
  expect_refused(fscost({"report", trap}), fifo);
  expect_refused(fscost({"html", trap, "-o", dir_ / "r.html"}), fifo);
  expect_refused(fscost({"flamegraph", dir_ / "trap.folded", "-o", dir_ / "f.svg"}), fifo);
  expect_refused(fscost({"flamegraph", "--diff", dir_ / "trap.folded", dir_ / "trap.folded",
                         "-o", dir_ / "d.svg"}),
                 fifo);
  expect_refused(fscost({"diff", trap, trap}), fifo);
  expect_refused(fscost({"import", "folded", dir_ / "trap.folded", "-o", dir_ / "i.profile"}), fifo);
  expect_refused(fscost({"import", "pprof", dir_ / "trap.pb.gz", "-o", dir_ / "i.profile"}), fifo);
  expect_refused(fscost({"import", "perf-script", trap, "-o", dir_ / "i.profile"}), fifo);
  // A directory of runs lists regular files only.
  expect_refused(fscost({"diff", dir_ / "runs", dir_ / "runs"}), "no *.profile files");
  EXPECT_TRUE(witness.untouched()) << "fscost opened the user's FIFO";
  EXPECT_FALSE(fs::exists(dir_ / "i.profile"));
}

// /dev/zero and /dev/null stand in for /dev/watchdog: fscost must refuse
// them from the inode alone, before any open would run a driver.
TEST_F(HardeningReaders, SymlinksToDevicesAreRefusedUnopened) {
  auto made = run_bounded(as_user("cd '" + (dir_ / "") +
                                  "' && ln -s /dev/zero dev.profile && ln -s /dev/null null.folded"
                                  " && ln -s /dev/zero zero.pb.gz"));
  ASSERT_TRUE(made.ok()) << show(made);
  const std::string dev = "it is a character device; fscost reads only regular files";
  expect_refused(fscost({"report", dir_ / "dev.profile"}), dev);
  expect_refused(fscost({"html", dir_ / "dev.profile", "-o", dir_ / "r.html"}), dev);
  expect_refused(fscost({"diff", dir_ / "dev.profile", dir_ / "dev.profile"}), dev);
  expect_refused(fscost({"flamegraph", dir_ / "null.folded", "-o", dir_ / "f.svg"}), dev);
  expect_refused(fscost({"import", "pprof", dir_ / "zero.pb.gz", "-o", dir_ / "i.profile"}), dev);
  expect_refused(fscost({"import", "folded", "/dev/null", "-o", dir_ / "i.profile"}), dev);
  // `-` is standard input, which the caller chose: still read (here /dev/null).
  Measured stdin_read = fscost({"import", "folded", "-", "-o", dir_ / "i.profile"});
  EXPECT_EQ(stdin_read.err.find("reads only regular files"), std::string::npos) << show(stdin_read);
}

std::string deep_folded(int depth, const std::string& counts) {
  std::string s = "create";
  for (int i = 1; i < depth; ++i) s += ";g" + std::to_string(i % 100);
  return s + " " + counts + "\ncreate;xfs_create " + counts + "\n";
}

void expect_bounded(const Measured& m) {
  EXPECT_TRUE(m.ok()) << show(m);
  EXPECT_LT(m.maxrss_kib, 512 << 10) << show(m);
}

TEST_F(HardeningReaders, DeepFoldedStacksAreCutAndCounted) {
  user_file(dir_ / "a.folded", deep_folded(100'000, "7"));
  user_file(dir_ / "b.folded", deep_folded(60'000, "5"));
  expect_bounded(fscost({"flamegraph", dir_ / "a.folded", "-o", dir_ / "a.svg"}));
  expect_bounded(fscost({"flamegraph", "--diff", dir_ / "a.folded", dir_ / "b.folded", "-o",
                         dir_ / "d.svg"}));
  expect_bounded(fscost({"import", "folded", "-q", dir_ / "a.folded", "-o", dir_ / "a.profile"}));
  expect_bounded(fscost({"import", "folded", "-q", dir_ / "b.folded", "-o", dir_ / "b.profile"}));
  expect_bounded(fscost({"html", "-q", dir_ / "a.profile", "-o", dir_ / "a.html"}));
  expect_bounded(fscost({"diff", "-q", dir_ / "a.profile", dir_ / "b.profile"}));
  Profile p = take(read_profile(dir_ / "a.profile"));
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), 1u);
  ASSERT_TRUE(fscost({"report", dir_ / "a.profile"}, dir_ / "report.txt").ok());
  std::ifstream report(dir_ / "report.txt");
  std::string text{std::istreambuf_iterator<char>(report), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("stack_depth_truncated: 1"), std::string::npos);
}

// Memory bounded by the input (issue 41): a reader may hold the file and a
// few times its size, never a structure per byte it skips. The bound is
// the issue's: 64 MiB plus 8 times the file.
void expect_within_input_bound(const Measured& m, std::size_t file_bytes) {
  long bound_kib = 64 << 10;
  bound_kib += static_cast<long>(8 * file_bytes / 1024);
  EXPECT_LE(m.maxrss_kib, bound_kib) << "file " << (file_bytes >> 10) << " KiB: " << show(m);
  EXPECT_LT(m.seconds, 30) << show(m);
}

constexpr std::size_t kCrafted = 10 << 20;

// perf script lines repeated to `bytes` after one sample header.
std::string perf_frames(const std::string& line, std::size_t bytes) {
  std::string s = "app 10 [000] 1.000000: 1000000 cpu-clock: \n";
  s.reserve(bytes + line.size());
  while (s.size() < bytes) s += line;
  return s + "\n";
}

// perf script frames were kept whole before the depth cut: 40 bytes of
// frame for each 3-byte "\t0" line (a cut frame, so the sample is dropped),
// and 20 for each "\t0 ()" (kept, cut to kMaxStackDepth).
TEST_F(HardeningReaders, PerfScriptFramesAreCutWhileRead) {
  user_file(dir_ / "cut.txt", perf_frames("\t0\n", kCrafted));
  Measured m = fscost({"import", "perf-script", "-q", dir_ / "cut.txt", "-o", dir_ / "cut.profile"});
  std::printf("perf script, 10 MiB of \"\\t0\" frame lines: %s\n", show(m).c_str());
  EXPECT_TRUE(m.ok()) << show(m);
  expect_within_input_bound(m, kCrafted);
  Profile cut = take(read_profile(dir_ / "cut.profile"));
  EXPECT_EQ(cut.drops.at("perf_truncated_stack"), 1u);

  user_file(dir_ / "deep.txt", perf_frames("\t0 ()\n", kCrafted));
  m = fscost({"import", "perf-script", "-q", dir_ / "deep.txt", "-o", dir_ / "deep.profile"});
  std::printf("perf script, 10 MiB of \"\\t0 ()\" frame lines: %s\n", show(m).c_str());
  EXPECT_TRUE(m.ok()) << show(m);
  expect_within_input_bound(m, kCrafted);
  Profile deep = take(read_profile(dir_ / "deep.profile"));
  ASSERT_EQ(deep.samples.size(), 1u);
  EXPECT_EQ(deep.samples[0].frames.size(), kMaxStackDepth);
  EXPECT_EQ(deep.drops.at("stack_depth_truncated"), 1u);

  // A header line of a million tokens was split whole before it was refused.
  std::string blanks;
  while (blanks.size() < kCrafted) blanks += "a ";
  user_file(dir_ / "tokens.txt", blanks + "\n");
  m = fscost({"import", "perf-script", "-q", dir_ / "tokens.txt", "-o", dir_ / "t.profile"});
  std::printf("perf script, a 10 MiB header line: %s\n", show(m).c_str());
  expect_refused(m, "not a perf script sample header");
  expect_within_input_bound(m, kCrafted);
}

// simdjson refuses JSON nested deeper than 1024 levels; the re-read that
// finds where an error is kept a level per '[' (10 MiB of them: 880 MB,
// 24 s) and now stops at the same depth.
TEST_F(HardeningReaders, DeepJsonIsRefusedAtTheDepthCap) {
  user_file(dir_ / "deep.profile", std::string(kCrafted, '['));
  std::string objects;
  while (objects.size() < kCrafted) objects += "{\"a\":";
  user_file(dir_ / "objects.profile", objects);
  for (const char* name : {"deep.profile", "objects.profile"}) {
    Measured m = fscost({"report", dir_ / name});
    std::printf("report, 10 MiB of nesting (%s): %s\n", name, show(m).c_str());
    // An array is no profile whatever it holds; an object says what is wrong.
    expect_refused(m, name == std::string("deep.profile")
                          ? "not an fscost profile"
                          : "cannot read: nested deeper than 1024 levels");
    expect_within_input_bound(m, kCrafted);
  }
}

// profile.proto by hand, so the bomb's few bytes are in view.
std::string varint(std::uint64_t v) {
  std::string s;
  for (; v >= 0x80; v >>= 7) s += static_cast<char>(v | 0x80);
  return s + static_cast<char>(v);
}
std::string field(int number, const std::string& bytes) {  // length-delimited
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(bytes.size()) + bytes;
}

// One function, one location of `lines` inlined lines of it, and `samples`
// samples each naming that location `ids` times: K × L frames a sample.
std::string pprof_bomb(int lines, int ids, int samples) {
  std::string out = field(1, "\x08\x01\x10\x02");  // sample_type {type: 1, unit: 2}
  std::string sample = field(1, std::string(static_cast<std::size_t>(ids), '\x01')) +
                       field(2, "\x01");  // location_id: [1] × ids, value: [1]
  for (int i = 0; i < samples; ++i) out += field(2, sample);
  std::string location = "\x08\x01";  // id 1
  for (int i = 0; i < lines; ++i) location += field(4, "\x08\x01");  // line {function_id: 1}
  out += field(4, location);
  out += field(5, "\x08\x01\x10\x03");  // function {id: 1, name: 3}
  for (const char* s : {"", "samples", "count", "frame"}) out += field(6, s);
  return out;
}

TEST_F(HardeningReaders, PprofBombIsCutPerSampleAndCounted) {
  constexpr int kL = 10'000, kK = 10'000, kSamples = 100;  // 10^8 frames a sample uncut
  std::string gz = take(pprof::gzip(pprof_bomb(kL, kK, kSamples)));
  ASSERT_LT(gz.size(), 8u << 10);
  user_file(dir_ / "bomb.pb.gz", gz);
  Measured m = fscost({"import", "pprof", "-q", dir_ / "bomb.pb.gz", "-o", dir_ / "bomb.profile"});
  expect_bounded(m);
  EXPECT_LT(m.maxrss_kib, 128 << 10) << show(m);
  EXPECT_LT(m.seconds, 10) << show(m);
  std::printf("pprof bomb: %zu bytes of gzip, %d x %d frames a sample, %d samples: %s\n",
              gz.size(), kK, kL, kSamples, show(m).c_str());
  Profile p = take(read_profile(dir_ / "bomb.profile"));
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].count, static_cast<std::uint64_t>(kSamples));
  EXPECT_EQ(p.samples[0].frames.size(), kMaxStackDepth);
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), static_cast<std::uint64_t>(kSamples));
}

// The other bomb: millions of 5-byte samples, 150 bytes each once parsed.
TEST_F(HardeningReaders, PprofFloodIsRefusedBeforeItIsParsed) {
  std::string raw = field(1, "\x08\x01\x10\x02");
  const std::string sample = field(2, field(2, "\x01"));  // value: [1]
  raw.reserve(raw.size() + 20'000'000 * sample.size());
  for (int i = 0; i < 20'000'000; ++i) raw += sample;
  for (const char* s : {"", "samples", "count"}) raw += field(6, s);
  std::string gz = take(pprof::gzip(raw));
  raw = {};
  ASSERT_LT(gz.size(), 256u << 10);
  user_file(dir_ / "flood.pb.gz", gz);
  Measured m = fscost({"import", "pprof", "-q", dir_ / "flood.pb.gz", "-o", dir_ / "f.profile"});
  std::printf("pprof flood: %zu bytes of gzip, 20,000,000 samples: %s\n", gz.size(), show(m).c_str());
  expect_refused(m, "would take about 3204 MiB of memory to parse, more than the limit of 1024 MiB");
  EXPECT_LT(m.maxrss_kib, 512 << 10) << show(m);
}

}  // namespace
}  // namespace fscost

// fscost record on a real XFS: a purpose-built workload issues known numbers
// of each operation; the profile must count exactly those, attribute XFS
// frames to them, agree with rusage, and drop nothing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <thread>

#include "collector/kernel_features.h"
#include "io/profile_io.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

using nlohmann::json;

constexpr int kN = 2000;

class RecordTest : public test::ScratchXfsTest {
 protected:
  RecordTest() : ScratchXfsTest(512ull << 20) {}

  // env: NAME=VALUE settings for fscost record (run through env(1)).
  json record_and_report(const std::vector<std::string>& workload,
                         const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv;
    if (!env.empty()) {
      argv.push_back("env");
      argv.insert(argv.end(), env.begin(), env.end());
    }
    argv.insert(argv.end(), {FSCOST_BIN, "record", "-o", profile_, "--"});
    argv.insert(argv.end(), workload.begin(), workload.end());
    auto rec = run(argv);
    EXPECT_TRUE(rec.ok()) << rec.status_text() << "\n" << rec.err;
    workload_out_ = rec.out;
    auto rep = run({FSCOST_BIN, "report", profile_, "--format", "json"});
    EXPECT_TRUE(rep.ok()) << rep.err;
    return json::parse(rep.out, nullptr, false);
  }

  static const json* find_op(const json& report, const std::string& name) {
    for (const auto& op : report["ops"])
      if (op["name"] == name) return &op;
    return nullptr;
  }

  std::string workload_out_;
};

TEST_F(RecordTest, CountsEveryOperationExactly) {
  json report = record_and_report({WORKLOAD_BIN, fs_->dir(), "--files", std::to_string(kN)});
  ASSERT_FALSE(report.is_discarded());
  // The workload says what it issued; the profile must say the same.
  json issued = json::parse(workload_out_, nullptr, false);
  ASSERT_FALSE(issued.is_discarded()) << workload_out_;
  for (const char* name : {"create", "fsync", "link", "rename", "unlink", "mkdir", "rmdir",
                           "symlink"}) {
    const json* op = find_op(report, name);
    ASSERT_NE(op, nullptr) << name << " missing from the report";
    EXPECT_EQ((*op)["count"].get<std::uint64_t>(), issued["counts"][name].get<std::uint64_t>())
        << name;
    EXPECT_EQ((*op)["errors"].get<std::uint64_t>(), 0u) << name;
    EXPECT_GT((*op)["oncpu_ns_per_op"].get<double>(), 0.0) << name;
    EXPECT_GE((*op)["wall_ns_per_op"].get<double>(), (*op)["oncpu_ns_per_op"].get<double>())
        << name;
  }
  EXPECT_EQ(find_op(report, "create")->at("count").get<int>(), kN);
  EXPECT_EQ(find_op(report, "unlink")->at("count").get<int>(), 3 * kN);
  // The default flavour: per-thread state in task storage, where the kernel
  // allocates it safely inside locks (6.18 here); the raw_tp hash before
  // (6.1 in tests/vm).
  const char* flavour = Features::for_record().task_storage_in_locks ? "(tp_btf)" : "(raw_tp)";
  EXPECT_NE(report.dump().find(std::string("raw_syscalls:sys_enter ") + flavour),
            std::string::npos);
  // fsync waits for the log: off-CPU time is accounted only at sched_switch,
  // so this shows the switch handlers found the thread's state.
  EXPECT_GT(find_op(report, "fsync")->at("offcpu_ns_total").get<std::uint64_t>(), 0u);
}

TEST_F(RecordTest, CreateStacksHaveXfsFrames) {
  record_and_report({WORKLOAD_BIN, fs_->dir(), "--files", std::to_string(kN)});
  auto folded = run({FSCOST_BIN, "report", profile_, "--format", "folded", "--op", "create"});
  ASSERT_TRUE(folded.ok()) << folded.err;
  ASSERT_FALSE(folded.out.empty()) << "no create samples";
  std::istringstream lines(folded.out);
  std::string line;
  bool xfs_create = false;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("create;", 0), 0u) << "root frame is not the operation: " << line;
    if (line.find(";xfs_create;") != std::string::npos) xfs_create = true;
  }
  EXPECT_TRUE(xfs_create) << "no xfs_create frame under create:\n" << folded.out;
}

TEST_F(RecordTest, OnCpuSumAgreesWithRusageAndNothingDropped) {
  test::HostMeter host;
  json report = record_and_report({WORKLOAD_BIN, fs_->dir(), "--files", std::to_string(kN)});
  ASSERT_FALSE(report.is_discarded());
  const json& c = report["consistency"];
  double ratio = c["ratio"].get<double>();
  // Steal inflates the traced time (sched_switch sees the vCPU run) but not
  // the rusage the kernel charges: on a stolen or busy host the ratio is
  // the host's.
  double with = c["ratio_with_syscall_path"].is_number() ? c["ratio_with_syscall_path"].get<double>() : 1;
  const test::HostLoad load = host.load();
  if (load.busy() && (ratio > 1.10 || ratio < 0.70 || with > 1.10 || with < 0.85))
    GTEST_SKIP() << "the machine was busy during the recording (" << load.describe()
                 << "); ratio " << ratio << " cannot be judged here: " << c.dump();
  // Syscall on-CPU time is most of a metadata workload's sys time; the rest
  // is exec, page faults and interrupts outside syscalls, and the syscall
  // entry/exit path where the probes run (docs/ACCURACY.md). That path
  // grows with the host's per-syscall probe cost: 12% of sys time on the
  // AMD guest (22 of 180 ms; its empty tp_btf pair costs +152 ns a syscall,
  // the Intel guest's +62), where the bare ratio read 0.794. Counted, the
  // sampled syscall path closes the gap: 0.917 there.
  // rusage's sys time is not exact on a tick-accounting kernel: the process's
  // runtime is exact, but its split into user and sys follows which of the
  // ticks found it in the kernel (cputime_adjust), a binomial draw of
  // runtime x HZ ticks. The sampled syscall path is a Poisson count. The
  // bounds widen by three of their joint standard deviations, at HZ = 100
  // (the fewest ticks a kernel takes, so the widest): the 1.151 that failed
  // CI on 2026-12-05 was 198.5 ms traced + 37 path samples against 204.7 ms
  // of sys out of a 2000-file run's ~230 ms.
  const double sys = c["rusage_sys_ns"].get<double>();
  const double total = report["rusage"]["user_ns"].get<double>() + sys;
  const double ticks = std::max(1.0, total * 100 / 1e9);
  const double share = sys / total;
  const double split_sd = total * std::sqrt(share * (1 - share) / ticks);
  const double samples = c.value("syscall_path_samples", 0.0);
  const double path_sd =
      samples > 0 ? c["syscall_path_ns"].get<double>() / std::sqrt(samples) : 0.0;
  const double slack = 3 * std::hypot(split_sd, path_sd) / sys;
  EXPECT_GT(ratio, 0.70 - slack) << c.dump() << " slack " << slack;
  EXPECT_LT(ratio, 1.10 + slack) << c.dump() << " slack " << slack;
  if (c["ratio_with_syscall_path"].is_number()) {
    double with_path = c["ratio_with_syscall_path"].get<double>();
    EXPECT_GT(with_path, 0.85 - slack) << c.dump() << " slack " << slack;
    EXPECT_LT(with_path, 1.10 + slack) << c.dump() << " slack " << slack;
  } else {
    EXPECT_GT(ratio, 0.80 - slack) << "no syscall-path samples, so no gap to close: " << c.dump();
  }
  // No drops at default sizes. prog_missed is not a size: a BPF program
  // skipped because another one ran on that CPU (a contended map lock inside
  // a BPF program fires lock:contention_begin). Rare; bounded, not zero.
  std::uint64_t ops = 0;
  for (const auto& op : report["ops"]) ops += op["count"].get<std::uint64_t>();
  for (const auto& [name, count] : report["drops"].items()) {
    if (name == "prog_missed")
      EXPECT_LE(count.get<std::uint64_t>() * 10000, ops) << "prog_missed above 0.01% of ops";
    else
      EXPECT_EQ(count.get<std::uint64_t>(), 0u) << "drop " << name;
  }
}

// Kernel-thread buckets are named by workqueue or comm: never empty, never
// bytes read from the wrong structure.
TEST_F(RecordTest, KernelThreadBucketsHaveReadableNames) {
  json report = record_and_report({WORKLOAD_BIN, fs_->dir(), "--files", std::to_string(kN),
                                   "--threads", "2"});
  ASSERT_FALSE(report.is_discarded());
  const json& kthreads = report["background"]["kthreads"];
  ASSERT_FALSE(kthreads.empty()) << "no kernel-thread samples (the log and CIL work runs there)";
  for (const auto& k : kthreads) {
    std::string name = k["name"].get<std::string>();
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(std::all_of(name.begin(), name.end(),
                            [](unsigned char c) { return c >= 0x20 && c < 0x7f; }))
        << "unreadable kthread bucket name: " << json(name).dump();
  }
}

TEST_F(RecordTest, ThreadsAndChildProcessesAreFollowed) {
  // sh forks the workload: the child process must be tracked; its threads too.
  std::string cmd = std::string(WORKLOAD_BIN) + " " + fs_->dir() + " --files 300 --threads 2";
  json report = record_and_report({"/bin/sh", "-c", cmd + "; true"});
  ASSERT_FALSE(report.is_discarded());
  const json* create = find_op(report, "create");
  ASSERT_NE(create, nullptr);
  EXPECT_EQ((*create)["count"].get<int>(), 600);
}

// Kernels where tracing programs cannot use task storage (before 5.12) get
// the raw_tp flavour, whose
// per-thread state is a hash keyed by tid, and the task-storage map becomes a
// one-entry hash. Forced here; it must count as exactly as tp_btf does.
TEST_F(RecordTest, RawTpFallbackCountsExactly) {
  std::string cmd = std::string(WORKLOAD_BIN) + " " + fs_->dir() + " --files 300 --threads 2";
  json report = record_and_report({"/bin/sh", "-c", cmd + "; true"},
                                  {"FSCOST_DISABLE_FEATURES=task_storage"});
  ASSERT_FALSE(report.is_discarded());
  std::string all = report.dump();
  EXPECT_NE(all.find("raw_syscalls:sys_enter (raw_tp)"), std::string::npos) << all;
  EXPECT_EQ(all.find("(tp_btf)"), std::string::npos);
  json issued = json::parse(workload_out_, nullptr, false);
  ASSERT_FALSE(issued.is_discarded()) << workload_out_;
  for (const char* name : {"create", "unlink", "mkdir", "rename"}) {
    const json* op = find_op(report, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ((*op)["count"].get<std::uint64_t>(), issued["counts"][name].get<std::uint64_t>())
        << name;
    EXPECT_GT((*op)["oncpu_ns_per_op"].get<double>(), 0.0) << name;
  }
  EXPECT_EQ(find_op(report, "create")->at("count").get<int>(), 600);
  // Off-CPU time is accounted only where sched_switch finds the state in the hash.
  ASSERT_NE(find_op(report, "fsync"), nullptr);
  EXPECT_GT(find_op(report, "fsync")->at("offcpu_ns_total").get<std::uint64_t>(), 0u);
  EXPECT_EQ(report["drops"]["task_map_full"].get<std::uint64_t>(), 0u);
}

// The remove workload pauses the recording over its setup (the creates that
// make its files) through FSCOST_CONTROL_FD: the profile holds its unlinks
// and none of those creates, and says how long it was paused.
TEST_F(RecordTest, WorkloadSetupIsNotRecorded) {
  json report = record_and_report(
      {WORKLOAD_BIN, fs_->dir(), "--workload", "remove", "--files", "500", "--threads", "2"});
  ASSERT_FALSE(report.is_discarded());
  json issued = json::parse(workload_out_, nullptr, false);
  ASSERT_FALSE(issued.is_discarded()) << workload_out_;
  EXPECT_EQ(issued["counts"]["create"], 1000) << workload_out_;
  EXPECT_EQ(issued["traced"]["create"], 0) << workload_out_;
  EXPECT_EQ(find_op(report, "create"), nullptr) << report["ops"].dump();
  const json* unlink = find_op(report, "unlink");
  ASSERT_NE(unlink, nullptr);
  EXPECT_EQ((*unlink)["count"], issued["traced"]["unlink"]);
  EXPECT_EQ((*unlink)["count"], 1000);
  EXPECT_GT(report["meta"].value("paused_ns", 0ull), 0u) << report["meta"].dump();
}

// The channel as a command of one's own uses it, from sh: what it does while
// paused is not recorded; an unknown request is answered "error".
TEST_F(RecordTest, ACommandPausesAndResumesTheRecording) {
  std::string d = fs_->dir();
  std::string script =
      "fd=${FSCOST_CONTROL_FD%,*}; "
      "echo disable >&$fd; read a <&$fd; [ \"$a\" = ack ] || exit 3; "
      "touch " + d + "/paused; "
      "echo enable >&$fd; read a <&$fd; [ \"$a\" = ack ] || exit 4; "
      "echo bogus >&$fd; read a <&$fd; [ \"$a\" = error ] || exit 5; "
      "touch " + d + "/recorded";
  json report = record_and_report({"/bin/sh", "-c", script});
  ASSERT_FALSE(report.is_discarded());
  const json* create = find_op(report, "create");
  ASSERT_NE(create, nullptr) << report["ops"].dump();
  EXPECT_EQ((*create)["count"], 1);  // recorded, not paused
  EXPECT_TRUE(std::filesystem::exists(d + "/paused"));
}

// -p: a process that runs already, with threads that exist before the
// recording. Each of its two threads waits on a FIFO, then stats 5000 times:
// their state is seeded from userspace (task storage by PIDFD_THREAD pidfd,
// or the raw_tp hash by tid), or they would be taken for untracked
// threads. Both flavours must count every stat.
class RecordPidTest : public RecordTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(RecordPidTest, ThreadsThatExistedBeforeAreCounted) {
  std::string fifo = fs_->dir() + "/go";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const char* script =
      "import os, sys, threading\n"
      "def work():\n"
      "    with open(sys.argv[1], 'rb') as f: f.read(1)\n"
      "    for _ in range(5000): os.stat('/')\n"
      "ts = [threading.Thread(target=work) for _ in range(2)]\n"
      "[t.start() for t in ts]\n"
      "[t.join() for t in ts]\n";
  pid_t target = ::fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    ::execlp("python3", "python3", "-c", script, fifo.c_str(), nullptr);
    ::_exit(127);
  }
  // Its two threads exist (and block on the FIFO) before the recording.
  for (int i = 0; i < 200; ++i) {
    std::size_t n = 0;
    std::error_code ec;
    for ([[maybe_unused]] const auto& e :
         std::filesystem::directory_iterator("/proc/" + std::to_string(target) + "/task", ec))
      ++n;
    if (n >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // --probes none: no lock hooks, which would give a contending thread its
  // state on their own and hide a thread left unseeded.
  std::vector<std::string> argv{"env", GetParam(), FSCOST_BIN, "record", "-q", "--probes", "none",
                                "-o", profile_, "-p", std::to_string(target), "-d", "4"};
  pid_t rec = ::fork();
  ASSERT_GE(rec, 0);
  if (rec == 0) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // attached by now
  {
    std::ofstream go(fifo);  // opens once the threads' readers are there
    go << "xx";
  }
  int status = 0;
  ::waitpid(target, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ::waitpid(rec, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto rep = run({FSCOST_BIN, "report", profile_, "--format", "json"});
  ASSERT_TRUE(rep.ok()) << rep.err;
  json report = json::parse(rep.out, nullptr, false);
  const json* stat = find_op(report, "stat");
  ASSERT_NE(stat, nullptr) << rep.out;
  // 10000 stats, plus the few python itself makes around them.
  EXPECT_GE((*stat)["count"].get<int>(), 10000);
  EXPECT_LT((*stat)["count"].get<int>(), 10100);
}

INSTANTIATE_TEST_SUITE_P(Flavours, RecordPidTest,
                         ::testing::Values("FSCOST_DISABLE_FEATURES=", "FSCOST_DISABLE_FEATURES=task_storage"));

TEST_F(RecordTest, FailingCommandIsAClearError) {
  auto rec = run({FSCOST_BIN, "record", "-o", profile_, "--", "/nonexistent/fscost-no-such-cmd"});
  EXPECT_NE(rec.exit_code, 0);
  EXPECT_NE(rec.err.find("cannot run"), std::string::npos) << rec.err;
}

}  // namespace
}  // namespace fscost

namespace fscost {
namespace {

// record -- CMD stopped by a closed terminal, ^\ or a closed pipe: the
// signal reaches the command, the profile is written whole; record killed
// outright takes its command with it (PR_SET_PDEATHSIG), so no workload is
// left running unseen.
class RecordSignalTest : public test::ScratchXfsTest {
 protected:
  RecordSignalTest() : ScratchXfsTest(512ull << 20) {}

  // Starts `fscost record -o profile_ -- sh -c 'echo $$ > pidfile; exec sleep 30'`.
  pid_t start_record() {
    pid_t pid = ::fork();
    if (pid == 0) {
      int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      std::string script = "echo $$ > " + pidfile() + "; exec sleep 30";
      ::execl(FSCOST_BIN, FSCOST_BIN, "record", "-o", profile_.c_str(), "--", "sh", "-c",
              script.c_str(), nullptr);
      ::_exit(127);
    }
    return pid;
  }
  std::string pidfile() const { return fs_->dir() + "/workload.pid"; }
  // The workload's pid once it wrote it, else 0.
  pid_t workload_pid() {
    for (int i = 0; i < 200; ++i) {
      std::ifstream in(pidfile());
      pid_t p = 0;
      if (in >> p && p > 0) return p;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }
  static bool gone(pid_t pid) {
    for (int i = 0; i < 100; ++i) {
      if (::kill(pid, 0) != 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  static int wait_status(pid_t pid) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
};

TEST_F(RecordSignalTest, HangupQuitAndPipeEndTheRecordingWithAProfile) {
  for (int sig : {SIGHUP, SIGQUIT, SIGPIPE}) {
    SCOPED_TRACE(std::string("SIG") + sigabbrev_np(sig));
    std::filesystem::remove(pidfile());
    std::filesystem::remove(profile_);
    pid_t rec = start_record();
    pid_t work = workload_pid();
    ASSERT_GT(work, 0) << "the workload did not start";
    ::kill(rec, sig);
    // The command got the signal, so record exits with its status.
    EXPECT_EQ(wait_status(rec), 128 + sig);
    EXPECT_TRUE(gone(work));
    auto p = read_profile(profile_);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_FALSE(p.value().meta.probes.empty());
  }
}

TEST_F(RecordSignalTest, KilledRecordTakesItsWorkloadWithIt) {
  pid_t rec = start_record();
  pid_t work = workload_pid();
  ASSERT_GT(work, 0) << "the workload did not start";
  ::kill(rec, SIGKILL);
  EXPECT_EQ(wait_status(rec), 128 + SIGKILL);
  EXPECT_TRUE(gone(work)) << "sleep " << work << " outlived a SIGKILLed record";
  if (!gone(work)) ::kill(work, SIGKILL);
}

// A perf link owns its event fd (libbpf's bpf_link__destroy closes it):
// closing it again, as the sampler and the features probe did, closes
// whatever another thread opened under that number meanwhile (a compare's
// loop device, made on a thread, went with it). strace, the peer: no close
// of a recording fails with EBADF.
TEST_F(RecordTest, NoDescriptorIsClosedTwice) {
  if (::access("/usr/bin/strace", X_OK) != 0) GTEST_SKIP() << "strace is not installed";
  const std::string log = profile_ + ".strace";
  struct Removed {
    const std::string& path;
    ~Removed() { std::filesystem::remove(path); }
  } removed{log};
  auto rec = run({"/usr/bin/strace", "-f", "-e", "trace=close", "-o", log, FSCOST_BIN, "record",
                  "-q", "-o", profile_, "--", "true"});
  ASSERT_TRUE(rec.ok()) << rec.status_text() << "\n" << rec.err;
  std::ifstream in(log);
  std::size_t closes = 0;
  for (std::string line; std::getline(in, line);) {
    closes += line.find("close(") != std::string::npos;
    EXPECT_EQ(line.find("EBADF"), std::string::npos) << line;
  }
  EXPECT_GT(closes, 10u) << "strace saw the recording's closes";
}

}  // namespace
}  // namespace fscost

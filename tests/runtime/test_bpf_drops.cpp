// BPF map losses that used to be silent (issue 28): each one, made to happen
// for real, shows in the profile's drop counters and in the report with its
// hint; the same run without the cause counts none.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "collector/bpf_abi.h"
#include "support.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"

#if defined(__x86_64__)
// Points the frame pointer at a crafted chain of frames and spins on one
// instruction, so every user-mode sample's frame-pointer walk reads
// [fscost_test_spin_loop, the chain's return addresses]. Never returns.
asm(R"(
	.text
	.globl fscost_test_spin
	.hidden fscost_test_spin
	.type fscost_test_spin, @function
fscost_test_spin:
	mov %rdi, %rbp
	.globl fscost_test_spin_loop
	.hidden fscost_test_spin_loop
fscost_test_spin_loop:
	jmp fscost_test_spin_loop
	.size fscost_test_spin, . - fscost_test_spin
)");
extern "C" [[noreturn]] __attribute__((visibility("hidden"))) void fscost_test_spin(void* fp);
extern "C" __attribute__((visibility("hidden"))) char fscost_test_spin_loop[];
#endif

namespace fscost {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct RemovedFile {
  std::string path;
  ~RemovedFile() { fs::remove(path); }
};

RemovedFile scratch_profile(const std::string& what) {
  return {(fs::temp_directory_path() /
           ("fscost-drops-" + what + "-" + std::to_string(::getpid()) + ".profile"))
              .string()};
}

// `fscost record ARGS -o P`, then its report as JSON and as text.
struct Reported {
  json report;
  std::string text;
  std::uint64_t drop(const std::string& name) const {
    return report["drops"].value(name, std::uint64_t{0});
  }
};

// argv's output; a failure to start or a non-zero exit fails the test.
ProcessOutput run(const std::vector<std::string>& argv) {
  auto r = run_capture(argv);
  EXPECT_TRUE(r) << r.error().message;
  if (!r) return {};
  EXPECT_TRUE(r.value().ok()) << argv[1] << ": " << r.value().status_text() << "\n"
                              << r.value().err;
  return std::move(r).value();
}

Reported record(std::vector<std::string> args, const std::string& what) {
  RemovedFile p = scratch_profile(what);
  // ARGS last: they may end in "-- command".
  std::vector<std::string> argv = {FSCOST_BIN, "record", "-q", "-o", p.path};
  argv.insert(argv.end(), args.begin(), args.end());
  run(argv);
  std::string js = run({FSCOST_BIN, "report", p.path, "--format", "json"}).out;
  return {json::parse(js, nullptr, false), run({FSCOST_BIN, "report", p.path}).out};
}

// dev_write_bytes is keyed by (device, write class): more devices written
// than --max-devices allows lose the rest's bytes, counted.
TEST(BpfDrops, DeviceWritesBeyondMaxDevicesAreCounted) {
  FSCOST_REQUIRE_ROOT();
  constexpr int kDevices = 20;  // > 16, the smallest --max-devices
  std::vector<ShmImage> images;
  std::vector<LoopDevice> loops;
  std::string script;
  for (int i = 0; i < kDevices; ++i) {
    auto img = ShmImage::create(1 << 20);
    ASSERT_TRUE(img) << img.error().message;
    auto loop = LoopDevice::attach(img.value().path());
    ASSERT_TRUE(loop) << loop.error().message;
    script += "dd if=/dev/zero of=" + loop.value().path() +
              " bs=4096 count=1 oflag=direct status=none || exit 1\n";
    images.push_back(std::move(img).value());
    loops.push_back(std::move(loop).value());
  }
  Reported full = record({"--max-devices", "16", "--", "/bin/sh", "-c", script}, "dev");
  ASSERT_FALSE(full.report.is_discarded());
  EXPECT_GE(full.drop("dev_write_full"), std::uint64_t{kDevices - 16});
  EXPECT_NE(full.text.find("dev_write_full"), std::string::npos) << full.text;
  EXPECT_NE(full.text.find("hint: raise --max-devices"), std::string::npos) << full.text;

  Reported fits = record({"--", "/bin/sh", "-c", script}, "dev");
  ASSERT_FALSE(fits.report.is_discarded());
  EXPECT_EQ(fits.drop("dev_write_full"), 0u);
  EXPECT_TRUE(fits.report["drops"].contains("dev_write_full")) << "listed when zero too";
}

#if defined(__x86_64__)  // the spinner is x86-64 assembly
fscost_stack stack_of(std::initializer_list<__u64> ips) {
  fscost_stack st{};
  for (__u64 ip : ips) st.ips[st.depth++] = ip;
  return st;
}

// A process of two threads spinning in user mode, each on its own crafted
// frame chain, [spin, a, b] and [spin, a2, b2]; killed on destruction.
class Spinners {
 public:
  Spinners(__u64 a, __u64 b, __u64 a2, __u64 b2) {
    pid_ = ::fork();
    if (pid_ != 0) return;
    std::thread([=] { spin(a2, b2); }).detach();
    spin(a, b);
  }
  ~Spinners() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  // The frames on this thread's stack, above its stack pointer and in
  // rising order, as a real chain is (an unwinder may insist).
  [[noreturn]] static void spin(__u64 ret0, __u64 ret1) {
    alignas(16) volatile __u64 frames[4] = {0, ret0, 0, ret1};
    frames[0] = reinterpret_cast<__u64>(&frames[2]);
    fscost_test_spin(const_cast<__u64*>(&frames[0]));
  }
  pid_t pid_ = -1;
};

Reported record_spinners(bool collide) {
  const __u64 x = reinterpret_cast<__u64>(fscost_test_spin_loop);
  const __u64 a = 0x10000, b = 0x20000, a2 = 0x30000;
  fscost_stack pa = stack_of({x, a}), pa2 = stack_of({x, a2});
  __u64 b2 = b ^ fscost_stack_hash(&pa) ^ fscost_stack_hash(&pa2);
  if (!collide) b2 ^= 0x1000;
  fscost_stack s1 = stack_of({x, a, b}), s2 = stack_of({x, a2, b2});
  EXPECT_EQ(fscost_stack_hash(&s1) == fscost_stack_hash(&s2), collide);
  Spinners spinners(a, b, a2, b2);
  if (spinners.pid() < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return {};
  }
  return record({"--user-stacks", "-p", std::to_string(spinners.pid()), "-d", "2"},
                collide ? "collide" : "apart");
}

// Two stacks that share their 64-bit key (word-wise FNV-1a is easy to
// collide on purpose): whichever is stored first keeps the key, the other's
// samples are counted as collisions instead of being merged into it.
TEST(BpfDrops, StackHashCollisionIsCountedNotMerged) {
  FSCOST_REQUIRE_ROOT();
  Reported collided = record_spinners(true);
  ASSERT_FALSE(collided.report.is_discarded());
  EXPECT_GT(collided.drop("stack_hash_collision"), 100u) << "about one of every two samples";
  EXPECT_NE(collided.text.find("stack_hash_collision"), std::string::npos) << collided.text;

  Reported apart = record_spinners(false);
  ASSERT_FALSE(apart.report.is_discarded());
  EXPECT_EQ(apart.drop("stack_hash_collision"), 0u);
  EXPECT_GT(apart.report.value("samples_total", std::uint64_t{0}), 1000u)
      << "two threads spun for 2 s: the sampler saw them";
}
#endif

}  // namespace
}  // namespace fscost

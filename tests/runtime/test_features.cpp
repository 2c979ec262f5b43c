// The feature probe against the real kernel. What must hold on the dev/CI
// machines (docs/FEATURES.md) is asserted; what other kernels may allow
// (fentry, kprobes) only has to come with a reason when absent.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "symbols/kallsyms.h"
#include "collector/kernel_features.h"
#include "support.h"

namespace fscost {
namespace {

TEST(Features, ProbeFindsWhatFscostNeeds) {
  FSCOST_REQUIRE_ROOT();
  Features f = Features::probe();
  EXPECT_TRUE(f.root);
  EXPECT_TRUE(f.can_load_bpf) << f.reason("bpf");
  EXPECT_TRUE(f.btf) << f.reason("btf");
  EXPECT_TRUE(f.tracefs) << f.reason("tracefs");
  EXPECT_TRUE(f.tracepoint_prog) << f.reason("tracepoint");
  EXPECT_TRUE(f.raw_tp) << f.reason("raw_tp");
  EXPECT_TRUE(f.tp_btf) << f.reason("tp_btf");
  // Without it every default recording below would quietly take the raw_tp
  // fallback, and the task-storage path would go untested.
  EXPECT_TRUE(f.task_storage) << f.reason("task_storage");
  EXPECT_TRUE(f.perf_event_cpu_clock) << f.reason("cpu-clock");
  EXPECT_TRUE(f.perf_event_prog) << f.reason("perf_event");
  EXPECT_TRUE(f.stack_trace_map) << f.reason("stack_trace map");
  EXPECT_TRUE(f.kallsyms) << f.reason("kallsyms");
  for (const char* tp : {"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch",
                         "lock:contention_begin", "lock:contention_end"})
    EXPECT_TRUE(f.has_tracepoint(tp)) << tp << ": " << f.reason(tp);
  EXPECT_TRUE(check_can_record(f)) << describe(f);
}

// The switch the fallback tests use: a listed feature reads as absent, with why.
TEST(Features, DisabledByEnvironment) {
  FSCOST_REQUIRE_ROOT();
  ::setenv("FSCOST_DISABLE_FEATURES", "task_storage,tp_btf", 1);
  Features f = Features::probe();
  ::unsetenv("FSCOST_DISABLE_FEATURES");
  EXPECT_FALSE(f.task_storage);
  EXPECT_FALSE(f.tp_btf);
  EXPECT_EQ(f.reason("task_storage"), "disabled by FSCOST_DISABLE_FEATURES");
  EXPECT_TRUE(f.raw_tp) << f.reason("raw_tp");
  EXPECT_TRUE(check_can_record(f)) << describe(f);
}

TEST(Features, EveryNoHasAReason) {
  FSCOST_REQUIRE_ROOT();
  Features f = Features::probe();
  // Refused here (fentry: EPERM; kprobes: CONFIG_KPROBES off), maybe not elsewhere.
  auto has_reason_if_no = [&](bool yes, const std::string& key) {
    EXPECT_TRUE(yes || !f.reason(key).empty()) << key << " is no without a reason";
  };
  has_reason_if_no(f.fentry, "fentry");
  has_reason_if_no(f.kprobes, "kprobes");
  has_reason_if_no(f.task_storage, "task_storage");
  has_reason_if_no(f.kallsyms_data, "kallsyms data");
  for (const auto& [tp, present] : f.tracepoints) has_reason_if_no(present, tp);
  std::string d = describe(f);
  EXPECT_NE(d.find("fentry:"), std::string::npos) << d;
  EXPECT_EQ(d.find("no\n"), std::string::npos) << "a bare no without reason:\n" << d;
}

TEST(Features, GetProbesOnce) {
  FSCOST_REQUIRE_ROOT();
  const Features& a = Features::get();
  const Features& b = Features::get();
  EXPECT_EQ(&a, &b);
  EXPECT_TRUE(a.can_load_bpf) << a.reason("bpf");
}

TEST(Kallsyms, RealKernelResolvesAKnownFunction) {
  FSCOST_REQUIRE_ROOT();
  auto k = Kallsyms::load();
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_GT(k.value().size(), 1000u);
  // Find vfs_unlink's address by name in the file, then resolve it back.
  std::ifstream in("/proc/kallsyms");
  std::string line, addr, type, name;
  uint64_t vfs_unlink = 0;
  while (std::getline(in, line)) {
    std::istringstream(line) >> addr >> type >> name;
    if (name == "vfs_unlink") vfs_unlink = std::stoull(addr, nullptr, 16);
  }
  ASSERT_NE(vfs_unlink, 0u);
  EXPECT_EQ(k.value().format(vfs_unlink + 4), "vfs_unlink");
}

}  // namespace
}  // namespace fscost

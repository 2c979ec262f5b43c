// The feature probe against the real kernel. What must hold on the dev/CI
// machines (docs/FEATURES.md) is asserted; what other kernels may allow
// (fentry, kprobes) only has to come with a reason when absent.
#include <gtest/gtest.h>

#include <sys/utsname.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <bpf/libbpf.h>

#include <memory>

#include "collector/kernel_features.h"
#include "fscost_bpf.skel.h"
#include "support.h"
#include "symbols/kallsyms.h"

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
  EXPECT_TRUE(f.kallsyms) << f.reason("kallsyms");
  for (const char* tp : {"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch",
                         "lock:contention_begin", "lock:contention_end"})
    EXPECT_TRUE(f.has_tracepoint(tp)) << tp << ": " << f.reason(tp);
  EXPECT_TRUE(check_can_record(f)) << describe(f);
}

// Asserted from the real object, not from a list: every map type fscost
// declares loads here, and every program's flavour is one the probe found.
TEST(Features, KernelHasEveryMapTypeAndFlavourFscostUses) {
  FSCOST_REQUIRE_ROOT();
  Features f = Features::probe();
  std::unique_ptr<fscost_bpf, void (*)(fscost_bpf*)> skel(fscost_bpf__open(), fscost_bpf__destroy);
  ASSERT_TRUE(skel) << "cannot open the BPF object";
  bpf_map* m;
  int maps = 0;
  bpf_object__for_each_map(m, skel->obj) {
    if (bpf_map__is_internal(m)) continue;  // .bss/.rodata: plain arrays
    ++maps;
    EXPECT_EQ(libbpf_probe_bpf_map_type(bpf_map__type(m), nullptr), 1) << bpf_map__name(m);
  }
  EXPECT_GE(maps, 10);
  const std::pair<std::string_view, bool> flavours[] = {{"tp_btf/", f.tp_btf},
                                                        {"raw_tp/", f.raw_tp},
                                                        {"tracepoint/", f.tracepoint_prog},
                                                        {"perf_event", f.perf_event_prog}};
  bpf_program* p;
  bpf_object__for_each_program(p, skel->obj) {
    std::string_view section = bpf_program__section_name(p);
    bool known = false;
    for (const auto& [prefix, present] : flavours) {
      if (!section.starts_with(prefix)) continue;
      known = true;
      EXPECT_TRUE(present) << bpf_program__name(p) << ": " << section;
    }
    EXPECT_TRUE(known) << bpf_program__name(p) << ": no probe covers " << section;
  }
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
  has_reason_if_no(f.task_storage_in_locks, "task_storage in locks");
  has_reason_if_no(f.kallsyms_data, "kallsyms data");
  for (const auto& [tp, present] : f.tracepoints) has_reason_if_no(present, tp);
  std::string d = describe(f);
  EXPECT_NE(d.find("fentry:"), std::string::npos) << d;
  EXPECT_EQ(d.find("no\n"), std::string::npos) << "a bare no without reason:\n" << d;
}

// The allocator is read from BTF; here it is checked against what the
// kernel's version says: bpf_mem_alloc backs task storage from Linux 6.4
// (6.18 here: yes; Debian 12's 6.1 in tests/vm: no). Record's flavour
// follows it: tp_btf and task storage only where that is safe.
TEST(Features, TaskStorageInLocksFollowsTheAllocator) {
  FSCOST_REQUIRE_ROOT();
  Features f = Features::probe();
  ASSERT_TRUE(f.task_storage) << f.reason("task_storage");
  utsname u{};
  ASSERT_EQ(::uname(&u), 0);
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(u.release, "%d.%d", &major, &minor), 2) << u.release;
  bool mem_alloc = major > 6 || (major == 6 && minor >= 4);
  std::string why = f.reason("task_storage in locks");
  EXPECT_EQ(f.task_storage_in_locks, mem_alloc) << u.release << ": " << why;
  if (!f.task_storage_in_locks) {
    EXPECT_NE(why.find("kmalloc"), std::string::npos) << why;
  }
  std::string d = describe(f);
  EXPECT_NE(d.find("task_storage in locks:"), std::string::npos) << d;
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

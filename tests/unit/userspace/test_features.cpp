#include <gtest/gtest.h>

#include <sstream>

#include "collector/kernel_features.h"
#include "collector/tracefs.h"

namespace fscost {
namespace {

// The development machines (docs/FEATURES.md), built by hand.
Features like_dev_machine() {
  Features f;
  f.root = f.can_load_bpf = f.btf = f.tracefs = true;
  f.tracefs_root = "/sys/kernel/tracing";
  f.tracepoint_prog = f.raw_tp = f.tp_btf = f.perf_event_prog = f.perf_event_cpu_clock = true;
  f.stack_trace_map = f.ringbuf = f.task_storage = f.kallsyms = true;
  f.why["fentry"] = "program load: Operation not permitted";
  f.why["kprobes"] =
      "no kprobe PMU: /sys/bus/event_source/devices/kprobe missing; CONFIG_KPROBES off?";
  f.why["kallsyms data"] = "CONFIG_KALLSYMS_ALL off";
  for (const auto& tp : probed_tracepoints()) f.tracepoints[tp] = true;
  return f;
}

Features without_bpf() {
  Features f;
  f.why["root"] = "not running as root";
  f.why["bpf"] = "not permitted to load BPF programs: need root, or CAP_BPF + CAP_PERFMON";
  return f;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Features, DescribeGivesWhyForEveryNo) {
  std::string d = describe(like_dev_machine());
  EXPECT_TRUE(contains(d, "fentry:")) << d;
  EXPECT_TRUE(contains(d, "no (program load: Operation not permitted)")) << d;
  EXPECT_TRUE(contains(d, "no (no kprobe PMU: /sys/bus/event_source/devices/kprobe missing"));
  EXPECT_TRUE(contains(d, "raw_syscalls:sys_enter:")) << d;
  EXPECT_TRUE(contains(d, "fscost record: can run")) << d;
}

TEST(Features, DescribeShowsTracefsNote) {
  Features f = like_dev_machine();
  f.tracefs_note = "mounted tracefs at /sys/kernel/tracing (it was not mounted)";
  EXPECT_TRUE(contains(describe(f), "yes (/sys/kernel/tracing; mounted tracefs at"));
}

TEST(Features, DevMachineCanRecord) { EXPECT_TRUE(check_can_record(like_dev_machine())); }

TEST(Features, RecordWithoutBpfNamesTheCapability) {
  auto r = check_can_record(without_bpf());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "not permitted to load BPF programs: need root, or CAP_BPF + CAP_PERFMON");
  EXPECT_TRUE(contains(r.error().hint, "run as root")) << r.error().hint;
  std::string d = describe(without_bpf());
  EXPECT_TRUE(contains(d, "fscost record: cannot run: not permitted")) << d;
}

TEST(Features, RecordWithoutSyscallTracepoint) {
  Features f = like_dev_machine();
  f.tracepoints["raw_syscalls:sys_exit"] = false;
  f.why["raw_syscalls:sys_exit"] = "no /sys/kernel/tracing/events/raw_syscalls/sys_exit";
  auto r = check_can_record(f);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "missing tracepoint raw_syscalls:sys_exit: no "
            "/sys/kernel/tracing/events/raw_syscalls/sys_exit");
}

TEST(Features, RecordWithoutPerfEvents) {
  Features f = like_dev_machine();
  f.perf_event_cpu_clock = false;
  f.why["cpu-clock"] = "perf_event_open(cpu-clock): Permission denied";
  auto r = check_can_record(f);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "no perf events: perf_event_open")) << r.error().message;
}

TEST(Features, RecordFallsBackToRawTp) {
  Features f = like_dev_machine();
  f.tp_btf = false;
  EXPECT_TRUE(check_can_record(f));
  f.raw_tp = false;
  EXPECT_FALSE(check_can_record(f));
}

// fscost stores stacks in a hash (not a stack-trace map) and reads
// aggregates after the run (no ring buffer): neither may block a recording.
TEST(Features, RecordNeedsNoStackTraceMapNorRingbuf) {
  Features f = like_dev_machine();
  f.stack_trace_map = f.ringbuf = false;
  EXPECT_TRUE(check_can_record(f));
  f.task_storage = false;  // the raw_tp flavour keeps per-thread state in a hash
  EXPECT_TRUE(check_can_record(f));
}

TEST(Features, HasTracepoint) {
  Features f = like_dev_machine();
  EXPECT_TRUE(f.has_tracepoint("lock:contention_begin"));
  EXPECT_FALSE(f.has_tracepoint("nope:nothing"));
}

TEST(Tracefs, FindsPreferredMount) {
  std::istringstream mounts(
      "sysfs /sys sysfs rw 0 0\n"
      "tracefs /mnt/my\\040trace tracefs rw 0 0\n"
      "tracefs /sys/kernel/debug/tracing tracefs rw 0 0\n"
      "nodev /sys/kernel/tracing tracefs rw 0 0\n");
  EXPECT_EQ(find_tracefs_mount(mounts), "/sys/kernel/tracing");
}

TEST(Tracefs, UnescapesOtherMounts) {
  std::istringstream mounts("tracefs /mnt/my\\040trace tracefs rw 0 0\n");
  EXPECT_EQ(find_tracefs_mount(mounts), "/mnt/my trace");
}

TEST(Tracefs, NoMount) {
  std::istringstream mounts("sysfs /sys sysfs rw 0 0\ndebugfs /sys/kernel/debug debugfs rw 0 0\n");
  EXPECT_FALSE(find_tracefs_mount(mounts));
}

}  // namespace
}  // namespace fscost

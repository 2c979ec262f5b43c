// perf script import: a trimmed real `perf record -a -g` of a create/unlink/
// mkdir/rmdir loop (tests/data/formats/perf-script-x86_64.txt, perf 6.1 on
// Linux 6.18), hand-written variants of the format, and malformed input.
#include "io/perf_script.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "fixture.h"
#include "report/report.h"

namespace fscost {
namespace {

using Frames = std::vector<std::string>;

std::string fixture_text() {
  auto text = read_whole_file(test::data_path("formats/perf-script-x86_64.txt"), "fixture");
  EXPECT_TRUE(text) << text.error().message;
  return text ? text.value() : "";
}

Profile import_ok(std::string_view text, const PerfScriptOptions& opt = {}) {
  auto r = import_perf_script(text, "t.txt", opt);
  EXPECT_TRUE(r) << r.error().message;
  return r ? r.value() : Profile{};
}

std::string import_error(std::string_view text, const PerfScriptOptions& opt = {}) {
  auto r = import_perf_script(text, "t.txt", opt);
  if (r) return "imported";
  EXPECT_FALSE(r.error().hint.empty()) << r.error().message;
  return r.error().message;
}

const StackSample* find(const Profile& p, SampleKind kind, const std::string& name) {
  for (const auto& s : p.samples)
    if (s.kind == kind && s.name == name) return &s;
  return nullptr;
}

std::uint64_t total(const Profile& p, SampleKind kind, const std::string& name = "") {
  std::uint64_t n = 0;
  for (const auto& s : p.samples)
    if (s.kind == kind && (name.empty() || s.name == name)) n += s.count;
  return n;
}

TEST(PerfScript, RealFixtureMetadata) {
  Profile p = import_ok(fixture_text());
  EXPECT_EQ(p.meta.target, "perf-script");
  EXPECT_EQ(p.meta.command, "t.txt");
  EXPECT_EQ(p.meta.hostname, "vm");
  EXPECT_EQ(p.meta.kernel_release, "6.18.44-fc-v657");
  EXPECT_EQ(p.meta.cpus, 2u);
  EXPECT_EQ(p.meta.freq_hz, 997u);                // period 1003009 ns
  EXPECT_EQ(p.meta.duration_ns, 4'676'036'000u);  // 4195.444041 .. 4200.120077
  EXPECT_EQ(p.meta.probes, (Frames{"cpu-clock:pppH (perf record)"}));
  EXPECT_EQ(p.samples_total, 17u);  // 2 of them idle (swapper)
  EXPECT_EQ(p.drops.at("perf_no_stack"), 0u);
  EXPECT_FALSE(p.rusage.valid);
  EXPECT_TRUE(p.ops.empty());
}

TEST(PerfScript, RealFixtureKindsAndOps) {
  Profile p = import_ok(fixture_text());
  EXPECT_EQ(total(p, SampleKind::Op), 10u);
  EXPECT_EQ(total(p, SampleKind::Op, "mkdir"), 3u);
  EXPECT_EQ(total(p, SampleKind::Op, "open"), 2u);  // openat(O_CREAT): flags are not sampled
  EXPECT_EQ(total(p, SampleKind::Op, "unlink"), 1u);
  EXPECT_EQ(total(p, SampleKind::Op, "rmdir"), 1u);
  EXPECT_EQ(total(p, SampleKind::Op, "other"), 3u);  // exit_group, bpf, sys_enter BPF prog
  EXPECT_EQ(total(p, SampleKind::User), 3u);
  EXPECT_EQ(total(p, SampleKind::Kernel), 1u);
  EXPECT_EQ(total(p, SampleKind::Kthread), 1u);
  for (const auto& s : p.samples)
    for (const auto& f : s.frames) EXPECT_EQ(f.str().find("+0x"), std::string::npos) << f;
}

TEST(PerfScript, RealFixtureFramesOutermostFirst) {
  Profile p = import_ok(fixture_text());
  // Two samples with the same kernel stack (different pids) merge.
  const StackSample* mkdir = nullptr;
  for (const auto& s : p.samples)
    if (s.name == "mkdir" && s.count == 2) mkdir = &s;
  ASSERT_NE(mkdir, nullptr);
  EXPECT_EQ(mkdir->kind, SampleKind::Op);
  EXPECT_EQ(mkdir->frames,
            (Stack{"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_mkdir",
                   "do_mkdirat", "vfs_mkdir", "ext4_mkdir", "__ext4_new_inode", "find_inode_bit",
                   "recently_deleted"}));  // user frames (libc __GI___mkdir) left out

  const StackSample* kthread = find(p, SampleKind::Kthread, "kworker/1:1H-kb");
  ASSERT_NE(kthread, nullptr);
  ASSERT_GE(kthread->frames.size(), 3u);
  EXPECT_EQ(Stack(kthread->frames.begin(), kthread->frames.begin() + 3),
            (Stack{"ret_from_fork_asm", "ret_from_fork", "kthread"}));
  EXPECT_EQ(kthread->frames.back(), "iowrite16");

  const StackSample* fault = find(p, SampleKind::Kernel, "sh");
  ASSERT_NE(fault, nullptr);
  EXPECT_EQ(fault->frames,
            (Stack{"asm_exc_page_fault", "exc_page_fault", "handle_mm_fault", "__handle_mm_fault",
                   "do_wp_page", "__pte_offset_map_lock", "_raw_spin_lock"}));

  const StackSample* rm = find(p, SampleKind::User, "rm");
  ASSERT_NE(rm, nullptr);
  EXPECT_EQ(rm->frames, (Stack{"update_active.constprop.0"}));
  const StackSample* sh = find(p, SampleKind::User, "sh");
  ASSERT_NE(sh, nullptr);
  EXPECT_EQ(sh->frames, (Stack{"[unknown]", "__memmove_avx512_unaligned_erms"}));
  // Unknown symbols in a known dso are named by the dso; the comm has a ':'.
  const StackSample* memfd = find(p, SampleKind::User, "memfd:sealed-91");
  ASSERT_NE(memfd, nullptr);
  EXPECT_EQ(memfd->frames, Stack(13, "[memfd:sealed-91173221a7ea (deleted)]"));
}

// The whole import, as folded stacks; FSCOST_BLESS=1 rewrites it.
TEST(PerfScript, RealFixtureGolden) {
  test::expect_golden("formats/perf-script-x86_64.folded",
                      render_folded(import_ok(fixture_text()), {}));
}

TEST(PerfScript, SyscallFramesToOps) {
  auto op = [](Frames f) { return op_from_kernel_stack(f); };
  const Frames entry = {"entry_SYSCALL_64", "do_syscall_64"};
  auto in_syscall = [&](Frames tail) {
    Frames f = entry;
    f.insert(f.end(), tail.begin(), tail.end());
    return op(f);
  };
  EXPECT_EQ(in_syscall({"__x64_sys_unlinkat", "do_unlinkat"}), Op::Unlink);
  EXPECT_EQ(in_syscall({"__x64_sys_unlinkat", "do_rmdir", "vfs_rmdir"}), Op::Rmdir);
  EXPECT_EQ(in_syscall({"__x64_sys_openat", "do_sys_openat2", "xfs_generic_create"}), Op::Open);
  EXPECT_EQ(in_syscall({"__x64_sys_creat"}), Op::Create);
  EXPECT_EQ(in_syscall({"__x64_sys_renameat2", "do_renameat2"}), Op::Rename);
  EXPECT_EQ(in_syscall({"__x64_sys_newfstatat", "vfs_fstatat"}), Op::Stat);
  EXPECT_EQ(in_syscall({"__x64_sys_fdatasync", "do_fsync"}), Op::Fdatasync);
  EXPECT_EQ(in_syscall({"__x64_sys_bpf", "__sys_bpf"}), Op::Other);
  // No wrapper frame: the helpers decide, outermost first.
  EXPECT_EQ(in_syscall({"x64_sys_call", "do_sys_openat2", "ksys_write"}), Op::Open);
  EXPECT_EQ(in_syscall({"x64_sys_call", "do_fsync"}), Op::Fsync);
  EXPECT_EQ(in_syscall({"syscall_trace_enter", "bpf_trace_run2"}), Op::Other);
  // Generic sys_ names count only above a syscall entry.
  EXPECT_EQ(in_syscall({"sys_write"}), Op::Write);
  EXPECT_EQ(op({"worker_thread", "sys_imageblit"}), std::nullopt);
  // Other architectures.
  EXPECT_EQ(op({"el0_svc", "do_el0_svc", "invoke_syscall", "__arm64_sys_fsync"}), Op::Fsync);
  EXPECT_EQ(op({"el0_svc", "do_el0_svc", "invoke_syscall", "__arm64_sys_mkdirat"}), Op::Mkdir);
  // Not in a syscall.
  EXPECT_EQ(op({"asm_exc_page_fault", "exc_page_fault", "handle_mm_fault"}), std::nullopt);
  EXPECT_EQ(op({}), std::nullopt);
}

// perf without -g: the ip is on the header line (comm right-aligned) and
// no blank line separates samples.
TEST(PerfScript, SamplesWithoutCallchains) {
  Profile p = import_ok(
      "            perf  1234 [000]   100.000100:     250000 cpu-clock: "
      " ffffffff81000000 native_write_msr+0x4 ([kernel.kallsyms])\n"
      "            perf  1234 [001]   100.000350:     250000 cpu-clock: "
      " ffffffff81000000 native_write_msr+0x4 ([kernel.kallsyms])\n"
      "         swapper     0 [001]   100.000600:     250000 cpu-clock: "
      " ffffffff81000100 default_idle+0x4 ([kernel.kallsyms])\n");
  EXPECT_EQ(p.samples_total, 3u);
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].kind, SampleKind::Kernel);
  EXPECT_EQ(p.samples[0].name, "perf");
  EXPECT_EQ(p.samples[0].frames, (Stack{"native_write_msr"}));
  EXPECT_EQ(p.samples[0].count, 2u);
  EXPECT_EQ(p.meta.freq_hz, 4000u);
  EXPECT_EQ(p.meta.duration_ns, 500'000u);
}

TEST(PerfScript, CommsWithSpacesPidTidAndCppSymbols) {
  Profile p = import_ok(
      "Web Content 2  4321/4322 [000]  10.5: 1000000 task-clock:ppp: \n"
      "\tffffffff81400000 vfs_read+0x1 ([kernel.kallsyms])\n"
      "\tffffffff81400100 ksys_read+0x20 ([kernel.kallsyms])\n"
      "\tffffffff81400200 __x64_sys_read+0x9 ([kernel.kallsyms])\n"
      "\tffffffff81400300 do_syscall_64+0x71 ([kernel.kallsyms])\n"
      "\t    7f0000001000 read+0x10 (/lib/libc.so.6)\n"
      "\n"
      "Web Content 2  4321/4322 [001]  10.501: 1000000 task-clock:ppp: \n"
      "\t    55e000001234 Foo::bar(int, char const*) const+0x12 (/usr/bin/app (deleted))\n"
      "\t    7f0000002000 [unknown] (/lib/libc.so.6)\n"
      "\t    7ffd00000700 [unknown] ([vdso])\n"
      "\t               0 [unknown] ([unknown])\n"
      "\n");
  EXPECT_EQ(p.samples_total, 2u);
  const StackSample* read = find(p, SampleKind::Op, "read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->frames, (Stack{"do_syscall_64", "__x64_sys_read", "ksys_read", "vfs_read"}));
  const StackSample* user = find(p, SampleKind::User, "Web Content 2");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->frames,
            (Stack{"[unknown]", "[vdso]", "[libc.so.6]", "Foo::bar(int, char const*) const"}));
  EXPECT_EQ(p.meta.freq_hz, 1000u);
}

const char* kTwoEvents =
    "app 10 [000] 1.000000: 1000000 cpu-clock: \n"
    "\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n"
    "\n"
    "app 10 [000] 1.000100: 1 sched:sched_switch: prev_comm=app prev_pid=10 ==> next_comm=x\n"
    "\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n"
    "\tffffffff81000100 do_nanosleep+0x1 ([kernel.kallsyms])\n"
    "\n"
    "app 10 [000] 1.001000: 1000000 cpu-clock: \n"
    "\n";

TEST(PerfScript, OneEventAtATime) {
  EXPECT_EQ(import_error(kTwoEvents),
            "t.txt: samples of 2 events (cpu-clock, sched:sched_switch); fscost imports one at a "
            "time");
  PerfScriptOptions opt;
  opt.event = "cpu-clock";
  Profile p = import_ok(kTwoEvents, opt);
  EXPECT_EQ(p.samples_total, 2u);
  EXPECT_EQ(total(p, SampleKind::Kernel, "app"), 1u);
  EXPECT_EQ(p.drops.at("perf_no_stack"), 1u);  // the third sample has no frames
  opt.event = "sched:sched_switch";
  p = import_ok(kTwoEvents, opt);
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].frames, (Stack{"do_nanosleep", "schedule"}));
  EXPECT_EQ(p.meta.freq_hz, 0u);  // a tracepoint's period is no clock
  opt.event = "sched";
  EXPECT_EQ(import_error(kTwoEvents, opt),
            "t.txt: no samples of event sched (the file has cpu-clock, sched:sched_switch)");
}

TEST(PerfScript, MalformedInputNamesTheLine) {
  EXPECT_EQ(import_error("\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n"),
            "t.txt:1: a stack frame outside a sample");
  EXPECT_EQ(import_error("app 10 [000] 1.0: 1 cpu-clock: \n"
                         "\tffffffff81000000 schedule ([kernel.kallsyms])\n"
                         "\n"
                         "hello world\n"),
            "t.txt:4: not a perf script sample header: \"hello world\"");
  EXPECT_EQ(import_error("app 10 [000] 1.0: 1 cpu-clock: \n\tzzz foo (bar)\n"),
            "t.txt:2: not a stack frame: \"zzz foo (bar)\"");
  EXPECT_EQ(import_error("app 10 [000] 1.0: 1 \n"),
            "t.txt:1: not a perf script sample header: \"app 10 [000] 1.0: 1 \"");
  EXPECT_EQ(import_error("app [000] 1.0: 1 cpu-clock:\n"),
            "t.txt:1: not a perf script sample header: \"app [000] 1.0: 1 cpu-clock:\"");
  EXPECT_EQ(import_error(""), "t.txt: no samples");
  EXPECT_EQ(import_error("# hostname : vm\n#\n\n"), "t.txt: no samples");
  EXPECT_EQ(import_error(std::string("PERFILE2\0\0\0", 11)),
            "t.txt: is a perf.data file, not perf script text");
}

// Cut or corrupted real input: a value or an error, never a crash.
TEST(PerfScript, DamagedInputNeverCrashes) {
  const std::string text = fixture_text();
  ASSERT_FALSE(text.empty());
  std::mt19937 rng(7);
  std::size_t ok = 0, failed = 0;
  for (int i = 0; i < 400; ++i) {
    std::string s = text.substr(0, rng() % text.size());
    for (int flips = rng() % 8; flips > 0 && !s.empty(); --flips)
      s[rng() % s.size()] = "\t \n:[]()+x0f"[rng() % 12];
    auto r = import_perf_script(s, "cut");
    if (r) {
      ++ok;
      std::uint64_t kept = 0;
      for (const auto& smp : r.value().samples) kept += smp.count;
      EXPECT_LE(kept, r.value().samples_total);
    } else {
      ++failed;
      EXPECT_TRUE(r.error().message.starts_with("cut")) << r.error().message;
    }
  }
  EXPECT_GT(ok, 0u);
  EXPECT_GT(failed, 0u);
}

}  // namespace
}  // namespace fscost

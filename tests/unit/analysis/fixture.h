// Shared test data: a literal profile, profile comparison, golden files and
// temporary directories. Header-only; included by the analysis tests.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "model/file_io.h"
#include "model/profile.h"
#include "report/report.h"

namespace fscost::test {

// Whether `text` has `line` as one whole line.
inline bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// Report options for one view, optionally one operation.
inline ReportOptions view_options(const std::string& view,
                                  std::optional<std::string> op = std::nullopt) {
  ReportOptions opt;
  opt.view = take(parse_view(view));
  opt.op = std::move(op);
  return opt;
}

inline std::vector<std::uint64_t> one_bucket(std::size_t bucket, std::uint64_t count) {
  std::vector<std::uint64_t> h(kLatencyBuckets, 0);
  h[bucket] = count;
  return h;
}

inline const Stack kSyscall = {"entry_SYSCALL_64", "do_syscall_64"};

inline Stack stack(Stack tail) {
  Stack s = kSyscall;
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

// A small recording of `fsops create 1000`: three ops with statistics, one
// (fsync) with samples only, every sample kind, one non-zero drop.
inline Profile sample_profile() {
  Profile p;
  p.meta = {"0.1.0",
            "6.8.0-test",
            "testhost",
            4,
            "command",
            "fsops create 1000",
            1700000000123456789,
            2'000'000'000,
            999,
            {"raw_syscalls:sys_enter (tp_btf)", "raw_syscalls:sys_exit (tp_btf)",
             "sched:sched_switch (tp_btf)", "cpu-clock (perf_event)"}};
  p.rusage = {true, 100'000'000, 800'000'000, 2'100'000'000};
  p.ops = {
      {"create", 1000, 2, 600'000'000, 500'000'000, one_bucket(19, 1000)},
      {"unlink", 500, 0, 200'000'000, 150'000'000, one_bucket(18, 500)},
      {"other", 40, 0, 60'000'000, 50'000'000, one_bucket(20, 40)},
  };
  auto create = stack({"__x64_sys_openat", "do_sys_openat2", "path_openat"});
  auto with = [](Stack s, Stack tail) {
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  p.samples = {
      {SampleKind::Op, "create", with(create, {"xfs_generic_create", "xfs_create"}), 300},
      {SampleKind::Op, "create",
       with(create, {"xfs_generic_create", "xfs_create", "xfs_trans_alloc"}), 150},
      {SampleKind::Op, "create", with(create, {"lookup_open"}), 50},
      {SampleKind::Op, "unlink",
       stack({"__x64_sys_unlink", "do_unlinkat", "vfs_unlink", "xfs_vfs_unlink", "xfs_remove"}),
       100},
      {SampleKind::Op, "fsync", stack({"__x64_sys_fsync", "xfs_file_fsync"}), 5},
      {SampleKind::User, "fsops", {}, 80},
      {SampleKind::Kernel,
       "fsops",
       {"asm_exc_page_fault", "exc_page_fault", "handle_mm_fault"},
       20},
      {SampleKind::Kthread,
       "kworker/u8:1",
       {"ret_from_fork", "kthread", "worker_thread", "xfs_end_io"},
       30},
      {SampleKind::Kthread, "xfsaild/loop0", {"ret_from_fork", "kthread", "xfsaild"}, 10},
  };
  p.samples_total = 1000;
  p.drops = {{"prog_missed", 0},        {"sample_map_full", 0}, {"stack_map_full", 3},
             {"stack_other_errors", 0}, {"task_map_full", 0},   {"tracked_map_full", 0}};
  return p;
}

inline void expect_same_profile(const Profile& a, const Profile& b) {
  auto meta = [](const Metadata& m) {
    return std::tie(m.fscost_version, m.kernel_release, m.hostname, m.cpus, m.target, m.command,
                    m.start_unix_ns, m.duration_ns, m.freq_hz, m.probes);
  };
  EXPECT_EQ(meta(a.meta), meta(b.meta));
  auto rusage = [](const Rusage& r) { return std::tie(r.valid, r.user_ns, r.sys_ns, r.wall_ns); };
  EXPECT_EQ(rusage(a.rusage), rusage(b.rusage));
  auto op = [](const OpStats& o) {
    return std::tie(o.name, o.count, o.errors, o.wall_ns, o.oncpu_ns, o.latency_log2, o.offcpu_ns,
                    o.fs_events, o.trans_min, o.trans_max);
  };
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) EXPECT_EQ(op(a.ops[i]), op(b.ops[i])) << i;
  auto sample = [](const StackSample& s) { return std::tie(s.kind, s.name, s.frames, s.count); };
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i)
    EXPECT_EQ(sample(a.samples[i]), sample(b.samples[i])) << i;
  EXPECT_EQ(a.samples_total, b.samples_total);
  EXPECT_EQ(a.drops, b.drops);
  auto offcpu = [](const OffCpuStack& s) {
    return std::tie(s.kind, s.name, s.wait_class, s.frames, s.waker_frames, s.waker, s.count,
                    s.total_ns);
  };
  ASSERT_EQ(a.offcpu.size(), b.offcpu.size());
  for (std::size_t i = 0; i < a.offcpu.size(); ++i)
    EXPECT_EQ(offcpu(a.offcpu[i]), offcpu(b.offcpu[i])) << i;
  auto lock = [](const LockStat& s) {
    return std::tie(s.kind, s.name, s.address, s.symbol, s.flags, s.frames, s.count, s.total_ns,
                    s.max_ns, s.spin_ns, s.sleep_ns);
  };
  ASSERT_EQ(a.locks.size(), b.locks.size());
  for (std::size_t i = 0; i < a.locks.size(); ++i)
    EXPECT_EQ(lock(a.locks[i]), lock(b.locks[i])) << i;
  EXPECT_EQ(a.background_fs_events, b.background_fs_events);
  EXPECT_EQ(a.device_write_bytes, b.device_write_bytes);
  EXPECT_EQ(a.kthread_fs_events, b.kthread_fs_events);
  EXPECT_EQ(a.fs_events_other_fs, b.fs_events_other_fs);
  EXPECT_EQ(a.fs_write_bytes, b.fs_write_bytes);
  EXPECT_EQ(a.prog_missed_by, b.prog_missed_by);
  ASSERT_EQ(a.bpf_programs.size(), b.bpf_programs.size());
  for (std::size_t i = 0; i < a.bpf_programs.size(); ++i) {
    EXPECT_EQ(a.bpf_programs[i].name, b.bpf_programs[i].name);
    EXPECT_EQ(a.bpf_programs[i].runs, b.bpf_programs[i].runs);
    EXPECT_EQ(a.bpf_programs[i].run_ns, b.bpf_programs[i].run_ns);
  }
}

inline std::string data_path(const std::string& name) {
  return std::string(FSCOST_TEST_DATA) + "/" + name;
}

// Whether a golden and an output say the same: equal text between their
// numbers, and each number within a relative 1e-9 of the golden's (the last
// digits of a double move with the order of its sums and the libm that
// computed it; nothing a reader sees does).
inline bool golden_equal(std::string_view golden, std::string_view out) {
  auto number_at = [](std::string_view s, std::size_t i) {
    std::size_t j = i;
    if (j < s.size() && s[j] == '-') ++j;
    std::size_t digits = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == digits) return std::size_t{0};
    if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
      ++j;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    }
    if (j + 1 < s.size() && (s[j] == 'e' || s[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
      if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        j = k;
      }
    }
    return j - i;
  };
  std::size_t i = 0, k = 0;
  while (i < golden.size() && k < out.size()) {
    // a number starts where the previous character is no part of a name
    bool start = i == 0 || !(std::isalnum(static_cast<unsigned char>(golden[i - 1])) ||
                             golden[i - 1] == '_' || golden[i - 1] == '.');
    std::size_t n = start ? number_at(golden, i) : 0, m = start ? number_at(out, k) : 0;
    if (n > 0 && m > 0) {
      std::string x(golden.substr(i, n)), y(out.substr(k, m));
      if (x != y) {
        double a = std::strtod(x.c_str(), nullptr), b = std::strtod(y.c_str(), nullptr);
        if (std::fabs(a - b) > 1e-9 * std::max(std::fabs(a), std::fabs(b))) return false;
      }
      i += n, k += m;
      continue;
    }
    if (golden[i] != out[k]) return false;
    ++i, ++k;
  }
  return i == golden.size() && k == out.size();
}

// Compares `actual` with tests/data/<name>. FSCOST_BLESS=1 rewrites the file
// instead; review the diff before committing it.
inline void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = data_path(name);
  if (const char* bless = std::getenv("FSCOST_BLESS"); bless && std::string(bless) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  auto expected = read_whole_file(path, "golden file");
  ASSERT_TRUE(expected) << expected.error().message << " (run with FSCOST_BLESS=1 to create it)";
  if (golden_equal(expected.value(), actual)) return;
  EXPECT_EQ(expected.value(), actual)
      << "output differs from " << path << "; if intended, rerun with FSCOST_BLESS=1";
}

// Display columns of UTF-8 text: one per code point ("µ" is one column).
inline std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Every line of `text` at most `width` columns, and more than ten lines.
inline void expect_fits(const std::string& text, std::size_t width) {
  std::istringstream in(text);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_LE(columns(line), width) << "line " << lines << ": " << line;
  }
  EXPECT_GT(lines, 10u);
}

// A fresh directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fscost-test.XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fscost::test

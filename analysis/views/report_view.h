// The derived view every report renderer shares, computed once from a
// profile: per-op rows with their top stacks, background samples, and the
// per-op vs rusage consistency check. Renderers only format it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"
#include "views/view.h"

namespace fscost {

struct StackShare {
  std::vector<std::string> frames;  // outermost first, leaf last
  std::uint64_t samples = 0;
};

struct OpRow {
  OpStats stats;                       // zeros if the op only has samples (none completed)
  std::uint64_t samples = 0;           // all Op samples of this op
  std::vector<StackShare> top_stacks;  // most samples first
};

struct NamedCount {
  std::string name;
  std::uint64_t samples = 0;
};

struct Background {
  std::uint64_t user_samples = 0;    // tracked tasks in user mode
  // Tracked tasks in the kernel outside any op's timestamps: faults,
  // interrupts, exit, and the syscall entry/exit path (Consistency).
  std::uint64_t kernel_samples = 0;
  std::vector<NamedCount> kthreads;  // most samples first
};

struct Consistency {
  std::uint64_t oncpu_ns_sum = 0;  // every op of the profile, "other" included
  std::optional<std::uint64_t> rusage_sys_ns;
  std::optional<double> ratio;  // oncpu_ns_sum / rusage_sys_ns
  // The recording was paused this long (Metadata::paused_ns) while rusage
  // went on counting: no ratio is taken then.
  std::uint64_t paused_ns = 0;
  // Kernel time inside syscalls but outside the per-op timestamps: the
  // tracked tasks' [kernel] samples on the syscall entry/exit path, where
  // fscost's own sys_enter/sys_exit programs run (is_syscall_path).
  std::uint64_t syscall_path_samples = 0;
  std::optional<double> syscall_path_ns;  // samples × 1e9 / freq_hz; nullopt without freq_hz
  // (oncpu_ns_sum + syscall_path_ns) / rusage_sys_ns.
  std::optional<double> ratio_with_syscall_path;
};

// Filesystem activity outside the per-op counters: background events and what
// reached the block devices.
struct FsEventSummary {
  std::map<std::string, std::uint64_t> background;  // Profile::background_fs_events
  std::map<std::string, std::uint64_t> device_write_bytes;
  std::uint64_t device_write_bytes_sum = 0;
  std::uint64_t fs_ops = 0;            // completed operations, every op except "other"
  std::optional<double> bytes_per_op;  // device_write_bytes_sum / fs_ops
};

struct ReportView {
  std::vector<OpRow> rows;  // by on-CPU total, descending; only --op if given
  Background background;
  Consistency consistency;
};

// Rows cover every operation with statistics, samples, off-CPU stacks or
// lock contention.
ReportView build_report_view(const Profile& p, const ReportOptions& opt);

FsEventSummary fs_event_summary(const Profile& p);

// Derived figures; nullopt where undefined rather than a misleading 0.
std::optional<double> ops_per_sec(const OpStats& o, const Metadata& m);
std::optional<double> per_op_ns(std::uint64_t total_ns, std::uint64_t count);
std::optional<double> per_op(std::uint64_t total, std::uint64_t count);  // any counter
// (on-CPU + off-CPU) / wall: 1 when the two probes account for every
// nanosecond of the operations; nullopt if wall is 0.
std::optional<double> on_off_agreement(const OpStats& o);
std::optional<double> sys_share(const OpStats& o, const Rusage& r);

}  // namespace fscost

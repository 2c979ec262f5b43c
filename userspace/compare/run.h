// One run of a compare: fresh mkfs with the configuration's options, mount,
// a recording of the workload, unmount. Every run records with the one
// Recorder the compare loaded (BPF loaded, verified and attached once; its
// maps emptied between runs), the way `fscost record` records.
#pragma once

#include <csignal>

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/options.h"
#include "compare/plan.h"

namespace fscost {

// SIGINT and SIGTERM during a compare: remembered, and forwarded to the
// running child's process group (which the terminal does not signal: the
// child has a group of its own). A second signal kills the group.
void install_compare_signal_handlers();
int compare_stop_signal();
inline constexpr int kCompareStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};  // 0, or the first SIGINT/SIGTERM received

class Recorder;
class FsPipeline;
class OwnedDir;  // system/owned_dir.h

struct RunContext {
  const CompareOptions* opts = nullptr;
  Recorder* recorder = nullptr;  // loaded and attached for the whole compare
  std::string workload_exe;      // fscost-workload (built-in workloads)
  // Every run's filesystem, made (one ahead with two slots) on the storage.
  FsPipeline* filesystems = nullptr;
  // The configuration of the run after the one being executed, when the
  // session knows it: its filesystem is made while this run's is written.
  std::optional<int> next_config;
  // -o, held (opts->output is its /proc/self/fd/N): errors name its files
  // by the user's path (OwnedDir::shown).
  const OwnedDir* out = nullptr;
  // Per configuration: "mkfs.xfs version 6.15.0", "mke2fs 1.47.0 (5-Feb-2023)".
  std::vector<std::string> mkfs_version;
  // fscost's own probe time per traced operation, from each configuration's
  // warm-up run (record --bpf-stats); "" when there was none.
  std::vector<std::string> tracer_ns_per_op;
  // The warm-up runs' (rep 0) workload when it is not the compare's: the
  // short one of --warmup auto (compare/warmup.h).
  std::optional<WorkloadSpec> warmup_workload;
  // xfs_info's text by what mkfs printed: the same geometry on the same
  // device shows the same text (xfs_info names the device, not the mount,
  // and prints no UUID or time), so it runs once per geometry, not once
  // per run (five processes, ~35 ms a run).
  mutable std::map<std::string, std::string> xfs_info_of_mkfs;
};

struct RunResult {
  PlannedRun plan;
  std::string profile;  // relative to -o DIR ("runs/t4/a/run-01.profile")
  std::string mkfs_cmd;
  std::string mkfs_output;  // the geometry mkfs printed
  std::string fs_info;      // xfs_info, dumpe2fs -h, ... of the mounted filesystem ("" if none ran)
  std::string mount_options;  // the kernel's, from /proc/self/mountinfo
  std::uint64_t fs_size_bytes = 0, fs_free_bytes = 0;  // statvfs after the workload
  // The machine while the run recorded (/proc/stat deltas, ns over all
  // CPUs) and what the workload (wait4) and fscost (getrusage) used.
  std::uint64_t machine_total_ns = 0, machine_busy_ns = 0, machine_steal_ns = 0;
  std::uint64_t record_cpu_ns = 0;
  // What a syncfs after the recording still wrote to the test device: dirty
  // data the run left behind. nullopt if the device's stat was unreadable.
  std::optional<std::uint64_t> written_after_bytes;
  std::vector<std::string> argv;  // the workload's
  std::string mount_dir;          // where this run's filesystem was mounted
  std::string device;             // and on which device (/dev/loopN)
  std::int64_t start_unix_ms = 0;
  double seconds = 0;        // wall time of the recording
  int exit_code = 0;         // the workload's
  bool interrupted = false;  // stopped by SIGINT/SIGTERM; its files are removed
  std::string error;         // why it failed; "" when it did not
  // Why it was discarded as a warm-up once the runs were done
  // (compare/warmup.h); "" while it counts.
  std::string late_warmup;
  std::string stderr_tail;   // last lines of the run's stderr, for error messages
  nlohmann::json workload;   // the workload's JSON line; null if none
  std::optional<double> ops_per_s;
  std::string ops_source;  // "workload" (its own JSON) or "profile" (ops / duration)

  bool ok() const { return !interrupted && error.empty() && late_warmup.empty(); }
  // The share of the vCPUs' time the host took while it recorded; 0 when
  // /proc/stat was unreadable.
  double steal_share() const {
    return machine_total_ns ? static_cast<double>(machine_steal_ns) / machine_total_ns : 0;
  }
};

// Runs one planned run into -o DIR; `tick` is called about every 100 ms
// while the workload runs (progress display). Never throws for a failed
// run: the failure is in RunResult::error.
RunResult execute_run(const RunContext& ctx, const PlannedRun& run,
                      const std::function<void()>& tick);

// fscost's probe time per traced operation in a profile recorded with
// --bpf-stats: every program's run time over every op; nullopt without.
struct Profile;
std::optional<double> tracer_ns_per_op(const Profile& p);

// Removes every file of `run` (a warm-up's): profile, .out, .err, .json.
void discard_run(const CompareOptions& o, const PlannedRun& run);

// The run as recorded in its .json file and in summary.json.
nlohmann::json run_json(const RunResult& r, const CompareOptions& o);

// The last `lines` non-empty lines of `text`.
std::string tail_lines(const std::string& text, std::size_t lines);

// The last line of `out` that parses as a JSON object; null if none.
nlohmann::json last_json_line(const std::string& out);

// fs_mark's result table (its "Files/sec" column, one row per loop):
// {"ops_per_s": mean, "fs_mark_rows": n, "files_per_s": [...]}; null when
// `out` has no such table.
nlohmann::json fs_mark_figures(const std::string& out);

}  // namespace fscost

// Private to the diff (diff.h): one run's figures, normalised per operation,
// the first stage of a diff. Every metric a Comparison is built from is
// read here and nowhere else, so "ns/op" means the same thing in every
// table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace fscost {

// One named lock (lock_rows) under one operation, per operation.
struct LockMetrics {
  double contentions = 0;  // per op
  double wait = 0;         // ns/op, begin → end
  double spin = 0;         // ns/op
  double sleep = 0;        // ns/op
  // ns/op of cpu-clock samples spinning optimistically on it (an rwsem
  // owner spin, spinning_lock), which the tracepoints never time.
  double optimistic_spin = 0;
  std::uint64_t count = 0; // contentions in the run (per_contention needs > 0)
  double per_contention = 0;  // ns per contention; meaningful only if count > 0
};

// Per-function values, sorted by name (Frame orders by text).
using FunctionValues = std::vector<std::pair<Frame, double>>;

// (lock_name, lock_type), as the report merges them.
using LockKey = std::pair<std::string, std::string>;

struct OpMetrics {
  double count = 0;     // completed operations
  double oncpu = 0;     // ns/op (sched_switch accounting)
  double offcpu = 0;    // ns/op
  std::map<std::string, double> offcpu_class;  // kWaitClasses → ns/op
  double spin = 0;      // ns/op, every traced lock
  double sleep = 0;     // ns/op, every traced lock
  double latency = 0;   // ns/op, entry to exit
  double rate = 0;      // ops/s over the recording; 0 without a duration
  // cpu-clock samples under the operation, as ns/op, sorted by function
  // name. Inclusive counts a function once per stack even if it recurses;
  // self is the leaf.
  FunctionValues incl, self;
  // The same per function family (function_family, "xfs_attr"), union-
  // inclusive: a stack counts once if any of its frames is in the family.
  // Sorted by name.
  std::vector<std::pair<std::string, double>> families;
  std::map<LockKey, LockMetrics> locks;
  // Filesystem events per op, by tracepoint ("xfs_trans_commit" → 2.0): exact counts.
  std::map<std::string, double> fs_events;
};

// One kernel-thread bucket's work in a run, per run.
struct BackgroundMetrics {
  double cpu = 0;        // ns, from cpu-clock samples
  double samples = 0;    // the samples behind cpu
  double offcpu = 0;     // ns off CPU inside work items (blocked or runnable)
  double lock_wait = 0;  // ns in contended locks, begin → end
  std::map<std::string, double> lock_by_name;  // the same per lock ("xfs_buf lock (AGF) [semaphore]")
  std::map<std::string, double> fs_events;     // events, by tracepoint
};

// The fields two configurations must share for a diff to mean what it says.
struct RunIdentity {
  std::string hostname;
  std::string kernel_release;
  std::uint32_t cpus = 0;
  std::uint32_t freq_hz = 0;
  std::vector<std::string> probes;  // sorted
  std::string command;  // path arguments (after argv[0]) masked as <path>
};

struct RunMetrics {
  std::map<std::string, OpMetrics> ops;  // ops with count > 0
  bool rusage_valid = false;
  double sys_ns = 0, user_ns = 0, wall_ns = 0;
  double user_share = 0;  // user / (user + sys), in %; 0 if no CPU time
  double kthread_ns = 0;  // kernel-thread cpu-clock samples as ns; 0 without freq_hz
  // Bytes written to the test filesystem's device (the one compare made it
  // on, from Profile::setup's mkfs command) during the recording; unknown
  // for profiles without a setup.
  std::optional<double> device_bytes;
  std::string device;  // that device's block-layer name (Profile::setup "device"); "" if unknown
  // The test device's writes by what they carried (Profile::fs_write_bytes:
  // "data", "metadata", "log"); empty when not recorded.
  std::map<std::string, double> device_bytes_by_kind;
  // Kernel threads per bucket and work function: the workqueue or thread
  // name as the recorder names them, and for a workqueue's worker the
  // function process_one_work ran ("xfs-conv/loop0: xfs_end_io",
  // "writeback: wb_workfn", "xfsaild/loop0").
  std::map<std::string, BackgroundMetrics> background;
  // fscost's probe time per traced op in this side's warm-up run
  // (Profile::setup tracer_ns_per_op); bytes a syncfs after the run wrote.
  std::optional<double> tracer_ns_per_op, written_after_bytes;
  std::map<std::string, std::uint64_t> drops;  // non-zero counters only
  RunIdentity identity;
};

RunMetrics run_metrics(const Profile& p);

// samples × 1e9 / freq_hz; 0 if the frequency is unknown.
double samples_to_ns(double samples, std::uint32_t freq_hz);

// The exposure of a sampled ns/op figure (count test, stats.h): samples =
// ns/op × operations × freq_hz / 1e9; 0 if the frequency is unknown.
double samples_exposure(double operations, std::uint32_t freq_hz);

}  // namespace fscost

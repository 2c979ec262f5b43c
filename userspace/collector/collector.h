// The BPF side behind a narrow open → track → attach → enable → read API
// (the shape of perf's lock-contention.h).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/bpf_abi.h"
#include "collector/function_timer.h"
#include "collector/hooks.h"
#include "model/result.h"
#include "collector/sampler.h"
#include "collector/map_sizes.h"
#include "system/subprocess.h"

struct fscost_bpf;  // the generated skeleton

namespace fscost {

struct Features;

struct CollectorConfig {
  bool trace_all = false;             // -a
  std::uint32_t freq_hz = 997;        // prime: does not beat with periodic kernel work
  MapSizeOptions sizes;  // --max-* and --stack-storage-size; unset: from the CPU count
  // The test filesystem (record --fs): XFS events of its superblock only,
  // and its internal log's sector range to tell log writes from the rest.
  std::uint32_t target_dev = 0;  // kernel dev_t; 0: every filesystem
  std::uint64_t log_first_sector = 0, log_end_sector = 0;
  bool bpf_stats = false;  // run time per program (kernel.bpf_stats_enabled while loaded)
  ProbeGroups groups;
  bool user_stacks = false;  // user stacks of user-mode samples
  // --time-functions: kernel functions timed per op with fentry/fexit,
  // where the kernel allows it (collector/function_timer.h).
  std::vector<std::string> time_functions;
};

// What the kernel side aggregated, before symbolization.
struct RawData {
  std::vector<fscost_op_stats> ops;               // index = Op id, summed over CPUs
  std::vector<fscost_fs_event_counts> fs_events;  // index = Op id (0: outside operations)
  std::vector<std::pair<fscost_sample_key, std::uint64_t>> samples;
  std::vector<std::pair<fscost_offcpu_key, fscost_offcpu_val>> offcpu;
  std::vector<std::pair<fscost_lock_key, fscost_lock_val>> locks;
  std::vector<std::pair<fscost_holder_key, fscost_offcpu_val>> lock_holders;
  // Kernel threads' filesystem events by (bucket, work function address).
  std::vector<std::pair<fscost_bg_key, fscost_fs_event_counts>> bg_fs_events;
  std::uint64_t fs_events_other_fs = 0;  // events on other superblocks than target_dev
  // (kernel dev_t, enum fscost_io_class) → bytes written
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> dev_write_bytes;
  // With CollectorConfig::bpf_stats: per loaded program, its runs and time.
  struct ProgStats {
    std::string name;
    std::uint64_t run_cnt = 0, run_time_ns = 0;
  };
  std::vector<ProgStats> prog_stats;
  // Every stack the aggregates refer to, by content hash; leaf first.
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> stacks;
  std::array<std::uint64_t, FSCOST_DROP__COUNT> drops{};
  std::uint64_t samples_total = 0;
  std::uint64_t prog_missed = 0;     // runs the kernel skipped (recursion)
  // The same by the probe whose program missed them ("lock:contention_end").
  std::map<std::string, std::uint64_t> prog_missed_by;
  std::uint64_t stack_lookups_failed = 0;  // referenced stacks missing from the map
  // --time-functions, in the order named; empty when not asked or refused.
  std::vector<FunctionTimes> functions;
};

class Collector {
 public:
  // Open, configure (rodata, map sizes, attach flavours) and load.
  static Result<std::unique_ptr<Collector>> load(const CollectorConfig& cfg, const Features& f);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  Result<std::monostate> track(pid_t tgid);
  Result<std::monostate> attach();
  void enable(bool on);

  // One load, many recordings (fscost compare): what the next recording
  // counts starts from zero, as in a freshly loaded collector. Every map and
  // counter is emptied, the tracked set too; per-thread state of earlier
  // recordings (kernel workers keep theirs) goes stale (run_gen). Call it
  // disabled, between recordings.
  Result<std::monostate> reset();
  // The test filesystem of the next recording (record --fs); 0: every one.
  void aim(std::uint32_t target_dev, std::uint64_t log_first_sector, std::uint64_t log_end_sector);
  // Run time per program (kernel.bpf_stats_enabled) from now on, or not:
  // read() reports what accrued since the last reset().
  Result<std::monostate> count_run_time(bool on);
  // Processes in the tracked map now (the target and its descendants).
  std::vector<pid_t> tracked_pids() const;
  RawData read() const;

  // "<event> (<flavour>)" for every attached probe; stored in the profile.
  const std::vector<std::string>& probes() const { return probes_; }
  // Hooks asked for but absent on this kernel, "<event> (absent)", and
  // functions it refused to time, "fentry/fexit <function> (<why>)".
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  Collector() = default;
  Result<std::monostate> configure(const Features& f);
  Result<std::monostate> fill_syscall_rules();
  Result<std::monostate> load_function_timer(const Features& f);
  struct ProgCounters {
    std::uint64_t run_cnt = 0, run_time_ns = 0, missed = 0;
  };
  // Every loaded program's cumulative counters, by name.
  std::map<std::string, ProgCounters> program_counters() const;

  CollectorConfig cfg_;
  struct SkelDeleter {
    void operator()(::fscost_bpf* s) const;
  };
  std::unique_ptr<::fscost_bpf, SkelDeleter> skel_;
  bool seeded_once_ = false;  // track() ran: states_complete is ours to set
  std::optional<CpuSampler> sampler_;
  UniqueFd stats_fd_;  // BPF_ENABLE_STATS: counting stops when it closes
  // Each program's cumulative counters at the last reset(), by name:
  // read() reports the difference.
  std::map<std::string, ProgCounters> prog_base_;
  bool btf_flavour_ = false;
  std::vector<std::string> probes_;   // attached, with flavour
  std::vector<std::string> skipped_;  // asked for, but absent on this kernel
  std::unique_ptr<FunctionTimer> timer_;  // --time-functions, when the kernel allows it
};

}  // namespace fscost

// The BPF side behind a narrow open → track → attach → enable → read API
// (the shape of perf's lock-contention.h).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bpf_abi.h"
#include "result.h"
#include "sampler.h"

struct fscost_bpf;  // the generated skeleton

namespace fscost {

struct Features;

struct CollectorConfig {
  bool trace_all = false;             // -a
  std::uint32_t freq_hz = 997;        // prime: does not beat with periodic kernel work
  std::uint32_t stack_storage = 16384;
  std::uint32_t max_stacks = 32768;
  std::uint32_t max_threads = 16384;
  std::uint32_t max_procs = 8192;
};

// What the kernel side aggregated, before symbolization.
struct RawSample {
  fscost_sample_key key{};
  std::uint64_t count = 0;
  std::vector<std::uint64_t> kstack;  // leaf first, as the stack map holds it
};

struct RawData {
  std::vector<fscost_op_stats> ops;  // index = Op id, summed over CPUs
  std::vector<RawSample> samples;
  std::array<std::uint64_t, FSCOST_DROP__COUNT> drops{};
  std::uint64_t samples_total = 0;
  std::uint64_t prog_missed = 0;     // runs the kernel skipped (recursion)
  std::uint64_t stack_lookups_failed = 0;  // ids whose stack vanished before we read it
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
  RawData read() const;

  // "<event> (<flavour>)" for every attached probe; stored in the profile.
  const std::vector<std::string>& probes() const { return probes_; }

 private:
  Collector() = default;
  Result<std::monostate> fill_syscall_rules();

  CollectorConfig cfg_;
  struct SkelDeleter {
    void operator()(::fscost_bpf* s) const;
  };
  std::unique_ptr<::fscost_bpf, SkelDeleter> skel_;
  std::optional<CpuSampler> sampler_;
  bool btf_flavour_ = false;
  std::vector<std::string> probes_;
};

}  // namespace fscost

// record --time-functions: named kernel functions, their calls and the time
// inside them per operation, with fentry/fexit (bpf/functions.bpf.c). What
// tracepoints cannot give: there is no event at a function's return.
//
// BPF objects beside the Collector's, one per function, sharing its cpu_now
// map: a kernel that refuses trampolines (EPERM here; KERNEL.md), or one
// function (x86 before Linux 6.6: more than 6 arguments), costs the
// recording only that, with the reason said (Collector::skipped).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collector/bpf_abi.h"
#include "model/result.h"

struct fscost_functions;  // the generated skeleton
struct bpf_object;

namespace fscost {

// One function's figures by operation index (FSCOST_MAX_OPS; 0: outside
// any tracked operation), summed over CPUs.
struct FunctionTimes {
  std::string name;
  std::array<fscost_func_stats, FSCOST_MAX_OPS> per_op{};
};

// Splits and checks a --time-functions list: at most FSCOST_MAX_FUNCS
// distinct C identifiers.
Result<std::vector<std::string>> parse_function_list(const std::string& spec);

class FunctionTimer {
 public:
  struct Loaded {
    std::unique_ptr<FunctionTimer> timer;  // null when no function could be timed
    // (function, why the kernel would not let it be timed)
    std::vector<std::pair<std::string, std::string>> refused;
  };

  // Loads and attaches an fentry/fexit pair per function, counting nothing
  // until enable(). A name the kernel has no traceable function of is an
  // Error (the user's to fix); a function the kernel refuses is in
  // `refused` (the recording goes on without it). tracefs_root: where
  // available_filter_functions says what ftrace can patch.
  static Result<Loaded> load(const std::vector<std::string>& names, int cpu_now_fd,
                             std::uint32_t max_calls, const std::string& tracefs_root);
  ~FunctionTimer();
  FunctionTimer(const FunctionTimer&) = delete;
  FunctionTimer& operator=(const FunctionTimer&) = delete;

  void enable(bool on);
  // Empties the figures and the calls in progress (Collector::reset).
  Result<std::monostate> reset();
  // The figures in the order named, and the objects' drops added into `drops`.
  std::vector<FunctionTimes> read(std::array<std::uint64_t, FSCOST_DROP__COUNT>& drops) const;
  std::vector<bpf_object*> objects() const;
  std::vector<std::string> names() const;  // the functions timed, in the order named

 private:
  FunctionTimer() = default;
  struct SkelDeleter {
    void operator()(::fscost_functions* s) const;
  };
  struct Timed {
    std::string name;
    std::unique_ptr<::fscost_functions, SkelDeleter> skel;
  };
  std::vector<Timed> timed_;
};

}  // namespace fscost

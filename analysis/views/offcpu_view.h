// The off-CPU view of a profile: per operation, where the time off CPU went
// by wait class, and the blocked stacks (with their wakers) that cost most.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"
#include "views/view.h"
#include "model/wait_class.h"

namespace fscost {

// Nanoseconds per wait class, indexed like kWaitClasses.
using ClassNs = std::array<std::uint64_t, kWaitClasses.size()>;

struct OffCpuShare {
  std::string wait_class;
  std::vector<std::string> frames;  // blocked stack, outermost first
  std::string waker;                // empty if unknown
  std::vector<std::string> waker_frames;
  std::string waker_work;  // the work item a kworker waker ran (work_function); "" if none
  std::uint64_t count = 0;  // intervals
  std::uint64_t total_ns = 0;
};

struct OffCpuOp {
  OpStats stats;                // on/off-CPU and wall totals (zeros if none completed)
  ClassNs by_class{};           // from the off-CPU stacks
  std::uint64_t stacks_ns = 0;  // sum of by_class; below stats.offcpu_ns if stacks were lost
  std::vector<OffCpuShare> top_stacks;  // most total_ns first
};

struct OffCpuThread {
  std::string name;  // kthread bucket
  std::uint64_t count = 0;
  std::uint64_t total_ns = 0;
  ClassNs by_class{};
};

struct OffCpuView {
  std::vector<OffCpuOp> ops;             // in the order of build_report_view's rows
  std::vector<OffCpuThread> background;  // most total_ns first
};

OffCpuView build_offcpu_view(const Profile& p, const ReportOptions& opt);

// True if the profile has off-CPU data (stacks, or any op's offcpu_ns).
bool offcpu_recorded(const Profile& p);

// Index of `wait_class` in kWaitClasses; the last ("sleep") if unknown.
std::size_t wait_class_index(const std::string& wait_class);

}  // namespace fscost

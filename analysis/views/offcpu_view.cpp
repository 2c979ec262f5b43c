#include "model/units.h"
#include "views/offcpu_view.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/frame_match.h"  // work_function
#include "views/report_view.h"

namespace fscost {

namespace {

using ShareKey = std::tuple<std::string, Stack, std::string, Stack>;
using Shares = std::map<ShareKey, OffCpuShare>;  // one operation's stacks, merged

void merge(Shares& shares, const OffCpuStack& s) {
  auto [it, added] = shares.try_emplace({s.wait_class, s.frames, s.waker, s.waker_frames});
  if (added)
    it->second = {s.wait_class, frame_strings(s.frames), s.waker, frame_strings(s.waker_frames),
                  std::string(work_function(s.waker_frames))};
  add_sat(it->second.count, s.count);
  add_sat(it->second.total_ns, s.total_ns);
}

// Class totals and the n costliest stacks; ties in key order.
void summarize(const Shares& shares, std::size_t n, OffCpuOp& op) {
  std::vector<OffCpuShare> all;
  for (const auto& [key, share] : shares) {
    add_sat(op.by_class[wait_class_index(share.wait_class)], share.total_ns);
    add_sat(op.stacks_ns, share.total_ns);
    all.push_back(share);
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  if (all.size() > n) all.resize(n);
  op.top_stacks = std::move(all);
}

std::vector<OffCpuThread> background(const Profile& p) {
  std::map<std::string, OffCpuThread> threads;
  for (const auto& s : p.offcpu) {
    if (s.kind != SampleKind::Kthread) continue;
    OffCpuThread& t = threads[s.name];
    t.name = s.name;
    add_sat(t.count, s.count);
    add_sat(t.total_ns, s.total_ns);
    add_sat(t.by_class[wait_class_index(s.wait_class)], s.total_ns);
  }
  std::vector<OffCpuThread> out;
  for (auto& entry : threads) out.push_back(std::move(entry.second));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace

std::size_t wait_class_index(const std::string& wait_class) {
  auto it = std::find(kWaitClasses.begin(), kWaitClasses.end(), wait_class);
  return it == kWaitClasses.end() ? kWaitClasses.size() - 1
                                  : static_cast<std::size_t>(it - kWaitClasses.begin());
}

bool offcpu_recorded(const Profile& p) {
  if (!p.offcpu.empty()) return true;
  return std::any_of(p.ops.begin(), p.ops.end(), [](const auto& o) { return o.offcpu_ns > 0; });
}

OffCpuView build_offcpu_view(const Profile& p, const ReportOptions& opt) {
  std::map<std::string, Shares> by_op;
  for (const auto& s : p.offcpu)
    if (s.kind == SampleKind::Op) merge(by_op[s.name], s);
  OffCpuView v;
  for (const auto& row : build_report_view(p, opt).rows) {
    OffCpuOp op;
    op.stats = row.stats;
    summarize(by_op[row.stats.name], opt.top_stacks, op);
    v.ops.push_back(std::move(op));
  }
  v.background = background(p);
  return v;
}

}  // namespace fscost

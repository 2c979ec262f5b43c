#include "views/lock_view.h"

#include "views/report_view.h"

namespace fscost {

LockView build_lock_view(const Profile& p, const ReportOptions& opt) {
  LockView v;
  for (const auto& row : build_report_view(p, opt).rows) {
    const std::string& op = row.stats.name;
    v.ops.push_back({row.stats, lock_rows(p, op), spin_check(p, op)});
  }
  for (auto& r : lock_rows(p, std::nullopt))
    if (r.kind == SampleKind::Kthread) v.background.push_back(std::move(r));
  return v;
}

}  // namespace fscost

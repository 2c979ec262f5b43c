#include "views/lock_view.h"

#include "views/report_view.h"

#include <algorithm>

namespace fscost {

namespace {

// The op's optimistic spin samples into the rows of the locks they spin on
// (a row of their own for a lock no traced wait names).
void add_optimistic_spin(const Profile& p, const std::string& op, std::vector<LockRow>& rows) {
  for (const auto& s : p.samples) {
    if (s.kind != SampleKind::Op || s.name != op || s.count == 0) continue;
    auto l = spinning_lock(s.frames);
    if (!l || !l->optimistic) continue;
    auto it = std::find_if(rows.begin(), rows.end(), [&](const LockRow& r) {
      return r.name == l->name && r.type == l->type;
    });
    if (it == rows.end()) {
      rows.push_back({SampleKind::Op, op, l->name, l->type});
      it = rows.end() - 1;
    }
    it->optimistic_spin_samples += s.count;
  }
  for (auto& r : rows)
    if (p.meta.freq_hz > 0)
      r.optimistic_spin_ns = static_cast<double>(r.optimistic_spin_samples) * 1e9 / p.meta.freq_hz;
}

}  // namespace

bool locks_recorded(const Profile& p) {
  if (!p.locks.empty()) return true;
  return std::any_of(p.meta.probes.begin(), p.meta.probes.end(), [](const std::string& probe) {
    return probe.rfind("lock:contention_begin (", 0) == 0 && probe != "lock:contention_begin (absent)";
  });
}

LockView build_lock_view(const Profile& p, const ReportOptions& opt) {
  LockView v;
  for (const auto& row : build_report_view(p, opt).rows) {
    const std::string& op = row.stats.name;
    v.ops.push_back({row.stats, lock_rows(p, op), spin_check(p, op)});
    add_optimistic_spin(p, op, v.ops.back().rows);
  }
  for (auto& r : lock_rows(p, std::nullopt))
    if (r.kind == SampleKind::Kthread) v.background.push_back(std::move(r));
  return v;
}

}  // namespace fscost

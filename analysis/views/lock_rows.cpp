// LockStats (per lock address and stack) merged into named rows.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "model/units.h"
#include "views/lock_names.h"

namespace fscost {

namespace {

using RowKey = std::tuple<SampleKind, std::string, std::string, std::string>;

struct Merged {
  LockRow row;
  std::set<std::uint64_t> addresses;
};

bool wanted(const LockStat& s, const std::optional<std::string>& op) {
  return !op || (s.kind == SampleKind::Op && s.name == *op);
}

void add(Merged& m, const LockStat& s) {
  add_sat(m.row.count, s.count);
  add_sat(m.row.total_ns, s.total_ns);
  m.row.max_ns = std::max(m.row.max_ns, s.max_ns);
  add_sat(m.row.spin_ns, s.spin_ns);
  add_sat(m.row.sleep_ns, s.sleep_ns);
  m.addresses.insert(s.address);
}

}  // namespace

std::vector<LockRow> lock_rows(const Profile& p, const std::optional<std::string>& op) {
  std::map<RowKey, Merged> merged;  // ordered: the tie-break of the sort below
  for (const auto& s : p.locks) {
    if (!wanted(s, op)) continue;
    RowKey key{s.kind, s.name, lock_name(s), lock_type(s.flags)};
    auto [it, added] = merged.try_emplace(key);
    if (added) it->second.row = {s.kind, s.name, std::get<2>(key), std::get<3>(key)};
    add(it->second, s);
  }
  std::vector<LockRow> rows;
  for (auto& [key, m] : merged) {
    m.row.addresses = m.addresses.size();
    rows.push_back(std::move(m.row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LockRow& a, const LockRow& b) { return a.total_ns > b.total_ns; });
  return rows;
}

}  // namespace fscost

// report_json()'s "locks" object (docs/REPORT-JSON.md).
#include "views/lock_view.h"
#include "views/wait_graph.h"
#include "report/profile/json_parts.h"
#include "views/report_view.h"

namespace fscost::json_parts {

namespace {

using nlohmann::json;

json row_json(const LockRow& r) {
  return {
      {"name", r.name},       {"type", r.type},         {"mode", lock_mode(r.spin_ns, r.sleep_ns)},
      {"count", r.count},     {"total_ns", r.total_ns}, {"max_ns", r.max_ns},
      {"spin_ns", r.spin_ns}, {"sleep_ns", r.sleep_ns}, {"addresses", r.addresses}};
}

json op_row_json(const LockRow& r, std::uint64_t ops) {
  json j = row_json(r);
  j["count_per_op"] = or_null(per_op(r.count, ops));
  j["wait_ns_per_op"] = or_null(per_op_ns(r.total_ns, ops));
  j["spin_ns_per_op"] = or_null(per_op_ns(r.spin_ns, ops));
  j["sleep_ns_per_op"] = or_null(per_op_ns(r.sleep_ns, ops));
  // Sampled optimistic spin on this lock, which the traced figures exclude.
  j["optimistic_spin_samples"] = r.optimistic_spin_samples;
  j["optimistic_spin_ns_per_op"] =
      r.optimistic_spin_ns && ops > 0 ? json(*r.optimistic_spin_ns / static_cast<double>(ops))
                                      : json(nullptr);
  return j;
}

json spin_json(const SpinCheck& c) {
  return {{"traced_spin_ns", c.traced_spin_ns},
          {"spin_samples", c.spin_samples},
          {"sampled_spin_ns", or_null(c.sampled_spin_ns)},
          {"native_qspinlock_samples", c.native_qspinlock_samples},
          {"native_qspinlock_ns", or_null(c.native_qspinlock_ns)},
          {"rwsem_spin_samples", c.rwsem_spin_samples},
          {"rwsem_spin_ns", or_null(c.rwsem_spin_ns)}};
}

json op_json(const LockOp& op) {
  json rows = json::array();
  for (const auto& r : op.rows) rows.push_back(op_row_json(r, op.stats.count));
  return {{"name", op.stats.name},
          {"count", op.stats.count},
          {"locks", std::move(rows)},
          {"spin_check", spin_json(op.spin)}};
}

// A chain's op, hops and the runs that hold it (views/wait_graph.h).
json chain_json(const WaitChain& c) {
  json hops = json::array();
  for (const auto& h : c.hops)
    hops.push_back({{"kind", h.kind == WaitHop::Wake ? "wake" : "lock"},
                    {"what", h.what},
                    {"context", h.context},
                    {"ns", h.ns},
                    {"count", h.count}});
  return {{"op", c.op}, {"cycle", c.cycle}, {"runs_held", c.runs_held}, {"hops", std::move(hops)}};
}

}  // namespace

json locks_json(const Profile& p, const ReportOptions& opt) {
  LockView v = build_lock_view(p, opt);
  json ops = json::array();
  for (const auto& op : v.ops) ops.push_back(op_json(op));
  json threads = json::array();
  for (const auto& r : v.background) {
    json j = row_json(r);
    j["thread"] = r.bucket;
    threads.push_back(std::move(j));
  }
  json chains = json::array();
  for (const auto& c : wait_chains(p)) {
    json j = chain_json(c);
    j["rule"] = c.rule;
    j["others"] = json::array();
    for (const auto& o : c.others) j["others"].push_back(chain_json(o));
    chains.push_back(std::move(j));
  }
  return {{"recorded", locks_recorded(p)},
          {"ops", std::move(ops)},
          {"kthreads", std::move(threads)},
          {"holders_recorded", !p.lock_holders.empty()},
          {"chains", std::move(chains)}};
}

}  // namespace fscost::json_parts

// The diff as JSON: every number behind the text (schema in docs/DIFF.md).
// Undefined and infinite numbers are null, since JSON has neither.
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/diff_report.h"

namespace fscost {

namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json nums(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}

json summary(const stats::Summary& s) {
  return {{"n", s.n},
          {"mean", num(s.mean)},
          {"sd", num(s.sd)},
          {"ci_lo", num(s.ci_lo)},
          {"ci_hi", num(s.ci_hi)}};
}

json comparison(const Comparison& c) {
  const stats::Welch& w = c.welch;
  json out = {
      {"unit", c.unit},
      {"a", nums(c.a)},
      {"b", nums(c.b)},
      {"a_summary", summary(c.sa)},
      {"b_summary", summary(c.sb)},
      {"delta", num(c.delta())},
      {"rel", num(c.rel)},
      {"welch",
       {{"valid", w.valid},
        {"diff", num(w.diff)},
        {"se", num(w.se)},
        {"df", num(w.df)},
        {"t", num(w.t)},
        {"p", num(w.p)},
        {"ci_lo", num(w.ci_lo)},
        {"ci_hi", num(w.ci_hi)}}},
      {"test", to_string(c.test)},
      {"mann_whitney",
       {{"valid", c.mwu.valid}, {"u", num(c.mwu.u)}, {"p", num(c.mwu.p)}, {"exact", c.mwu.exact}}},
      {"effect", num(c.effect)},
      {"q", num(c.q)},
      {"verdict", to_string(c.verdict)},
      {"significant", c.significant()}};
  if (c.test == StatTest::Counts) {
    const stats::CountTest& k = c.counts;
    out["quasi_poisson"] = {{"valid", k.valid},         {"rate_a", num(k.rate_a)},
                            {"rate_b", num(k.rate_b)},   {"diff", num(k.diff)},
                            {"dispersion", num(k.dispersion)}, {"df", num(k.df)},
                            {"t", num(k.t)},             {"p", num(k.p)},
                            {"ci_lo", num(k.ci_lo)},     {"ci_hi", num(k.ci_hi)}};
  }
  return out;
}

json parts(const std::vector<DeltaPart>& v) {
  json a = json::array();
  for (const auto& p : v)
    a.push_back({{"kind", p.kind},
                 {"delta_ns", num(p.delta_ns)},
                 {"share", num(p.share)},
                 {"where", p.where},
                 {"detail", p.detail},
                 {"significant", p.significant}});
  return a;
}

json paths(const std::vector<DeltaPath>& v) {
  json a = json::array();
  for (const auto& p : v) {
    json split = json::array();
    for (const auto& [name, d] : p.split) split.push_back({{"name", name}, {"delta_ns", num(d)}});
    a.push_back({{"kind", p.kind},
                 {"frames", p.frames},
                 {"share", num(p.share)},
                 {"inclusive", comparison(p.inclusive)},
                 {"split", std::move(split)},
                 {"lock", p.lock},
                 {"besides", p.besides}});
  }
  return a;
}

json families(const std::vector<FamilyDiff>& v) {
  json a = json::array();
  for (const auto& f : v)
    a.push_back({{"name", f.name},
                 {"functions", f.functions},
                 {"new_in_b", f.new_in_b},
                 {"inclusive", comparison(f.inclusive)}});
  return a;
}

json functions(const std::vector<FunctionDiff>& v) {
  json a = json::array();
  for (const auto& f : v)
    a.push_back({{"name", f.name},
                 {"new_in_b", f.new_in_b},
                 {"gone_in_b", f.gone_in_b},
                 {"inclusive", comparison(f.inclusive)},
                 {"self", comparison(f.self)}});
  return a;
}

json locks(const std::vector<LockDiff>& v) {
  json a = json::array();
  for (const auto& l : v)
    a.push_back({{"name", l.name},
                 {"type", l.type},
                 {"change", to_string(l.change)},
                 {"detail", l.detail},
                 {"contentions", comparison(l.contentions)},
                 {"wait", comparison(l.wait)},
                 {"spin", comparison(l.spin)},
                 {"sleep", comparison(l.sleep)},
                 {"optimistic_spin", comparison(l.optimistic_spin)},
                 {"per_contention", comparison(l.per_contention)}});
  return a;
}

// A wait-for chain (views/wait_graph.h), or null where the side has none.
json chain(const std::optional<WaitChain>& c) {
  if (!c) return nullptr;
  json hops = json::array();
  for (const auto& h : c->hops)
    hops.push_back({{"kind", h.kind == WaitHop::Wake ? "wake" : "lock"},
                    {"what", h.what},
                    {"context", h.context},
                    {"ns_per_run", h.ns},
                    {"count", h.count}});
  return {{"cycle", c->cycle}, {"hops", std::move(hops)}};
}

json hop_waits(const OpDiff& o) {
  json a = json::array();
  for (const auto& c : o.hop_waits) a.push_back(comparison(c));
  return a;
}

json op_json(const OpDiff& o) {
  json classes = json::object();
  for (const auto& [cls, c] : o.offcpu_by_class) classes[cls] = comparison(c);
  json xfs = json::object();
  for (const auto& [name, c] : o.xfs) xfs[name] = comparison(c);
  return {{"op", o.op},
          {"tested", o.tested},
          {"count", comparison(o.count)},
          {"oncpu", comparison(o.oncpu)},
          {"offcpu", comparison(o.offcpu)},
          {"spin", comparison(o.spin)},
          {"sleep", comparison(o.sleep)},
          {"optimistic_spin", comparison(o.optimistic_spin)},
          {"latency", comparison(o.latency)},
          {"rate", comparison(o.rate)},
          {"offcpu_by_class", std::move(classes)},
          {"xfs", std::move(xfs)},
          {"functions", functions(o.functions)},
          {"locks", locks(o.locks)},
          {"oncpu_parts", parts(o.oncpu_parts)},
          {"paths", paths(o.paths)},
          {"families", families(o.families)},
          {"offcpu_parts", parts(o.offcpu_parts)},
          {"chains",
           {{"a", chain(o.chain_a)}, {"b", chain(o.chain_b)}, {"hop_waits", hop_waits(o)}}}};
}

json background(const std::vector<BackgroundDiff>& v) {
  json a = json::array();
  for (const auto& bg : v) {
    json xfs = json::object();
    for (const auto& [event, c] : bg.xfs) xfs[event] = comparison(c);
    a.push_back({{"name", bg.name},
                 {"test_fs", bg.test_fs},
                 {"cpu_ns", comparison(bg.cpu)},
                 {"offcpu_ns", comparison(bg.offcpu)},
                 {"lock_wait_ns", comparison(bg.lock_wait)},
                 {"top_lock", bg.top_lock},
                 {"top_lock_share", bg.top_lock_share},
                 {"xfs", std::move(xfs)}});
  }
  return a;
}

json by_kind(const std::vector<std::pair<std::string, Comparison>>& v) {
  json o = json::object();
  for (const auto& [kind, c] : v) o[kind] = comparison(c);
  return o;
}

json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json setup(const SetupDiff& s) {
  json settings = json::array();
  for (const auto& x : s.settings)
    settings.push_back({{"name", x.name}, {"a", x.a}, {"b", x.b}, {"asked", x.asked}});
  return {{"recorded", s.recorded},
          {"mkfs_a", s.mkfs_a},
          {"mkfs_b", s.mkfs_b},
          {"incidental", s.incidental()},
          {"differences", std::move(settings)}};
}

json config(const DiffConfig& c) {
  return {{"alpha", c.alpha},
          {"level", c.level},
          {"flow_share", c.flow_share},
          {"user_share_warn", c.user_share_warn},
          {"top", c.top}};
}

}  // namespace

json diff_json(const Diff& d) {
  json warnings = json::array();
  for (const auto& w : d.warnings) warnings.push_back({{"kind", w.kind}, {"message", w.message}});
  json ops = json::array();
  for (const auto& o : d.ops) ops.push_back(op_json(o));
  return {{"format", "fscost-diff"},
          {"schema", kDiffSchemaVersion},
          {"a", {{"label", d.label_a}, {"runs", d.runs_a}}},
          {"b", {{"label", d.label_b}, {"runs", d.runs_b}}},
          {"config", config(d.config)},
          {"family", d.family},
          {"families",
           {{"metrics", d.families.metrics},
            {"functions", d.families.functions},
            {"locks", d.families.locks},
            {"background", d.families.background}}},
          {"warnings", std::move(warnings)},
          {"setup", setup(d.setup)},
          {"dropped", d.dropped},
          {"background", background(d.background)},
          {"totals",
           {{"sys_ns", comparison(d.sys_ns)},
            {"user_ns", comparison(d.user_ns)},
            {"wall_ns", comparison(d.wall_ns)},
            {"user_share", comparison(d.user_share)},
            {"kthread_ns", comparison(d.kthread_ns)},
            {"fs_kthread_ns", comparison(d.fs_kthread_ns)},
            {"device_write_bytes", comparison(d.device_bytes)},
            {"device_write_bytes_by_kind", by_kind(d.device_bytes_by_kind)}}},
          {"tracer_ns_per_op", {{"a", finite(d.tracer_a)}, {"b", finite(d.tracer_b)}}},
          {"ops", std::move(ops)}};
}

}  // namespace fscost

// The diff as JSON: every number behind the text (schema in docs/DIFF.md).
// Undefined and infinite numbers are null, since JSON has neither.
//
// Streamed with JsonWriter, compact: at 100k stacks a DOM of every
// comparison, pretty-printed, took most of `fscost diff -o`'s time and
// memory (docs/PERFORMANCE.md).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>

#include "diff/calibration.h"
#include "diff/findings.h"
#include "model/json_writer.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"

namespace fscost {

namespace {

using W = JsonWriter;

void nums(W& w, const std::vector<double>& v) {
  w.begin_array();
  for (double x : v) w.value(x);
  w.end_array();
}

void strings(W& w, const std::vector<std::string>& v) {
  w.begin_array();
  for (const auto& s : v) w.value(s);
  w.end_array();
}

void summary(W& w, const stats::Summary& s) {
  w.begin_object();
  w.member("n", s.n);
  w.member("mean", s.mean);
  w.member("sd", s.sd);
  w.member("ci_lo", s.ci_lo);
  w.member("ci_hi", s.ci_hi);
  w.end_object();
}

void welch(W& w, const stats::Welch& s) {
  w.begin_object();
  w.member("valid", s.valid);
  w.member("diff", s.diff);
  w.member("se", s.se);
  w.member("df", s.df);
  w.member("t", s.t);
  w.member("p", s.p);
  w.member("ci_lo", s.ci_lo);
  w.member("ci_hi", s.ci_hi);
  w.end_object();
}

void quasi_poisson(W& w, const stats::CountTest& k) {
  w.begin_object();
  w.member("valid", k.valid);
  w.member("rate_a", k.rate_a);
  w.member("rate_b", k.rate_b);
  w.member("diff", k.diff);
  w.member("dispersion", k.dispersion);
  w.member("df", k.df);
  w.member("t", k.t);
  w.member("p", k.p);
  w.member("ci_lo", k.ci_lo);
  w.member("ci_hi", k.ci_hi);
  w.end_object();
}

// The calibration's test, when it decided (Comparison::floor).
void floored(W& w, const stats::Floored& f) {
  w.begin_object();
  w.member("se", f.se);
  w.member("df", f.df);
  w.member("t", f.t);
  w.member("p", f.p);
  w.member("ci_lo", f.ci_lo);
  w.member("ci_hi", f.ci_hi);
  w.end_object();
}

void comparison(W& w, const Comparison& c) {
  w.begin_object();
  w.member("unit", c.unit);
  w.key("a");
  nums(w, c.a);
  w.key("b");
  nums(w, c.b);
  w.key("a_summary");
  summary(w, c.sa);
  w.key("b_summary");
  summary(w, c.sb);
  w.member("delta", c.delta());
  w.member("rel", c.rel);
  w.key("welch");
  welch(w, c.welch);
  w.member("test", to_string(c.test));
  if (c.test == StatTest::Counts) {
    w.key("quasi_poisson");
    quasi_poisson(w, c.counts);
  }
  if (c.floored()) {
    w.key("floor");
    floored(w, c.floor);
  }
  w.key("mann_whitney");
  w.begin_object();
  w.member("valid", c.mwu.valid);
  w.member("u", c.mwu.u);
  w.member("p", c.mwu.p);
  w.member("exact", c.mwu.exact);
  w.end_object();
  w.member("effect", c.effect);
  w.member("q", c.q);
  w.member("verdict", to_string(c.verdict));
  w.member("significant", c.significant());
  if (c.fragile >= 0) w.member("fragile", c.fragile);  // index in "jackknife"
  w.end_object();
}

void member(W& w, std::string_view key, const Comparison& c) {
  w.key(key);
  comparison(w, c);
}

void parts(W& w, const std::vector<DeltaPart>& v) {
  w.begin_array();
  for (const auto& p : v) {
    w.begin_object();
    w.member("kind", p.kind);
    w.member("delta_ns", p.delta_ns);
    w.member("share", p.share);
    w.member("where", p.where);
    w.member("detail", p.detail);
    w.member("significant", p.significant);
    w.member("fs", p.fs);
    w.end_object();
  }
  w.end_array();
}

void paths(W& w, const std::vector<DeltaPath>& v) {
  w.begin_array();
  for (const auto& p : v) {
    w.begin_object();
    w.member("kind", p.kind);
    w.key("frames");
    strings(w, p.frames);
    w.member("share", p.share);
    member(w, "inclusive", p.inclusive);
    w.key("split");
    w.begin_array();
    for (const auto& [name, d] : p.split) {
      w.begin_object();
      w.member("name", name);
      w.member("delta_ns", d);
      w.end_object();
    }
    w.end_array();
    w.member("lock", p.lock);
    w.member("fs", p.fs);
    w.member("besides", p.besides.size());
    w.end_object();
  }
  w.end_array();
}

void families(W& w, const std::vector<FamilyDiff>& v) {
  w.begin_array();
  for (const auto& f : v) {
    w.begin_object();
    w.member("name", f.name);
    w.member("functions", f.functions);
    w.member("new_in_b", f.new_in_b);
    member(w, "inclusive", f.inclusive);
    w.end_object();
  }
  w.end_array();
}

void exact(W& w, const std::vector<ExactChange>& v) {
  w.begin_array();
  for (const auto& e : v) {
    w.begin_object();
    w.member("what", e.what);
    member(w, "comparison", e.c);
    w.end_object();
  }
  w.end_array();
}

void new_code(W& w, const std::vector<NewCode>& v) {
  w.begin_array();
  for (const auto& n : v) {
    w.begin_object();
    w.member("name", n.name);
    w.member("family", n.family);
    w.member("gone", n.gone);
    w.member("ns_per_op", n.ns_per_op);
    if (n.fragile >= 0) w.member("fragile", n.fragile);
    w.end_object();
  }
  w.end_array();
}

void shares(W& w, const std::vector<ShareChange>& v) {
  w.begin_array();
  for (const auto& sh : v) {
    w.begin_object();
    w.key("frames");
    strings(w, sh.frames);
    w.member("share_a", sh.share_a);
    w.member("share_b", sh.share_b);
    w.member("q", sh.q);
    if (sh.fragile >= 0) w.member("fragile", sh.fragile);
    if (sh.within >= 0) w.member("within", sh.within);  // index in the op's "moved"
    if (sh.caller) w.member("caller", true);  // carried by the shares below it
    member(w, "ns", sh.ns);
    w.end_object();
  }
  w.end_array();
}

void moved(W& w, const std::vector<MovedWork>& v) {
  w.begin_array();
  for (const auto& m : v) {
    w.begin_object();
    w.key("at");
    strings(w, m.at);
    w.member("from", m.from);
    w.key("via");
    strings(w, m.via);
    w.member("share_a", m.share_a);
    w.member("share_b", m.share_b);
    w.member("q", m.q);
    if (m.fragile >= 0) w.member("fragile", m.fragile);
    member(w, "there", m.there);
    member(w, "net", m.net);
    w.end_object();
  }
  w.end_array();
}

void function(W& w, const FunctionDiff& f) {
  w.begin_object();
  w.member("name", f.name);
  w.member("new_in_b", f.new_in_b);
  w.member("gone_in_b", f.gone_in_b);
  member(w, "inclusive", f.inclusive);
  member(w, "self", f.self);
  w.end_object();
}

bool significant(const FunctionDiff& f) { return f.inclusive.significant() || f.self.significant(); }

// The functions come sorted by |Δ inclusive|: the first `rows` are the
// tables' rows; significant ones further down are kept while the list is
// under `cap` (a new-code change makes thousands significant, each ~2 kB).
void functions(W& w, const std::vector<FunctionDiff>& v, std::size_t rows, std::size_t cap) {
  w.begin_array();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i < rows || (kept < cap && significant(v[i]))) {
      function(w, v[i]);
      ++kept;
    }
  w.end_array();
}

void locks(W& w, const std::vector<LockDiff>& v) {
  w.begin_array();
  for (const auto& l : v) {
    w.begin_object();
    w.member("name", l.name);
    w.member("type", l.type);
    w.member("change", to_string(l.change));
    w.member("detail", l.detail);
    for (const auto& m : kLockMetrics) member(w, m.key, l.*m.field);
    w.end_object();
  }
  w.end_array();
}

// A wait-for chain (views/wait_graph.h): its hops, the runs that hold it,
// and for a chosen one the rule that chose it and the others that matter.
void chain(W& w, const WaitChain& c) {
  w.begin_object();
  w.member("cycle", c.cycle);
  w.member("runs_held", c.runs_held);
  w.member("runs", c.runs);
  if (!c.rule.empty()) {
    w.member("rule", c.rule);
    w.key("others");
    w.begin_array();
    for (const auto& o : c.others) chain(w, o);
    w.end_array();
  }
  w.key("hops");
  w.begin_array();
  for (const auto& h : c.hops) {
    w.begin_object();
    w.member("kind", h.kind == WaitHop::Wake ? "wake" : "lock");
    w.member("what", h.what);
    w.member("context", h.context);
    w.member("ns_per_run", h.ns);
    w.member("count", h.count);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// Null where the side has none.
void chain(W& w, const std::optional<WaitChain>& c) {
  if (c)
    chain(w, *c);
  else
    w.value(nullptr);
}

void by_name(W& w, std::string_view key, const auto& named_comparisons) {
  w.key(key);
  w.begin_object();
  for (const auto& [name, c] : named_comparisons) member(w, name, c);
  w.end_object();
}

void op_json(W& w, const OpDiff& o, std::size_t function_rows, std::size_t function_cap) {
  w.begin_object();
  w.member("op", o.op);
  w.member("tested", o.tested);
  for (const auto& m : kOpMetrics) member(w, m.key, o.*m.field);
  by_name(w, "offcpu_by_class", o.offcpu_by_class);
  by_name(w, "fs_events", o.fs_events);
  w.member("functions_compared", o.functions.size());
  w.member("functions_significant",
           std::count_if(o.functions.begin(), o.functions.end(), significant));
  w.key("functions");
  functions(w, o.functions, function_rows, function_cap);
  w.key("locks");
  locks(w, o.locks);
  w.key("oncpu_parts");
  parts(w, o.oncpu_parts);
  w.key("paths");
  paths(w, o.paths);
  w.key("families");
  families(w, o.families);
  w.key("exact");
  exact(w, o.exact);
  w.key("new_code");
  new_code(w, o.new_code);
  w.key("shares");
  shares(w, o.shares);
  w.key("moved");
  moved(w, o.moved);
  w.key("offcpu_parts");
  parts(w, o.offcpu_parts);
  w.key("chains");
  w.begin_object();
  w.key("a");
  chain(w, o.chain_a);
  w.key("b");
  chain(w, o.chain_b);
  w.key("hop_waits");
  w.begin_array();
  for (const auto& c : o.hop_waits) comparison(w, c);
  w.end_array();
  w.end_object();
  w.end_object();
}

void background(W& w, const std::vector<BackgroundDiff>& v) {
  w.begin_array();
  for (const auto& bg : v) {
    w.begin_object();
    w.member("name", bg.name);
    w.member("test_fs", bg.test_fs);
    member(w, "cpu_ns", bg.cpu);
    member(w, "offcpu_ns", bg.offcpu);
    member(w, "lock_wait_ns", bg.lock_wait);
    w.member("top_lock", bg.top_lock);
    w.member("top_lock_share", bg.top_lock_share);
    by_name(w, "fs_events", bg.fs_events);
    if (!bg.shares.empty()) {
      w.key("shares");
      shares(w, bg.shares);
    }
    if (!bg.new_in_b.empty()) {
      w.key("new_in_b");
      w.begin_array();
      for (const auto& n : bg.new_in_b) w.value(n);
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
}

void setup(W& w, const SetupDiff& s) {
  w.begin_object();
  w.member("recorded", s.recorded);
  w.member("mkfs_a", s.mkfs_a);
  w.member("mkfs_b", s.mkfs_b);
  w.member("incidental", s.incidental());
  w.key("differences");
  w.begin_array();
  for (const auto& x : s.settings) {
    w.begin_object();
    w.member("name", x.name);
    w.member("a", x.a);
    w.member("b", x.b);
    w.member("asked", x.asked);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void config(W& w, const DiffConfig& c) {
  w.begin_object();
  w.member("alpha", c.alpha);
  w.member("level", c.level);
  w.member("flow_share", c.flow_share);
  w.member("user_share_warn", c.user_share_warn);
  w.member("top", c.top);
  w.key("calibration");
  if (const Calibration* cal = c.calibration.get()) {
    w.begin_object();
    w.member("date", cal->date);
    w.member("hostname", cal->host.hostname);
    w.member("workload", cal->workload);
    w.member("runs", cal->runs);
    w.member("compares", cal->compares);
    w.end_object();
  } else {
    w.value(nullptr);
  }
  w.end_object();
}

void side(W& w, std::string_view key, const std::string& label, std::size_t runs,
          const std::string& fs) {
  w.key(key);
  w.begin_object();
  w.member("label", label);
  w.member("runs", runs);
  w.member("fs", fs);
  w.end_object();
}

void totals(W& w, const Diff& d) {
  w.begin_object();
  member(w, "sys_ns", d.sys_ns);
  member(w, "user_ns", d.user_ns);
  member(w, "wall_ns", d.wall_ns);
  member(w, "user_share", d.user_share);
  member(w, "kthread_ns", d.kthread_ns);
  member(w, "fs_kthread_ns", d.fs_kthread_ns);
  member(w, "device_write_bytes", d.device_bytes);
  by_name(w, "device_write_bytes_by_kind", d.device_bytes_by_kind);
  w.key("exact");
  exact(w, d.exact);
  w.end_object();
}

// The names of what a finding tells, one per item.
std::vector<std::string> subjects(const Diff& d, const Finding& f) {
  std::vector<std::string> out;
  const OpDiff* op = f.op != kNoOp ? &d.ops[f.op] : nullptr;
  for (const Item& it : f.items) {
    const BackgroundDiff* b = it.i < d.background.size() ? &d.background[it.i] : nullptr;
    switch (f.kind) {
      case FindingKind::Path: {
        const auto& fr = op->paths[it.i].frames;
        std::string chain;
        for (const auto& x : fr) chain += (chain.empty() ? "" : " → ") + x;
        out.push_back(chain);
        break;
      }
      case FindingKind::Families: out.push_back(op->families[it.i].name); break;
      case FindingKind::FsEvents: out.push_back(std::next(op->fs_events.begin(), it.i)->first); break;
      case FindingKind::ExactCounts: out.push_back(op->exact[it.i].what); break;
      case FindingKind::NewCode:
      case FindingKind::GoneCode: out.push_back(op->new_code[it.i].name); break;
      case FindingKind::MovedWork: out.push_back(op->moved[it.i].from); break;
      case FindingKind::Shares: out.push_back(op->shares[it.i].frames.back()); break;
      case FindingKind::Contention: out.push_back(op->locks[it.i].name); break;
      case FindingKind::BackgroundCpu:
      case FindingKind::BackgroundNew:
      case FindingKind::BackgroundShares:
      case FindingKind::BackgroundWaits:
      case FindingKind::BackgroundEvents: out.push_back(b->name); break;
      case FindingKind::DeviceBytes: out.push_back(d.device_bytes_by_kind[it.i].first); break;
      case FindingKind::DeviceExact: out.push_back(d.exact[it.i].what); break;
      case FindingKind::Quiet: out.push_back(d.ops[it.i].op); break;
      case FindingKind::Warning: out.push_back(std::string(warning_name(d.warnings[it.i].kind))); break;
      default: break;
    }
  }
  return out;
}

void finding(W& w, const Diff& d, const Finding& f) {
  w.begin_object();
  w.member("kind", finding_name(f.kind));
  if (f.op != kNoOp) w.member("op", d.ops[f.op].op);
  if (f.kind == FindingKind::OpTime || f.kind == FindingKind::Unresolved) {
    w.member("side", f.oncpu ? "oncpu" : "offcpu");
    // the figure in brief; all of it is in ops[]
    const Comparison& c = f.oncpu ? d.ops[f.op].oncpu : d.ops[f.op].offcpu;
    w.key("figure");
    w.begin_object();
    w.member("unit", c.unit);
    w.member("delta", c.delta());
    w.member("ci_lo", c.ci_lo());
    w.member("ci_hi", c.ci_hi());
    w.member("q", c.q);
    w.member("significant", c.significant());
    w.end_object();
  }
  if (f.kind == FindingKind::Contention) w.member("answer", to_string(f.answer));
  w.key("subjects");
  strings(w, subjects(d, f));
  w.member("text", diff_text::finding_text(d, f));
  w.end_object();
}

void findings(W& w, const Diff& d) {
  const Findings all = select_findings(d);
  auto list = [&](std::string_view key, const std::vector<Finding>& fs) {
    w.key(key);
    w.begin_array();
    for (const auto& f : fs) finding(w, d, f);
    w.end_array();
  };
  w.begin_object();
  list("confounds", all.confounds);
  w.key("blocks");
  w.begin_array();
  for (const auto& b : all.blocks) {
    w.begin_object();
    w.key("op");
    if (b.op != kNoOp)
      w.value(d.ops[b.op].op);
    else
      w.value(nullptr);
    list("findings", b.findings);
    w.end_object();
  }
  w.end_array();
  list("quiet", all.quiet);
  list("warnings", all.warnings);
  w.member("other_warnings", all.other_warnings);
  w.end_object();
}

}  // namespace

void write_diff_members(JsonWriter& w, const Diff& d, const DiffJsonOptions& opt) {
  w.member("format", "fscost-diff");
  w.member("schema", kDiffSchemaVersion);
  side(w, "a", d.label_a, d.runs_a, d.fs_a);
  side(w, "b", d.label_b, d.runs_b, d.fs_b);
  w.key("config");
  config(w, d.config);
  w.member("family", d.family);
  w.key("families");
  w.begin_object();
  w.member("metrics", d.families.metrics);
  w.member("functions", d.families.functions);
  w.member("locks", d.families.locks);
  w.member("background", d.families.background);
  w.end_object();
  w.key("warnings");
  w.begin_array();
  for (const auto& x : d.warnings) {
    w.begin_object();
    w.member("kind", std::string(warning_name(x.kind)));
    w.member("message", x.message);
    w.end_object();
  }
  w.end_array();
  // What the first screen tells, in its order (diff/findings.h).
  w.key("findings");
  findings(w, d);
  w.key("setup");
  setup(w, d.setup);
  w.key("dropped");
  strings(w, d.dropped);
  w.key("jackknife");
  strings(w, d.jackknife);
  w.key("background");
  background(w, d.background);
  w.key("totals");
  totals(w, d);
  w.key("tracer_ns_per_op");
  w.begin_object();
  w.member("a", d.tracer_a);
  w.member("b", d.tracer_b);
  w.end_object();
  w.key("ops");
  w.begin_array();
  std::size_t rows = opt.all_functions ? SIZE_MAX : std::max(d.config.top, kDiffFunctionRows);
  std::size_t cap = opt.all_functions ? SIZE_MAX : std::max(rows, kDiffSummaryFunctions);
  for (const auto& o : d.ops) op_json(w, o, rows, cap);
  w.end_array();
}

std::string diff_json_text(const Diff& d, const DiffJsonOptions& opt) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  write_diff_members(w, d, opt);
  w.end_object();
  out += '\n';
  return out;
}

nlohmann::json diff_json(const Diff& d, const DiffJsonOptions& opt) {
  return nlohmann::json::parse(diff_json_text(d, opt));
}

std::string diff_functions_json_text(const Diff& d) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("format", "fscost-diff-functions");
  w.member("schema", kDiffSchemaVersion);
  side(w, "a", d.label_a, d.runs_a, d.fs_a);
  side(w, "b", d.label_b, d.runs_b, d.fs_b);
  w.key("ops");
  w.begin_array();
  for (const auto& o : d.ops) {
    w.begin_object();
    w.member("op", o.op);
    w.member("tested", o.tested);
    w.key("functions");
    functions(w, o.functions, SIZE_MAX, SIZE_MAX);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace fscost

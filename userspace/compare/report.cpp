#include "compare/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <utility>

#include "model/file_io.h"
#include "model/json_writer.h"
#include "compare/guardrail.h"
#include "compare/progress.h"  // describe_run
#include "io/profile_io.h"
#include "system/sys_util.h"  // human_bytes

namespace fscost {

std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out, line;
  bool fresh = true;  // nothing on `line` but the indent
  auto flush = [&] {
    out += line + "\n";
    line = std::string(indent, ' ');
    fresh = true;
  };
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    std::string word = text.substr(start, end == std::string::npos ? end : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    if (word.empty()) continue;
    if (!fresh && line.size() + 1 + word.size() > width) flush();
    if (!fresh) line += ' ';
    // A word longer than a line (a path) is cut rather than overflow.
    while (line.size() + word.size() > width && width > line.size() + 1) {
      std::size_t room = width - line.size();
      line += word.substr(0, room);
      word.erase(0, room);
      flush();
    }
    line += word;
    fresh = false;
  }
  if (!fresh || out.empty()) out += line + "\n";
  return out;
}

std::pair<RunSet, RunSet> load_sides(const CompareOptions& o, const CompareOutcome& out,
                                     int threads) {
  std::pair<RunSet, RunSet> sides;
  sides.first.label = o.a.label;
  sides.second.label = o.b.label;
  for (const RunResult& r : out.results) {
    if (!r.ok() || r.plan.threads != threads) continue;
    RunSet& set = r.plan.config == 0 ? sides.first : sides.second;
    set.runs.push_back(take(read_profile(o.output + "/" + r.profile)));
    // As the reports show it: relative to -o DIR, never the held
    // directory's /proc/self/fd/N.
    set.sources.push_back(r.profile);
  }
  return sides;
}

std::vector<ComparePoint> load_points(const CompareOptions& o, const CompareOutcome& out) {
  std::vector<ComparePoint> points;
  for (int t : o.threads) {
    ComparePoint p;
    p.threads = t;
    if (o.threads.size() > 1) p.dir = fmt::format("runs/t{}", t);
    std::tie(p.a, p.b) = load_sides(o, out, t);
    if (!p.a.runs.empty() && !p.b.runs.empty()) {
      p.diff = diff_runs(p.a, p.b, diff_config(o));
      p.diff->workload = workload_brief(o);  // the spec, not the command line
    }
    points.push_back(std::move(p));
  }
  return points;
}

std::optional<std::size_t> headline_point(const std::vector<ComparePoint>& points) {
  for (std::size_t i = points.size(); i-- > 0;)
    if (points[i].diff) return i;
  return std::nullopt;
}

Scaling compare_scaling(const CompareOutcome& out, const std::vector<ComparePoint>& points) {
  std::vector<RunFigures> figures;
  for (const ComparePoint& p : points) {
    // Profiles are in result order within each side.
    std::size_t next[2] = {0, 0};
    for (const RunResult& r : out.results) {
      if (!r.ok() || r.plan.threads != p.threads) continue;
      const RunSet& set = r.plan.config == 0 ? p.a : p.b;
      std::size_t& i = next[r.plan.config];
      if (i < set.runs.size())
        figures.push_back(run_figures(set.runs[i++], p.threads, r.plan.config, r.ops_per_s));
    }
  }
  return compute_scaling(figures);
}

namespace {

std::size_t ok_runs(const CompareOutcome& out) {
  std::size_t n = 0;
  for (const RunResult& r : out.results) n += r.ok();
  return n;
}

}  // namespace

std::string workload_text(const CompareOptions& o) {
  const WorkloadSpec& w = o.workload;
  if (!w.cmd_at.empty()) {
    std::vector<std::string> at;
    for (const auto& [t, cmd] : w.cmd_at) at.push_back(fmt::format("at {}: {}", t, fmt::join(cmd, " ")));
    return fmt::format("{}", fmt::join(at, "; "));
  }
  if (!w.builtin()) return fmt::format("{}", fmt::join(w.cmd, " "));
  std::string s = fmt::format("built-in {}, {} files per thread", w.name, w.files);
  if (!w.dirs.empty()) s += ", " + w.dirs + " dirs";
  if (w.write_bytes) s += ", " + human_bytes(w.write_bytes) + " written per file";
  if (w.fsync) s += ", fsync";
  return s;
}

std::string workload_brief(const CompareOptions& o) {
  const WorkloadSpec& w = o.workload;
  if (!w.builtin() || !w.cmd_at.empty()) {
    std::string cmd = workload_text(o);
    std::size_t slash = cmd.rfind('/', std::min(cmd.find(' '), cmd.size()));
    return slash == std::string::npos ? cmd : cmd.substr(slash + 1);  // the program by name
  }
  std::string s = fmt::format("{} {} files", w.name, w.files);
  if (!w.dirs.empty()) s += ", " + w.dirs + " dirs";
  if (w.write_bytes) s += ", " + human_bytes(w.write_bytes) + " each";
  if (w.fsync) s += ", fsync";
  return s;
}

std::string config_text(const ConfigSpec& c, const std::string& mkfs_path) {
  std::string mkfs =
      c.mkfs_opts.empty() ? "(defaults)" : fmt::format("{}", fmt::join(c.mkfs_opts, " "));
  return fmt::format("{} {}; mount {}", mkfs_path, mkfs,
                     c.mount_opts.empty() ? "(defaults)" : c.mount_opts);
}

namespace {

// summary.txt's columns, and the first screen's the matrix quotes.
constexpr std::size_t kSummaryWidth = 72;

// "INCOMPLETE: REASON; 3 of 10 planned runs finished."
std::string incomplete_text(const CompareOutcome& out) {
  return fmt::format("INCOMPLETE: {}; {} of {} planned runs finished.", out.reason, ok_runs(out),
                     out.plan.size());
}

std::string threads_text(const CompareOptions& o) {
  if (o.threads.size() == 1 && o.threads[0] == 0) return "";
  return fmt::format("; threads {}", fmt::join(o.threads, ","));
}

std::string header_text(const CompareOptions& o, const CompareOutcome& out, std::size_t width) {
  std::string s = wrap(fmt::format("fscost compare: A {} vs B {}", o.a.label, o.b.label), width, 2);
  s += wrap("A: " + config_text(o.a, mkfs_program(o, o.a)), width, 5);
  s += wrap("B: " + config_text(o.b, mkfs_program(o, o.b)), width, 5);
  s += wrap("workload: " + workload_text(o), width, 4);
  s += wrap(fmt::format("{} runs per side, order {}{}; storage {}", o.runs, to_string(o.order),
                        threads_text(o), out.storage),
            width, 4);
  if (!out.reruns.empty()) {
    std::vector<std::string> runs;
    for (const StolenRun& r : out.reruns)
      runs.push_back(fmt::format("{} ({:.0f}%)",
                                 describe_run(r.plan, r.plan.config == 0 ? o.a.label : o.b.label,
                                              o.runs),
                                 100 * r.steal_share));
    s += wrap(fmt::format("run again, the host having taken more than {:.0f}% of the vCPUs' "
                          "time (steal): {}",
                          100 * kStealShare, fmt::join(runs, ", ")),
              width, 4);
  }
  std::vector<std::string> warmups;
  for (const RunResult& r : out.results)
    if (!r.late_warmup.empty())
      warmups.push_back(fmt::format(
          "{}: {}", describe_run(r.plan, r.plan.config == 0 ? o.a.label : o.b.label, o.runs),
          r.late_warmup));
  if (!warmups.empty())
    s += wrap(fmt::format("a warm-up after all, discarded and run once more (its first run "
                          "stood above the later ones): {}",
                          fmt::join(warmups, "; ")),
              width, 4);
  if (out.incomplete) s += "\n" + wrap(incomplete_text(out), width, 2);
  return s;
}

// "Other thread counts: runs/t1/summary.txt, …", or "".
std::string other_points(const std::vector<ComparePoint>& points, std::size_t headline,
                         std::size_t width) {
  std::vector<std::string> others;
  for (std::size_t i = 0; i < points.size(); i++)
    if (i != headline && points[i].diff) others.push_back(points[i].dir + "/summary.txt");
  if (others.empty()) return {};
  return "\n" + wrap("Other thread counts: " + fmt::format("{}", fmt::join(others, ", ")), width, 2);
}

// What stands above the answer: a run that did not finish, a workload that
// cannot show a kernel cost (both also in the header below the line).
std::string compare_confounds(const CompareOptions& o, const CompareOutcome& out, std::size_t width) {
  std::string s;
  if (out.incomplete) s += wrap("! " + incomplete_text(out), width, 2);
  if (auto w = workload_guardrail(o.workload)) s += wrap("! " + w->message, width, 2);
  return s;
}

}  // namespace

std::string render_compare_summary(const CompareOptions& o, const CompareOutcome& out,
                                   const std::vector<ComparePoint>& points,
                                   std::optional<std::size_t> headline, const Scaling& scaling) {
  const std::size_t width = kSummaryWidth;
  if (!headline) return render_compare_text(o, out, points, headline, scaling);
  const ComparePoint& h = points[*headline];
  // Below the line: the setup the header line abbreviates, and the scaling.
  std::string details = "\n" + header_text(o, out, width);
  if (points.size() > 1)
    details += fmt::format("Headline: {} threads (the largest with runs of both sides).\n", h.threads);
  details += render_scaling_text(scaling, o.a.label, o.b.label, width);
  details += other_points(points, *headline, width);
  return compare_confounds(o, out, width) + render_diff_summary(*h.diff, width, details, "tables.txt");
}

std::string render_compare_text(const CompareOptions& o, const CompareOutcome& out,
                                const std::vector<ComparePoint>& points,
                                std::optional<std::size_t> headline, const Scaling& scaling) {
  const std::size_t width = kSummaryWidth;
  std::string s = header_text(o, out, width) + "\n";
  if (auto w = workload_guardrail(o.workload)) s += wrap("! " + w->message, width, 2) + "\n";
  if (!headline) {
    s += wrap(
        "No complete pair: no thread count has a finished run of both A and B, so there "
        "is nothing to compare. The finished runs are kept under runs/.",
        width, 0);
    return s;
  }
  const ComparePoint& h = points[*headline];
  if (points.size() > 1)
    s += fmt::format("Headline: {} threads (the largest with runs of both sides).\n\n", h.threads);
  s += render_diff_text(*h.diff, width) + "\n";
  s += render_scaling_text(scaling, o.a.label, o.b.label, width);
  return s + other_points(points, *headline, width);
}

nlohmann::json compare_json(const CompareOptions& o, const CompareOutcome& out,
                            const std::vector<ComparePoint>& points,
                            std::optional<std::size_t> headline, const Scaling& scaling) {
  nlohmann::json order = nlohmann::json::array(), runs = nlohmann::json::array();
  std::map<std::size_t, const RunResult*> by_index;
  for (const RunResult& r : out.results) by_index[r.plan.index] = &r;
  for (const PlannedRun& p : out.plan) {
    auto it = by_index.find(p.index);
    std::string status = it == by_index.end()      ? "not run"
                         : it->second->interrupted ? "interrupted"
                         : !it->second->late_warmup.empty() ? "warm-up"
                         : it->second->ok()        ? "ok"
                                                   : "failed";
    nlohmann::json e{{"index", p.index},
                     {"config", p.config == 0 ? "A" : "B"},
                     {"rep", p.rep},
                     {"status", status}};
    if (p.threads > 0) e["threads"] = p.threads;
    order.push_back(e);
  }
  for (const RunResult& r : out.results)
    if (!r.interrupted) runs.push_back(run_json(r, o));
  nlohmann::json reruns = nlohmann::json::array();
  for (const StolenRun& r : out.reruns) {
    nlohmann::json e{{"index", r.plan.index},
                     {"config", r.plan.config == 0 ? "A" : "B"},
                     {"rep", r.plan.rep},
                     {"steal_share", r.steal_share}};
    if (r.plan.threads > 0) e["threads"] = r.plan.threads;
    reruns.push_back(std::move(e));
  }
  nlohmann::json pts = nlohmann::json::array();
  for (std::size_t i = 0; i < points.size(); i++) {
    const ComparePoint& p = points[i];
    nlohmann::json e{{"threads", p.threads > 0 ? nlohmann::json(p.threads) : nlohmann::json()},
                     {"runs_a", p.a.runs.size()},
                     {"runs_b", p.b.runs.size()},
                     {"headline", headline == i}};
    if (p.diff && !p.dir.empty()) e["outputs"] = p.dir;
    if (p.diff && headline != i) e["diff"] = diff_json(*p.diff);
    pts.push_back(std::move(e));
  }
  return {{"options", options_json(o)},
          {"storage", out.storage},
          {"incomplete", out.incomplete},
          {"incomplete_reason", out.incomplete ? nlohmann::json(out.reason) : nlohmann::json()},
          {"planned_runs", out.plan.size()},
          {"finished_runs", ok_runs(out)},
          {"order", order},
          {"runs", runs},
          {"stolen_runs", reruns},
          {"headline_threads", headline && points[*headline].threads > 0
                                   ? nlohmann::json(points[*headline].threads)
                                   : nlohmann::json()},
          {"points", pts},
          {"scaling", scaling_json(scaling)}};
}

namespace {

std::string page_title(const CompareOptions& o, const CompareOutcome& out) {
  return fmt::format("fscost compare: {} vs {}{}", o.a.label, o.b.label,
                     out.incomplete ? " (incomplete)" : "");
}

// Each non-headline thread count's own summary, json and page.
Status write_point_outputs(const CompareOptions& o, const std::vector<ComparePoint>& points) {
  for (const ComparePoint& p : points) {
    if (!p.diff || p.dir.empty()) continue;
    DiffHtmlOptions opt;
    opt.title =
        fmt::format("fscost compare: {} vs {}, {} threads", o.a.label, o.b.label, p.threads);
    if (auto ok = write_diff_outputs(*p.diff, p.a, p.b, o.output + "/" + p.dir, opt); !ok)
      return ok.error();
  }
  return std::monostate{};
}

}  // namespace

Result<CompareOutputs> write_compare_outputs(const CompareOptions& o, const CompareOutcome& out) {
  std::vector<ComparePoint> points = load_points(o, out);
  auto headline = headline_point(points);
  Scaling scaling = compare_scaling(out, points);
  if (auto ok = write_point_outputs(o, points); !ok) return ok.error();

  CompareOutputs w{o.output + "/summary.txt",
                   o.output + "/summary.json",
                   o.output + "/report.html",
                   o.output + "/tables.txt",
                   {},
                   headline.has_value()};
  w.text = render_compare_summary(o, out, points, headline, scaling);
  if (headline)
    w.first_screen = compare_confounds(o, out, kSummaryWidth) +
                     render_diff_first_screen(*points[*headline].diff, kSummaryWidth);
  std::string tables = render_compare_text(o, out, points, headline, scaling);
  // The headline's diff streamed, then the compare's own (small) DOM.
  std::string json;
  JsonWriter jw(json);
  jw.begin_object();
  if (headline) write_diff_members(jw, *points[*headline].diff);
  jw.member("compare", compare_json(o, out, points, headline, scaling));
  jw.end_object();
  json += '\n';
  auto sections = compare_html_sections(o, out, points, headline, scaling);
  std::string html;
  if (headline) {
    const ComparePoint& h = points[*headline];
    DiffHtmlOptions opt;
    opt.title = page_title(o, out);
    opt.sections = std::move(sections);
    html = render_diff_html(*h.diff, h.a, h.b, opt);
  } else {
    html = compare_page_without_diff(page_title(o, out), sections);
  }
  for (auto [data, path] : {std::pair{&w.text, &w.summary_txt}, {&tables, &w.tables_txt},
                            {&html, &w.report_html}})
    if (auto ok = write_file_atomic(*data, *path); !ok) return ok.error();
  if (auto ok = write_file_atomic(json, w.summary_json); !ok) return ok.error();
  return w;
}

}  // namespace fscost

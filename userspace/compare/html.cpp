// The compare's own sections of report.html (the diff renders the rest).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "model/json_writer.h"  // dump_json: invalid UTF-8 replaced, never thrown
#include "compare/report.h"
#include "model/escape.h"  // append_escaped, append_escaped_lines

namespace fscost {

namespace {



std::string join_words(const std::vector<std::string>& w) {
  return fmt::format("{}", fmt::join(w, " "));
}

std::string clock_time(std::int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

std::string setup_html(const CompareOptions& o, const CompareOutcome& out,
                       const std::vector<ComparePoint>& points,
                       std::optional<std::size_t> headline) {
  std::string h;
  if (out.incomplete)
    h += "<p class=\"warning\"><strong>Incomplete:</strong> " + escaped(out.reason) + "</p>\n";
  h += "<table><tr><th></th><th>label</th><th>mkfs options</th><th>mount options</th></tr>\n";
  for (int c = 0; c < 2; c++) {
    const ConfigSpec& s = c == 0 ? o.a : o.b;
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>\n",
        c == 0 ? 'A' : 'B', escaped(s.label), escaped(join_words(s.mkfs_opts)), escaped(s.mount_opts));
  }
  h += "</table>\n";
  nlohmann::json opts = options_json(o);
  h += "<p>Workload: <code>" + escaped(dump_json(opts["workload"])) +
       "</code><br>Storage: " + escaped(out.storage) + "<br>" +
       fmt::format("{} runs per side per thread count, order {} (seed {}).", o.runs,
                   to_string(o.order), o.order_seed) +
       "</p>\n";
  if (headline && points.size() > 1)
    h += fmt::format(
        "<p>The diff above is at {} threads, the largest thread count with runs of "
        "both sides.</p>\n",
        points[*headline].threads);
  return h;
}

std::string status_of(const std::map<std::size_t, const RunResult*>& by, std::size_t i) {
  auto it = by.find(i);
  if (it == by.end()) return "not run";
  if (it->second->interrupted) return "interrupted";
  if (!it->second->late_warmup.empty()) return "warm-up: " + it->second->late_warmup;
  return it->second->ok() ? "ok" : "failed: " + it->second->error;
}

std::string order_html(const CompareOutcome& out, const CompareOptions& o) {
  std::map<std::size_t, const RunResult*> by;
  for (const RunResult& r : out.results) by[r.plan.index] = &r;
  std::string h =
      fmt::format("<p>A and B alternate ({}) so that drift of the machine hits both sides. Order",
                  to_string(o.order));
  for (std::size_t i = 0; i < o.threads.size(); i++) {
    int t = o.threads[i];
    h += fmt::format("{} {}<code>{}</code>", i ? "," : "",
                     t > 0 ? fmt::format("at {} threads: ", t) : ": ", order_string(out.plan, t));
  }
  h += ".</p>\n<table><tr><th>#</th><th>threads</th><th>config</th><th>run</th><th>start</th>"
       "<th>seconds</th><th>ops/s</th><th>status</th></tr>\n";
  for (const PlannedRun& p : out.plan) {
    auto it = by.find(p.index);
    const RunResult* r = it == by.end() ? nullptr : it->second;
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td></tr>\n",
        p.index + 1, p.threads > 0 ? std::to_string(p.threads) : "-", p.config == 0 ? 'A' : 'B',
        p.rep, r ? clock_time(r->start_unix_ms) : "-",
        r && r->seconds > 0 ? fmt::format("{:.2f}", r->seconds) : "-",
        r && r->ops_per_s ? fmt::format("{:.0f}", *r->ops_per_s) : "-",
        escaped(status_of(by, p.index)));
  }
  return h + "</table>\n";
}

std::string number(const nlohmann::json& j, const char* key, const char* spec) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(spec), j[key].get<double>());
}

std::string counts_text(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("counts") || !j["counts"].is_object()) return "-";
  std::string s;
  for (const auto& [k, v] : j["counts"].items())
    if (v.is_number() && v.get<double>() != 0) s += (s.empty() ? "" : ", ") + k + " " + v.dump();
  return s;
}

std::string workload_html(const CompareOutcome& out) {
  std::string h =
      "<p>What the workload itself reported (its JSON line; for a command without one, ops/s is "
      "every traced operation over the recording). Its output is kept next to each profile.</p>\n"
      "<table><tr><th>#</th><th>threads</th><th>config</th><th>run</th><th>ops/s</th><th>from</th>"
      "<th>elapsed s</th><th>user s</th><th>sys s</th><th>user share</th><th>operations</th>"
      "<th>files</th></tr>\n";
  for (const RunResult& r : out.results) {
    if (r.interrupted) continue;
    std::string stem = r.profile.empty() ? "" : r.profile.substr(0, r.profile.size() - 8);
    std::string files = stem.empty()
                            ? "-"
                            : fmt::format(
                                  "<a href=\"{0}.profile\">profile</a> <a href=\"{0}.out\">out</a> "
                                  "<a href=\"{0}.err\">err</a>",
                                  escaped(stem));
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</"
        "td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        r.plan.index + 1, r.plan.threads > 0 ? std::to_string(r.plan.threads) : "-",
        r.plan.config == 0 ? 'A' : 'B', r.plan.rep,
        r.ops_per_s ? fmt::format("{:.0f}", *r.ops_per_s) : "-", escaped(r.ops_source),
        number(r.workload, "elapsed_s", "{:.3f}"), number(r.workload, "user_s", "{:.3f}"),
        number(r.workload, "sys_s", "{:.3f}"), number(r.workload, "user_share", "{:.3f}"),
        escaped(counts_text(r.workload)), files);
  }
  return h + "</table>\n";
}

std::string points_html(const std::vector<ComparePoint>& points,
                        std::optional<std::size_t> headline) {
  std::string h;
  for (std::size_t i = 0; i < points.size(); i++) {
    const ComparePoint& p = points[i];
    if (i == headline || !p.diff) continue;
    h += fmt::format(
        "<h3>{} threads</h3><p><a href=\"{}/report.html\">full report</a></p>\n"
        "<pre class=\"diff-text\">{}</pre>\n",
        p.threads, escaped(p.dir), escaped_lines(render_diff_text(*p.diff, 72)));
  }
  return h;
}

}  // namespace

std::vector<HtmlSection> compare_html_sections(const CompareOptions& o, const CompareOutcome& out,
                                               const std::vector<ComparePoint>& points,
                                               std::optional<std::size_t> headline,
                                               const Scaling& scaling) {
  std::vector<HtmlSection> s;
  s.push_back({"compare-setup", "Compare setup", setup_html(o, out, points, headline)});
  s.push_back({"compare-order", "Run order", order_html(out, o)});
  s.push_back({"compare-workload", "Workload figures per run", workload_html(out)});
  s.push_back({"compare-scaling", "Scaling", render_scaling_html(scaling, o.a.label, o.b.label)});
  std::string others = points_html(points, headline);
  if (!others.empty()) s.push_back({"compare-points", "Other thread counts", others});
  return s;
}

std::string compare_page(const std::string& title, const std::string& lead,
                         const std::vector<HtmlSection>& sections) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                  escaped(title) +
                  "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
                  "collapse}td,th{border:1px solid #ccc;padding:2px 6px}.warning{color:#b00}"
                  "table.matrix td{text-align:right}table.matrix td.config{text-align:left}"
                  ".sys{color:#555;font-size:90%}pre{white-space:pre-wrap}"
                  "</style></head><body>\n<h1>" +
                  escaped(title) + "</h1>\n" + lead;
  for (const HtmlSection& s : sections)
    h += "<h2 id=\"" + escaped(s.id) + "\">" + escaped(s.title) + "</h2>\n" + s.html;
  return h + "</body></html>\n";
}

std::string compare_page_without_diff(const std::string& title,
                                      const std::vector<HtmlSection>& sections) {
  return compare_page(title,
                      "<p class=\"warning\">No complete pair: no thread count has a finished "
                      "run of both A and B, so there is no diff.</p>\n",
                      sections);
}

}  // namespace fscost

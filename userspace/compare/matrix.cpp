#include "model/json_writer.h"  // dump_json: invalid UTF-8 replaced, never thrown
#include "compare/matrix.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "compare/guardrail.h"
#include "compare/plan.h"
#include "io/profile_io.h"
#include "model/escape.h"
#include "model/file_io.h"

namespace fscost {

namespace {

std::string letter_label(const CompareOptions& o, std::size_t i) {
  return fmt::format("{} {}", config_letter(static_cast<int>(i)), o.configs[i].label);
}

std::string matrix_title(const CompareOptions& o, const std::string& baseline) {
  return fmt::format("fscost compare: {} configurations against {}", o.configs.size(), baseline);
}


// '*': the cell's ops/s differ from the baseline's.
const char* mark(const MatrixCell& c) { return std::isfinite(c.q) && c.q < 0.05 ? "*" : ""; }

nlohmann::json summary_json(const stats::Summary& s) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"n", s.n}, {"mean", num(s.mean)}, {"ci_lo", num(s.ci_lo)}, {"ci_hi", num(s.ci_hi)}};
}

// "55401 ±2%": the mean and the CI's half width as a share of it.
std::string ops_text(const stats::Summary& s) {
  if (s.n == 0 || !std::isfinite(s.mean)) return "-";
  std::string v = fmt::format("{:.0f}", s.mean);
  if (s.n >= 2 && std::isfinite(s.ci_hi) && s.mean > 0)
    v += fmt::format(" ±{:.0f}%", 100 * (s.ci_hi - s.mean) / s.mean);
  return v;
}

std::string sys_text(const stats::Summary& s) {
  if (s.n == 0 || !std::isfinite(s.mean)) return "";
  return s.mean >= 100 ? fmt::format("{:.0f}", s.mean) : fmt::format("{:.1f}", s.mean);
}

std::string threads_head(int t) {
  if (t == 0) return "ops/s";
  return t == 1 ? "1 thread" : fmt::format("{} threads", t);
}

}  // namespace

std::string pair_dir(const ConfigSpec& c) { return "vs-" + c.label; }

CompareOptions pair_options(const CompareOptions& o, std::size_t config) {
  CompareOptions p = o;
  p.a = o.configs[o.baseline];
  p.b = o.configs[config];
  p.configs = {p.a, p.b};
  p.baseline = 0;
  p.output = o.output + "/" + pair_dir(p.b);
  return p;
}

CompareOutcome pair_outcome(const CompareOptions& o, const CompareOutcome& out,
                            std::size_t config) {
  auto side = [&](int c) -> int {
    if (static_cast<std::size_t>(c) == o.baseline) return 0;
    return static_cast<std::size_t>(c) == config ? 1 : -1;
  };
  CompareOutcome p;
  p.incomplete = out.incomplete;
  p.reason = out.reason;
  p.storage = out.storage;
  for (PlannedRun r : out.plan)
    if (int s = side(r.config); s >= 0) {
      r.config = s;
      p.plan.push_back(r);
    }
  for (RunResult r : out.results)
    if (int s = side(r.plan.config); s >= 0) {
      r.plan.config = s;
      if (!r.profile.empty()) r.profile = "../" + r.profile;  // from DIR/vs-<name>
      p.results.push_back(std::move(r));
    }
  for (StolenRun r : out.reruns)
    if (int s = side(r.plan.config); s >= 0) {
      r.plan.config = s;
      p.reruns.push_back(r);
    }
  return p;
}

Result<Matrix> compute_matrix(const CompareOptions& o, const CompareOutcome& out, unsigned cpus) {
  Matrix m;
  m.threads = o.threads;
  // Per (config, threads): the runs' ops/s and sys µs per op; the CPU
  // (user + sys) per op, for the oversubscription arithmetic.
  std::map<std::pair<std::size_t, int>, std::pair<std::vector<double>, std::vector<double>>> v;
  std::map<std::pair<std::size_t, int>, std::vector<double>> cpu;
  std::map<std::pair<std::size_t, int>, std::size_t> ok;
  for (const RunResult& r : out.results) {
    if (!r.ok()) continue;
    std::pair<std::size_t, int> key{static_cast<std::size_t>(r.plan.config), r.plan.threads};
    ++ok[key];
    auto& [ops, sys] = v[key];
    if (!r.ops_per_s) continue;
    ops.push_back(*r.ops_per_s);
    auto p = read_profile(o.output + "/" + r.profile);
    if (!p) return p.error();
    const Rusage& ru = p.value().rusage;
    double n = *r.ops_per_s * r.seconds;
    if (ru.valid && n > 0) {
      sys.push_back(static_cast<double>(ru.sys_ns) / 1e3 / n);
      cpu[key].push_back(static_cast<double>(ru.sys_ns + ru.user_ns) / 1e3 / n);
    }
  }
  std::vector<double> p_values;
  std::vector<MatrixCell*> tested;
  for (std::size_t c = 0; c < o.configs.size(); ++c) {
    MatrixRow row;
    row.config = c;
    if (c != o.baseline) row.dir = pair_dir(o.configs[c]);
    // The pair's page of each thread count with runs of both (report.h):
    // the largest at its top, the others under runs/t<T>/.
    auto paired = [&](int t) { return ok[{c, t}] > 0 && ok[{o.baseline, t}] > 0; };
    int headline = 0;
    for (int t : o.threads)
      if (paired(t)) headline = t;
    for (int t : o.threads) {
      MatrixCell cell;
      cell.threads = t;
      const auto& [ops, sys] = v[{c, t}];
      cell.ops_per_s = stats::summarize(ops);
      cell.sys_us_per_op = stats::summarize(sys);
      cell.q = std::nan("");
      if (c != o.baseline && paired(t))
        cell.link = row.dir + (t != headline ? fmt::format("/runs/t{}", t) : "") + "/report.html";
      row.cells.push_back(cell);
    }
    m.rows.push_back(std::move(row));
  }
  // ops/s against the baseline, corrected over every cell of the matrix.
  for (auto& row : m.rows) {
    if (row.config == o.baseline) continue;
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      const auto& base = v[{o.baseline, o.threads[i]}].first;
      const auto& mine = v[{row.config, o.threads[i]}].first;
      stats::Welch w = stats::welch_test(base, mine);
      p_values.push_back(w.valid ? w.p : std::nan(""));
      tested.push_back(&row.cells[i]);
    }
  }
  std::vector<double> q = stats::benjamini_hochberg(p_values);
  for (std::size_t i = 0; i < tested.size(); ++i) tested[i]->q = q[i];
  if (auto w = workload_guardrail(o.workload)) m.warnings.push_back(*w);
  for (int t : o.threads) {
    if (t <= static_cast<int>(cpus)) continue;
    std::vector<CpuBound> bounds;
    for (std::size_t c = 0; c < o.configs.size(); ++c)
      bounds.push_back({o.configs[c].label, stats::summarize(cpu[{c, t}]).mean,
                        stats::summarize(v[{c, t}].first).mean});
    m.warnings.push_back(oversubscription_warning(t, cpus, bounds));
  }
  return m;
}

std::string render_matrix_text(const CompareOptions& o, const CompareOutcome& out, const Matrix& m,
                               const std::vector<std::string>& firsts) {
  const std::size_t width = 72;
  std::string s = wrap(matrix_title(o, letter_label(o, o.baseline)), width, 2);
  for (std::size_t i = 0; i < o.configs.size(); ++i)
    s += wrap(letter_label(o, i) + ": " + config_text(o.configs[i], mkfs_program(o, o.configs[i])),
              width, 5);
  s += wrap("workload: " + workload_text(o), width, 4);
  s += wrap(fmt::format("{} runs per configuration, order {} ({}); storage {}", o.runs,
                        to_string(o.order), order_string(out.plan, o.threads.front()), out.storage),
            width, 4);
  if (out.incomplete) s += wrap("INCOMPLETE: " + out.reason, width, 2);
  s += "\n";
  for (const Warning& w : m.warnings) s += wrap("! " + w.message, width, 2);
  if (!m.warnings.empty()) s += "\n";
  // The matrix, at most three thread counts per table: 12 + 3 × 20 columns.
  s += wrap(
      "ops/s (mean ±95% CI half-width) and sys µs per op; '*': ops/s differ "
      "from the baseline's (Welch, Benjamini-Hochberg 0.05)",
      width, 0);
  for (std::size_t from = 0; from < m.threads.size(); from += 3) {
    std::size_t to = std::min(from + 3, m.threads.size());
    std::string head = fmt::format("{:<12}", "config");
    for (std::size_t i = from; i < to; ++i)
      head += fmt::format("{:>20}", threads_head(m.threads[i]));
    s += head + "\n";
    for (const MatrixRow& row : m.rows) {
      std::string line = fmt::format("{:<12}", letter_label(o, row.config).substr(0, 11));
      for (std::size_t i = from; i < to; ++i) {
        const MatrixCell& c = row.cells[i];
        line += fmt::format("{:>20}", fmt::format("{}{:1} {:>5}", ops_text(c.ops_per_s), mark(c),
                                                  sys_text(c.sys_us_per_op)));
      }
      s += line + "\n";
    }
  }
  for (const MatrixRow& row : m.rows) {
    if (row.config == o.baseline) continue;
    s += "\n" + wrap(fmt::format("{} against {} ({}/summary.txt):", letter_label(o, row.config),
                                 letter_label(o, o.baseline), row.dir),
                     width, 2);
    s += firsts[row.config];
  }
  return s;
}

nlohmann::json matrix_json(const CompareOptions& o, const CompareOutcome& out, const Matrix& m) {
  nlohmann::json configs = nlohmann::json::array(), cells = nlohmann::json::array(),
                 warnings = nlohmann::json::array(), order = nlohmann::json::array();
  for (const MatrixRow& row : m.rows) {
    const ConfigSpec& c = o.configs[row.config];
    configs.push_back({{"config", std::string(1, config_letter(static_cast<int>(row.config)))},
                       {"label", c.label},
                       {"fs", c.fs},
                       {"spec", c.spec},
                       {"baseline", row.config == o.baseline},
                       {"outputs", row.dir.empty() ? nlohmann::json() : nlohmann::json(row.dir)}});
    for (const MatrixCell& cell : row.cells)
      cells.push_back(
          {{"config", c.label},
           {"threads", cell.threads > 0 ? nlohmann::json(cell.threads) : nlohmann::json()},
           {"ops_per_s", summary_json(cell.ops_per_s)},
           {"sys_us_per_op", summary_json(cell.sys_us_per_op)},
           {"q", std::isfinite(cell.q) ? nlohmann::json(cell.q) : nlohmann::json()},
           {"diff", cell.link.empty() ? nlohmann::json() : nlohmann::json(cell.link)}});
  }
  for (const Warning& w : m.warnings)
    warnings.push_back({{"kind", warning_name(w.kind)}, {"message", w.message}});
  for (const PlannedRun& p : out.plan) {
    nlohmann::json e{
        {"index", p.index}, {"config", std::string(1, config_letter(p.config))}, {"rep", p.rep}};
    if (p.threads > 0) e["threads"] = p.threads;
    order.push_back(std::move(e));
  }
  return {{"format", "fscost-compare-matrix"},
          {"schema", 1},
          {"baseline", o.configs[o.baseline].label},
          {"configs", configs},
          {"threads", m.threads},
          {"cells", cells},
          {"warnings", warnings},
          {"order", order},
          {"incomplete", out.incomplete},
          {"incomplete_reason", out.incomplete ? nlohmann::json(out.reason) : nlohmann::json()},
          {"storage", out.storage},
          {"options", options_json(o)}};
}

std::string render_matrix_html(const CompareOptions& o, const CompareOutcome& out, const Matrix& m,
                               const std::vector<std::string>& firsts) {
  std::string lead;
  if (out.incomplete)
    lead += "<p class=\"warning\"><strong>Incomplete:</strong> " + escaped(out.reason) + "</p>\n";
  lead += "<ul id=\"matrix-configs\">\n";
  for (std::size_t i = 0; i < o.configs.size(); ++i)
    lead += "<li>" + escaped(letter_label(o, i)) + ": " +
            escaped(config_text(o.configs[i], mkfs_program(o, o.configs[i]))) +
            (i == o.baseline ? " <em>(baseline)</em>" : "") + "</li>\n";
  lead += "</ul>\n<p>workload: " + escaped(workload_text(o)) + "; " + std::to_string(o.runs) +
          " runs per configuration, order " + escaped(order_string(out.plan, o.threads.front())) +
          "; storage " + escaped(out.storage) + "</p>\n";
  if (!m.warnings.empty()) {
    lead += "<ul id=\"matrix-warnings\">\n";
    for (const Warning& w : m.warnings)
      lead +=
          "<li class=\"warning\" data-kind=\"" + escaped(std::string(warning_name(w.kind))) + "\">" + escaped(w.message) + "</li>\n";
    lead += "</ul>\n";
  }
  std::string table =
      "<p>Mean ops/s ± the 95% CI's half width; below, sys µs per op. Each cell links to that "
      "configuration's diff against the baseline at that thread count; * marks ops/s that "
      "differ from the baseline's (Welch's t, Benjamini-Hochberg over the matrix, 0.05).</p>\n"
      "<table class=\"matrix\"><tr><th>config</th>";
  for (int t : m.threads) table += "<th>" + escaped(threads_head(t)) + "</th>";
  table += "</tr>\n";
  for (const MatrixRow& row : m.rows) {
    table += "<tr><td class=\"config\">" + escaped(letter_label(o, row.config)) +
             (row.config == o.baseline ? " (baseline)" : "") + "</td>";
    for (const MatrixCell& c : row.cells) {
      std::string body = escaped(ops_text(c.ops_per_s)) + mark(c) + "<br><span class=\"sys\">" +
                         escaped(sys_text(c.sys_us_per_op)) + " µs sys/op</span>";
      table += "<td data-threads=\"" + std::to_string(c.threads) + "\">" +
               (c.link.empty() ? body : "<a href=\"" + escaped(c.link) + "\">" + body + "</a>") +
               "</td>";
    }
    table += "</tr>\n";
  }
  table += "</table>\n";
  std::string pairs;
  for (const MatrixRow& row : m.rows) {
    if (row.config == o.baseline) continue;
    pairs += "<h3>" + escaped(letter_label(o, row.config)) + " <a href=\"" + escaped(row.dir) +
             "/report.html\">full report</a></h3>\n<pre class=\"diff-text\">";
    append_escaped_lines(pairs, firsts[row.config]);
    pairs += "</pre>\n";
  }
  return compare_page(matrix_title(o, o.configs[o.baseline].label), lead,
                      {{"matrix", "ops/s and sys µs per op", table},
                       {"against-baseline", "Against the baseline", pairs}});
}

Result<CompareOutputs> write_matrix_outputs(const CompareOptions& o, const CompareOutcome& out) {
  std::vector<std::string> firsts(o.configs.size());
  for (std::size_t c = 0; c < o.configs.size(); ++c) {
    if (c == o.baseline) continue;
    CompareOptions po = pair_options(o, c);
    if (auto dir = claim_output_dir(po.output); !dir) return dir.error();
    auto w = write_compare_outputs(po, pair_outcome(o, out, c));
    if (!w) return w.error();
    firsts[c] = w.value().has_diff ? w.value().first_screen : "  no complete pair.\n";
  }
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  auto m = compute_matrix(o, out, cpus);
  if (!m) return m.error();
  CompareOutputs w{
      o.output + "/summary.txt", o.output + "/summary.json", o.output + "/report.html", "", {}, true};
  w.text = render_matrix_text(o, out, m.value(), firsts);
  std::string json = dump_json(matrix_json(o, out, m.value()), 2) + "\n";
  std::string html = render_matrix_html(o, out, m.value(), firsts);
  for (auto [data, path] :
       {std::pair{&w.text, &w.summary_txt}, {&html, &w.report_html}, {&json, &w.summary_json}})
    if (auto ok = write_file_atomic(*data, *path); !ok) return ok.error();
  return w;
}

}  // namespace fscost

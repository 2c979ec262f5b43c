// fscost diff: runs of A and runs of B → explanation, JSON, HTML report.
#include "cli/cmd_diff.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "diff/calibration.h"
#include "report/diff_report.h"
#include "compare/progress.h"  // format_duration
#include "model/escape.h"
#include "system/status_line.h"

namespace fscost {

namespace {

struct DiffArgs {
  std::string a, b;
  std::string label_a, label_b;  // "" = the path as given
  std::string output;            // "" = no files, only stdout
  std::string format = "text";
  DiffConfig config;
  bool quiet = false;
  DiffJsonOptions json;  // all_functions: DIR/functions.json, and every function on stdout's JSON
  std::string calibration;  // --calibration FILE: calibration.json of fscost calibrate
};

int run_diff(DiffArgs args) {
  // Read before the runs: a bad file is reported before minutes of loading.
  if (!args.calibration.empty())
    args.config.calibration =
        std::make_shared<const Calibration>(take(read_calibration(args.calibration)));
  StatusLine status(stderr, args.quiet);
  status.stage(fmt::format("fscost diff: loading A ({})", args.a));
  RunSet a = take(load_runs(args.a, args.label_a));
  status.stage(fmt::format("fscost diff: {}: loading B ({})", format_duration(status.elapsed()), args.b));
  RunSet b = take(load_runs(args.b, args.label_b));
  status.stage(fmt::format("fscost diff: {}: comparing {} and {} runs", format_duration(status.elapsed()),
                           a.runs.size(), b.runs.size()));
  Diff d = diff_runs(a, b, args.config);
  if (!args.output.empty())
    status.stage(fmt::format("fscost diff: {}: writing {}", format_duration(status.elapsed()), args.output));
  // Written before stdout's summary, so the status line is gone by then.
  if (!args.output.empty()) take(write_diff_outputs(d, a, b, args.output, {}, args.json));
  status.clear();
  if (args.format == "json")
    fmt::print("{}", diff_json_text(d, args.json));
  else  // with files, what summary.txt holds; without, everything
    fmt::print("{}", terminal_safe(args.output.empty() ? render_diff_text(d) : render_diff_summary(d)));
  if (!args.output.empty() && !args.quiet) {
    fmt::print(stderr, "fscost: wrote {0}/summary.txt, {0}/tables.txt, {0}/summary.json, {0}/report.html{1}\n",
               args.output, args.json.all_functions ? fmt::format(", {}/functions.json", args.output) : "");
  }
  return 0;
}

}  // namespace

void add_diff(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<DiffArgs>();
  auto* sub = app.add_subcommand(
      "diff", "Explain where B's extra (or saved) kernel cost per operation comes from");
  const std::string runs = fmt::format("a directory of profiles (one per run, at most {})",
                                       kMaxRunsPerSide);
  sub->add_option("a", a->a, "A: a profile, or " + runs)->required();
  sub->add_option("b", a->b, "B: a profile, or " + runs)->required();
  sub->add_option("--label-a", a->label_a, "Name of A in the output (default: its path)");
  sub->add_option("--label-b", a->label_b, "Name of B in the output (default: its path)");
  sub->add_option("-o,--output", a->output,
                  "Also write DIR/summary.txt, DIR/summary.json and DIR/report.html");
  sub->add_flag("-q,--quiet", a->quiet, "No progress line, no 'wrote' line");
  sub->add_flag("--all-functions", a->json.all_functions,
                "Every function compared, not only the significant and the top 25 per operation: "
                "DIR/functions.json with -o, and in --format json");
  sub->add_option("--format", a->format, "What to print on stdout: text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--alpha", a->config.alpha, "False discovery rate over the diff's comparisons")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 0.5));
  sub->add_option("--flow-share", a->config.flow_share,
                  "Name the narrowest function that carries this share of a delta")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 1.0));
  sub->add_option("--top", a->config.top, "Entries of each ranked list shown per operation: functions, locks")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  sub->add_option("--min-ops", a->config.min_ops,
                  "Ops with fewer calls per run are not tested (no verdict, not on the first "
                  "screen)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e12));
  sub->add_option("--calibration", a->calibration,
                  "calibration.json of fscost calibrate: floor the ops' time intervals by this "
                  "host's between-compare noise");
  sub->add_flag("--keep-outliers", [a](std::int64_t) { a->config.drop_outliers = false; },
                "Keep outlier runs in the figures (default: leave them out, named)");
  sub->callback([a, &run] { run = [a] { return run_diff(*a); }; });
}

}  // namespace fscost

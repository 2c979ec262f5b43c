// fscost compare: its flags, and its outputs printed once compare/session
// has run it (options → checks → storage → interleaved runs → outputs).
#include "cli/cmd_compare.h"
#include "cli/compare_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "compare/matrix.h"
#include "compare/report.h"
#include "compare/run.h"  // compare_stop_signal
#include "compare/session.h"
#include "model/escape.h"
#include "system/owned_dir.h"

namespace fscost {

namespace {

// compare's outputs: summary.txt, summary.json, report.html.
int write_outputs(const CompareOptions& o, const CompareOutcome& outcome, const OwnedDir& out) {
  CompareOutputs w = take(is_matrix(o) ? write_matrix_outputs(o, outcome)
                                       : write_compare_outputs(o, outcome));
  fmt::print("{}\n", terminal_safe(w.text));
  fmt::print("fscost compare: summary {}\n", terminal_safe(out.shown(w.summary_txt)));
  fmt::print("fscost compare: report  {}\n", terminal_safe(out.shown(w.report_html)));
  fmt::print("fscost compare: data    {}\n", terminal_safe(out.shown(w.summary_json)));
  std::fflush(stdout);
  if (int sig = compare_stop_signal()) return 128 + sig;
  return outcome.incomplete ? 1 : 0;
}

int run_compare(const CompareArgs& args) {
  return run_compare_with(take(check_compare_args(args)), "compare", write_outputs);
}

// --a/--b or --config, and what names and mounts them. Returns --a, whose
// count the callback reads (CompareArgs::ab_given).
CLI::Option* add_config_flags(CLI::App* sub, CompareArgs& a) {
  auto* opt_a = sub->add_option(
      "--a", a.a, "Configuration A, e.g. 'mkfs: -m rmapbt=0; mount: noatime' or 'fs: ext4'");
  auto* opt_b = sub->add_option("--b", a.b, "Configuration B, e.g. 'mkfs: -m rmapbt=1'");
  opt_a->needs(opt_b);
  opt_b->needs(opt_a);
  auto* opt_config = sub->add_option(
      "--config", a.configs,
      "NAME=SPEC, repeated: two or more configurations instead of --a/--b, e.g. "
      "--config ext4='fs: ext4' --config xfs='fs: xfs' --config btrfs='fs: btrfs'");
  opt_config->excludes(opt_a)->excludes(opt_b);
  sub->add_option("--baseline", a.baseline,
                  "The --config every other one is diffed against (default: the first)")
      ->needs(opt_config);
  sub->add_option("--mount-opts-a", a.mount_a, "Mount options of A (instead of 'mount:' in --a)");
  sub->add_option("--mount-opts-b", a.mount_b, "Mount options of B");
  sub->add_option("--label-a", a.label_a, "Name of A in the outputs (default: from its options)");
  sub->add_option("--label-b", a.label_b, "Name of B in the outputs");
  return opt_a;
}

}  // namespace

void add_compare(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand(
      "compare",
      "Compare filesystem configurations: interleaved runs, recorded, diffed against a baseline");
  add_mkfs_flags(sub, *a);
  auto* opt_a = add_config_flags(sub, *a);
  auto* size = add_run_flags(sub, *a);
  sub->add_option("--runs", a->runs, "Runs per configuration per thread count")
      ->capture_default_str();
  sub->add_flag("--until-resolved{20}", a->until_resolved,
                "Add interleaved runs while the headline op's time is not resolved and at most "
                "MAX runs a side would resolve it (--until-resolved=MAX; alone: 20)");
  sub->add_option("--calibration", a->calibration,
                  "calibration.json of fscost calibrate: floor the ops' time intervals by this "
                  "host's between-compare noise");
  add_output_flags(sub, *a);
  sub->callback([a, &run, size, opt_a] {
    a->size_given = size->count() > 0;
    a->ab_given = opt_a->count() > 0;
    run = [a] { return run_compare(*a); };
  });
}

}  // namespace fscost

// fscost html: profile → one self-contained HTML page.
#include "cli/cmd_html.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

#include "model/file_io.h"
#include "report/html_report.h"
#include "io/profile_io.h"

namespace fscost {

namespace {

struct HtmlArgs {
  std::string file;
  std::string output = "fscost-report.html";  // "-" = stdout
  bool no_per_op = false;
  bool quiet = false;
  double max_size_mib = 8;  // 0 = no limit
  HtmlOptions html;
};

int run_html(HtmlArgs a) {
  if (a.output != "-") take(check_output_path(a.output));
  Profile p = take(read_profile(a.file));
  a.html.source = a.file;
  a.html.per_op_graphs = !a.no_per_op;
  a.html.max_bytes = static_cast<std::size_t>(a.max_size_mib * (1 << 20));
  std::string page = render_html_report(p, a.html);
  if (a.output == "-") {
    fmt::print("{}", page);
    return 0;
  }
  take(write_file_atomic(page, a.output));
  if (!a.quiet) fmt::print(stderr, "fscost: wrote {} ({} KiB)\n", a.output, (page.size() + 1023) / 1024);
  return 0;
}

}  // namespace

void add_html(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<HtmlArgs>();
  auto* sub = app.add_subcommand(
      "html", "Write a profile as one self-contained HTML report with flame graphs");
  sub->add_option("file", a->file, "Profile file")->required();
  sub->add_option("-o,--output", a->output, "HTML file (- for stdout)")->capture_default_str();
  sub->add_flag("-q,--quiet", a->quiet, "No 'wrote' line");
  sub->add_option("--title", a->html.title, "Page title (default: fscost report: COMMAND)");
  sub->add_flag("--no-per-op", a->no_per_op,
                "Only the combined flame graphs, none per operation (smaller page)");
  sub->add_option("--min-width", a->html.min_width_px, "Prune frames narrower than this (px)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-size", a->max_size_mib,
                  "Graph budget in MiB: larger graphs prune narrow frames harder (0 = no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--image-width", a->html.graph_width, "Flame graph width (px)")
      ->capture_default_str()
      ->check(CLI::Range(200, 100000));
  sub->callback([a, &run] { run = [a] { return run_html(*a); }; });
}

}  // namespace fscost

// fscost convert: a profile as speedscope JSON, folded stacks or pprof.
#include "cli/cmd_convert.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unistd.h>

#include "model/escape.h"
#include "model/file_io.h"
#include "model/json_writer.h"
#include "report/pprof.h"
#include "report/speedscope.h"
#include "io/profile_io.h"
#include "report/report.h"

namespace fscost {

namespace {

struct ConvertArgs {
  std::string file;
  std::string to;
  std::string view = "oncpu";
  bool view_given = false;
  std::optional<std::string> op;
  std::optional<std::string> output;  // stdout when absent
};

std::string speedscope(const Profile& p, const ReportOptions& opt, const std::string& file) {
  nlohmann::json doc = to_speedscope(p, opt);
  if (doc["profiles"].empty())
    throw UserError(fmt::format("{} has no {} stacks{} to convert", file, opt.view,
                                opt.op ? " for op " + *opt.op : ""),
                    "try another --view or --op; `fscost report FILE` shows what was recorded");
  return dump_json(doc) + '\n';
}

// Every view in one file: pprof's sample types are the views' measures.
std::string pprof(const Profile& p, const ConvertArgs& a) {
  if (a.view_given)
    throw UserError("--view does not apply to --to pprof: the file holds every view",
                    "choose one in pprof: -sample_index=samples, cpu, offcpu or lock_wait");
  if (!a.output && isatty(STDOUT_FILENO))
    throw UserError("a pprof profile is binary; not writing it to a terminal",
                    "pass -o FILE.pb.gz, or redirect standard output");
  if (a.op && !std::any_of(p.ops.begin(), p.ops.end(), [&](const OpStats& o) { return o.name == *a.op; }))
    throw UserError(fmt::format("{} has no operation '{}'", a.file, *a.op),
                    "`fscost report FILE` lists its operations");
  return take(to_pprof(p, a.op));
}

int convert(const ConvertArgs& a) {
  if (a.output) take(check_output_path(*a.output));
  Profile p = take(read_profile(a.file));
  if (a.to == "pprof") {
    std::string out = pprof(p, a);
    if (!a.output) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      return std::fflush(stdout) == 0 ? 0 : 1;
    }
    take(write_file_atomic(out, *a.output));
    return 0;
  }
  ReportOptions opt;
  opt.view = take(parse_view(a.view));
  opt.op = a.op;
  take(validate_report_options(p, opt));
  std::string out = a.to == "speedscope" ? speedscope(p, opt, a.file) : render_folded(p, opt);
  if (!a.output) {
    // Standard output may be a terminal: frames with control characters
    // are escaped there as `report --format folded` prints them. A file is
    // data for other tools, and gets the frames as they are.
    fmt::print("{}", a.to == "folded" ? terminal_safe(out) : out);
    return 0;
  }
  take(write_file_atomic(out, *a.output));
  return 0;
}

}  // namespace

void add_convert(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<ConvertArgs>();
  auto* sub = app.add_subcommand("convert", "Write a profile in another tool's format");
  sub->add_option("file", a->file, "Profile file")->required();
  sub->add_option("--to", a->to,
                  "speedscope (JSON for speedscope.app), folded, or pprof (gzipped profile.proto "
                  "with every view, for go tool pprof, Pyroscope, Parca)")
      ->required()
      ->check(CLI::IsMember({"speedscope", "folded", "pprof"}));
  sub->add_option("--view", a->view, "oncpu, offcpu or locks (not with pprof)")
      ->capture_default_str()
      ->check(CLI::IsMember({"oncpu", "offcpu", "locks"}));
  sub->add_option("--op", a->op, "Only this operation");
  sub->add_option("-o,--output", a->output, "Output file (default: standard output)");
  sub->callback([a, sub, &run] {
    a->view_given = sub->count("--view") > 0;
    run = [a] { return convert(*a); };
  });
}

}  // namespace fscost

// fscost convert: a profile as speedscope JSON or folded stacks.
#include "cli/cmd_convert.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/file_io.h"
#include "report/speedscope.h"
#include "io/profile_io.h"
#include "report/report.h"

namespace fscost {

namespace {

struct ConvertArgs {
  std::string file;
  std::string to;
  std::string view = "oncpu";
  std::optional<std::string> op;
  std::optional<std::string> output;  // stdout when absent
};

std::string speedscope(const Profile& p, const ReportOptions& opt, const std::string& file) {
  nlohmann::json doc = to_speedscope(p, opt);
  if (doc["profiles"].empty())
    throw UserError(fmt::format("{} has no {} stacks{} to convert", file, opt.view,
                                opt.op ? " for op " + *opt.op : ""),
                    "try another --view or --op; `fscost report FILE` shows what was recorded");
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

int convert(const ConvertArgs& a) {
  Profile p = take(read_profile(a.file));
  ReportOptions opt;
  opt.view = take(parse_view(a.view));
  opt.op = a.op;
  take(validate_report_options(p, opt));
  std::string out = a.to == "speedscope" ? speedscope(p, opt, a.file) : render_folded(p, opt);
  if (!a.output) {
    fmt::print("{}", out);
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
  sub->add_option("--to", a->to, "speedscope (JSON for speedscope.app) or folded")
      ->required()
      ->check(CLI::IsMember({"speedscope", "folded"}));
  sub->add_option("--view", a->view, "oncpu, offcpu or locks")
      ->capture_default_str()
      ->check(CLI::IsMember({"oncpu", "offcpu", "locks"}));
  sub->add_option("--op", a->op, "Only this operation");
  sub->add_option("-o,--output", a->output, "Output file (default: standard output)");
  sub->callback([a, &run] { run = [a] { return convert(*a); }; });
}

}  // namespace fscost

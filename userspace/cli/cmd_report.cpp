// fscost report: read a profile, print it as text, JSON or folded stacks.
#include <fmt/format.h>

#include "cli/commands.h"
#include "io/profile_io.h"
#include "model/escape.h"
#include "model/json_writer.h"
#include "report/report.h"

#include <nlohmann/json.hpp>

namespace fscost {

int cmd_report(const ReportArgs& a) {
  Profile p = take(read_profile(a.file));
  ReportOptions opts;
  opts.op = a.op;
  opts.top_stacks = a.top;
  opts.view = take(parse_view(a.view));
  take(validate_report_options(p, opts));
  if (a.format == "json")
    fmt::print("{}\n", dump_json(report_json(p, opts), 2));
  else if (a.format == "folded")
    fmt::print("{}", terminal_safe(render_folded(p, opts)));
  else
    fmt::print("{}", terminal_safe(render_text(p, opts)));
  return 0;
}

}  // namespace fscost

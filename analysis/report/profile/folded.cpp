// Folded stacks for FlameGraph / inferno: one "root;outer;...;leaf value"
// line per distinct stack (views/stacks.h says what each view's stacks hold).
#include <fmt/format.h>

#include "report/report.h"
#include "views/stacks.h"

namespace fscost {

std::string render_folded(const Profile& p, const ReportOptions& opt) {
  std::string out;
  for (const auto& s : profile_stacks(p, opt.view, opt.op)) {
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
      if (i > 0) out += ';';
      out += s.frames[i].str();
    }
    fmt::format_to(std::back_inserter(out), " {}\n", s.value);
  }
  return out;
}

}  // namespace fscost

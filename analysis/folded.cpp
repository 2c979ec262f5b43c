// Folded stacks for FlameGraph / inferno: one "root;outer;...;leaf count"
// line per distinct stack.
#include <fmt/format.h>

#include <map>

#include "report.h"

namespace fscost {

namespace {

// ';' separates frames and '\n' ends a line, so neither may appear inside one.
std::string sanitize(std::string s) {
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string root_of(const StackSample& s) {
  switch (s.kind) {
    case SampleKind::Op:
      return sanitize(s.name);
    case SampleKind::User:
      return "[user]";
    case SampleKind::Kernel:
      return "[kernel]";
    case SampleKind::Kthread:
      return sanitize("[kthread:" + s.name + "]");
  }
  return "[unknown]";
}

bool wanted(const StackSample& s, const ReportOptions& opt) {
  if (s.count == 0) return false;
  return !opt.op || (s.kind == SampleKind::Op && s.name == *opt.op);
}

}  // namespace

std::string render_folded(const Profile& p, const ReportOptions& opt) {
  // A map sorts the lines and merges stacks that sanitizing made equal.
  std::map<std::string, std::uint64_t> lines;
  for (const auto& s : p.samples) {
    if (!wanted(s, opt)) continue;
    std::string key = root_of(s);
    for (const auto& f : s.frames) key += ';' + sanitize(f);
    lines[key] += s.count;
  }
  std::string out;
  for (const auto& [stack, count] : lines) out += fmt::format("{} {}\n", stack, count);
  return out;
}

}  // namespace fscost

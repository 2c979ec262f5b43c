// Folded stacks for FlameGraph / inferno: one "root;outer;...;leaf value"
// line per distinct stack. The value is samples (oncpu), or nanoseconds
// off CPU (offcpu) or waited on locks (locks).
#include <fmt/format.h>

#include <map>

#include "format_folded.h"
#include "lock_names.h"
#include "report.h"
#include "report_view.h"

namespace fscost {

namespace {

// A map sorts the lines and merges stacks that sanitizing made equal.
using Lines = std::map<std::string, std::uint64_t>;

bool wanted(SampleKind kind, const std::string& name, std::uint64_t value,
            const ReportOptions& opt) {
  if (value == 0) return false;
  return !opt.op || (kind == SampleKind::Op && name == *opt.op);
}

void append(std::string& key, const Stack& frames) {
  for (const auto& f : frames) key += ';' + folded_frame(f);
}

void oncpu_lines(const Profile& p, const ReportOptions& opt, Lines& lines) {
  for (const auto& s : p.samples) {
    if (!wanted(s.kind, s.name, s.count, opt)) continue;
    std::string key = folded_root(s.kind, s.name);
    append(key, s.frames);
    lines[key] += s.count;
  }
}

// The waker follows the blocked stack after "--", leaf first and then its
// comm, as bcc's offwaketime prints it: in a flame graph the waker's stack
// stands upside down on the blocked leaf it woke.
void offcpu_lines(const Profile& p, const ReportOptions& opt, Lines& lines) {
  for (const auto& s : p.offcpu) {
    if (!wanted(s.kind, s.name, s.total_ns, opt)) continue;
    std::string key = folded_root(s.kind, s.name) + ";[" + folded_frame(s.wait_class) + "]";
    append(key, s.frames);
    if (!s.waker.empty() || !s.waker_frames.empty()) {
      key += ";--";
      append(key, {s.waker_frames.rbegin(), s.waker_frames.rend()});
      key += ';' + folded_frame(s.waker.empty() ? "[unknown waker]" : s.waker);
    }
    lines[key] += s.total_ns;
  }
}

void lock_lines(const Profile& p, const ReportOptions& opt, Lines& lines) {
  for (const auto& s : p.locks) {
    if (!wanted(s.kind, s.name, s.total_ns, opt)) continue;
    std::string key = folded_root(s.kind, s.name) + ';' + folded_frame(lock_name(s));
    append(key, s.frames);
    lines[key] += s.total_ns;
  }
}

}  // namespace

// ';' separates frames and '\n' ends a line, so neither may appear inside one.
std::string folded_frame(std::string s) {
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string folded_root(SampleKind kind, const std::string& name) {
  switch (kind) {
    case SampleKind::Op:
      return folded_frame(name);
    case SampleKind::User:
      return "[user]";
    case SampleKind::Kernel:
      return "[kernel]";
    case SampleKind::Kthread:
      return folded_frame("[kthread:" + name + "]");
  }
  return "[unknown]";
}

std::string render_folded(const Profile& p, const ReportOptions& opt) {
  Lines lines;
  switch (view_of(opt)) {
    case View::OnCpu:
      oncpu_lines(p, opt, lines);
      break;
    case View::OffCpu:
      offcpu_lines(p, opt, lines);
      break;
    case View::Locks:
      lock_lines(p, opt, lines);
      break;
  }
  std::string out;
  for (const auto& [stack, value] : lines) out += fmt::format("{} {}\n", stack, value);
  return out;
}

}  // namespace fscost

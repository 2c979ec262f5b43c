#include "model/profile.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace fscost {

namespace {

// The spelling of each kind in profiles, reports and folded roots.
constexpr std::array<std::pair<SampleKind, const char*>, 4> kKindNames = {{
    {SampleKind::Op, "op"},
    {SampleKind::User, "user"},
    {SampleKind::Kernel, "kernel"},
    {SampleKind::Kthread, "kthread"},
}};

}  // namespace

const char* to_string(SampleKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name;
  return "unknown";
}

bool parse_sample_kind(const std::string& s, SampleKind& out) {
  for (const auto& [kind, name] : kKindNames) {
    if (s == name) {
      out = kind;
      return true;
    }
  }
  return false;
}

std::string machine_summary(const Metadata& m) {
  std::vector<std::string> parts;
  if (!m.kernel_release.empty()) parts.push_back("kernel " + m.kernel_release);
  if (!m.hostname.empty()) parts.push_back((parts.empty() ? "host " : "on ") + m.hostname);
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : " ") + part;
  if (m.cpus > 0) out += fmt::format("{}{} CPU{}", out.empty() ? "" : ", ", m.cpus, m.cpus == 1 ? "" : "s");
  if (out.empty())
    return fmt::format("no kernel, host or CPU count recorded ({})",
                       m.target.empty() ? "unknown origin" : m.target);
  return out;
}

namespace {

bool bound(InternedStack& frames) {
  if (frames.size() <= kMaxStackDepth) return false;
  Stack cut(frames.begin(), frames.begin() + kMaxStackDepth);
  cut.back() = Frame("[truncated]");
  frames = std::move(cut);
  return true;
}

}  // namespace

void bound_stack_depth(Profile& p) {
  std::uint64_t cut = 0;
  for (auto& s : p.samples) cut += bound(s.frames);
  for (auto& s : p.offcpu) cut += bound(s.frames) + bound(s.waker_frames);
  for (auto& s : p.locks) cut += bound(s.frames);
  for (auto& s : p.lock_holders) cut += bound(s.frames) + bound(s.holder_frames);
  if (cut) p.drops["stack_depth_truncated"] += cut;
}

}  // namespace fscost

#include "model/profile.h"

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

}  // namespace fscost

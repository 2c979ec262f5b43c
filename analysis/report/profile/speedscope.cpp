// speedscope output (report/speedscope.h, docs/FORMATS.md). Built from
// profile_stacks, what render_folded prints, so speedscope shows exactly
// the stacks, roots and values of the folded output and of the flame
// graphs made from it.
#include "report/speedscope.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/folded.h"
#include "views/stacks.h"
#include "views/report_view.h"

namespace fscost {

namespace {

struct Group {
  std::string root;
  std::vector<std::pair<std::vector<std::string>, std::uint64_t>> stacks;  // root first
  std::uint64_t total = 0;
};

// The view's stacks by root (operation or background owner), each stack
// root first.
std::vector<Group> group_by_root(const std::vector<ProfileStack>& stacks) {
  std::map<std::string, Group> groups;
  for (const auto& st : stacks) {
    if (st.frames.empty()) continue;
    std::vector<std::string> frames;
    frames.reserve(st.frames.size());
    for (const auto& f : st.frames) frames.emplace_back(f.str());
    Group& g = groups[frames.front()];
    g.root = frames.front();
    g.total += st.value;
    g.stacks.emplace_back(std::move(frames), st.value);
  }
  std::vector<Group> out;
  for (auto& [root, g] : groups) out.push_back(std::move(g));
  return out;
}

// Operations first, then background (user, kernel, kernel threads); the
// heaviest first within each.
int rank(const std::string& root) {
  auto owner = owner_from_root(root);
  if (!owner || owner->first == SampleKind::Op) return 0;
  if (owner->first == SampleKind::User) return 1;
  if (owner->first == SampleKind::Kernel) return 2;
  return 3;
}

void order(std::vector<Group>& groups) {
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    int ra = rank(a.root), rb = rank(b.root);
    if (ra != rb) return ra < rb;
    return a.total > b.total;
  });
}

class FrameTable {
 public:
  std::size_t index(const std::string& name) {
    auto [it, added] = index_.try_emplace(name, frames_.size());
    if (added) frames_.push_back({{"name", name}});
    return it->second;
  }
  nlohmann::json take() { return std::move(frames_); }

 private:
  std::map<std::string, std::size_t> index_;
  nlohmann::json frames_ = nlohmann::json::array();
};

std::string file_name(const Profile& p, const ReportOptions& opt) {
  std::string what = p.meta.command.empty() ? "fscost profile" : p.meta.command;
  if (opt.op) return fmt::format("{} [{}, op {}]", what, opt.view, *opt.op);
  return fmt::format("{} [{}]", what, opt.view);
}

}  // namespace

nlohmann::json to_speedscope(const Profile& p, const ReportOptions& opt) {
  std::vector<Group> groups = group_by_root(profile_stacks(p, opt.view, opt.op));
  order(groups);
  const char* unit = opt.view == View::OnCpu ? "none" : "nanoseconds";
  FrameTable frames;
  nlohmann::json profiles = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json samples = nlohmann::json::array();
    nlohmann::json weights = nlohmann::json::array();
    for (const auto& [stack, value] : g.stacks) {
      nlohmann::json indices = nlohmann::json::array();
      for (const auto& f : stack) indices.push_back(frames.index(f));
      samples.push_back(std::move(indices));
      weights.push_back(value);
    }
    profiles.push_back({{"type", "sampled"},
                        {"name", g.root},
                        {"unit", unit},
                        {"startValue", 0},
                        {"endValue", g.total},
                        {"samples", std::move(samples)},
                        {"weights", std::move(weights)}});
  }
  return {
      {"$schema", kSpeedscopeSchema},    {"shared", {{"frames", frames.take()}}},
      {"profiles", std::move(profiles)}, {"name", file_name(p, opt)},
      {"activeProfileIndex", 0},         {"exporter", fmt::format("fscost {}", FSCOST_VERSION)}};
}

}  // namespace fscost

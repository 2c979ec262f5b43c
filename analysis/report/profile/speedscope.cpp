// speedscope output (report/speedscope.h, docs/FORMATS.md). Built from
// render_folded's lines so speedscope shows exactly the stacks, roots and
// values of the folded output and of the flame graphs made from it.
#include "report/speedscope.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/folded.h"
#include "views/report_view.h"

namespace fscost {

namespace {

struct Group {
  std::string root;
  std::vector<std::pair<std::vector<std::string>, std::uint64_t>> stacks;  // root first
  std::uint64_t total = 0;
};

// render_folded writes "root;f1;...;fn VALUE" with an unsigned VALUE and no
// ';' or '\n' inside a frame, so the last space splits every line.
std::vector<Group> group_by_root(const std::string& folded) {
  std::map<std::string, Group> groups;
  std::string_view text = folded;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    auto space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    std::uint64_t value = 0;
    std::from_chars(line.data() + space + 1, line.data() + line.size(), value);
    std::vector<std::string> frames;
    std::string_view stack = line.substr(0, space);
    for (auto semi = stack.find(';');; semi = stack.find(';')) {
      frames.emplace_back(stack.substr(0, semi));
      if (semi == std::string_view::npos) break;
      stack.remove_prefix(semi + 1);
    }
    Group& g = groups[frames.front()];
    g.root = frames.front();
    g.total += value;
    g.stacks.emplace_back(std::move(frames), value);
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
  std::vector<Group> groups = group_by_root(render_folded(p, opt));
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

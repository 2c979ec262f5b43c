// What differs between the filesystems of A and B beyond what was asked
// (compare_setup, internal.h): each side's settings from the text its tools
// printed (Profile::setup), compared name by name.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "diff/internal.h"
#include "model/fs_settings.h"

namespace fscost {

namespace {

std::string get(const Profile& p, const char* key) {
  auto it = p.setup.find(key);
  return it == p.setup.end() ? std::string() : it->second;
}

// The settings that are not the filesystem's geometry or mount options:
// what made it, and where. The only ones two filesystems share.
constexpr const char* kMadeBy[] = {"fs", "mkfs_version", "cpu_model"};

bool made_by(const std::string& name) {
  return std::any_of(std::begin(kMadeBy), std::end(kMadeBy),
                     [&](const char* k) { return name == k; });
}

// A run's settings: the geometry mkfs printed, completed by xfs_info's, the
// mount options the kernel showed, and the filesystem, tools and CPU that
// made them. (ext4's and btrfs' tools print no XFS geometry block: theirs
// are the mount options only.)
Settings settings_of(const Profile& p) {
  Settings out = parse_xfs_geometry(get(p, "mkfs_output"));
  std::set<std::string> seen;
  for (const auto& [name, v] : out) seen.insert(name);
  for (auto& kv : parse_xfs_geometry(get(p, "fs_info")))
    if (seen.insert(kv.first).second) out.push_back(std::move(kv));
  for (auto& kv : parse_mount_options(get(p, "mount_options"))) out.push_back(std::move(kv));
  for (const char* key : kMadeBy)
    if (auto v = get(p, key); !v.empty()) out.emplace_back(key, v);
  return out;
}

std::map<std::string, std::string> as_map(const Settings& s) {
  return {s.begin(), s.end()};
}

// Names whose value differs between x and y (or is on one side only), in
// x's order then y's.
std::vector<std::string> differing(const Settings& x, const Settings& y) {
  auto mx = as_map(x), my = as_map(y);
  std::vector<std::string> out;
  for (const auto& [name, v] : x)
    if (auto it = my.find(name); it == my.end() || it->second != v) out.push_back(name);
  for (const auto& [name, v] : y)
    if (!mx.contains(name)) out.push_back(name);
  return out;
}

bool recorded(const RunSet& s) {
  return std::all_of(s.runs.begin(), s.runs.end(),
                     [](const Profile& p) { return !get(p, "mkfs_output").empty(); });
}

void check_side(const RunSet& s, const char* side, std::vector<Warning>& warnings) {
  const Settings first = settings_of(s.runs.front());
  std::set<std::string> names;
  for (std::size_t i = 1; i < s.runs.size(); ++i)
    for (auto& n : differing(first, settings_of(s.runs[i]))) names.insert(std::move(n));
  if (names.empty()) return;
  warnings.push_back(
      {WarningKind::SetupVaries,
       fmt::format("{}'s runs differ among themselves in {} ({}): they are not one "
                   "configuration.",
                   side, fmt::join(names, ", "), s.label)});
}

}  // namespace

SetupDiff compare_setup(const RunSet& a, const RunSet& b, std::vector<Warning>& warnings) {
  SetupDiff d;
  if (a.runs.empty() || b.runs.empty() || !recorded(a) || !recorded(b)) return d;
  d.recorded = true;
  const Profile &pa = a.runs.front(), &pb = b.runs.front();
  d.mkfs_a = get(pa, "mkfs_version");
  d.mkfs_b = get(pb, "mkfs_version");
  std::set<std::string> asked = asked_settings(get(pa, "mkfs_command"), get(pa, "mount_asked"));
  asked.merge(asked_settings(get(pb, "mkfs_command"), get(pb, "mount_asked")));
  const Settings sa = settings_of(pa), sb = settings_of(pb);
  auto ma = as_map(sa), mb = as_map(sb);
  // Two filesystems: their geometry and mount options have nothing in
  // common to compare name by name (ext4's tools print no XFS geometry:
  // every XFS section would read "not shown -> ..."), and their mkfs comes
  // with them. What is left: kMadeBy.
  bool two_fs = ma["fs"] != mb["fs"];
  if (two_fs) asked.insert({"fs", "mkfs_version"});
  for (const auto& name : differing(sa, sb)) {
    if (two_fs && !made_by(name)) continue;
    d.settings.push_back({name, ma[name], mb[name], asked.contains(name)});
  }
  check_side(a, "A", warnings);
  check_side(b, "B", warnings);
  return d;
}

}  // namespace fscost

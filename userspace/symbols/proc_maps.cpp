#include "symbols/proc_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fscost {

ProcMaps ProcMaps::parse(std::istream& in) {
  ProcMaps m;
  for (std::string line; std::getline(in, line);) {
    // start-end perms offset dev inode [path]
    std::istringstream ss(line);
    std::string range, perms, offset, dev, inode, path;
    if (!(ss >> range >> perms >> offset >> dev >> inode)) continue;
    std::getline(ss >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    auto dash = range.find('-');
    if (dash == std::string::npos) continue;
    Mapping map;
    map.start = std::stoull(range.substr(0, dash), nullptr, 16);
    map.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    map.offset = std::stoull(offset, nullptr, 16);
    map.path = path;
    m.maps_.push_back(std::move(map));
  }
  std::sort(m.maps_.begin(), m.maps_.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return m;
}

std::optional<ProcMaps> ProcMaps::read(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/maps", pid));
  if (!in) return std::nullopt;
  return parse(in);
}

std::optional<FileOffset> ProcMaps::resolve(std::uint64_t addr) const {
  auto it = std::upper_bound(maps_.begin(), maps_.end(), addr,
                             [](std::uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == maps_.begin()) return std::nullopt;
  --it;
  if (addr >= it->end) return std::nullopt;
  return FileOffset{&*it, addr - it->start + it->offset};
}

}  // namespace fscost

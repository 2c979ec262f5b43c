#include "symbols/proc_maps.h"

#include <fmt/format.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace fscost {
namespace {

// All of `text` as a number in `base`; nullopt for anything else.
std::optional<std::uint64_t> whole_number(std::string_view text, int base) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<dev_t> parse_maps_dev(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto major = whole_number(std::string_view(text).substr(0, colon), 16);
  auto minor = whole_number(std::string_view(text).substr(colon + 1), 16);
  // The kernel's dev_t: 12 bits of major, 20 of minor.
  if (!major || !minor || *major >= (1u << 12) || *minor >= (1u << 20)) return std::nullopt;
  return makedev(static_cast<unsigned>(*major), static_cast<unsigned>(*minor));
}

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
    auto start = whole_number(std::string_view(range).substr(0, dash), 16);
    auto end = whole_number(std::string_view(range).substr(dash + 1), 16);
    auto off = whole_number(offset, 16);
    auto d = parse_maps_dev(dev);
    auto ino = whole_number(inode, 10);
    if (!start || !end || !off || !d || !ino || *end <= *start) continue;
    m.maps_.push_back({*start, *end, *off, *d, *ino, std::move(path)});
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

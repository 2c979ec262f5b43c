#include "symbols/user_symbols.h"

#include <fmt/format.h>

namespace fscost {

void UserSymbolizer::snapshot(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    auto m = ProcMaps::read(pid);
    if (!m || m->mappings().empty()) continue;
    std::lock_guard lock(mu_);
    maps_[pid] = std::move(*m);
  }
}

std::string UserSymbolizer::symbolize(const ProcMaps& maps, std::uint64_t addr) const {
  auto fo = maps.resolve(addr);
  if (!fo) return "[unknown]";
  const std::string& path = fo->mapping->path;
  auto it = elves_.find(path);
  if (it == elves_.end()) {
    auto elf = ElfSymbols::load(path);
    it = elves_.emplace(path, elf ? std::optional<ElfSymbols>(std::move(elf).value()) : std::nullopt)
             .first;
  }
  if (it->second)
    if (auto name = it->second->lookup(fo->offset)) return *name;
  auto slash = path.rfind('/');
  return fmt::format("[{}+{:#x}]", path.substr(slash + 1), fo->offset);
}

std::vector<std::string> UserSymbolizer::frames(pid_t pid,
                                                const std::vector<std::uint64_t>& leaf_first) const {
  std::lock_guard lock(mu_);
  auto m = maps_.find(pid);
  std::vector<std::string> out;
  for (auto ip = leaf_first.rbegin(); ip != leaf_first.rend(); ++ip)
    out.push_back(m == maps_.end() ? "[unknown]" : symbolize(m->second, *ip));
  return out;
}

}  // namespace fscost

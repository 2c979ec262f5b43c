#include "symbols/user_symbols.h"

#include <fmt/format.h>

namespace fscost {

void UserSymbolizer::pin(pid_t pid, const ProcMaps& maps) {
  for (const auto& m : maps.mappings()) {
    if (pinned_ >= kMaxPinned) return;
    FileId id{m.dev, m.inode};
    if (files_.count(id)) continue;
    auto r = pin_mapped_file(pid, m);
    if (auto* fd = std::get_if<UniqueFd>(&r)) {
      files_[id].pinned = std::move(*fd);
      ++pinned_;
    } else if (auto why = std::get<MapRefusal>(r);
               why == MapRefusal::NotRegular || why == MapRefusal::TooLarge) {
      files_[id].refused = why;  // the mapped inode's own: final
    }
    // Replaced or Unreadable: the mapping changed or the process went;
    // the next snapshot, or the frame that needs the file, tries again.
  }
}

void UserSymbolizer::snapshot(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    auto m = ProcMaps::read(pid);
    if (!m || m->mappings().empty()) continue;
    std::lock_guard lock(mu_);
    pin(pid, *m);
    maps_[pid] = std::move(*m);
  }
}

UserSymbolizer::File& UserSymbolizer::file(pid_t pid, const Mapping& m) const {
  File& f = files_[FileId{m.dev, m.inode}];
  if (!f.elf && !f.refused) {
    if (!f.pinned) {
      auto r = pin_mapped_file(pid, m);  // beyond kMaxPinned, or changed since
      if (auto* fd = std::get_if<UniqueFd>(&r)) {
        f.pinned = std::move(*fd);
        ++pinned_;
      } else {
        f.refused = std::get<MapRefusal>(r);
      }
    }
    if (f.pinned) {
      if (UniqueFd fd = open_pinned(f.pinned)) {
        auto elf = ElfSymbols::load(fd.get());
        f.elf = elf ? std::move(elf).value() : ElfSymbols{};
      } else {
        f.refused = MapRefusal::Unreadable;
      }
      f.pinned.reset();
      --pinned_;
    }
  }
  if (f.refused && !f.counted) {
    ++refused_[static_cast<std::size_t>(*f.refused)];
    f.counted = true;
  }
  return f;
}

std::string UserSymbolizer::symbolize(pid_t pid, const ProcMaps& maps, std::uint64_t addr) const {
  auto fo = maps.resolve(addr);
  if (!fo) return "[unknown]";
  const File& f = file(pid, *fo->mapping);
  if (f.elf)
    if (auto name = f.elf->lookup(fo->offset)) return *name;
  const std::string& path = fo->mapping->path;
  auto slash = path.rfind('/');
  return fmt::format("[{}+{:#x}]", path.substr(slash + 1), fo->offset);
}

std::vector<std::string> UserSymbolizer::frames(pid_t pid,
                                                const std::vector<std::uint64_t>& leaf_first) const {
  std::lock_guard lock(mu_);
  auto m = maps_.find(pid);
  std::vector<std::string> out;
  for (auto ip = leaf_first.rbegin(); ip != leaf_first.rend(); ++ip)
    out.push_back(m == maps_.end() ? "[unknown]" : symbolize(pid, m->second, *ip));
  return out;
}

std::map<std::string, std::uint64_t> UserSymbolizer::drops() const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::uint64_t> out;
  for (std::size_t i = 0; i < refused_.size(); ++i)
    out[std::string(refusal_counter(static_cast<MapRefusal>(i)))] = refused_[i];
  return out;
}

}  // namespace fscost

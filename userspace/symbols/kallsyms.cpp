#include "symbols/kallsyms.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace fscost {
namespace {

// Linker-defined section boundaries: they start no object, so they only end
// the symbol before them. Without CONFIG_KALLSYMS_ALL they are the only data
// symbols vmlinux lists, and naming a lock "__start_once" would mislead.
bool is_marker(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kEnds = {
      "_etext",     "_einittext",   "_edata",     "_end",      "__bss_start",
      "__bss_stop", "__init_begin", "__init_end", "_sinittext"};
  return name.starts_with("__start_") || name.starts_with("__stop_") ||
         std::find(kEnds.begin(), kEnds.end(), name) != kEnds.end();
}

// Lower rank wins among aliases (see Kallsyms): marker, weak, local, then
// leading underscores.
uint8_t alias_rank(char type, std::string_view name, bool marker) {
  size_t underscores = name.find_first_not_of('_');
  if (underscores == std::string_view::npos) underscores = name.size();
  bool weak = type == 'w' || type == 'W';
  bool local = type >= 'a' && type <= 'z' && !weak;
  return static_cast<uint8_t>((marker << 7) | (weak << 6) | (local << 5) |
                              std::min<size_t>(underscores, 31));
}

struct Line {
  uint64_t addr = 0;
  char type = 0;
  std::string_view name;
  std::string_view module;
};

// "ffffffff81000000 T _stext" or "ffffffffc0a01000 t xfs_foo\t[xfs]".
std::optional<Line> split(std::string_view s) {
  Line l;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), l.addr, 16);
  if (ec != std::errc{}) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  if (s.size() < 4 || s[0] != ' ' || s[2] != ' ') return std::nullopt;
  l.type = s[1];
  s.remove_prefix(3);
  size_t tab = s.find('\t');
  l.name = s.substr(0, tab);
  if (tab != std::string_view::npos) {
    std::string_view m = s.substr(tab + 1);
    if (m.size() >= 2 && m.front() == '[' && m.back() == ']') l.module = m.substr(1, m.size() - 2);
  }
  return l;
}

}  // namespace

Kallsyms Kallsyms::parse(std::istream& in) {
  Kallsyms k;
  size_t lines = 0, visible = 0;
  uint16_t mod = 0;
  std::string buf;
  while (std::getline(in, buf)) {
    auto line = split(buf);
    if (!line) continue;
    ++lines;
    if (line->addr != 0) ++visible;
    bool text = std::string_view("tTwW").find(line->type) != std::string_view::npos;
    bool data = std::string_view("dDbBrR").find(line->type) != std::string_view::npos;
    if (line->addr == 0 || !(text || data) || line->name.empty()) continue;

    // A module's lines are contiguous, so the previous line's module usually matches.
    if (line->module != k.modules_[mod]) {
      auto it = std::find(k.modules_.begin(), k.modules_.end(), line->module);
      mod = static_cast<uint16_t>(it - k.modules_.begin());
      if (it == k.modules_.end()) k.modules_.emplace_back(line->module);
    }
    bool marker = is_marker(line->name);
    if (data && !marker && mod == 0 && std::islower(static_cast<unsigned char>(line->type)))
      k.vmlinux_data_ = true;  // only CONFIG_KALLSYMS_ALL lists static (lowercase) data
    k.entries_.push_back(Entry{line->addr, static_cast<uint32_t>(k.names_.size()), mod,
                               marker ? kMarker : (text ? kText : kData),
                               alias_rank(line->type, line->name, marker)});
    k.names_.append(line->name);
    k.names_.push_back('\0');
  }
  k.hidden_ = lines > 0 && visible == 0;

  // Stable: equal-rank aliases keep file order, so the first listed wins.
  std::stable_sort(k.entries_.begin(), k.entries_.end(), [](const Entry& a, const Entry& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.rank < b.rank;
  });
  auto dup = std::unique(k.entries_.begin(), k.entries_.end(),
                         [](const Entry& a, const Entry& b) { return a.addr == b.addr; });
  k.entries_.erase(dup, k.entries_.end());
  k.entries_.shrink_to_fit();
  k.names_.shrink_to_fit();
  // Dropped aliases leave their names in the arena; re-packing would save
  // little (a few hundred aliases) for another pass.
  return k;
}

Result<Kallsyms> Kallsyms::load(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return Error{"cannot read " + path + ": " + std::strerror(errno),
                 "kernel frames need " + path + "; run as root"};
  Kallsyms k = parse(in);
  if (k.addresses_hidden())
    return Error{"kernel symbol addresses are hidden (" + path + " shows zeros)",
                 "run as root, or sysctl kernel.kptr_restrict=0"};
  return k;
}

std::optional<Symbol> Kallsyms::lookup(uint64_t addr, Kind kind) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr,
                             [](uint64_t a, const Entry& e) { return a < e.addr; });
  if (it == entries_.begin()) return std::nullopt;
  uint64_t end = it == entries_.end() ? UINT64_MAX : it->addr;
  const Entry& e = *std::prev(it);
  if (e.kind != kind || addr >= end || addr - e.addr >= kMaxSpan) return std::nullopt;
  return Symbol{std::string_view(names_.data() + e.name), addr - e.addr, modules_[e.module]};
}

std::optional<Symbol> Kallsyms::lookup_text(uint64_t addr) const { return lookup(addr, kText); }

std::optional<Symbol> Kallsyms::lookup_data(uint64_t addr) const { return lookup(addr, kData); }

std::string Kallsyms::format(uint64_t addr) const {
  auto s = lookup_text(addr);
  return s ? std::string(s->name) : std::string("[unknown]");
}

}  // namespace fscost

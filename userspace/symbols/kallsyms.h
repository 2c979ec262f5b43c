// Kernel symbol table from /proc/kallsyms: address → function (stack frames)
// or data object (static locks).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace fscost {

// Views into the Kallsyms that returned it; valid while that object lives.
struct Symbol {
  std::string_view name;
  uint64_t offset = 0;      // addr - symbol start
  std::string_view module;  // "" for vmlinux, "xfs" for "[xfs]"
};

// Sorted table of symbol start addresses. kallsyms has no sizes, so a symbol
// covers [its address, the next symbol's address), capped at kMaxSpan.
//
// Aliases (several names at one address, e.g. _stext/_text): we keep one,
// ranked like perf's symbol__choose_best(): a real symbol over a section marker
// (__start_*, __stop_*, _etext, ...), strong over weak (T over W), global over
// local (T over t), fewer leading underscores, then the first listed.
class Kallsyms {
 public:
  // Symbols never cover more than this: keeps an address in an unnamed gap
  // (between vmlinux and modules, or past the last symbol) from being charged
  // to whatever symbol precedes it. Larger than any kernel function.
  static constexpr uint64_t kMaxSpan = 2u << 20;

  // Reads and parses `path`. Fails if it cannot be read, or if every address
  // is zero (kptr_restrict, or not root).
  static Result<Kallsyms> load(const std::string& path = "/proc/kallsyms");
  // Pure parser of kallsyms text ("addr type name[\t[module]]" per line).
  static Kallsyms parse(std::istream& in);

  // Functions: types t T w W.
  std::optional<Symbol> lookup_text(uint64_t addr) const;
  // Data objects: types d D b B r R (section markers excluded).
  std::optional<Symbol> lookup_data(uint64_t addr) const;
  // Function name only (no +offset, so flame graphs merge by function), or
  // "[unknown]".
  std::string format(uint64_t addr) const;

  size_t size() const { return entries_.size(); }
  // True if lines were read but all their addresses were zero.
  bool addresses_hidden() const { return hidden_; }
  // vmlinux lists its static data objects only with CONFIG_KALLSYMS_ALL=y;
  // without it lookup_data() finds module data at best.
  bool has_data_symbols() const { return vmlinux_data_; }

 private:
  enum Kind : uint8_t { kText, kData, kMarker };
  // 16 bytes: ~120k of these on a distribution kernel.
  struct Entry {
    uint64_t addr;
    uint32_t name;    // offset of a NUL-terminated name in names_
    uint16_t module;  // index into modules_; 0 is vmlinux
    Kind kind;
    uint8_t rank;  // alias preference, lower wins; only used while parsing
  };
  static_assert(sizeof(Entry) == 16);

  std::optional<Symbol> lookup(uint64_t addr, Kind kind) const;

  std::vector<Entry> entries_;  // sorted by addr, one per address
  std::string names_;           // arena of all names
  std::vector<std::string> modules_{""};
  bool hidden_ = false;
  bool vmlinux_data_ = false;
};

}  // namespace fscost

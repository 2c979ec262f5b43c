// User-space stacks → function names: /proc/PID/maps snapshots taken while
// the target lives (a process's maps are gone once it exits), then ELF
// symbol tables (libelf) per mapped file. Each file is pinned when first
// seen, through the kernel's reference to it (symbols/mapped_file.h), and
// read at the end: a process that has exited by then keeps its names.
#pragma once

#include <sys/types.h>

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "symbols/elf_symbols.h"
#include "symbols/mapped_file.h"
#include "symbols/proc_maps.h"

namespace fscost {

class UserSymbolizer {
 public:
  // Re-reads the maps of each pid still alive, pinning the files it maps
  // that are new; keeps the last snapshot of those that exited. Called
  // periodically during the recording.
  void snapshot(const std::vector<pid_t>& pids);

  // Outermost caller first. Unknown frames read "[file+0xOFF]" or
  // "[unknown]" so the count stays visible.
  std::vector<std::string> frames(pid_t pid, const std::vector<std::uint64_t>& leaf_first) const;

  // The files frames() needed and could not read, by drop counter
  // (FSCOST_USER_MAPPING_DROP_TABLE), every counter, zeros included.
  std::map<std::string, std::uint64_t> drops() const;

 private:
  struct FileId {
    dev_t dev;
    std::uint64_t inode;
    auto operator<=>(const FileId&) const = default;
  };
  struct File {
    UniqueFd pinned;                      // O_PATH, until its symbols are read
    std::optional<MapRefusal> refused;    // why it is never read
    std::optional<ElfSymbols> elf;        // once read (empty: not ELF)
    bool counted = false;                 // its refusal is in refused_
  };
  // Descriptors held at most: beyond them, a file is pinned only when a
  // frame needs it, if its process still lives (RLIMIT_NOFILE is often
  // 1024, and the BPF maps and perf events need theirs).
  static constexpr std::size_t kMaxPinned = 512;

  void pin(pid_t pid, const ProcMaps& maps);
  File& file(pid_t pid, const Mapping& m) const;
  std::string symbolize(pid_t pid, const ProcMaps& maps, std::uint64_t addr) const;

  mutable std::mutex mu_;
  std::map<pid_t, ProcMaps> maps_;
  mutable std::map<FileId, File> files_;
  mutable std::size_t pinned_ = 0;
  mutable std::array<std::uint64_t, kMapRefusals> refused_{};  // by MapRefusal
};

}  // namespace fscost

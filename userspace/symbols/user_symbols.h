// User-space stacks → function names: /proc/PID/maps snapshots taken while
// the target lives (a process's maps are gone once it exits), then ELF
// symbol tables (libelf) per mapped file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "symbols/elf_symbols.h"
#include "symbols/proc_maps.h"

namespace fscost {

class UserSymbolizer {
 public:
  // Re-reads the maps of each pid still alive; keeps the last snapshot of
  // those that exited. Called periodically during the recording.
  void snapshot(const std::vector<pid_t>& pids);

  // Outermost caller first. Unknown frames read "[file+0xOFF]" or
  // "[unknown]" so the count stays visible.
  std::vector<std::string> frames(pid_t pid, const std::vector<std::uint64_t>& leaf_first) const;

 private:
  std::string symbolize(const ProcMaps& maps, std::uint64_t addr) const;

  mutable std::mutex mu_;
  std::map<pid_t, ProcMaps> maps_;
  mutable std::map<std::string, std::optional<ElfSymbols>> elves_;  // by path; nullopt: unreadable
};

}  // namespace fscost

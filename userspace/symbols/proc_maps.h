// Executable mappings of a process (/proc/PID/maps), to turn user-space
// addresses into (ELF file, file offset) while the process lives.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace fscost {

struct Mapping {
  std::uint64_t start = 0, end = 0;  // [start, end)
  std::uint64_t offset = 0;          // file offset of `start`
  std::string path;                  // backing file; empty or "[...]" for anonymous
};

struct FileOffset {
  const Mapping* mapping;
  std::uint64_t offset;  // in mapping->path
};

class ProcMaps {
 public:
  // Executable, file-backed mappings from maps-format text. Pure, for tests.
  static ProcMaps parse(std::istream& in);
  // nullopt if the process is gone.
  static std::optional<ProcMaps> read(pid_t pid);

  std::optional<FileOffset> resolve(std::uint64_t addr) const;
  const std::vector<Mapping>& mappings() const { return maps_; }

 private:
  std::vector<Mapping> maps_;  // sorted by start
};

}  // namespace fscost

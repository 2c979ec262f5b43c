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
  dev_t dev = 0;                     // the mapped inode's, as makedev(major, minor)
  std::uint64_t inode = 0;
  // The file's name when the maps were read, " (deleted)" and all: a label
  // for frames, never opened (another file may have that name now).
  std::string path;
};

struct FileOffset {
  const Mapping* mapping;
  std::uint64_t offset;  // in the mapped file
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

// maps' "fd:01" (major:minor in hex, the minor up to 5 digits) as
// makedev(); nullopt if it is not that.
std::optional<dev_t> parse_maps_dev(const std::string& text);

}  // namespace fscost

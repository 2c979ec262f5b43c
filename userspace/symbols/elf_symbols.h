// Function symbols of one ELF file (libelf), looked up by file offset as
// /proc/PID/maps gives it, so PIE executables and shared libraries resolve
// without knowing their load address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"

namespace fscost {

class ElfSymbols {
 public:
  // From an open, regular file (symbols/mapped_file.h opens it safely); no
  // section larger than max_input_bytes() is read.
  static Result<ElfSymbols> load(int fd);

  // The function containing file offset `off` of an executable segment.
  std::optional<std::string> lookup(std::uint64_t file_offset) const;
  std::size_t size() const { return syms_.size(); }

 private:
  struct Sym {
    std::uint64_t addr, size;
    std::string name;
  };
  struct Segment {
    std::uint64_t offset, vaddr, filesz;
  };
  std::vector<Sym> syms_;          // sorted by addr
  std::vector<Segment> segments_;  // PT_LOAD, executable
};

}  // namespace fscost

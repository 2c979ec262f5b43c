#include "sys.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fscost::workload {

void fail(const char* op, const Dir& dir, const char* name, const char* name2) {
  int err = errno;
  std::string at = dir.path.empty() ? "" : dir.path + "/";
  if (name2)
    std::fprintf(stderr, "fscost-workload: %s %s%s -> %s%s: %s\n", op, at.c_str(), name, at.c_str(),
                 name2, std::strerror(err));
  else
    std::fprintf(stderr, "fscost-workload: %s %s%s: %s\n", op, at.c_str(), name,
                 std::strerror(err));
  // _Exit: other threads are still issuing syscalls; no destructors or
  // atexit handlers to race with them.
  std::_Exit(1);
}

}  // namespace fscost::workload

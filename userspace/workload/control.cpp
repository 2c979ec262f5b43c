#include "control.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fscost::workload {

RecorderControl::RecorderControl() {
  const char* env = std::getenv("FSCOST_CONTROL_FD");
  if (!env || std::sscanf(env, "%d,%d", &ctl_, &ack_) != 2 || ctl_ < 0 || ack_ < 0)
    ctl_ = ack_ = -1;
}

bool RecorderControl::request(const char* line) {
  if (ctl_ < 0) return false;
  std::size_t n = std::strlen(line);
  ssize_t w;
  while ((w = ::write(ctl_, line, n)) < 0 && errno == EINTR) {
  }
  char reply[8] = {};
  std::size_t got = 0;
  // "ack\n" or "error\n"; EOF: the recorder is gone, and the run with it.
  while (w == ssize_t(n) && got < sizeof reply - 1 && (got == 0 || reply[got - 1] != '\n')) {
    ssize_t r = ::read(ack_, reply + got, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += std::size_t(r);
  }
  if (std::strcmp(reply, "ack\n") == 0) return true;
  std::fprintf(stderr, "fscost-workload: the recorder did not acknowledge \"%.*s\"\n", int(n - 1),
               line);
  std::exit(1);
}

}  // namespace fscost::workload

#include "collector/libbpf_log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fscost {
namespace {

std::atomic<bool> g_debug{false};

int print(enum libbpf_print_level level, const char* format, va_list args) {
  if (level != LIBBPF_WARN && !g_debug.load(std::memory_order_relaxed)) return 0;
  // libbpf's own lines already start with "libbpf: ".
  return std::vfprintf(stderr, format, args);
}

}  // namespace

void setup_libbpf_logging() {
  const char* env = std::getenv("FSCOST_DEBUG");
  if (env && *env && std::strcmp(env, "0") != 0) g_debug = true;
  libbpf_set_print(print);
}

void set_libbpf_debug(bool on) {
  g_debug = on;
  libbpf_set_print(print);
}

bool libbpf_debug() { return g_debug; }

// A null callback is libbpf's documented way to print nothing. In debug mode
// we keep printing: the verifier log of a failed probe is what one wants then.
ScopedLibbpfQuiet::ScopedLibbpfQuiet() : previous_(libbpf_set_print(g_debug ? print : nullptr)) {}

ScopedLibbpfQuiet::~ScopedLibbpfQuiet() { libbpf_set_print(previous_); }

}  // namespace fscost

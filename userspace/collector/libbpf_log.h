// Where libbpf's messages go: warnings to stderr by default, everything with
// FSCOST_DEBUG=1 (or set_libbpf_debug(true)), nothing while probing features.
#pragma once

#include <bpf/libbpf.h>

namespace fscost {

// Installs fscost's libbpf print callback; reads FSCOST_DEBUG from the
// environment. Call once, early in main(). Idempotent.
void setup_libbpf_logging();

// Also print libbpf's info and debug messages (verifier logs, relocations).
// Installs the callback if setup_libbpf_logging() was not called.
void set_libbpf_debug(bool on);
bool libbpf_debug();

// Silences libbpf for its lifetime: probing a feature the kernel lacks makes
// libbpf print warnings about an error fscost expects. Restores the previous
// callback on destruction. With debug on it keeps printing. libbpf's callback is process-global, so
// do not overlap this with loading on another thread.
class ScopedLibbpfQuiet {
 public:
  ScopedLibbpfQuiet();
  ~ScopedLibbpfQuiet();
  ScopedLibbpfQuiet(const ScopedLibbpfQuiet&) = delete;
  ScopedLibbpfQuiet& operator=(const ScopedLibbpfQuiet&) = delete;

 private:
  libbpf_print_fn_t previous_;
};

}  // namespace fscost

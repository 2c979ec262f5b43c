// libFuzzer target: `perf script` import (io/perf_script.h), then every
// output made from the profile (exercise.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exercise.h"
#include "io/perf_script.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = fscost::import_perf_script(text, "fuzz.perf-script");
  if (p) fscost::fuzz::exercise(p.value());
  return 0;
}

// libFuzzer target: the profile file reader (io/profile_io.h), then every
// output made from what it accepted (exercise.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exercise.h"
#include "io/profile_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = fscost::parse_profile(text, "fuzz.profile");
  if (p) fscost::fuzz::exercise(p.value());
  return 0;
}

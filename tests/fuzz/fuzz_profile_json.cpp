// libFuzzer target: the profile file reader (io/profile_io.h), then every
// output made from what it accepted (exercise.h). Its fast path must read
// every input as the checked reader alone does: the same profile, or the
// same error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exercise.h"
#include "io/profile_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = fscost::parse_profile(text, "fuzz.profile");
  auto checked = fscost::parse_profile_checked(text, "fuzz.profile");
  if (static_cast<bool>(p) != static_cast<bool>(checked))
    fscost::fuzz::fail("the fast path and the checked reader disagree on accepting it",
                       p ? checked.error().message : p.error().message);
  if (!p && p.error().message != checked.error().message)
    fscost::fuzz::fail("the fast path and the checked reader give different errors",
                       p.error().message + " / " + checked.error().message);
  if (p && fscost::serialize_profile(p.value()) != fscost::serialize_profile(checked.value()))
    fscost::fuzz::fail("the fast path and the checked reader read different profiles", "");
  if (p) fscost::fuzz::exercise(p.value());
  return 0;
}

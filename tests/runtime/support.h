// Shared helpers for runtime tests: real BPF, real XFS, root.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace fscost::test {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace fscost::test

// A runtime test that cannot run says why; in CI (CI=true) that is a failure,
// because the CI machine can run it.
#define FSCOST_REQUIRE(cond, why)                                      \
  do {                                                                 \
    if (!(cond)) {                                                     \
      if (::fscost::test::in_ci()) FAIL() << "cannot run in CI: " << why; \
      GTEST_SKIP() << why;                                             \
    }                                                                  \
  } while (0)

#define FSCOST_REQUIRE_ROOT() \
  FSCOST_REQUIRE(::geteuid() == 0, "needs root to load BPF and mount XFS")

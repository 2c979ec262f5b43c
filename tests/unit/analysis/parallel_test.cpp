// parallel_for: every item once, results by index, the first error rethrown.
#include "parallel.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

namespace fscost {
namespace {

TEST(ParallelFor, EveryItemOnceInItsSlot) {
  for (std::size_t n : {0u, 1u, 2u, 1000u}) {
    std::vector<std::size_t> out(n, 0);
    parallel_for(n, [&](std::size_t i) { out[i] += i + 1; });
    std::vector<std::size_t> want(n);
    std::iota(want.begin(), want.end(), 1u);
    EXPECT_EQ(out, want) << n;
  }
}

TEST(ParallelFor, RethrowsAnItemsError) {
  std::atomic<int> done{0};
  EXPECT_THROW(parallel_for(100,
                            [&](std::size_t i) {
                              if (i == 3) throw std::runtime_error("item 3");
                              ++done;
                            }),
               std::runtime_error);
  EXPECT_LT(done.load(), 100);
}

}  // namespace
}  // namespace fscost

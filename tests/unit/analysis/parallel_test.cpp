// parallel_for: every item once, results by index, the first error rethrown.
#include "model/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fscost {
namespace {

// Each thread count, whatever CPUs the runner has.
TEST(ParallelFor, EveryItemOnceInItsSlot) {
  for (std::size_t threads : {1u, 2u, 4u})
    for (std::size_t n : {0u, 1u, 2u, 1000u}) {
      std::vector<std::size_t> out(n, 0);
      parallel_for(n, [&](std::size_t i) { out[i] += i + 1; }, threads);
      std::vector<std::size_t> want(n);
      std::iota(want.begin(), want.end(), 1u);
      EXPECT_EQ(out, want) << n << " items, " << threads << " threads";
    }
}

// Threads really run items at once (a serial loop would wait forever here,
// so the test gives up after a few seconds instead).
TEST(ParallelFor, RunsItemsOnSeveralThreads) {
  std::atomic<int> arrived{0};
  std::atomic<bool> met{false};
  parallel_for(
      2,
      [&](std::size_t) {
        ++arrived;
        for (int k = 0; k < 5000 && arrived.load() < 2; ++k)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (arrived.load() == 2) met = true;
      },
      2);
  EXPECT_TRUE(met.load());
}

TEST(ParallelFor, RethrowsTheFirstErrorAndSkipsWhatWasNotStarted) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    std::atomic<int> done{0};
    try {
      parallel_for(
          100,
          [&](std::size_t i) {
            if (i == 3) throw std::runtime_error("item 3");
            ++done;
          },
          threads);
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 3");
    }
    // With one thread items 0-2 ran and 4-99 never started; with more, how
    // many others finish before the error is seen depends on scheduling.
    if (threads == 1) {
      EXPECT_EQ(done.load(), 3);
    }
  }
}

}  // namespace
}  // namespace fscost

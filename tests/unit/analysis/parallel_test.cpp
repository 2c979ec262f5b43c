// parallel_for: every item once, results by index, the first error rethrown.
#include "model/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <set>
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

// Threads really run items at once: with `threads` items on `threads`
// threads, each item waits inside fn until all of them are inside at the
// same time, and records whether it saw that. A serial loop (or fewer
// threads than asked for) can never have them all inside at once, so every
// item but the last gives up at a shared deadline and the test fails
// rather than hangs.
TEST(ParallelFor, RunsItemsOnSeveralThreads) {
  for (std::size_t threads : {2u, 4u}) {
    std::mutex m;
    std::condition_variable cv;
    std::size_t inside = 0;
    std::vector<char> met(threads, 0);
    std::vector<std::thread::id> ids(threads);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    parallel_for(
        threads,
        [&](std::size_t i) {
          std::unique_lock lock(m);
          ids[i] = std::this_thread::get_id();
          if (++inside == threads) cv.notify_all();
          met[i] = cv.wait_until(lock, deadline, [&] { return inside >= threads; });
        },
        threads);
    for (std::size_t i = 0; i < threads; ++i)
      EXPECT_TRUE(met[i]) << "item " << i << " of " << threads
                          << " never saw the others inside at once";
    std::set<std::thread::id> distinct(ids.begin(), ids.end());
    EXPECT_EQ(distinct.size(), threads) << threads << " threads";
    EXPECT_TRUE(distinct.count(std::this_thread::get_id()))
        << "the caller's thread runs items too";
  }
}

// ... but never more than asked for at once.
TEST(ParallelFor, NoMoreThreadsThanAsked) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    std::atomic<int> inside{0}, peak{0};
    parallel_for(
        64,
        [&](std::size_t) {
          int now = ++inside;
          int p = peak.load();
          while (now > p && !peak.compare_exchange_weak(p, now)) continue;
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          --inside;
        },
        threads);
    EXPECT_GE(peak.load(), 1);
    EXPECT_LE(peak.load(), static_cast<int>(threads)) << threads << " threads";
  }
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

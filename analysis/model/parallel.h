// A minimal parallel loop for the analysis stages whose items are
// independent (per run, per operation, per graph). Each item writes only its
// own result slot, so the output does not depend on the thread count or
// on scheduling.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace fscost {

// Calls fn(i) for i in [0, n) on up to `max_threads` threads (the caller's
// included; 0 = hardware_concurrency). The first exception an item throws
// is rethrown here once every thread has stopped; items not yet started
// are skipped. If a thread cannot be started, the ones that did carry on.
template <typename Fn>
void parallel_for(std::size_t n, Fn&& fn, std::size_t max_threads = 0) {
  if (max_threads == 0) max_threads = std::max(1u, std::thread::hardware_concurrency());
  std::size_t threads = std::min(n, max_threads);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; !failed && (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // Out of threads: the caller's thread and those started do the rest.
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace fscost

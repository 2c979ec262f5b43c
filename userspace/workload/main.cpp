// fscost-workload: a multi-threaded metadata workload in the style of fs_mark
// and fsstress, cheap in user space so that nearly all of its CPU time is the
// kernel cost fscost measures. Usage and modes: docs/WORKLOAD.md.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <latch>
#include <thread>
#include <vector>

#include "control.h"
#include "layout.h"
#include "options.h"
#include "report.h"
#include "workloads.h"

namespace fscost::workload {
namespace {

using Clock = std::chrono::steady_clock;

// Each thread sets up and waits; the main thread, once every setup is done,
// starts the clock and releases them all. The main thread, not the last
// worker, does the wakeups: with a worker waking the others (a std::barrier
// among the workers), two openclose threads on this 2-CPU VM ran in parallel,
// and contended, in about half as many runs; a wakee is likely placed on its
// waker's CPU (wake-affine), where the two only take turns.
//
// Run by fscost, the recording is paused over the setup (RecorderControl):
// a profile of the remove workload is its unlinks, not the creates before.
double run_threads(const Context& ctx, const Workload& w, RunSummary& s) {
  std::vector<ThreadResult>& results = s.threads;
  int n = ctx.options.threads;
  RecorderControl recorder;
  s.setup_paused = w.setup && recorder.pause();
  std::vector<Clock::time_point> ends(static_cast<std::size_t>(n));
  std::latch ready(n), go(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; t++)
    threads.emplace_back([&, t] {
      ThreadResult& r = results[std::size_t(t)];
      if (w.setup) w.setup(ctx, t, r);
      ready.count_down();
      go.wait();
      w.run(ctx, t, r);
      ends[std::size_t(t)] = Clock::now();
    });
  ready.wait();
  if (s.setup_paused) recorder.resume();
  Clock::time_point start = Clock::now();
  go.count_down();
  for (auto& th : threads) th.join();
  Clock::time_point end = start;
  for (auto e : ends) end = std::max(end, e);
  return std::chrono::duration<double>(end - start).count();
}

// The writeback the timed phase left, done before the process (and its
// recording) ends: syncfs of DIR's filesystem only, not sync(2) of every
// filesystem on the machine. Its time is the run's "sync" op, not ops/s.
void sync_filesystem(const std::string& dir, RunSummary& s) {
  auto t0 = Clock::now();
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) {
    std::fprintf(stderr, "fscost-workload: syncfs %s: %s\n", dir.c_str(), std::strerror(errno));
    std::exit(1);
  }
  ::close(fd);
  s.sync_s = std::chrono::duration<double>(Clock::now() - t0).count();
}

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  RunSummary s;
  Layout layout = make_layout(o, s.outside);
  Context ctx{o, layout, std::vector<char>(write_size(o), 'x')};
  s.threads.resize(std::size_t(o.threads));
  s.elapsed_s = run_threads(ctx, workload_for(o.mode), s);
  close_layout(layout, s.outside);
  if (o.syncfs) sync_filesystem(o.dir, s);
  if (!o.quiet) {
    std::string line = result_json(o, s);
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return 0;
}

}  // namespace
}  // namespace fscost::workload

int main(int argc, char** argv) { return fscost::workload::main(argc, argv); }

#include "compare/fs_pipeline.h"

#include <algorithm>

#include "compare/storage.h"
#include "system/filesystems.h"
#include "system/memory.h"

namespace fscost {

namespace {

// The page cache a run will fill, to touch before it (touch_free_memory):
// the built-in workload's file data and about 2 KiB of inode and dentry per
// file; for a command, as much as the filesystem holds. At most half of
// what the machine has free.
std::uint64_t pretouch_bytes(const CompareOptions& o) {
  const WorkloadSpec& w = o.workload;
  std::uint64_t want = o.size;
  if (w.builtin()) {
    std::uint64_t data = (w.write_bytes + 4095) / 4096 * 4096;
    int threads = 1;
    for (int t : o.threads) threads = std::max(threads, t);
    want = w.files * static_cast<std::uint64_t>(threads) * (data + 2048);
  }
  return std::min(want, mem_available_bytes() / 2);
}

// check, mkfs, mount, and the memory the run will fill touched: what comes
// before every run, on any thread (run_mkfs spawns with posix_spawn;
// run_state locks its record).
MadeFs make_fs(const CompareOptions& o, const CompareStorage& storage, int config,
               std::size_t slot) {
  MadeFs m;
  m.config = config;
  m.slot = slot;
  m.device = storage.device(slot);
  const ConfigSpec& cfg = o.configs[static_cast<std::size_t>(config)];
  const Filesystem& fs = *find_filesystem(cfg.fs);
  // The RAM disk's image stays allocated from run to run (ShmImage::allocate):
  // no discard.
  std::vector<std::string> opts =
      o.device.empty() ? without_discard(fs, cfg.mkfs_opts) : cfg.mkfs_opts;
  if (auto ok = storage.check_before_mkfs(slot); !ok) {
    m.error = ok.error().message;
    return m;
  }
  auto mkfs = run_mkfs(fs, m.device, opts, mkfs_program(o, cfg));
  if (!mkfs) {
    m.error = mkfs.error().message;
    return m;
  }
  m.mkfs_cmd = mkfs.value().command;
  m.mkfs_output = mkfs.value().output;
  auto mount = Mount::create(m.device, cfg.fs, cfg.mount_opts);
  if (!mount) {
    m.error =
        mount.error().message + (mount.error().hint.empty() ? "" : " (" + mount.error().hint + ")");
    return m;
  }
  m.mount.emplace(std::move(mount).value());
  touch_free_memory(pretouch_bytes(o));
  return m;
}

}  // namespace

FsPipeline::~FsPipeline() {
  if (released_.valid()) released_.wait();
  if (!ahead_.valid()) return;
  try {
    ahead_.get();  // its Mount unmounts here
  } catch (...) {  // nothing was made, so nothing is left: the error was for the run
  }
}

void FsPipeline::release(MadeFs made) {
  if (released_.valid()) released_.wait();
  released_ = std::async(std::launch::async, [m = std::move(made)]() mutable { m.mount.reset(); });
}

MadeFs FsPipeline::take(int config) {
  if (released_.valid()) released_.get();
  std::size_t slot = 0;
  if (ahead_.valid()) {
    MadeFs m = ahead_.get();
    if (m.config == config) return m;
    slot = m.slot;  // another configuration's (a run made again): unmounted here
  }
  return make_fs(o_, storage_, config, slot);
}

void FsPipeline::make_ahead(int config, std::size_t in_use) {
  if (storage_.slots() < 2 || ahead_.valid()) return;
  ahead_ = std::async(std::launch::async, make_fs, std::cref(o_), std::cref(storage_), config,
                      1 - in_use);
}

}  // namespace fscost

// create, remove and openclose: one file per step, fs_mark style.
#include <fcntl.h>

#include "names.h"
#include "sys.h"
#include "workloads.h"

namespace fscost::workload {
namespace {

FileNames names_of(const Context& ctx, int thread) {
  const Options& o = ctx.options;
  return FileNames(thread, o.threads, o.dirs == Dirs::Shared, o.files_per_dir);
}

// open(O_CREAT|O_EXCL), [write], [fsync], close: fs_mark's per-file loop.
void create_files(const Context& ctx, int thread, bool fsync, Counts& c) {
  const Dir& dir = ctx.layout.base(thread);
  const std::vector<char>& data = ctx.data;
  FileNames names = names_of(ctx, thread);
  for (long i = 0, n = ctx.options.files; i < n; i++) {
    const char* name = names(i);
    int fd = create_file(dir, name, c);
    if (!data.empty()) write_at(fd, data.data(), data.size(), 0, dir, name, c);
    if (fsync) fsync_file(fd, dir, name, c);
    close_file(fd, dir, name, c);
  }
}

}  // namespace

void create_run(const Context& ctx, int thread, ThreadResult& r) {
  create_files(ctx, thread, ctx.options.fsync, r.timed);
}

// The `rm -rf` case: the files exist before the clock starts.
void remove_setup(const Context& ctx, int thread, ThreadResult& r) {
  create_files(ctx, thread, false, r.setup);
}

void remove_run(const Context& ctx, int thread, ThreadResult& r) {
  const Dir& dir = ctx.layout.base(thread);
  FileNames names = names_of(ctx, thread);
  for (long i = 0, n = ctx.options.files; i < n; i++) unlink_name(dir, names(i), r.timed);
}

// One target per directory: in a shared directory thread 0 makes it.
void openclose_setup(const Context& ctx, int thread, ThreadResult& r) {
  if (ctx.options.dirs == Dirs::Shared && thread != 0) return;
  const Dir& dir = ctx.layout.base(thread);
  close_file(create_file(dir, "target", r.setup), dir, "target", r.setup);
}

// Threads of one process opening and closing a file: every open and close
// takes the process's files->file_lock, a spinlock, so they contend on it.
void openclose_run(const Context& ctx, int thread, ThreadResult& r) {
  const Dir& dir = ctx.layout.base(thread);
  for (long i = 0, n = ctx.options.files; i < n; i++)
    close_file(open_file(dir, "target", O_RDONLY, r.timed), dir, "target", r.timed);
}

std::size_t write_size(const Options& o) {
  if (o.mode == Mode::Random && o.write_bytes == 0) return 4096;
  return o.write_bytes;
}

const Workload& workload_for(Mode m) {
  static const Workload kCreate{nullptr, create_run}, kRemove{remove_setup, remove_run},
      kOpenClose{openclose_setup, openclose_run}, kMixed{nullptr, mixed_run},
      kRandom{nullptr, random_run};
  switch (m) {
    case Mode::Create:
      return kCreate;
    case Mode::Remove:
      return kRemove;
    case Mode::OpenClose:
      return kOpenClose;
    case Mode::Random:
      return kRandom;
    case Mode::Mixed:
      break;
  }
  return kMixed;
}

}  // namespace fscost::workload

// mixed: fsops's deterministic cycle, every iteration leaves the directory
// as it found it.
#include "names.h"
#include "sys.h"
#include "workloads.h"

namespace fscost::workload {

void mixed_run(const Context& ctx, int thread, ThreadResult& r) {
  const Dir& dir = ctx.layout.base(thread);
  const std::vector<char>& data = ctx.data;
  Counts& c = r.timed;
  // Thread-prefixed, so threads may share a directory.
  auto prefix = [thread](char kind) {
    char p[24];
    std::snprintf(p, sizeof p, "t%d-%c", thread, kind);
    return Name(p);
  };
  Name f = prefix('f'), l = prefix('l'), rn = prefix('r'), d = prefix('d'), s = prefix('s');
  for (long i = 0, n = ctx.options.files; i < n; i++) {
    const char *fi = f.with(i), *li = l.with(i), *ri = rn.with(i), *di = d.with(i), *si = s.with(i);
    int fd = create_file(dir, fi, c);
    if (!data.empty()) write_at(fd, data.data(), data.size(), 0, dir, fi, c);
    fsync_file(fd, dir, fi, c);
    close_file(fd, dir, fi, c);
    link_name(dir, fi, li, c);
    rename_name(dir, fi, ri, c);
    unlink_name(dir, ri, c);
    unlink_name(dir, li, c);
    mkdir_name(dir, di, c);
    rmdir_name(dir, di, c);
    symlink_name("r", dir, si, c);
    unlink_name(dir, si, c);
  }
}

}  // namespace fscost::workload

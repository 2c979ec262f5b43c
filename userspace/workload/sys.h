// Checked syscalls on names relative to a directory fd: each counts itself
// and, on failure, names the operation and path and exits 1. Inline and
// allocation-free: they are the whole hot loop. syscall(2) rather than the
// libc wrappers: open, close, fsync and write are cancellation points, and in
// a multi-threaded process each wrapper call toggles the thread's async
// cancel state around the syscall, user time spent for nothing here.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>

#include "counts.h"

namespace fscost::workload {

// A directory the workload works in: its fd and, for messages, its path.
struct Dir {
  int fd = -1;
  std::string path;
};

// "fscost-workload: OP DIR/NAME[ -> DIR/NAME2]: strerror(errno)", exit 1.
[[noreturn]] void fail(const char* op, const Dir& dir, const char* name,
                       const char* name2 = nullptr);

inline int create_file(const Dir& d, const char* name, Counts& c) {
  int fd = int(::syscall(SYS_openat, d.fd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
  if (fd < 0) fail("create", d, name);
  c.n[Create]++;
  return fd;
}

inline int open_file(const Dir& d, const char* name, int flags, Counts& c) {
  int fd = int(::syscall(SYS_openat, d.fd, name, flags | O_CLOEXEC));
  if (fd < 0) fail("open", d, name);
  c.n[Open]++;
  return fd;
}

inline void close_file(int fd, const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_close, fd) != 0) fail("close", d, name);
  c.n[Close]++;
}

// Writes len bytes at off, one write per short write.
inline void write_at(int fd, const char* buf, std::size_t len, off_t off, const Dir& d,
                     const char* name, Counts& c) {
  while (len > 0) {
    long n = ::syscall(SYS_pwrite64, fd, buf, len, off);
    if (n <= 0) fail("write", d, name);
    c.n[Write]++;
    buf += n, len -= std::size_t(n), off += n;
  }
}

inline void fsync_file(int fd, const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_fsync, fd) != 0) fail("fsync", d, name);
  c.n[Fsync]++;
}

inline void unlink_name(const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_unlinkat, d.fd, name, 0) != 0) fail("unlink", d, name);
  c.n[Unlink]++;
}

inline void mkdir_name(const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_mkdirat, d.fd, name, 0755) != 0) fail("mkdir", d, name);
  c.n[Mkdir]++;
}

inline void rmdir_name(const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_unlinkat, d.fd, name, AT_REMOVEDIR) != 0) fail("rmdir", d, name);
  c.n[Rmdir]++;
}

inline void link_name(const Dir& d, const char* from, const char* to, Counts& c) {
  if (::syscall(SYS_linkat, d.fd, from, d.fd, to, 0) != 0) fail("link", d, from, to);
  c.n[Link]++;
}

inline void rename_name(const Dir& d, const char* from, const char* to, Counts& c) {
  if (::syscall(SYS_renameat2, d.fd, from, d.fd, to, 0) != 0) fail("rename", d, from, to);
  c.n[Rename]++;
}

inline void symlink_name(const char* target, const Dir& d, const char* name, Counts& c) {
  if (::syscall(SYS_symlinkat, target, d.fd, name) != 0) fail("symlink", d, name);
  c.n[Symlink]++;
}

}  // namespace fscost::workload

// File names built without printf in the loop: a prefix formatted once, then
// only the number's digits written per name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace fscost::workload {

// Writes v in decimal at p, NUL-terminated; returns the end (at the NUL).
inline char* put_decimal(char* p, std::uint64_t v) {
  char tmp[20];
  int n = 0;
  do tmp[n++] = char('0' + v % 10), v /= 10;
  while (v);
  while (n) *p++ = tmp[--n];
  *p = '\0';
  return p;
}

// "<prefix><number>"; the pointer stays valid until the next call.
class Name {
 public:
  Name() = default;
  explicit Name(const char* prefix) { set_prefix(prefix); }
  void set_prefix(const char* prefix) {
    len_ = std::strlen(prefix);
    if (len_ > sizeof buf_ - 21) len_ = sizeof buf_ - 21;
    std::memcpy(buf_, prefix, len_);
    buf_[len_] = '\0';
  }
  const char* with(std::uint64_t i) {
    put_decimal(buf_ + len_, i);
    return buf_;
  }

 private:
  char buf_[64] = {};
  std::size_t len_ = 0;
};

// A thread's files in the create and remove workloads: "t<K>-<i>", or
// "d<j>/t<K>-<i>" with --files-per-dir F. File i of thread K is file number
// g = i (private directories) or g = i*T + K (shared: the threads fill each
// subdirectory together), and goes into subdirectory j = g / F.
class FileNames {
 public:
  FileNames(int thread, int threads, bool shared, long files_per_dir)
      : thread_(thread),
        stride_(shared ? threads : 1),
        offset_(shared ? thread : 0),
        per_dir_(files_per_dir) {
    char p[32];
    std::snprintf(p, sizeof p, "t%d-", thread);
    name_.set_prefix(p);
  }

  const char* operator()(long i) {
    if (per_dir_ > 0) {
      long dir = (i * stride_ + offset_) / per_dir_;
      if (dir != dir_) set_dir(dir);
    }
    return name_.with(std::uint64_t(i));
  }

  // Subdirectory j's name: d0000, d0001, ... (more digits past 9999).
  static void subdir(char (&out)[24], long j) { std::snprintf(out, sizeof out, "d%04ld", j); }

 private:
  void set_dir(long dir) {
    char d[24], p[48];
    subdir(d, dir);
    std::snprintf(p, sizeof p, "%s/t%d-", d, thread_);
    name_.set_prefix(p);
    dir_ = dir;
  }

  int thread_;
  long stride_, offset_, per_dir_;
  long dir_ = -1;
  Name name_;
};

}  // namespace fscost::workload

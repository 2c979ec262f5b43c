// Small system helpers shared by the RAM-disk code (ramdisk.cpp,
// device_check.cpp, leftovers.cpp). Internal to userspace/: not part of the
// ramdisk.h interface.
#pragma once

#include <sys/time.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fscost {

// Where the RAM disk's images are created (their mountpoints are made in
// the state directory, run_state.h).
inline constexpr const char* kShmDir = "/dev/shm";
inline constexpr const char* kImagePrefix = "fscost-";

// strerror(errno).
std::string errno_text();

// A struct timeval (rusage times) in ns.
inline std::uint64_t timeval_ns(const timeval& tv) {
  return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(tv.tv_usec) * 1000ull;
}

// The hint for an errno the user can fix by themselves.
std::string errno_hint(int err);

// "1.5 GiB": one decimal, binary units.
std::string human_bytes(uint64_t b);

// The entries of a directory, without "." and ".."; empty if it cannot be read.
std::vector<std::string> list_dir(const std::string& path);

struct MountEntry {
  std::string majmin;  // "7:0"
  std::string mountpoint;
  std::string source;
  std::string fstype;
  std::string options;        // per-mount: "rw,relatime"
  std::string super_options;  // the filesystem's: "rw,inode64,logbufs=8,logbsize=32k,noquota"
  std::uint64_t mount_id = 0;  // as statx's STATX_MNT_ID gives it
};

// The mounts of /proc/self/mountinfo, with paths unescaped.
std::vector<MountEntry> read_mountinfo();

// "model name" of /proc/cpuinfo's first CPU; "" if it has none.
std::string cpu_model();

// The first line of a file; "" when it cannot be read.
std::string read_first_line(const std::string& path);

}  // namespace fscost

#include "system/sys_util.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>

namespace fscost {

std::string errno_text() { return strerror(errno); }

std::string errno_hint(int err) { return err == EACCES || err == EPERM ? "run as root" : ""; }

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, u++;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(path.c_str()), ::closedir);
  if (!d) return names;
  while (dirent* e = ::readdir(d.get())) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  }
  return names;
}

namespace {

// mountinfo escapes blanks and backslashes in paths as \ooo.
std::string unescape_mountinfo(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::vector<MountEntry> read_mountinfo() {
  std::vector<MountEntry> mounts;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, majmin, root, mountpoint, options, field;
    f >> id >> parent >> majmin >> root >> mountpoint >> options;
    while (f >> field && field != "-") continue;  // optional fields end at "-"
    std::string fstype, source, super;
    f >> fstype >> source >> super;
    mounts.push_back({majmin, unescape_mountinfo(mountpoint), unescape_mountinfo(source), fstype,
                      options, super, std::strtoull(id.c_str(), nullptr, 10)});
  }
  return mounts;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto at = line.find(':');
      if (at == std::string::npos) return {};
      auto v = line.substr(at + 1);
      return v.substr(std::min(v.size(), v.find_first_not_of(' ')));
    }
  return {};
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace fscost

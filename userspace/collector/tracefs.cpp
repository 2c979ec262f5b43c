#include "collector/tracefs.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fscost {
namespace {

constexpr const char* kTracefs = "/sys/kernel/tracing";
// debugfs automounts tracefs here; libbpf (1.x) prefers it when it exists.
constexpr const char* kDebugTracefs = "/sys/kernel/debug/tracing";

// /proc/mounts writes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      std::string oct(s.substr(i + 1, 3));
      if (oct.find_first_not_of("01234567") == std::string::npos) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

int preference(const std::string& dir) {
  if (dir == kTracefs) return 0;
  if (dir == kDebugTracefs) return 1;
  return 2;
}

Error mount_error(int err) {
  std::string what = std::string("cannot mount tracefs at ") + kTracefs + ": " + strerror(err);
  switch (err) {
    case EPERM:
      return {what,
              std::string("run as root, or mount it first: mount -t tracefs nodev ") + kTracefs};
    case ENODEV:
    case ENOENT:
      return {what + " (kernel without tracefs?)",
              "fscost needs a kernel with tracepoints (CONFIG_TRACING=y)"};
    default:
      return {what, std::string("mount it yourself: mount -t tracefs nodev ") + kTracefs};
  }
}

}  // namespace

std::optional<std::string> find_tracefs_mount(std::istream& mounts) {
  std::optional<std::string> best;
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string dev, dir, type;
    if (!(fields >> dev >> dir >> type) || type != "tracefs") continue;
    dir = unescape(dir);
    if (!best || preference(dir) < preference(*best)) best = dir;
  }
  return best;
}

Result<std::string> ensure_tracefs(std::string* note) {
  std::ifstream mounts("/proc/mounts");
  if (auto dir = find_tracefs_mount(mounts)) return *dir;
  // With debugfs mounted, looking inside triggers the tracefs automount.
  std::string debug_events = std::string(kDebugTracefs) + "/events";
  if (access(debug_events.c_str(), F_OK) == 0) return std::string(kDebugTracefs);

  if (mount("nodev", kTracefs, "tracefs", 0, "") != 0) return mount_error(errno);
  // Left mounted on exit, as a boot-time mount would be: other tools expect
  // tracefs there, and unmounting under them would break them.
  if (note) *note = std::string("mounted tracefs at ") + kTracefs + " (it was not mounted)";
  return std::string(kTracefs);
}

bool tracepoint_exists(const std::string& tracefs_root, std::string_view category,
                       std::string_view event) {
  std::string id = tracefs_root + "/events/";
  id.append(category).append("/").append(event).append("/id");
  return access(id.c_str(), F_OK) == 0;
}

}  // namespace fscost

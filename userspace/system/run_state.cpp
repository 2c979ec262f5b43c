#include "system/run_state.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "model/file_io.h"
#include "system/owned_dir.h"
#include "system/sys_util.h"

namespace fscost {

std::string state_base_dir() {
  if (::geteuid() == 0) return "/run/fscost";
  return fmt::format("/tmp/fscost-state-{}", ::geteuid());
}

std::uint64_t process_start_time(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // comm (field 2) may hold spaces and parentheses: count from the last ')'.
  auto paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream rest(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

namespace {

// The process's one record, made on first use.
struct Registry {
  std::mutex mu;
  std::optional<OwnedDir> base, dir;
  RunStateData data;

  // A forked child (a test's, say) starts its own record: what its parent
  // made is the parent's to release.
  void forget_parent() {
    if (!dir || data.pid == ::getpid()) return;
    dir.reset();
    base.reset();
    data = {};
  }

  Status ensure_dir() {
    if (dir) return std::monostate{};
    if (!base) {
      auto b = OwnedDir::open_private(state_base_dir(), 0700);
      if (!b) return b.error();
      base.emplace(std::move(b).value());
    }
    auto d = OwnedDir::make_temp(*base, fmt::format("{}-", ::getpid()));
    if (!d) return d.error();
    dir.emplace(std::move(d).value());
    data.pid = ::getpid();
    data.start_time = process_start_time(data.pid);
    return std::monostate{};
  }

  Status write() {
    if (data.empty()) {
      if (dir) {
        dir->remove_all();
        dir.reset();
      }
      return std::monostate{};
    }
    if (auto ok = ensure_dir(); !ok) return ok;
    return write_file_atomic(state_json(data), dir->path() + "/state");
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

template <class T, class Key>
void erase_by(std::vector<T>& v, Key T::*key, const std::string& value) {
  std::erase_if(v, [&](const T& e) { return e.*key == value; });
}

// One change to the record, under its lock, written at once.
template <class Change>
Status edit(Change change) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.forget_parent();
  change(r.data);
  return r.write();
}

}  // namespace

namespace run_state {

Result<std::string> make_mountpoint() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.forget_parent();
  if (auto ok = r.ensure_dir(); !ok) return ok.error();
  // Beside the state directories, in the base only root can write (0700,
  // checked when opened), and short: the workload is given this path as
  // {dir}, and fs_mark 3.3 overflows a fixed buffer with -D when its -d
  // path has 37 characters or more (36 works). /run/fscost/m-XXXXXX is 20.
  std::string tmpl = r.base->shown() + "/" + std::string(kMountpointPrefix) + "XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    return Error{"cannot make a mountpoint in " + r.base->shown() + ": " + errno_text(), {}};
  r.data.mounts.push_back({tmpl, 0});
  if (auto ok = r.write(); !ok) {
    ::rmdir(tmpl.c_str());
    erase_by(r.data.mounts, &MadeMount::dir, tmpl);
    return ok.error();
  }
  return tmpl;
}

Status add_image(const MadeImage& m) {
  return edit([&](RunStateData& d) { d.images.push_back(m); });
}

Status add_loop(const MadeLoop& m) {
  return edit([&](RunStateData& d) { d.loops.push_back(m); });
}

Status set_mount(const std::string& dir, std::uint64_t mnt_id) {
  return edit([&](RunStateData& d) {
    for (MadeMount& m : d.mounts)
      if (m.dir == dir) m.mnt_id = mnt_id;
  });
}

// A piece is forgotten once it is released; nothing is left to undo if the
// rewrite fails, so its error is not the caller's.
void forget_image(const std::string& path) {
  (void)edit([&](RunStateData& d) { erase_by(d.images, &MadeImage::path, path); });
}

void forget_loop(const std::string& path) {
  (void)edit([&](RunStateData& d) { erase_by(d.loops, &MadeLoop::path, path); });
}

void forget_mount(const std::string& dir) {
  (void)edit([&](RunStateData& d) { erase_by(d.mounts, &MadeMount::dir, dir); });
}

}  // namespace run_state

std::string state_json(const RunStateData& s) {
  nlohmann::json j{{"pid", s.pid}, {"start_time", s.start_time}};
  j["images"] = nlohmann::json::array();
  j["loops"] = nlohmann::json::array();
  j["mounts"] = nlohmann::json::array();
  for (const MadeImage& m : s.images)
    j["images"].push_back({{"path", m.path}, {"dev", m.dev}, {"ino", m.ino}});
  for (const MadeLoop& m : s.loops)
    j["loops"].push_back({{"path", m.path},
                          {"rdev", m.rdev},
                          {"backing_dev", m.backing_dev},
                          {"backing_ino", m.backing_ino}});
  for (const MadeMount& m : s.mounts) j["mounts"].push_back({{"dir", m.dir}, {"mnt_id", m.mnt_id}});
  return j.dump(2) + "\n";
}

Result<RunStateData> parse_state_json(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{"not a state file (bad JSON)", {}};
  try {
    RunStateData s;
    s.pid = j.at("pid").get<pid_t>();
    s.start_time = j.at("start_time").get<std::uint64_t>();
    for (const auto& m : j.at("images"))
      s.images.push_back({m.at("path").get<std::string>(), m.at("dev").get<std::uint64_t>(),
                          m.at("ino").get<std::uint64_t>()});
    for (const auto& m : j.at("loops"))
      s.loops.push_back({m.at("path").get<std::string>(), m.at("rdev").get<std::uint64_t>(),
                         m.at("backing_dev").get<std::uint64_t>(),
                         m.at("backing_ino").get<std::uint64_t>()});
    for (const auto& m : j.at("mounts"))
      s.mounts.push_back({m.at("dir").get<std::string>(), m.at("mnt_id").get<std::uint64_t>()});
    if (s.pid <= 0) return Error{"not a state file (bad pid)", {}};
    return s;
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("not a state file: ") + e.what(), {}};
  }
}

}  // namespace fscost

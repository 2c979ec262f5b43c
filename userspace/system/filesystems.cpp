#include "system/filesystems.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "system/subprocess.h"
#include "system/sys_util.h"

namespace fscost {

namespace {

const Filesystem kFilesystems[] = {
    {.name = "xfs",
     .mkfs = "mkfs.xfs",
     .force = "-f",
     .no_discard = {"-K"},
     .dry_run = "-N",
     .version_word = "mkfs.xfs",
     .info = {"xfs_info", "{dir}"},
     .min_size = "XFS wants more than 300 MB",
     // -d name= and -l name= name a section's device or file, as logdev= and rtdev= do.
     .mkfs_device_keys = {"logdev", "rtdev", "name"},
     .mount_device_keys = {"logdev", "rtdev"}},
    {.name = "ext4",
     .mkfs = "mkfs.ext4",
     .force = "-F",
     // Initialised inode tables and journal: else ext4lazyinit zeroes them
     // in the background while the workload runs (a confound, and writes).
     .no_discard = {"-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"},
     .dry_run = "-n",
     .version_word = "mke2fs",
     .info = {"dumpe2fs", "-h", "{dev}"},
     .min_size = "ext4 with a journal wants a few MB",
     .mkfs_device_keys = {"device"},  // -J device=
     .mount_device_keys = {"journal_path", "journal_dev"}},
    {.name = "btrfs",
     .mkfs = "mkfs.btrfs",
     .force = "-f",
     .no_discard = {"-K"},
     .dry_run = "",  // mkfs.btrfs has none
     .version_word = "btrfs-progs",
     .info = {"btrfs", "inspect-internal", "dump-super", "{dev}"},
     .min_size = "btrfs wants more than 114 MB",
     .mkfs_device_keys = {},  // its extra devices are positionals: refused as block devices
     .mount_device_keys = {"device"}},
};

// mkfs.xfs follows its one-line complaint with the whole usage text; keep the
// complaint (and e.g. "Filesystem must be larger than 300MB.").
std::string mkfs_complaint(const std::string& err) {
  std::istringstream in(err);
  std::string line, kept;
  bool in_usage = false;
  while (std::getline(in, line)) {
    if (line.rfind("Usage:", 0) == 0)
      in_usage = true;
    else if (in_usage && !line.empty() && line[0] != '/' && line[0] != '\t' && line[0] != ' ' &&
             line[0] != '<')
      in_usage = false;
    if (!in_usage && !line.empty()) kept += (kept.empty() ? "" : "\n") + line;
  }
  return kept.empty() ? err : kept;
}

std::string program(const Filesystem& fs, const std::string& mkfs) {
  return mkfs.empty() ? std::string(fs.mkfs) : mkfs;
}

std::string replace_all(std::string s, std::string_view key, const std::string& value) {
  for (auto at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
    s.replace(at, key.size(), value);
  return s;
}

}  // namespace

std::span<const Filesystem> filesystems() { return kFilesystems; }

const Filesystem* find_filesystem(std::string_view name) {
  for (const Filesystem& fs : kFilesystems)
    if (fs.name == name) return &fs;
  return nullptr;
}

const Filesystem& xfs_filesystem() { return kFilesystems[0]; }

std::vector<std::string> without_discard(const Filesystem& fs, std::vector<std::string> opts) {
  // mke2fs keeps only the last -E: the words join the user's own, before
  // them, so that the user's (lazy_itable_init=1) win.
  if (fs.no_discard.size() == 2 && fs.no_discard[0] == "-E")
    for (std::size_t i = 0; i + 1 < opts.size(); ++i)
      if (opts[i] == "-E") {
        opts[i + 1] = std::string(fs.no_discard[1]) + "," + opts[i + 1];
        return opts;
      }
  opts.insert(opts.begin(), fs.no_discard.begin(), fs.no_discard.end());
  return opts;
}

std::string filesystem_names() {
  std::vector<std::string_view> names;
  for (const Filesystem& fs : kFilesystems) names.push_back(fs.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

Result<MkfsRun> run_mkfs(const Filesystem& fs, const std::string& dev,
                         const std::vector<std::string>& extra_opts, const std::string& mkfs) {
  std::vector<std::string> argv = {program(fs, mkfs), std::string(fs.force)};
  argv.insert(argv.end(), extra_opts.begin(), extra_opts.end());
  argv.push_back(dev);
  std::string cmd = fmt::format("{}", fmt::join(argv, " "));

  auto run = run_capture(argv);
  if (!run) return run.error();
  const ProcessOutput& po = run.value();
  if (!po.ok()) {
    return Error{cmd + " failed (" + po.status_text() + "): " + mkfs_complaint(po.err),
                 fmt::format("see {}(8) for what this version ({} -V) accepts", fs.mkfs, argv[0])};
  }
  return MkfsRun{cmd, po.out};
}

Result<std::string> mkfs_version(const Filesystem& fs, const std::string& mkfs) {
  std::string prog = program(fs, mkfs);
  auto run = run_capture({prog, "-V"});
  if (!run) return run.error();
  std::string hint = fmt::format("give a {} for fs: {}", fs.mkfs, fs.name);
  if (!run.value().ok())
    return Error{fmt::format("{} -V failed ({})", prog, run.value().status_text()), hint};
  // mke2fs prints its version on stderr.
  std::string text = run.value().out.empty() ? run.value().err : run.value().out;
  std::string v = text.substr(0, text.find('\n'));
  while (!v.empty() && v.back() == ' ') v.pop_back();
  if (text.find(fs.version_word) == std::string::npos)
    return Error{fmt::format("{} -V printed '{}', not a {} version", prog, v, fs.mkfs), hint};
  return v;
}

std::optional<std::string> not_root_only(const std::string& path) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) return fmt::format("{}: {}", path, ec.message());
  // From the file up to /: each is root's and only root can change it.
  for (std::filesystem::path p = real;; p = p.parent_path()) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return fmt::format("{}: {}", p.string(), errno_text());
    if (st.st_uid != 0) return fmt::format("{} is owned by uid {}", p.string(), st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
      return fmt::format("{} is writable by {}", p.string(),
                         st.st_mode & S_IWOTH ? "others" : "its group");
    if (p == p.parent_path()) return std::nullopt;
  }
}

XfsInfoBesideMkfs xfs_info_beside_mkfs(const Filesystem& fs, const std::string& mkfs) {
  namespace stdfs = std::filesystem;
  XfsInfoBesideMkfs found;
  if (&fs != &xfs_filesystem() || mkfs.find('/') == std::string::npos) return found;
  stdfs::path at = stdfs::path(mkfs).parent_path();
  for (stdfs::path p : {at / "xfs_info", at.parent_path() / "spaceman" / "xfs_info.sh"}) {
    std::error_code ec;
    if (!stdfs::is_regular_file(p, ec)) continue;
    // The user named mkfs, not this script: root runs it only if nobody
    // else could have put it there or changed it.
    if (auto why = not_root_only(p.string())) {
      found.note += fmt::format("{}not running {} as root ({})", found.note.empty() ? "" : "; ",
                                p.string(), *why);
      continue;
    }
    found.script = p.string();
    break;
  }
  if (!found.note.empty())
    found.note +=
        found.script.empty() ? "; the system's xfs_info instead" : "; " + found.script + " instead";
  return found;
}

std::string run_fs_info(const Filesystem& fs, const std::string& dir, const std::string& dev,
                        const std::string& mkfs) {
  std::vector<std::vector<std::string>> tries;
  if (std::string script = xfs_info_beside_mkfs(fs, mkfs).script; !script.empty())
    tries.push_back({"sh", script, dir});
  std::vector<std::string> argv;
  for (std::string_view w : fs.info)
    argv.push_back(replace_all(replace_all(std::string(w), "{dir}", dir), "{dev}", dev));
  tries.push_back(std::move(argv));
  for (const auto& t : tries) {
    auto run = run_capture(t);
    if (run && run.value().ok() && !run.value().out.empty()) return run.value().out;
  }
  return {};
}

}  // namespace fscost

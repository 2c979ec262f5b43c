#include "compare/options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

#include "model/file_io.h"  // Status
#include "system/filesystems.h"

namespace fscost {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// Splits at ';' outside quotes, so a quoted mkfs value may contain one.
std::vector<std::string> split_parts(const std::string& s) {
  std::vector<std::string> parts(1);
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ';') {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

// "mkfs: -m x" → {"mkfs", "-m x"}; no "name:" prefix → {"", s}.
std::pair<std::string, std::string> split_prefix(const std::string& part) {
  std::string t = trim(part);
  auto colon = t.find(':');
  if (colon == std::string::npos) return {"", t};
  std::string name = trim(t.substr(0, colon));
  bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalpha(c) || c == '-' || c == '_';
  });
  if (!word) return {"", t};
  return {name, trim(t.substr(colon + 1))};
}

Error spec_error(const std::string& spec, const std::string& why) {
  return Error{fmt::format("configuration '{}': {}", spec, why),
               "write it as 'mkfs: -m rmapbt=1', 'mkfs: -m rmapbt=1; mount: noatime' or "
               "'fs: ext4; mount: noatime'"};
}

// The pieces of an option word a device could hide in: the word, and each
// value of a sub-option list ("logdev=/dev/sdc,size=64m" → "/dev/sdc", "64m").
std::vector<std::string> values_of(const std::string& word) {
  std::vector<std::string> v{word};
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = std::min(word.find(',', start), word.size());
    std::string item = word.substr(start, comma - start);
    if (auto eq = item.find('='); eq != std::string::npos) v.push_back(item.substr(eq + 1));
    if (comma == word.size()) return v;
    start = comma + 1;
  }
}

// The keys given a value in a sub-option list: "logdev=/dev/sdc,size=64m" →
// logdev, size.
std::vector<std::string> keys_of(const std::string& word) {
  std::vector<std::string> keys;
  std::size_t start = word.rfind('-', 0) == 0 ? word.find_first_not_of('-') : 0;
  while (start != std::string::npos && start < word.size()) {
    std::size_t comma = std::min(word.find(',', start), word.size());
    std::string item = word.substr(start, comma - start);
    if (auto eq = item.find('='); eq != std::string::npos) keys.push_back(item.substr(0, eq));
    start = comma + 1;
  }
  return keys;
}

// Whether `path` (followed through symlinks, "//dev/x", "/proc/self/root/dev/x")
// is a block device.
bool is_block_device(const std::string& path) {
  struct stat st {};
  return path.find('/') != std::string::npos && ::stat(path.c_str(), &st) == 0 &&
         S_ISBLK(st.st_mode);
}

bool listed(const std::vector<std::string_view>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// A user's own force flag: "-f", "--force", or a cluster of short flags
// holding it ("-qF"); fscost adds its own only after its device checks.
bool is_force_flag(const Filesystem& fs, const std::string& w) {
  if (w == fs.force || w == "--force") return true;
  bool cluster = w.size() > 2 && w[0] == '-' && w[1] != '-' &&
                 std::all_of(w.begin() + 1, w.end(), [](unsigned char c) { return std::isalpha(c); });
  return cluster && fs.force.size() == 2 && w.find(fs.force[1]) != std::string::npos;
}

Error device_word(const std::string& spec, const std::string& what) {
  return Error{fmt::format("configuration '{}': {} names a device; fscost formats and mounts "
                           "only the device it checked",
                           spec, what),
               "give the device with --device (one device; external log or realtime devices "
               "are not supported)"};
}

// Options fscost compare itself controls: the dry-run flag (mkfs.xfs -N,
// mke2fs -n) would leave nothing to mount; a force flag would override the
// device checks; a device anywhere in the words would format something
// fscost never checked.
Status check_mkfs_words(const std::string& spec, const Filesystem& fs,
                        const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (!fs.dry_run.empty() && w == fs.dry_run)
      return spec_error(spec, fmt::format("{} (dry run) would leave nothing to mount", fs.dry_run));
    if (is_force_flag(fs, w))
      return Error{fmt::format("configuration '{}': '{}' would make {} overwrite what the device "
                               "holds; fscost checks the device itself",
                               spec, w, fs.mkfs),
                   "leave it out; --force (with --device) is the one way to format a device "
                   "that holds a filesystem"};
    for (const std::string& v : values_of(w))
      if (v.rfind("/dev/", 0) == 0 || is_block_device(v)) return device_word(spec, "'" + w + "'");
    for (const std::string& k : keys_of(w))
      if (listed(fs.mkfs_device_keys, k)) return device_word(spec, "'" + w + "' (" + k + "=)");
  }
  return std::monostate{};
}

Status check_mount_words(const std::string& spec, const Filesystem& fs, const std::string& opts) {
  for (const std::string& k : keys_of(opts))
    if (listed(fs.mount_device_keys, k)) return device_word(spec, "mount option " + k + "=");
  for (const std::string& v : values_of(opts))
    if (v != opts && (v.rfind("/dev/", 0) == 0 || is_block_device(v)))
      return device_word(spec, "mount option value '" + v + "'");
  return std::monostate{};
}

}  // namespace

Result<std::vector<std::string>> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); i++) {
    char c = s[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size() && std::strchr("\"\\$`", s[i + 1]))
        cur += s[++i];
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c, in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i], in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(cur)), cur.clear(), in_word = false;
    } else {
      cur += c, in_word = true;
    }
  }
  if (quote) return Error{fmt::format("unbalanced {} quote in: {}", quote, s), {}};
  if (in_word) words.push_back(std::move(cur));
  return words;
}

std::string derive_label(const std::vector<std::string>& mkfs_opts, const std::string& mount_opts) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < mkfs_opts.size(); i++) {
    const std::string& w = mkfs_opts[i];
    bool flag = w.size() >= 2 && w[0] == '-';
    bool has_value = i + 1 < mkfs_opts.size() && mkfs_opts[i + 1][0] != '-';
    if (flag && has_value) continue;  // "-m" of "-m rmapbt=0"
    parts.push_back(w);
  }
  if (!mount_opts.empty()) parts.push_back(mount_opts);
  return parts.empty() ? "defaults" : fmt::format("{}", fmt::join(parts, " "));
}

Result<ConfigSpec> parse_config_spec(const std::string& spec, const std::string& mount_flag,
                                     const std::string& label, const std::string& default_fs) {
  ConfigSpec c;
  c.spec = spec;
  c.fs = default_fs;
  bool mkfs_seen = false, mount_seen = false, fs_seen = false;
  for (const std::string& part : split_parts(spec)) {
    auto [name, body] = split_prefix(part);
    if (name.empty() && body.empty()) continue;
    if (name == "fs") {
      if (fs_seen) return spec_error(spec, "the filesystem given twice");
      fs_seen = true;
      c.fs = body;  // checked below, with the default
    } else if (name.empty() || name == "mkfs") {
      if (mkfs_seen) return spec_error(spec, "mkfs options given twice");
      mkfs_seen = true;
      auto words = split_words(body);
      if (!words) return spec_error(spec, words.error().message);
      c.mkfs_opts = std::move(words).value();
    } else if (name == "mount") {
      if (mount_seen) return spec_error(spec, "mount options given twice");
      mount_seen = true;
      c.mount_opts = body;
    } else {
      return spec_error(spec, "unknown part '" + name + ":' (known: fs:, mkfs:, mount:)");
    }
  }
  const Filesystem* fs = find_filesystem(c.fs);
  if (!fs)
    return spec_error(spec, fmt::format("unknown filesystem '{}' (known: {})", c.fs,
                                        filesystem_names()));
  if (auto ok = check_mkfs_words(spec, *fs, c.mkfs_opts); !ok) return ok.error();
  if (!mount_flag.empty()) {
    if (mount_seen)
      return spec_error(spec, "mount options both in the spec and in --mount-opts; give one");
    c.mount_opts = mount_flag;
  }
  if (contains(c.mount_opts, " "))
    return spec_error(spec, "mount options are one comma-separated list, without spaces");
  if (auto ok = check_mount_words(spec, *fs, c.mount_opts); !ok) return ok.error();
  if (!label.empty()) {
    c.label = label;
  } else if (fs_seen) {
    bool plain = c.mkfs_opts.empty() && c.mount_opts.empty();
    c.label = plain ? c.fs : c.fs + " " + derive_label(c.mkfs_opts, c.mount_opts);
  } else {
    c.label = derive_label(c.mkfs_opts, c.mount_opts);
  }
  return c;
}

std::string mkfs_program(const CompareOptions& o, const ConfigSpec& c) {
  return c.fs == "xfs" ? o.mkfs : std::string(find_filesystem(c.fs)->mkfs);
}

Result<std::uint64_t> parse_size(const std::string& s) {
  std::string t = trim(s);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  std::string unit = trim(end ? end : "");
  std::transform(unit.begin(), unit.end(), unit.begin(), ::toupper);
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();  // "GB", "GiB" → binary
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  static const std::string units = "KMGT";
  double mult = 1;
  if (unit.size() == 1 && units.find(unit[0]) != std::string::npos)
    mult = std::ldexp(1.0, 10 * (static_cast<int>(units.find(unit[0])) + 1));
  else if (!unit.empty() || end == t.c_str())
    return Error{"bad size '" + s + "'", "give bytes or a number with K, M, G or T: 4G, 512M"};
  if (!(v > 0)) return Error{"size must be positive: '" + s + "'", {}};
  // Converting a double past 2^64 is undefined; no RAM disk is 1 EiB.
  if (!(v * mult < 0x1p60)) return Error{"size too large: '" + s + "'", "at most 1 EiB"};
  return static_cast<std::uint64_t>(v * mult);
}

namespace {

Result<int> parse_count(const std::string& s) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || v < 1 || v > 100000)
    return Error{"bad thread count '" + s + "'", "thread counts are whole numbers ≥ 1"};
  return static_cast<int>(v);
}

// "a-b" (every count) or "a-bxk" (a, a·k, a·k², … ≤ b).
Status add_range(const std::string& item, std::set<int>& out) {
  auto dash = item.find('-');
  auto x = item.find('x', dash);
  auto lo = parse_count(item.substr(0, dash));
  auto hi = parse_count(item.substr(dash + 1, x == std::string::npos ? x : x - dash - 1));
  if (!lo) return lo.error();
  if (!hi) return hi.error();
  if (hi.value() < lo.value()) return Error{"empty thread range '" + item + "'", {}};
  int factor = 0;
  if (x != std::string::npos) {
    auto f = parse_count(item.substr(x + 1));
    if (!f || f.value() < 2)
      return Error{"bad thread range '" + item + "'", "a doubling range is written 1-64x2"};
    factor = f.value();
  }
  for (long t = lo.value(); t <= hi.value(); t = factor ? t * factor : t + 1)
    out.insert(static_cast<int>(t));
  return std::monostate{};
}

}  // namespace

Result<std::vector<int>> parse_thread_list(const std::string& s) {
  std::set<int> out;
  std::string item;
  std::string list = s + ",";
  for (char c : list) {
    if (c != ',') {
      if (!std::isspace(static_cast<unsigned char>(c))) item += c;
      continue;
    }
    if (item.empty()) continue;
    if (item.find('-') != std::string::npos) {
      if (auto ok = add_range(item, out); !ok) return ok.error();
    } else {
      auto n = parse_count(item);
      if (!n) return n.error();
      out.insert(n.value());
    }
    item.clear();
  }
  if (out.empty()) return Error{"no thread counts in '" + s + "'", "e.g. --threads 1,2,4"};
  return std::vector<int>(out.begin(), out.end());
}

bool WorkloadSpec::threaded() const {
  if (builtin() || !cmd_at.empty()) return true;
  return std::any_of(cmd.begin(), cmd.end(),
                     [](const auto& w) { return contains(w, "{threads}"); });
}

namespace {

std::string substitute(std::string word, const std::string& key, const std::string& value) {
  for (auto at = word.find(key); at != std::string::npos; at = word.find(key, at + value.size()))
    word.replace(at, key.size(), value);
  return word;
}

}  // namespace

std::vector<std::string> workload_argv(const WorkloadSpec& w, const std::string& exe,
                                       const std::string& dir, int threads) {
  std::string t = std::to_string(std::max(threads, 1));
  if (!w.builtin()) {
    std::vector<std::string> argv;
    auto at = w.cmd_at.find(threads);
    for (const auto& word : at != w.cmd_at.end() ? at->second : w.cmd)
      argv.push_back(substitute(substitute(word, "{dir}", dir), "{threads}", t));
    return argv;
  }
  std::vector<std::string> argv{
      exe, dir, "--workload", w.name, "--files", std::to_string(w.files), "--threads", t};
  if (!w.dirs.empty()) argv.insert(argv.end(), {"--dirs", w.dirs});
  if (w.files_per_dir)
    argv.insert(argv.end(), {"--files-per-dir", std::to_string(w.files_per_dir)});
  if (w.write_bytes) argv.insert(argv.end(), {"--write", std::to_string(w.write_bytes)});
  if (w.fsync) argv.push_back("--fsync");
  // The run's writeback and log pushes land in the run that caused them.
  argv.push_back("--syncfs");
  if (w.seed) argv.insert(argv.end(), {"--seed", std::to_string(*w.seed)});
  return argv;
}

Result<RunOrder> parse_order(const std::string& s) {
  if (s == "abba") return RunOrder::Abba;
  if (s == "abab") return RunOrder::Abab;
  if (s == "random") return RunOrder::Random;
  return Error{"unknown run order '" + s + "'", "use abba, abab or random"};
}

const char* to_string(RunOrder o) {
  switch (o) {
    case RunOrder::Abab:
      return "abab";
    case RunOrder::Random:
      return "random";
    default:
      return "abba";
  }
}

}  // namespace fscost

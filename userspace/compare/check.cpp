// fscost compare's whole-command checks (check_compare_args) and the
// options as summary.json records them; the parsers are in
// compare/options.cpp.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "collector/hooks.h"  // parse_probe_groups
#include "compare/options.h"
#include "diff/calibration.h"
#include "model/file_io.h"  // Status
#include "system/filesystems.h"

namespace fscost {

namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

constexpr const char* kBuiltinWorkloads[] = {"create", "mixed", "random", "remove", "openclose"};

// A workload command's words; it must name {dir}.
Result<std::vector<std::string>> command_words(const std::string& flag, const std::string& cmd) {
  auto words = split_words(cmd);
  if (!words) return Error{flag + ": " + words.error().message, {}};
  bool has_dir = std::any_of(words.value().begin(), words.value().end(),
                             [](const auto& word) { return contains(word, "{dir}"); });
  if (!has_dir)
    return Error{flag + " must contain {dir}, where the filesystem under test is mounted",
                 "e.g. --workload-cmd 'fs_mark -d {dir} -n 10000 -s 0 -t {threads}'"};
  return words;
}

// "T=CMD": the command thread count T runs.
Status check_workload_at(const CompareArgs& a, WorkloadSpec& w) {
  if (!a.workload_cmd.empty())
    return Error{"--workload-cmd and --workload-cmd-at exclude each other",
                 "give each thread count's command with --workload-cmd-at T=CMD"};
  for (const std::string& arg : a.workload_cmd_at) {
    auto eq = arg.find('=');
    char* end = nullptr;
    long t = eq == std::string::npos ? 0 : std::strtol(arg.c_str(), &end, 10);
    if (eq == std::string::npos || t < 1 || t > 4096 || end != arg.c_str() + eq)
      return Error{fmt::format("--workload-cmd-at '{}': give T=CMD, T a thread count", arg),
                   "e.g. --workload-cmd-at 16='fs_mark -d{dir}/test -s65536 -t16'"};
    auto words = command_words(fmt::format("--workload-cmd-at {}", t), arg.substr(eq + 1));
    if (!words) return words.error();
    if (!w.cmd_at.emplace(static_cast<int>(t), std::move(words).value()).second)
      return Error{fmt::format("--workload-cmd-at {} given twice", t), {}};
  }
  w.cmd = w.cmd_at.begin()->second;
  return std::monostate{};
}

Status check_workload(const CompareArgs& a, WorkloadSpec& w) {
  if (!a.workload_cmd_at.empty()) return check_workload_at(a, w);
  if (!a.workload_cmd.empty()) {
    auto words = command_words("--workload-cmd", a.workload_cmd);
    if (!words) return words.error();
    w.cmd = std::move(words).value();
    return std::monostate{};
  }
  if (std::find_if(std::begin(kBuiltinWorkloads), std::end(kBuiltinWorkloads),
                   [&](const char* n) { return a.workload == n; }) == std::end(kBuiltinWorkloads))
    return Error{"unknown workload '" + a.workload + "'",
                 "built-in workloads: create, mixed, random, remove, openclose; or --workload-cmd"};
  if (!a.dirs.empty() && a.dirs != "shared" && a.dirs != "private")
    return Error{"--dirs must be shared or private, not '" + a.dirs + "'", {}};
  if (a.files == 0) return Error{"--files must be at least 1", {}};
  w.name = a.workload;
  w.files = a.files;
  w.dirs = a.dirs;
  w.files_per_dir = a.files_per_dir;
  w.fsync = a.fsync;
  w.seed = a.seed;
  if (a.write != "0") {
    auto bytes = parse_size(a.write);
    if (!bytes) return Error{"--write: " + bytes.error().message, bytes.error().hint};
    w.write_bytes = bytes.value();
  }
  return std::monostate{};
}

Result<std::vector<int>> check_threads(const CompareArgs& a, const WorkloadSpec& w) {
  if (!w.cmd_at.empty()) {
    if (!a.threads.empty())
      return Error{"--threads and --workload-cmd-at exclude each other",
                   "the thread counts are the T of each --workload-cmd-at T=CMD"};
    std::vector<int> t;
    for (const auto& [n, cmd] : w.cmd_at) t.push_back(n);
    return t;
  }
  if (!w.threaded()) {
    if (!a.threads.empty())
      return Error{"--threads needs {threads} in --workload-cmd to reach the command",
                   "e.g. --workload-cmd 'fs_mark -d {dir} -t {threads} ...'"};
    return std::vector<int>{0};
  }
  if (a.threads.empty()) return std::vector<int>{1};
  return parse_thread_list(a.threads);
}

// Both sides need distinct names in every table.
void distinct_labels(ConfigSpec& a, ConfigSpec& b) {
  if (a.label != b.label) return;
  a.label += " (A)";
  b.label += " (B)";
}

// "NAME=SPEC": NAME is the configuration's label and its runs' name.
Result<ConfigSpec> named_config(const std::string& arg, const std::string& default_fs) {
  auto eq = arg.find('=');
  std::string name = arg.substr(0, eq);
  if (eq == std::string::npos || name.empty())
    return Error{fmt::format("--config '{}': give NAME=SPEC", arg),
                 "e.g. --config ext4='fs: ext4' --config xfs='fs: xfs'"};
  if (!std::all_of(name.begin(), name.end(), [](unsigned char ch) {
        return std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.';
      }))
    return Error{fmt::format("--config '{}': a name is letters, digits, '-', '_' or '.'", arg),
                 "it names the configuration's directory of diffs (vs-NAME)"};
  return parse_config_spec(arg.substr(eq + 1), "", name, default_fs);
}

// --a/--b, or two or more --config (at most 26: runs/t1/a … z), and which
// one is the baseline.
Status check_configs(const CompareArgs& a, CompareOptions& o) {
  if (a.configs.empty()) {
    if (!a.ab_given)
      return Error{"no configurations",
                   "give --a SPEC --b SPEC, or --config NAME=SPEC twice or more"};
    if (!a.baseline.empty()) return Error{"--baseline goes with --config", "name one of them"};
    auto ca = parse_config_spec(a.a, a.mount_a, a.label_a, a.fs);
    if (!ca) return ca.error();
    auto cb = parse_config_spec(a.b, a.mount_b, a.label_b, a.fs);
    if (!cb) return cb.error();
    o.a = std::move(ca).value();
    o.b = std::move(cb).value();
    distinct_labels(o.a, o.b);
    o.configs = {o.a, o.b};
    return std::monostate{};
  }
  if ((a.ab_given && (!a.a.empty() || !a.b.empty())) || !a.mount_a.empty() || !a.mount_b.empty() ||
      !a.label_a.empty() || !a.label_b.empty())
    return Error{"--config and --a/--b exclude each other",
                 "give every configuration as --config NAME=SPEC"};
  if (a.configs.size() < 2 || a.configs.size() > 26)
    return Error{fmt::format("{} --config given; a compare needs 2 to 26", a.configs.size()), {}};
  for (const std::string& arg : a.configs) {
    auto c = named_config(arg, a.fs);
    if (!c) return c.error();
    for (const ConfigSpec& seen : o.configs)
      if (seen.label == c.value().label)
        return Error{fmt::format("--config {} given twice", seen.label), "name each one once"};
    o.configs.push_back(std::move(c).value());
  }
  if (!a.baseline.empty()) {
    auto it = std::find_if(o.configs.begin(), o.configs.end(),
                           [&](const ConfigSpec& c) { return c.label == a.baseline; });
    if (it == o.configs.end())
      return Error{fmt::format("--baseline {} is none of the --config names", a.baseline), {}};
    o.baseline = static_cast<std::size_t>(it - o.configs.begin());
  }
  // Two: the diff's A and B. More: each pair sets its own (compare/matrix.h).
  if (!is_matrix(o)) {
    o.a = o.configs[o.baseline];
    o.b = o.configs[1 - o.baseline];
  }
  return std::monostate{};
}

}  // namespace

Result<CompareOptions> check_compare_args(const CompareArgs& a) {
  CompareOptions o;
  if (!find_filesystem(a.fs))
    return Error{"--fs " + a.fs + " is not supported",
                 "fscost compare formats " + filesystem_names()};
  o.fs = a.fs;
  const char* env = std::getenv("FSCOST_MKFS");
  o.mkfs = !a.mkfs.empty() ? a.mkfs : env && *env ? env : "mkfs.xfs";
  if (o.mkfs.find('/') != std::string::npos && ::access(o.mkfs.c_str(), X_OK) != 0)
    return Error{fmt::format("{} {}: {}", a.mkfs.empty() ? "FSCOST_MKFS" : "--mkfs", o.mkfs,
                             std::strerror(errno)),
                 "give the path of an executable mkfs.xfs (a built xfsprogs: mkfs/mkfs.xfs)"};
  if (auto ok = check_configs(a, o); !ok) return ok.error();
  if (!a.mkfs.empty() && std::none_of(o.configs.begin(), o.configs.end(),
                                      [](const ConfigSpec& c) { return c.fs == "xfs"; }))
    return Error{"--mkfs names the mkfs.xfs of XFS configurations, and none is XFS",
                 "ext4 and btrfs are made with mkfs.ext4 and mkfs.btrfs from PATH"};
  if (!a.device.empty() && a.size_given)
    return Error{"--size and --device exclude each other",
                 "--size is the RAM disk's; with --device the whole device is used"};
  o.device = a.device;
  o.force = a.force;
  if (o.device.empty()) {
    auto size = parse_size(a.size);
    if (!size) return Error{"--size: " + size.error().message, size.error().hint};
    o.size = size.value();
  }
  if (auto ok = check_workload(a, o.workload); !ok) return ok.error();
  auto threads = check_threads(a, o.workload);
  if (!threads) return threads.error();
  o.threads = std::move(threads).value();
  if (a.runs < 1) return Error{"--runs must be at least 1", "3 or more per side give a test"};
  o.runs = a.runs;
  if (a.warmup != "auto") {
    char* end = nullptr;
    long n = std::strtol(a.warmup.c_str(), &end, 10);
    if (a.warmup.empty() || *end != '\0' || n < 0 || n > 100)
      return Error{"--warmup must be auto or a number of runs from 0 to 100",
                   "auto (the default: a short run, then more by the first runs' stability), "
                   "or 0 to skip"};
    o.warmup = static_cast<int>(n);
  }
  if (a.steal_reruns < 0)
    return Error{"--steal-reruns must be 0 or more", "4 (the default) or 0 to keep every run"};
  o.steal_reruns = a.steal_reruns;
  if (a.until_resolved != 0 && (a.until_resolved <= a.runs || a.until_resolved > 100))
    return Error{fmt::format("--until-resolved={} must be more than --runs ({}) and at most 100",
                             a.until_resolved, a.runs),
                 "give the most runs a side it may take, e.g. --until-resolved=20"};
  o.until_resolved = a.until_resolved;
  auto order = parse_order(a.order);
  if (!order) return order.error();
  o.order = order.value();
  o.order_seed = a.order_seed;
  if (auto groups = parse_probe_groups(a.probes); !groups) return groups.error();
  o.probes = a.probes;
  if (a.output.empty()) return Error{"no output directory", "give one with -o DIR"};
  o.output = a.output;
  o.quiet = a.quiet;
  o.keep_addresses = a.keep_addresses;
  if (!a.calibration.empty()) {
    auto cal = read_calibration(a.calibration);
    if (!cal) return cal.error();
    o.calibration = std::make_shared<const Calibration>(std::move(cal).value());
    o.calibration_path = a.calibration;
  }
  return o;
}

DiffConfig diff_config(const CompareOptions& o) {
  DiffConfig c;
  c.calibration = o.calibration;
  return c;
}

nlohmann::json options_json(const CompareOptions& o) {
  auto config = [](const ConfigSpec& c) {
    return nlohmann::json{{"spec", c.spec},
                          {"fs", c.fs},
                          {"label", c.label},
                          {"mkfs_opts", c.mkfs_opts},
                          {"mount_opts", c.mount_opts}};
  };
  const WorkloadSpec& w = o.workload;
  nlohmann::json workload = w.builtin() ? nlohmann::json{{"builtin", w.name},
                                                         {"files_per_thread", w.files},
                                                         {"dirs", w.dirs},
                                                         {"files_per_dir", w.files_per_dir},
                                                         {"write_bytes", w.write_bytes},
                                                         {"fsync", w.fsync}}
                                        : nlohmann::json{{"command", w.cmd}};
  if (!w.cmd_at.empty()) {
    nlohmann::json at = nlohmann::json::object();
    for (const auto& [t, cmd] : w.cmd_at) at[std::to_string(t)] = cmd;
    workload = {{"commands_at", at}};
  }
  if (w.seed) workload["seed"] = *w.seed;
  std::vector<int> threads;
  for (int t : o.threads)
    if (t > 0) threads.push_back(t);
  nlohmann::json configs = nlohmann::json::array();
  for (const ConfigSpec& c : o.configs) configs.push_back(config(c));
  nlohmann::json j = {{"fs", o.fs},
                      {"mkfs", o.mkfs},
                      {"configs", configs},
                      {"baseline", o.configs.empty() ? nlohmann::json()
                                                     : nlohmann::json(o.configs[o.baseline].label)},
                      {"storage", o.device.empty() ? nlohmann::json{{"ram_disk_bytes", o.size}}
                                                   : nlohmann::json{{"device", o.device}}},
                      {"workload", workload},
                      {"threads", threads},
                      {"runs_per_config", o.runs},
                      {"warmup_runs_per_config", o.warmup ? nlohmann::json(*o.warmup) : nlohmann::json("auto")},
                      {"steal_reruns", o.steal_reruns},
                      {"until_resolved", o.until_resolved},
                      {"order", to_string(o.order)},
                      {"order_seed", o.order_seed},
                      {"probes", o.probes},
                      {"keep_addresses", o.keep_addresses},
                      {"calibration", o.calibration_path.empty()
                                          ? nlohmann::json()
                                          : nlohmann::json(o.calibration_path)}};
  if (!is_matrix(o)) {
    j["a"] = config(o.a);
    j["b"] = config(o.b);
  }
  return j;
}

}  // namespace fscost

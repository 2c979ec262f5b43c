// fscost compare's whole-command checks (check_compare_args) and the
// options as summary.json records them; the parsers are in
// compare/options.cpp.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "compare/options.h"
#include "model/file_io.h"  // Status
#include "collector/hooks.h"    // parse_probe_groups

namespace fscost {

namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

constexpr const char* kBuiltinWorkloads[] = {"create", "mixed", "random", "remove", "openclose"};

Status check_workload(const CompareArgs& a, WorkloadSpec& w) {
  if (!a.workload_cmd.empty()) {
    auto words = split_words(a.workload_cmd);
    if (!words) return Error{"--workload-cmd: " + words.error().message, {}};
    w.cmd = std::move(words).value();
    bool has_dir = std::any_of(w.cmd.begin(), w.cmd.end(),
                               [](const auto& word) { return contains(word, "{dir}"); });
    if (w.cmd.empty() || !has_dir)
      return Error{"--workload-cmd must contain {dir}, where the filesystem under test is mounted",
                   "e.g. --workload-cmd 'fs_mark -d {dir} -n 10000 -s 0 -t {threads}'"};
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

}  // namespace

Result<CompareOptions> check_compare_args(const CompareArgs& a) {
  CompareOptions o;
  if (a.fs != "xfs")
    return Error{"--fs " + a.fs + " is not supported", "fscost compare formats XFS (--fs xfs)"};
  o.fs = a.fs;
  const char* env = std::getenv("FSCOST_MKFS");
  o.mkfs = !a.mkfs.empty() ? a.mkfs : env && *env ? env : "mkfs.xfs";
  if (o.mkfs.find('/') != std::string::npos && ::access(o.mkfs.c_str(), X_OK) != 0)
    return Error{fmt::format("{} {}: {}", a.mkfs.empty() ? "FSCOST_MKFS" : "--mkfs", o.mkfs,
                             std::strerror(errno)),
                 "give the path of an executable mkfs.xfs (a built xfsprogs: mkfs/mkfs.xfs)"};
  auto ca = parse_config_spec(a.a, a.mount_a, a.label_a);
  if (!ca) return ca.error();
  auto cb = parse_config_spec(a.b, a.mount_b, a.label_b);
  if (!cb) return cb.error();
  o.a = std::move(ca).value();
  o.b = std::move(cb).value();
  distinct_labels(o.a, o.b);
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
  if (a.warmup < 0) return Error{"--warmup must be 0 or more", "1 (the default) or 0 to skip"};
  o.warmup = a.warmup;
  if (a.steal_reruns < 0)
    return Error{"--steal-reruns must be 0 or more", "4 (the default) or 0 to keep every run"};
  o.steal_reruns = a.steal_reruns;
  auto order = parse_order(a.order);
  if (!order) return order.error();
  o.order = order.value();
  o.order_seed = a.order_seed;
  if (auto groups = parse_probe_groups(a.probes); !groups) return groups.error();
  o.probes = a.probes;
  if (a.output.empty()) return Error{"no output directory", "give one with -o DIR"};
  o.output = a.output;
  o.quiet = a.quiet;
  return o;
}

nlohmann::json options_json(const CompareOptions& o) {
  auto config = [](const ConfigSpec& c) {
    return nlohmann::json{{"spec", c.spec},
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
  if (w.seed) workload["seed"] = *w.seed;
  std::vector<int> threads;
  for (int t : o.threads)
    if (t > 0) threads.push_back(t);
  return {{"fs", o.fs},
          {"mkfs", o.mkfs},
          {"a", config(o.a)},
          {"b", config(o.b)},
          {"storage", o.device.empty() ? nlohmann::json{{"ram_disk_bytes", o.size}}
                                       : nlohmann::json{{"device", o.device}}},
          {"workload", workload},
          {"threads", threads},
          {"runs_per_config", o.runs},
          {"warmup_runs_per_config", o.warmup},
          {"steal_reruns", o.steal_reruns},
          {"order", to_string(o.order)},
          {"order_seed", o.order_seed},
          {"probes", o.probes}};
}

}  // namespace fscost

// fscost compare's options: the two configurations, the workload, the
// storage and the sweep, parsed and checked before anything is touched
// (docs/COMPARE.md).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"

namespace fscost {

struct Calibration;  // diff/calibration.h
struct DiffConfig;   // diff/diff.h

// One side of the comparison: which filesystem, how to make and mount it.
struct ConfigSpec {
  std::string spec;                    // as given: "mkfs: -m rmapbt=0; mount: noatime"
  std::string fs = "xfs";              // "fs: ext4", else --fs
  std::string label;                   // "rmapbt=0", "ext4", or --label-a
  std::vector<std::string> mkfs_opts;  // {"-m", "rmapbt=0"}
  std::string mount_opts;              // "noatime,logbsize=256k"
};

// Splits words as a shell would for quoting ('…', "…", \x) but runs
// nothing: no variables, globs or pipes. Unbalanced quotes are an error.
Result<std::vector<std::string>> split_words(const std::string& s);

// "fs: NAME; mkfs: OPTS; mount: OPTS" (each part optional, in any order; a
// spec without a "name:" prefix is mkfs options; the filesystem defaults to
// `default_fs`, --fs). `mount_flag` is --mount-opts-a/-b, an alternative to
// the spec's mount part (both is an error). The label is derived from the
// options (after the filesystem's name when the spec names one) unless given.
Result<ConfigSpec> parse_config_spec(const std::string& spec, const std::string& mount_flag,
                                     const std::string& label,
                                     const std::string& default_fs = "xfs");

// The short name of a configuration: the option values without their
// flags ("-m rmapbt=0" → "rmapbt=0"), then the mount options; "defaults".
std::string derive_label(const std::vector<std::string>& mkfs_opts, const std::string& mount_opts);

// "4G", "512M", "1.5GiB", "300000000" → bytes (binary units).
Result<std::uint64_t> parse_size(const std::string& s);

// "1,2,4,8" → {1, 2, 4, 8}; also ranges "1-4" (every count) and doubling
// ranges "1-64x2" (1, 2, 4, … 64). Sorted, duplicates removed, each ≥ 1.
Result<std::vector<int>> parse_thread_list(const std::string& s);

// The built-in workload (fscost-workload) or a command of the user's.
struct WorkloadSpec {
  std::string name = "create";      // --workload
  std::uint64_t files = 10000;      // --files, per thread
  std::string dirs;                 // --dirs shared|private ("" = the workload's default)
  std::uint64_t files_per_dir = 0;  // 0 = the workload's default
  std::uint64_t write_bytes = 0;
  bool fsync = false;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> cmd;  // --workload-cmd split into words; empty = built-in
  // --workload-cmd-at T=CMD: thread count T's own command (a published
  // sweep whose columns differ in more than -t: the guardrail says so);
  // `cmd` is then the first of them.
  std::map<int, std::vector<std::string>> cmd_at;

  bool builtin() const { return cmd.empty(); }
  // Whether the thread count reaches the workload: always for the built-in
  // one, through {threads} for a command.
  bool threaded() const;
};

// The workload's argv for one run in `dir` with `threads` (0 = no thread
// dimension). `exe` is the built-in workload's path.
std::vector<std::string> workload_argv(const WorkloadSpec& w, const std::string& exe,
                                       const std::string& dir, int threads);

enum class RunOrder { Abba, Abab, Random };
Result<RunOrder> parse_order(const std::string& s);
const char* to_string(RunOrder o);

// The command line as given (strings, before checks).
struct CompareArgs {
  std::string fs = "xfs";        // the filesystem of a spec without "fs:"
  std::string mkfs;              // --mkfs; "" = $FSCOST_MKFS, else mkfs.xfs in PATH
  std::string a, b;              // --a / --b specs ('' is the defaults)
  bool ab_given = true;          // false: the command line had neither --a nor --b
  // --config NAME=SPEC, repeated (two or more; instead of --a/--b), and
  // --baseline NAME ("" = the first).
  std::vector<std::string> configs;
  std::string baseline;
  std::string mount_a, mount_b;  // --mount-opts-a / -b
  std::string label_a, label_b;
  std::string device;       // --device; "" = RAM disk
  std::string size = "1G";  // RAM disk size
  bool size_given = false;
  bool force = false;
  std::string workload = "create";
  std::uint64_t files = 10000;
  std::string dirs, write = "0";
  std::uint64_t files_per_dir = 0;
  bool fsync = false;
  std::optional<std::uint64_t> seed;
  std::string workload_cmd;
  std::vector<std::string> workload_cmd_at;  // --workload-cmd-at T=CMD, repeated
  std::string threads;  // "" = 1 (or none for a command without {threads})
  int runs = 5;
  std::string warmup = "auto";  // "auto" (compare/warmup.h) or N full discarded runs per configuration
  int steal_reruns = 4;  // runs the host stole from that are run again, per compare
  int until_resolved = 0;  // --until-resolved[=MAX]: runs a side at most; 0 = off
  std::string order = "abba";
  std::uint64_t order_seed = 1;
  std::string probes = "default";
  std::string output;
  bool quiet = false;
  bool keep_addresses = false;  // --keep-addresses: lock addresses in the profiles (not ids)
  std::string calibration;  // --calibration FILE: fscost calibrate's calibration.json
};

struct CompareOptions {
  std::string fs;                 // --fs, the default filesystem
  std::string mkfs = "mkfs.xfs";  // XFS configurations': a path, or a name in PATH
  // Every configuration, in the order given (--a, --b; or each --config);
  // a run's PlannedRun::config indexes it.
  std::vector<ConfigSpec> configs;
  std::size_t baseline = 0;  // the one each other configuration is diffed against
  // The two of a diff: with two configurations, the baseline and the other;
  // with more, set per pair when the outputs are written (compare/matrix.h).
  ConfigSpec a, b;
  std::string device;
  std::uint64_t size = 0;  // RAM disk bytes (unused with a device)
  bool force = false;
  WorkloadSpec workload;
  std::vector<int> threads;  // {0} when the workload has no thread dimension
  int runs = 0;
  // Full discarded runs per configuration before the measured ones;
  // nullopt: by the rule of compare/warmup.h (--warmup auto).
  std::optional<int> warmup;
  int steal_reruns = 4;
  // --until-resolved=MAX: pairs of runs are added, interleaved, while the
  // headline op's time is not resolved and MAX runs a side would (0: off).
  int until_resolved = 0;
  RunOrder order = RunOrder::Abba;
  std::uint64_t order_seed = 1;
  std::string probes;
  std::string output;
  bool quiet = false;
  bool keep_addresses = false;  // --keep-addresses: lock addresses in the profiles (not ids)
  // --calibration: read before anything is made; the diffs' intervals are
  // floored by it (diff/calibration.h). `calibration_path` as given.
  std::shared_ptr<const Calibration> calibration;
  std::string calibration_path;
};

// How the compare's diffs are made: the default DiffConfig, with the
// calibration.
DiffConfig diff_config(const CompareOptions& o);

// More than two configurations: a matrix of them, each diffed against the
// baseline (compare/matrix.h).
inline bool is_matrix(const CompareOptions& o) { return o.configs.size() > 2; }

// The mkfs program of a configuration: --mkfs for XFS, the filesystem's
// own (mkfs.ext4, mkfs.btrfs) in PATH for the others.
std::string mkfs_program(const CompareOptions& o, const ConfigSpec& c);

// Every check that needs no root and touches nothing: specs, sizes,
// thread list, {dir} in the command, --size with --device, counts.
Result<CompareOptions> check_compare_args(const CompareArgs& args);

// The options as summary.json records them.
nlohmann::json options_json(const CompareOptions& o);

}  // namespace fscost

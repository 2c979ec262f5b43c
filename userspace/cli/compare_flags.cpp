// The options compare and calibrate share (compare_flags.h), in the order
// --help lists them.
#include "cli/compare_flags.h"

namespace fscost {

void add_mkfs_flags(CLI::App* sub, CompareArgs& a) {
  sub->add_option("--fs", a.fs, "Filesystem of a configuration without fs: (xfs, ext4, btrfs)")
      ->capture_default_str();
  sub->add_option("--mkfs", a.mkfs,
                  "mkfs.xfs to format with: a path (a built xfsprogs) or a name in PATH "
                  "(default: $FSCOST_MKFS, else mkfs.xfs)");
}

namespace {

CLI::Option* add_storage_flags(CLI::App* sub, CompareArgs& a) {
  auto* dev = sub->add_option("--device", a.device,
                              "Block device to format every run (default: a RAM disk)");
  auto* size =
      sub->add_option("--size", a.size, "RAM disk size (4G, 512M)")->capture_default_str();
  dev->excludes(size);
  // `--device ''` (an unset variable) must not fall back to the RAM disk.
  dev->check([](const std::string& v) {
    return v.empty() ? std::string("--device needs a block device path; leave it out for a RAM disk")
                     : std::string();
  });
  sub->add_flag("--force", a.force, "Format --device even if it holds a filesystem");
  return size;
}

void add_workload_flags(CLI::App* sub, CompareArgs& a) {
  auto* wl = sub->add_option("--workload", a.workload,
                             "Built-in workload: create, mixed, random, remove, openclose")
                 ->capture_default_str();
  sub->add_option("--files", a.files, "Built-in: files per thread")->capture_default_str();
  sub->add_option("--dirs", a.dirs, "Built-in: shared or private directories");
  sub->add_option("--files-per-dir", a.files_per_dir, "Built-in: files per directory");
  sub->add_option("--write", a.write, "Built-in: bytes written per file (4K, 1M)");
  sub->add_flag("--fsync", a.fsync, "Built-in: fsync each file");
  sub->add_option("--seed", a.seed, "Built-in: random seed (the same every run)");
  auto* cmd = sub->add_option("--workload-cmd", a.workload_cmd,
                              "Your workload; {dir} is the mountpoint, {threads} the thread count");
  cmd->excludes(wl);
  auto* cmd_at = sub->add_option(
      "--workload-cmd-at", a.workload_cmd_at,
      "T=CMD, repeated: thread count T's own command (a published sweep); the summary says "
      "when they differ in more than the thread count");
  cmd_at->excludes(wl)->excludes(cmd);
}

}  // namespace

CLI::Option* add_run_flags(CLI::App* sub, CompareArgs& a) {
  CLI::Option* size = add_storage_flags(sub, a);
  add_workload_flags(sub, a);
  sub->add_option("--threads", a.threads, "Thread counts to sweep: 1,2,4 or 1-64x2");
  sub->add_option("--warmup", a.warmup,
                  "Discarded runs per configuration before the measured ones: auto (a short "
                  "run each, then a slow first run replaced) or N full runs")
      ->capture_default_str();
  sub->add_option("--steal-reruns", a.steal_reruns,
                  "Runs the host took over 10% of the vCPUs' time from (steal) that are run "
                  "again, at most, per compare")
      ->capture_default_str();
  return size;
}

void add_output_flags(CLI::App* sub, CompareArgs& a) {
  sub->add_option("--order", a.order, "abba (counterbalanced), abab, or random")
      ->capture_default_str();
  sub->add_option("--order-seed", a.order_seed, "Seed of --order random")->capture_default_str();
  sub->add_option("--probes", a.probes, "Probe groups for fscost record")->capture_default_str();
  sub->add_option("-o,--output", a.output, "Output directory (new or empty)")->required();
  sub->add_flag("-q,--quiet", a.quiet, "No progress line");
  sub->add_flag("--keep-addresses", a.keep_addresses,
                "Keep lock addresses in the profiles (default: per-recording ids; they reveal KASLR)");
}

}  // namespace fscost

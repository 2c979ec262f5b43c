// fscost compare's option parsing: specs, sizes, thread lists, workloads.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compare/options.h"
#include "diff/calibration.h"

namespace fscost {
namespace {

using Words = std::vector<std::string>;

TEST(CompareOptions, SplitWordsQuotesLikeAShell) {
  auto w = split_words(R"(fs_mark -d {dir} -s "1 2" 'a b' x\ y)");
  ASSERT_TRUE(w);
  EXPECT_EQ(w.value(), (Words{"fs_mark", "-d", "{dir}", "-s", "1 2", "a b", "x y"}));
  EXPECT_EQ(split_words("  ").value(), Words{});
  EXPECT_EQ(split_words(R"(a "" b)").value(), (Words{"a", "", "b"}));
  EXPECT_FALSE(split_words("echo 'unbalanced"));
}

TEST(CompareOptions, ConfigSpecMkfsAndMount) {
  auto c = parse_config_spec("mkfs: -m rmapbt=1 -i sparse=0; mount: noatime,logbsize=256k", "", "");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c.value().mkfs_opts, (Words{"-m", "rmapbt=1", "-i", "sparse=0"}));
  EXPECT_EQ(c.value().mount_opts, "noatime,logbsize=256k");
  EXPECT_EQ(c.value().label, "rmapbt=1 sparse=0 noatime,logbsize=256k");
}

TEST(CompareOptions, ConfigSpecWithoutPrefixIsMkfs) {
  auto c = parse_config_spec("-m rmapbt=0", "", "");
  ASSERT_TRUE(c);
  EXPECT_EQ(c.value().mkfs_opts, (Words{"-m", "rmapbt=0"}));
  EXPECT_EQ(c.value().label, "rmapbt=0");
  auto d = parse_config_spec("", "", "");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d.value().mkfs_opts.empty());
  EXPECT_EQ(d.value().label, "defaults");
}

TEST(CompareOptions, ConfigSpecMountFlagAndLabel) {
  auto c = parse_config_spec("mkfs: -m rmapbt=0", "noatime", "old");
  ASSERT_TRUE(c);
  EXPECT_EQ(c.value().mount_opts, "noatime");
  EXPECT_EQ(c.value().label, "old");
  // The same thing twice is ambiguous.
  EXPECT_FALSE(parse_config_spec("mount: noatime", "relatime", ""));
  EXPECT_FALSE(parse_config_spec("mkfs: -m a=1; mkfs: -m b=1", "", ""));
}

TEST(CompareOptions, ConfigSpecRejectsWhatCompareControls) {
  auto unknown = parse_config_spec("mfks: -m rmapbt=1", "", "");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown part 'mfks:'"), std::string::npos);
  EXPECT_FALSE(parse_config_spec("mkfs: -N", "", ""));
  EXPECT_FALSE(parse_config_spec("mkfs: -m rmapbt=1 /dev/sda", "", ""));
  EXPECT_FALSE(parse_config_spec("mount: noatime, nodiratime", "", ""));
}

// Issue 28: a device reaches mkfs or mount(2) only through --device and its
// checks; every other way to name one in a configuration is refused, per
// filesystem, as is a force flag of the user's own.
TEST(CompareOptions, ConfigSpecRefusesDevicesAndForceInAnyForm) {
  auto refused = [](const std::string& spec) {
    auto c = parse_config_spec(spec, "", "");
    return !c && (c.error().message.find("names a device") != std::string::npos ||
                  c.error().message.find("overwrite") != std::string::npos);
  };
  for (const char* spec : {
           "mkfs: -l logdev=/dev/loop7,size=64m",  // xfs external log
           "mkfs: -l size=64m,logdev=/tmp/x",       // the key, wherever its value points
           "mkfs: -r rtdev=/dev/loop7",             // xfs realtime device
           "mkfs: -d name=/tmp/image",              // xfs data section's own device or file
           "mkfs: //dev/loop7",                     // positional spellings
           "mkfs: /proc/self/root/dev/loop0",
           "mkfs: -f",                              // xfs force
           "mkfs: --force",
           "fs: ext4; mkfs: -J device=/dev/loop7",  // ext4 external journal
           "fs: ext4; mkfs: -J device=UUID=1234",
           "fs: ext4; mkfs: -F",                    // mke2fs force, even a mounted device
           "fs: ext4; mkfs: -qF",
           "fs: btrfs; mkfs: -f",
           "mount: logdev=/dev/loop7",              // mount(2) options naming a device
           "mount: noatime,rtdev=/dev/loop7",
           "fs: ext4; mount: journal_path=/dev/loop7",
           "fs: ext4; mount: journal_dev=1793",
           "fs: btrfs; mount: device=/dev/loop7",
       })
    EXPECT_TRUE(refused(spec)) << spec;
  // /dev/loop0 exists on these machines: a block device however it is written.
  struct stat st {};
  if (::stat("/dev/loop0", &st) == 0 && S_ISBLK(st.st_mode)) {
    EXPECT_TRUE(refused("fs: btrfs; mkfs: -L x /dev/../dev/loop0"));
  }
  // What is not a device passes: a label, sizes, a file-type feature.
  for (const char* spec : {"mkfs: -l size=64m -L name", "mkfs: -n ftype=1 -m rmapbt=1",
                           "fs: ext4; mkfs: -J size=64 -O ^has_journal", "mount: noatime,logbsize=256k",
                           "mount: suid,dev"})
    EXPECT_TRUE(parse_config_spec(spec, "", "")) << spec;
}

// Issue 20: a configuration names its filesystem; the label says which.
TEST(CompareOptions, ConfigSpecNamesItsFilesystem) {
  auto c = parse_config_spec("fs: ext4; mkfs: -E lazy_itable_init=0; mount: noatime", "", "");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c.value().fs, "ext4");
  EXPECT_EQ(c.value().mkfs_opts, (Words{"-E", "lazy_itable_init=0"}));
  EXPECT_EQ(c.value().mount_opts, "noatime");
  EXPECT_EQ(c.value().label, "ext4 lazy_itable_init=0 noatime");
  auto plain = parse_config_spec("fs: btrfs", "", "");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain.value().label, "btrfs");
  // Without "fs:" the default (--fs) holds, and the label is as before.
  auto dflt = parse_config_spec("mkfs: -m rmapbt=1", "", "", "xfs");
  ASSERT_TRUE(dflt);
  EXPECT_EQ(dflt.value().fs, "xfs");
  EXPECT_EQ(dflt.value().label, "rmapbt=1");
  auto unknown = parse_config_spec("fs: zfs", "", "");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown filesystem 'zfs' (known: xfs, ext4, btrfs)"),
            std::string::npos)
      << unknown.error().message;
  EXPECT_FALSE(parse_config_spec("fs: ext4; fs: xfs", "", ""));
  // Each filesystem's own dry-run flag is refused: ext4's -n, not XFS's -N.
  EXPECT_FALSE(parse_config_spec("fs: ext4; mkfs: -n", "", ""));
  EXPECT_TRUE(parse_config_spec("fs: ext4; mkfs: -N 100000", "", ""));  // mke2fs: inode count
  EXPECT_FALSE(parse_config_spec("fs: xfs; mkfs: -N", "", ""));
}

TEST(CompareOptions, Sizes) {
  EXPECT_EQ(parse_size("4G").value(), 4ull << 30);
  EXPECT_EQ(parse_size("512M").value(), 512ull << 20);
  EXPECT_EQ(parse_size("1.5GiB").value(), 3ull << 29);
  EXPECT_EQ(parse_size("2gb").value(), 2ull << 30);
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("64k").value(), 64u << 10);
  EXPECT_FALSE(parse_size("4X"));
  EXPECT_FALSE(parse_size("G"));
  EXPECT_FALSE(parse_size("0"));
  EXPECT_FALSE(parse_size("-1G"));
}

TEST(CompareOptions, ThreadLists) {
  EXPECT_EQ(parse_thread_list("1,2,4").value(), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_thread_list("4, 1,2,2").value(), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_thread_list("1-4").value(), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_thread_list("1-64x2").value(), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(parse_thread_list("1-100x4,96").value(), (std::vector<int>{1, 4, 16, 64, 96}));
  EXPECT_FALSE(parse_thread_list("0"));
  EXPECT_FALSE(parse_thread_list("4-1"));
  EXPECT_FALSE(parse_thread_list("1-8x1"));
  EXPECT_FALSE(parse_thread_list("two"));
  EXPECT_FALSE(parse_thread_list(""));
}

TEST(CompareOptions, BuiltinWorkloadArgv) {
  WorkloadSpec w;
  w.name = "mixed";
  w.files = 500;
  w.dirs = "private";
  w.fsync = true;
  w.seed = 7;
  EXPECT_EQ(workload_argv(w, "/b/fscost-workload", "/mnt/x", 4),
            (Words{"/b/fscost-workload", "/mnt/x", "--workload", "mixed", "--files", "500",
                   "--threads", "4", "--dirs", "private", "--fsync", "--syncfs", "--seed",
                   "7"}));
}

TEST(CompareOptions, CommandWorkloadArgvSubstitutes) {
  WorkloadSpec w;
  w.cmd = {"fs_mark", "-d", "{dir}/x", "-t", "{threads}", "-D{dir}"};
  EXPECT_TRUE(w.threaded());
  EXPECT_EQ(workload_argv(w, "", "/mnt/y", 8),
            (Words{"fs_mark", "-d", "/mnt/y/x", "-t", "8", "-D/mnt/y"}));
}

CompareArgs base_args() {
  CompareArgs a;
  a.a = "mkfs: -m rmapbt=0";
  a.b = "mkfs: -m rmapbt=1";
  a.output = "out";
  return a;
}

TEST(CompareOptions, CheckDefaults) {
  auto o = check_compare_args(base_args());
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o.value().a.label, "rmapbt=0");
  EXPECT_EQ(o.value().b.label, "rmapbt=1");
  EXPECT_EQ(o.value().size, 1ull << 30);
  EXPECT_EQ(o.value().threads, std::vector<int>{1});
  EXPECT_TRUE(o.value().workload.builtin());
  nlohmann::json j = options_json(o.value());
  EXPECT_EQ(j["a"]["mkfs_opts"][1], "rmapbt=0");
  EXPECT_EQ(j["order"], "abba");
  EXPECT_EQ(j["a"]["fs"], "xfs");
  EXPECT_EQ(j["threads"], nlohmann::json::array({1}));
}

// --calibration is read with the other checks, before anything is made.
TEST(CompareOptions, CalibrationIsReadFirst) {
  CompareArgs a = base_args();
  a.calibration = "/nonexistent/calibration.json";
  auto bad = check_compare_args(a);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/nonexistent/calibration.json"), std::string::npos)
      << bad.error().message;
  Calibration cal;
  cal.date = "2026-12-04T10:00:00Z";
  cal.host = {"h", "6.8", 2};
  cal.runs = 5;
  cal.compares = 2;
  cal.ops["create"]["oncpu"] = {0.05, {0.05, -0.05}, 0};
  std::string path = ::testing::TempDir() + "fscost-calibration-test.json";
  { std::ofstream(path) << calibration_json_text(cal); }
  a.calibration = path;
  auto o = check_compare_args(a);
  std::remove(path.c_str());
  ASSERT_TRUE(o) << o.error().message;
  ASSERT_NE(o.value().calibration, nullptr);
  EXPECT_EQ(o.value().calibration->compares, 2u);
  EXPECT_EQ(diff_config(o.value()).calibration, o.value().calibration);
  EXPECT_EQ(options_json(o.value())["calibration"], path);
}

TEST(CompareOptions, CheckSameLabelsMadeDistinct) {
  CompareArgs a = base_args();
  a.b = a.a;
  auto o = check_compare_args(a);
  ASSERT_TRUE(o);
  EXPECT_EQ(o.value().a.label, "rmapbt=0 (A)");
  EXPECT_EQ(o.value().b.label, "rmapbt=0 (B)");
}

TEST(CompareOptions, CheckWorkloadCommand) {
  CompareArgs a = base_args();
  a.workload_cmd = "fs_mark -n 100";
  auto no_dir = check_compare_args(a);
  ASSERT_FALSE(no_dir);
  EXPECT_NE(no_dir.error().message.find("{dir}"), std::string::npos);

  a.workload_cmd = "fs_mark -d {dir} -n 100";
  auto o = check_compare_args(a);
  ASSERT_TRUE(o);
  EXPECT_EQ(o.value().threads, std::vector<int>{0});  // no thread dimension
  a.threads = "1,2";
  EXPECT_FALSE(check_compare_args(a));  // cannot reach the command
  a.workload_cmd = "fs_mark -d {dir} -t {threads}";
  ASSERT_TRUE(check_compare_args(a));
  EXPECT_EQ(check_compare_args(a).value().threads, (std::vector<int>{1, 2}));
}

TEST(CompareOptions, CheckRejects) {
  auto bad = [](auto change) {
    CompareArgs a = base_args();
    change(a);
    return !check_compare_args(a);
  };
  EXPECT_TRUE(bad([](CompareArgs& a) { a.fs = "zfs"; }));
  // --mkfs is XFS's: with no XFS configuration it would be ignored.
  EXPECT_TRUE(bad([](CompareArgs& a) { a.a = "fs: ext4", a.b = "fs: btrfs", a.mkfs = "mkfs.xfs"; }));
  EXPECT_FALSE(bad([](CompareArgs& a) { a.a = "fs: ext4", a.b = "fs: xfs", a.mkfs = "mkfs.xfs"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.workload = "bogus"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.runs = 0; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.steal_reruns = -1; }));
  EXPECT_FALSE(bad([](CompareArgs& a) { a.steal_reruns = 0; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.order = "zigzag"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.size = "lots"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.size = "1e30G"; }));  // past 2^64: refused, not UB
  EXPECT_TRUE(bad([](CompareArgs& a) { a.device = "/dev/sdz", a.size_given = true; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.dirs = "both"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.probes = "nonsense"; }));
  EXPECT_TRUE(bad([](CompareArgs& a) { a.output.clear(); }));
  EXPECT_FALSE(bad([](CompareArgs& a) { a.device = "/dev/sdz"; }));
}

}  // namespace
}  // namespace fscost

// The filesystems as built (model/fs_settings.h, diff/setup.cpp): settings
// read from the mkfs.xfs output xfsprogs 6.15 printed for -n parent=0 and
// -n parent=1 (tests/data/setup), and a diff that lists exchange, which
// parent=1 turns on without being asked, as incidental.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "model/fs_settings.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(FSCOST_TEST_DATA) + "/setup/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, std::string> as_map(const Settings& s) { return {s.begin(), s.end()}; }

TEST(FsSettings, GeometryOfMkfs615) {
  auto g = as_map(parse_xfs_geometry(data("mkfs-6.15-parent1.txt")));
  EXPECT_EQ(g["naming.parent"], "1");
  EXPECT_EQ(g["meta-data.exchange"], "1");
  EXPECT_EQ(g["meta-data.isize"], "512");
  EXPECT_EQ(g["meta-data.agcount"], "4");
  EXPECT_EQ(g["naming.bsize"], "4096");
  EXPECT_EQ(g["log.blocks"], "16384");
  EXPECT_EQ(g["log.sectsz"], "512");
  EXPECT_EQ(g["naming"], "version 2");
  EXPECT_EQ(g["log"], "internal log");
  EXPECT_EQ(g["realtime.zoned"], "0");
  // The device is no setting (it differs between runs); units are no keys;
  // "Discarding blocks...Done." is outside the block.
  EXPECT_FALSE(g.contains("meta-data"));
  for (const auto& [k, v] : g) {
    EXPECT_EQ(k.find("blks"), std::string::npos) << k;
    EXPECT_EQ(v.find(','), std::string::npos) << k << "=" << v;
  }
}

TEST(FsSettings, MountOptions) {
  auto m = as_map(parse_mount_options("rw,inode64,logbufs=8,logbsize=32k,noquota,wsync"));
  EXPECT_EQ(m.at("mount.logbsize"), "32k");
  EXPECT_EQ(m.at("mount.wsync"), "");
  EXPECT_EQ(m.size(), 6u);
}

TEST(FsSettings, AskedSettingsMapOptionsToPrintedNames) {
  auto asked = asked_settings("mkfs.xfs -f -n parent=1,size=64k -i size=1024 -d agcount=1 -l size=64m /dev/loop0",
                              "wsync,logbsize=256k");
  for (const char* name : {"naming.parent", "naming.bsize", "meta-data.isize", "meta-data.agcount",
                           "log.blocks", "mount.wsync", "mount.logbsize"})
    EXPECT_TRUE(asked.contains(name)) << name;
  EXPECT_FALSE(asked.contains("meta-data.exchange"));
  EXPECT_FALSE(asked.contains("naming.ftype"));
}

Profile with_setup(Profile p, const std::string& mkfs_output, const std::string& command,
                   const std::string& version = "mkfs.xfs version 6.15.0") {
  p.setup = {{"mkfs_output", mkfs_output},
             {"mkfs_command", command},
             {"mkfs_version", version},
             {"mount_options", "rw,inode64,logbufs=8,logbsize=32k,noquota"}};
  return p;
}

RunSet side(const std::string& label, std::uint32_t seed, const std::string& output,
            const std::string& command) {
  RunSet s = make_runs(base_spec(), 3, seed, label);
  for (auto& p : s.runs) p = with_setup(std::move(p), output, command);
  return s;
}

TEST(DiffSetup, ExchangeIsIncidentalParentIsAsked) {
  RunSet a = side("parent=0", 100, data("mkfs-6.15-parent0.txt"), "mkfs.xfs -f -n parent=0 /dev/loop0");
  RunSet b = side("parent=1", 200, data("mkfs-6.15-parent1.txt"), "mkfs.xfs -f -n parent=1 /dev/loop0");
  Diff d = diff_runs(a, b);
  ASSERT_TRUE(d.setup.recorded);
  std::map<std::string, const SettingDiff*> by_name;
  for (const auto& s : d.setup.settings) by_name[s.name] = &s;
  ASSERT_TRUE(by_name.contains("naming.parent"));
  EXPECT_TRUE(by_name["naming.parent"]->asked);
  ASSERT_TRUE(by_name.contains("meta-data.exchange"));
  EXPECT_FALSE(by_name["meta-data.exchange"]->asked);
  EXPECT_EQ(by_name["meta-data.exchange"]->a, "0");
  EXPECT_EQ(by_name["meta-data.exchange"]->b, "1");
  EXPECT_EQ(d.setup.settings.size(), 2u);  // nothing else differs
  EXPECT_TRUE(d.setup.incidental());
  // On the first screen, before any number.
  std::string text = render_diff_text(d);
  auto rule = text.find(std::string(72, '-'));
  auto at = text.find("meta-data.exchange 0 -> 1 (incidental)");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_LT(at, rule);
  EXPECT_LT(at, text.find("create:"));
  auto j = diff_json(d);
  EXPECT_TRUE(j["setup"]["incidental"].get<bool>());
  EXPECT_EQ(j["setup"]["differences"].size(), 2u);
}

TEST(DiffSetup, AskedOnlyStaysOffTheFirstScreen) {
  RunSet a = side("A", 100, data("mkfs-6.15-parent1.txt"), "mkfs.xfs -f -i exchange=1 -n parent=1 /dev/loop0");
  RunSet b = side("B", 200, data("mkfs-6.15-parent0.txt"), "mkfs.xfs -f -i exchange=0 -n parent=0 /dev/loop0");
  Diff d = diff_runs(a, b);
  EXPECT_FALSE(d.setup.incidental());
  EXPECT_EQ(d.setup.settings.size(), 2u);
  std::string text = render_diff_text(d);
  EXPECT_EQ(text.find("more than the options asked"), std::string::npos);
  EXPECT_NE(text.find("naming.parent 1 -> 0 (asked)"), std::string::npos) << text;
}

TEST(DiffSetup, RunsOfOneSideThatDifferAreAWarning) {
  RunSet a = side("A", 100, data("mkfs-6.15-parent0.txt"), "mkfs.xfs -f /dev/loop0");
  RunSet b = side("B", 200, data("mkfs-6.15-parent0.txt"), "mkfs.xfs -f /dev/loop0");
  b.runs[1].setup["mkfs_version"] = "mkfs.xfs version 6.1.0";
  Diff d = diff_runs(a, b);
  bool warned = false;
  for (const auto& w : d.warnings)
    if (w.kind == WarningKind::SetupVaries) {
      warned = true;
      EXPECT_NE(w.message.find("B's runs differ among themselves in mkfs_version"), std::string::npos)
          << w.message;
    }
  EXPECT_TRUE(warned);
}

TEST(DiffSetup, ProfilesWithoutSetupSayNotRecorded) {
  Diff d = diff_runs(make_runs(base_spec(), 3, 1, "A"), make_runs(base_spec(), 3, 9, "B"));
  EXPECT_FALSE(d.setup.recorded);
  EXPECT_NE(render_diff_text(d).find("Filesystems: not recorded"), std::string::npos);
}

}  // namespace
}  // namespace fscost::test

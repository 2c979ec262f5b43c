// The optional fields: off-CPU stacks, locks, filesystem event counters.
// Round trip, old files without them or with version 1's XFS names, and strict
// checks of the fields that are present.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "full_fixture.h"
#include "io/profile_io.h"

namespace fscost {
namespace {

using nlohmann::json;

json full_doc() { return json::parse(serialize_profile(test::full_profile())); }
// Version 2: each record's stack as frame indexes.
json full_doc_v2() { return json::parse(serialize_profile(test::full_profile(), 2)); }

std::string parse_error(const json& doc) {
  auto r = parse_profile(doc.dump(), "p.json");
  EXPECT_FALSE(r) << "parsed although it should fail";
  return r ? std::string() : r.error().message;
}

TEST(ProfileIoExtra, RoundTripKeepsEverything) {
  Profile p = test::full_profile();
  auto back = parse_profile(serialize_profile(p), "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
  EXPECT_EQ(back.value().locks.back().symbol, "inode_hash_lock");
  EXPECT_EQ(back.value().locks[0].address, 1u);  // its id in the recording
  EXPECT_EQ(back.value().offcpu[0].waker, "xfsaild/loop0");
}

TEST(ProfileIoExtra, MatchesGoldenFile) {
  test::expect_golden("full-profile.json", serialize_profile(test::full_profile()));
  auto read = read_profile(test::data_path("full-profile.json"));
  ASSERT_TRUE(read) << read.error().message;
  test::expect_same_profile(test::full_profile(), read.value());
}

TEST(ProfileIoExtra, FileFromBeforeTheseFieldsStillReads) {
  // Written by the first fscost, never re-blessed.
  auto read = read_profile(test::data_path("profile-v1-before-contention.json"));
  ASSERT_TRUE(read) << read.error().message;
  const Profile& p = read.value();
  test::expect_same_profile(test::sample_profile(), p);
  for (const auto& o : p.ops) {
    EXPECT_EQ(o.offcpu_ns, 0u) << o.name;
    EXPECT_TRUE(o.fs_events.empty()) << o.name;
    EXPECT_EQ(o.trans_min, 0u);
    EXPECT_EQ(o.trans_max, 0u);
  }
  EXPECT_TRUE(p.offcpu.empty());
  EXPECT_TRUE(p.locks.empty());
  EXPECT_TRUE(p.background_fs_events.empty());
  EXPECT_TRUE(p.device_write_bytes.empty());
}

TEST(ProfileIoExtra, EmptyFieldsAreNotWritten) {
  std::string text = serialize_profile(test::sample_profile());
  for (const char* key :
       {"offcpu", "locks", "background_fs_events", "device_write_bytes", "offcpu_ns",
        "\"fs_events\"", "trans_min", "trans_max", "kthread_fs_events", "fs_events_other_fs",
        "fs_write_bytes", "bpf_programs"})
    EXPECT_EQ(text.find(key), std::string::npos) << key;
  json doc = full_doc();
  EXPECT_EQ(doc["ops"][0]["offcpu_ns"], 100'000'000);
  EXPECT_EQ(doc["ops"][0]["fs_events"]["xfs_trans_alloc"], 2000);
  EXPECT_EQ(doc["ops"][1]["trans_min"], 1);
  EXPECT_FALSE(doc["ops"][2].contains("fs_events"));
  EXPECT_FALSE(doc["ops"][2].contains("trans_max"));
  EXPECT_EQ(doc["device_write_bytes"]["loop0"], 7'700'000);
  EXPECT_EQ(doc["fs_write_bytes"]["log"], 700'000);
  EXPECT_EQ(doc["kthread_fs_events"]["xfsaild/loop0"]["xfs_buf_write"], 340);
  EXPECT_EQ(doc["bpf_programs"][1]["run_ns"], 18'000);
}

TEST(ProfileIoExtra, WritesFsEventsUnderNeutralNames) {
  json doc = full_doc();
  EXPECT_EQ(doc["version"], kProfileFormatVersion);
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(doc["ops"][1]["fs_events"]["xfs_log_force"], 500);
  EXPECT_EQ(doc["background_fs_events"]["xfs_buf_write"], 340);
  EXPECT_EQ(doc["fs_events_other_fs"], 5);
  for (const char* old : {"background_xfs", "kthread_xfs", "xfs_other_fs"})
    EXPECT_FALSE(doc.contains(old)) << old;
  for (const auto& op : doc["ops"]) EXPECT_FALSE(op.contains("xfs")) << op["name"];
  auto back = parse_profile(doc.dump(), "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(test::full_profile(), back.value());
}

// Version 1 named the fields after XFS; the same document under the old
// names reads to the same profile.
TEST(ProfileIoExtra, ReadsVersion1FsEventNames) {
  json doc = full_doc_v2();
  doc["version"] = 1;
  for (auto& op : doc["ops"])
    if (op.contains("fs_events")) {
      op["xfs"] = op["fs_events"];
      op.erase("fs_events");
    }
  for (auto [now, v1] : {std::pair{"background_fs_events", "background_xfs"},
                         {"kthread_fs_events", "kthread_xfs"},
                         {"fs_events_other_fs", "xfs_other_fs"}}) {
    doc[v1] = doc[now];
    doc.erase(now);
  }
  auto back = parse_profile(doc.dump(), "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(test::full_profile(), back.value());
}

// A profile recorded by a version-1 fscost (tests/data/cases, never
// re-blessed) keeps its filesystem event counts.
TEST(ProfileIoExtra, RecordedVersion1ProfileKeepsFsEvents) {
  auto read = read_profile(test::data_path("cases/enospc-flush/a/run-01.profile"));
  ASSERT_TRUE(read) << read.error().message;
  const Profile& p = read.value();
  auto create = std::ranges::find(p.ops, "create", &OpStats::name);
  ASSERT_NE(create, p.ops.end());
  EXPECT_EQ(create->fs_events.at("xfs_trans_commit"), 20312u);
  EXPECT_EQ(create->fs_events.at("xfs_trans_cancel"), 2u);
  EXPECT_EQ(p.background_fs_events.at("xfs_trans_alloc"), 40000u);
  EXPECT_EQ(p.kthread_fs_events.at("writeback: wb_workfn").at("xfs_trans_commit"), 20000u);
  EXPECT_EQ(p.fs_events_other_fs, 789u);
}

TEST(ProfileIoExtra, FramesShareOneTable) {
  json doc = full_doc_v2();
  json old = json::parse(serialize_profile(test::sample_profile(), 2));
  // Sample frames keep their indexes; contention frames are appended.
  for (std::size_t i = 0; i < old["frames"].size(); ++i)
    EXPECT_EQ(doc["frames"][i], old["frames"][i]);
  EXPECT_EQ(doc["samples"][1]["stack"], old["samples"][1]["stack"]);
  std::set<std::string> distinct(doc["frames"].begin(), doc["frames"].end());
  EXPECT_EQ(distinct.size(), doc["frames"].size());
  // entry_SYSCALL_64 is frame 0 everywhere it occurs.
  EXPECT_EQ(doc["offcpu"][0]["stack"][0], 0);
  EXPECT_EQ(doc["locks"][0]["stack"][0], 0);
  const json& waker = doc["offcpu"][0]["waker_stack"];
  ASSERT_EQ(waker.size(), 7u);
  EXPECT_EQ(doc["frames"][waker[6].get<std::size_t>()], "try_to_wake_up");
  EXPECT_EQ(doc["frames"][doc["offcpu"][3]["waker_stack"][0].get<std::size_t>()],
            "entry_SYSCALL_64");
  // Version 3: the same frame table, and one stack table for every record:
  // the samples' stacks first, then the contention stacks not among them.
  json v3 = full_doc();
  EXPECT_EQ(v3["frames"], doc["frames"]);
  for (std::size_t i = 0; i < v3["samples"].size(); ++i)
    EXPECT_EQ(v3["stacks"][v3["samples"][i]["stack"].get<std::size_t>()],
              doc["samples"][i]["stack"]);
  EXPECT_EQ(v3["stacks"][v3["offcpu"][0]["waker_stack"].get<std::size_t>()], waker);
  std::set<json> stacks(v3["stacks"].begin(), v3["stacks"].end());
  EXPECT_EQ(stacks.size(), v3["stacks"].size());
}

TEST(ProfileIoExtra, OpFieldsAreChecked) {
  json doc = full_doc();
  doc["ops"][0]["offcpu_ns"] = -1;
  EXPECT_EQ(parse_error(doc),
            "p.json: ops[0].offcpu_ns: expected unsigned integer, got negative number -1");
  doc = full_doc();
  doc["ops"][1]["fs_events"] = json::array();
  EXPECT_EQ(parse_error(doc), "p.json: ops[1].fs_events: expected object, got array");
  doc = full_doc();
  doc["ops"][1]["fs_events"]["xfs_log_force"] = "many";
  EXPECT_EQ(parse_error(doc),
            "p.json: ops[1].fs_events.xfs_log_force: expected unsigned integer, got string");
  doc = full_doc();
  doc["ops"][0]["trans_max"] = 2.5;
  EXPECT_EQ(parse_error(doc),
            "p.json: ops[0].trans_max: expected unsigned integer, got number 2.5");
}

TEST(ProfileIoExtra, OffCpuEntriesAreChecked) {
  json doc = full_doc();
  doc["offcpu"] = json::object();
  EXPECT_EQ(parse_error(doc), "p.json: offcpu: expected array, got object");
  doc = full_doc();
  doc["offcpu"][2].erase("waker");
  EXPECT_EQ(parse_error(doc), "p.json: offcpu[2].waker: missing required field");
  doc = full_doc();
  doc["offcpu"][1]["wait_class"] = "iowait";
  EXPECT_EQ(parse_error(doc),
            "p.json: offcpu[1].wait_class: unknown wait class 'iowait' (expected lock, io, "
            "log-reserve, log-force, runqueue or sleep)");
  doc = full_doc();
  doc["offcpu"][0]["kind"] = "user";
  EXPECT_EQ(parse_error(doc),
            "p.json: offcpu[0].kind: unknown kind 'user' (expected op, kthread or kernel)");
  doc = full_doc_v2();
  std::size_t n = doc["frames"].size();
  doc["offcpu"][0]["waker_stack"][3] = n;
  EXPECT_EQ(parse_error(doc),
            fmt::format("p.json: offcpu[0].waker_stack[3]: frame index {} out of range (frames "
                        "has {} entries)",
                        n, n));
  doc = full_doc();
  n = doc["stacks"].size();
  doc["offcpu"][0]["waker_stack"] = n;
  EXPECT_EQ(parse_error(doc),
            fmt::format("p.json: offcpu[0].waker_stack: stack index {} out of range (stacks "
                        "has {} entries)",
                        n, n));
}

TEST(ProfileIoExtra, LockEntriesAreChecked) {
  json doc = full_doc();
  doc["locks"][0]["flags"] = 1ull << 32;
  EXPECT_EQ(parse_error(doc), "p.json: locks[0].flags: 4294967296 does not fit in 32 bits");
  doc = full_doc();
  doc["locks"][4]["lock_id"] = true;
  EXPECT_EQ(parse_error(doc), "p.json: locks[4].lock_id: expected unsigned integer, got boolean");
  doc = full_doc();
  doc["locks"][3].erase("sleep_ns");
  EXPECT_EQ(parse_error(doc), "p.json: locks[3].sleep_ns: missing required field");
  doc = full_doc();
  doc["locks"][1]["symbol"] = nullptr;
  EXPECT_EQ(parse_error(doc), "p.json: locks[1].symbol: expected string, got null");
  doc = full_doc();
  doc["locks"][2]["kind"] = "user";
  EXPECT_EQ(parse_error(doc),
            "p.json: locks[2].kind: unknown kind 'user' (expected op, kthread or kernel)");
  doc = full_doc_v2();
  doc["locks"][0]["stack"][0] = 100000;
  EXPECT_EQ(parse_error(doc).rfind("p.json: locks[0].stack[0]: frame index 100000 out of range", 0),
            0u);
}

TEST(ProfileIoExtra, CounterMapsAreChecked) {
  json doc = full_doc();
  doc["background_fs_events"]["xfs_log_force"] = -12;
  EXPECT_EQ(parse_error(doc),
            "p.json: background_fs_events.xfs_log_force: expected unsigned integer, got negative "
            "number -12");
  doc = full_doc();
  doc["device_write_bytes"] = 7;
  EXPECT_EQ(parse_error(doc), "p.json: device_write_bytes: expected object, got number 7");
  doc = full_doc();
  doc["kthread_fs_events"]["xfsaild/loop0"]["xfs_buf_write"] = "many";
  EXPECT_EQ(parse_error(doc),
            "p.json: kthread_fs_events.xfsaild/loop0.xfs_buf_write: expected unsigned integer, got "
            "string");
  doc = full_doc();
  doc["bpf_programs"][0].erase("runs");
  EXPECT_EQ(parse_error(doc), "p.json: bpf_programs[0].runs: missing required field");
}

}  // namespace
}  // namespace fscost

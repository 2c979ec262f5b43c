// pprof export and import: fscost's own profile round-trips, another tool's
// profile comes in as on-CPU stacks, and bad files are refused by name.
// tests/pprof checks the export with the real client, go tool pprof.
#include <gtest/gtest.h>

#include "io/pprof.h"
#include "io/profile_io.h"
#include "pprof_proto/profile.pb.h"
#include "report/pprof.h"
#include "report/report.h"
#include "views/lock_names.h"

namespace fscost {
namespace {

namespace pb = perftools::profiles;

Profile full() { return take(read_profile(FSCOST_TEST_DATA "/full-profile.json")); }

Profile round_trip(const Profile& p, const std::optional<std::string>& op = {}) {
  std::string bytes = take(to_pprof(p, op));
  return take(pprof::import_pprof(bytes, {"x.pb.gz"}));
}

std::string folded(const Profile& p, View v) {
  ReportOptions opt;
  opt.view = v;
  return render_folded(p, opt);
}

TEST(FormatPprof, OwnExportRoundTripsStacksOpsAndMetadata) {
  Profile p = full();
  ASSERT_FALSE(p.offcpu.empty());
  ASSERT_FALSE(p.locks.empty());
  p.meta.fscost_version = "0.0.1-test";         // not the importing fscost's own version
  p.setup["cpu_model"] = "Test CPU @ 2.00GHz";  // a comment of its own, not setup.cpu_model
  Profile q = round_trip(p);
  EXPECT_EQ(folded(q, View::OnCpu), folded(p, View::OnCpu));
  // The off-CPU view keeps every blocked stack, class and waker; only the
  // waker's stack is not in the format.
  ASSERT_EQ(q.offcpu.size(), p.offcpu.size());
  for (std::size_t i = 0; i < p.offcpu.size(); ++i) {
    EXPECT_EQ(q.offcpu[i].frames, p.offcpu[i].frames);
    EXPECT_EQ(q.offcpu[i].wait_class, p.offcpu[i].wait_class);
    EXPECT_EQ(q.offcpu[i].waker, p.offcpu[i].waker);
    EXPECT_EQ(q.offcpu[i].total_ns, p.offcpu[i].total_ns);
    EXPECT_EQ(q.offcpu[i].count, p.offcpu[i].count);
  }
  ASSERT_EQ(q.locks.size(), p.locks.size());
  for (std::size_t i = 0; i < p.locks.size(); ++i) {
    EXPECT_EQ(lock_name(q.locks[i]), lock_name(p.locks[i]));
    EXPECT_EQ(q.locks[i].frames, p.locks[i].frames);
    EXPECT_EQ(q.locks[i].flags, p.locks[i].flags);
    EXPECT_EQ(q.locks[i].total_ns, p.locks[i].total_ns);
    EXPECT_EQ(q.locks[i].spin_ns, p.locks[i].spin_ns);
    EXPECT_EQ(q.locks[i].max_ns, p.locks[i].max_ns);
  }
  ASSERT_EQ(q.ops.size(), p.ops.size());
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    EXPECT_EQ(q.ops[i].name, p.ops[i].name);
    EXPECT_EQ(q.ops[i].count, p.ops[i].count);
    EXPECT_EQ(q.ops[i].oncpu_ns, p.ops[i].oncpu_ns);
    EXPECT_EQ(q.ops[i].wall_ns, p.ops[i].wall_ns);
    EXPECT_EQ(q.ops[i].latency_log2, p.ops[i].latency_log2);
    EXPECT_EQ(q.ops[i].fs_events, p.ops[i].fs_events);
  }
  // Every fscost.KEY comment, each set in the fixture. (start_unix_ns and
  // duration_ns are in the pprof header too, which the import falls back on.)
  EXPECT_EQ(q.meta.fscost_version, p.meta.fscost_version);
  EXPECT_EQ(q.meta.hostname, p.meta.hostname);
  EXPECT_EQ(q.meta.kernel_release, p.meta.kernel_release);
  EXPECT_EQ(q.meta.cpus, p.meta.cpus);
  EXPECT_EQ(q.meta.target, p.meta.target);
  EXPECT_EQ(q.meta.command, p.meta.command);
  EXPECT_EQ(q.meta.start_unix_ns, p.meta.start_unix_ns);
  EXPECT_EQ(q.meta.duration_ns, p.meta.duration_ns);
  EXPECT_EQ(q.meta.probes, p.meta.probes);
  EXPECT_EQ(q.meta.freq_hz, p.meta.freq_hz);
  EXPECT_EQ(q.samples_total, p.samples_total);
  ASSERT_TRUE(p.rusage.valid);
  EXPECT_TRUE(q.rusage.valid);
  EXPECT_EQ(q.rusage.user_ns, p.rusage.user_ns);
  EXPECT_EQ(q.rusage.sys_ns, p.rusage.sys_ns);
  EXPECT_EQ(q.rusage.wall_ns, p.rusage.wall_ns);
  EXPECT_EQ(q.setup, p.setup);
  EXPECT_EQ(q.background_fs_events, p.background_fs_events);
  EXPECT_EQ(q.device_write_bytes, p.device_write_bytes);
  EXPECT_EQ(q.fs_write_bytes, p.fs_write_bytes);
  EXPECT_EQ(q.fs_events_other_fs, p.fs_events_other_fs);
  for (const auto& [name, n] : p.drops) EXPECT_EQ(q.drops[name], n) << name;
}

TEST(FormatPprof, OpKeepsOnlyThatOperationsRecords) {
  Profile q = round_trip(full(), "unlink");
  ASSERT_FALSE(q.samples.empty());
  for (const auto& s : q.samples) EXPECT_EQ(s.name, "unlink");
  for (const auto& s : q.offcpu) EXPECT_EQ(s.name, "unlink");
  for (const auto& s : q.locks) EXPECT_EQ(s.name, "unlink");
}

TEST(FormatPprof, MultilineSetupSurvivesItsComment) {
  Profile p = full();
  p.setup["mkfs_output"] = "meta-data=/dev/loop0 isize=512\n\\data     = bsize=4096\n";
  EXPECT_EQ(round_trip(p).setup["mkfs_output"], p.setup["mkfs_output"]);
}

// A profile another tool wrote: Go's CPU profile layout, no fscost comments.
std::string foreign(bool with_root) {
  pb::Profile f;
  for (const char* s : {"", "samples", "count", "cpu", "nanoseconds", "main", "xfs_create",
                        "create", "inlined_leaf"})
    f.add_string_table(s);
  auto type = [&](int t, int u) {
    auto* vt = f.add_sample_type();
    vt->set_type(t);
    vt->set_unit(u);
  };
  type(1, 2);
  type(3, 4);
  for (int i = 1; i <= 4; ++i) {
    auto* fn = f.add_function();
    fn->set_id(i);
    fn->set_name(i + 4);
  }
  auto* root = f.add_location();
  root->set_id(1);
  root->add_line()->set_function_id(with_root ? 3 : 1);
  auto* leaf = f.add_location();  // xfs_create with inlined_leaf inlined into it
  leaf->set_id(2);
  leaf->add_line()->set_function_id(4);
  leaf->add_line()->set_function_id(2);
  auto* s = f.add_sample();
  s->add_location_id(2);
  s->add_location_id(1);
  s->add_value(7);
  s->add_value(7'000'000);
  return f.SerializeAsString();
}

TEST(FormatPprof, AnotherToolsProfileIsOnCpuStacks) {
  Profile p = take(pprof::import_pprof(foreign(false), {"go.pb"}));
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].name, "other");
  EXPECT_EQ(p.samples[0].frames, (std::vector<std::string>{"main", "xfs_create", "inlined_leaf"}));
  EXPECT_EQ(p.samples[0].count, 7u);
  // A root fscost names gives the owner, as in folded import.
  Profile q = take(pprof::import_pprof(take(pprof::gzip(foreign(true))), {"go.pb.gz"}));
  ASSERT_EQ(q.samples.size(), 1u);
  EXPECT_EQ(q.samples[0].name, "create");
  EXPECT_EQ(q.samples[0].frames, (std::vector<std::string>{"xfs_create", "inlined_leaf"}));
}

TEST(FormatPprof, SampleTypeChoosesTheValue) {
  pprof::ImportOptions opt{"go.pb"};
  opt.sample_type = "cpu";
  EXPECT_EQ(take(pprof::import_pprof(foreign(false), opt)).samples.at(0).count, 7'000'000u);
  opt.sample_type = "alloc_space";
  auto r = pprof::import_pprof(foreign(false), opt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "go.pb: no sample type 'alloc_space'");
  EXPECT_EQ(r.error().hint, "its sample types: samples, cpu; pick one with --sample-type");
}

TEST(FormatPprof, BadFilesAreRefusedByName) {
  std::string good = take(to_pprof(full()));
  auto refused = [](std::string_view data) {
    auto r = pprof::import_pprof(data, {"bad.pb.gz"});
    return r ? std::string("accepted") : r.error().message;
  };
  EXPECT_EQ(refused(good.substr(0, good.size() / 2)),
            "bad.pb.gz: not a complete gzip stream (truncated)");
  EXPECT_EQ(refused("garbage that is not a protobuf \xff\xff\xff"),
            "bad.pb.gz: not a pprof profile.proto");
  pb::Profile dangling;
  dangling.ParseFromString(take(pprof::gunzip(good, 1 << 30)));
  dangling.mutable_sample(0)->set_location_id(0, 99999);
  EXPECT_EQ(refused(dangling.SerializeAsString()),
            "bad.pb.gz: a sample names location 99999, which is not in the profile");
  auto big = pprof::import_pprof(good, {"big.pb.gz", std::nullopt, 100});
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "big.pb.gz: more than 100 bytes once decompressed");
}

}  // namespace
}  // namespace fscost

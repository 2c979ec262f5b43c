// Regression tests for what the fuzz targets (tests/fuzz) found in the
// readers, and for the edges they enforce: each input here was accepted
// wrongly, lost precision, or failed with an unclear message before.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "fixture.h"
#include "io/folded.h"
#include "io/perf_script.h"
#include "io/pprof.h"
#include "io/profile_io.h"
#include "pprof_proto/profile.pb.h"
#include "report/pprof.h"

namespace fscost {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

Profile full() { return take(read_profile(FSCOST_TEST_DATA "/full-profile.json")); }

std::string pprof_error(const Profile& p) {
  auto r = pprof::import_pprof(take(to_pprof(p)), {"x.pb.gz"});
  return r ? std::string("imported") : r.error().message;
}

// Found by fuzz_pprof: a wait_class label the profile file cannot hold was
// imported, and the profile written from it did not read back.
TEST(ReaderLimits, PprofUnknownWaitClassIsRefused) {
  Profile p = full();
  ASSERT_FALSE(p.offcpu.empty());
  p.offcpu[0].wait_class = "kernel";
  std::string e = pprof_error(p);
  EXPECT_TRUE(e.starts_with("x.pb.gz: sample ")) << e;
  EXPECT_NE(e.find(": unknown wait class 'kernel' (expected lock, io, log-reserve, log-force, "
                   "runqueue or sleep)"),
            std::string::npos)
      << e;
}

TEST(ReaderLimits, PprofUserOffCpuAndLockTimeIsRefused) {
  Profile p = full();
  p.offcpu[0].kind = SampleKind::User;
  p.offcpu[0].name.clear();
  EXPECT_NE(pprof_error(p).find("off-CPU or lock time of kind 'user'"), std::string::npos);
  p = full();
  p.locks[0].kind = SampleKind::User;
  p.locks[0].name.clear();
  EXPECT_NE(pprof_error(p).find("off-CPU or lock time of kind 'user'"), std::string::npos);
}

// What the pprof reader accepts, the profile file holds.
TEST(ReaderLimits, PprofImportReadsBackFromItsProfileFile) {
  Profile q = take(pprof::import_pprof(take(to_pprof(full())), {"x.pb.gz"}));
  auto back = parse_profile(serialize_profile(q), "q.profile");
  EXPECT_TRUE(back) << back.error().message;
}

// Found by fuzz_pprof: a repeated "fscost.op.NAME" comment gave a profile
// with the operation twice, which the profile file refuses.
TEST(ReaderLimits, PprofRepeatedOperationCommentIsRefused) {
  perftools::profiles::Profile in;
  ASSERT_TRUE(in.ParseFromString(take(pprof::gunzip(take(to_pprof(full())), 1 << 30))));
  std::int64_t op_comment = 0;
  for (auto c : in.comment())
    if (in.string_table(static_cast<int>(c)).starts_with("fscost.op.unlink: ")) op_comment = c;
  ASSERT_NE(op_comment, 0);
  in.add_comment(op_comment);
  auto r = pprof::import_pprof(in.SerializeAsString(), {"x.pb"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "x.pb: comment 'fscost.op.unlink' appears twice");
}

// Found by every fuzz target (each exports what it read): strings with
// invalid UTF-8 went into profile.proto's string table as they were, which
// proto3 forbids (libprotobuf logged an error per string on stderr).
TEST(ReaderLimits, PprofExportWritesValidUtf8) {
  Profile p = full();
  p.offcpu[0].waker = "bad\xff\xfe name";
  perftools::profiles::Profile out;
  ASSERT_TRUE(out.ParseFromString(take(pprof::gunzip(take(to_pprof(p)), 1 << 30))));
  bool found = false;
  for (const auto& s : out.string_table()) {
    EXPECT_EQ(s.find('\xff'), std::string::npos) << s;
    found |= s == "bad\xEF\xBF\xBD\xEF\xBF\xBD name";
  }
  EXPECT_TRUE(found);
}

// Folded counts went through a double: integers above 2^53 were rounded.
TEST(ReaderLimits, FoldedIntegerCountsAreExact) {
  auto f = take(parse_folded("create;a 9007199254740993\n[user] 18446744073709551615\n", "x"));
  ASSERT_EQ(f.stacks.size(), 2u);
  EXPECT_EQ(f.stacks[0].count, std::optional<std::uint64_t>(9007199254740993u));
  EXPECT_EQ(f.stacks[1].count, std::optional<std::uint64_t>(kU64Max));
  EXPECT_EQ(write_folded(f), "create;a 9007199254740993\n[user] 18446744073709551615\n");
  Profile p = profile_from_folded(f);
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[0].count, 9007199254740993u);
  EXPECT_EQ(p.samples[1].count, kU64Max);
  EXPECT_EQ(p.samples_total, kU64Max);  // saturates, does not wrap
}

TEST(ReaderLimits, FoldedTwoColumnCountsAreExactToo) {
  auto f = take(parse_folded("a 9007199254740993 9007199254740995\n", "x"));
  ASSERT_TRUE(f.two_column);
  EXPECT_EQ(write_folded(f), "a 9007199254740993 9007199254740995\n");
  FoldedImportOptions opt;
  opt.column = 1;
  EXPECT_EQ(profile_from_folded(f, opt).samples.at(0).count, 9007199254740995u);
}

TEST(ReaderLimits, FoldedFractionsExponentsAndHugeValuesStillRead) {
  auto f = take(parse_folded("a 2.5\nb 1e3\nc 18446744073709551616\nd 0.25 0.75\n", "x",
                             FoldedColumns::One));
  EXPECT_EQ(f.stacks[0].count, std::nullopt);
  EXPECT_DOUBLE_EQ(f.stacks[0].value, 2.5);
  EXPECT_EQ(f.stacks[1].count, std::nullopt);  // an exponent is not digits
  EXPECT_DOUBLE_EQ(f.stacks[1].value, 1000);
  EXPECT_EQ(f.stacks[2].count, std::nullopt);  // 2^64: beyond 64 bits, read as a double
  EXPECT_DOUBLE_EQ(f.stacks[2].value, 0x1p64);
  Profile p = profile_from_folded(f);
  std::uint64_t sum = 0;
  for (const auto& s : p.samples) sum = s.name == "other" && s.frames == Stack{"c"} ? s.count : sum;
  EXPECT_EQ(sum, static_cast<std::uint64_t>(0x1p64 - 2048));
}

TEST(ReaderLimits, FoldedMergedCountsSaturate) {
  Profile p = profile_from_folded(take(parse_folded("a 18446744073709551615\na 7\n", "x")));
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.samples[0].count, kU64Max);
  EXPECT_EQ(p.samples_total, kU64Max);
}

std::string profile_error(const std::string& text) {
  auto r = parse_profile(text, "p.json");
  return r ? std::string("parsed") : r.error().message;
}

std::string with_samples_total(const std::string& number) {
  std::string text = serialize_profile(test::sample_profile());
  const std::string key = "\"samples_total\":";
  std::size_t at = text.find(key) + key.size();
  std::size_t end = text.find_first_of(",}", at);
  return text.replace(at, end - at, number);
}

// A 400-digit number printed nlohmann's raw "[json.exception.out_of_range.406]".
TEST(ReaderLimits, ProfileNumberBeyondADoubleNamesTheField) {
  std::string digits = "1" + std::string(399, '0');
  EXPECT_EQ(profile_error(with_samples_total(digits)),
            "p.json: samples_total: integer 100000000000000000000000… (400 characters) does "
            "not fit in 64 bits");
  EXPECT_EQ(profile_error(with_samples_total("1e400")),
            "p.json: samples_total: number 1e400 is out of range");
  EXPECT_EQ(profile_error(with_samples_total("-" + digits)),
            "p.json: samples_total: integer -10000000000000000000000… (401 characters) does "
            "not fit in 64 bits");
}

TEST(ReaderLimits, ProfileIntegerBeyond64BitsNamesTheField) {
  EXPECT_EQ(profile_error(with_samples_total("18446744073709551616")),
            "p.json: samples_total: integer 18446744073709551616 does not fit in 64 bits");
  nlohmann::json doc = nlohmann::json::parse(serialize_profile(test::sample_profile()));
  std::string text = doc.dump();
  std::string count = "\"count\":";
  std::size_t at = text.find(count, text.find("\"samples\"")) + count.size();
  text.insert(at, "99999999999999999999999");
  std::string e = profile_error(text);
  EXPECT_TRUE(e.starts_with("p.json: samples[0].count: integer 99999999999999999999999"))
      << e;
}

// A frame line cut before its "(dso)" was imported as a frame named by
// the fragment, and the sample attributed by a partial stack.
TEST(ReaderLimits, PerfScriptTruncatedFrameIsCountedNotImported) {
  const char* text =
      "app 10 [000] 1.000000: 1000000 cpu-clock: \n"
      "\tffffffff81400000 vfs_read+0x1 ([kernel.kallsyms])\n"
      "\tffffffff81400100 ksys_re\n"
      "\n"
      "app 10 [000] 1.000100: 1000000 cpu-clock: \n"
      "\tffffffff81400000 vfs_read+0x1 ([kernel.kallsyms])\n"
      "\tffffffff81400200 __x64_sys_read+0x9 ([kernel.kallsyms])\n"
      "\tffffffff81400300 do_syscall_64+0x71 ([kern";
  Profile p = take(import_perf_script(text, "t.txt"));
  EXPECT_EQ(p.samples_total, 2u);
  EXPECT_TRUE(p.samples.empty());
  EXPECT_EQ(p.drops.at("perf_truncated_stack"), 2u);
  EXPECT_EQ(p.drops.at("perf_no_stack"), 0u);
}

TEST(ReaderLimits, PerfScriptCompleteFramesAreNotCountedAsTruncated) {
  Profile p = take(import_perf_script(
      "app 10 [000] 1.000000: 1000000 cpu-clock: \n"
      "\tffffffff81400000 vfs_read+0x1 ([kernel.kallsyms])\n"
      "\t    55e000001234 Foo::bar(int) const+0x12 (/usr/bin/app (deleted))\n"
      "\n",
      "t.txt"));
  EXPECT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.drops.at("perf_truncated_stack"), 0u);
}

}  // namespace
}  // namespace fscost

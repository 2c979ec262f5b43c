// The profile file format: round trip, golden file, and every way a file
// can be bad. A bad file must give an Error, never a crash or exception.
#include "io/profile_io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "fixture.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::sample_profile;

// The serialized sample profile as a JSON value, for editing.
json sample_doc() { return json::parse(serialize_profile(sample_profile())); }

// The error from parsing `doc`, which must fail.
Error parse_error(const json& doc) {
  auto r = parse_profile(doc.dump(), "p.json");
  EXPECT_FALSE(r) << "parsed although it should fail: " << doc.dump();
  return r ? Error{} : r.error();
}

TEST(SampleKind, NamesRoundTrip) {
  for (auto k : {SampleKind::Op, SampleKind::User, SampleKind::Kernel, SampleKind::Kthread}) {
    SampleKind back{};
    ASSERT_TRUE(parse_sample_kind(to_string(k), back)) << to_string(k);
    EXPECT_EQ(back, k);
  }
  EXPECT_STREQ(to_string(SampleKind::Kthread), "kthread");
  SampleKind out = SampleKind::User;
  EXPECT_FALSE(parse_sample_kind("Op", out));
  EXPECT_EQ(out, SampleKind::User);
}

TEST(ProfileIo, RoundTripKeepsEverything) {
  Profile p = sample_profile();
  auto back = parse_profile(serialize_profile(p), "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
}

// Which probes' programs the kernel skipped (drops.prog_missed by probe).
TEST(ProfileIo, RoundTripKeepsMissedRunsByProbe) {
  Profile p = sample_profile();
  p.drops["prog_missed"] = 5;
  p.prog_missed_by = {{"lock:contention_end", 3}, {"raw_syscalls:sys_exit", 2}};
  std::string text = serialize_profile(p);
  EXPECT_NE(text.find("\"prog_missed_by_probe\":{\"lock:contention_end\":3,"), std::string::npos);
  auto back = parse_profile(text, "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
}

TEST(ProfileIo, RoundTripEmptyProfile) {
  Profile p;
  auto back = parse_profile(serialize_profile(p), "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
}

TEST(ProfileIo, FramesAndStacksAreInterned) {
  Profile p = sample_profile();
  p.samples.push_back(p.samples[1]);  // the same stack under another name
  p.samples.back().name = "mkdir";
  json doc = json::parse(serialize_profile(p));
  // 24 distinct frames although the samples hold 42 frame references; one
  // stack table entry per distinct stack, records naming it by index.
  EXPECT_EQ(doc["frames"].size(), 24u);
  EXPECT_EQ(doc["frames"][0], "entry_SYSCALL_64");
  EXPECT_EQ(doc["samples"][1]["stack"], 1);
  EXPECT_EQ(doc["stacks"][1], json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(doc["samples"].back()["stack"], 1);
  EXPECT_EQ(doc["stacks"].size(), p.samples.size() - 1);
  EXPECT_EQ(doc["format"], "fscost-profile");
  EXPECT_EQ(doc["version"], 3);
}

// Version 2, which builds before the stack table read (bench/ writes it for
// them): frame indexes in each record, byte for byte what they wrote.
TEST(ProfileIo, Version2LayoutIsWrittenAndRead) {
  json doc = json::parse(serialize_profile(sample_profile(), 2));
  EXPECT_EQ(doc["version"], 2);
  EXPECT_FALSE(doc.contains("stacks"));
  EXPECT_EQ(doc["samples"][1]["stack"], json({0, 1, 2, 3, 4, 5, 6, 7}));
  test::expect_golden("sample-profile-v2.json", serialize_profile(sample_profile(), 2));
  auto read = read_profile(test::data_path("sample-profile-v2.json"));
  ASSERT_TRUE(read) << read.error().message;
  test::expect_same_profile(sample_profile(), read.value());
  EXPECT_THROW(serialize_profile(sample_profile(), 1), std::invalid_argument);
}

TEST(ProfileIo, MatchesGoldenFile) {
  test::expect_golden("sample-profile.json", serialize_profile(sample_profile()));
  auto read = read_profile(test::data_path("sample-profile.json"));
  ASSERT_TRUE(read) << read.error().message;
  test::expect_same_profile(sample_profile(), read.value());
}

TEST(ProfileIo, UnknownFieldsAreIgnored) {
  json doc = sample_doc();
  doc["added_later"] = {{"x", 1}};
  doc["ops"][0]["added_later"] = "y";
  auto r = parse_profile(doc.dump(), "p.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().ops[0].count, 1000u);
}

TEST(ProfileIo, InvalidUtf8IsReplacedNotThrown) {
  Profile p;
  p.meta.command = "touch \xff\xfe";
  auto back = parse_profile(serialize_profile(p), "mem");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back.value().meta.command, "touch \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ProfileIo, GarbageIsCorruptJson) {
  auto r = parse_profile("hello, world", "p.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "p.json: truncated or corrupt JSON at byte 0");
  EXPECT_FALSE(r.error().hint.empty());
}

TEST(ProfileIo, BinaryGarbageIsCorruptJson) {
  std::string junk("\x00\x01\x7f\xff{}", 6);
  auto r = parse_profile(junk, "p.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "p.json: truncated or corrupt JSON at byte 0");
}

TEST(ProfileIo, EmptyFile) {
  auto r = parse_profile("  \n", "p.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "p.json: empty file, not an fscost profile");
}

TEST(ProfileIo, EveryTruncationIsAnError) {
  std::string text = serialize_profile(sample_profile());
  ASSERT_EQ(text.back(), '\n');
  // Every cut short of the closing brace; the cut before '\n' is complete.
  for (std::size_t n = 1; n + 1 < text.size(); ++n) {
    auto r = parse_profile(std::string_view(text).substr(0, n), "cut.json");
    ASSERT_FALSE(r) << "cut at " << n;
    EXPECT_EQ(r.error().message,
              fmt::format("cut.json: truncated or corrupt JSON at byte {} (end of file)", n));
  }
}

TEST(ProfileIo, ByteFlipsNeverCrash) {
  std::string text = serialize_profile(sample_profile());
  std::mt19937 rng(42);
  int failures = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = text;
    t[rng() % t.size()] = static_cast<char>(rng() % 256);
    auto r = parse_profile(t, "flip.json");
    if (!r) {
      ++failures;
      EXPECT_EQ(r.error().message.rfind("flip.json: ", 0), 0u);
    }
  }
  EXPECT_GT(failures, 1000);
}

TEST(ProfileIo, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto r = parse_profile(deep, "deep.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "deep.json: not an fscost profile (no \"format\": \"fscost-profile\" tag)");
}

// The re-read that says where an error is stops at simdjson's depth: a
// level per '{' of 10 MB of them took 880 MB (runtime.HardeningReaders).
TEST(ProfileIo, DeepObjectNestingStopsAtTheDepthCap) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  auto r = parse_profile(deep, "deep.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "deep.json: cannot read: nested deeper than 1024 levels");
}

TEST(ProfileIo, WrongFormatTag) {
  json doc = sample_doc();
  doc["format"] = "perf-script";
  EXPECT_EQ(parse_error(doc).message,
            "p.json: not an fscost profile (no \"format\": \"fscost-profile\" tag)");
  EXPECT_EQ(parse_error(json::array({1, 2})).message,
            "p.json: not an fscost profile (no \"format\": \"fscost-profile\" tag)");
}

TEST(ProfileIo, NewerVersionIsRefusedWithUpgradeHint) {
  json doc = sample_doc();
  doc["version"] = 4;
  doc["ops"] = "restructured in version 4";
  Error e = parse_error(doc);
  EXPECT_EQ(e.message, "p.json: written by a newer fscost (format version 4, this one reads ≤ 3)");
  EXPECT_EQ(e.hint, "upgrade fscost to read this profile");
}

TEST(ProfileIo, BadVersionValues) {
  json doc = sample_doc();
  doc["version"] = 0;
  EXPECT_EQ(parse_error(doc).message, "p.json: invalid format version 0");
  doc["version"] = "1";
  EXPECT_EQ(parse_error(doc).message, "p.json: version: expected unsigned integer, got string");
  doc.erase("version");
  EXPECT_EQ(parse_error(doc).message, "p.json: version: missing required field");
}

TEST(ProfileIo, MissingField) {
  json doc = sample_doc();
  doc["meta"].erase("hostname");
  EXPECT_EQ(parse_error(doc).message, "p.json: meta.hostname: missing required field");
  doc = sample_doc();
  doc.erase("drops");
  EXPECT_EQ(parse_error(doc).message, "p.json: drops: missing required field");
}

TEST(ProfileIo, WrongTypes) {
  json doc = sample_doc();
  doc["ops"][0]["count"] = "many";
  EXPECT_EQ(parse_error(doc).message,
            "p.json: ops[0].count: expected unsigned integer, got string");
  doc = sample_doc();
  doc["samples_total"] = 1.5;
  EXPECT_EQ(parse_error(doc).message,
            "p.json: samples_total: expected unsigned integer, got number 1.5");
  doc = sample_doc();
  doc["meta"]["probes"] = "all";
  EXPECT_EQ(parse_error(doc).message, "p.json: meta.probes: expected array, got string");
  doc = sample_doc();
  doc["rusage"] = nullptr;
  EXPECT_EQ(parse_error(doc).message, "p.json: rusage: expected object, got null");
  doc = sample_doc();
  doc["drops"]["prog_missed"] = true;
  EXPECT_EQ(parse_error(doc).message,
            "p.json: drops.prog_missed: expected unsigned integer, got boolean");
}

TEST(ProfileIo, NegativeNumbers) {
  json doc = sample_doc();
  doc["ops"][1]["errors"] = -3;
  EXPECT_EQ(parse_error(doc).message,
            "p.json: ops[1].errors: expected unsigned integer, got negative number -3");
  doc = sample_doc();
  doc["meta"]["cpus"] = 1ull << 32;
  EXPECT_EQ(parse_error(doc).message, "p.json: meta.cpus: 4294967296 does not fit in 32 bits");
}

TEST(ProfileIo, FrameIndexOutOfRange) {
  json doc = sample_doc();
  doc["stacks"][3][2] = 999;
  EXPECT_EQ(parse_error(doc).message,
            "p.json: stacks[3][2]: frame index 999 out of range (frames has 24 entries)");
  doc = json::parse(serialize_profile(sample_profile(), 2));
  doc["samples"][3]["stack"][2] = 999;
  EXPECT_EQ(parse_error(doc).message,
            "p.json: samples[3].stack[2]: frame index 999 out of range (frames has 24 entries)");
}

TEST(ProfileIo, StackIndexOutOfRange) {
  json doc = sample_doc();
  std::size_t n = doc["stacks"].size();
  doc["samples"][3]["stack"] = n;
  EXPECT_EQ(parse_error(doc).message,
            fmt::format("p.json: samples[3].stack: stack index {0} out of range (stacks has {0} "
                        "entries)",
                        n));
  doc = sample_doc();
  doc["samples"][3]["stack"] = json::array({0});
  EXPECT_EQ(parse_error(doc).message,
            "p.json: samples[3].stack: expected unsigned integer, got array");
  doc = sample_doc();
  doc.erase("stacks");
  EXPECT_EQ(parse_error(doc).message, "p.json: stacks: missing required field");
}

TEST(ProfileIo, LatencyHistogramLength) {
  json doc = sample_doc();
  doc["ops"][2]["latency_log2"] = {1, 2};
  EXPECT_EQ(parse_error(doc).message, "p.json: ops[2].latency_log2: expected 40 buckets, got 2");
}

TEST(ProfileIo, UnknownSampleKindAndDuplicateOp) {
  json doc = sample_doc();
  doc["samples"][0]["kind"] = "irq";
  EXPECT_EQ(parse_error(doc).message,
            "p.json: samples[0].kind: unknown sample kind 'irq' (expected op, user, kernel or "
            "kthread)");
  doc = sample_doc();
  doc["ops"][1]["name"] = "create";
  EXPECT_EQ(parse_error(doc).message, "p.json: ops[1]: operation 'create' appears twice");
}

}  // namespace
}  // namespace fscost

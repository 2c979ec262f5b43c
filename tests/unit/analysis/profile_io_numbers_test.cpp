// Profile reading at the edges simdjson and nlohmann treat differently: the
// full u64 and i64 ranges, repeated keys, and valid JSON that simdjson
// refuses (integers beyond 64 bits, deep nesting), which must still be clear
// errors naming the file.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "fixture.h"
#include "full_fixture.h"
#include "io/profile_io.h"

namespace fscost {
namespace {

using nlohmann::json;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kAboveI64 = std::uint64_t{1} << 63;

json sample_doc() { return json::parse(serialize_profile(test::sample_profile())); }

std::string parse_error(const std::string& text) {
  auto r = parse_profile(text, "p.json");
  EXPECT_FALSE(r) << "parsed although it should fail";
  return r ? std::string() : r.error().message;
}

TEST(ProfileIoNumbers, U64AboveInt64MaxRoundTrips) {
  Profile p = test::full_profile();
  p.samples_total = kU64Max;
  p.meta.duration_ns = kAboveI64;
  p.ops[0].count = kAboveI64 + 1;
  p.ops[0].latency_log2[39] = kU64Max;
  p.ops[0].fs_events["xfs_trans_alloc"] = kU64Max - 1;
  p.samples[0].count = kU64Max;
  p.drops["prog_missed"] = kAboveI64;
  p.locks[0].address = 0xffffffffffffffffu;
  p.offcpu[0].total_ns = kAboveI64 + 12345;
  p.device_write_bytes["loop0"] = kU64Max;
  std::string text = serialize_profile(p);
  ASSERT_NE(text.find("18446744073709551615"), std::string::npos);
  auto back = parse_profile(text, "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
  EXPECT_EQ(back.value().samples_total, kU64Max);
  EXPECT_EQ(back.value().ops[0].count, kAboveI64 + 1);
  EXPECT_EQ(back.value().locks[0].address, kU64Max);
}

TEST(ProfileIoNumbers, StartTimeUsesTheWholeInt64Range) {
  for (std::int64_t t : {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1},
                         std::numeric_limits<std::int64_t>::max()}) {
    Profile p = test::sample_profile();
    p.meta.start_unix_ns = t;
    auto back = parse_profile(serialize_profile(p), "mem");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back.value().meta.start_unix_ns, t);
  }
}

TEST(ProfileIoNumbers, StartTimeAboveInt64MaxIsAnError) {
  json doc = sample_doc();
  doc["meta"]["start_unix_ns"] = kAboveI64;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: meta.start_unix_ns: expected 64-bit integer, got number 9223372036854775808");
  doc["meta"]["start_unix_ns"] = 1.0;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: meta.start_unix_ns: expected 64-bit integer, got number 1.0");
}

TEST(ProfileIoNumbers, NegativeAndFractionalCountsAreErrors) {
  json doc = sample_doc();
  doc["samples"][2]["count"] = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: samples[2].count: expected unsigned integer, got negative number "
            "-9223372036854775808");
  doc = sample_doc();
  doc["stacks"][3][1] = -1;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: stacks[3][1]: expected unsigned integer, got negative number -1");
  doc = sample_doc();
  doc["stacks"][3][1] = 2.0;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: stacks[3][1]: expected unsigned integer, got number 2.0");
  doc = sample_doc();
  doc["samples"][3]["stack"] = -1;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: samples[3].stack: expected unsigned integer, got negative number -1");
  doc = sample_doc();
  doc["samples"][3]["stack"] = 3.0;
  EXPECT_EQ(parse_error(doc.dump()),
            "p.json: samples[3].stack: expected unsigned integer, got number 3.0");
}

TEST(ProfileIoNumbers, IntegerBeyond64BitsIsAnError) {
  std::string text = sample_doc().dump();
  const std::string total = "\"samples_total\":";
  std::size_t at = text.find(total);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + total.size(), "18446744073709551616");  // 2^64, then the old digits
  std::string e = parse_error(text);
  EXPECT_TRUE(e.starts_with("p.json: samples_total: integer 18446744073709551616")) << e;
  EXPECT_TRUE(e.ends_with(" does not fit in 64 bits")) << e;
}

TEST(ProfileIoNumbers, DeepNestingInsideAProfileIsAnError) {
  json doc = sample_doc();
  std::string text = doc.dump();
  text.insert(1, "\"added_later\":" + std::string(5000, '[') + std::string(5000, ']') + ",");
  EXPECT_EQ(parse_error(text), "p.json: cannot read: nested deeper than 1024 levels");
}

TEST(ProfileIoNumbers, RepeatedKeyMeansItsLastValue) {
  // As nlohmann read it; fscost never writes a key twice.
  std::string text = sample_doc().dump();
  text.insert(1, "\"samples_total\":\"ignored\",");
  auto r = parse_profile(text, "p.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().samples_total, test::sample_profile().samples_total);
}

TEST(ProfileIoNumbers, NonJsonNamesFileAndByte) {
  std::string text = sample_doc().dump();
  std::size_t at = text.find("\"frames\"");
  ASSERT_NE(at, std::string::npos);
  text[at] = '\'';
  EXPECT_EQ(parse_error(text), fmt::format("p.json: truncated or corrupt JSON at byte {}", at));
}

}  // namespace
}  // namespace fscost

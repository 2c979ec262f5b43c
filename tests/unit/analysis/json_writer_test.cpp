// JsonWriter (model/json_writer.h): the bytes nlohmann's dump() would write
// for strings, numbers that read back exactly, commas in nested values.
#include "model/json_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

namespace fscost {
namespace {

using nlohmann::json;

std::string written(const auto& write) {
  std::string out;
  JsonWriter w(out);
  write(w);
  return out;
}

// nlohmann's bytes, C1 controls escaped as dump_json escapes them.
std::string nlohmann_dump(const json& j) {
  std::string out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  escape_c1(out);
  return out;
}

TEST(JsonWriter, NestedValuesAreCommaSeparated) {
  std::string s = written([](JsonWriter& w) {
    w.begin_object();
    w.member("a", 1);
    w.key("b");
    w.begin_array();
    w.value(true);
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.end_array();
    w.value(nullptr);
    w.end_array();
    w.member("c", "x");
    w.member("d", json{{"k", {1, 2}}});
    w.end_object();
  });
  EXPECT_EQ(s, R"({"a":1,"b":[true,{},[],null],"c":"x","d":{"k":[1,2]}})");
}

TEST(JsonWriter, StringsEscapedAsNlohmannReplace) {
  std::vector<std::string> cases = {"xfs_create",
                                    "quote \" and \\ backslash",
                                    "tab\tnewline\ncr\r\b\f\x01\x1f\x7f",
                                    "µs → ×",
                                    "bad \xff\xfe utf-8 \xc3",
                                    "truncated \xe2\x82",
                                    "overlong \xc0\xaf and surrogate \xed\xa0\x80",
                                    std::string("nul \0 inside", 12)};
  // Random bytes, biased to the interesting ones.
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 12, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 3 ? 0x80 + rng() % 0x80 : rng() % 0x80);
    cases.push_back(s);
  }
  for (const auto& s : cases) {
    EXPECT_EQ(written([&](JsonWriter& w) { w.value(s); }), nlohmann_dump(json(s))) << s;
    EXPECT_EQ(written([&](JsonWriter& w) {
                w.begin_object();
                w.member(s, 0);
                w.end_object();
              }),
              nlohmann_dump(json{{s, 0}}));
  }
}

TEST(JsonWriter, NumbersReadBackExactly) {
  std::vector<double> cases = {0.0,     -0.0,   1.0,     -3.0,     0.1,    1e-300,
                               1e300,   2.5e-7, 123456.0, 1e16,    1e17,   1.45e9,
                               std::numeric_limits<double>::max(),
                               std::numeric_limits<double>::denorm_min()};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 5000; ++i) {
    std::uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) cases.push_back(v);
  }
  for (double v : cases) {
    std::string s = written([&](JsonWriter& w) { w.value(v); });
    json j = json::parse(s);
    ASSERT_TRUE(j.is_number_float()) << s;  // integral doubles keep ".0", as nlohmann's
    EXPECT_EQ(std::signbit(j.get<double>()), std::signbit(v)) << s;
    EXPECT_EQ(j.get<double>(), v) << s;
  }
  EXPECT_EQ(written([](JsonWriter& w) { w.value(2.0); }), "2.0");
  EXPECT_EQ(written([](JsonWriter& w) {
              w.begin_array();
              w.value(std::nan(""));
              w.value(-std::numeric_limits<double>::infinity());
              w.end_array();
            }),
            "[null,null]");
}

TEST(JsonWriter, Integers) {
  EXPECT_EQ(written([](JsonWriter& w) {
              w.begin_array();
              w.value(std::numeric_limits<std::uint64_t>::max());
              w.value(std::numeric_limits<std::int64_t>::min());
              w.value(std::size_t{0});
              w.value(-1);
              w.end_array();
            }),
            "[18446744073709551615,-9223372036854775808,0,-1]");
}

// A frame or thread name any user sets under -a: ESC (C0, which nlohmann
// escapes) and the C1 controls (which it wrote raw; U+009B is CSI) must not
// reach a terminal showing the JSON. A raw byte 0x80..0x9F is no UTF-8 and
// becomes U+FFFD; UTF-8 whose continuation bytes are 0x80..0x9F stays.
TEST(JsonWriter, ControlCharactersAreEscaped) {
  const std::string name = "esc\x1b[2J c1 \xc2\x9b" "31m \xc2\x80\xc2\x9f raw \x9b\x85 \xe2\x82\xac";
  std::string expected = "\"esc\\u001b[2J c1 \\u009b31m \\u0080\\u009f raw "
                         "\xEF\xBF\xBD\xEF\xBF\xBD \xe2\x82\xac\"";
  EXPECT_EQ(written([&](JsonWriter& w) { w.value(name); }), expected);
  EXPECT_EQ(dump_json(json(name)), expected);
  EXPECT_EQ(dump_json(nlohmann::ordered_json{{name, name}}), "{" + expected + ":" + expected + "}");
  EXPECT_EQ(written([&](JsonWriter& w) {
              w.begin_object();
              w.member(name, json::array({name}));
              w.end_object();
            }),
            "{" + expected + ":[" + expected + "]}");
  // Every C1 control, and it reads back as the name.
  for (int c = 0x80; c <= 0x9f; ++c) {
    std::string s = {'\xc2', static_cast<char>(c)};
    std::string out = dump_json(json(s));
    EXPECT_EQ(out, fmt::format("\"\\u{:04x}\"", c));
    EXPECT_EQ(json::parse(out).get<std::string>(), s);
  }
  EXPECT_EQ(dump_json(json("no C1: \xc2\xa0 \xc3\x80")), "\"no C1: \xc2\xa0 \xc3\x80\"");
}

// A compare's options JSON holds its argv: one byte of Latin-1 in it made
// nlohmann's strict dump throw (type_error 316) and aborted the run.
TEST(JsonWriter, DumpJsonReplacesInvalidUtf8) {
  json doc = {{"argv", {"fscost", "caf\xe9", "ok"}}};
  EXPECT_THROW((void)doc.dump(2), json::type_error);
  EXPECT_EQ(dump_json(doc), "{\"argv\":[\"fscost\",\"caf\xEF\xBF\xBD\",\"ok\"]}");
  EXPECT_EQ(dump_json(doc, 2),
            "{\n  \"argv\": [\n    \"fscost\",\n    \"caf\xEF\xBF\xBD\",\n    \"ok\"\n  ]\n}");
}

}  // namespace
}  // namespace fscost

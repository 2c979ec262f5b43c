// The profile reader's fast path (io/profile_fast.cpp, simdjson On-Demand)
// against the checked reader (the DOM): on every text, valid or not, both
// give the same profile or the same error; and the fast path does read the
// files fscost writes, in both layouts, rather than always giving up.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "fixture.h"
#include "io/profile_io.h"
#include "io/profile_json.h"
#include "model/file_io.h"

namespace fscost {
namespace {

// Ordered: edited documents keep the writer's member order, which the fast
// path needs to read them at all.
using json = nlohmann::ordered_json;

// Both readers on `text`: the same profile (compared as written, so every
// field counts), or the same error.
void expect_same_reading(const std::string& text, const std::string& what) {
  auto fast = parse_profile(text, "p.json");
  auto checked = parse_profile_checked(text, "p.json");
  ASSERT_EQ(static_cast<bool>(fast), static_cast<bool>(checked))
      << what << ": " << (fast ? checked.error().message : fast.error().message);
  if (fast)
    EXPECT_EQ(serialize_profile(fast.value()), serialize_profile(checked.value())) << what;
  else
    EXPECT_EQ(fast.error().message, checked.error().message) << what;
}

bool fast_path_reads(std::string text) {
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return profile_json::read_fast(std::string_view(text)).has_value();
}

// A profile with stacks shared between samples, off-CPU and lock records,
// and one deeper than the reader keeps.
Profile shared_stacks_profile() {
  Profile p = test::sample_profile();
  Stack deep;
  for (std::size_t i = 0; i < kMaxStackDepth + 10; ++i)
    deep.emplace_back(std::string_view(i % 2 ? "xfs_btree_lookup" : "xfs_btree_increment"));
  p.samples.push_back({SampleKind::Op, "create", deep, 2});
  OffCpuStack o;
  o.name = "create";
  o.wait_class = "lock";
  o.frames = p.samples[1].frames;
  o.waker_frames = p.samples[1].frames;
  o.waker = "kworker/0:1";
  o.count = 3;
  o.total_ns = 3000;
  p.offcpu.push_back(o);
  LockStat l;
  l.name = "create";
  l.address = 7;
  l.frames = p.samples[1].frames;
  l.count = 1;
  l.total_ns = 10;
  p.locks.push_back(l);
  return p;
}

TEST(ProfileFast, ReadsWhatFscostWritesInBothLayouts) {
  for (int version : {2, kProfileFormatVersion}) {
    for (const Profile& p : {test::sample_profile(), shared_stacks_profile(), Profile{}}) {
      std::string text = serialize_profile(p, version);
      EXPECT_TRUE(fast_path_reads(text)) << "version " << version;
      expect_same_reading(text, fmt::format("version {}", version));
    }
  }
}

TEST(ProfileFast, ReadsTheRecordedFilesAsTheCheckedReader) {
  for (const char* name : {"sample-profile.json", "sample-profile-v2.json", "full-profile.json"}) {
    auto text = read_whole_file(test::data_path(name), "profile");
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_TRUE(fast_path_reads(text.value())) << name;
    expect_same_reading(text.value(), name);
  }
}

// What the checked reader accepts in another form than fscost writes: the
// fast path reads it the same or leaves it to the checked reader.
TEST(ProfileFast, OtherFormsReadTheSame) {
  json doc = json::parse(serialize_profile(shared_stacks_profile()));
  std::vector<std::pair<std::string, json>> cases;
  auto with = [&](const std::string& what, auto edit) {
    json d = doc;
    edit(d);
    cases.emplace_back(what, d);
  };
  with("a sample's fields in another order", [](json& d) {
    json s = json::object();
    s["count"] = d["samples"][0]["count"];
    s["stack"] = d["samples"][0]["stack"];
    s["name"] = d["samples"][0]["name"];
    s["kind"] = d["samples"][0]["kind"];
    d["samples"][0] = s;
  });
  with("an unknown top-level field", [](json& d) { d["zzz"] = {{"a", {1, "x", nullptr}}}; });
  json v2 = json::parse(serialize_profile(shared_stacks_profile(), 2));
  v2["stacks"] = "not read in version 2";
  cases.emplace_back("a version 2 file with a field named stacks", v2);
  for (const auto& [what, d] : cases) {
    EXPECT_TRUE(fast_path_reads(d.dump())) << what;
    expect_same_reading(d.dump(), what);
    expect_same_reading(d.dump(2), what + ", indented");
  }
  // Members out of the writer's order (nlohmann::json sorts the keys,
  // "version" last): left to the checked reader, which reads the same.
  std::string sorted = nlohmann::json::parse(doc.dump()).dump();
  EXPECT_FALSE(fast_path_reads(sorted));
  expect_same_reading(sorted, "sorted keys");
  std::string text = doc.dump();
  expect_same_reading(text.substr(0, text.size() - 1) + ",\"samples\":[]}", "samples twice");
  // A member of a sample fscost does not write: valid, or not JSON at all
  // (On-Demand would skip it by counting brackets), read as the checked
  // reader reads it.
  const std::string count = "\"count\":";
  const std::size_t at = text.find(count, text.find("\"samples\":"));
  ASSERT_NE(at, std::string::npos);
  for (const std::string& extra :
       std::vector<std::string>{"[1,2]", "tru", "]", "[1 2]", "[}}", ":1", "1e400", "{\"a\":[]}",
                                std::string(1100, '[') + std::string(1100, ']')}) {
    std::string t = text;
    t.insert(at, "\"x\":" + extra + ",");
    expect_same_reading(t, "a sample's unknown member " + extra.substr(0, 12));
  }
  // More top-level members than fscost writes, each read as the checked
  // reader reads it.
  std::string many = text.substr(0, text.size() - 1);
  for (int i = 0; i < 200; ++i) many += fmt::format(",\"k{}\":{}", i, i);
  expect_same_reading(many + "}", "200 unknown members");
  expect_same_reading(text + " x", "trailing text");
  expect_same_reading(text + "\n\n", "trailing newlines");
}

TEST(ProfileFast, ErrorsAreTheCheckedReaders) {
  json doc = json::parse(serialize_profile(shared_stacks_profile()));
  auto broken = [&](auto edit) {
    json d = doc;
    edit(d);
    return d.dump();
  };
  std::vector<std::string> texts = {
      broken([](json& d) { d["samples"][2]["stack"] = 1u << 20; }),
      broken([](json& d) { d["samples"][2]["stack"] = -1; }),
      broken([](json& d) { d["samples"][2]["stack"] = json::array({0}); }),
      broken([](json& d) { d["stacks"][1][0] = 99999; }),
      broken([](json& d) { d["stacks"][1] = "0 1 2"; }),
      broken([](json& d) { d.erase("stacks"); }),
      broken([](json& d) { d["samples"][0].erase("count"); }),
      broken([](json& d) { d["samples"][0]["count"] = 1.5; }),
      broken([](json& d) { d["samples"][0]["kind"] = "user-ish"; }),
      broken([](json& d) { d["frames"][0] = 7; }),
      broken([](json& d) { d["version"] = 9; }),
      broken([](json& d) { d["format"] = "other"; }),
      broken([](json& d) { d["ops"][0]["count"] = "many"; }),
      broken([](json& d) { d["offcpu"][0]["waker_stack"] = 500; }),
      broken([](json& d) { d.erase("samples"); }),
      "[]",
      "{\"format\":\"fscost-profile\",\"version\":3,\"frames\":[\"a\"],\"stacks\":[[0]],"
      "\"samples\":[{\"kind\":\"op\",\"kind\":\"user\",\"name\":\"x\",\"stack\":0,\"count\":1}]}",
  };
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_FALSE(parse_profile(texts[i], "p.json")) << i;
    expect_same_reading(texts[i], fmt::format("case {}", i));
  }
}

// Random damage to a written profile: whatever either reader makes of it,
// the other makes too.
TEST(ProfileFast, DamagedTextReadsTheSame) {
  const std::string text = serialize_profile(shared_stacks_profile());
  std::mt19937 rng(43);
  const std::string bytes = "0123456789[]{},:\"-.eE \\xn";
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = text;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = bytes[rng() % bytes.size()];
          break;
        case 1:
          t.erase(at, 1 + rng() % 8);
          break;
        default:
          t.insert(at, 1, bytes[rng() % bytes.size()]);
      }
    }
    accepted += static_cast<bool>(parse_profile_checked(t, "p.json"));
    expect_same_reading(t, fmt::format("draw {}", i));
    if (HasFailure()) break;
  }
  // Both outcomes reached: some damage leaves a valid profile (a digit
  // changed), most does not.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 3000);
}

}  // namespace
}  // namespace fscost

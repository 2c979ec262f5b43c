// Lock identities in the profile (issue 28): a recording's lock ids are
// written as "lock_id", never as "address"; kernel addresses (from
// --keep-addresses, or profiles from before ids) stay "address"; both read
// back into LockStat::address and name an unnamed lock "lock#N" or
// "lock@0x…".
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "full_fixture.h"
#include "io/pprof.h"
#include "io/profile_io.h"
#include "report/html_report.h"
#include "report/pprof.h"
#include "report/report.h"
#include "report/speedscope.h"
#include "views/lock_names.h"
#include "views/lock_view.h"

namespace fscost {
namespace {

using nlohmann::json;

// The fixture (a default recording: lock ids) with one holder of lock 1
// for lock_holders[].
Profile with_ids() {
  Profile p = test::full_profile();
  LockHolder h;
  h.op = "create";
  h.address = 1;
  h.flags = kLockWrite;
  h.frames = p.locks[0].frames;
  h.holder_kind = "kthread";
  h.holder = "kworker/u8:1: xlog_cil_push_work";
  h.count = 2;
  h.total_ns = 5000;
  p.lock_holders.push_back(h);
  return p;
}

std::string parse_error(const json& doc) {
  auto r = parse_profile(doc.dump(), "p.json");
  EXPECT_FALSE(r) << "parsed although it should fail";
  return r ? std::string() : r.error().message;
}

TEST(ProfileLockIds, IdsAreWrittenAsLockIdAndReadBack) {
  Profile p = with_ids();
  std::string text = serialize_profile(p);
  json doc = json::parse(text);
  for (const auto& s : doc["locks"]) {
    EXPECT_FALSE(s.contains("address")) << s.dump();
    EXPECT_TRUE(s["lock_id"].is_number_unsigned()) << s.dump();
  }
  ASSERT_EQ(doc["lock_holders"].size(), 1u);
  EXPECT_EQ(doc["lock_holders"][0]["lock_id"], 1);
  EXPECT_FALSE(doc["lock_holders"][0].contains("address"));
  // Not in decimal either: 0xffff8880… is 18446612…, 0xffffffff8… 184467440….
  EXPECT_EQ(text.find("1844661"), std::string::npos);
  EXPECT_EQ(text.find("1844674407"), std::string::npos);

  auto back = parse_profile(text, "mem");
  ASSERT_TRUE(back) << back.error().message;
  test::expect_same_profile(p, back.value());
  ASSERT_EQ(back.value().lock_holders.size(), 1u);
  EXPECT_EQ(back.value().lock_holders[0].address, 1u);
  EXPECT_EQ(back.value().locks[7].address, 8u);
}

// --keep-addresses: each address a "0x…" string (exact where JSON numbers
// are doubles, and found by grep); profiles from before ids wrote numbers.
TEST(ProfileLockIds, KernelAddressesStayAddresses) {
  json doc = json::parse(serialize_profile(test::full_profile_with_addresses()));
  for (const auto& s : doc["locks"]) {
    EXPECT_FALSE(s.contains("lock_id")) << s.dump();
    EXPECT_TRUE(s["address"].get<std::string>().starts_with("0xffff")) << s.dump();
  }
  EXPECT_EQ(doc["locks"][7]["address"], "0xffff888012345678");
  doc["locks"][0]["address"] = 0xffff888000001000u;
  doc["locks"][7]["address"] = 7;  // no kernel has such an address: an id
  auto back = parse_profile(doc.dump(), "p.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back.value().locks[0].address, 0xffff888000001000u);
  EXPECT_EQ(back.value().locks[8].address, 0xffffffff82a0b040u);
  EXPECT_EQ(back.value().locks[7].address, 7u);
  json again = json::parse(serialize_profile(back.value()));
  EXPECT_EQ(again["locks"][0]["address"], "0xffff888000001000");
  EXPECT_EQ(again["locks"][7]["lock_id"], 7);
}

TEST(ProfileLockIds, IdentityIsChecked) {
  json doc = json::parse(serialize_profile(with_ids()));
  doc["locks"][2]["address"] = 5;
  EXPECT_EQ(parse_error(doc),
            "p.json: locks[2]: both lock_id and address (a lock has one or the other)");
  doc = json::parse(serialize_profile(with_ids()));
  doc["locks"][2].erase("lock_id");
  EXPECT_EQ(parse_error(doc), "p.json: locks[2]: missing required field lock_id (or address)");
  doc = json::parse(serialize_profile(with_ids()));
  doc["lock_holders"][0]["lock_id"] = 1ull << 63;
  EXPECT_EQ(parse_error(doc),
            "p.json: lock_holders[0].lock_id: lock_id 9223372036854775808 has the top bit set, "
            "as only a kernel address has");
  doc = json::parse(serialize_profile(with_ids()));
  doc["locks"][0]["lock_id"] = "1";
  EXPECT_EQ(parse_error(doc), "p.json: locks[0].lock_id: expected unsigned integer, got string");
  for (const char* bad : {"ffff888000001000", "0x", "0x10000000000000000", "0xffffg", "0x-1"}) {
    doc = json::parse(serialize_profile(test::full_profile_with_addresses()));
    doc["locks"][3]["address"] = bad;
    EXPECT_EQ(parse_error(doc),
              fmt::format("p.json: locks[3].address: expected a 0x-prefixed hex address of up to "
                          "16 digits, got \"{}\"",
                          bad));
  }
}

// A 64-bit kernel address in hex as reports print one: 0xffff… or a bare
// run of 16 digits from ffff.
const std::regex kKernelAddress("(0x)?ffff[0-9a-f]{12}", std::regex::icase);

// Every rendering of `p`: text, JSON and folded stacks of each view, the
// HTML report, speedscope, and the pprof export unzipped.
std::vector<std::pair<std::string, std::string>> every_output(const Profile& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* view : {"oncpu", "offcpu", "locks"}) {
    ReportOptions opt = test::view_options(view);
    out.emplace_back(std::string("text ") + view, render_text(p, opt));
    out.emplace_back(std::string("json ") + view, report_json(p, opt).dump());
    out.emplace_back(std::string("folded ") + view, render_folded(p, opt));
    out.emplace_back(std::string("speedscope ") + view, to_speedscope(p, opt).dump());
  }
  out.emplace_back("html", render_html_report(p, {}));
  out.emplace_back("pprof", take(pprof::gunzip(take(to_pprof(p)), 1u << 30)));
  return out;
}

// The fixture's lock without a call site (xfsaild's, empty stack) is the
// one named by its identity: by id in a default recording, in every view
// and format; by address where the recording kept them.
TEST(ProfileLockIds, AnUnnamedLockIsNamedByItsIdInEveryOutput) {
  Profile p = with_ids();
  ASSERT_TRUE(p.locks[7].frames.empty());
  EXPECT_EQ(lock_name(p.locks[7]), "lock#8");
  bool named = false;
  for (const auto& [what, text] : every_output(p)) {
    EXPECT_FALSE(std::regex_search(text, kKernelAddress)) << what;
    named = named || text.find("lock#8") != std::string::npos;
  }
  EXPECT_TRUE(named);
  std::size_t with_address = 0;
  for (const auto& [what, text] : every_output(test::full_profile_with_addresses()))
    with_address += text.find("lock@0xffff888012345678") != std::string::npos;
  EXPECT_GE(with_address, 5u) << "the kept address is in the lock view's outputs";
}

}  // namespace
}  // namespace fscost

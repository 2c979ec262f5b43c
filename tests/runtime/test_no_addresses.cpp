// Issue 28: nothing a compare writes gives away a kernel address (which
// defeats KASLR): every file under -o, pprof unzipped, holds no 0xffff…, no
// bare 16-digit kernel address and no kernel address in decimal, while the
// run had contended locks to name. With --keep-addresses the profiles keep
// each lock's address.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "io/pprof.h"
#include "io/profile_io.h"
#include "support.h"
#include "system/subprocess.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a file says, unzipped if it is gzip (a pprof export).
std::string contents(const fs::path& p) {
  std::string s = slurp(p);
  if (s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0x1f &&
      static_cast<unsigned char>(s[1]) == 0x8b) {
    auto raw = pprof::gunzip(s, std::size_t{1} << 30);
    EXPECT_TRUE(raw) << p << ": " << raw.error().message;
    if (raw) return std::move(raw).value();
  }
  return s;
}

// The first kernel address in `s` and a little context, or "": 0xffff…,
// a bare run of 16 hex digits from ffff8 or ffffffff, or a 20-digit decimal
// in the kernel half [0xffff800000000000, 2^64 - 1).
std::string kernel_address_in(const std::string& s) {
  static const std::regex hex(
      "0xffff|(^|[^0-9a-f])(ffff8[0-9a-f]{11}|ffffffff[0-9a-f]{8})([^0-9a-f]|$)",
      std::regex::icase);
  static const std::regex decimal("(^|[^0-9])(18446[0-9]{15})([^0-9]|$)");
  auto context = [&s](std::ptrdiff_t at) {
    auto from = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, at - 60));
    return s.substr(from, 140);
  };
  std::smatch m;
  if (std::regex_search(s, m, hex)) return context(m.position(0));
  for (auto it = std::sregex_iterator(s.begin(), s.end(), decimal); it != std::sregex_iterator();
       ++it) {
    std::string d = (*it)[2].str();
    if (d >= "18446603336221196288" && d < "18446744073709551615") return context(it->position(2));
  }
  return "";
}

const std::vector<std::string> kSmall = {"--a",        "mkfs: -m rmapbt=0",
                                         "--b",        "mkfs: -m rmapbt=1",
                                         "--size",     "512M",
                                         "--workload", "create",
                                         "--threads",  "2",
                                         "--runs",     "1",
                                         "--warmup",   "0",
                                         "--probes",   "all"};

class NoAddressesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    dir_ = fs::temp_directory_path() / ("fscost-noaddr-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // A small compare of every probe group: two threads creating in one
  // directory contend on its i_rwsem, one run per side, no warm-up.
  // Contention needs both threads on CPU at once: on a busy 2-CPU machine
  // a run may see none, so it is tried again with twice the files.
  std::string compare(const std::string& name, const std::vector<std::string>& extra) {
    std::string out;
    for (int files = 2000, attempt = 0; attempt < 3; ++attempt, files *= 2) {
      out = (dir_ / (name + std::to_string(attempt))).string();
      std::vector<std::string> argv{FSCOST_BIN, "compare", "-q", "--files", std::to_string(files),
                                    "-o",       out};
      argv.insert(argv.end(), kSmall.begin(), kSmall.end());
      argv.insert(argv.end(), extra.begin(), extra.end());
      auto r = run_capture(argv);
      EXPECT_TRUE(r) << r.error().message;
      if (!r) return out;
      EXPECT_TRUE(r.value().ok()) << r.value().status_text() << "\n" << r.value().err;
      if (!r.value().ok() || locks_of(out) > 0) break;
      std::cerr << "attempt " << attempt + 1 << ": no lock contention, retrying\n";
    }
    return out;
  }

  static std::vector<Profile> profiles(const std::string& out) {
    std::vector<Profile> ps;
    for (const auto& e : fs::recursive_directory_iterator(out))
      if (e.path().extension() == ".profile") {
        auto p = read_profile(e.path().string());
        EXPECT_TRUE(p) << p.error().message;
        if (p) ps.push_back(std::move(p).value());
      }
    return ps;
  }

  static std::size_t locks_of(const std::string& out) {
    std::size_t n = 0;
    for (const auto& p : profiles(out)) n += p.locks.size();
    return n;
  }

  fs::path dir_;
};

TEST_F(NoAddressesTest, NoOutputOfACompareHoldsAKernelAddress) {
  std::string out = compare("default", {});
  ASSERT_GT(locks_of(out), 0u) << "no lock contention recorded: nothing to check";
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(kernel_address_in(contents(e.path())), "") << e.path();
  }
  EXPECT_GE(files, 8u) << "summary, report, data and each run's profile, output and errors";
  for (const auto& p : profiles(out)) {
    for (const auto& s : p.locks) EXPECT_LT(s.address, 1ull << 32) << "not an id: " << s.address;
    for (const auto& h : p.lock_holders) EXPECT_LT(h.address, 1ull << 32) << h.address;
  }
}

// The check above can fail: with --keep-addresses the same compare's
// profiles hold the locks' kernel addresses, and the scan finds them.
TEST_F(NoAddressesTest, KeepAddressesKeepsThem) {
  std::string out = compare("keep", {"--keep-addresses"});
  ASSERT_GT(locks_of(out), 0u) << "no lock contention recorded: nothing to check";
  for (const auto& p : profiles(out))
    for (const auto& s : p.locks) EXPECT_GE(s.address, 0xffff800000000000u) << s.address;
  std::size_t with_address = 0;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.is_regular_file() && e.path().extension() == ".profile")
      with_address += !kernel_address_in(contents(e.path())).empty();
  EXPECT_GT(with_address, 0u);
}

TEST(KernelAddressScan, FindsEachSpelling) {
  EXPECT_EQ(kernel_address_in("lock#3 i_rwsem 0xfff 184466033362211962"), "");
  EXPECT_NE(kernel_address_in("lock@0xffff888012345678"), "");
  EXPECT_NE(kernel_address_in("\"address\":\"0xFFFFFFFF82A0B040\""), "");
  EXPECT_NE(kernel_address_in("ffffffff8171f20d find_get_block"), "");
  EXPECT_NE(kernel_address_in("\"address\":18446612682070036480,"), "");
  EXPECT_EQ(kernel_address_in("\"max\":18446744073709551615"), "") << "UINT64_MAX is no address";
  EXPECT_EQ(kernel_address_in("sha 1ffff888012345678a"), "") << "inside a longer hex run";
}

}  // namespace
}  // namespace fscost

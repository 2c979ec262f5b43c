#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "symbols/kallsyms.h"

namespace fscost {
namespace {

// Unsorted on purpose (kallsyms lists modules after vmlinux, in load order).
constexpr const char* kText =
    "ffffffff81000000 T srso_alias_untrain_ret\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 t __pfx_do_one\n"
    "ffffffff81000110 t do_one\n"
    "ffffffff81000110 T do_one_alias\n"
    "ffffffff81000200 W weak_fn\n"
    "ffffffff81000200 t strong_local\n"
    "ffffffff81000400 T _etext\n"
    "ffffffff82000000 D __start_rodata\n"
    "ffffffff82000100 d static_lock\n"
    "ffffffff82000140 b zero_lock\n"
    "ffffffffc0a00000 t xfs_buf_lock\t[xfs]\n"
    "ffffffffc0a00080 T xfs_trans_alloc\t[xfs]\n"
    "ffffffffc0a10000 d xfs_static\t[xfs]\n"
    "ffffffff81000300 T late_listed\n";

Kallsyms parsed(const std::string& text = kText) {
  std::istringstream in(text);
  return Kallsyms::parse(in);
}

TEST(Kallsyms, LookupAtStartAndInside) {
  Kallsyms k = parsed();
  auto s = k.lookup_text(0xffffffff81000110);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->offset, 0u);
  s = k.lookup_text(0xffffffff81000150);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->offset, 0x40u);
  EXPECT_EQ(s->module, "");
}

TEST(Kallsyms, PaddingSymbolCoversOnlyThePadding) {
  Kallsyms k = parsed();
  EXPECT_EQ(k.format(0xffffffff8100010f), "__pfx_do_one");
  EXPECT_EQ(k.format(0xffffffff81000110), "do_one_alias");
}

TEST(Kallsyms, AliasesPreferGlobalStrongAndFewerUnderscores) {
  Kallsyms k = parsed();
  EXPECT_EQ(k.format(0xffffffff81000000), "srso_alias_untrain_ret");  // over _stext
  EXPECT_EQ(k.format(0xffffffff81000110), "do_one_alias");            // T over t
  EXPECT_EQ(k.format(0xffffffff81000210), "strong_local");            // t over W
}

TEST(Kallsyms, SymbolEndsAtTheNextOneEvenIfListedLater) {
  Kallsyms k = parsed();
  EXPECT_EQ(k.format(0xffffffff810002ff), "strong_local");
  EXPECT_EQ(k.format(0xffffffff81000300), "late_listed");
}

TEST(Kallsyms, BeforeFirstAndAfterLast) {
  Kallsyms k = parsed();
  EXPECT_FALSE(k.lookup_text(0xffffffff80ffffff));
  EXPECT_EQ(k.format(0x1000), "[unknown]");
  EXPECT_FALSE(k.lookup_data(0xffffffffc0a10000 + Kallsyms::kMaxSpan));
  EXPECT_TRUE(k.lookup_data(0xffffffffc0a10000 + Kallsyms::kMaxSpan - 1));
  EXPECT_FALSE(k.lookup_text(UINT64_MAX));
}

TEST(Kallsyms, MarkersEndSymbolsButNameNothing) {
  Kallsyms k = parsed();
  EXPECT_EQ(k.format(0xffffffff810003ff), "late_listed");
  EXPECT_EQ(k.format(0xffffffff81000400), "[unknown]");  // _etext
  EXPECT_FALSE(k.lookup_data(0xffffffff82000010));       // __start_rodata
}

TEST(Kallsyms, TextAndDataAreSeparate) {
  Kallsyms k = parsed();
  EXPECT_FALSE(k.lookup_data(0xffffffff81000110));
  EXPECT_FALSE(k.lookup_text(0xffffffff82000100));
  auto d = k.lookup_data(0xffffffff82000108);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "static_lock");
  EXPECT_EQ(d->offset, 8u);
  d = k.lookup_data(0xffffffff82000140);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "zero_lock");
  EXPECT_TRUE(k.has_data_symbols());
}

TEST(Kallsyms, ModuleSymbols) {
  Kallsyms k = parsed();
  auto s = k.lookup_text(0xffffffffc0a00084);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "xfs_trans_alloc");
  EXPECT_EQ(s->module, "xfs");
  EXPECT_EQ(s->offset, 4u);
  auto d = k.lookup_data(0xffffffffc0a10000);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->module, "xfs");
}

TEST(Kallsyms, WithoutKallsymsAllThereAreNoDataSymbols) {
  Kallsyms k = parsed(
      "ffffffff81000000 T _stext\n"
      "ffffffff82400000 D __start_rodata\n"
      "ffffffff83783000 B __init_begin\n"
      "ffffffffc0a10000 d xfs_static\t[xfs]\n");
  EXPECT_FALSE(k.has_data_symbols());
}

TEST(Kallsyms, SurvivesAMove) {
  Kallsyms a = parsed();
  Kallsyms b = std::move(a);
  EXPECT_EQ(b.format(0xffffffff81000300), "late_listed");
}

TEST(Kallsyms, IgnoresMalformedLines) {
  Kallsyms k = parsed("garbage\n\nffffffff81000000 T\nffffffff81000000 T ok\n");
  EXPECT_EQ(k.size(), 1u);
  EXPECT_EQ(k.format(0xffffffff81000001), "ok");
}

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char tmpl[] = "/tmp/fscost-kallsyms-XXXXXX";
    int fd = mkstemp(tmpl);
    path_ = tmpl;
    close(fd);
    std::ofstream(path_) << content;
  }
  ~TempFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Kallsyms, LoadFromFile) {
  TempFile f(kText);
  auto k = Kallsyms::load(f.path());
  ASSERT_TRUE(k) << k.error().message;
  EXPECT_EQ(k.value().format(0xffffffffc0a00000), "xfs_buf_lock");
}

TEST(Kallsyms, AllZeroAddressesAreAnError) {
  TempFile f(
      "0000000000000000 T _stext\n"
      "0000000000000000 t do_one\n"
      "0000000000000000 t xfs_buf_lock\t[xfs]\n");
  auto k = Kallsyms::load(f.path());
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("kernel symbol addresses are hidden"), std::string::npos);
  EXPECT_NE(k.error().hint.find("kptr_restrict=0"), std::string::npos);
}

TEST(Kallsyms, MissingFileIsAnError) {
  auto k = Kallsyms::load("/nonexistent/kallsyms");
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace fscost

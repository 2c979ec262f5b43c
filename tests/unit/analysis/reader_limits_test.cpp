// Regression tests for what the fuzz targets (tests/fuzz) found in the
// readers, and for the edges they enforce: each input here was accepted
// wrongly, lost precision, or failed with an unclear message before; and the
// caps of issue 28 ("Readers": depth cut, pprof frames, file types, runs).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "diff/diff.h"
#include "fixture.h"
#include "flame/flamegraph.h"
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

// Readers cut a deep stack as they read it (issue 28): a 100,000-frame
// folded line used to be split whole, and every tree walk after it
// recursed once per frame (SIGSEGV). Exactly kMaxStackDepth frames stay.
std::string folded_line(std::size_t depth, const std::string& count = "7") {
  std::string line = "create";
  for (std::size_t i = 1; i < depth; ++i) line += ";g" + std::to_string(i % 100);
  return line + " " + count + "\n";
}

TEST(ReaderLimits, FoldedDeepStackIsCutAsItIsRead) {
  auto f = take(parse_folded(folded_line(100'000) + folded_line(kMaxStackDepth) +
                                 folded_line(kMaxStackDepth + 1),
                             "x"));
  ASSERT_EQ(f.stacks.size(), 3u);
  EXPECT_EQ(f.depth_truncated, 2u);
  EXPECT_EQ(f.stacks[0].frames.size(), kMaxStackDepth);
  EXPECT_EQ(f.stacks[0].frames.back(), "[truncated]");
  EXPECT_EQ(f.stacks[0].frames[kMaxStackDepth - 2], "g22");  // the outermost are kept
  EXPECT_EQ(f.stacks[1].frames.size(), kMaxStackDepth);
  EXPECT_EQ(f.stacks[1].frames.back(), "g23");  // at the limit: not cut
  EXPECT_EQ(f.stacks[2].frames.back(), "[truncated]");
  EXPECT_EQ(f.stacks[0].count, std::optional<std::uint64_t>(7));
  Profile p = profile_from_folded(f);
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), 2u);
  EXPECT_EQ(p.samples.at(0).frames.size(), kMaxStackDepth - 1);  // the op root is the owner
  EXPECT_FALSE(profile_from_folded(take(parse_folded("a;b 1\n", "x"))).drops.contains(
      "stack_depth_truncated"));
}

TEST(ReaderLimits, FoldedInternedCutsTheSameAndTheGraphSaysSo) {
  std::string text = folded_line(100'000, "3 4") + "create;a 1 2\n";
  auto plain = take(parse_folded(text, "x"));
  auto f = take(parse_folded_interned(text, "x"));
  ASSERT_TRUE(f.two_column);
  EXPECT_EQ(f.depth_truncated, 1u);
  ASSERT_EQ(f.stacks.size(), 2u);
  EXPECT_EQ(f.stacks[0].frames, plain.stacks[0].frames);
  EXPECT_EQ(f.stacks[0].value2, std::optional<double>(4));
  FlameInput in = flame_input(f, 1);
  EXPECT_EQ(in.skipped, (std::vector<std::string>{
                            "frames beyond 1024 of 1 stack (stack_depth_truncated)"}));
  EXPECT_TRUE(flame_input(take(parse_folded_interned("a 1\n", "x"))).skipped.empty());
}

std::string perf_sample(std::size_t depth) {
  std::string s = "app 10 [000] 1.000000: 1000000 cpu-clock: \n";
  for (std::size_t i = 0; i + 3 < depth; ++i)
    s += fmt::format("\tffffffff81400000 f{}+0x1 ([kernel.kallsyms])\n", i);
  s += "\tffffffff81400200 __x64_sys_read+0x9 ([kernel.kallsyms])\n"
       "\tffffffff81400300 do_syscall_64+0x71 ([kernel.kallsyms])\n"
       "\tffffffff81400400 entry_SYSCALL_64+0x7c ([kernel.kallsyms])\n\n";
  return s;
}

TEST(ReaderLimits, PerfScriptDeepStackIsCutAfterItsOpIsKnown) {
  Profile p = take(import_perf_script(perf_sample(100'000) + perf_sample(50), "t.txt"));
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), 1u);
  const StackSample* deep = p.samples[0].frames.size() > 50 ? &p.samples[0] : &p.samples[1];
  EXPECT_EQ(deep->name, "read");  // named by the outermost frames, which are kept
  EXPECT_EQ(deep->frames.size(), kMaxStackDepth);
  EXPECT_EQ(deep->frames.front(), "entry_SYSCALL_64");
  EXPECT_EQ(deep->frames.back(), "[truncated]");
  Profile shallow = take(import_perf_script(perf_sample(50), "t.txt"));
  EXPECT_FALSE(shallow.drops.contains("stack_depth_truncated"));
}

// The K × L bomb: one location of `lines` inlined lines, named `ids` times
// by each of `samples` samples. A few KB of gzip; uncut, K × L frames per
// sample.
perftools::profiles::Profile pprof_bomb(int lines, int ids, int samples) {
  perftools::profiles::Profile in;
  in.add_string_table("");
  in.add_string_table("samples");
  in.add_string_table("count");
  in.add_string_table("frame");
  auto* t = in.add_sample_type();
  t->set_type(1);
  t->set_unit(2);
  auto* f = in.add_function();
  f->set_id(1);
  f->set_name(3);
  auto* loc = in.add_location();
  loc->set_id(1);
  for (int i = 0; i < lines; ++i) loc->add_line()->set_function_id(1);
  for (int s = 0; s < samples; ++s) {
    auto* smp = in.add_sample();
    for (int i = 0; i < ids; ++i) smp->add_location_id(1);
    smp->add_value(1);
  }
  return in;
}

TEST(ReaderLimits, PprofSampleStackIsCutBeforeItIsExpanded) {
  std::string gz = take(pprof::gzip(pprof_bomb(10'000, 10'000, 20).SerializeAsString()));
  EXPECT_LT(gz.size(), 8u << 10);  // 10^8 frames a sample, uncut
  Profile p = take(pprof::import_pprof(gz, {"bomb.pb.gz"}));
  ASSERT_EQ(p.samples.size(), 1u);  // twenty equal stacks, merged
  EXPECT_EQ(p.samples[0].name, "other");
  EXPECT_EQ(p.samples[0].count, 20u);
  EXPECT_EQ(p.samples[0].frames.size(), kMaxStackDepth);
  EXPECT_EQ(p.samples[0].frames.back(), "[truncated]");
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), 20u);
  EXPECT_FALSE(p.drops.contains("pprof_frames_capped"));
}

TEST(ReaderLimits, PprofFramesInAllAreCappedAndCounted) {
  pprof::ImportOptions opt{"x.pb"};
  opt.max_frames = 3000;
  std::string raw = pprof_bomb(5, 256, 5).SerializeAsString();  // 1280 frames a sample
  Profile p = take(pprof::import_pprof(raw, opt));
  EXPECT_EQ(p.samples.at(0).count, 2u);  // 2 × 1024 frames fit in 3000, the third does not
  EXPECT_EQ(p.samples_total, 2u);
  EXPECT_EQ(p.drops.at("pprof_frames_capped"), 3u);
  EXPECT_EQ(p.drops.at("stack_depth_truncated"), 2u);  // of the samples kept
  opt.max_frames = pprof::ImportOptions{}.max_frames;
  EXPECT_EQ(opt.max_frames, std::uint64_t{1} << 25);
  Profile all = take(pprof::import_pprof(raw, opt));
  EXPECT_FALSE(all.drops.contains("pprof_frames_capped"));
  EXPECT_EQ(all.samples_total, 5u);
}

// The cut stops taking frames, not looking: an unknown location past it
// is still an error.
TEST(ReaderLimits, PprofUnknownLocationPastTheCutIsRefused) {
  auto in = pprof_bomb(2000, 1, 1);
  in.mutable_sample(0)->add_location_id(1);
  in.mutable_sample(0)->add_location_id(99);  // the leaf: looked up last
  in.mutable_sample(0)->mutable_location_id()->SwapElements(0, 2);
  auto r = pprof::import_pprof(in.SerializeAsString(), {"x.pb"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "x.pb: a sample names location 99, which is not in the profile");
}

// Parsing itself is bounded: a 5-byte sample is a 150-byte message once
// parsed, so 145 KB of gzip holding 20 million of them took 3 GB. The
// cost is estimated from the wire format, before anything is parsed.
TEST(ReaderLimits, PprofParseCostIsEstimatedAndCappedBeforeParsing) {
  std::string raw = pprof_bomb(1, 0, 1'000'000).SerializeAsString();  // 1 M samples, 5 bytes each
  std::string gz = take(pprof::gzip(raw));
  EXPECT_LT(gz.size(), 16u << 10);
  pprof::ImportOptions opt{"flood.pb.gz"};
  EXPECT_EQ(opt.max_parse_bytes, std::uint64_t{1} << 30);
  opt.max_parse_bytes = 64 << 20;
  auto r = pprof::import_pprof(gz, opt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            fmt::format("flood.pb.gz: its {} bytes would take about 160 MiB of memory to parse, "
                        "more than the limit of 64 MiB",
                        raw.size()));
  opt.max_parse_bytes = 256 << 20;
  EXPECT_EQ(take(pprof::import_pprof(gz, opt)).samples_total, 1'000'000u);
  // Not protobuf at all: the same error as libprotobuf's refusal.
  r = pprof::import_pprof("\x0a\xff\xff\xff\x0f", opt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "flood.pb.gz: not a pprof profile.proto");
}

// Readers open only regular files: open() of a FIFO blocks until a writer
// comes (this test would hang), and a device's open runs its driver.
TEST(ReaderLimits, FifoDeviceAndSymlinkToADeviceAreRefusedUnopened) {
  test::TempDir dir;
  std::string fifo = dir.file("trap.profile");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string link = dir.file("dev.folded");
  std::filesystem::create_symlink("/dev/null", link);
  struct Case {
    std::string path, kind;
  } cases[] = {{fifo, "a FIFO"}, {"/dev/null", "a character device"}, {link, "a character device"}};
  for (const auto& c : cases) {
    auto r = read_whole_file(c.path, "folded stacks");
    ASSERT_FALSE(r) << c.path;
    EXPECT_EQ(r.error().message, "cannot read folded stacks '" + c.path + "': it is " + c.kind +
                                     "; fscost reads only regular files");
    EXPECT_NE(r.error().hint.find("standard input"), std::string::npos);
  }
  EXPECT_FALSE(read_profile(fifo));
  // A symlink to a regular file is still followed.
  std::string real = dir.file("real.folded");
  ASSERT_TRUE(write_file_atomic("a 1\n", real));
  std::filesystem::create_symlink(real, dir.file("link.folded"));
  EXPECT_EQ(take(read_whole_file(dir.file("link.folded"), "x")), "a 1\n");
}

// A directory of profiles is refused past the cap before any is read
// (these are not profiles: reading one would be another error).
TEST(ReaderLimits, DiffRunsPerSideAreCapped) {
  test::TempDir dir;
  for (std::size_t i = 0; i <= kMaxRunsPerSide; ++i)
    ASSERT_TRUE(write_file_atomic("not json", dir.file(fmt::format("run{}.profile", i))));
  auto r = load_runs(dir.path().string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, dir.path().string() +
                                   ": 101 *.profile files; fscost diff takes at most 100 runs a side");
  std::filesystem::remove(dir.file("run0.profile"));
  r = load_runs(dir.path().string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.rfind(dir.file("run1.profile") + ": truncated or corrupt JSON", 0), 0u)
      << r.error().message;  // read now: the first by name
}

}  // namespace
}  // namespace fscost

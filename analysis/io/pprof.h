// pprof's profile.proto (github.com/google/pprof, proto/profile.proto): the
// format `go tool pprof` reads and the profile stores (Grafana Pyroscope,
// Parca) ingest. What fscost writes into one (report/pprof.h writes it), and
// reading one back into a Profile so that another host's profiles can be
// diffed (docs/FORMATS.md, "pprof").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"
#include "model/result.h"

namespace fscost::pprof {

// One sample type per measure of the three views; every sample carries all
// of them, zero where the measure is not its own.
enum Measure : std::size_t {
  kSamples,          // oncpu: cpu-clock samples
  kCpu,              // oncpu: samples × the sampling period
  kOffCpu,           // offcpu: ns off CPU
  kOffCpuIntervals,  // offcpu: intervals
  kLockWait,         // locks: ns from contention_begin to _end
  kContentions,      // locks: contentions
  kLockSpin,         // locks: of lock_wait, on CPU
  kLockSleep,        // locks: of lock_wait, off CPU
  kMeasures
};
struct SampleType {
  std::string_view type, unit;
};
inline constexpr std::array<SampleType, kMeasures> kSampleTypes = {{
    {"samples", "count"},
    {"cpu", "nanoseconds"},
    {"offcpu", "nanoseconds"},
    {"offcpu_intervals", "count"},
    {"lock_wait", "nanoseconds"},
    {"contentions", "count"},
    {"lock_spin", "nanoseconds"},
    {"lock_sleep", "nanoseconds"},
}};

// Label keys: `pprof -tagfocus=op=create`, `-tagshow=wait_class`.
namespace label {
inline constexpr std::string_view kKind = "kind";      // op, user, kernel, kthread
inline constexpr std::string_view kOp = "op";          // the operation (kind op)
inline constexpr std::string_view kThread = "thread";  // the kernel thread's bucket (kthread)
inline constexpr std::string_view kWaitClass = "wait_class";
inline constexpr std::string_view kWaker = "waker";
inline constexpr std::string_view kWakerWork = "waker_work";
inline constexpr std::string_view kWakerLastWork = "waker_last_work";
inline constexpr std::string_view kWakerWorkqueue = "waker_workqueue";
inline constexpr std::string_view kLock = "lock";            // lock_name()
inline constexpr std::string_view kLockType = "lock_type";   // lock_type(): "rwsem:W", ...
inline constexpr std::string_view kLockFlags = "lock_flags";  // numeric: contention_begin flags
inline constexpr std::string_view kLockMaxNs = "lock_max_ns";  // numeric, unit nanoseconds
}  // namespace label

// The profile's metadata, setup and per-operation figures as the
// profile's comments, one "fscost.KEY: VALUE" line each (`pprof
// -comments` prints them): host, kernel, CPUs, CPU model and the
// filesystem as built for a reader, the exact per-op counts for
// import_pprof. Line breaks inside a value are written as "\n".
std::vector<std::string> metadata_comments(const Profile& p);

// Raw profile.proto bytes, gzipped as the format asks (level 6, as pprof).
Result<std::string> gzip(std::string_view raw);
// Raw bytes of a gzipped (or already raw) profile; refuses more than
// `limit` bytes of output.
Result<std::string> gunzip(std::string_view data, std::size_t limit);

struct ImportOptions {
  std::string origin;  // meta.command and error prefix
  // Which sample type holds on-CPU samples in a profile fscost did not
  // write (default: "samples", else the profile's default sample type).
  std::optional<std::string> sample_type;
  std::size_t max_bytes = std::size_t{1} << 30;  // decompressed
  // What parsing may allocate, estimated from the wire format before it is
  // parsed (docs/HARDENING.md, "Readers"): a 5-byte sample is a 150-byte
  // message once parsed, so max_bytes alone allows tens of GB.
  std::uint64_t max_parse_bytes = std::uint64_t{1} << 30;
  // The frames all samples' stacks may hold together (docs/HARDENING.md,
  // "Readers"): 32 Mi, 256 MiB of them, far above any real profile's sum
  // over its (distinct) samples; a crafted one reaches it after 32 Ki
  // samples cut to the deepest stack. Samples past it are left out,
  // counted in drops["pprof_frames_capped"].
  std::uint64_t max_frames = std::uint64_t{1} << 25;
};

// A profile.proto (gzipped or not) as a Profile. fscost's own exports come
// back whole: stacks of every view with their owners (labels), per-op
// counts, metadata and drops (comments); lock addresses are not in the
// format (locks come back named, address 0), nor are lock holders. Any
// other profile's samples of the chosen type become on-CPU stacks, owned as
// folded import owns them (io/folded.h: a root fscost names, else "other").
// A sample's stack is built no deeper than kMaxStackDepth (its K location
// ids × L inlined lines each are never expanded past it), counted in
// drops["stack_depth_truncated"]. Never throws.
Result<Profile> import_pprof(std::string_view data, const ImportOptions& opt);

}  // namespace fscost::pprof

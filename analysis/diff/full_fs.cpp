// A filesystem that ran out of room measures its ENOSPC handling, not the
// configuration: XFS retries a create or a buffered write that found no
// free space after flushing delalloc data (xfs_flush_inodes) or freeing
// speculative preallocations (xfs_blockgc_free_space), and the op sleeps
// there for hundreds of milliseconds while holding the parent directory
// (docs/CASES.md §2.0). full_fs_warnings (internal.h) names the runs that
// did, and the runs that ended with less than 20% free space.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "diff/internal.h"
#include "model/frame_match.h"

namespace fscost {

namespace {

constexpr double kMinFreeShare = 0.20;

// The ENOSPC retry paths of xfs_create, xfs_file_buffered_write and
// xfs_trans_alloc_*: where a frame says the filesystem was full.
constexpr std::string_view kEnospcFrames[] = {"xfs_flush_inodes", "xfs_blockgc_free_space",
                                              "xfs_blockgc_free_quota", "xfs_blockgc_flush_all"};

// xfs_flush_inodes is small and static: the compiler inlines it into
// xfs_create and xfs_file_buffered_write, whose stacks then show the XFS
// caller calling __flush_work directly. No other XFS function flushes one
// work item from an operation (the log and inodegc flush whole
// workqueues), so that pair is the ENOSPC flush too.
constexpr std::string_view kFlushWork[] = {"__flush_work", "flush_work", "flush_delayed_work"};

// What each interned frame is, asked once per frame (a profile has
// millions of frames in its stacks and thousands of distinct ones).
class FrameKinds {
 public:
  static constexpr std::int8_t kOther = -1, kXfs = -2, kFlush = -3, kUnknown = -4;

  // An index into kEnospcFrames, or one of the k* above.
  std::int8_t of(const Frame& f) {
    if (f.id() >= kind_.size()) kind_.resize(Frame::pool_size(), kUnknown);
    std::int8_t& k = kind_[f.id()];
    if (k == kUnknown) k = classify(f.str());
    return k;
  }

 private:
  static std::int8_t classify(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kEnospcFrames); ++i)
      if (frame_matches(name, kEnospcFrames[i])) return static_cast<std::int8_t>(i);
    if (frame_matches_any(name, kFlushWork)) return kFlush;
    if (frame_matches(name, "xfs_*")) return kXfs;
    return kOther;
  }
  std::vector<std::int8_t> kind_;
};

std::string_view enospc_frame_of(const Stack& frames, FrameKinds& kinds) {
  std::int8_t prev = FrameKinds::kOther;
  for (const Frame& f : frames) {
    std::int8_t k = kinds.of(f);
    if (k >= 0) return kEnospcFrames[static_cast<std::size_t>(k)];
    if (k == FrameKinds::kFlush && prev == FrameKinds::kXfs) return "xfs_flush_inodes";
    prev = k;
  }
  return {};
}

// The same, asked once per distinct stack (the runs repeat their stacks).
class EnospcFrames {
 public:
  std::string_view of(const InternedStack& stack) {
    std::optional<std::string_view>& f = known_[stack];
    if (!f) f = enospc_frame_of(stack, kinds_);
    return *f;
  }

 private:
  FrameKinds kinds_;
  StackMemo<std::optional<std::string_view>> known_;
};

struct Hit {
  std::size_t runs = 0;          // runs with an op in an ENOSPC retry path
  double offcpu_ns = 0;          // summed over those runs, off CPU in it
  std::map<std::string, std::uint64_t> ops;  // op → stacks seen there
  std::string frame;             // the first retry frame seen
};

Hit enospc_hits(const RunSet& s) {
  Hit h;
  EnospcFrames enospc;
  for (const Profile& p : s.runs) {
    bool hit = false;
    for (const auto& o : p.offcpu) {
      if (o.kind != SampleKind::Op) continue;
      if (auto f = enospc.of(o.frames); !f.empty()) {
        hit = true;
        h.offcpu_ns += static_cast<double>(o.total_ns);
        h.ops[o.name] += o.count;
        if (h.frame.empty()) h.frame = f;
      }
    }
    for (const auto& smp : p.samples) {
      if (smp.kind != SampleKind::Op) continue;
      if (auto f = enospc.of(smp.frames); !f.empty()) {
        hit = true;
        h.ops[smp.name] += smp.count;
        if (h.frame.empty()) h.frame = f;
      }
    }
    h.runs += hit;
  }
  return h;
}

// Data a run left dirty: what a syncfs after its recording still wrote to
// the test device (compare measures it before unmounting). Writeback and
// log pushes outside the recording are in no figure of the run.
constexpr double kDirtyMinBytes = 1 << 20, kDirtyShare = 0.05;

void dirty_at_end(const RunSet& s, const std::string& label, std::vector<Warning>& out);

}  // namespace

std::optional<double> setup_number(const Profile& p, const char* key) {
  auto it = p.setup.find(key);
  if (it == p.setup.end()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end) return std::nullopt;
  return v;
}

namespace {

void dirty_at_end(const RunSet& s, const std::string& label, std::vector<Warning>& out) {
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const Profile& p = s.runs[i];
    auto after = setup_number(p, "written_after_bytes");
    if (!after) continue;
    double during = 0;
    if (auto dev = p.setup.find("device"); dev != p.setup.end())
      if (auto w = p.device_write_bytes.find(dev->second); w != p.device_write_bytes.end())
        during = static_cast<double>(w->second);
    if (*after > std::max(kDirtyMinBytes, kDirtyShare * during))
      runs.push_back(fmt::format("{} {:.1f} MiB", run_file(s, i), *after / 1048576));
  }
  if (!runs.empty())
    out.push_back({WarningKind::Dirty,
                   fmt::format("{}: {} of {} runs left dirty data behind ({}, written by a "
                               "syncfs after the recording): that writeback is in no figure of "
                               "the run (end the workload with a sync of its filesystem)",
                               label, runs.size(), s.runs.size(), fmt::join(runs, ", "))});
}

}  // namespace

void full_fs_warnings(const RunSet& s, const std::string& label, std::vector<Warning>& out) {
  if (Hit h = enospc_hits(s); h.runs > 0) {
    std::string ops;
    for (const auto& [op, n] : h.ops) ops += (ops.empty() ? "" : ", ") + op;
    out.push_back(
        {WarningKind::Enospc,
         fmt::format("{}: {} of {} runs ran out of free space: {} entered XFS's ENOSPC retry "
                     "({}){}; those runs measure the flush, not the configuration (give a "
                     "larger --size, or fewer or smaller files)",
                     label, h.runs, s.runs.size(), ops, h.frame,
                     h.offcpu_ns > 0 ? fmt::format(", {:.0f} ms off CPU there per run",
                                                   h.offcpu_ns / 1e6 /
                                                       static_cast<double>(h.runs))
                                     : "")});
  }
  dirty_at_end(s, label, out);
  std::size_t low = 0;
  double least = 1;
  for (const Profile& p : s.runs) {
    auto size = setup_number(p, "fs_size_bytes"), free = setup_number(p, "fs_free_bytes_at_end");
    if (!size || !free || !(*size > 0)) continue;
    double share = *free / *size;
    if (share < kMinFreeShare) ++low, least = std::min(least, share);
  }
  if (low > 0)
    out.push_back({WarningKind::LowSpace,
                   fmt::format("{}: {} of {} runs ended with less than {:.0f}% of the "
                               "filesystem free (least {:.0f}%): near ENOSPC, XFS trims "
                               "preallocation and flushes early",
                               label, low, s.runs.size(), 100 * kMinFreeShare, 100 * least)});
}

}  // namespace fscost

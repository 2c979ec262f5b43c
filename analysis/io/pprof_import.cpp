// A profile.proto back into a Profile (io/pprof.h).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "io/depth_cut.h"
#include "io/folded.h"
#include "io/pprof.h"
#include "io/pprof_parts.h"
#include "model/operations.h"
#include "model/wait_class.h"
#include "pprof_proto/profile.pb.h"

namespace fscost::pprof {

namespace {

namespace pb = perftools::profiles;

// The string table, index-checked: a profile from elsewhere may point past it.
class Strings {
 public:
  explicit Strings(const pb::Profile& p) : p_(p) {}
  bool valid(std::int64_t i) const { return i >= 0 && i < p_.string_table_size(); }
  const std::string& at(std::int64_t i) const {
    static const std::string none;
    return valid(i) ? p_.string_table(static_cast<int>(i)) : none;
  }

 private:
  const pb::Profile& p_;
};

struct Labels {
  std::map<std::string, std::string> str;
  std::map<std::string, std::int64_t> num;
  std::string get(std::string_view key) const {
    auto it = str.find(std::string(key));
    return it == str.end() ? std::string() : it->second;
  }
  std::uint64_t number(std::string_view key) const {
    auto it = num.find(std::string(key));
    return it == num.end() || it->second < 0 ? 0 : static_cast<std::uint64_t>(it->second);
  }
};

// The frames the samples' stacks may hold in all (ImportOptions::max_frames).
struct FrameBudget {
  std::uint64_t limit;
  std::uint64_t kept = 0;       // frames of the samples taken
  std::uint64_t depth_cut = 0;  // stacks cut at kMaxStackDepth
  std::uint64_t capped = 0;     // samples left out: past `limit`
  // Cuts `stack` to the depth limit; then whether it fits. Counts it either way.
  bool take(Stack& stack) {
    bool cut = cut_depth(stack);
    if (stack.size() > limit - std::min(kept, limit)) return ++capped, false;
    kept += stack.size();
    depth_cut += cut;
    return true;
  }
};

using OnCpu = std::map<std::tuple<SampleKind, std::string, Stack>, std::uint64_t>;

// Location id -> its frames, outermost first.
using Locations = std::unordered_map<std::uint64_t, Stack>;

// Every location's frames. A location's lines are its inlined functions,
// the caller last (profile.proto), so they are reversed. Interned: a name
// is held once however many lines repeat it.
Result<Locations> locations(const pb::Profile& in, const Strings& s) {
  std::unordered_map<std::uint64_t, Frame> functions;
  for (const auto& f : in.function()) {
    if (!s.valid(f.name())) return Error{fmt::format("function {} has no name", f.id()), ""};
    functions[f.id()] = Frame(s.at(f.name()));
  }
  Locations out;
  for (const auto& l : in.location()) {
    auto& frames = out[l.id()];
    for (int i = l.line_size() - 1; i >= 0; --i) {
      auto it = functions.find(l.line(i).function_id());
      if (it == functions.end())
        return Error{fmt::format("location {} names function {}, which is not in the profile",
                                 l.id(), l.line(i).function_id()),
                     ""};
      frames.push_back(it->second);
    }
    // Not symbolized: the address, as perf prints an unknown frame; a
    // kernel one (top bit set) is "[unknown]", as fscost's own stacks name
    // it, since it would give away that kernel's KASLR offset in reports.
    if (frames.empty())
      frames.emplace_back((l.address() >> 63) != 0 ? std::string("[unknown]")
                                                   : fmt::format("0x{:x}", l.address()));
  }
  return out;
}

// The measure each sample-type index holds, by fscost's names.
std::vector<std::optional<Measure>> measures(const pb::Profile& in, const Strings& s) {
  std::vector<std::optional<Measure>> out;
  for (const auto& t : in.sample_type()) {
    std::optional<Measure> m;
    for (std::size_t i = 0; i < kMeasures; ++i)
      if (s.at(t.type()) == kSampleTypes[i].type && s.at(t.unit()) == kSampleTypes[i].unit)
        m = static_cast<Measure>(i);
    out.push_back(m);
  }
  return out;
}

// Drops the owner's root frame, and the view's decoration ("[class]", the
// lock's name) after it, as report/pprof.cpp wrote them.
Stack strip(Stack frames, std::size_t from, std::string_view decoration) {
  if (from < frames.size() && !decoration.empty() && frames[from] == decoration) ++from;
  if (from > frames.size()) from = frames.size();
  frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(from));
  return frames;
}

// A sample's stack, root first, built no deeper than kReadDepth
// (io/depth_cut.h): its K location ids of L inlined lines each are K × L
// frames uncut, and a few KB of gzip hold K = L = 10,000. Every id is
// still looked up, so an unknown one is an error wherever it is.
Result<Stack> sample_stack(const pb::Sample& smp, const Locations& locs) {
  Stack frames;
  for (int i = smp.location_id_size() - 1; i >= 0; --i) {
    auto it = locs.find(smp.location_id(i));
    if (it == locs.end())
      return Error{fmt::format("a sample names location {}, which is not in the profile",
                               smp.location_id(i)),
                   ""};
    for (auto f = it->second.begin(); f != it->second.end() && frames.size() < kReadDepth; ++f)
      frames.push_back(*f);
  }
  return frames;
}

void add_saturating(std::uint64_t& sum, std::uint64_t v) {
  sum = sum > std::numeric_limits<std::uint64_t>::max() - v ? std::numeric_limits<std::uint64_t>::max()
                                                            : sum + v;
}

// Another tool's sample, owned as folded import owns a stack (io/folded.h):
// a root fscost names gives the owner and is dropped, any other is "other".
void add_foreign(OnCpu& oncpu, Stack frames, std::uint64_t count) {
  SampleKind kind = SampleKind::Op;
  std::string name(op_name(Op::Other));
  if (auto owner = frames.empty() ? std::nullopt : owner_from_root(frames.front().str())) {
    kind = owner->first;
    name = std::move(owner->second);
    frames.erase(frames.begin());
  }
  add_saturating(oncpu[{kind, std::move(name), std::move(frames)}], count);
}

std::string type_list(const pb::Profile& in, const Strings& s) {
  std::vector<std::string> names;
  for (const auto& t : in.sample_type()) names.push_back(s.at(t.type()));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

Result<Profile> import_pprof(std::string_view data, const ImportOptions& opt) {
  auto fail = [&](const std::string& why, std::string hint = {}) -> Result<Profile> {
    return Error{fmt::format("{}: {}", opt.origin, why), std::move(hint)};
  };
  auto raw = gunzip(data, opt.max_bytes);
  if (!raw) return fail(raw.error().message);
  constexpr const char* kNotPprof = "a pprof file is a gzipped perftools.profiles.Profile";
  auto cost = parse_cost(raw.value());
  if (!cost) return fail("not a pprof profile.proto", kNotPprof);
  if (*cost > opt.max_parse_bytes)
    return fail(fmt::format("its {} bytes would take about {} MiB of memory to parse, more "
                            "than the limit of {} MiB",
                            raw.value().size(), *cost >> 20, opt.max_parse_bytes >> 20),
                "no profiler writes a profile of this shape (millions of tiny samples or "
                "ids); if it is real, import it in parts (pprof -focus, -tagfocus)");
  pb::Profile in;
  if (raw.value().size() > INT32_MAX || !in.ParseFromString(raw.value()))
    return fail("not a pprof profile.proto", kNotPprof);
  if (in.string_table_size() == 0 || !in.string_table(0).empty())
    return fail("not a pprof profile.proto: its string table must start with \"\"");
  Strings s(in);
  for (const auto& t : in.sample_type())
    if (!s.valid(t.type()) || !s.valid(t.unit()))
      return fail("a sample type's name is not in the string table");
  auto locs = locations(in, s);
  if (!locs) return fail(locs.error().message);

  Profile p;
  p.meta.fscost_version = FSCOST_VERSION;
  p.meta.target = "pprof";
  p.meta.command = opt.origin;
  bool ours = false;
  for (auto c : in.comment()) {
    if (!s.valid(c) || !is_metadata_comment(s.at(c))) continue;
    ours = true;
    if (auto st = apply_metadata_comment(s.at(c), p); !st) return fail(st.error().message);
  }
  auto by_index = measures(in, s);
  std::optional<std::size_t> foreign_index;  // the on-CPU samples of another tool's profile
  if (!ours) {
    // --sample-type; else "samples"; else the default type; else the last (pprof's).
    auto find = [&](auto&& pred) -> std::optional<std::size_t> {
      for (std::size_t i = 0; i < by_index.size(); ++i)
        if (pred(in.sample_type(static_cast<int>(i)), i)) return i;
      return std::nullopt;
    };
    if (opt.sample_type) {
      foreign_index = find([&](const pb::ValueType& t, std::size_t) { return s.at(t.type()) == *opt.sample_type; });
    } else {
      foreign_index = find([&](const pb::ValueType&, std::size_t i) { return by_index[i] == kSamples; });
      if (!foreign_index && in.default_sample_type() != 0)
        foreign_index = find([&](const pb::ValueType& t, std::size_t) { return t.type() == in.default_sample_type(); });
      if (!foreign_index && !by_index.empty()) foreign_index = by_index.size() - 1;
    }
    if (!foreign_index)
      return fail(opt.sample_type ? fmt::format("no sample type '{}'", *opt.sample_type)
                                  : "no sample types",
                  fmt::format("its sample types: {}; pick one with --sample-type",
                              type_list(in, s)));
  }

  OnCpu oncpu;  // ours: samples by owner and stack; another tool's: as folded import owns them
  FrameBudget budget{opt.max_frames};
  std::uint64_t negative = 0;
  for (int index = 0; index < in.sample_size(); ++index) {
    const auto& smp = in.sample(index);
    auto stack = sample_stack(smp, locs.value());
    if (!stack) return fail(stack.error().message);
    if (smp.value_size() != in.sample_type_size())
      return fail(fmt::format("a sample has {} values for {} sample types", smp.value_size(),
                              in.sample_type_size()));
    if (!budget.take(stack.value())) continue;
    Stack frames = std::move(stack).value();
    auto value = [&](std::size_t i) -> std::uint64_t {
      std::int64_t v = smp.value(static_cast<int>(i));
      negative += v < 0;
      return v < 0 ? 0 : static_cast<std::uint64_t>(v);
    };
    if (!ours) {
      if (auto v = value(*foreign_index); v > 0) add_foreign(oncpu, std::move(frames), v);
      continue;
    }
    Labels l;
    for (const auto& lab : smp.label()) {
      if (lab.str() != 0)
        l.str[s.at(lab.key())] = s.at(lab.str());
      else
        l.num[s.at(lab.key())] = lab.num();
    }
    SampleKind kind = SampleKind::Op;
    if (!parse_sample_kind(l.get(label::kKind), kind))
      return fail(fmt::format("a sample's kind '{}' is not op, user, kernel or kthread",
                              l.get(label::kKind)));
    std::string name = kind == SampleKind::Op        ? l.get(label::kOp)
                       : kind == SampleKind::Kthread ? l.get(label::kThread)
                                                     : std::string();
    std::size_t root = 0;
    if (auto owner = frames.empty() ? std::nullopt : owner_from_root(frames.front().str());
        owner && owner->first == kind && owner->second == name)
      root = 1;
    std::uint64_t v[kMeasures] = {};
    for (std::size_t i = 0; i < by_index.size(); ++i)
      if (by_index[i]) v[*by_index[i]] = value(i);
    if (v[kSamples] > 0) add_saturating(oncpu[{kind, name, strip(frames, root, "")}], v[kSamples]);
    // As the profile file holds them (io/profile_io_extra.cpp): off-CPU time
    // and lock waits belong to an operation, a kernel thread or the kernel,
    // and off-CPU time has one of the wait classes.
    if ((v[kOffCpu] > 0 || v[kLockWait] > 0) && kind == SampleKind::User)
      return fail(fmt::format("sample {}: off-CPU or lock time of kind 'user' (expected op, "
                              "kthread or kernel)",
                              index));
    if (v[kOffCpu] > 0 && !is_wait_class(l.get(label::kWaitClass)))
      return fail(fmt::format("sample {}: unknown wait class '{}' (expected lock, io, "
                              "log-reserve, log-force, runqueue or sleep)",
                              index, l.get(label::kWaitClass)));
    if (v[kOffCpu] > 0) {
      OffCpuStack o;
      o.kind = kind;
      o.name = name;
      o.wait_class = l.get(label::kWaitClass);
      o.frames = strip(frames, root, "[" + o.wait_class + "]");
      o.waker = l.get(label::kWaker);
      o.waker_work = l.get(label::kWakerWork);
      o.waker_last_work = l.get(label::kWakerLastWork);
      o.waker_workqueue = l.get(label::kWakerWorkqueue);
      o.count = v[kOffCpuIntervals];
      o.total_ns = v[kOffCpu];
      p.offcpu.push_back(std::move(o));
    }
    if (v[kLockWait] > 0) {
      LockStat k;
      k.kind = kind;
      k.name = name;
      k.symbol = l.get(label::kLock);
      k.flags = static_cast<std::uint32_t>(l.number(label::kLockFlags));
      k.frames = strip(frames, root, k.symbol);
      k.count = v[kContentions];
      k.total_ns = v[kLockWait];
      k.max_ns = l.number(label::kLockMaxNs);
      k.spin_ns = v[kLockSpin];
      k.sleep_ns = v[kLockSleep];
      p.locks.push_back(std::move(k));
    }
  }
  std::uint64_t kept = 0;
  for (auto& [key, count] : oncpu) {
    auto& [kind, name, frames] = key;
    p.samples.push_back({kind, name, frames, count});
    add_saturating(kept, count);
  }
  // Ours: idle and untracked samples are in samples_total only (a comment).
  p.samples_total = ours ? std::max(p.samples_total, kept) : kept;
  p.drops["pprof_negative_values"] = negative;
  if (budget.depth_cut) p.drops["stack_depth_truncated"] += budget.depth_cut;
  if (budget.capped) p.drops["pprof_frames_capped"] = budget.capped;
  if (p.meta.duration_ns == 0 && in.duration_nanos() > 0)
    p.meta.duration_ns = static_cast<std::uint64_t>(in.duration_nanos());
  if (p.meta.start_unix_ns == 0) p.meta.start_unix_ns = in.time_nanos();
  return p;
}

}  // namespace fscost::pprof

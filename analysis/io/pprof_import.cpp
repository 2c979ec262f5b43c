// A profile.proto back into a Profile (io/pprof.h).
#include <fmt/format.h>

#include <map>
#include <tuple>
#include <unordered_map>

#include "io/folded.h"
#include "io/pprof.h"
#include "io/pprof_parts.h"
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

// Every location's frames, outermost first. A location's lines are its
// inlined functions, the caller last (profile.proto), so they are reversed.
Result<std::unordered_map<std::uint64_t, std::vector<std::string>>> locations(
    const pb::Profile& in, const Strings& s) {
  std::unordered_map<std::uint64_t, std::string> functions;
  for (const auto& f : in.function()) {
    if (!s.valid(f.name())) return Error{fmt::format("function {} has no name", f.id()), ""};
    functions[f.id()] = s.at(f.name());
  }
  std::unordered_map<std::uint64_t, std::vector<std::string>> out;
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
    // Not symbolized: the address, as perf prints an unknown frame.
    if (frames.empty()) frames.push_back(fmt::format("0x{:x}", l.address()));
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
Stack strip(std::vector<std::string> frames, std::size_t from, std::string_view decoration) {
  if (from < frames.size() && !decoration.empty() && frames[from] == decoration) ++from;
  if (from > frames.size()) from = frames.size();
  frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(from));
  return to_frames(frames);
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
  pb::Profile in;
  if (raw.value().size() > INT32_MAX || !in.ParseFromString(raw.value()))
    return fail("not a pprof profile.proto", "a pprof file is a gzipped perftools.profiles.Profile");
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

  FoldedStacks foreign;
  std::map<std::tuple<SampleKind, std::string, Stack>, std::uint64_t> oncpu;
  std::uint64_t negative = 0;
  for (int index = 0; index < in.sample_size(); ++index) {
    const auto& smp = in.sample(index);
    std::vector<std::string> frames;
    for (int i = smp.location_id_size() - 1; i >= 0; --i) {
      auto it = locs.value().find(smp.location_id(i));
      if (it == locs.value().end())
        return fail(fmt::format("a sample names location {}, which is not in the profile",
                                smp.location_id(i)));
      frames.insert(frames.end(), it->second.begin(), it->second.end());
    }
    if (smp.value_size() != in.sample_type_size())
      return fail(fmt::format("a sample has {} values for {} sample types", smp.value_size(),
                              in.sample_type_size()));
    auto value = [&](std::size_t i) -> std::uint64_t {
      std::int64_t v = smp.value(static_cast<int>(i));
      negative += v < 0;
      return v < 0 ? 0 : static_cast<std::uint64_t>(v);
    };
    if (!ours) {
      if (auto v = value(*foreign_index); v > 0)
        foreign.stacks.push_back({std::move(frames), static_cast<double>(v), std::nullopt, v, std::nullopt});
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
    if (auto owner = frames.empty() ? std::nullopt : owner_from_root(frames.front());
        owner && owner->first == kind && owner->second == name)
      root = 1;
    std::uint64_t v[kMeasures] = {};
    for (std::size_t i = 0; i < by_index.size(); ++i)
      if (by_index[i]) v[*by_index[i]] = value(i);
    if (v[kSamples] > 0) oncpu[{kind, name, strip(frames, root, "")}] += v[kSamples];
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
  if (!ours) {
    FoldedImportOptions fo;
    fo.origin = opt.origin;
    Profile f = profile_from_folded(foreign, fo);
    p.samples = std::move(f.samples);
    p.samples_total = f.samples_total;
    p.drops = std::move(f.drops);
  } else {
    for (auto& [key, count] : oncpu) {
      auto& [kind, name, frames] = key;
      p.samples.push_back({kind, name, frames, count});
    }
    // Idle and untracked samples are in samples_total only (a comment).
    std::uint64_t kept = 0;
    for (const auto& smp : p.samples) kept += smp.count;
    p.samples_total = std::max(p.samples_total, kept);
  }
  p.drops["pprof_negative_values"] = negative;
  if (p.meta.duration_ns == 0 && in.duration_nanos() > 0)
    p.meta.duration_ns = static_cast<std::uint64_t>(in.duration_nanos());
  if (p.meta.start_unix_ns == 0) p.meta.start_unix_ns = in.time_nanos();
  return p;
}

}  // namespace fscost::pprof

#include "profile_builder.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "kallsyms.h"
#include "operations.h"

namespace fscost {
namespace {

std::vector<OpStats> convert_ops(const std::vector<fscost_op_stats>& raw) {
  std::vector<OpStats> ops;
  for (std::size_t i = 1; i < static_cast<std::size_t>(Op::Count_) && i < raw.size(); ++i) {
    const auto& r = raw[i];
    if (!r.count) continue;
    OpStats s;
    s.name = std::string(op_name(static_cast<Op>(i)));
    s.count = r.count;
    s.errors = r.errors;
    s.wall_ns = r.wall_ns;
    s.oncpu_ns = r.oncpu_ns;
    s.latency_log2.assign(std::begin(r.lat), std::end(r.lat));
    ops.push_back(std::move(s));
  }
  return ops;
}

SampleKind kind_of(std::uint32_t k) {
  switch (k) {
    case FSCOST_SK_USER: return SampleKind::User;
    case FSCOST_SK_KERNEL: return SampleKind::Kernel;
    case FSCOST_SK_KTHREAD: return SampleKind::Kthread;
    default: return SampleKind::Op;
  }
}

std::string name_of(const fscost_sample_key& key) {
  switch (key.kind) {
    case FSCOST_SK_OP:
      return key.op < static_cast<std::uint32_t>(Op::Count_)
                 ? std::string(op_name(static_cast<Op>(key.op)))
                 : "other";
    case FSCOST_SK_KTHREAD:
      return std::string(key.name, strnlen(key.name, sizeof(key.name)));
    default:
      return {};
  }
}

// Outermost caller first. A kernel-mode sample whose stack was lost keeps
// its count under a visible "[lost stack]" frame instead of vanishing.
std::vector<std::string> frames_of(const RawSample& s, const Kallsyms& ksyms) {
  std::vector<std::string> frames;
  if (s.key.kind == FSCOST_SK_USER) return frames;
  if (s.kstack.empty()) return {"[lost stack]"};
  for (auto it = s.kstack.rbegin(); it != s.kstack.rend(); ++it) frames.push_back(ksyms.format(*it));
  return frames;
}

std::vector<StackSample> convert_samples(const std::vector<RawSample>& raw, const Kallsyms& ksyms) {
  // Different addresses in one function fold into one stack here.
  using Key = std::tuple<int, std::string, std::vector<std::string>>;
  std::map<Key, std::uint64_t> merged;
  for (const auto& s : raw)
    merged[{static_cast<int>(s.key.kind), name_of(s.key), frames_of(s, ksyms)}] += s.count;
  std::vector<StackSample> out;
  out.reserve(merged.size());
  for (auto& [k, count] : merged)
    out.push_back(StackSample{kind_of(std::get<0>(k)), std::get<1>(k), std::get<2>(k), count});
  return out;
}

std::map<std::string, std::uint64_t> convert_drops(const RawData& raw) {
  return {
      {"stack_map_full", raw.drops[FSCOST_DROP_STACK_FULL]},
      {"stack_other_errors", raw.drops[FSCOST_DROP_STACK_OTHER] + raw.stack_lookups_failed},
      {"sample_map_full", raw.drops[FSCOST_DROP_SAMPLE_MAP_FULL]},
      {"task_map_full", raw.drops[FSCOST_DROP_TASK_MAP_FULL]},
      {"tracked_map_full", raw.drops[FSCOST_DROP_TRACKED_MAP_FULL]},
      {"prog_missed", raw.prog_missed},
  };
}

}  // namespace

Profile build_profile(const RawData& raw, const Kallsyms& ksyms, Metadata meta, Rusage rusage) {
  Profile p;
  p.meta = std::move(meta);
  p.rusage = rusage;
  p.ops = convert_ops(raw.ops);
  p.samples = convert_samples(raw.samples, ksyms);
  p.samples_total = raw.samples_total;
  p.drops = convert_drops(raw);
  return p;
}

}  // namespace fscost

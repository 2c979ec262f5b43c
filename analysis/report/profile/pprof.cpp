// pprof's profile.proto from a profile (report/pprof.h).
#include "report/pprof.h"

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/pprof.h"
#include "model/escape.h"
#include "pprof_proto/profile.pb.h"
#include "views/lock_names.h"
#include "views/stacks.h"

namespace fscost {

namespace {

namespace pb = perftools::profiles;
using pprof::Measure;

using Values = std::array<std::int64_t, pprof::kMeasures>;

// The proto under construction, each string and frame added once.
class Builder {
 public:
  Builder() {
    str("");  // string_table[0] is "" (profile.proto)
    // One mapping, the kernel, already symbolized: pprof then neither looks
    // for a binary nor says "Main binary filename not available".
    pb::Mapping* m = out_.add_mapping();
    m->set_id(1);
    m->set_filename(str("[kernel.kallsyms]"));
    m->set_has_functions(true);
  }

  // profile.proto's strings are proto3 strings: valid UTF-8, or protobuf
  // logs an error and readers may refuse the file. Invalid bytes become
  // U+FFFD, as in the profile file (io/profile_io.h).
  std::int64_t str(std::string_view s) {
    auto [it, added] = strings_.try_emplace(valid_text(s), out_.string_table_size());
    if (added) out_.add_string_table(it->first);
    return it->second;
  }

  static std::string valid_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
      std::size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : valid_utf8(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD
        ++i;
      } else {
        out.append(s, i, n);
        i += n;
      }
    }
    return out;
  }

  // A frame's location id; one function and one location per frame text.
  std::uint64_t location(const Frame& f) {
    auto [it, added] = locations_.try_emplace(f.id(), locations_.size() + 1);
    if (added) {
      pb::Function* fn = out_.add_function();
      fn->set_id(it->second);
      fn->set_name(str(f.str()));
      fn->set_system_name(fn->name());
      pb::Location* loc = out_.add_location();
      loc->set_id(it->second);
      loc->set_mapping_id(1);
      loc->add_line()->set_function_id(it->second);
    }
    return it->second;
  }

  struct Sample {
    Stack frames;  // root first, as views/stacks.h builds them
    Values values{};
    std::vector<std::pair<std::string_view, std::string>> labels;
    std::vector<std::pair<std::string_view, std::int64_t>> numbers;
  };

  void add(const Sample& s) {
    pb::Sample* out = out_.add_sample();
    for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it)  // leaf first
      out->add_location_id(location(*it));
    for (auto v : s.values) out->add_value(v);
    for (const auto& [key, value] : s.labels) {
      if (value.empty()) continue;
      pb::Label* l = out->add_label();
      l->set_key(str(key));
      l->set_str(str(value));
    }
    for (const auto& [key, value] : s.numbers) {
      pb::Label* l = out->add_label();
      l->set_key(str(key));
      l->set_num(value);
      if (key == pprof::label::kLockMaxNs) l->set_num_unit(str("nanoseconds"));
    }
  }

  pb::Profile& proto() { return out_; }

 private:
  pb::Profile out_;
  std::unordered_map<std::string, std::int64_t> strings_;
  std::unordered_map<std::uint32_t, std::uint64_t> locations_;  // frame id → location id
};

std::int64_t clamp(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v);
}

bool wanted(SampleKind kind, const std::string& name, const std::optional<std::string>& op) {
  return !op || (kind == SampleKind::Op && name == *op);
}

// The owner's labels: kind, and the op or the kernel thread's bucket.
Builder::Sample owned(SampleKind kind, const std::string& name, FoldedFrames& ff) {
  Builder::Sample s;
  s.frames.push_back(ff.root(kind, name));
  s.labels.emplace_back(pprof::label::kKind, to_string(kind));
  if (kind == SampleKind::Op) s.labels.emplace_back(pprof::label::kOp, name);
  if (kind == SampleKind::Kthread) s.labels.emplace_back(pprof::label::kThread, name);
  return s;
}

void frames(Builder::Sample& s, const Stack& fs, FoldedFrames& ff) {
  for (const auto& f : fs) s.frames.push_back(ff.frame(f));
}

}  // namespace

Result<std::string> to_pprof(const Profile& p, const std::optional<std::string>& op) {
  Builder b;
  pb::Profile& out = b.proto();
  for (const auto& t : pprof::kSampleTypes) {
    pb::ValueType* vt = out.add_sample_type();
    vt->set_type(b.str(t.type));
    vt->set_unit(b.str(t.unit));
  }
  const std::uint64_t period = p.meta.freq_hz ? 1'000'000'000ull / p.meta.freq_hz : 0;
  out.set_default_sample_type(b.str(period ? "cpu" : "samples"));
  out.mutable_period_type()->set_type(b.str("cpu"));
  out.mutable_period_type()->set_unit(b.str("nanoseconds"));
  out.set_period(clamp(period));
  out.set_time_nanos(p.meta.start_unix_ns);
  out.set_duration_nanos(clamp(p.meta.duration_ns));
  for (const auto& c : pprof::metadata_comments(p)) out.add_comment(b.str(c));

  FoldedFrames ff;
  for (const auto& smp : p.samples) {
    if (smp.count == 0 || !wanted(smp.kind, smp.name, op)) continue;
    auto s = owned(smp.kind, smp.name, ff);
    frames(s, smp.frames, ff);
    s.values[pprof::kSamples] = clamp(smp.count);
    s.values[pprof::kCpu] = clamp(smp.count * period);
    b.add(s);
  }
  for (const auto& o : p.offcpu) {
    if (o.total_ns == 0 || !wanted(o.kind, o.name, op)) continue;
    auto s = owned(o.kind, o.name, ff);
    s.frames.emplace_back(folded_frame("[" + o.wait_class + "]"));
    frames(s, o.frames, ff);
    s.values[pprof::kOffCpu] = clamp(o.total_ns);
    s.values[pprof::kOffCpuIntervals] = clamp(o.count);
    s.labels.emplace_back(pprof::label::kWaitClass, o.wait_class);
    s.labels.emplace_back(pprof::label::kWaker, o.waker);
    s.labels.emplace_back(pprof::label::kWakerWork, o.waker_work);
    s.labels.emplace_back(pprof::label::kWakerLastWork, o.waker_last_work);
    s.labels.emplace_back(pprof::label::kWakerWorkqueue, o.waker_workqueue);
    b.add(s);
  }
  for (const auto& l : p.locks) {
    if (l.total_ns == 0 || !wanted(l.kind, l.name, op)) continue;
    auto s = owned(l.kind, l.name, ff);
    std::string name = lock_name(l);
    s.frames.emplace_back(folded_frame(name));
    frames(s, l.frames, ff);
    s.values[pprof::kLockWait] = clamp(l.total_ns);
    s.values[pprof::kContentions] = clamp(l.count);
    s.values[pprof::kLockSpin] = clamp(l.spin_ns);
    s.values[pprof::kLockSleep] = clamp(l.sleep_ns);
    s.labels.emplace_back(pprof::label::kLock, folded_frame(name));
    s.labels.emplace_back(pprof::label::kLockType, lock_type(l.flags));
    s.numbers.emplace_back(pprof::label::kLockFlags, l.flags);
    s.numbers.emplace_back(pprof::label::kLockMaxNs, clamp(l.max_ns));
    b.add(s);
  }
  std::string raw;
  if (!out.SerializeToString(&raw)) return Error{"cannot encode the pprof profile", ""};
  return pprof::gzip(raw);
}

}  // namespace fscost

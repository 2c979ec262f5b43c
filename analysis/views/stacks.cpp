#include "model/units.h"
#include "views/stacks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "views/lock_names.h"

namespace fscost {

namespace {

bool wanted(SampleKind kind, const std::string& name, std::uint64_t value,
            const StackFilter& filter) {
  if (value == 0) return false;
  if (filter.ops_only && kind != SampleKind::Op) return false;
  if (filter.kthreads_only && kind != SampleKind::Kthread) return false;
  return !filter.op || (kind == SampleKind::Op && name == *filter.op);
}

// One record's stack, built in a buffer reused across records.
class Builder {
 public:
  explicit Builder(FoldedFrames& ff) : ff_(ff) {}
  void start(SampleKind kind, const std::string& name) {
    buf_.clear();
    buf_.push_back(ff_.root(kind, name));
  }
  void text(std::string s) { buf_.emplace_back(folded_frame(std::move(s))); }
  void frames(const Stack& fs) {
    for (const auto& f : fs) buf_.push_back(ff_.frame(f));
  }
  void frames_reversed(const Stack& fs) {
    for (auto it = fs.rbegin(); it != fs.rend(); ++it) buf_.push_back(ff_.frame(*it));
  }
  std::span<const Frame> stack() const { return buf_; }

 private:
  FoldedFrames& ff_;
  Stack buf_;
};

void join(std::string& out, std::span<const Frame> frames) {
  out.clear();
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i > 0) out += ';';
    out += frames[i].str();
  }
}

}  // namespace

// ';' separates frames and '\n' ends a line, so neither may appear inside one.
std::string folded_frame(std::string s) {
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::string folded_root(SampleKind kind, const std::string& name) {
  switch (kind) {
    case SampleKind::Op:
      return folded_frame(name);
    case SampleKind::User:
      return "[user]";
    case SampleKind::Kernel:
      return "[kernel]";
    case SampleKind::Kthread:
      return folded_frame("[kthread:" + name + "]");
  }
  return "[unknown]";
}

Frame FoldedFrames::frame(const Frame& f) {
  if (f.id() >= cached_.size()) cached_.resize(Frame::pool_size(), 0);
  std::uint32_t& at = cached_[f.id()];
  if (at == 0) {
    frames_.emplace_back(folded_frame(f.str()));
    at = static_cast<std::uint32_t>(frames_.size());
  }
  return frames_[at - 1];
}

Frame FoldedFrames::root(SampleKind kind, const std::string& name) {
  auto& by_name = roots_.at(static_cast<std::size_t>(kind));
  auto it = by_name.find(name);
  if (it == by_name.end()) it = by_name.emplace(name, Frame(folded_root(kind, name))).first;
  return it->second;
}

void for_each_stack(const Profile& p, View view, const StackFilter& filter, FoldedFrames& ff,
                    const std::function<void(const StackRecord&)>& emit) {
  Builder b(ff);
  switch (view) {
    case View::OnCpu:
      for (const auto& s : p.samples) {
        if (!wanted(s.kind, s.name, s.count, filter)) continue;
        b.start(s.kind, s.name);
        b.frames(s.frames);
        emit(StackRecord{s.kind, s.name, b.stack(), s.count});
      }
      break;
    case View::OffCpu:
      // The waker follows the blocked stack after "--", leaf first and then
      // its comm, as bcc's offwaketime prints it: in a flame graph the
      // waker's stack stands upside down on the blocked leaf it woke.
      for (const auto& s : p.offcpu) {
        if (!wanted(s.kind, s.name, s.total_ns, filter)) continue;
        b.start(s.kind, s.name);
        b.text("[" + s.wait_class + "]");
        b.frames(s.frames);
        if (!s.waker.empty() || !s.waker_frames.empty()) {
          b.text("--");
          b.frames_reversed(s.waker_frames);
          b.text(s.waker.empty() ? "[unknown waker]" : s.waker);
        }
        emit(StackRecord{s.kind, s.name, b.stack(), s.total_ns});
      }
      break;
    case View::Locks: {
      // An op's waits whose holder was recorded stand the holder on the
      // waiter's stack after "--", as the off-CPU view stands the waker
      // (an off-wake graph): its blocked stack leaf first, then who it was.
      std::map<std::tuple<std::string, std::uint64_t, Stack>, std::vector<const LockHolder*>> held;
      for (const auto& h : p.lock_holders) held[{h.op, h.address, h.frames}].push_back(&h);
      for (const auto& s : p.locks) {
        if (!wanted(s.kind, s.name, s.total_ns, filter)) continue;
        std::uint64_t rest = s.total_ns;
        if (s.kind == SampleKind::Op)
          if (auto it = held.find({s.name, s.address, s.frames}); it != held.end())
            for (const LockHolder* h : it->second) {
              std::uint64_t ns = std::min(rest, h->total_ns);
              if (ns == 0) continue;
              rest -= ns;
              b.start(s.kind, s.name);
              b.text(lock_name(s));
              b.frames(s.frames);
              b.text("--");
              b.frames_reversed(h->holder_frames);
              b.text(h->holder_kind == "blocked"
                         ? fmt::format("[held by {}, blocked ({})]", h->holder, h->holder_class)
                         : fmt::format("[held by {} ({})]", h->holder, h->holder_kind));
              emit(StackRecord{s.kind, s.name, b.stack(), ns});
            }
        if (rest == 0) continue;
        b.start(s.kind, s.name);
        b.text(lock_name(s));
        b.frames(s.frames);
        emit(StackRecord{s.kind, s.name, b.stack(), rest});
      }
      break;
    }
  }
}

std::vector<ProfileStack> profile_stacks(const Profile& p, View view,
                                         const std::optional<std::string>& op) {
  // Keyed by the folded line: it sorts the stacks as `report --format
  // folded` prints them and merges those that sanitizing made equal.
  std::map<std::string, ProfileStack> lines;
  FoldedFrames ff;
  std::string key;
  for_each_stack(p, view, {op, false}, ff, [&](const StackRecord& r) {
    join(key, r.frames);
    auto [it, added] = lines.try_emplace(key);
    if (added) it->second.frames.assign(r.frames.begin(), r.frames.end());
    add_sat(it->second.value, r.value);
  });
  std::vector<ProfileStack> out;
  out.reserve(lines.size());
  for (auto& [line, s] : lines) out.push_back(std::move(s));
  return out;
}

void SkippedRoots::add(const std::string& root) {
  if (root.starts_with("[kthread:"))
    kthreads_ += why_.emplace(root, "").second;
  else if (root.starts_with('['))
    why_.emplace(root, root + " (not an operation)");
  else
    why_.emplace(root, root + " (no completed operations)");
}

std::vector<std::string> SkippedRoots::reasons() const {
  std::vector<std::string> out;
  for (const auto& [root, why] : why_)
    if (!why.empty()) out.push_back(why);
  if (kthreads_ > 0)
    out.push_back(
        fmt::format("{} kernel thread{} (not operations)", kthreads_, kthreads_ == 1 ? "" : "s"));
  return out;
}

}  // namespace fscost

// Folded stacks in and out (io/folded.h, docs/FORMATS.md).
#include "io/folded.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include "io/depth_cut.h"
#include "model/operations.h"

namespace fscost {

namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view trim_right(std::string_view s) {
  auto end = s.find_last_not_of(kBlanks);
  return end == std::string_view::npos ? std::string_view{} : s.substr(0, end + 1);
}

// The last blank-separated token of `s` (already right-trimmed) and what
// precedes it, right-trimmed; `rest` is empty when `s` is one token.
struct Split {
  std::string_view rest;
  std::string_view last;
};

Split split_last(std::string_view s) {
  auto blank = s.find_last_of(kBlanks);
  if (blank == std::string_view::npos) return {{}, s};
  return {trim_right(s.substr(0, blank)), s.substr(blank + 1)};
}

enum class Number { Ok, Negative, Invalid };

// A non-negative finite decimal ("12", "0.5", "1e3"); from_chars rejects a
// leading '+', and a partial parse ("12abc", "0x10") is invalid. Digits
// alone that fit 64 bits are also read as an integer into `exact`, since a
// double rounds integers above 2^53.
Number parse_number(std::string_view tok, double& out, std::optional<std::uint64_t>* exact = nullptr) {
  const char* end = tok.data() + tok.size();
  if (exact) *exact = std::nullopt;
  if (exact && !tok.empty() && tok.find_first_not_of("0123456789") == std::string_view::npos) {
    std::uint64_t n = 0;
    if (auto [p, e] = std::from_chars(tok.data(), end, n); e == std::errc{} && p == end) {
      *exact = n;
      out = static_cast<double>(n);
      return Number::Ok;
    }
  }
  auto [ptr, ec] = std::from_chars(tok.data(), end, out);
  if (ec != std::errc{} || ptr != end || !std::isfinite(out)) return Number::Invalid;
  if (out < 0) return Number::Negative;
  out += 0.0;  // -0 -> 0
  return Number::Ok;
}

bool looks_numeric(std::string_view tok) {
  double v;
  return parse_number(tok, v) != Number::Invalid;
}

// Root first, cut at the depth limit (io/depth_cut.h).
std::vector<std::string> split_frames(std::string_view stack, std::uint64_t& cut) {
  std::vector<std::string> frames;
  for (;;) {
    auto semi = stack.find(';');
    frames.emplace_back(stack.substr(0, semi));
    if (semi == std::string_view::npos || frames.size() == kReadDepth) break;
    stack.remove_prefix(semi + 1);
  }
  cut += cut_depth(frames);
  return frames;
}

class LineParser {
 public:
  LineParser(const std::string& origin, std::size_t line) : origin_(origin), line_(line) {}

  // One count off the end of `s`: the value, and `s` shortened to what is left.
  std::optional<Error> take_count(std::string_view& s, double& value,
                                  std::optional<std::uint64_t>& exact) const {
    auto [rest, last] = split_last(s);
    switch (parse_number(last, value, &exact)) {
      case Number::Ok:
        break;
      case Number::Negative:
        return error(fmt::format("negative count {}", last), "counts are samples or time, >= 0");
      case Number::Invalid:
        if (rest.empty()) return error("no count after the stack", kLineHint);
        return error(fmt::format("\"{}\" is not a count", last), kLineHint);
    }
    if (rest.empty()) return error("no stack before the count", kLineHint);
    s = rest;
    return std::nullopt;
  }

  Error error(const std::string& what, std::string hint) const {
    return {fmt::format("{}:{}: {}", origin_, line_, what), std::move(hint)};
  }

  static constexpr const char* kLineHint =
      "a folded line is \"frame;frame;...;leaf COUNT\" (or \"... COUNT COUNT\" for a diff), "
      "e.g. \"main;read;vfs_read 12\"";

 private:
  const std::string& origin_;
  std::size_t line_;
};

// Two columns when the first line ends in two numbers.
bool first_line_has_two(std::string_view text) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = trim_right(text.substr(0, nl));
    if (!line.empty() && line.back() == '\r') line = trim_right(line.substr(0, line.size() - 1));
    if (!line.empty()) {
      auto [rest, last] = split_last(line);
      auto [stack, before_last] = split_last(rest);
      return !stack.empty() && looks_numeric(last) && looks_numeric(before_last);
    }
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return false;
}

std::string format_value(double v, const std::optional<std::uint64_t>& exact) {
  if (exact) return fmt::format("{}", *exact);
  if (v == std::floor(v) && v < 0x1p63) return fmt::format("{}", static_cast<std::uint64_t>(v));
  return fmt::format("{}", v);
}

std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

}  // namespace

namespace {

// The lines of folded text: on_line(stack text, its counts in a FoldedStack
// whose frames are left empty) for each, or the first error.
template <typename OnLine>
std::optional<Error> each_line(std::string_view text, const std::string& origin, bool two_column,
                               OnLine&& on_line) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trim_right(line);
    if (line.empty()) continue;

    LineParser lp(origin, line_no);
    FoldedStack st;
    if (two_column) {
      double second = 0;
      if (auto e = lp.take_count(line, second, st.count2)) return e;
      if (!looks_numeric(split_last(line).last))
        return lp.error(
            "one count, but the first line has two (a two-column diff needs both on "
            "every line)",
            LineParser::kLineHint);
      st.value2 = second;
    }
    if (auto e = lp.take_count(line, st.value, st.count)) return e;
    on_line(line, std::move(st));
  }
  return std::nullopt;
}

bool two_columns(std::string_view text, FoldedColumns columns) {
  return columns == FoldedColumns::Two ||
         (columns == FoldedColumns::Detect && first_line_has_two(text));
}

}  // namespace

Result<FoldedStacks> parse_folded(std::string_view text, const std::string& origin,
                                  FoldedColumns columns) {
  FoldedStacks out;
  out.two_column = two_columns(text, columns);
  auto err = each_line(text, origin, out.two_column, [&](std::string_view line, FoldedStack st) {
    st.frames = split_frames(line, out.depth_truncated);
    out.stacks.push_back(std::move(st));
  });
  if (err) return *err;
  return out;
}

namespace {

// Frames by text within one parse: an open-addressed table in front of the
// process-wide pool (a lock and a node-based map per lookup), for lines
// that share little with the line before (random walks: 2.5M frames of
// 3000 names). The texts view the text being parsed; one slot per distinct
// frame, at most half full.
class FrameCache {
 public:
  Frame get(std::string_view text) {
    const std::size_t h = std::hash<std::string_view>{}(text);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& slot = slots_[i];
      if (slot.hash == h && slot.text.data() && slot.text == text) return slot.frame;
      if (slot.text.data()) continue;
      const Frame f(text);
      slot = {text, f, h};
      if (++used_ * 2 > slots_.size()) grow();
      return f;
    }
  }

 private:
  struct Slot {
    std::string_view text;  // data() == nullptr: empty slot
    Frame frame;
    std::size_t hash = 0;
  };
  std::size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.text.data()) continue;
      std::size_t i = s.hash & mask();
      while (slots_[i].text.data()) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  std::size_t used_ = 0;
};

}  // namespace

Result<InternedFolded> parse_folded_interned(std::string_view text, const std::string& origin,
                                             FoldedColumns columns) {
  InternedFolded out;
  out.two_column = two_columns(text, columns);
  // The previous line's frames and their text: a frame spelled as the one
  // at its depth before it (sorted folded text shares long prefixes) is
  // that frame, without hashing it into the pool again.
  std::vector<std::string_view> prev_text;
  Stack prev;
  FrameCache cache;
  auto err = each_line(text, origin, out.two_column, [&](std::string_view line, FoldedStack st) {
    InternedFoldedStack s{{}, st.value, st.value2};
    // Room for every frame at once: grown one push at a time, a stack of 40
    // was 7 allocations.
    s.frames.reserve(std::min<std::size_t>(
        static_cast<std::size_t>(std::ranges::count(line, ';')) + 1, kReadDepth));
    std::size_t d = 0;
    for (bool more = true; more && d < kReadDepth; ++d) {
      auto semi = line.find(';');
      more = semi != std::string_view::npos;
      std::string_view f = line.substr(0, semi);
      if (more) line.remove_prefix(semi + 1);
      if (d < prev.size() && prev_text[d] == f) {
        s.frames.push_back(prev[d]);
        continue;
      }
      prev.resize(d);
      prev_text.resize(d);
      prev.push_back(cache.get(f));
      prev_text.push_back(f);
      s.frames.push_back(prev.back());
    }
    out.depth_truncated += cut_depth(s.frames);
    out.stacks.push_back(std::move(s));
  });
  if (err) return *err;
  return out;
}

std::string write_folded(const FoldedStacks& stacks) {
  std::string out;
  for (const auto& s : stacks.stacks) {
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
      if (i) out += ';';
      out += s.frames[i];
    }
    out += ' ';
    out += format_value(s.value, s.count);
    if (stacks.two_column) {
      out += ' ';
      out += format_value(s.value2.value_or(0), s.value2 ? s.count2 : std::nullopt);
    }
    out += '\n';
  }
  return out;
}

std::optional<std::pair<SampleKind, std::string>> owner_from_root(std::string_view root) {
  if (op_from_name(root)) return std::pair{SampleKind::Op, std::string(root)};
  if (root == "[user]") return std::pair{SampleKind::User, std::string()};
  if (root == "[kernel]") return std::pair{SampleKind::Kernel, std::string()};
  constexpr std::string_view kKthread = "[kthread:";
  if (root.starts_with(kKthread) && root.ends_with(']') && root.size() > kKthread.size() + 1)
    return std::pair{SampleKind::Kthread,
                     std::string(root.substr(kKthread.size(), root.size() - kKthread.size() - 1))};
  return std::nullopt;
}

Profile profile_from_folded(const FoldedStacks& stacks, const FoldedImportOptions& opt) {
  using Key = std::tuple<SampleKind, std::string, std::vector<std::string>>;
  std::map<Key, std::uint64_t> merged;
  std::uint64_t rounded_to_zero = 0;
  for (const auto& s : stacks.stacks) {
    bool second = opt.column == 1 && s.value2;
    double v = second ? *s.value2 : s.value;
    std::optional<std::uint64_t> exact = second ? s.count2 : s.count;
    // Clamp: a double above 2^64 does not convert.
    auto count = exact ? *exact : static_cast<std::uint64_t>(std::min(std::round(v), 0x1p64 - 2048));
    if (count == 0) {
      ++rounded_to_zero;
      continue;
    }
    Key key{SampleKind::Op, std::string(op_name(Op::Other)), s.frames};
    if (auto owner = s.frames.empty() ? std::nullopt : owner_from_root(s.frames.front())) {
      std::get<0>(key) = owner->first;
      std::get<1>(key) = std::move(owner->second);
      std::get<2>(key).erase(std::get<2>(key).begin());
    }
    auto& sum = merged[std::move(key)];
    sum = add_saturating(sum, count);
  }
  Profile p;
  p.meta.fscost_version = FSCOST_VERSION;
  p.meta.target = "folded";
  p.meta.command = opt.origin;
  for (auto& [key, count] : merged) {
    auto& [kind, name, frames] = key;
    p.samples.push_back({kind, name, to_frames(frames), count});
    p.samples_total = add_saturating(p.samples_total, count);
  }
  p.drops["folded_rounded_to_zero"] = rounded_to_zero;
  if (stacks.depth_truncated) p.drops["stack_depth_truncated"] = stacks.depth_truncated;
  return p;
}

}  // namespace fscost

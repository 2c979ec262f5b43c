// perf script text -> Profile (io/perf_script.h, docs/FORMATS.md).
//
// Written by hand: the format is perf's printf output (tools/perf/
// builtin-script.c, util/evsel_fprintf.c), not a grammar any library parses.
#include "io/perf_script.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "io/depth_cut.h"

namespace fscost {

namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(kBlanks);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kBlanks) - b + 1);
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

struct Token {
  std::string_view text;
  std::size_t pos;  // offset in the line
};

// A header's timestamp comes within its first few tokens (a comm holds at
// most 15 bytes): the rest of the line is never split, so a line of a
// million blanks costs no million tokens.
constexpr std::size_t kHeaderTokens = 32;

std::vector<Token> tokens(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (out.size() < kHeaderTokens &&
         (i = line.find_first_not_of(kBlanks, i)) != std::string_view::npos) {
    auto end = std::min(line.find_first_of(kBlanks, i), line.size());
    out.push_back({line.substr(i, end - i), i});
    i = end;
  }
  return out;
}

// "4195.444041:" -> nanoseconds, exactly (no floating point).
std::optional<std::uint64_t> parse_time(std::string_view tok) {
  if (!tok.ends_with(':')) return std::nullopt;
  tok.remove_suffix(1);
  auto dot = tok.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view secs = tok.substr(0, dot), frac = tok.substr(dot + 1);
  if (!all_of(secs, is_digit) || !all_of(frac, is_digit) || frac.size() > 9 || secs.size() > 10)
    return std::nullopt;
  std::uint64_t s = 0, f = 0;
  std::from_chars(secs.data(), secs.data() + secs.size(), s);
  std::from_chars(frac.data(), frac.data() + frac.size(), f);
  for (std::size_t i = frac.size(); i < 9; ++i) f *= 10;
  return s * 1'000'000'000 + f;
}

// "[003]"
bool is_cpu(std::string_view tok) {
  return tok.size() > 2 && tok.front() == '[' && tok.back() == ']' &&
         all_of(tok.substr(1, tok.size() - 2), is_digit);
}

// "2549", "2549/2551" (pid/tid) -> tid; "-1" for unknown threads.
std::optional<std::uint64_t> parse_tid(std::string_view tok) {
  if (auto slash = tok.find('/'); slash != std::string_view::npos) tok = tok.substr(slash + 1);
  if (tok == "-1") return std::uint64_t{1} << 32;  // not idle, not a real tid
  if (!all_of(tok, is_digit) || tok.size() > 10) return std::nullopt;
  std::uint64_t v = 0;
  std::from_chars(tok.data(), tok.data() + tok.size(), v);
  return v;
}

struct Frame {
  std::string name;
  bool kernel = false;
  // perf prints every frame as "addr sym (dso)"; a line without the closing
  // "(dso)" group was cut (a file cut short, a line-length limit).
  bool truncated = false;
};

// A sample's frames, cut while they are read (io/depth_cut.h): perf prints
// the leaf first, so the outermost frames, the ones a cut keeps, are the
// last read, and each of the kernel and user lists keeps only the last
// kReadDepth it was given. A stack deeper than that is classified by those
// (no kernel stack is: the kernel's own stack holds far fewer frames).
struct SampleFrames {
  std::deque<std::string> kernel, user;  // leaf first, the outermost kReadDepth of each
  bool any = false;
  bool leaf_kernel = false;  // the first frame read
  bool truncated = false;    // a frame line was cut (Frame::truncated)
  bool kthread = false;      // a "kthread" kernel frame, cut or not

  void add(Frame f) {
    if (!any) leaf_kernel = f.kernel;
    any = true;
    truncated = truncated || f.truncated;
    kthread = kthread || (f.kernel && f.name == "kthread");
    auto& list = f.kernel ? kernel : user;
    list.push_back(std::move(f.name));
    if (list.size() > kReadDepth) list.pop_front();
  }
};

// Outermost first, as a profile stores stacks.
std::vector<std::string> outermost_first(std::deque<std::string>& leaf_first) {
  return {std::make_move_iterator(leaf_first.rbegin()), std::make_move_iterator(leaf_first.rend())};
}

struct Header {
  std::string comm;
  std::uint64_t tid = 0;
  std::uint64_t time_ns = 0;
  std::optional<std::uint64_t> period;
  std::string event;
  std::string_view rest;  // after the event: the ip of a sample without callchain, or trace args
};

// "sym+0x1f" -> "sym"
std::string_view strip_offset(std::string_view sym) {
  auto plus = sym.rfind("+0x");
  if (plus != std::string_view::npos && plus > 0 && all_of(sym.substr(plus + 3), is_hex))
    return sym.substr(0, plus);
  return sym;
}

std::string frame_name(std::string_view sym, std::string_view dso) {
  if (!sym.empty() && sym != "[unknown]") return std::string(strip_offset(sym));
  if (dso.empty() || dso == "[unknown]") return "[unknown]";
  if (dso.front() == '[') return std::string(dso);  // [vdso], [kernel.kallsyms]
  auto slash = dso.rfind('/');
  return fmt::format("[{}]", slash == std::string_view::npos ? dso : dso.substr(slash + 1));
}

// "ffffffff8171f20d find_get_block_common+0x21d ([kernel.kallsyms])"; the
// dso is the balanced parenthesis group at the end, which may itself hold
// parentheses ("(/memfd:x (deleted))"), as may C++ symbols before it.
std::optional<Frame> parse_frame(std::string_view s) {
  s = trim(s);
  auto space = std::min(s.find_first_of(kBlanks), s.size());
  std::string_view addr = s.substr(0, space);
  if (!all_of(addr, is_hex) || addr.size() > 16) return std::nullopt;
  std::uint64_t ip = 0;
  std::from_chars(addr.data(), addr.data() + addr.size(), ip, 16);
  std::string_view rest = trim(s.substr(space)), dso;
  bool has_dso = false;
  if (rest.ends_with(')')) {
    int depth = 0;
    for (std::size_t i = rest.size(); i-- > 0;) {
      depth += rest[i] == ')' ? 1 : rest[i] == '(' ? -1 : 0;
      if (depth == 0) {
        dso = rest.substr(i + 1, rest.size() - i - 2);
        rest = trim(rest.substr(0, i));
        has_dso = true;
        break;
      }
    }
  }
  bool kernel = (ip >> 63) != 0 || dso.starts_with("[kernel.");
  return Frame{frame_name(rest, dso), kernel, !has_dso};
}

bool event_matches(std::string_view event, std::string_view wanted) {
  if (event == wanted) return true;
  // "cpu-clock:pppH" is "cpu-clock" with modifiers.
  return event.starts_with(wanted) && event.size() > wanted.size() + 1 &&
         event[wanted.size()] == ':' && all_of(event.substr(wanted.size() + 1), is_alpha);
}

// Aggregates samples as the BPF side does (bpf/samples.bpf.h on_sample).
class Importer {
 public:
  Importer(const std::string& origin, const PerfScriptOptions& opt) : origin_(origin), opt_(opt) {}

  Result<Profile> run(std::string_view text);

 private:
  Error error(std::size_t line, const std::string& what, std::string hint) const {
    return {fmt::format("{}:{}: {}", origin_, line, what), std::move(hint)};
  }
  std::optional<Error> parse_header(std::string_view line, std::size_t no, Header& h) const;
  void comment(std::string_view line);
  void finish_sample();
  Result<Profile> result();

  const std::string& origin_;
  const PerfScriptOptions& opt_;
  Profile p_;
  bool in_sample_ = false;
  Header cur_;
  SampleFrames frames_;
  std::set<std::string> events_;
  // Stacks interned as they are merged: a sample's key costs a pointer,
  // not a string per frame.
  std::map<std::tuple<SampleKind, std::string, InternedStack>, std::uint64_t> merged_;
  std::map<std::uint64_t, std::uint64_t> periods_;  // period -> samples
  std::uint64_t no_stack_ = 0;
  std::uint64_t truncated_ = 0;  // samples with a cut frame line
  std::uint64_t depth_cut_ = 0;  // stacks cut at kMaxStackDepth
  std::optional<std::uint64_t> first_ns_, last_ns_;
};

constexpr const char* kHeaderHint =
    "fscost reads perf script's default output: run `perf script` without -F (or with -F "
    "comm,tid,cpu,time,period,event,ip,sym,dso) on a `perf record -g` file";

std::optional<Error> Importer::parse_header(std::string_view line, std::size_t no,
                                            Header& h) const {
  auto toks = tokens(line);
  auto bad = [&] {
    std::string shown(line.substr(0, 80));
    return error(no, fmt::format("not a perf script sample header: \"{}\"", shown), kHeaderHint);
  };
  // The timestamp anchors the line: before it come [cpu], tid and the comm
  // (which may hold spaces), after it [period] and the event.
  for (std::size_t t = 2; t < toks.size(); ++t) {
    auto time = parse_time(toks[t].text);
    if (!time) continue;
    std::size_t j = t - 1;
    if (is_cpu(toks[j].text)) --j;
    auto tid = parse_tid(toks[j].text);
    if (!tid || j == 0) continue;
    std::size_t e = t + 1;
    if (e < toks.size() && all_of(toks[e].text, is_digit)) {
      std::from_chars(toks[e].text.data(), toks[e].text.data() + toks[e].text.size(),
                      h.period.emplace());
      ++e;
    }
    if (e >= toks.size() || !toks[e].text.ends_with(':') || toks[e].text.size() < 2) return bad();
    h.comm = std::string(trim(line.substr(0, toks[j].pos)));
    h.tid = *tid;
    h.time_ns = *time;
    h.event = std::string(toks[e].text.substr(0, toks[e].text.size() - 1));
    h.rest = trim(line.substr(toks[e].pos + toks[e].text.size()));
    return std::nullopt;
  }
  return bad();
}

// perf script --header: "# hostname : vm", "# os release : 6.8.0", ...
void Importer::comment(std::string_view line) {
  auto colon = line.find(" : ");
  if (colon == std::string_view::npos) return;
  std::string_view key = trim(line.substr(1, colon - 1)), value = trim(line.substr(colon + 3));
  if (key == "hostname") p_.meta.hostname = value;
  if (key == "os release") p_.meta.kernel_release = value;
  if (key == "nrcpus online")
    std::from_chars(value.data(), value.data() + value.size(), p_.meta.cpus);
}

void Importer::finish_sample() {
  if (!in_sample_) return;
  in_sample_ = false;
  events_.insert(cur_.event);
  if (!opt_.event.empty() && !event_matches(cur_.event, opt_.event)) return;
  if (!frames_.any) {
    if (auto f = parse_frame(cur_.rest)) frames_.add(std::move(*f));  // sample without callchain
  }
  ++p_.samples_total;
  if (cur_.period) ++periods_[*cur_.period];
  first_ns_ = std::min(first_ns_.value_or(cur_.time_ns), cur_.time_ns);
  last_ns_ = std::max(last_ns_.value_or(cur_.time_ns), cur_.time_ns);
  if (cur_.tid == 0) return;  // idle
  // A cut frame: its name and everything outside it (the syscall that
  // names the op) are lost, so the stack would be attributed wrongly.
  if (frames_.truncated) {
    ++truncated_;
    return;
  }
  if (!frames_.any) {
    ++no_stack_;
    return;
  }
  std::vector<std::string> kernel = outermost_first(frames_.kernel),
                           user = outermost_first(frames_.user);
  SampleKind kind;
  std::string name = cur_.comm;
  auto op = op_from_kernel_stack(kernel);
  if (user.empty() && frames_.kthread) {
    kind = SampleKind::Kthread;
  } else if (!frames_.leaf_kernel) {
    kind = SampleKind::User;
    kernel = std::move(user);
  } else if (op) {
    kind = SampleKind::Op;
    name = op_name(*op);
  } else {
    kind = SampleKind::Kernel;
  }
  // Cut once the op is known: perf prints the leaf first, and the
  // outermost frames, the ones kept, are the last lines read.
  depth_cut_ += cut_depth(kernel);
  merged_[{kind, std::move(name), to_frames(kernel)}] += 1;
}

Result<Profile> Importer::run(std::string_view text) {
  if (text.starts_with("PERFILE"))
    return Error{fmt::format("{}: is a perf.data file, not perf script text", origin_),
                 fmt::format("convert it first: perf script -i {} > perf.txt", origin_)};
  std::size_t no = 0;
  while (!text.empty()) {
    ++no;
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) {
      finish_sample();
    } else if (line.front() == '\t') {
      if (!in_sample_)
        return error(no, "a stack frame outside a sample",
                     "each stack follows its sample's header line; was the file cut short?");
      auto f = parse_frame(line);
      if (!f)
        return error(no, fmt::format("not a stack frame: \"{}\"", trim(line).substr(0, 80)),
                     kHeaderHint);
      frames_.add(std::move(*f));
    } else if (line.front() == '#' && !in_sample_) {
      comment(line);
    } else {
      finish_sample();  // samples without callchains have no blank line between them
      cur_ = Header{};
      frames_ = {};
      if (auto e = parse_header(line, no, cur_)) return *e;
      in_sample_ = true;
    }
  }
  finish_sample();
  return result();
}

Result<Profile> Importer::result() {
  if (events_.empty())
    return Error{fmt::format("{}: no samples", origin_),
                 "is this the output of `perf script`? Record with `perf record -g`"};
  if (opt_.event.empty() && events_.size() > 1)
    return Error{fmt::format("{}: samples of {} events ({}); fscost imports one at a time", origin_,
                             events_.size(), fmt::join(events_, ", ")),
                 "pick one with --event NAME"};
  if (p_.samples_total == 0)
    return Error{fmt::format("{}: no samples of event {} (the file has {})", origin_, opt_.event,
                             fmt::join(events_, ", ")),
                 "pick one of those with --event NAME"};
  p_.meta.fscost_version = FSCOST_VERSION;
  p_.meta.target = "perf-script";
  p_.meta.command = origin_;
  std::string event = opt_.event.empty() ? *events_.begin() : opt_.event;
  p_.meta.probes = {event + " (perf record)"};
  p_.meta.duration_ns = *last_ns_ - *first_ns_;
  // cpu-clock and task-clock periods are nanoseconds; take the most common.
  if (!periods_.empty() &&
      (event_matches(event, "cpu-clock") || event_matches(event, "task-clock"))) {
    auto common = std::max_element(periods_.begin(), periods_.end(),
                                   [](auto& a, auto& b) { return a.second < b.second; });
    if (common->first > 0)
      p_.meta.freq_hz = static_cast<std::uint32_t>(std::lround(1e9 / common->first));
  }
  for (auto& [key, count] : merged_) {
    auto& [kind, name, frames] = key;
    p_.samples.push_back({kind, name, frames, count});
  }
  p_.drops["perf_no_stack"] = no_stack_;
  p_.drops["perf_truncated_stack"] = truncated_;
  if (depth_cut_) p_.drops["stack_depth_truncated"] = depth_cut_;
  return std::move(p_);
}

}  // namespace

Result<Profile> import_perf_script(std::string_view text, const std::string& origin,
                                   const PerfScriptOptions& opt) {
  return Importer(origin, opt).run(text);
}

}  // namespace fscost

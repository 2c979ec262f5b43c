#include "compare/guardrail.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace fscost {

namespace {

// The prefixes that carry the thread count in every command: "-t" when
// each count T's command has "-t<T>", "" when each has a bare "<T>". A
// word that only happens to end in one count ("-L1" at 1) is none.
std::set<std::string> count_prefixes(const std::map<int, std::vector<std::string>>& cmds) {
  std::set<std::string> out;
  const auto& [t0, first] = *cmds.begin();
  const std::string n0 = std::to_string(t0);
  for (const std::string& w : first) {
    if (!w.ends_with(n0)) continue;
    std::string prefix = w.substr(0, w.size() - n0.size());
    bool everywhere = std::all_of(cmds.begin(), cmds.end(), [&](const auto& tc) {
      const std::string want = prefix + std::to_string(tc.first);
      return std::find(tc.second.begin(), tc.second.end(), want) != tc.second.end();
    });
    if (everywhere) out.insert(prefix);
  }
  return out;
}

// A count's command with the count written {threads} where a prefix of
// count_prefixes carries it.
std::vector<std::string> normalized(const std::vector<std::string>& cmd, int threads,
                                    const std::set<std::string>& prefixes) {
  const std::string t = std::to_string(threads);
  std::vector<std::string> out;
  for (const std::string& w : cmd) {
    bool count = w.ends_with(t) && prefixes.contains(w.substr(0, w.size() - t.size()));
    out.push_back(count ? w.substr(0, w.size() - t.size()) + "{threads}" : w);
  }
  return out;
}

}  // namespace

std::optional<Warning> workload_guardrail(const WorkloadSpec& w) {
  if (w.cmd_at.size() < 2) return std::nullopt;
  // Words every command has (as a multiset), then each one's others.
  const std::set<std::string> prefixes = count_prefixes(w.cmd_at);
  std::map<int, std::vector<std::string>> cmds;
  for (const auto& [t, cmd] : w.cmd_at) cmds[t] = normalized(cmd, t, prefixes);
  std::map<std::string, std::size_t> common;
  for (const auto& word : cmds.begin()->second) ++common[word];
  for (const auto& [t, cmd] : cmds) {
    std::map<std::string, std::size_t> mine;
    for (const auto& word : cmd) ++mine[word];
    for (auto& [word, n] : common) n = std::min(n, mine[word]);
  }
  std::vector<std::string> parts;
  for (const auto& [t, cmd] : cmds) {
    std::map<std::string, std::size_t> left = common;
    std::vector<std::string> own;
    for (const auto& word : cmd)
      if (left[word] > 0)
        --left[word];
      else
        own.push_back(word);
    if (!own.empty()) parts.push_back(fmt::format("at {} `{}`", t, fmt::join(own, " ")));
  }
  if (parts.empty()) return std::nullopt;
  return Warning{WarningKind::WorkloadVaries,
                 fmt::format("the sweep's commands differ in more than the thread count: {}. "
                             "Its columns are not a scaling curve: each thread count also "
                             "runs another workload.",
                             fmt::join(parts, ", "))};
}

Warning oversubscription_warning(int threads, unsigned cpus, const std::vector<CpuBound>& configs) {
  std::string s = fmt::format(
      "{} threads on {} CPUs: at most {} run at once; the rest wait on the run queue, lock "
      "holders are preempted, and the column measures oversubscription, not a {}-CPU host.",
      threads, cpus, cpus, threads);
  std::vector<std::string> each;
  for (const CpuBound& c : configs) {
    if (!(c.cpu_us_per_op > 0)) continue;
    double here = cpus * 1e6 / c.cpu_us_per_op,
           host = std::max(threads, 64) * 1e6 / c.cpu_us_per_op;
    each.push_back(fmt::format(
        "{} {:.1f} µs CPU/op: ceiling {:.0f}/s here, reached {:.0f}%; "
        "{:.0f}/s on {} CPUs",
        c.label, c.cpu_us_per_op, here, 100 * c.ops_per_s / here, host, std::max(threads, 64)));
  }
  if (!each.empty())
    s += fmt::format(
        " The CPU-time ceiling (CPUs / CPU per op): {}. On the larger host what "
        "stops short of its ceiling is serialization (locks, the journal), which "
        "{} CPUs show only {}-way.",
        fmt::join(each, "; "), cpus, cpus);
  return {WarningKind::Oversubscribed, s};
}

}  // namespace fscost

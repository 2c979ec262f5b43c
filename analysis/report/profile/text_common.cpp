// Sections every view of the text report shares: what was recorded, and
// what was lost.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <ctime>

#include "model/drops.h"
#include "report/profile/text_parts.h"
#include "model/units.h"

namespace fscost::text {

namespace {

std::string start_time(std::int64_t unix_ns) {
  std::time_t t = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(t));
}

}  // namespace

void header(std::string& out, const Profile& p) {
  const Metadata& m = p.meta;
  line(out, "fscost {} profile: {}", m.fscost_version, machine_summary(m));
  line(out, "target: {}: {}", m.target, m.command);
  std::string started = m.start_unix_ns > 0 ? "started " + start_time(m.start_unix_ns) + ", " : "";
  std::string sampling =
      m.freq_hz ? fmt::format("sampling {} Hz per CPU", m.freq_hz) : "sampling rate not recorded";
  std::string paused =
      m.paused_ns ? fmt::format(" (paused {} by the command)", seconds(m.paused_ns)) : "";
  line(out, "{}duration {}{}, {}, {} samples in all", started, seconds(m.duration_ns), paused,
       sampling, p.samples_total);
  if (m.probes.empty())
    line(out, "probes: none recorded");
  else
    line(out, "probes: {}", fmt::join(m.probes, ", "));
}

void rusage_line(std::string& out, const Rusage& r) {
  if (!r.valid) return line(out, "rusage: not available");
  line(out, "rusage: user {}, sys {}, wall {}", seconds(r.user_ns), seconds(r.sys_ns),
       seconds(r.wall_ns));
}

void drops(std::string& out, const std::map<std::string, std::uint64_t>& counters) {
  std::vector<std::string> checked;
  bool any = false;
  for (const auto& [name, count] : counters) {
    checked.push_back(name);
    if (count == 0) continue;
    if (!any) line(out, "drops:");
    any = true;
    DropCounter d = describe_drop(name);
    line(out, "  {}: {}", name, count);
    line(out, "    {}", d.description);
    line(out, "    hint: {}", d.hint);
  }
  if (any) return;
  if (checked.empty()) return line(out, "drops: none (the profile lists no drop counters)");
  line(out, "drops: none (checked: {})", fmt::join(checked, ", "));
}

void frames_leaf_first(std::string& out, const std::vector<std::string>& frames, std::size_t max,
                       std::string_view indent) {
  if (frames.empty()) line(out, "{}[no kernel stack]", indent);
  std::size_t shown = 0;
  for (auto it = frames.rbegin(); it != frames.rend() && shown < max; ++it, ++shown)
    line(out, "{}{}", indent, *it);
}

}  // namespace fscost::text

// The filesystem-event part of the on-CPU text view: events per operation,
// events outside operations, and the bytes that reached the block devices.
#include "report/profile/text_parts.h"
#include "model/units.h"

namespace fscost::text {

namespace {

bool any_fs_events(const Profile& p) {
  for (const auto& o : p.ops)
    if (!o.fs_events.empty()) return true;
  return !p.background_fs_events.empty() || !p.device_write_bytes.empty();
}

void op_events(std::string& out, const OpStats& o) {
  if (o.fs_events.empty()) return line(out, "{}: no filesystem events", o.name);
  // XFS transactions per op instance; other filesystems have none to count.
  if (o.fs_events.contains("xfs_trans_alloc"))
    line(out, "{}: transactions per op: min {} max {}", o.name, o.trans_min, o.trans_max);
  else
    line(out, "{}:", o.name);
  for (const auto& [name, n] : o.fs_events)
    line(out, "  {:<24} {:>10}/op {:>12} in all", name, fixed_or_dash(per_op(n, o.count), 2), n);
}

void background_events(std::string& out, const FsEventSummary& x) {
  line(out, "Filesystem events outside tracked operations");
  if (x.background.empty()) return line(out, "  none");
  for (const auto& [name, n] : x.background) line(out, "  {:<24} {:>12}", name, n);
}

void device_writes(std::string& out, const FsEventSummary& x) {
  line(out, "block device writes");
  if (x.device_write_bytes.empty()) return line(out, "  none recorded");
  for (const auto& [dev, bytes] : x.device_write_bytes)
    line(out, "  {:<24} {:>12} bytes", dev, bytes);
  if (x.device_write_bytes_sum == kSaturated)
    return line(out, "  overflow: the devices' bytes sum past 2^64 (a corrupt profile?)");
  line(out, "  {} bytes per operation ({} bytes over {} operations, \"other\" excluded)",
       fixed1(x.bytes_per_op), x.device_write_bytes_sum, x.fs_ops);
}

}  // namespace

void fs_event_sections(std::string& out, const Profile& p, const std::vector<OpRow>& rows) {
  if (!any_fs_events(p)) return line(out, "Filesystem events: none recorded");
  line(out, "Filesystem events inside operations (per completed operation)");
  for (const auto& row : rows) op_events(out, row.stats);
  FsEventSummary x = fs_event_summary(p);
  background_events(out, x);
  device_writes(out, x);
}

}  // namespace fscost::text

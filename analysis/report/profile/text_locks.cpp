// The lock text view: contended locks per operation by role, the spin
// cross-check against samples, and kernel threads' contention.
#include <map>
#include "views/lock_view.h"
#include "views/wait_graph.h"
#include "report/profile/text_parts.h"
#include "model/units.h"

namespace fscost::text {

namespace {

constexpr auto kOpRow = "  {:>7} {:>11} {:>11} {:>12} {:>12} {:>8} {:>6}  {:<14} {:<5}  {}";
constexpr auto kThreadRow = "  {:>11} {:>10} {:>10} {:>10} {:>8} {:>6}  {:<18} {:<14} {:<5}  {}";

std::string us(std::uint64_t ns) { return fmt::format("{:.1f}", ns / 1e3); }
std::string ms(std::uint64_t ns) { return fmt::format("{:.3f}", ns / 1e6); }

// A sampled time per operation, "-" if there are no operations or no rate.
std::string sampled_us_per_op(std::optional<double> ns, std::uint64_t count) {
  if (!ns || count == 0) return "-";
  return fmt::format("{:.1f}", *ns / static_cast<double>(count) / 1000);
}

void op_rows(std::string& out, const LockOp& op, std::size_t top) {
  const std::uint64_t n = op.stats.count;
  // "opt µs/op": sampled optimistic spin on the lock, which no traced wait
  // includes (docs/LOCKS.md).
  line(out, kOpRow, "cont/op", "wait µs/op", "spin µs/op", "sleep µs/op", "opt µs/op", "max µs",
       "addrs", "type", "mode", "lock");
  for (std::size_t i = 0; i < op.rows.size() && i < top; ++i) {
    const LockRow& r = op.rows[i];
    line(out, kOpRow, fixed_or_dash(per_op(r.count, n), 3), us_per_op(r.total_ns, n),
         us_per_op(r.spin_ns, n), us_per_op(r.sleep_ns, n),
         sampled_us_per_op(r.optimistic_spin_ns, n),
         us(r.max_ns), r.addresses, r.type, lock_mode(r.spin_ns, r.sleep_ns), r.name);
  }
  if (op.rows.size() > top)
    line(out, "  … and {} more (--top {} shows {} per operation)", plural(op.rows.size() - top, "lock"),
         top, top);
}

void spin_lines(std::string& out, const LockOp& op) {
  const SpinCheck& c = op.spin;
  const std::uint64_t n = op.stats.count;
  line(out, "  spin check: traced spin {} µs/op; on-CPU in spin slow paths {} µs/op ({})",
       us_per_op(c.traced_spin_ns, n), sampled_us_per_op(c.sampled_spin_ns, n),
       plural(c.spin_samples, "sample"));
  if (c.native_qspinlock_samples)
    line(out,
         "    of which native qspinlock slow path {} µs/op ({}): its pending-bit spin is "
         "untraced, so traced spin is a lower bound (docs/LOCKS.md)",
         sampled_us_per_op(c.native_qspinlock_ns, n), plural(c.native_qspinlock_samples, "sample"));
  line(out,
       "  rwsem optimistic spin (invisible to lock:contention_begin, see docs/LOCKS.md): "
       "{} µs/op ({})",
       sampled_us_per_op(c.rwsem_spin_ns, n), plural(c.rwsem_spin_samples, "sample"));
}

void per_op(std::string& out, const LockView& v, std::size_t top) {
  line(out, "lock contention per operation (lock:contention_begin/end; per completed operation)");
  for (const auto& op : v.ops) {
    if (op.rows.empty()) {
      line(out, "{}: no lock contention", op.stats.name);
    } else {
      line(out, "{}: {}, {}", op.stats.name, plural(op.stats.count, "operation"),
           plural(op.rows.size(), "lock"));
      op_rows(out, op, top);
    }
    spin_lines(out, op);
  }
}

void kthreads(std::string& out, const LockView& v) {
  if (v.background.empty()) return line(out, "kernel threads' lock contention: none recorded");
  line(out, "kernel threads' lock contention (totals)");
  line(out, kThreadRow, "contentions", "wait ms", "spin ms", "sleep ms", "max µs", "addrs",
       "thread", "type", "mode", "lock");
  for (const auto& r : v.background)
    line(out, kThreadRow, r.count, ms(r.total_ns), ms(r.spin_ns), ms(r.sleep_ns), us(r.max_ns),
         r.addresses, r.bucket, r.type, lock_mode(r.spin_ns, r.sleep_ns), r.name);
}

// Who waited for whom: each op's chosen chain from its lock wait to where
// the holder's time went, and why that one (views/wait_graph.h).
void holders(std::string& out, const Profile& p) {
  if (p.lock_holders.empty()) {
    line(out, "lock holders: none recorded (rwsem and mutex waits of operations name theirs)");
    out += '\n';
    return;
  }
  std::map<std::string, double> ops;
  for (const auto& o : p.ops) ops[o.name] = static_cast<double>(o.count);
  line(out, "who waited for whom (a chain per operation, and why that one)");
  for (const auto& c : wait_chains(p)) {
    line(out, "  {}", chain_text(c, ops[c.op]));
    line(out, "    {}", chain_choice_text(c, ops[c.op]));
  }
  out += '\n';
}

}  // namespace

void lock_sections(std::string& out, const Profile& p, const ReportOptions& opt) {
  if (!locks_recorded(p)) {
    line(out, "lock contention: not recorded in this profile");
    out += '\n';
    return;
  }
  LockView v = build_lock_view(p, opt);
  per_op(out, v, opt.top_stacks);
  out += '\n';
  kthreads(out, v);
  out += '\n';
  holders(out, p);
}

}  // namespace fscost::text

// The tables under the diff's explanations: one row per comparison, A and B
// means in one scaled unit, the relative change, q and the mark. Labels
// take what the number columns leave of the width; a function or lock name
// too long for it gets a line of its own.
#include <fmt/format.h>

#include <tuple>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "report/diff/format.h"
#include "report/diff/text_parts.h"

namespace fscost::diff_text {

namespace {

using namespace diff_fmt;

// " A(9) B(9) Δ%(8) q(6) mark(1)": each a fixed width unless a value is
// wider, which then takes from the label (row() keeps the line's width).
constexpr std::size_t kValue = 9, kRel = 8, kQ = 6;
constexpr std::size_t kNumbers = 1 + kValue + 1 + kValue + 1 + kRel + 1 + kQ + 1 + 1;

std::size_t label_width(const Page& page, std::size_t indent, std::size_t numbers = kNumbers) {
  return page.width > numbers + indent + 4 ? page.width - numbers - indent : 4;
}

std::string cells(const Comparison& c) {
  auto finite = [](double v) { return std::isfinite(v) ? std::fabs(v) : 0.0; };
  double mag = std::max(finite(c.sa.mean), finite(c.sb.mean));
  return fmt::format(" {} {} {} {} {}", pad_left(value(c.sa.mean, c.unit, false, mag), kValue),
                     pad_left(value(c.sb.mean, c.unit, false, mag), kValue),
                     pad_left(rel_cell(c), kRel), pad_left(q_text(c.q), kQ), mark(c));
}

void heading(Page& page, std::string_view title) {
  std::size_t w = label_width(page, 0);
  page.line(fmt::format("{} {} {} {} {}", pad_right(truncate(title, w), w), pad_left("A", kValue),
                        pad_left("B", kValue), pad_left("Δ", kRel), pad_left("q", kQ)));
}

void subheading(Page& page, std::string_view title) {
  page.line("  " + truncate(title, page.width - 2));
}

// One comparison; a label too long for its column goes on a line above.
void row(Page& page, std::size_t indent, std::string_view label, const Comparison& c) {
  std::string pad(indent, ' ');
  std::string numbers = cells(c);
  std::size_t w = label_width(page, indent, std::max(kNumbers, columns(numbers)));
  if (columns(label) > w) {
    page.para(label, pad, pad + "  ");
    label = {};
  }
  page.line(pad + pad_right(label, w) + numbers);
}

bool shown(const Comparison& c) { return c.sa.n + c.sb.n > 0; }

bool nonzero(const Comparison& c) { return c.sa.mean != 0 || c.sb.mean != 0; }

void kernel_threads(Page& page, const Diff& d) {
  if (d.background.empty()) return;
  heading(page, "kernel threads, per run");
  if (std::any_of(d.background.begin(), d.background.end(), [](const auto& b) { return b.test_fs; }))
    page.line("  (* the test filesystem's own: its device's workqueues and threads)");
  for (const auto& bg : d.background) {
    if (!nonzero(bg.cpu) && !nonzero(bg.offcpu) && !nonzero(bg.lock_wait)) continue;
    row(page, 2, (bg.test_fs ? "* " : "  ") + bg.name, bg.cpu);
    if (nonzero(bg.offcpu)) row(page, 6, "off CPU", bg.offcpu);
    if (nonzero(bg.lock_wait)) row(page, 6, "in locks", bg.lock_wait);
    for (const auto& [event, c] : bg.fs_events)
      if (nonzero(c)) row(page, 6, event, c);
  }
  page.blank();
}

}  // namespace

void whole_workload(Page& page, const Diff& d) {
  const std::pair<const char*, const Comparison*> rows[] = {{"system CPU", &d.sys_ns},
                                                            {"user CPU", &d.user_ns},
                                                            {"wall clock", &d.wall_ns},
                                                            {"user share", &d.user_share},
                                                            {"kernel threads CPU", &d.kthread_ns},
                                                            {"test device writes", &d.device_bytes}};
  if (std::none_of(std::begin(rows), std::end(rows), [](auto& r) { return shown(*r.second); }))
    return;
  heading(page, "whole workload, per run");
  for (const auto& [label, c] : rows) {
    if (!shown(*c)) continue;
    row(page, 2, label, *c);
    if (c == &d.kthread_ns && nonzero(d.fs_kthread_ns))
      row(page, 4, "the test filesystem's", d.fs_kthread_ns);
    if (c == &d.device_bytes)
      for (const auto& [kind, k] : d.device_bytes_by_kind)
        if (nonzero(k)) row(page, 4, kind, k);
  }
  page.blank();
}

namespace {

void metrics(Page& page, const OpDiff& op) {
  heading(page, op.op + ", per operation");
  for (const auto& m : kOpMetrics) {
    const Comparison& c = op.*m.field;
    if (m.text == ShownWhen::Always || (m.text == ShownWhen::NonZero && nonzero(c)))
      row(page, 2, m.label, c);
    if (m.field == &OpDiff::offcpu)  // its wait classes under it
      for (const auto& [cls, k] : op.offcpu_by_class)
        if (nonzero(k)) row(page, 4, cls, k);
  }
  if (std::any_of(op.fs_events.begin(), op.fs_events.end(),
                  [](const auto& x) { return nonzero(x.second); })) {
    page.line("  Filesystem events per operation:");
    for (const auto& [name, c] : op.fs_events)
      if (nonzero(c)) row(page, 4, name, c);
  }
}

void functions(Page& page, const OpDiff& op, std::size_t top) {
  if (op.functions.empty()) return;
  subheading(page, "functions on CPU, inclusive, by |Δ|:");
  for (std::size_t i = 0; i < op.functions.size() && i < top; ++i) {
    // New and gone functions show as such in the Δ column.
    row(page, 4, op.functions[i].name, op.functions[i].inclusive);
  }
}

// A new or gone lock's detail says so itself; the others' detail is ratios.
std::string change_text(const LockDiff& l) {
  std::string what;
  switch (l.change) {
    case LockChange::New:
    case LockChange::Gone:
      return l.detail;
    case LockChange::Worse:
      what = "same lock, worse";
      break;
    case LockChange::Better:
      what = "same lock, better";
      break;
    case LockChange::NoChange:
      what = l.slight ? "too small to weigh on the op" : "no significant change";
      break;
  }
  return l.detail.empty() ? what : what + ": " + l.detail;
}

void locks(Page& page, const OpDiff& op, std::size_t top) {
  if (op.locks.empty()) return;
  subheading(page, "locks, by |Δ wait| or |Δ optimistic spin|:");
  for (std::size_t i = 0; i < op.locks.size() && i < top; ++i) {
    const LockDiff& l = op.locks[i];
    page.para(fmt::format("{} [{}]: {}", l.name, l.type, change_text(l)), "    ", "      ");
    for (const auto& m : kLockMetrics) {
      const Comparison& c = l.*m.field;
      if (m.text == ShownWhen::Always || (m.text == ShownWhen::NonZero && nonzero(c)))
        row(page, 6, m.label, c);
    }
  }
}

}  // namespace

// Who the op waited for, each side's chosen chain and why, and the wait
// on the first holder compared.
void chains(Page& page, const OpDiff& op) {
  if (!op.chain_a && !op.chain_b) return;
  subheading(page, "who waited for whom (per run):");
  for (auto [side, c, ops] : {std::tuple{"A", &op.chain_a, op.count.sa.mean},
                              std::tuple{"B", &op.chain_b, op.count.sb.mean}}) {
    page.para(*c ? chain_text(**c, ops) : op.op + ": no lock wait with a recorded holder",
              fmt::format("    {}: ", side), "       ");
    if (*c) page.para(chain_choice_text(**c, ops), "       ", "         ");
  }
  const auto& lead = op.chain_b ? op.chain_b : op.chain_a;
  for (std::size_t i = 0; i < op.hop_waits.size() && i < lead->hops.size(); ++i)
    row(page, 4,
        i == 0 ? "on the first holder"
               : fmt::format("hop {}: {}", i + 1,
                             lead->hops[i].kind == WaitHop::Wake ? "its sleep" : "its lock wait"),
        op.hop_waits[i]);
}

void op_tables(Page& page, const Diff& d, const OpDiff& op) {
  metrics(page, op);
  functions(page, op, d.config.top);
  locks(page, op, d.config.top);
  chains(page, op);
}

void tables(Page& page, const Diff& d) {
  whole_workload(page, d);
  kernel_threads(page, d);
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    if (i > 0) page.blank();
    op_tables(page, d, d.ops[i]);
  }
}

}  // namespace fscost::diff_text

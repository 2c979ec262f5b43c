// fscost calibrate's analysis: an A-vs-A compare's runs cut into blocks,
// each block a compare whose true delta is 0 (calibration.h).
#include "diff/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

namespace fscost {

namespace {

// Runs [from, from + n) of `s`, with their sources.
RunSet block_of(const RunSet& s, std::size_t from, std::size_t n) {
  RunSet out;
  out.label = s.label;
  for (std::size_t i = from; i < from + n; ++i) {
    out.runs.push_back(s.runs[i]);
    if (i < s.sources.size()) out.sources.push_back(s.sources[i]);
  }
  return out;
}

const OpDiff* find_op(const Diff& d, const std::string& name) {
  for (const auto& op : d.ops)
    if (op.op == name) return &op;
  return nullptr;
}

// One figure over the blocks; nullopt when a block has no tested op or no
// relative delta (A's mean 0).
std::optional<CalibratedFigure> figure_over(const std::vector<Diff>& blocks,
                                            const std::string& op, std::string_view name) {
  CalibratedFigure f;
  double squares = 0;
  for (const Diff& d : blocks) {
    const OpDiff* o = find_op(d, op);
    if (!o || !o->tested) return std::nullopt;
    const Comparison& c = *calibrated_figure(*o, name);
    if (!std::isfinite(c.rel)) return std::nullopt;
    f.deltas.push_back(c.rel);
    squares += c.rel * c.rel;
    f.significant += c.significant();
  }
  // A-vs-A: the true delta is 0, so each d_k is noise around 0 and its
  // mean square (not its variance around the deltas' mean) is the noise.
  f.rel_sd = std::sqrt(squares / static_cast<double>(blocks.size()));
  return f;
}

}  // namespace

const Comparison* calibrated_figure(const OpDiff& op, std::string_view name) {
  for (const auto& m : kOpMetrics)
    if (m.calibrated && m.key == name) return &(op.*m.field);
  return nullptr;
}

Comparison* calibrated_figure(OpDiff& op, std::string_view name) {
  return const_cast<Comparison*>(calibrated_figure(static_cast<const OpDiff&>(op), name));
}

std::string_view figure_text(std::string_view name) {
  for (const auto& m : kOpMetrics)
    if (m.key == name) return m.label;
  return name;
}

const CalibratedFigure* Calibration::find(const std::string& op, std::string_view figure) const {
  auto it = ops.find(op);
  if (it == ops.end()) return nullptr;
  auto f = it->second.find(std::string(figure));
  return f == it->second.end() ? nullptr : &f->second;
}

CalibrationHost host_of(const Profile& p) {
  return {p.meta.hostname, p.meta.kernel_release, p.meta.cpus};
}

std::string workload_identity(const Profile& p) {
  const std::string& cmd = p.meta.command;
  std::size_t end = cmd.find(' ');
  std::string program = cmd.substr(0, end);
  std::string rest = end == std::string::npos ? "" : cmd.substr(end);
  return std::filesystem::path(program).filename().string() + rest;
}

Result<Calibration> calibrate_runs(const RunSet& a, const RunSet& b, std::size_t runs,
                                   std::size_t compares, const DiffConfig& cfg) {
  const std::size_t fit = runs ? std::min(a.runs.size(), b.runs.size()) / runs : 0;
  if (runs < 2 || fit < 2)
    return Error{fmt::format("{}+{} runs hold {} whole blocks of {} runs a side; a calibration "
                             "needs at least 2",
                             a.runs.size(), b.runs.size(), fit, runs),
                 "run at least 2 × --runs runs of each side"};
  Calibration cal;
  cal.runs = runs;
  cal.compares = std::min(fit, compares);
  cal.host = host_of(a.runs.front());
  cal.workload = workload_identity(a.runs.front());
  DiffConfig plain = cfg;
  plain.calibration = nullptr;  // the blocks measure the noise: nothing floors them
  std::vector<Diff> blocks;
  for (std::size_t k = 0; k < cal.compares; ++k)
    blocks.push_back(diff_runs(block_of(a, k * runs, runs), block_of(b, k * runs, runs), plain));
  for (const auto& op : blocks.front().ops)
    for (std::string_view name : kCalibratedFigures)
      if (auto f = figure_over(blocks, op.op, name))
        cal.ops[op.op][std::string(name)] = std::move(*f);
  return cal;
}

std::string calibration_mismatch(const Calibration& cal, const Profile& run) {
  std::vector<std::string> what;
  const CalibrationHost h = host_of(run);
  auto host_text = [](const CalibrationHost& x) {
    return fmt::format("{} (Linux {}, {} CPUs)", x.hostname, x.kernel, x.cpus);
  };
  if (h.hostname != cal.host.hostname || h.kernel != cal.host.kernel || h.cpus != cal.host.cpus)
    what.push_back(fmt::format("was measured on {}, these runs ran on {}", host_text(cal.host),
                               host_text(h)));
  if (std::string w = workload_identity(run); w != cal.workload)
    what.push_back(fmt::format("was measured with '{}', these runs ran '{}'", cal.workload, w));
  if (what.empty()) return {};
  std::string s = fmt::format("the calibration (fscost calibrate {}) ", cal.date.substr(0, 10));
  for (std::size_t i = 0; i < what.size(); ++i) s += (i ? " and " : "") + what[i];
  return s + ": its noise may not be these runs' noise";
}

}  // namespace fscost

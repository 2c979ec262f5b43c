// calibration.json: written by fscost calibrate, read by compare and diff
// --calibration (docs/COMPARE.md, "calibration.json"). The reader is
// strict: a floor from a file it misread would make every interval wrong
// without a sign, so anything unexpected is an error that names the key.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "diff/calibration.h"
#include "model/file_io.h"

namespace fscost {

namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

constexpr const char* kFormat = "fscost-calibration";

// A reader's complaint about the key at `where` ("ops.create.oncpu.deltas").
struct Bad {
  std::string where, what;
};

const json& at(const json& obj, const std::string& where, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) throw Bad{where.empty() ? key : where + "." + key, "missing"};
  return *it;
}

void only_keys(const json& obj, const std::string& where, std::set<std::string> known) {
  if (!obj.is_object()) throw Bad{where.empty() ? "(top level)" : where, "not an object"};
  for (const auto& [k, v] : obj.items())
    if (!known.contains(k)) throw Bad{where.empty() ? k : where + "." + k, "unknown key"};
}

std::string text(const json& obj, const std::string& where, const char* key) {
  const json& v = at(obj, where, key);
  if (!v.is_string()) throw Bad{where.empty() ? key : where + "." + key, "not a string"};
  return v.get<std::string>();
}

std::size_t count(const json& obj, const std::string& where, const char* key, std::size_t min) {
  const json& v = at(obj, where, key);
  std::string name = where.empty() ? key : where + "." + key;
  if (!v.is_number_unsigned()) throw Bad{name, "not a whole number ≥ 0"};
  auto n = v.get<std::uint64_t>();
  if (n < min || n > 1000000) throw Bad{name, fmt::format("{} is out of range ({}..1000000)", n, min)};
  return static_cast<std::size_t>(n);
}

double number(const json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw Bad{where, "not a finite number"};
  return v.get<double>();
}

CalibratedFigure figure(const json& j, const std::string& where, std::size_t compares) {
  only_keys(j, where, {"rel_sd", "deltas", "significant"});
  CalibratedFigure f;
  f.rel_sd = number(at(j, where, "rel_sd"), where + ".rel_sd");
  const json& d = at(j, where, "deltas");
  if (!d.is_array() || d.size() != compares)
    throw Bad{where + ".deltas", fmt::format("not an array of {} numbers (compares)", compares)};
  double squares = 0;
  for (const json& x : d) {
    f.deltas.push_back(number(x, where + ".deltas"));
    squares += f.deltas.back() * f.deltas.back();
  }
  f.significant = count(j, where, "significant", 0);
  if (f.significant > compares) throw Bad{where + ".significant", "more than compares"};
  // rel_sd is what the deltas say, or the file was edited by hand.
  double rms = std::sqrt(squares / static_cast<double>(compares));
  if (!(f.rel_sd >= 0) || std::fabs(f.rel_sd - rms) > 1e-9 + 1e-6 * rms)
    throw Bad{where + ".rel_sd", fmt::format("{} is not the root mean square of its deltas ({})",
                                             f.rel_sd, rms)};
  return f;
}

void read_ops(const json& ops, Calibration& c) {
  if (!ops.is_object()) throw Bad{"ops", "not an object"};
  for (const auto& [op, figures] : ops.items()) {
    std::string where = "ops." + op;
    only_keys(figures, where, {kCalibratedFigures[0].data(), kCalibratedFigures[1].data(),
                               kCalibratedFigures[2].data()});
    for (const auto& [name, f] : figures.items())
      c.ops[op][name] = figure(f, where + "." + name, c.compares);
  }
}

Calibration read_members(const json& j) {
  only_keys(j, "", {"format", "schema", "date", "host", "workload", "config", "runs", "compares",
                    "ops"});
  if (text(j, "", "format") != kFormat) throw Bad{"format", fmt::format("not \"{}\"", kFormat)};
  const json& schema = at(j, "", "schema");
  if (schema != kCalibrationSchema)
    throw Bad{"schema", fmt::format("{} is not {}, the one this fscost reads", schema.dump(),
                                    kCalibrationSchema)};
  Calibration c;
  c.date = text(j, "", "date");
  const json& host = at(j, "", "host");
  only_keys(host, "host", {"hostname", "kernel", "cpus"});
  c.host = {text(host, "host", "hostname"), text(host, "host", "kernel"),
            static_cast<std::uint32_t>(count(host, "host", "cpus", 1))};
  c.workload = text(j, "", "workload");
  c.config = text(j, "", "config");
  c.runs = count(j, "", "runs", 2);
  c.compares = count(j, "", "compares", 2);
  read_ops(at(j, "", "ops"), c);
  return c;
}

}  // namespace

std::string calibration_json_text(const Calibration& c) {
  ordered j{{"format", kFormat}, {"schema", kCalibrationSchema}, {"date", c.date}};
  j["host"] = {{"hostname", c.host.hostname}, {"kernel", c.host.kernel}, {"cpus", c.host.cpus}};
  j["workload"] = c.workload;
  j["config"] = c.config;
  j["runs"] = c.runs;
  j["compares"] = c.compares;
  ordered ops = ordered::object();
  for (const auto& [op, figures] : c.ops)
    for (const auto& [name, f] : figures)
      ops[op][name] = {{"rel_sd", f.rel_sd}, {"deltas", f.deltas}, {"significant", f.significant}};
  j["ops"] = std::move(ops);
  return j.dump(2) + "\n";
}

Result<Calibration> parse_calibration(std::string_view text, const std::string& source) {
  const std::string hint = "write it again with fscost calibrate (docs/COMPARE.md, Calibration)";
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return Error{fmt::format("calibration {}: not JSON", source), hint};
  try {
    return read_members(j);
  } catch (const Bad& b) {
    return Error{fmt::format("calibration {}: {}: {}", source, b.where, b.what), hint};
  }
}

Result<Calibration> read_calibration(const std::string& path) {
  auto text = read_whole_file(path, "calibration");
  if (!text) return text.error();
  return parse_calibration(text.value(), path);
}

}  // namespace fscost

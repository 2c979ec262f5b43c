// record --time-functions as the reports show it: per function and
// operation, calls per operation and the time inside per call and per
// operation; and the functions the kernel would not let fscost time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"

namespace fscost {

struct FunctionRow {
  FunctionTime t;
  std::uint64_t op_count = 0;             // the operation's count; 0 outside one
  std::optional<double> calls_per_op;     // count / op_count
  std::optional<double> ns_per_call;      // total_ns / timed
  std::optional<double> ns_per_op;        // total_ns / op_count
};

struct FunctionView {
  std::vector<FunctionRow> rows;  // as recorded: by function, then operation
  // "fentry/fexit <function> (<why>)" for each function asked for but not
  // timed (meta.probes, where record keeps what it skipped and why).
  std::vector<std::string> refused;
  bool empty() const { return rows.empty() && refused.empty(); }
};

FunctionView build_function_view(const Profile& p);

}  // namespace fscost

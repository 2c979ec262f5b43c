// What every fuzz target does with a profile a reader accepted: the outputs
// the commands make from it (report in each view as text and JSON, folded
// stacks, flame graph, speedscope, pprof), and the profile file's round
// trip, which must read back. A crash or sanitizer report anywhere in them
// is a finding; so is a profile that serializes to a file fscost refuses.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "flame/flamegraph.h"
#include "io/profile_io.h"
#include "model/profile.h"
#include "report/pprof.h"
#include "report/report.h"
#include "report/speedscope.h"
#include "views/view.h"

namespace fscost::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// A sink the optimizer cannot drop.
inline void consume(const std::string& s) {
  volatile std::size_t n = s.size();
  (void)n;
}

inline void exercise(const Profile& p, bool round_trip = true) {
  for (View view : {View::OnCpu, View::OffCpu, View::Locks}) {
    ReportOptions opt;
    opt.view = view;
    consume(render_text(p, opt));
    consume(report_json(p, opt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    consume(render_folded(p, opt));
    consume(to_speedscope(p, opt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    FlameInput in = flame_input(p, view, std::nullopt, /*per_op=*/true);
    consume(render_svg(in, flame_svg_options(p, view, std::nullopt, true)));
  }
  if (auto pb = to_pprof(p); pb) consume(pb.value());

  if (round_trip) {
    std::string text = serialize_profile(p);
    auto back = parse_profile(text, "fuzz-roundtrip");
    if (!back) fail("serialized profile does not read back", back.error().message);
  }
}

}  // namespace fscost::fuzz

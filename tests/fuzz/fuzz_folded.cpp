// libFuzzer target: folded stacks (io/folded.h) in each column mode, written
// back, as a flame graph, and imported as a profile whose outputs are made
// (exercise.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exercise.h"
#include "flame/flamegraph.h"
#include "io/folded.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fscost;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (FoldedColumns columns : {FoldedColumns::Detect, FoldedColumns::One, FoldedColumns::Two}) {
    auto folded = parse_folded(text, "fuzz.folded", columns);
    if (!folded) continue;
    const FoldedStacks& f = folded.value();
    // What write_folded writes must parse again, with as many stacks.
    auto again = parse_folded(write_folded(f), "fuzz-rewritten.folded",
                              f.two_column ? FoldedColumns::Two : FoldedColumns::One);
    if (!again) fuzz::fail("write_folded's output does not parse", again.error().message);
    if (again.value().stacks.size() != f.stacks.size())
      fuzz::fail("write_folded's output", "a different number of stacks");
    for (int column = 0; column < (f.two_column ? 2 : 1); ++column) {
      fuzz::consume(render_svg(flame_input(f, column), SvgOptions{}));
      FoldedImportOptions opt;
      opt.column = column;
      opt.origin = "fuzz.folded";
      fuzz::exercise(profile_from_folded(f, opt));
    }
  }
  return 0;
}

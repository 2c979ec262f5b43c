// The drop counters a profile carries: what each one means and the knob that
// fixes it. Printed with every report so lost data is never silent.
#pragma once

#include <span>
#include <string_view>

namespace fscost {

struct DropCounter {
  std::string_view name;         // key in Profile::drops
  std::string_view description;  // what was lost, and why
  std::string_view hint;         // how to stop losing it
};

// Every counter this fscost knows, in report order.
std::span<const DropCounter> drop_counters();

// The entry for `name`; an unknown name (a newer recorder) gets a generic
// description and hint, so it is still printed.
DropCounter describe_drop(std::string_view name);

}  // namespace fscost

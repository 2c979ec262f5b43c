// The options fscost compare and fscost calibrate share: how to make the
// filesystem, where, which workload, and how the runs go.
#pragma once

#include <CLI/CLI.hpp>

#include "compare/options.h"

namespace fscost {

// --fs, --mkfs.
void add_mkfs_flags(CLI::App* sub, CompareArgs& a);
// Storage (--device, --size, --force), the workload and its options,
// --threads, --warmup, --steal-reruns. Returns --size, whose count the
// callback reads (CompareArgs::size_given).
CLI::Option* add_run_flags(CLI::App* sub, CompareArgs& a);
// --order, --order-seed, --probes, -o, -q, --keep-addresses.
void add_output_flags(CLI::App* sub, CompareArgs& a);

}  // namespace fscost

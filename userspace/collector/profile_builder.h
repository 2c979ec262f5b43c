// Raw kernel aggregates + symbols → the Profile that analysis/ reads.
#pragma once

#include "collector/collector.h"
#include "model/profile.h"

namespace fscost {

class Kallsyms;
class UserSymbolizer;

// `usyms` symbolizes user stacks (--user-stacks); null: none were taken.
// `target_dev`: the test filesystem's device (record --fs), whose writes
// Profile::fs_write_bytes splits by kind; 0 for none.
Profile build_profile(const RawData& raw, const Kallsyms& ksyms, const UserSymbolizer* usyms,
                      Metadata meta, Rusage rusage, std::uint32_t target_dev = 0);

}  // namespace fscost

// Raw kernel aggregates + symbols → the Profile that analysis/ reads.
#pragma once

#include "collector/collector.h"
#include "model/profile.h"

namespace fscost {

class Kallsyms;
class UserSymbolizer;

// `usyms` symbolizes user stacks (--user-stacks); null: none were taken.
Profile build_profile(const RawData& raw, const Kallsyms& ksyms, const UserSymbolizer* usyms,
                      Metadata meta, Rusage rusage);

}  // namespace fscost

// Raw kernel aggregates + symbols → the Profile that analysis/ reads.
#pragma once

#include "collector.h"
#include "profile.h"

namespace fscost {

class Kallsyms;

Profile build_profile(const RawData& raw, const Kallsyms& ksyms, Metadata meta, Rusage rusage);

}  // namespace fscost

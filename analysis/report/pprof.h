// A profile as pprof's gzipped profile.proto, for `go tool pprof` and the
// profile stores that ingest it (Pyroscope, Parca; docs/FORMATS.md). The
// sample types, labels and comments are io/pprof.h's.
#pragma once

#include <optional>
#include <string>

#include "model/profile.h"
#include "model/result.h"

namespace fscost {

// Every view in one profile, a sample type per measure: on-CPU samples and
// their time (samples × period), off-CPU ns and intervals, lock wait ns,
// contentions, spin and sleep ns. The stacks are the folded view's
// (views/stacks.h: the owner's root frame, the off-CPU class or the lock's
// name, the kernel frames) without the waker's or holder's half, which
// become labels; the leaf is where the time went. `op` keeps only that
// operation's records. Frames are functions with one location each; the
// metadata, setup and per-op counts are comments.
Result<std::string> to_pprof(const Profile& p, const std::optional<std::string>& op = {});

}  // namespace fscost

// One recording on a loaded collector, from tracking the target to the
// symbolized profile. `fscost record` makes one; `fscost compare` makes every
// run's with the one Recorder it loads for all of them, so a compare's run
// and a separate `fscost record` of it count the same way (the BPF object
// is loaded, verified and attached once; Collector::reset between runs).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collector/collector.h"
#include "model/profile.h"
#include "model/result.h"
#include "symbols/kallsyms.h"
#include "system/target.h"

namespace fscost {

class UserSymbolizer;

struct RecordingOptions {
  std::string fs_dir;      // --fs: that filesystem's XFS events only, its log told apart
  bool sync = false;       // --sync: a syncfs of fs_dir after the target, traced as its op
  bool bpf_stats = false;  // --bpf-stats: run time per program (costs clock reads)
};

class Recorder {
 public:
  // Loads and attaches: nothing counts before start().
  static Result<Recorder> open(const CollectorConfig& cfg, const Features& f);

  Recorder(Recorder&&) noexcept = default;
  Recorder& operator=(Recorder&&) noexcept = default;

  const Collector& collector() const { return *collector_; }

  // --keep-addresses: profiles keep each lock's kernel address; by default
  // it is replaced by the lock's id in its recording (hide_lock_addresses).
  void keep_addresses(bool keep) { keep_addresses_ = keep; }

  // The recording's metadata as far as it is known before it starts: this
  // host and kernel, the target, the probes (and those absent here).
  Metadata metadata(const Target& target) const;

  // Counting from zero (after an earlier recording), aimed at o.fs_dir,
  // `target` tracked and then released.
  Result<std::monostate> start(Target& target, const RecordingOptions& o);
  // After the target's wait: its writeback traced (o.sync, unless
  // `stopped`), then counting stops.
  Result<std::monostate> stop(const RecordingOptions& o, bool stopped);
  // The maps drained and symbolized; kallsyms is read once per Recorder.
  // With `usyms`, user stacks symbolized from its snapshots.
  Result<Profile> profile(Metadata meta, const Rusage& rusage, UserSymbolizer* usyms);

 private:
  Recorder(std::unique_ptr<Collector> c, std::uint32_t freq_hz)
      : collector_(std::move(c)), freq_hz_(freq_hz) {}

  std::unique_ptr<Collector> collector_;
  std::optional<Kallsyms> ksyms_;
  std::uint32_t freq_hz_ = 0;
  std::uint32_t target_dev_ = 0;
  int recordings_ = 0;
  bool keep_addresses_ = false;
};

// The recording's duration: the target's wall time less the time it kept
// the recording paused (Target::on_control), which is kept as paused_ns.
void set_duration(Metadata& m, const Rusage& r, const Target& t);

// Each lock address of `p` (locks[], lock_holders[]) replaced by the lock's
// id in this recording: 1, 2, … in order of first appearance, locks[] first,
// one id per address, so a lock contended under two operations, or waited
// on in locks[] and lock_holders[], keeps one identity. A kernel address in
// a shared profile or report would give away the kernel's KASLR offset.
void hide_lock_addresses(Profile& p);

}  // namespace fscost

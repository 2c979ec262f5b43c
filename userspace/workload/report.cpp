#include "report.h"

#include <sys/resource.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace fscost::workload {
namespace {

// printf-append: the result is printed once, after the timed phase.
void append(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::size_t(n) < sizeof buf ? std::size_t(n) : sizeof buf - 1);
}

void append_counts(std::string& out, const char* key, const Counts& c) {
  append(out, ",\"%s\":{", key);
  for (int i = 0; i < kOps; i++)
    append(out, "%s\"%s\":%" PRIu64, i ? "," : "", kOpNames[i], c.n[i]);
  out += '}';
}

double seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

}  // namespace

std::string result_json(const Options& o, const RunSummary& s) {
  Counts setup = s.outside, timed, traced = s.outside;
  std::uint64_t sequence = 0;
  for (const ThreadResult& t : s.threads) {
    setup.add(t.setup);
    timed.add(t.timed);
    traced.add(t.timed);
    if (!s.setup_paused) traced.add(t.setup);
    sequence = (sequence ^ t.sequence) * 0x100000001b3ull;  // in thread order
  }
  Counts all = setup;
  all.add(timed);
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  double user = seconds(ru.ru_utime), sys = seconds(ru.ru_stime);

  std::string out;
  append(out, "{\"workload\":\"%s\",\"mode\":\"%s\",\"threads\":%d,\"files\":%ld,\"n\":%ld",
         mode_name(o.mode), mode_name(o.mode), o.threads, o.files, o.files);
  append(out, ",\"dirs\":\"%s\",\"files_per_dir\":%ld,\"write_bytes\":%zu,\"fsync\":%s",
         dirs_name(o.dirs), o.files_per_dir, write_size(o), o.fsync ? "true" : "false");
  append(out, ",\"seed\":%" PRIu64, o.seed);
  if (o.mode == Mode::Random) append(out, ",\"sequence_hash\":\"%016" PRIx64 "\"", sequence);
  append_counts(out, "counts", all);
  append_counts(out, "setup", setup);
  append_counts(out, "timed", timed);
  append_counts(out, "traced", traced);
  double rate = s.elapsed_s > 0 ? double(timed.total()) / s.elapsed_s : 0.0;
  append(out, ",\"elapsed_s\":%.6f,\"ops_per_s\":%.1f,\"user_s\":%.6f,\"sys_s\":%.6f", s.elapsed_s,
         rate, user, sys);
  if (s.sync_s >= 0) append(out, ",\"sync_s\":%.6f", s.sync_s);
  append(out, ",\"user_share\":%.4f}\n", user + sys > 0 ? user / (user + sys) : 0.0);
  return out;
}

}  // namespace fscost::workload

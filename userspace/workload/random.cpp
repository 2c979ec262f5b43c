// random: fsstress style. Each step draws a weighted operation and the names
// it applies to from a bounded per-thread namespace whose state (empty,
// file, directory, symlink) the thread tracks, so the sequence depends only
// on the seed and the thread id, never on timing.
#include <fcntl.h>

#include <cstdio>
#include <vector>

#include "rng.h"
#include "sys.h"
#include "workloads.h"

namespace fscost::workload {
namespace {

constexpr std::uint32_t kNames = 256;  // per thread

struct Weight {
  Op op;
  std::uint32_t weight;
};
// Percent. Adds (create, mkdir, symlink, link) outweigh removes, so the
// namespace runs mostly full and renames often replace an existing name.
constexpr Weight kMix[] = {{Create, 14}, {Mkdir, 6},   {Symlink, 6}, {Link, 6}, {Unlink, 18},
                           {Rmdir, 6},   {Rename, 12}, {Write, 24},  {Fsync, 8}};
constexpr std::uint32_t total_weight() {
  std::uint32_t t = 0;
  for (const Weight& w : kMix) t += w.weight;
  return t;
}
static_assert(total_weight() == 100, "the weights are percent");

enum class Kind : std::uint8_t { Empty, File, Dir, Symlink };

struct Slot {
  Kind kind = Kind::Empty;
  std::uint32_t inode = 0;  // hard links share it; rename between them is a no-op
};

class Namespace {
 public:
  explicit Namespace(int thread) : slots_(kNames), names_(kNames) {
    for (std::uint32_t i = 0; i < kNames; i++)
      std::snprintf(names_[i].s, sizeof names_[i].s, "t%d-n%u", thread, i);
  }
  Slot& operator[](std::uint32_t i) { return slots_[i]; }
  const char* name(std::uint32_t i) const { return names_[i].s; }

  // The first slot from `start` on (wrapping) that `ok` accepts, other than
  // `except`; kNames if none.
  template <typename Ok>
  std::uint32_t find(std::uint32_t start, Ok ok, std::uint32_t except = kNames) const {
    for (std::uint32_t k = 0; k < kNames; k++) {
      std::uint32_t i = (start + k) % kNames;
      if (i != except && ok(slots_[i])) return i;
    }
    return kNames;
  }

 private:
  struct Text {
    char s[24];
  };
  std::vector<Slot> slots_;
  std::vector<Text> names_;
};

bool is(const Slot& s, Kind k) { return s.kind == k; }
bool is_nondir(const Slot& s) { return s.kind == Kind::File || s.kind == Kind::Symlink; }

class Stepper {
 public:
  Stepper(const Context& ctx, int thread, ThreadResult& r)
      : dir_(ctx.layout.base(thread)),
        data_(ctx.data),
        rng_(ctx.options.seed, thread),
        ns_(thread),
        c_(r.timed),
        hash_(r.sequence) {}

  // Draws until an operation applies to the current namespace, issues it.
  void step() {
    while (!try_op(draw())) {
    }
  }

 private:
  Op draw() {
    std::uint32_t r = rng_.below(100);
    for (const Weight& w : kMix) {
      if (r < w.weight) return w.op;
      r -= w.weight;
    }
    return Write;
  }

  std::uint32_t pick(auto ok, std::uint32_t except = kNames) {
    return ns_.find(rng_.below(kNames), ok, except);
  }

  void record(Op op, std::uint32_t a, std::uint32_t b = 0) {
    hash_ = (hash_ ^ (std::uint64_t(op) << 32 | a << 16 | b)) * 0x100000001b3ull;
  }

  bool try_op(Op op);
  bool rename();
  bool write();

  const Dir& dir_;
  const std::vector<char>& data_;
  Rng rng_;
  Namespace ns_;
  Counts& c_;
  std::uint64_t& hash_;
  std::uint32_t next_inode_ = 1;
};

bool Stepper::try_op(Op op) {
  auto empty = [](const Slot& s) { return is(s, Kind::Empty); };
  auto file = [](const Slot& s) { return is(s, Kind::File); };
  std::uint32_t a = kNames, b = 0;
  switch (op) {
    case Create:
    case Mkdir:
    case Symlink:
      if ((a = pick(empty)) == kNames) return false;
      if (op == Create)
        close_file(create_file(dir_, ns_.name(a), c_), dir_, ns_.name(a), c_);
      else if (op == Mkdir)
        mkdir_name(dir_, ns_.name(a), c_);
      else
        symlink_name("target", dir_, ns_.name(a), c_);
      ns_[a] = {op == Create ? Kind::File : op == Mkdir ? Kind::Dir : Kind::Symlink, next_inode_++};
      break;
    case Link:
      if ((a = pick(file)) == kNames || (b = pick(empty)) == kNames) return false;
      link_name(dir_, ns_.name(a), ns_.name(b), c_);
      ns_[b] = ns_[a];
      break;
    case Unlink:
    case Rmdir:
      a = op == Unlink ? pick(is_nondir) : pick([](const Slot& s) { return is(s, Kind::Dir); });
      if (a == kNames) return false;
      if (op == Unlink)
        unlink_name(dir_, ns_.name(a), c_);
      else
        rmdir_name(dir_, ns_.name(a), c_);
      ns_[a] = {};
      break;
    case Rename:
      return rename();
    case Write:
      return write();
    case Fsync: {
      if ((a = pick(file)) == kNames) return false;
      int fd = open_file(dir_, ns_.name(a), O_WRONLY, c_);
      fsync_file(fd, dir_, ns_.name(a), c_);
      close_file(fd, dir_, ns_.name(a), c_);
      break;
    }
    default:
      return false;
  }
  record(op, a, b);
  return true;
}

// Onto an empty name or over one rename(2) may replace: a non-directory
// over a non-directory, a directory over an (always empty) directory.
bool Stepper::rename() {
  std::uint32_t a = pick([](const Slot& s) { return !is(s, Kind::Empty); });
  if (a == kNames) return false;
  bool dir = is(ns_[a], Kind::Dir);
  std::uint32_t b = pick(
      [dir](const Slot& s) {
        return is(s, Kind::Empty) || (dir ? is(s, Kind::Dir) : is_nondir(s));
      },
      a);
  if (b == kNames) return false;
  rename_name(dir_, ns_.name(a), ns_.name(b), c_);
  // Two links to one inode: rename(2) succeeds and does nothing.
  if (ns_[a].inode != ns_[b].inode) ns_[b] = ns_[a], ns_[a] = {};
  record(Rename, a, b);
  return true;
}

// Overwrites one of the first 16 blocks of a file: files grow, extents split.
bool Stepper::write() {
  std::uint32_t a = pick([](const Slot& s) { return is(s, Kind::File); });
  if (a == kNames) return false;
  off_t off = off_t(rng_.below(16)) * off_t(data_.size());
  int fd = open_file(dir_, ns_.name(a), O_WRONLY, c_);
  write_at(fd, data_.data(), data_.size(), off, dir_, ns_.name(a), c_);
  close_file(fd, dir_, ns_.name(a), c_);
  record(Write, a, std::uint32_t(off / off_t(data_.size())));
  return true;
}

}  // namespace

void random_run(const Context& ctx, int thread, ThreadResult& r) {
  r.sequence = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  Stepper s(ctx, thread, r);
  for (long i = 0, n = ctx.options.files; i < n; i++) s.step();
}

}  // namespace fscost::workload

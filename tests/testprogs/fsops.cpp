// fsops: a deterministic filesystem workload for runtime tests and overhead
// benchmarks. Raw syscalls and little user-space CPU, so nearly all of its
// time is spent in the filesystem fscost measures.
//
//   fsops DIR [--n N] [--threads T] [--mode mixed|create|openclose] [--write BYTES]
//         [--private-dirs]
//
// mixed (default): thread K works in its own new directory DIR/tK; per
//   iteration i: create f<i> [write BYTES] fsync close, link f<i> l<i>,
//   rename f<i> r<i>, unlink r<i> and l<i>, mkdir d<i>, rmdir d<i>,
//   symlink s<i> -> "r", unlink s<i>.
// create: every thread creates N empty files in one new shared directory
//   DIR/shared (create rate contended on the parent directory's i_rwsem), or
//   with --private-dirs each in its own DIR/tK (as fs_mark's threads do).
// openclose: every thread opens and closes one file N times (contends on the
//   process's fd table spinlock).
//
// Prints one JSON line with the ops it issued (counts include the setup:
// creating tK/shared is a mkdir, closing DIR and tK/shared fds a close),
// elapsed time from the start barrier to the last thread's end, the rate of
// the timed ops, and its own rusage. Any syscall error exits 1.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string dir;
  long n = 1000;
  int threads = 1;
  enum class Mode { Mixed, Create, OpenClose } mode = Mode::Mixed;
  size_t write_bytes = 0;
  bool private_dirs = false;
};

// One per thread, cache-line aligned so counting does not false-share.
struct alignas(64) Counts {
  uint64_t create = 0, fsync = 0, link = 0, rename = 0, unlink = 0, mkdir = 0, rmdir = 0,
           symlink = 0, write = 0, close = 0, open = 0;

  void add(const Counts& o) {
    create += o.create, fsync += o.fsync, link += o.link, rename += o.rename;
    unlink += o.unlink, mkdir += o.mkdir, rmdir += o.rmdir, symlink += o.symlink;
    write += o.write, close += o.close, open += o.open;
  }
  uint64_t total() const {
    return create + fsync + link + rename + unlink + mkdir + rmdir + symlink + write + close +
           open;
  }
};

[[noreturn]] void die(const char* what, const char* name) {
  std::fprintf(stderr, "fsops: %s %s: %s\n", what, name, std::strerror(errno));
  std::_Exit(1);
}

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "fsops: %s\nusage: fsops DIR [--n N] [--threads T] [--mode mixed|create|openclose] "
               "[--write BYTES] [--private-dirs]\n",
               msg);
  std::exit(2);
}

long parse_number(const char* flag, const char* s, long min) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno || *end || v < min) usage((std::string("bad value for ") + flag + ": " + s).c_str());
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--n" && has_value)
      o.n = parse_number("--n", argv[++i], 1);
    else if (a == "--threads" && has_value)
      o.threads = int(parse_number("--threads", argv[++i], 1));
    else if (a == "--private-dirs")
      o.private_dirs = true;
    else if (a == "--write" && has_value)
      o.write_bytes = size_t(parse_number("--write", argv[++i], 0));
    else if (a == "--mode" && has_value) {
      std::string m = argv[++i];
      if (m == "mixed") o.mode = Options::Mode::Mixed;
      else if (m == "create") o.mode = Options::Mode::Create;
      else if (m == "openclose") o.mode = Options::Mode::OpenClose;
      else usage(("unknown mode: " + m).c_str());
    } else if (a.rfind("--", 0) != 0 && o.dir.empty())
      o.dir = a;
    else
      usage(("unexpected argument: " + a).c_str());
  }
  if (o.dir.empty()) usage("missing DIR");
  return o;
}

// Makes DIR/name (which must not exist, so counts stay exact) and opens it.
int make_dir(int parent, const std::string& name, Counts& c) {
  if (::mkdirat(parent, name.c_str(), 0755) != 0) die("mkdir", name.c_str());
  c.mkdir++;
  int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) die("open", name.c_str());
  return fd;
}

void write_all(int fd, const std::vector<char>& buf, const char* name, Counts& c) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n < 0) die("write", name);
    c.write++;
    done += size_t(n);
  }
}

// snprintf into a fixed buffer: no allocation in the loop.
struct Name {
  char s[32];
  Name(char prefix, long i) { std::snprintf(s, sizeof s, "%c%ld", prefix, i); }
};

void mixed_iteration(int dir, long i, const std::vector<char>& buf, Counts& c) {
  Name f('f', i), l('l', i), r('r', i), d('d', i), s('s', i);
  int fd = ::openat(dir, f.s, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) die("create", f.s);
  c.create++;
  if (!buf.empty()) write_all(fd, buf, f.s, c);
  if (::fsync(fd) != 0) die("fsync", f.s);
  c.fsync++;
  if (::close(fd) != 0) die("close", f.s);
  c.close++;
  if (::linkat(dir, f.s, dir, l.s, 0) != 0) die("link", l.s);
  c.link++;
  if (::renameat(dir, f.s, dir, r.s) != 0) die("rename", r.s);
  c.rename++;
  if (::unlinkat(dir, r.s, 0) != 0) die("unlink", r.s);
  if (::unlinkat(dir, l.s, 0) != 0) die("unlink", l.s);
  c.unlink += 2;
  if (::mkdirat(dir, d.s, 0755) != 0) die("mkdir", d.s);
  c.mkdir++;
  if (::unlinkat(dir, d.s, AT_REMOVEDIR) != 0) die("rmdir", d.s);
  c.rmdir++;
  if (::symlinkat("r", dir, s.s) != 0) die("symlink", s.s);
  c.symlink++;
  if (::unlinkat(dir, s.s, 0) != 0) die("unlink", s.s);
  c.unlink++;
}

void create_files(int dir, int thread, long n, Counts& c) {
  for (long i = 0; i < n; i++) {
    char name[48];
    std::snprintf(name, sizeof name, "t%d-%ld", thread, i);
    int fd = ::openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) die("create", name);
    c.create++;
    if (::close(fd) != 0) die("close", name);
    c.close++;
  }
}

// Threads of one process opening and closing one file: every open and close
// takes the process's files->file_lock, a spinlock, so they contend on it.
void open_close(int dir, long n, Counts& c) {
  for (long i = 0; i < n; i++) {
    int fd = ::openat(dir, "target", O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("open", "target");
    c.open++;
    if (::close(fd) != 0) die("close", "target");
    c.close++;
  }
}

const char* mode_name(Options::Mode m) {
  switch (m) {
    case Options::Mode::Create: return "create";
    case Options::Mode::OpenClose: return "openclose";
    default: return "mixed";
  }
}

double seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

void print_json(const Options& o, const Counts& c, double elapsed, uint64_t timed_ops) {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "{\"mode\":\"%s\",\"threads\":%d,\"n\":%ld,\"counts\":{\"create\":%llu,\"fsync\":%llu,"
      "\"link\":%llu,\"rename\":%llu,\"unlink\":%llu,\"mkdir\":%llu,\"rmdir\":%llu,"
      "\"symlink\":%llu,\"write\":%llu,\"close\":%llu,\"open\":%llu},\"elapsed_s\":%.6f,"
      "\"ops_per_s\":%.1f,\"user_s\":%.6f,\"sys_s\":%.6f}\n",
      mode_name(o.mode), o.threads, o.n, (unsigned long long)c.create,
      (unsigned long long)c.fsync, (unsigned long long)c.link, (unsigned long long)c.rename,
      (unsigned long long)c.unlink, (unsigned long long)c.mkdir, (unsigned long long)c.rmdir,
      (unsigned long long)c.symlink, (unsigned long long)c.write, (unsigned long long)c.close,
      (unsigned long long)c.open, elapsed, elapsed > 0 ? double(timed_ops) / elapsed : 0.0, seconds(ru.ru_utime),
      seconds(ru.ru_stime));
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  int root = ::open(o.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) die("open", o.dir.c_str());

  // Setup, not timed: the directories each thread works in.
  Counts setup;
  std::vector<int> dirs;
  bool shared = o.mode != Options::Mode::Mixed && !o.private_dirs;
  if (shared)
    dirs.assign(size_t(o.threads), make_dir(root, "shared", setup));
  else
    for (int t = 0; t < o.threads; t++)
      dirs.push_back(make_dir(root, "t" + std::to_string(t), setup));
  std::vector<char> buf(o.write_bytes, 'x');
  if (o.mode == Options::Mode::OpenClose) {
    int fd = ::openat(dirs[0], "target", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) die("create", "target");
    setup.create++;
    ::close(fd);
    setup.close++;
  }

  std::vector<Counts> counts(size_t(o.threads));
  std::barrier start(o.threads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < o.threads; t++) {
    threads.emplace_back([&, t] {
      Counts& c = counts[size_t(t)];
      start.arrive_and_wait();
      if (o.mode == Options::Mode::Create)
        create_files(dirs[size_t(t)], t, o.n, c);
      else if (o.mode == Options::Mode::OpenClose)
        open_close(dirs[size_t(t)], o.n, c);
      else
        for (long i = 0; i < o.n; i++) mixed_iteration(dirs[size_t(t)], i, buf, c);
    });
  }
  // Before arriving: with fewer CPUs than threads, the workers may run to
  // completion before this thread is scheduled again.
  auto t0 = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  for (auto& th : threads) th.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Counts total;
  for (const Counts& c : counts) total.add(c);
  uint64_t timed_ops = total.total();
  total.add(setup);
  // Directory fds: one per thread dir (one shared dir in create mode).
  size_t dir_fds = shared ? 1 : dirs.size();
  for (size_t i = 0; i < dir_fds; i++) {
    if (::close(dirs[i]) != 0) die("close", "directory");
    total.close++;
  }
  ::close(root);
  total.close++;
  print_json(o, total, elapsed, timed_ops);
  return 0;
}

#include "collector/function_timer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "collector/libbpf_log.h"
#include "collector/map_read.h"
#include "fscost_functions.skel.h"

namespace fscost {
namespace {

constexpr int kEnotsupp = 524;  // the kernel's ENOTSUPP, which userspace has no name for

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Functions ftrace can patch, where the kernel lists them: a function in
// BTF but not here (inlined at every call site, or notrace) would load and
// then fail to attach with a bare error. Empty when not listed (no function
// tracer), and then the kernel's error stands.
std::set<std::string> traceable_functions(const std::string& tracefs_root) {
  std::set<std::string> out;
  if (tracefs_root.empty()) return out;
  std::ifstream in(tracefs_root + "/available_filter_functions");
  std::string line;
  while (std::getline(in, line)) out.insert(line.substr(0, line.find_first_of(" \t")));
  return out;
}

std::string refusal(const char* what, int err) {
  err = err < 0 ? -err : err;
  if (err == kEnotsupp)
    return fmt::format("the kernel refused {}: ENOTSUPP; x86 trampolines before Linux 6.6 take at "
                       "most 6 arguments, none a struct by value",
                       what);
  return fmt::format("the kernel refused {}: {}{}", what, strerror(err),
                     err == EPERM ? "" : "; FSCOST_DEBUG=1 shows libbpf's log");
}

}  // namespace

Result<std::vector<std::string>> parse_function_list(const std::string& spec) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    std::size_t comma = spec.find(',', at);
    std::string name = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!is_identifier(name))
      return Error{fmt::format("--time-functions: '{}' is not a kernel function name", name),
                   "give names as in /proc/kallsyms, comma-separated: xfs_trans_roll,xfs_attr_set"};
    if (std::find(out.begin(), out.end(), name) != out.end())
      return Error{fmt::format("--time-functions: '{}' is named twice", name), ""};
    out.push_back(name);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (out.size() > FSCOST_MAX_FUNCS)
    return Error{fmt::format("--time-functions: {} functions; at most {} can be timed at once",
                             out.size(), FSCOST_MAX_FUNCS),
                 ""};
  return out;
}

void FunctionTimer::SkelDeleter::operator()(::fscost_functions* s) const {
  fscost_functions__destroy(s);
}

FunctionTimer::~FunctionTimer() = default;

std::vector<bpf_object*> FunctionTimer::objects() const {
  std::vector<bpf_object*> out;
  for (const auto& t : timed_) out.push_back(t.skel->obj);
  return out;
}

std::vector<std::string> FunctionTimer::names() const {
  std::vector<std::string> out;
  for (const auto& t : timed_) out.push_back(t.name);
  return out;
}

Result<FunctionTimer::Loaded> FunctionTimer::load(const std::vector<std::string>& names,
                                                  int cpu_now_fd, std::uint32_t max_calls,
                                                  const std::string& tracefs_root) {
  std::unique_ptr<FunctionTimer> timer(new FunctionTimer());
  Loaded out;
  const std::set<std::string> traceable = traceable_functions(tracefs_root);
  // Every name checked before any is loaded: a typo stops the recording
  // before it costs anything.
  std::vector<std::unique_ptr<::fscost_functions, SkelDeleter>> opened;
  for (const auto& name : names) {
    std::unique_ptr<::fscost_functions, SkelDeleter> skel(fscost_functions__open());
    if (!skel)
      return Error{fmt::format("cannot open the function-timing BPF object: {}", strerror(errno)), ""};
    auto* s = skel.get();
    if (int err = bpf_map__reuse_fd(s->maps.cpu_now, cpu_now_fd))
      return Error{fmt::format("cannot share the cpu_now map: {}", strerror(-err)), ""};
    if (bpf_map__set_max_entries(s->maps.func_calls, max_calls))
      return Error{"cannot size the function-call map", "check --max-threads"};
    // Found in vmlinux's BTF, else in a loaded module's (libbpf looks in both).
    int err = bpf_program__set_attach_target(s->progs.func_entry, 0, name.c_str());
    if (!err) err = bpf_program__set_attach_target(s->progs.func_exit, 0, name.c_str());
    if (err)
      return Error{fmt::format("--time-functions: no function '{}' in the kernel's BTF", name),
                   "a module's function needs the module loaded first (modprobe xfs)"};
    if (!traceable.empty() && !traceable.count(name))
      return Error{fmt::format("--time-functions: '{}' cannot be traced: it is not in "
                               "available_filter_functions (inlined, or notrace)",
                               name),
                   "time its caller instead"};
    opened.push_back(std::move(skel));
  }
  // From here a failure is the kernel refusing trampolines (EPERM on a
  // kernel that forbids them), or this function's (ENOTSUPP): said once
  // by the caller, not in libbpf's words too (FSCOST_DEBUG=1 shows them).
  ScopedLibbpfQuiet quiet;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto* s = opened[i].get();
    if (int err = fscost_functions__load(s))
      out.refused.emplace_back(names[i], refusal("fentry/fexit programs", err));
    else if (int err2 = fscost_functions__attach(s))
      out.refused.emplace_back(names[i], refusal("to attach fentry/fexit", err2));
    else
      timer->timed_.push_back({names[i], std::move(opened[i])});
  }
  if (!timer->timed_.empty()) out.timer = std::move(timer);
  return out;
}

void FunctionTimer::enable(bool on) {
  for (auto& t : timed_) t.skel->bss->enabled = on;
}

Result<std::monostate> FunctionTimer::reset() {
  enable(false);
  for (auto& t : timed_) {
    const auto& m = t.skel->maps;
    if (!clear_hash(bpf_map__fd(m.func_calls), bpf_map__key_size(m.func_calls),
                    bpf_map__value_size(m.func_calls)) ||
        !zero_percpu_array(bpf_map__fd(m.func_stats), bpf_map__max_entries(m.func_stats),
                           bpf_map__value_size(m.func_stats)))
      return Error{fmt::format("cannot empty the function-timing maps: {}", strerror(errno)), ""};
    std::fill(std::begin(t.skel->bss->drops), std::end(t.skel->bss->drops), 0);
  }
  return std::monostate{};
}

std::vector<FunctionTimes> FunctionTimer::read(
    std::array<std::uint64_t, FSCOST_DROP__COUNT>& drops) const {
  std::vector<FunctionTimes> out;
  std::vector<fscost_func_stats> percpu(std::max(1, libbpf_num_possible_cpus()));
  for (const auto& t : timed_) {
    static_assert(sizeof(t.skel->bss->drops) == sizeof(drops));
    for (std::size_t i = 0; i < drops.size(); ++i) drops[i] += t.skel->bss->drops[i];
    FunctionTimes& f = out.emplace_back();
    f.name = t.name;
    int fd = bpf_map__fd(t.skel->maps.func_stats);
    for (__u32 op = 0; op < FSCOST_MAX_OPS; ++op) {
      if (bpf_map_lookup_elem(fd, &op, percpu.data())) continue;
      auto& sum = f.per_op[op];
      for (const auto& c : percpu) {
        sum.count += c.count;
        sum.timed += c.timed;
        sum.total_ns += c.total_ns;
        sum.max_ns = std::max(sum.max_ns, c.max_ns);
      }
    }
  }
  return out;
}

}  // namespace fscost

#include "symbols/elf_symbols.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <memory>

#include "model/file_io.h"

namespace fscost {
namespace {

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

// Whether libelf may read section `index` into memory: at most the input
// limit, whatever the file has grown to since it was checked.
bool loadable(Elf* elf, std::size_t index) {
  GElf_Shdr sh;
  Elf_Scn* scn = elf_getscn(elf, index);
  return scn && gelf_getshdr(scn, &sh) && sh.sh_size <= max_input_bytes();
}

// .symtab when the file has one (unstripped), else .dynsym; both if present.
void read_symbols(Elf* elf, std::vector<std::pair<std::uint64_t, std::pair<std::uint64_t, std::string>>>& out) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)) continue;
    if (!loadable(elf, elf_ndxscn(scn)) || !loadable(elf, sh.sh_link)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !sh.sh_entsize) continue;
    for (std::size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name && *name) out.push_back({sym.st_value, {sym.st_size, name}});
    }
  }
}

}  // namespace

Result<ElfSymbols> ElfSymbols::load(int fd) {
  if (elf_version(EV_CURRENT) == EV_NONE) return Error{"libelf is too old", ""};
  // ELF_C_READ reads (pread), where a mapping of the file would take SIGBUS
  // if its owner truncated it meanwhile.
  std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ, nullptr));
  ElfSymbols out;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return Error{"not an ELF file", ""};
  std::size_t nph = 0;
  elf_getphdrnum(elf.get(), &nph);
  for (std::size_t i = 0; i < nph; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf.get(), static_cast<int>(i), &ph) && ph.p_type == PT_LOAD &&
        (ph.p_flags & PF_X))
      out.segments_.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }
  std::vector<std::pair<std::uint64_t, std::pair<std::uint64_t, std::string>>> raw;
  read_symbols(elf.get(), raw);
  elf.reset();
  std::sort(raw.begin(), raw.end());
  for (auto& [addr, rest] : raw)
    if (out.syms_.empty() || out.syms_.back().addr != addr)
      out.syms_.push_back({addr, rest.first, std::move(rest.second)});
  return out;
}

std::optional<std::string> ElfSymbols::lookup(std::uint64_t file_offset) const {
  for (const auto& seg : segments_) {
    if (file_offset < seg.offset || file_offset >= seg.offset + seg.filesz) continue;
    std::uint64_t vaddr = file_offset - seg.offset + seg.vaddr;
    auto it = std::upper_bound(syms_.begin(), syms_.end(), vaddr,
                               [](std::uint64_t a, const Sym& s) { return a < s.addr; });
    if (it == syms_.begin()) return std::nullopt;
    --it;
    // Size 0 (assembly stubs): accept up to the next symbol.
    if (it->size && vaddr >= it->addr + it->size) return std::nullopt;
    return it->name;
  }
  return std::nullopt;
}

}  // namespace fscost

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Reads a module the way the dynamic linker sees it: through the dynamic segment, not the
// section headers, so a stripped tool reads the same as a debug build. The bytes are a copy
// of the file the core is about to load; nothing here trusts a single offset or count.

#include "elf_image.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <link.h>

#include "dynamic_tags.h"
#include "elf_view.h"
#include "error.h"

namespace pnmpi {

RoutineIndex::RoutineIndex(const char *const *names, unsigned count) {
  m_ids.reserve(count);
  for (unsigned i = 0; i < count; ++i)
    m_ids.emplace(names[i], i);
}

bool is_library(std::string_view path, std::string_view base) {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return file.substr(0, base.size()) == base &&
         (file.size() == base.size() || file[base.size()] == '.');
}

int RoutineIndex::find(std::string_view name) const {
  auto it = m_ids.find(name);
  return it == m_ids.end() ? -1 : static_cast<int>(it->second);
}

namespace {

#if defined(__x86_64__)
constexpr ElfW(Half) kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr ElfW(Half) kMachine = EM_AARCH64;
#else
#error "pnmpi binds module calls on x86-64 and AArch64 only"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kData = ELFDATA2LSB;
#else
constexpr unsigned char kData = ELFDATA2MSB;
#endif

/// How a relocation against XMPI_X stores the symbol's address, or nullopt-like false.
bool site_kind(std::uint32_t type, bool &plus_addend) {
#if defined(__x86_64__)
  switch (type) {
  case R_X86_64_JUMP_SLOT:
  case R_X86_64_GLOB_DAT:
    plus_addend = false;
    return true;
  case R_X86_64_64:
    plus_addend = true;
    return true;
  }
#elif defined(__aarch64__)
  switch (type) {
  case R_AARCH64_JUMP_SLOT:
  case R_AARCH64_GLOB_DAT:
  case R_AARCH64_ABS64:
    plus_addend = true;
    return true;
  }
#endif
  return false;
}

class Reader {
public:
  Reader(const std::vector<unsigned char> &bytes, const std::string &what)
      : m_view(bytes), m_what(what) {}

  [[noreturn]] void fail(const std::string &message) const { throw Error(m_what + ": " + message); }

  /// `count` objects of type T at file offset `offset`, or fail. ELF structures in a
  /// well-formed file are naturally aligned, so they are read in place.
  template <typename T> const T *at(std::uint64_t offset, std::uint64_t count = 1) const {
    switch (m_view.fault<T>(offset, count)) {
    case ElfFault::past_end:
      fail("corrupt ELF file: data at offset " + std::to_string(offset) + " runs past the end");
    case ElfFault::misaligned:
      fail("corrupt ELF file: misaligned structure at offset " + std::to_string(offset));
    case ElfFault::none:
      break;
    }
    return m_view.native<T>(offset, count);
  }

  /// The NUL-terminated string at `index` of the string table at file offset `table`.
  std::optional<std::string_view> string(std::uint64_t table, std::uint64_t size,
                                         std::uint64_t index) const {
    return m_view.string(table, size, index);
  }

  /// The file offset of `size` bytes at virtual address `vaddr`, which must lie in the file
  /// image of one PT_LOAD segment.
  std::uint64_t offset_of(std::uint64_t vaddr, std::uint64_t size, const char *item) const {
    for (const ElfW(Phdr) * ph : m_loads) {
      if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr <= ph->p_filesz &&
          size <= ph->p_filesz - (vaddr - ph->p_vaddr))
        return ph->p_offset + (vaddr - ph->p_vaddr);
    }
    fail(std::string("corrupt ELF file: ") + item + " lies outside the loadable segments");
  }

  std::vector<const ElfW(Phdr) *> m_loads;

private:
  const ElfView m_view;
  const std::string &m_what;
};

/// The number of dynamic symbols, from DT_HASH or DT_GNU_HASH (the dynamic linker's view).
std::uint64_t symbol_count(const Reader &r, std::uint64_t hash, std::uint64_t gnu_hash) {
  if (hash != 0) {
    const auto *h = r.at<ElfW(Word)>(r.offset_of(hash, 2 * sizeof(ElfW(Word)), "DT_HASH"), 2);
    return h[1];
  }
  if (gnu_hash == 0)
    r.fail("corrupt ELF file: no DT_HASH or DT_GNU_HASH, the dynamic symbols cannot be counted");
  const std::uint64_t base = r.offset_of(gnu_hash, 4 * sizeof(std::uint32_t), "DT_GNU_HASH");
  const auto *h = r.at<std::uint32_t>(base, 4);
  const std::uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
  const std::uint64_t buckets_off =
      base + 4 * sizeof(std::uint32_t) + std::uint64_t(bloom_size) * sizeof(ElfW(Addr));
  const auto *buckets = r.at<std::uint32_t>(buckets_off, nbuckets);
  std::uint32_t last = 0;
  for (std::uint32_t b = 0; b < nbuckets; ++b)
    last = std::max(last, buckets[b]);
  if (last < symoffset)
    return symoffset;
  const std::uint64_t chains_off = buckets_off + std::uint64_t(nbuckets) * sizeof(std::uint32_t);
  for (std::uint64_t i = last;; ++i) {
    const std::uint32_t value = *r.at<std::uint32_t>(chains_off + (i - symoffset) * 4);
    if (value & 1u)
      return i + 1;
  }
}

/// The words of the string PNMPI_MODULE_ARGUMENTS defines (symbol `s`): read from the file,
/// so that pnmpi-info sees them without loading the module.
std::vector<std::string> declared_keys(const Reader &r, const ElfW(Sym) & s) {
  if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT || s.st_size == 0 || s.st_size > 65536)
    r.fail("pnmpi_module_arguments is not a string of argument names (define it with "
           "PNMPI_MODULE_ARGUMENTS)");
  const char *text =
      r.at<char>(r.offset_of(s.st_value, s.st_size, "pnmpi_module_arguments"), s.st_size);
  if (text[s.st_size - 1] != '\0')
    r.fail("pnmpi_module_arguments is not NUL-terminated");
  std::vector<std::string> keys;
  std::string word;
  for (const char *c = text; *c != '\0'; ++c) {
    if (*c == ' ') {
      if (!word.empty())
        keys.push_back(word);
      word.clear();
    } else {
      word += *c;
    }
  }
  if (!word.empty())
    keys.push_back(word);
  return keys;
}

} // namespace

ElfImage read_elf_image(const std::vector<unsigned char> &bytes, const std::string &what,
                        const RoutineIndex &routines, SiteNames sites) {
  Reader r(bytes, what);
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    r.fail("not an ELF file (a module must be a shared object, .so)");
  const auto *eh = r.at<ElfW(Ehdr)>(0);
  if (eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
      eh->e_ident[EI_DATA] != kData || eh->e_machine != kMachine)
    r.fail("built for another architecture than this process");
  if (eh->e_type != ET_DYN)
    r.fail("not a shared object (ELF type " + std::to_string(eh->e_type) +
           "); build the module with -shared");
  if (eh->e_phentsize != sizeof(ElfW(Phdr)))
    r.fail("corrupt ELF file: unexpected program header size");
  const auto *phdrs = r.at<ElfW(Phdr)>(eh->e_phoff, eh->e_phnum);

  ElfImage image;
  const ElfW(Phdr) *dynamic = nullptr;
  for (unsigned i = 0; i < eh->e_phnum; ++i) {
    const ElfW(Phdr) &ph = phdrs[i];
    if ((ph.p_type == PT_LOAD || ph.p_type == PT_GNU_RELRO) &&
        ph.p_memsz > ~ElfW(Addr){0} - ph.p_vaddr)
      r.fail("corrupt ELF file: a segment runs past the end of the address space");
    if (ph.p_type == PT_LOAD) {
      if (ph.p_filesz > ph.p_memsz)
        r.fail("corrupt ELF file: a segment's file size exceeds its memory size");
      r.at<unsigned char>(ph.p_offset, ph.p_filesz);
      r.m_loads.push_back(&ph);
      if (ph.p_flags & PF_X)
        image.code.push_back({ph.p_vaddr, ph.p_vaddr + ph.p_memsz});
    } else if (ph.p_type == PT_DYNAMIC) {
      dynamic = &ph;
    } else if (ph.p_type == PT_GNU_RELRO) {
      image.relro = {ph.p_vaddr, ph.p_vaddr + ph.p_memsz};
    }
  }
  if (dynamic == nullptr)
    r.fail("not a dynamically linked shared object (no PT_DYNAMIC segment)");

  const std::uint64_t ndyn = dynamic->p_filesz / sizeof(ElfW(Dyn));
  const auto *dyn = r.at<ElfW(Dyn)>(dynamic->p_offset, ndyn);
  DynamicTags tags;
  for (std::uint64_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; ++i)
    tags.add(dyn[i]);
  const std::uint64_t symtab = tags.symtab, strtab = tags.strtab, strsz = tags.strsz,
                      syment = tags.syment, hash = tags.hash, gnu_hash = tags.gnu_hash,
                      rela = tags.rela, relasz = tags.relasz, jmprel = tags.jmprel,
                      pltrelsz = tags.pltrelsz, pltrel = tags.pltrel;
  const bool has_rel = tags.has_rel;
  const std::vector<std::uint64_t> &needed = tags.needed;
  if (symtab == 0 || strtab == 0)
    r.fail("corrupt ELF file: no dynamic symbol table");
  if (syment != sizeof(ElfW(Sym)))
    r.fail("corrupt ELF file: unexpected dynamic symbol size");

  const std::uint64_t strings = r.offset_of(strtab, strsz, "DT_STRTAB");
  r.at<char>(strings, strsz);
  for (const std::uint64_t offset : needed) {
    const std::optional<std::string_view> name = r.string(strings, strsz, offset);
    if (!name)
      r.fail("corrupt ELF file: a DT_NEEDED name lies outside the string table");
    image.needed.emplace_back(*name);
  }
  // The hash tables count the symbols a lookup can find, and those before the first of them;
  // with none to find (a module that exports nothing), GNU ld's DT_GNU_HASH counts only the
  // null symbol. The undefined symbols the relocations name are in the table too.
  std::uint64_t nsyms = symbol_count(r, hash, gnu_hash);
  auto count_named = [&](std::uint64_t vaddr, std::uint64_t size, const char *item) {
    if (vaddr == 0 || size == 0)
      return;
    const std::uint64_t n = size / sizeof(ElfW(Rela));
    const auto *rel = r.at<ElfW(Rela)>(r.offset_of(vaddr, size, item), n);
    for (std::uint64_t i = 0; i < n; ++i)
      nsyms = std::max<std::uint64_t>(nsyms, ELF64_R_SYM(rel[i].r_info) + 1);
  };
  count_named(rela, relasz, "DT_RELA");
  if (pltrel == DT_RELA)
    count_named(jmprel, pltrelsz, "DT_JMPREL");
  const auto *syms =
      r.at<ElfW(Sym)>(r.offset_of(symtab, nsyms * sizeof(ElfW(Sym)), "DT_SYMTAB"), nsyms);
  auto name_of = [&](const ElfW(Sym) & s) -> std::string_view {
    if (s.st_name >= strsz)
      r.fail("corrupt ELF file: a symbol name lies outside the string table");
    const std::optional<std::string_view> name = r.string(strings, strsz, s.st_name);
    if (!name)
      r.fail("corrupt ELF file: unterminated symbol name");
    return *name;
  };

  // What each symbol is to us: -1 nothing, otherwise the routine id of the call site it names
  // (and whether the module calls the routine by its public name).
  std::vector<int> site_of(nsyms, -1);
  std::vector<bool> public_name(nsyms, false);
  for (std::uint64_t i = 1; i < nsyms; ++i) {
    const ElfW(Sym) &s = syms[i];
    const std::string_view name = name_of(s);
    const bool defined = s.st_shndx != SHN_UNDEF;
    if (sites == SiteNames::Mpi) {
      // A binding calls routines by either name; both are routed the same way.
      if (!defined && (name.substr(0, 4) == "MPI_" || name.substr(0, 5) == "PMPI_"))
        site_of[i] = routines.find(name.substr(0, 1) == "P" ? name.substr(1) : name);
      continue;
    }
    const unsigned bind = ELF64_ST_BIND(s.st_info);
    const bool exported = defined && (bind == STB_GLOBAL || bind == STB_WEAK) &&
                          ELF64_ST_VISIBILITY(s.st_other) == STV_DEFAULT;
    if (exported && name.substr(0, 4) == "MPI_" && ELF64_ST_TYPE(s.st_info) == STT_FUNC) {
      const int id = routines.find(name);
      if (id >= 0)
        image.wrappers.push_back({static_cast<unsigned>(id), s.st_value});
    } else if (exported && (name.substr(0, 6) == "PNMPI_" || name.substr(0, 6) == "pnmpi_")) {
      image.pnmpi_syms.emplace(std::string(name), s.st_value);
      if (name == "pnmpi_module_arguments")
        image.argument_keys = declared_keys(r, s);
    } else if (exported && name.substr(0, 5) == "PMPI_") {
      image.pmpi_defined.emplace_back(name);
    } else if (!defined && name.substr(0, 4) == "MPI_") {
      site_of[i] = routines.find(name);
      public_name[i] = true;
    } else if (!defined && name.substr(0, 5) == "PMPI_") {
      image.pmpi_imports.emplace_back(name);
    } else if (!defined && name.substr(0, 5) == "XMPI_") {
      if (name.size() > 9 && name.substr(name.size() - 9) == "_NewStack")
        continue; // reached through the core's own definition, by design
      const int id = routines.find("MPI_" + std::string(name.substr(5)));
      if (id >= 0)
        site_of[i] = id;
      else
        image.unknown_xmpi.emplace_back(name);
    }
  }
  std::sort(image.pmpi_imports.begin(), image.pmpi_imports.end());
  std::sort(image.wrappers.begin(), image.wrappers.end(),
            [](const ElfImage::Wrapper &a, const ElfImage::Wrapper &b) { return a.id < b.id; });

  if (has_rel && rela == 0 && jmprel == 0)
    r.fail("uses REL relocations, which pnmpi does not bind on this architecture");
  auto scan = [&](std::uint64_t vaddr, std::uint64_t size, const char *item) {
    if (vaddr == 0 || size == 0)
      return;
    const std::uint64_t n = size / sizeof(ElfW(Rela));
    const auto *rel = r.at<ElfW(Rela)>(r.offset_of(vaddr, size, item), n);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t sym = ELF64_R_SYM(rel[i].r_info);
      if (sym == 0)
        continue;
      if (sym >= nsyms)
        r.fail(std::string("corrupt ELF file: a relocation in ") + item +
               " names a symbol past the symbol table");
      if (site_of[sym] < 0)
        continue;
      const auto type = static_cast<std::uint32_t>(ELF64_R_TYPE(rel[i].r_info));
      bool plus_addend = false;
      if (!site_kind(type, plus_addend))
        r.fail("relocation type " + std::to_string(type) + " against " +
               std::string(name_of(syms[sym])) +
               " cannot be bound by pnmpi; rebuild the tool with -fPIC");
      image.sites.push_back({static_cast<unsigned>(site_of[sym]), rel[i].r_offset, type,
                             static_cast<std::int64_t>(rel[i].r_addend), plus_addend,
                             public_name[sym]});
    }
  };
  scan(rela, relasz, "DT_RELA");
  if (pltrel != DT_RELA && jmprel != 0)
    r.fail("uses REL PLT relocations, which pnmpi does not bind on this architecture");
  scan(jmprel, pltrelsz, "DT_JMPREL");

  // Every site must be a word inside a writable place of the loaded image. Differences only:
  // a sum of two file values can wrap around.
  for (const ElfImage::Site &site : image.sites) {
    bool inside = false;
    for (const ElfW(Phdr) * ph : r.m_loads)
      inside |= (ph->p_flags & PF_W) && site.offset >= ph->p_vaddr &&
                ph->p_memsz >= sizeof(void *) &&
                site.offset - ph->p_vaddr <= ph->p_memsz - sizeof(void *);
    if (!inside)
      r.fail("corrupt ELF file: a relocation targets memory outside the writable segments");
  }
  return image;
}

} // namespace pnmpi

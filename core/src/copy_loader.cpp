// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Further copies of a module, mapped by pnmpi rather than by the dynamic linker. The
// dynamic linker shares an object loaded twice from one file, so until now every copy was a
// file of its own: written, read, mapped and cached once per copy and per rank. A copy only
// needs its own writable data; its code can be the very pages of the original file. Here a
// copy is the file mapped again (MAP_PRIVATE, so the page cache's pages serve every copy of
// every process on the node), its writable segments relocated in place, its unwind tables
// registered and its constructors run, as the dynamic linker would.
//
// Only what can be done exactly is done: anything this file does not understand makes
// plan_copies() say why and the caller falls back to copies written to files.

#include "copy_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

#include "dynamic_tags.h"
#include "elf_view.h"
#include "error.h"

// libgcc's registry of unwind tables for code the dynamic linker does not know (what JIT
// compilers use): it makes a throw inside a copy, and a backtrace through one, find the
// copy's frames. Copies are never unmapped, so they are never deregistered.
extern "C" void __register_frame(void *begin);
// LeakSanitizer scans the data of objects the dynamic linker loaded, not of copies mapped
// here; present only in a sanitized process.
extern "C" void __lsan_register_root_region(const void *begin, std::size_t size)
    __attribute__((weak));

namespace pnmpi {

namespace {

constexpr std::uint64_t kPage = 4096; // the smallest page any supported system uses

std::uint64_t page_size() {
  static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}
std::uint64_t down(std::uint64_t v) {
  return v & ~(page_size() - 1);
}
std::uint64_t up(std::uint64_t v) {
  return (v + page_size() - 1) & ~(page_size() - 1);
}

/// What the dynamic linker passes to every initialiser (glibc gives argc, argv and envp to
/// the init functions of shared objects too), captured by libpnmpi's own.
int g_argc = 0;
char **g_argv = nullptr;
char **g_envp = nullptr;
__attribute__((constructor)) void capture_arguments(int argc, char **argv, char **envp) {
  g_argc = argc;
  g_argv = argv;
  g_envp = envp;
}

/// Why a file cannot be copied by this loader; caught in plan_copies().
struct Unsupported {
  std::string why;
};

enum class Kind : std::uint8_t {
  Relative, ///< B + A
  Absolute, ///< S + A
  Slot,     ///< S (x86-64 GLOB_DAT, JUMP_SLOT); S + A on AArch64
};

/// How a relocation type is applied, or throws Unsupported naming it.
Kind kind_of(std::uint32_t type) {
#if defined(__x86_64__)
  switch (type) {
  case R_X86_64_RELATIVE:
    return Kind::Relative;
  case R_X86_64_64:
    return Kind::Absolute;
  case R_X86_64_GLOB_DAT:
  case R_X86_64_JUMP_SLOT:
    return Kind::Slot;
  case R_X86_64_IRELATIVE:
    throw Unsupported{"it has IRELATIVE relocations (functions chosen at load time)"};
  case R_X86_64_DTPMOD64:
  case R_X86_64_DTPOFF64:
  case R_X86_64_TPOFF64:
  case R_X86_64_TLSDESC:
    throw Unsupported{"it has thread-local storage relocations"};
  }
#elif defined(__aarch64__)
  switch (type) {
  case R_AARCH64_RELATIVE:
    return Kind::Relative;
  case R_AARCH64_ABS64:
    return Kind::Absolute;
  case R_AARCH64_GLOB_DAT:
  case R_AARCH64_JUMP_SLOT:
    return Kind::Slot;
  case R_AARCH64_IRELATIVE:
    throw Unsupported{"it has IRELATIVE relocations (functions chosen at load time)"};
  case R_AARCH64_TLS_DTPMOD:
  case R_AARCH64_TLS_DTPREL:
  case R_AARCH64_TLS_TPREL:
  case R_AARCH64_TLSDESC:
    throw Unsupported{"it has thread-local storage relocations"};
  }
#endif
  throw Unsupported{"relocation type " + std::to_string(type) + " is not one this loader applies"};
}

constexpr bool kSlotAddsAddend =
#if defined(__aarch64__)
    true;
#else
    false;
#endif

/// Dynamic tags that change nothing for a copy the first copy's loading has not already
/// done (DT_NEEDED: the libraries are loaded; DT_DEBUG: the debugger's, of the first copy).
bool harmless_tag(ElfW(Sxword) tag) {
  switch (tag) {
  case DT_NULL:
  case DT_NEEDED:
  case DT_PLTRELSZ:
  case DT_PLTGOT:
  case DT_HASH:
  case DT_STRTAB:
  case DT_SYMTAB:
  case DT_RELA:
  case DT_RELASZ:
  case DT_RELAENT:
  case DT_STRSZ:
  case DT_SYMENT:
  case DT_INIT:
  case DT_FINI:
  case DT_SONAME:
  case DT_RPATH:
  case DT_PLTREL:
  case DT_DEBUG:
  case DT_JMPREL:
  case DT_BIND_NOW:
  case DT_INIT_ARRAY:
  case DT_FINI_ARRAY:
  case DT_INIT_ARRAYSZ:
  case DT_FINI_ARRAYSZ:
  case DT_RUNPATH:
  case DT_FLAGS:
  case DT_RELACOUNT:
  case DT_FLAGS_1:
  case DT_GNU_HASH:
  case DT_VERSYM:
  case DT_VERDEF:
  case DT_VERDEFNUM:
  case DT_VERNEED:
  case DT_VERNEEDNUM:
    return true;
  }
  return false;
}

/// The exit-time work of one mapped copy, kept apart from its plan (which may be gone by
/// then).
struct Finalizer {
  std::uintptr_t base;
  std::uint64_t fini_array;
  std::uint64_t fini_count;
  std::uint64_t fini;
};

using InitFn = void (*)(int, char **, char **);
using FiniFn = void (*)();

/// Never freed: exit handlers read it after static objects may be gone.
std::vector<Finalizer> &finalizers() {
  static auto *list = new std::vector<Finalizer>;
  return *list;
}

/// Runs every mapped copy's destructors, the newest copy first, as the dynamic linker runs
/// those of the objects it loaded (it runs later, so first copies go last, as they would).
void run_finalizers() {
  std::vector<Finalizer> &list = finalizers();
  while (!list.empty()) {
    const Finalizer f = list.back();
    list.pop_back();
    const auto *array = reinterpret_cast<const std::uintptr_t *>(f.base + f.fini_array);
    for (std::uint64_t i = f.fini_count; i-- > 0;)
      if (array[i] != 0 && array[i] != static_cast<std::uintptr_t>(-1))
        reinterpret_cast<FiniFn>(array[i])();
    if (f.fini != 0)
      reinterpret_cast<FiniFn>(f.base + f.fini)();
  }
}

/// Checked reads of the module file's bytes through the one ELF reader.
class Bytes {
public:
  explicit Bytes(const std::vector<unsigned char> &bytes) : m_view(bytes) {}
  template <typename T> const T *at(std::uint64_t offset, std::uint64_t count = 1) const {
    if (m_view.fault<T>(offset, count) != ElfFault::none)
      throw Unsupported{"a structure at file offset " + to_hex(offset) + " lies outside the file"};
    return m_view.native<T>(offset, count);
  }
  std::string string(std::uint64_t table, std::uint64_t size, std::uint64_t index) const {
    const auto s = m_view.string(table, size, index);
    if (!s)
      throw Unsupported{"a symbol name lies outside its string table"};
    return std::string(*s);
  }
  /// The file offset of `size` bytes at link-time address `vaddr`.
  std::uint64_t offset_of(std::uint64_t vaddr, std::uint64_t size) const {
    for (const ElfW(Phdr) * ph : loads)
      if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr <= ph->p_filesz &&
          size <= ph->p_filesz - (vaddr - ph->p_vaddr))
        return ph->p_offset + (vaddr - ph->p_vaddr);
    throw Unsupported{"address " + to_hex(vaddr) + " lies outside the file's segments"};
  }
  std::uint64_t size() const { return m_view.size(); }
  std::vector<const ElfW(Phdr) *> loads;

private:
  ElfView m_view;
};

/// The number of dynamic symbols (the dynamic linker's view: DT_HASH, else DT_GNU_HASH).
std::uint64_t symbol_count(const Bytes &b, std::uint64_t hash, std::uint64_t gnu_hash) {
  if (hash != 0)
    return b.at<ElfW(Word)>(b.offset_of(hash, 8), 2)[1];
  if (gnu_hash == 0)
    return 0;
  const std::uint64_t at = b.offset_of(gnu_hash, 16);
  const auto *h = b.at<std::uint32_t>(at, 4);
  const std::uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
  const std::uint64_t buckets_at = at + 16 + std::uint64_t(bloom) * sizeof(ElfW(Addr));
  const auto *buckets = b.at<std::uint32_t>(buckets_at, nbuckets);
  std::uint32_t last = 0;
  for (std::uint32_t i = 0; i < nbuckets; ++i)
    last = std::max(last, buckets[i]);
  if (last < symoffset)
    return symoffset;
  const std::uint64_t chains_at = buckets_at + std::uint64_t(nbuckets) * 4;
  for (;; ++last) {
    if (*b.at<std::uint32_t>(chains_at + std::uint64_t(last - symoffset) * 4) & 1u)
      return std::uint64_t(last) + 1;
  }
}

} // namespace

struct CopyPlan {
  struct Segment {
    std::uint64_t vaddr, memsz, offset, filesz;
    int prot;
  };
  std::vector<Segment> segments;
  std::uint64_t lo = 0, hi = 0;            ///< the pages the original image spans
  std::uint64_t file_end = 0;              ///< the end of the segments' bytes in the file
  std::uint64_t relro = 0, relro_size = 0; ///< PT_GNU_RELRO
  /// The images copies are mapped from: the original file (slide 0), and, made when first
  /// needed, slid images (elf_slide.h) in memory files, by slide.
  std::unordered_map<std::uint64_t, int> images;
  struct Reloc {
    std::uint64_t offset;
    std::int64_t addend;
    std::uint32_t symbol;
    Kind kind;
  };
  std::vector<Reloc> relocs;
  /// Per dynamic symbol: the copy's own definition (value is link-time) or an address
  /// outside the module (value is absolute).
  struct Target {
    bool own;
    std::uint64_t value;
  };
  std::vector<Target> targets;
  std::uint64_t init = 0, fini = 0;
  std::uint64_t init_array = 0, init_count = 0, fini_array = 0, fini_count = 0;
  std::uint64_t eh_frame = 0; ///< link-time address of .eh_frame, 0 if none
  std::unordered_map<std::string, std::uint64_t> exports;
};

void CopyPlanDeleter::operator()(CopyPlan *plan) const {
  for (const auto &[slide, fd] : plan->images)
    ::close(fd);
  delete plan;
}

namespace {

/// The version a symbol is defined or needed with (DT_VERSYM), or empty.
struct Versions {
  const ElfW(Half) *versym = nullptr;
  std::unordered_map<unsigned, std::string> names; ///< version index -> name
};

Versions read_versions(const Bytes &b, std::uint64_t versym, std::uint64_t verneed,
                       std::uint64_t verneednum, std::uint64_t verdef, std::uint64_t verdefnum,
                       std::uint64_t count, std::uint64_t strtab, std::uint64_t strsz) {
  Versions v;
  if (versym == 0)
    return v;
  v.versym = b.at<ElfW(Half)>(b.offset_of(versym, count * sizeof(ElfW(Half))), count);
  std::uint64_t at = verneed ? b.offset_of(verneed, sizeof(ElfW(Verneed))) : 0;
  for (std::uint64_t n = 0; verneed && n < verneednum; ++n) {
    const auto *need = b.at<ElfW(Verneed)>(at);
    std::uint64_t aux_at = at + need->vn_aux;
    for (unsigned k = 0; k < need->vn_cnt; ++k) {
      const auto *aux = b.at<ElfW(Vernaux)>(aux_at);
      v.names[aux->vna_other & 0x7fff] = b.string(strtab, strsz, aux->vna_name);
      if (aux->vna_next == 0)
        break;
      aux_at += aux->vna_next;
    }
    if (need->vn_next == 0)
      break;
    at += need->vn_next;
  }
  at = verdef ? b.offset_of(verdef, sizeof(ElfW(Verdef))) : 0;
  for (std::uint64_t n = 0; verdef && n < verdefnum; ++n) {
    const auto *def = b.at<ElfW(Verdef)>(at);
    if (def->vd_cnt > 0 && !(def->vd_flags & VER_FLG_BASE)) {
      const auto *aux = b.at<ElfW(Verdaux)>(at + def->vd_aux);
      v.names[def->vd_ndx & 0x7fff] = b.string(strtab, strsz, aux->vda_name);
    }
    if (def->vd_next == 0)
      break;
    at += def->vd_next;
  }
  return v;
}

/// Where the dynamic linker would find `name` (with `version` if not empty) for a copy
/// loaded RTLD_LOCAL: the global scope, then the first copy and its dependencies.
void *look_up(void *scope, const std::string &name, const std::string &version) {
  ::dlerror();
  return version.empty() ? ::dlsym(scope, name.c_str())
                         : ::dlvsym(scope, name.c_str(), version.c_str());
}

} // namespace

CopyPlanPtr plan_copies(const std::vector<unsigned char> &bytes, const std::string &path,
                        void *first, std::string &why_not, const FileIdentity *identity) {
  CopyPlanPtr plan(new CopyPlan);
  CopyPlan &p = *plan;
  try {
    if (page_size() < kPage || page_size() & (page_size() - 1))
      throw Unsupported{"the page size is unusual"};
    Bytes b(bytes);
    const auto *eh = b.at<ElfW(Ehdr)>(0);
    if (eh->e_type != ET_DYN || eh->e_phentsize != sizeof(ElfW(Phdr)))
      throw Unsupported{"it is not a shared object of this machine"};
    const auto *ph = b.at<ElfW(Phdr)>(eh->e_phoff, eh->e_phnum);
    std::uint64_t dynamic = 0, eh_frame_hdr = 0;
    std::uint64_t lo = ~std::uint64_t(0), hi = 0;
    for (unsigned i = 0; i < eh->e_phnum; ++i) {
      const ElfW(Phdr) &h = ph[i];
      switch (h.p_type) {
      case PT_LOAD: {
        if (h.p_align < page_size() || (h.p_vaddr - h.p_offset) % page_size() != 0)
          throw Unsupported{"a segment is not aligned to pages"};
        if (h.p_filesz > h.p_memsz || !range_within(h.p_offset, h.p_filesz, b.size()))
          throw Unsupported{"a segment lies outside the file"};
        if (h.p_memsz > h.p_filesz && !(h.p_flags & PF_W))
          throw Unsupported{"a read-only segment is larger in memory than in the file"};
        const int prot = ((h.p_flags & PF_R) ? PROT_READ : 0) |
                         ((h.p_flags & PF_W) ? PROT_WRITE : 0) |
                         ((h.p_flags & PF_X) ? PROT_EXEC : 0);
        if ((h.p_flags & PF_W) && (h.p_flags & PF_X))
          throw Unsupported{"a segment is both writable and executable"};
        p.segments.push_back({h.p_vaddr, h.p_memsz, h.p_offset, h.p_filesz, prot});
        p.file_end = std::max<std::uint64_t>(p.file_end, h.p_offset + h.p_filesz);
        b.loads.push_back(&h);
        lo = std::min<std::uint64_t>(lo, down(h.p_vaddr));
        hi = std::max<std::uint64_t>(hi, up(h.p_vaddr + h.p_memsz));
        break;
      }
      case PT_TLS:
        throw Unsupported{"it has thread-local storage (PT_TLS)"};
      case PT_DYNAMIC:
        dynamic = h.p_vaddr;
        break;
      case PT_GNU_RELRO:
        p.relro = h.p_vaddr;
        p.relro_size = h.p_memsz;
        break;
      case PT_GNU_EH_FRAME:
        eh_frame_hdr = h.p_vaddr;
        break;
      case PT_GNU_STACK:
        if (h.p_flags & PF_X)
          throw Unsupported{"it needs an executable stack"};
        break;
      case PT_INTERP:
        throw Unsupported{"it is a program, not a library"};
      default:
        break;
      }
    }
    if (p.segments.empty() || dynamic == 0)
      throw Unsupported{"it has no loadable or no dynamic segment"};
    p.lo = lo;
    p.hi = hi;

    struct link_map *map = nullptr;
    if (::dlinfo(first, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr)
      throw Unsupported{"the dynamic linker does not say where the first copy is"};
    const std::uintptr_t first_lo = map->l_addr + lo, first_hi = map->l_addr + hi;
    auto in_first = [&](std::uintptr_t a) { return a >= first_lo && a < first_hi; };

    const std::uint64_t dyn_at = b.offset_of(dynamic, sizeof(ElfW(Dyn)));
    DynamicTags tags;
    for (std::uint64_t k = 0;; ++k) {
      const auto *d = b.at<ElfW(Dyn)>(dyn_at + k * sizeof(ElfW(Dyn)));
      if (d->d_tag == DT_NULL)
        break;
      if (!harmless_tag(d->d_tag))
        throw Unsupported{"dynamic tag " + to_hex(static_cast<std::uint64_t>(d->d_tag)) +
                          " is not one this loader handles"};
      tags.add(*d);
    }
    if (tags.flags & (DF_SYMBOLIC | DF_TEXTREL | DF_STATIC_TLS))
      throw Unsupported{"its DT_FLAGS ask for symbolic binding, text relocations or "
                        "static TLS"};
    const std::uint64_t strtab = tags.strtab, strsz = tags.strsz, symtab = tags.symtab,
                        hash = tags.hash, gnu_hash = tags.gnu_hash, rela = tags.rela,
                        relasz = tags.relasz, jmprel = tags.jmprel, pltrelsz = tags.pltrelsz,
                        pltrel = tags.pltrel, versym = tags.versym, verneed = tags.verneed,
                        verneednum = tags.verneednum, verdef = tags.verdef,
                        verdefnum = tags.verdefnum, init_arraysz = tags.init_arraysz,
                        fini_arraysz = tags.fini_arraysz;
    p.init = tags.init;
    p.fini = tags.fini;
    p.init_array = tags.init_array;
    p.fini_array = tags.fini_array;
    if (pltrel != DT_RELA)
      throw Unsupported{"it uses REL relocations"};
    p.init_count = init_arraysz / sizeof(ElfW(Addr));
    p.fini_count = fini_arraysz / sizeof(ElfW(Addr));
    auto in_writable = [&](std::uint64_t vaddr, std::uint64_t size) {
      for (const CopyPlan::Segment &s : p.segments)
        if ((s.prot & PROT_WRITE) && vaddr >= s.vaddr && vaddr - s.vaddr <= s.memsz &&
            size <= s.memsz - (vaddr - s.vaddr))
          return true;
      return false;
    };
    if ((p.init_array && !in_writable(p.init_array, init_arraysz)) ||
        (p.fini_array && !in_writable(p.fini_array, fini_arraysz)))
      throw Unsupported{"its init or fini array lies outside its data"};

    const std::uint64_t count = symbol_count(b, hash, gnu_hash);
    const ElfW(Sym) *syms =
        count ? b.at<ElfW(Sym)>(b.offset_of(symtab, count * sizeof(ElfW(Sym))), count) : nullptr;
    const std::uint64_t str_at = strtab ? b.offset_of(strtab, strsz) : 0;
    const Versions versions =
        read_versions(b, versym, verneed, verneednum, verdef, verdefnum, count, str_at, strsz);
    for (std::uint64_t i = 1; i < count; ++i) {
      const ElfW(Sym) &s = syms[i];
      const unsigned bind = ELF64_ST_BIND(s.st_info);
      if (s.st_shndx != SHN_UNDEF && s.st_name != 0 && (bind == STB_GLOBAL || bind == STB_WEAK) &&
          ELF64_ST_VISIBILITY(s.st_other) != STV_HIDDEN)
        p.exports.emplace(b.string(str_at, strsz, s.st_name), s.st_value);
    }

    // The relocations, and for every symbol they use, where it resolves.
    std::vector<std::uint32_t> used;
    std::vector<std::int64_t> got_value(count, 0);
    std::vector<bool> has_got(count, false);
    for (const auto &[vaddr, size] : {std::pair{rela, relasz}, std::pair{jmprel, pltrelsz}}) {
      if (vaddr == 0 || size == 0)
        continue;
      const std::uint64_t n = size / sizeof(ElfW(Rela));
      const auto *r = b.at<ElfW(Rela)>(b.offset_of(vaddr, n * sizeof(ElfW(Rela))), n);
      for (std::uint64_t k = 0; k < n; ++k) {
        const auto type = static_cast<std::uint32_t>(ELF64_R_TYPE(r[k].r_info));
        const auto sym = static_cast<std::uint32_t>(ELF64_R_SYM(r[k].r_info));
#if defined(__x86_64__)
        if (type == R_X86_64_NONE)
          continue;
#elif defined(__aarch64__)
        if (type == R_AARCH64_NONE)
          continue;
#endif
        const Kind kind = kind_of(type);
        if (!in_writable(r[k].r_offset, sizeof(ElfW(Addr))))
          throw Unsupported{"a relocation at " + to_hex(r[k].r_offset) +
                            " writes outside its data (text relocation)"};
        if (kind != Kind::Relative && (sym == 0 || sym >= count))
          throw Unsupported{"a relocation names symbol " + std::to_string(sym) +
                            ", which does not exist"};
        p.relocs.push_back({r[k].r_offset, r[k].r_addend, sym, kind});
        if (kind == Kind::Relative)
          continue;
        used.push_back(sym);
        if (kind == Kind::Slot && !has_got[sym]) {
          // The first copy was bound now (RTLD_NOW), and nothing has written its GOT since:
          // this is the dynamic linker's own answer, versions and interposition included.
          std::int64_t v = 0;
          std::memcpy(&v, reinterpret_cast<const void *>(map->l_addr + r[k].r_offset), sizeof v);
          got_value[sym] = v - (kSlotAddsAddend ? r[k].r_addend : 0);
          has_got[sym] = true;
        }
      }
    }
    p.targets.assign(count, {false, 0});
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (const std::uint32_t i : used) {
      const ElfW(Sym) &s = syms[i];
      const std::string name = b.string(str_at, strsz, s.st_name);
      const unsigned type = ELF64_ST_TYPE(s.st_info);
      const bool defined = s.st_shndx != SHN_UNDEF;
      if (type == STT_TLS)
        throw Unsupported{"it uses thread-local symbol " + name};
      if (type == STT_GNU_IFUNC && defined)
        throw Unsupported{"it defines IFUNC symbol " + name + " (chosen at load time)"};
      if (s.st_shndx == SHN_ABS) {
        p.targets[i] = {false, s.st_value};
        continue;
      }
      const auto got = static_cast<std::uintptr_t>(got_value[i]);
      if (has_got[i] && (defined || !in_first(got))) {
        p.targets[i] = in_first(got) ? CopyPlan::Target{true, got - map->l_addr}
                                     : CopyPlan::Target{false, got};
        continue;
      }
      const auto it =
          versions.versym ? versions.names.find(versions.versym[i] & 0x7fff) : versions.names.end();
      const std::string version = it == versions.names.end() ? std::string() : it->second;
      if (defined) {
        void *global =
            ELF64_ST_BIND(s.st_info) == STB_LOCAL || ELF64_ST_VISIBILITY(s.st_other) != STV_DEFAULT
                ? nullptr
                : look_up(RTLD_DEFAULT, name, version);
        const auto g = reinterpret_cast<std::uintptr_t>(global);
        p.targets[i] = global != nullptr && !in_first(g) ? CopyPlan::Target{false, g}
                                                         : CopyPlan::Target{true, s.st_value};
        continue;
      }
      void *found = look_up(RTLD_DEFAULT, name, version);
      if (found == nullptr)
        found = look_up(first, name, version);
      if (found == nullptr && ELF64_ST_BIND(s.st_info) != STB_WEAK)
        throw Unsupported{"symbol " + name + (version.empty() ? "" : "@" + version) +
                          " cannot be found as the dynamic linker found it"};
      p.targets[i] = {false, reinterpret_cast<std::uintptr_t>(found)};
    }

    if (eh_frame_hdr != 0) {
      // .eh_frame_hdr: version 1, then how eh_frame_ptr is encoded; linkers write it
      // PC-relative, 4 bytes signed (DW_EH_PE_pcrel | DW_EH_PE_sdata4).
      const auto *hdr = b.at<unsigned char>(b.offset_of(eh_frame_hdr, 8), 8);
      constexpr unsigned char kPcrelSdata4 = 0x1b;
      if (hdr[0] != 1 || hdr[1] != kPcrelSdata4)
        throw Unsupported{"its .eh_frame_hdr is not in the form linkers write"};
      std::int32_t rel = 0;
      std::memcpy(&rel, hdr + 4, sizeof rel);
      p.eh_frame = eh_frame_hdr + 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(rel));
      b.offset_of(p.eh_frame, 4);
    }

    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw Unsupported{std::string("it cannot be opened again: ") + std::strerror(errno)};
    p.images.emplace(0, fd);
    struct stat st;
    if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != bytes.size() ||
        (identity != nullptr && !same_file(identity_of(st), *identity)))
      throw Unsupported{"the file changed since it was read"};
  } catch (const Unsupported &u) {
    why_not = u.why;
    return nullptr;
  }
  return plan;
}

namespace {

/// Writes `bytes` from `from` to `to` at `offset` of `fd`.
bool write_at(int fd, const unsigned char *from, const unsigned char *to, std::uint64_t offset) {
  while (from < to) {
    const ssize_t n =
        ::pwrite(fd, from, static_cast<std::size_t>(to - from), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    from += n;
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

/// A memory file (no name in any file system, gone with the process) holding the module's
/// loadable bytes slid by `slide`: the ELF header, `slide` zero bytes, the rest. This is
/// the layout slide_image() makes, without its edits of headers, symbols and relocations,
/// which only the dynamic linker reads: copies are relocated from the plan.
int slid_memory_file(const std::vector<unsigned char> &bytes, std::uint64_t end,
                     std::uint64_t slide, const std::string &context) {
  const int fd = ::memfd_create("pnmpi-copy", MFD_CLOEXEC);
  if (fd < 0)
    throw Error(context + ": cannot make a memory file for a slid copy: " + std::strerror(errno));
  constexpr std::uint64_t kHeader = sizeof(ElfW(Ehdr));
  const unsigned char *data = bytes.data();
  if (!write_at(fd, data, data + kHeader, 0) ||
      !write_at(fd, data + kHeader, data + end, kHeader + slide)) {
    const int err = errno != 0 ? errno : ENOSPC;
    ::close(fd);
    throw Error(context + ": cannot write a slid copy to memory: " + std::strerror(err));
  }
  return fd;
}

} // namespace

std::uintptr_t map_copy(CopyPlan &p, const std::vector<unsigned char> &bytes, std::uint64_t slide,
                        const std::string &context) {
  auto image = p.images.find(slide);
  if (image == p.images.end()) {
    if (slide % 64 != 0 || slide >= page_size() || p.segments.front().offset != 0 || p.lo != 0)
      throw Error(context + ": cannot slide a copy by " + std::to_string(slide) + " bytes");
    image = p.images.emplace(slide, slid_memory_file(bytes, p.file_end, slide, context)).first;
  }
  const int fd = image->second;
  // A slid image is the original with everything after the ELF header `slide` bytes higher,
  // so a copy mapped from it at `at` is the original loaded at base `at + slide`, except
  // that its first segment starts at 0 and grows by `slide`.
  std::vector<CopyPlan::Segment> segments = p.segments;
  for (CopyPlan::Segment &s : segments) {
    if (s.offset == 0) {
      s.filesz += slide;
      s.memsz += slide;
    } else {
      s.vaddr += slide;
      s.offset += slide;
    }
  }
  const std::uint64_t span = up(p.hi + slide) - p.lo;
  // One mapping of the file from its start is the whole copy where a segment sits in the
  // file at its own address (how ld lays out every segment of a shared object but, often,
  // the writable one): such a segment then only changes protection if it is not read-only,
  // and only the others are mapped again. At 100 copies that is half the system calls of
  // mapping each segment into a reservation, and the load time they cost.
  const bool file_first = p.lo == 0;
  void *area = file_first ? ::mmap(nullptr, span, PROT_READ, MAP_PRIVATE, fd, 0)
                          : ::mmap(nullptr, span, PROT_NONE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED)
    throw Error(context + ": cannot reserve " + std::to_string(span) +
                " bytes of address space for another copy: " + std::strerror(errno) +
                "; list the module fewer times");
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(area) - p.lo;
  const std::uintptr_t base = at + slide;
  auto fail = [&](const char *what) {
    const int err = errno;
    ::munmap(area, span);
    throw Error(context + ": cannot map another copy (" + what + "): " + std::strerror(err));
  };
  for (const CopyPlan::Segment &s : segments) {
    const std::uint64_t start = down(s.vaddr);
    const std::uint64_t file_end = s.vaddr + s.filesz; // link-time address in the image
    if (s.filesz > 0) {
      const std::uint64_t length = up(file_end) - start;
      void *const where = reinterpret_cast<void *>(at + start);
      if (file_first && down(s.offset) == start
              ? s.prot != PROT_READ && ::mprotect(where, length, s.prot) != 0
              : ::mmap(where, length, s.prot, MAP_PRIVATE | MAP_FIXED, fd,
                       static_cast<off_t>(down(s.offset))) == MAP_FAILED)
        fail("mapping a segment of the file");
    }
    const std::uint64_t mem_end = up(s.vaddr + s.memsz);
    if (s.memsz > s.filesz) {
      // .bss: the rest of the file's last page is zeroed (it holds whatever follows in the
      // file), the pages after it are fresh.
      const std::uint64_t zero_from = s.filesz > 0 ? file_end : start;
      const std::uint64_t zero_to = std::min(up(zero_from), mem_end);
      if (s.filesz > 0 && zero_to > zero_from)
        std::memset(reinterpret_cast<void *>(at + zero_from), 0, zero_to - zero_from);
      const std::uint64_t anon = s.filesz > 0 ? up(file_end) : start;
      if (mem_end > anon && ::mmap(reinterpret_cast<void *>(at + anon), mem_end - anon, s.prot,
                                   MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
        fail("mapping zeroed data");
    }
  }

  for (const CopyPlan::Reloc &r : p.relocs) {
    std::uintptr_t value = 0;
    if (r.kind == Kind::Relative) {
      value = base + static_cast<std::uintptr_t>(r.addend);
    } else {
      const CopyPlan::Target &t = p.targets[r.symbol];
      value = t.own ? base + t.value : t.value;
      if (r.kind == Kind::Absolute || kSlotAddsAddend)
        value += static_cast<std::uintptr_t>(r.addend);
    }
    std::memcpy(reinterpret_cast<void *>(base + r.offset), &value, sizeof value);
  }
  // The RELRO pages stay writable until the core has bound the copy's calls (protect_copy()):
  // making them read-only here would cost a window of two more system calls per copy then.
  if (&__lsan_register_root_region != nullptr)
    for (const CopyPlan::Segment &s : p.segments)
      if (s.prot & PROT_WRITE)
        __lsan_register_root_region(reinterpret_cast<void *>(base + s.vaddr), s.memsz);
  if (p.eh_frame != 0)
    __register_frame(reinterpret_cast<void *>(base + p.eh_frame));

  static const bool registered = std::atexit(run_finalizers) == 0;
  if (!registered)
    throw Error(context + ": cannot arrange for the copy's destructors to run at exit");
  std::vector<Finalizer> &list = finalizers();
  if (p.init != 0)
    reinterpret_cast<InitFn>(base + p.init)(g_argc, g_argv, g_envp);
  const auto *array = reinterpret_cast<const std::uintptr_t *>(base + p.init_array);
  for (std::uint64_t i = 0; p.init_array != 0 && i < p.init_count; ++i)
    if (array[i] != 0 && array[i] != static_cast<std::uintptr_t>(-1))
      reinterpret_cast<InitFn>(array[i])(g_argc, g_argv, g_envp);
  if (p.fini != 0 || (p.fini_array != 0 && p.fini_count != 0))
    list.push_back({base, p.fini_array, p.fini_array ? p.fini_count : 0, p.fini});
  return base;
}

void protect_copy(const CopyPlan &p, std::uintptr_t base) {
  // As the dynamic linker does: both ends rounded down (a partial last page stays writable).
  const std::uint64_t relro_begin = down(base + p.relro),
                      relro_end = down(base + p.relro + p.relro_size);
  if (relro_end > relro_begin &&
      ::mprotect(reinterpret_cast<void *>(relro_begin), relro_end - relro_begin, PROT_READ) != 0)
    throw Error(std::string("cannot make a copy's relocated data read-only: ") +
                std::strerror(errno));
}

void *copy_symbol(const CopyPlan &plan, std::uintptr_t base, const char *name) {
  const auto it = plan.exports.find(name);
  return it == plan.exports.end() ? nullptr : reinterpret_cast<void *>(base + it->second);
}

} // namespace pnmpi

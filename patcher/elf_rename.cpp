// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The patcher never lays out an ELF file. libelf reads and translates (any class, either byte
// order); the output is the input's bytes with a few fields rewritten at offsets that were
// validated against the file, plus, only when a renamed name shares bytes with another
// string, a new segment appended at the end. So every byte we do not mean to change stays
// identical, and check_patched() proves exactly that on the file written.

#include "elf_rename.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <libelf.h>
#include <map>
#include <memory>
#include <random>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pnmpi {

namespace {

constexpr std::string_view kPmpi = "PMPI_";
constexpr std::string_view kXmpi = "XMPI_";
constexpr std::uint16_t kVersionHidden = 0x8000;

[[noreturn]] void fail(PatchErrorKind kind, const std::string &label, const std::string &message) {
  throw PatchError(kind, label + ": " + message);
}

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return buf;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

void init_libelf() {
  static const bool ok = elf_version(EV_CURRENT) != EV_NONE;
  if (!ok)
    throw PatchError(PatchErrorKind::internal, std::string("libelf: ") + elf_errmsg(-1));
}

std::string libelf_error() {
  const char *message = elf_errmsg(-1);
  return message ? message : "unknown libelf error";
}

struct ElfDeleter {
  void operator()(Elf *elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfDeleter>;

std::size_t file_size_of(unsigned elf_class, Elf_Type type) {
  return elf_class == ELFCLASS32 ? elf32_fsize(type, 1, EV_CURRENT)
                                 : elf64_fsize(type, 1, EV_CURRENT);
}

/// Translates between native structures and file bytes of one class and byte order.
class Codec {
public:
  Codec(unsigned elf_class, unsigned byte_order) : m_class(elf_class), m_data(byte_order) {}

  std::vector<unsigned char> to_file(Elf_Type type, const void *native,
                                     std::size_t native_size) const {
    std::vector<unsigned char> out(file_size_of(m_class, type));
    Elf_Data src{};
    src.d_buf = const_cast<void *>(native);
    src.d_type = type;
    src.d_size = native_size;
    src.d_version = EV_CURRENT;
    Elf_Data dst{};
    dst.d_buf = out.data();
    dst.d_size = out.size();
    dst.d_version = EV_CURRENT;
    Elf_Data *done = m_class == ELFCLASS32 ? elf32_xlatetof(&dst, &src, m_data)
                                           : elf64_xlatetof(&dst, &src, m_data);
    if (!done || dst.d_size != out.size())
      throw PatchError(PatchErrorKind::internal, "libelf cannot encode: " + libelf_error());
    return out;
  }

  void from_file(Elf_Type type, const unsigned char *file, void *native,
                 std::size_t native_size) const {
    Elf_Data src{};
    src.d_buf = const_cast<unsigned char *>(file);
    src.d_type = type;
    src.d_size = file_size_of(m_class, type);
    src.d_version = EV_CURRENT;
    Elf_Data dst{};
    dst.d_buf = native;
    dst.d_size = native_size;
    dst.d_version = EV_CURRENT;
    Elf_Data *done = m_class == ELFCLASS32 ? elf32_xlatetom(&dst, &src, m_data)
                                           : elf64_xlatetom(&dst, &src, m_data);
    if (!done)
      throw PatchError(PatchErrorKind::internal, "libelf cannot decode: " + libelf_error());
  }

  std::vector<unsigned char> half(std::uint16_t value) const {
    return to_file(ELF_T_HALF, &value, sizeof value);
  }

  std::vector<unsigned char> ehdr(const GElf_Ehdr &h) const {
    if (m_class == ELFCLASS64)
      return to_file(ELF_T_EHDR, &h, sizeof h);
    Elf32_Ehdr e{};
    std::memcpy(e.e_ident, h.e_ident, EI_NIDENT);
    e.e_type = h.e_type;
    e.e_machine = h.e_machine;
    e.e_version = h.e_version;
    e.e_entry = narrow(h.e_entry);
    e.e_phoff = narrow(h.e_phoff);
    e.e_shoff = narrow(h.e_shoff);
    e.e_flags = h.e_flags;
    e.e_ehsize = h.e_ehsize;
    e.e_phentsize = h.e_phentsize;
    e.e_phnum = h.e_phnum;
    e.e_shentsize = h.e_shentsize;
    e.e_shnum = h.e_shnum;
    e.e_shstrndx = h.e_shstrndx;
    return to_file(ELF_T_EHDR, &e, sizeof e);
  }

  std::vector<unsigned char> phdr(const GElf_Phdr &p) const {
    if (m_class == ELFCLASS64)
      return to_file(ELF_T_PHDR, &p, sizeof p);
    Elf32_Phdr e{};
    e.p_type = p.p_type;
    e.p_offset = narrow(p.p_offset);
    e.p_vaddr = narrow(p.p_vaddr);
    e.p_paddr = narrow(p.p_paddr);
    e.p_filesz = narrow(p.p_filesz);
    e.p_memsz = narrow(p.p_memsz);
    e.p_flags = p.p_flags;
    e.p_align = narrow(p.p_align);
    return to_file(ELF_T_PHDR, &e, sizeof e);
  }

  std::vector<unsigned char> shdr(const GElf_Shdr &s) const {
    if (m_class == ELFCLASS64)
      return to_file(ELF_T_SHDR, &s, sizeof s);
    Elf32_Shdr e{};
    e.sh_name = s.sh_name;
    e.sh_type = s.sh_type;
    e.sh_flags = narrow(s.sh_flags);
    e.sh_addr = narrow(s.sh_addr);
    e.sh_offset = narrow(s.sh_offset);
    e.sh_size = narrow(s.sh_size);
    e.sh_link = s.sh_link;
    e.sh_info = s.sh_info;
    e.sh_addralign = narrow(s.sh_addralign);
    e.sh_entsize = narrow(s.sh_entsize);
    return to_file(ELF_T_SHDR, &e, sizeof e);
  }

  std::vector<unsigned char> dyn(const GElf_Dyn &d) const {
    if (m_class == ELFCLASS64)
      return to_file(ELF_T_DYN, &d, sizeof d);
    Elf32_Dyn e{};
    if (d.d_tag < INT32_MIN || d.d_tag > INT32_MAX)
      throw PatchError(PatchErrorKind::internal, "dynamic tag does not fit ELF32");
    e.d_tag = static_cast<Elf32_Sword>(d.d_tag);
    e.d_un.d_val = narrow(d.d_un.d_val);
    return to_file(ELF_T_DYN, &e, sizeof e);
  }

  std::vector<unsigned char> sym(const GElf_Sym &s) const {
    if (m_class == ELFCLASS64)
      return to_file(ELF_T_SYM, &s, sizeof s);
    Elf32_Sym e{};
    e.st_name = s.st_name;
    e.st_value = narrow(s.st_value);
    e.st_size = narrow(s.st_size);
    e.st_info = s.st_info;
    e.st_other = s.st_other;
    e.st_shndx = s.st_shndx;
    return to_file(ELF_T_SYM, &e, sizeof e);
  }

  /// One word of a SysV hash table (4 bytes, or 8 on 64-bit s390 and Alpha).
  std::vector<unsigned char> hash_word(std::uint64_t value, std::uint64_t entsize) const {
    if (entsize == 8)
      return to_file(ELF_T_XWORD, &value, sizeof value);
    std::uint32_t word = narrow(value);
    return to_file(ELF_T_WORD, &word, sizeof word);
  }

  std::uint64_t read_hash_word(const unsigned char *file, std::uint64_t entsize) const {
    if (entsize == 8) {
      std::uint64_t value = 0;
      from_file(ELF_T_XWORD, file, &value, sizeof value);
      return value;
    }
    std::uint32_t word = 0;
    from_file(ELF_T_WORD, file, &word, sizeof word);
    return word;
  }

private:
  static std::uint32_t narrow(std::uint64_t value) {
    if (value > UINT32_MAX)
      throw PatchError(PatchErrorKind::internal, "value " + hex(value) + " does not fit ELF32");
    return static_cast<std::uint32_t>(value);
  }

  unsigned m_class;
  unsigned m_data;
};

const char *string_tag_name(std::int64_t tag) {
  switch (tag) {
  case DT_NEEDED:
    return "DT_NEEDED";
  case DT_SONAME:
    return "DT_SONAME";
  case DT_RPATH:
    return "DT_RPATH";
  case DT_RUNPATH:
    return "DT_RUNPATH";
  case DT_AUXILIARY:
    return "DT_AUXILIARY";
  case DT_FILTER:
    return "DT_FILTER";
  case DT_CONFIG:
    return "DT_CONFIG";
  case DT_DEPAUDIT:
    return "DT_DEPAUDIT";
  case DT_AUDIT:
    return "DT_AUDIT";
  }
  return nullptr;
}

/// The first problem of a SysV hash table, or "" if every non-local symbol is found under its
/// hash, every chained symbol is chained under its own hash, and no chain loops.
std::string sysv_hash_problem(const std::vector<std::uint64_t> &words,
                              const std::vector<DynSymbol> &symbols) {
  const std::uint64_t nbucket = words[0];
  const std::uint64_t nchain = words[1];
  std::vector<unsigned char> seen(nchain, 0);
  for (std::uint64_t b = 0; b < nbucket; ++b) {
    std::uint64_t steps = 0;
    for (std::uint64_t i = words[2 + b]; i != STN_UNDEF; i = words[2 + nbucket + i]) {
      if (i >= nchain)
        return "bucket " + std::to_string(b) + " reaches symbol index " + std::to_string(i) +
               " beyond nchain " + std::to_string(nchain);
      if (++steps > nchain || seen[i])
        return "symbol " + std::to_string(i) + " is listed twice or its chain loops";
      seen[i] = 1;
      if (elf_sysv_hash(symbols[i].name) % nbucket != b)
        return "symbol " + std::to_string(i) + " (" + symbols[i].name + ") is in bucket " +
               std::to_string(b) + ", not under its hash";
    }
  }
  // Linkers leave local (section) symbols out; every global one must be findable.
  for (std::uint64_t i = 1; i < nchain; ++i)
    if (!seen[i] && symbols[i].binding() != STB_LOCAL)
      return "symbol " + std::to_string(i) + " (" + symbols[i].name + ") is in no chain";
  return "";
}

} // namespace

bool range_within(std::uint64_t offset, std::uint64_t size, std::uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

bool align_up(std::uint64_t value, std::uint64_t align, std::uint64_t &result) {
  if (align <= 1) {
    result = value;
    return true;
  }
  const std::uint64_t mask = align - 1;
  if (value > UINT64_MAX - mask)
    return false;
  result = (value + mask) & ~mask;
  return true;
}

std::uint32_t elf_sysv_hash(std::string_view name) {
  std::uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    const std::uint32_t g = h & 0xf0000000u;
    if (g)
      h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

std::string archive_link_hint(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
  if (stem.size() > 2 && stem.compare(stem.size() - 2, 2, ".a") == 0)
    stem.resize(stem.size() - 2);
  return "gcc -shared -o " + stem + ".so -Wl,--whole-archive " + path + " -Wl,--no-whole-archive";
}

// ---------------------------------------------------------------------------------------------
// Reading

class ElfParser {
public:
  ElfParser(std::vector<unsigned char> bytes, std::string label) {
    m_obj.m_bytes = std::move(bytes);
    m_obj.m_label = std::move(label);
  }

  ElfObject run() {
    check_ident();
    read_header();
    open_libelf();
    read_sections();
    read_segments();
    check_layout();
    read_symbols();
    read_versions();
    read_dynamic();
    read_hashes();
    cross_check();
    return std::move(m_obj);
  }

private:
  [[noreturn]] void invalid(const std::string &message) const {
    fail(PatchErrorKind::invalid, m_obj.m_label, message);
  }
  [[noreturn]] void refuse(const std::string &message) const {
    fail(PatchErrorKind::refused, m_obj.m_label, message);
  }

  std::uint64_t file_size() const { return m_obj.m_bytes.size(); }

  std::string describe(const SectionInfo &s) const {
    return "section [" + std::to_string(s.index) + "] '" + s.name + "'";
  }

  void check_ident() {
    const auto &b = m_obj.m_bytes;
    static const char kArchive[] = "!<arch>\n";
    static const char kThinArchive[] = "!<thin>\n";
    if (b.size() >= 8 &&
        (std::memcmp(b.data(), kArchive, 8) == 0 || std::memcmp(b.data(), kThinArchive, 8) == 0))
      refuse("is a static archive; pnmpi-patch needs a shared object. Link the archive into "
             "one first (its objects must be compiled with -fPIC): " +
             archive_link_hint(m_obj.m_label));
    const std::size_t magic = std::min<std::size_t>(b.size(), SELFMAG);
    if (b.empty() || std::memcmp(b.data(), ELFMAG, magic) != 0)
      invalid("not an ELF file (bad magic)");
    if (b.size() < EI_NIDENT)
      invalid("truncated ELF header (" + std::to_string(b.size()) + " bytes)");
    if (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64)
      invalid("unsupported ELF class " + std::to_string(b[EI_CLASS]));
    if (b[EI_DATA] != ELFDATA2LSB && b[EI_DATA] != ELFDATA2MSB)
      invalid("unsupported ELF byte order " + std::to_string(b[EI_DATA]));
    if (b[EI_VERSION] != EV_CURRENT)
      invalid("unsupported ELF version " + std::to_string(b[EI_VERSION]));
  }

  // The header is decoded and its tables checked before libelf sees the image, so that each
  // problem gets its own message instead of libelf's generic "invalid ELF file".
  void read_header() {
    const auto &b = m_obj.m_bytes;
    m_class = b[EI_CLASS];
    m_codec = std::make_unique<Codec>(m_class, b[EI_DATA]);
    const std::size_t ehsize = file_size_of(m_class, ELF_T_EHDR);
    if (b.size() < ehsize)
      invalid("truncated ELF header (" + std::to_string(b.size()) + " bytes, needs " +
              std::to_string(ehsize) + ")");
    GElf_Ehdr &h = m_obj.m_ehdr;
    if (m_class == ELFCLASS64) {
      m_codec->from_file(ELF_T_EHDR, b.data(), &h, sizeof h);
    } else {
      Elf32_Ehdr e{};
      m_codec->from_file(ELF_T_EHDR, b.data(), &e, sizeof e);
      std::memcpy(h.e_ident, e.e_ident, EI_NIDENT);
      h.e_type = e.e_type;
      h.e_machine = e.e_machine;
      h.e_version = e.e_version;
      h.e_entry = e.e_entry;
      h.e_phoff = e.e_phoff;
      h.e_shoff = e.e_shoff;
      h.e_flags = e.e_flags;
      h.e_ehsize = e.e_ehsize;
      h.e_phentsize = e.e_phentsize;
      h.e_phnum = e.e_phnum;
      h.e_shentsize = e.e_shentsize;
      h.e_shnum = e.e_shnum;
      h.e_shstrndx = e.e_shstrndx;
    }
    if (h.e_ehsize != ehsize)
      invalid("ELF header size " + std::to_string(h.e_ehsize) + ", expected " +
              std::to_string(ehsize));
    if (h.e_type == ET_REL)
      refuse("is a relocatable object (.o) and has no dynamic symbols; link it into a shared "
             "object first, e.g. gcc -shared -o libtool.so " +
             m_obj.m_label);
    if (h.e_type != ET_DYN)
      refuse("is not a shared object (ELF type " + std::to_string(h.e_type) + ")");

    if (h.e_shoff == 0)
      refuse("has no section headers; pnmpi-patch needs them to find .dynsym");
    m_shentsize = file_size_of(m_class, ELF_T_SHDR);
    if (h.e_shentsize != m_shentsize)
      invalid("section header entry size " + std::to_string(h.e_shentsize) + ", expected " +
              std::to_string(m_shentsize));
    const std::uint64_t shnum = h.e_shnum == 0 ? 1 : h.e_shnum; // 0: count in section 0
    if (!range_within(h.e_shoff, shnum * m_shentsize, file_size()))
      invalid("section header table (offset " + hex(h.e_shoff) + ", " + std::to_string(shnum) +
              " entries) extends past the end of the file (" + std::to_string(file_size()) +
              " bytes)");
    m_phentsize = file_size_of(m_class, ELF_T_PHDR);
    if (h.e_phnum != 0 && h.e_phnum != PN_XNUM) {
      if (h.e_phentsize != m_phentsize)
        invalid("program header entry size " + std::to_string(h.e_phentsize) + ", expected " +
                std::to_string(m_phentsize));
      if (!range_within(h.e_phoff, std::uint64_t{h.e_phnum} * m_phentsize, file_size()))
        invalid("program header table (offset " + hex(h.e_phoff) + ", " +
                std::to_string(h.e_phnum) + " entries) extends past the end of the file (" +
                std::to_string(file_size()) + " bytes)");
    }
  }

  void open_libelf() {
    init_libelf();
    // libelf may translate or cache data inside the image it is given: give it its own copy.
    m_libelf_copy.assign(m_obj.m_bytes.begin(), m_obj.m_bytes.end());
    m_elf.reset(elf_memory(reinterpret_cast<char *>(m_libelf_copy.data()), m_libelf_copy.size()));
    if (!m_elf || elf_kind(m_elf.get()) != ELF_K_ELF)
      invalid("libelf cannot read it: " + libelf_error());
  }

  void read_sections() {
    std::size_t count = 0;
    std::size_t strndx = 0;
    if (elf_getshdrnum(m_elf.get(), &count) != 0)
      invalid("cannot read the section count: " + libelf_error());
    const GElf_Ehdr &h = m_obj.m_ehdr;
    if (count == 0)
      refuse("has no section headers; pnmpi-patch needs them to find .dynsym");
    if (count > (file_size() - h.e_shoff) / m_shentsize)
      invalid("section header table (offset " + hex(h.e_shoff) + ", " + std::to_string(count) +
              " entries) extends past the end of the file (" + std::to_string(file_size()) +
              " bytes)");
    if (elf_getshdrstrndx(m_elf.get(), &strndx) != 0)
      invalid("cannot read the section name table index: " + libelf_error());
    if (strndx == SHN_UNDEF || strndx >= count)
      invalid("section name table index " + std::to_string(strndx) + " is out of range (" +
              std::to_string(count) + " sections)");

    m_sections.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Shdr s;
      Elf_Scn *scn = elf_getscn(m_elf.get(), i);
      if (!scn || !gelf_getshdr(scn, &s))
        invalid("cannot read section header " + std::to_string(i) + ": " + libelf_error());
      SectionInfo &info = m_sections[i];
      info.index = i;
      info.name_offset = s.sh_name;
      info.type = s.sh_type;
      info.flags = s.sh_flags;
      info.addr = s.sh_addr;
      info.offset = s.sh_offset;
      info.size = s.sh_size;
      info.link = s.sh_link;
      info.info = s.sh_info;
      info.addralign = s.sh_addralign;
      info.entsize = s.sh_entsize;
      info.header_offset = h.e_shoff + i * m_shentsize;
      if (i != 0 && s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL &&
          !range_within(s.sh_offset, s.sh_size, file_size()))
        invalid("section [" + std::to_string(i) + "] (offset " + hex(s.sh_offset) + ", size " +
                hex(s.sh_size) + ") extends past the end of the file (" +
                std::to_string(file_size()) + " bytes)");
    }

    m_shstrndx = strndx;
    const SectionInfo &names = m_sections[strndx];
    if (names.type != SHT_STRTAB)
      invalid("section name table [" + std::to_string(strndx) + "] is not a string table");
    const char *table = reinterpret_cast<const char *>(m_obj.m_bytes.data()) + names.offset;
    for (std::size_t i = 1; i < count; ++i) {
      SectionInfo &info = m_sections[i];
      if (info.name_offset >= names.size)
        invalid("section [" + std::to_string(i) + "]: name offset " + hex(info.name_offset) +
                " is beyond the section name table (size " + hex(names.size) + ")");
      const void *end = std::memchr(table + info.name_offset, '\0', names.size - info.name_offset);
      if (!end)
        invalid("section [" + std::to_string(i) + "]: name is not NUL-terminated");
      info.name.assign(table + info.name_offset, static_cast<const char *>(end));
    }
  }

  void read_segments() {
    std::size_t count = 0;
    if (elf_getphdrnum(m_elf.get(), &count) != 0)
      invalid("cannot read the program header count: " + libelf_error());
    const GElf_Ehdr &h = m_obj.m_ehdr;
    if (count != 0 && (h.e_phentsize != m_phentsize ||
                       !range_within(h.e_phoff, count * m_phentsize, file_size())))
      invalid("program header table (offset " + hex(h.e_phoff) + ", " + std::to_string(count) +
              " entries) extends past the end of the file (" + std::to_string(file_size()) +
              " bytes)");
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Phdr p;
      if (!gelf_getphdr(m_elf.get(), static_cast<int>(i), &p))
        invalid("cannot read program header " + std::to_string(i) + ": " + libelf_error());
      if (p.p_type == PT_LOAD) {
        if (!range_within(p.p_offset, p.p_filesz, file_size()))
          invalid("segment " + std::to_string(i) + " (PT_LOAD, offset " + hex(p.p_offset) +
                  ", size " + hex(p.p_filesz) + ") extends past the end of the file");
        if (p.p_filesz > p.p_memsz)
          invalid("segment " + std::to_string(i) + " (PT_LOAD) has p_filesz " + hex(p.p_filesz) +
                  " > p_memsz " + hex(p.p_memsz));
      }
      m_obj.m_phdrs.push_back(p);
    }
  }

  /// Linkers give the ELF header, the program and section header tables and each section's
  /// contents bytes of their own. Patching relies on it: an edit to one must not change what
  /// is read from another (a section name, a string, a symbol), so overlaps are refused.
  void check_layout() const {
    struct Extent {
      std::uint64_t offset;
      std::uint64_t size;
      std::string what;
    };
    const GElf_Ehdr &h = m_obj.m_ehdr;
    std::vector<Extent> extents;
    extents.push_back({0, file_size_of(m_class, ELF_T_EHDR), "the ELF header"});
    if (!m_obj.m_phdrs.empty())
      extents.push_back(
          {h.e_phoff, m_obj.m_phdrs.size() * m_phentsize, "the program header table"});
    extents.push_back({h.e_shoff, m_sections.size() * m_shentsize, "the section header table"});
    for (const SectionInfo &s : m_sections)
      if (s.index != 0 && s.type != SHT_NOBITS && s.type != SHT_NULL && s.size != 0)
        extents.push_back({s.offset, s.size, describe(s)});
    std::stable_sort(extents.begin(), extents.end(),
                     [](const Extent &a, const Extent &b) { return a.offset < b.offset; });
    // Sorted by start, any overlap shows between neighbours.
    for (std::size_t i = 1; i < extents.size(); ++i) {
      const Extent &a = extents[i - 1];
      const Extent &b = extents[i];
      if (b.offset - a.offset < a.size)
        invalid(b.what + " (offset " + hex(b.offset) + ", size " + hex(b.size) + ") overlaps " +
                a.what + " (offset " + hex(a.offset) + ", size " + hex(a.size) + ")");
    }
  }

  /// The one section of `type`, or an absent one; several are an error.
  SectionInfo unique_section(std::uint32_t type, const char *what) const {
    SectionInfo found;
    for (const SectionInfo &s : m_sections)
      if (s.index != 0 && s.type == type) {
        if (found.present())
          invalid(std::string("has more than one ") + what + " section");
        found = s;
      }
    return found;
  }

  /// The section's data as libelf translates it; gelf_get* take int offsets, so it is capped.
  Elf_Data *section_data(const SectionInfo &s) const {
    Elf_Data *data = elf_getdata(elf_getscn(m_elf.get(), s.index), nullptr);
    if (!data)
      invalid("cannot read " + describe(s) + ": " + libelf_error());
    if (data->d_size > INT_MAX)
      invalid(describe(s) + " is too large");
    return data;
  }

  /// The NUL-terminated `.dynstr` string at `offset`, referenced by `what`.
  std::string dynstr_string(std::uint64_t offset, const std::string &what) const {
    const SectionInfo &s = m_obj.m_dynstr;
    if (offset >= s.size)
      invalid(what + ": name offset " + hex(offset) + " is beyond the end of '" + s.name +
              "' (size " + hex(s.size) + ")");
    const char *table = reinterpret_cast<const char *>(m_obj.m_bytes.data()) + s.offset;
    const void *end = std::memchr(table + offset, '\0', s.size - offset);
    if (!end)
      invalid(what + ": name at '" + s.name + "' offset " + hex(offset) + " is not NUL-terminated");
    return std::string(table + offset, static_cast<const char *>(end));
  }

  void require_link_to_dynstr(const SectionInfo &s) const {
    if (s.link != m_obj.m_dynstr.index)
      invalid(describe(s) + " links to section " + std::to_string(s.link) + ", not to '" +
              m_obj.m_dynstr.name + "'");
  }

  void read_symbols() {
    SectionInfo sym = unique_section(SHT_DYNSYM, ".dynsym");
    if (!sym.present())
      refuse("has no dynamic symbol table (.dynsym)");
    m_obj.m_dynsym = sym;
    const std::size_t entsize = file_size_of(m_class, ELF_T_SYM);
    if (sym.entsize != entsize)
      invalid(describe(sym) + " has entry size " + std::to_string(sym.entsize) + ", expected " +
              std::to_string(entsize));
    if (sym.size % entsize != 0)
      invalid(describe(sym) + " size " + hex(sym.size) + " is not a multiple of its entry size " +
              std::to_string(entsize));
    if (sym.link == 0 || sym.link >= m_sections.size() || m_sections[sym.link].type != SHT_STRTAB)
      invalid(describe(sym) + " links to section " + std::to_string(sym.link) +
              ", which is not a string table");
    m_obj.m_dynstr = m_sections[sym.link];
    if (sym.link == m_shstrndx)
      refuse(describe(m_obj.m_dynstr) +
             " holds both the dynamic strings and the section names, which no linker does; "
             "renaming a string could rename a section");
    const std::size_t count = sym.size / entsize;
    if (count <= 1)
      refuse("has no dynamic symbols");
    if (count > INT_MAX)
      invalid(describe(sym) + " has too many entries");

    Elf_Data *data = section_data(sym);
    m_obj.m_symbols.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(data, static_cast<int>(i), &s))
        invalid("cannot read dynamic symbol " + std::to_string(i) + ": " + libelf_error());
      DynSymbol &d = m_obj.m_symbols[i];
      d.index = i;
      d.name_offset = s.st_name;
      d.name = dynstr_string(s.st_name, "dynamic symbol " + std::to_string(i));
      d.value = s.st_value;
      d.size = s.st_size;
      d.shndx = s.st_shndx;
      d.info = s.st_info;
      d.other = s.st_other;
    }

    for (const SectionInfo &s : m_sections)
      if (s.index != 0 && s.link == m_obj.m_dynstr.index && s.type != SHT_DYNSYM &&
          s.type != SHT_DYNAMIC && s.type != SHT_GNU_verneed && s.type != SHT_GNU_verdef)
        m_obj.m_unknown_users.push_back(describe(s));
  }

  void read_versions() {
    const std::size_t count = m_obj.m_symbols.size();
    SectionInfo versym = unique_section(SHT_GNU_versym, ".gnu.version");
    if (versym.present()) {
      if (versym.link != m_obj.m_dynsym.index)
        invalid(describe(versym) + " links to section " + std::to_string(versym.link) +
                ", not to '" + m_obj.m_dynsym.name + "'");
      if (versym.entsize != 2 || versym.size != count * 2)
        invalid(describe(versym) + " has " + std::to_string(versym.size) + " bytes of entry size " +
                std::to_string(versym.entsize) + " for " + std::to_string(count) +
                " dynamic symbols");
      Elf_Data *data = section_data(versym);
      for (std::size_t i = 0; i < count; ++i) {
        GElf_Versym v;
        if (!gelf_getversym(data, static_cast<int>(i), &v))
          invalid("cannot read version of dynamic symbol " + std::to_string(i) + ": " +
                  libelf_error());
        m_obj.m_symbols[i].version_index = v & ~kVersionHidden;
      }
      m_obj.m_versym = versym;
    }

    m_verneed = unique_section(SHT_GNU_verneed, ".gnu.version_r");
    if (m_verneed.present())
      read_verneed();
    m_verdef = unique_section(SHT_GNU_verdef, ".gnu.version_d");
    if (m_verdef.present())
      read_verdef();
    for (DynSymbol &d : m_obj.m_symbols)
      if (d.version_index >= 2) {
        auto it = m_version_names.find(d.version_index);
        if (it != m_version_names.end())
          d.version = it->second;
      }
  }

  void add_use(std::uint64_t offset, const std::string &what) {
    StringUse use;
    use.offset = static_cast<std::uint32_t>(offset);
    use.what = what;
    use.value = dynstr_string(offset, what);
    m_obj.m_string_uses.push_back(use);
  }

  // Version records are chains of relative offsets; each step must stay inside the section
  // and move forward, so a walk ends after at most size / record-size steps.
  void read_verneed() {
    const SectionInfo &s = m_verneed;
    require_link_to_dynstr(s);
    Elf_Data *data = section_data(s);
    const std::uint64_t record = 16; // Verneed and Vernaux have this size in both classes
    std::uint64_t offset = 0;
    for (std::uint32_t n = 0; n < s.info; ++n) {
      if (!range_within(offset, record, data->d_size))
        invalid(describe(s) + ": entry " + std::to_string(n) + " at offset " + hex(offset) +
                " is outside the section");
      GElf_Verneed vn;
      if (!gelf_getverneed(data, static_cast<int>(offset), &vn))
        invalid(describe(s) + ": cannot read entry " + std::to_string(n) + ": " + libelf_error());
      add_use(vn.vn_file, "vn_file of " + describe(s) + " entry " + std::to_string(n));
      std::uint64_t aux = offset + vn.vn_aux;
      for (std::uint16_t k = 0; k < vn.vn_cnt; ++k) {
        if (!range_within(aux, record, data->d_size))
          invalid(describe(s) + ": auxiliary entry " + std::to_string(k) + " of entry " +
                  std::to_string(n) + " at offset " + hex(aux) + " is outside the section");
        GElf_Vernaux vna;
        if (!gelf_getvernaux(data, static_cast<int>(aux), &vna))
          invalid(describe(s) + ": cannot read auxiliary entry: " + libelf_error());
        add_use(vna.vna_name, "vna_name of " + describe(s) + " entry " + std::to_string(n));
        m_version_names[vna.vna_other & ~kVersionHidden] = m_obj.m_string_uses.back().value;
        if (vna.vna_next == 0 && k + 1 < vn.vn_cnt)
          invalid(describe(s) + ": entry " + std::to_string(n) + " ends after " +
                  std::to_string(k + 1) + " of " + std::to_string(vn.vn_cnt) +
                  " auxiliary entries");
        aux += vna.vna_next;
      }
      if (vn.vn_next == 0 && n + 1 < s.info)
        invalid(describe(s) + " ends after " + std::to_string(n + 1) + " of " +
                std::to_string(s.info) + " entries");
      offset += vn.vn_next;
    }
  }

  void read_verdef() {
    const SectionInfo &s = m_verdef;
    require_link_to_dynstr(s);
    Elf_Data *data = section_data(s);
    const std::uint64_t def_size = 20;
    const std::uint64_t aux_size = 8;
    std::uint64_t offset = 0;
    for (std::uint32_t n = 0; n < s.info; ++n) {
      if (!range_within(offset, def_size, data->d_size))
        invalid(describe(s) + ": entry " + std::to_string(n) + " at offset " + hex(offset) +
                " is outside the section");
      GElf_Verdef vd;
      if (!gelf_getverdef(data, static_cast<int>(offset), &vd))
        invalid(describe(s) + ": cannot read entry " + std::to_string(n) + ": " + libelf_error());
      std::uint64_t aux = offset + vd.vd_aux;
      for (std::uint16_t k = 0; k < vd.vd_cnt; ++k) {
        if (!range_within(aux, aux_size, data->d_size))
          invalid(describe(s) + ": auxiliary entry " + std::to_string(k) + " of entry " +
                  std::to_string(n) + " at offset " + hex(aux) + " is outside the section");
        GElf_Verdaux vda;
        if (!gelf_getverdaux(data, static_cast<int>(aux), &vda))
          invalid(describe(s) + ": cannot read auxiliary entry: " + libelf_error());
        add_use(vda.vda_name, "vda_name of " + describe(s) + " entry " + std::to_string(n));
        if (k == 0)
          m_version_names.emplace(vd.vd_ndx & ~kVersionHidden, m_obj.m_string_uses.back().value);
        if (vda.vda_next == 0 && k + 1 < vd.vd_cnt)
          invalid(describe(s) + ": entry " + std::to_string(n) + " ends after " +
                  std::to_string(k + 1) + " of " + std::to_string(vd.vd_cnt) +
                  " auxiliary entries");
        aux += vda.vda_next;
      }
      if (vd.vd_next == 0 && n + 1 < s.info)
        invalid(describe(s) + " ends after " + std::to_string(n + 1) + " of " +
                std::to_string(s.info) + " entries");
      offset += vd.vd_next;
    }
  }

  void read_dynamic() {
    SectionInfo s = unique_section(SHT_DYNAMIC, ".dynamic");
    if (!s.present())
      invalid("has no .dynamic section");
    const std::size_t entsize = file_size_of(m_class, ELF_T_DYN);
    if (s.entsize != entsize)
      invalid(describe(s) + " has entry size " + std::to_string(s.entsize) + ", expected " +
              std::to_string(entsize));
    if (s.size % entsize != 0)
      invalid(describe(s) + " size " + hex(s.size) + " is not a multiple of its entry size " +
              std::to_string(entsize));
    require_link_to_dynstr(s);
    m_dynamic_section = s;
    Elf_Data *data = section_data(s);
    const std::size_t count = s.size / entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Dyn d;
      if (!gelf_getdyn(data, static_cast<int>(i), &d))
        invalid("cannot read dynamic entry " + std::to_string(i) + ": " + libelf_error());
      if (d.d_tag == DT_NULL)
        break;
      DynamicEntry e;
      e.tag = d.d_tag;
      e.value = d.d_un.d_val;
      e.file_offset = s.offset + i * entsize;
      m_obj.m_dynamic.push_back(e);
      if (const char *name = string_tag_name(d.d_tag))
        add_use(d.d_un.d_val, name);
    }
  }

  void read_hashes() {
    const std::size_t count = m_obj.m_symbols.size();
    SectionInfo hash = unique_section(SHT_HASH, ".hash");
    if (hash.present()) {
      if (hash.link != m_obj.m_dynsym.index)
        invalid(describe(hash) + " does not link to '" + m_obj.m_dynsym.name + "'");
      const std::uint64_t es = hash.entsize;
      if (es != 4 && !(es == 8 && m_class == ELFCLASS64))
        invalid(describe(hash) + " has entry size " + std::to_string(es));
      if (hash.size < 2 * es || hash.size % es != 0)
        invalid(describe(hash) + " size " + hex(hash.size) + " cannot hold its header");
      const unsigned char *base = m_obj.m_bytes.data() + hash.offset;
      const std::uint64_t nbucket = m_codec->read_hash_word(base, es);
      const std::uint64_t nchain = m_codec->read_hash_word(base + es, es);
      const std::uint64_t words = hash.size / es;
      if (nbucket == 0 || nbucket > words - 2 || nchain != words - 2 - nbucket)
        invalid(describe(hash) + " holds " + std::to_string(words) + " words for nbucket " +
                std::to_string(nbucket) + " and nchain " + std::to_string(nchain));
      if (nchain != count)
        invalid(describe(hash) + " has nchain " + std::to_string(nchain) + " for " +
                std::to_string(count) + " dynamic symbols");
      auto &w = m_obj.m_hash_words;
      w.resize(words);
      for (std::uint64_t i = 0; i < words; ++i)
        w[i] = m_codec->read_hash_word(base + i * es, es);
      const std::string problem = sysv_hash_problem(w, m_obj.m_symbols);
      if (!problem.empty())
        invalid(describe(hash) + " is inconsistent: " + problem);
      m_obj.m_hash = hash;
    }

    m_obj.m_gnu_hash_first = count;
    SectionInfo gnu = unique_section(SHT_GNU_HASH, ".gnu.hash");
    if (gnu.present()) {
      if (gnu.link != m_obj.m_dynsym.index)
        invalid(describe(gnu) + " does not link to '" + m_obj.m_dynsym.name + "'");
      if (gnu.size < 16)
        invalid(describe(gnu) + " size " + hex(gnu.size) + " cannot hold its header");
      const std::uint64_t symoffset =
          m_codec->read_hash_word(m_obj.m_bytes.data() + gnu.offset + 4, 4);
      if (symoffset > count)
        invalid(describe(gnu) + " starts at symbol " + std::to_string(symoffset) + " of " +
                std::to_string(count));
      m_obj.m_gnu_hash_first = symoffset;
      m_obj.m_gnu_hash = gnu;
    }
  }

  const DynamicEntry *find_dynamic(std::int64_t tag) const {
    for (const DynamicEntry &e : m_obj.m_dynamic)
      if (e.tag == tag)
        return &e;
    return nullptr;
  }

  /// The loader finds these tables through `.dynamic` and PT_LOAD, the patcher through the
  /// section headers: both views must agree, or a patch of the section would not be seen.
  void require_address(std::int64_t tag, const char *tag_name, const SectionInfo &s) const {
    const DynamicEntry *e = find_dynamic(tag);
    if (!s.present()) {
      if (e)
        invalid(std::string(tag_name) + " is set but there is no matching section");
      return;
    }
    if (!e)
      invalid(describe(s) + " has no " + tag_name + " entry in .dynamic");
    if (e->value != s.addr)
      invalid(std::string(tag_name) + " (" + hex(e->value) + ") is not the address of " +
              describe(s) + " (" + hex(s.addr) + ")");
    bool loaded = false;
    for (const GElf_Phdr &p : m_obj.m_phdrs)
      if (p.p_type == PT_LOAD && s.addr >= p.p_vaddr && s.offset >= p.p_offset &&
          s.addr - p.p_vaddr == s.offset - p.p_offset &&
          range_within(s.addr - p.p_vaddr, s.size, p.p_filesz))
        loaded = true;
    if (!loaded)
      invalid(describe(s) + " (address " + hex(s.addr) + ", offset " + hex(s.offset) +
              ") is not loaded from that offset by any PT_LOAD segment");
  }

  void require_value(std::int64_t tag, const char *tag_name, std::uint64_t expected,
                     const std::string &what) const {
    const DynamicEntry *e = find_dynamic(tag);
    if (e && e->value != expected)
      invalid(std::string(tag_name) + " (" + std::to_string(e->value) + ") does not match " + what +
              " (" + std::to_string(expected) + ")");
  }

  void cross_check() const {
    require_address(DT_STRTAB, "DT_STRTAB", m_obj.m_dynstr);
    require_value(DT_STRSZ, "DT_STRSZ", m_obj.m_dynstr.size, "the size of '.dynstr'");
    require_address(DT_SYMTAB, "DT_SYMTAB", m_obj.m_dynsym);
    require_value(DT_SYMENT, "DT_SYMENT", m_obj.m_dynsym.entsize, "the '.dynsym' entry size");
    require_address(DT_VERSYM, "DT_VERSYM", m_obj.m_versym);
    require_address(DT_VERNEED, "DT_VERNEED", m_verneed);
    if (m_verneed.present())
      require_value(DT_VERNEEDNUM, "DT_VERNEEDNUM", m_verneed.info,
                    "the entry count of " + describe(m_verneed));
    require_address(DT_VERDEF, "DT_VERDEF", m_verdef);
    if (m_verdef.present())
      require_value(DT_VERDEFNUM, "DT_VERDEFNUM", m_verdef.info,
                    "the entry count of " + describe(m_verdef));
    require_address(DT_HASH, "DT_HASH", m_obj.m_hash);
    require_address(DT_GNU_HASH, "DT_GNU_HASH", m_obj.m_gnu_hash);
    for (const GElf_Phdr &p : m_obj.m_phdrs)
      if (p.p_type == PT_DYNAMIC && p.p_offset != m_dynamic_section.offset)
        invalid("PT_DYNAMIC (offset " + hex(p.p_offset) + ") is not " +
                describe(m_dynamic_section) + " (offset " + hex(m_dynamic_section.offset) + ")");
  }

  ElfObject m_obj;
  unsigned m_class = 0;
  std::unique_ptr<Codec> m_codec;
  std::size_t m_shentsize = 0;
  std::size_t m_phentsize = 0;
  std::vector<unsigned char> m_libelf_copy;
  ElfHandle m_elf;
  std::vector<SectionInfo> m_sections;
  std::size_t m_shstrndx = 0; ///< the section name table
  SectionInfo m_dynamic_section, m_verneed, m_verdef;
  std::map<std::uint16_t, std::string> m_version_names;
};

ElfObject ElfObject::parse(std::vector<unsigned char> bytes, std::string label) {
  return ElfParser(std::move(bytes), std::move(label)).run();
}

ElfObject ElfObject::load(const std::string &path, struct stat &status, std::uint64_t max_size) {
  auto io_error = [&path](const std::string &what) {
    fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };
  // stat before open: opening a FIFO waits for a writer, and opening a device can act on it
  // (a tape rewinds). O_NONBLOCK and the fstat below close the race with a node swapped in.
  struct stat named;
  if (stat(path.c_str(), &named) != 0)
    io_error("cannot open");
  if (!S_ISREG(named.st_mode))
    fail(PatchErrorKind::io, path, "not a regular file");
  struct Descriptor {
    int fd;
    ~Descriptor() {
      if (fd >= 0)
        close(fd);
    }
  } file{open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  const int fd = file.fd;
  if (fd < 0)
    io_error("cannot open");
  if (fstat(fd, &status) != 0)
    io_error("cannot stat");
  if (!S_ISREG(status.st_mode))
    fail(PatchErrorKind::io, path, "not a regular file");
  auto too_large = [&](std::uint64_t size) {
    std::string limit = std::to_string(max_size) + " bytes";
    if (max_size % (std::uint64_t(1) << 30) == 0)
      limit += " (" + std::to_string(max_size >> 30) + " GiB)";
    fail(PatchErrorKind::refused, path,
         "is too large: " + std::to_string(size) + " bytes, more than the limit of " + limit +
             "; a PMPI tool is far smaller, so check that this is the right file");
  };
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > max_size)
    too_large(size);

  // Read what fstat promised, and no more than the limit if the file grows meanwhile.
  std::vector<unsigned char> bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  unsigned char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      io_error("cannot read");
    if (n == 0)
      break;
    if (bytes.size() + static_cast<std::size_t>(n) > max_size)
      too_large(bytes.size() + static_cast<std::size_t>(n));
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return parse(std::move(bytes), path);
}

std::vector<std::string> ElfObject::needed() const {
  std::vector<std::string> names;
  for (const StringUse &use : m_string_uses)
    if (use.what == "DT_NEEDED")
      names.push_back(use.value);
  return names;
}

std::string_view ElfObject::dynstr_bytes() const {
  return std::string_view(reinterpret_cast<const char *>(m_bytes.data()) + m_dynstr.offset,
                          m_dynstr.size);
}

// ---------------------------------------------------------------------------------------------
// Planning

std::vector<std::pair<std::size_t, std::size_t>>
find_shared_bytes(std::string_view table, const std::vector<DynstrString> &strings) {
  // (offset of a changed byte, index of the renamed string), sorted by offset
  std::vector<std::pair<std::uint64_t, std::size_t>> changed;
  for (std::size_t i = 0; i < strings.size(); ++i)
    if (strings[i].renamed && strings[i].offset < table.size())
      changed.emplace_back(strings[i].offset, i);
  std::sort(changed.begin(), changed.end());

  std::vector<std::pair<std::size_t, std::size_t>> shared;
  for (std::size_t u = 0; u < strings.size(); ++u) {
    const std::uint64_t offset = strings[u].offset;
    if (offset >= table.size())
      continue;
    const std::size_t nul = table.find('\0', offset);
    const std::uint64_t end = nul == std::string_view::npos ? table.size() : nul;
    // A renamed string may change only its own first byte.
    const std::uint64_t first = strings[u].renamed ? offset + 1 : offset;
    auto it =
        std::lower_bound(changed.begin(), changed.end(), std::make_pair(first, std::size_t{0}));
    for (; it != changed.end() && it->first < end; ++it)
      shared.emplace_back(it->second, u);
  }
  std::sort(shared.begin(), shared.end());
  return shared;
}

namespace {

/// Where a relocated `.dynstr` goes: a new PT_LOAD at the end of the file that holds a copy
/// of the program header table (one entry longer) followed by the new string table.
struct RelocationLayout {
  std::uint64_t offset = 0; ///< file offset of the new segment (and of the phdr table)
  std::uint64_t vaddr = 0;
  std::uint64_t align = 1;
  std::uint64_t phdr_size = 0;
  std::size_t insert_at = 0; ///< index of the new PT_LOAD in the new phdr table
};

/// Why `.dynstr` cannot move, or "" with `layout` filled in.
std::string plan_relocation(const ElfObject &obj, std::uint64_t strtab_size,
                            RelocationLayout &layout) {
  if (obj.header().e_type != ET_DYN)
    return "it is not a shared object";
  std::uint64_t vaddr_end = 0;
  std::size_t last_load = 0;
  bool any_load = false;
  for (std::size_t i = 0; i < obj.segments().size(); ++i) {
    const GElf_Phdr &p = obj.segments()[i];
    if (p.p_type == PT_PHDR || p.p_type == PT_INTERP)
      return "it has a PT_PHDR or PT_INTERP segment (an executable)";
    if (p.p_type != PT_LOAD)
      continue;
    if (p.p_align > 1 && (p.p_align & (p.p_align - 1)) != 0)
      return "a PT_LOAD segment has alignment " + hex(p.p_align) + ", not a power of two";
    layout.align = std::max<std::uint64_t>(layout.align, p.p_align);
    if (p.p_vaddr > UINT64_MAX - p.p_memsz)
      return "a PT_LOAD segment wraps around the address space";
    vaddr_end = std::max(vaddr_end, p.p_vaddr + p.p_memsz);
    last_load = i;
    any_load = true;
  }
  if (!any_load)
    return "it has no PT_LOAD segment";
  const std::size_t phnum = obj.segments().size() + 1;
  if (phnum >= PN_XNUM)
    return "it has too many program headers";
  int strtab_tags = 0;
  int strsz_tags = 0;
  for (const DynamicEntry &e : obj.dynamic()) {
    strtab_tags += e.tag == DT_STRTAB;
    strsz_tags += e.tag == DT_STRSZ;
  }
  if (strtab_tags != 1 || strsz_tags != 1)
    return "its .dynamic does not have exactly one DT_STRTAB and one DT_STRSZ";

  const unsigned elf_class = obj.elf_class();
  const std::uint64_t word = elf_class == ELFCLASS32 ? 4 : 8;
  layout.phdr_size = phnum * file_size_of(elf_class, ELF_T_PHDR);
  layout.insert_at = last_load + 1;
  std::uint64_t base = 0;
  if (!align_up(obj.bytes().size(), word, layout.offset) ||
      !align_up(vaddr_end, layout.align, base) || base > UINT64_MAX - layout.align)
    return "the new segment would not fit the address space";
  layout.vaddr = base + layout.offset % layout.align;
  const std::uint64_t limit = elf_class == ELFCLASS32 ? UINT32_MAX : UINT64_MAX;
  const std::uint64_t size = layout.phdr_size + strtab_size;
  if (!range_within(layout.offset, size, limit) || !range_within(layout.vaddr, size, limit))
    return "the new segment would not fit the address space";
  return "";
}

/// The new string table of a relocation: the old one, unchanged, then each new name once.
std::string relocated_strtab(const ElfObject &obj, const RenamePlan &plan,
                             std::map<std::string, std::uint32_t> &offsets) {
  std::string table(obj.dynstr_bytes());
  for (const Rename &r : plan.renames)
    if (offsets.emplace(r.to, static_cast<std::uint32_t>(table.size())).second) {
      table += r.to;
      table.push_back('\0');
    }
  return table;
}

} // namespace

RenamePlan plan_renames(const ElfObject &obj, const PlanOptions &options) {
  RenamePlan plan;
  std::vector<std::string> defined_pmpi;
  for (const DynSymbol &s : obj.symbols()) {
    if (s.index == 0)
      continue;
    if (starts_with(s.name, kPmpi)) {
      if (s.defined()) {
        defined_pmpi.push_back(s.name);
        continue;
      }
      // The dynamic linker binds a local symbol to its own object, never by name: a local
      // import is malformed, and .hash may rightly leave it out of every chain.
      if (s.binding() == STB_LOCAL)
        fail(PatchErrorKind::invalid, obj.label(),
             "import " + s.name + " (dynamic symbol " + std::to_string(s.index) +
                 ") is local, so no dynamic linker would look it up; the file is malformed");
      Rename r;
      r.symbol = s.index;
      r.from = s.name;
      r.to = std::string(kXmpi) + s.name.substr(kPmpi.size());
      r.version = s.version;
      r.old_version_index = s.version_index;
      r.new_version_index =
          options.reset_versions && s.version_index >= 2 ? VER_NDX_GLOBAL : s.version_index;
      plan.renames.push_back(r);
    } else if (starts_with(s.name, kXmpi) && !s.defined()) {
      ++plan.xmpi_imports;
    }
  }

  const std::string &label = obj.label();
  if (!defined_pmpi.empty()) {
    std::string examples;
    for (std::size_t i = 0; i < defined_pmpi.size() && i < 3; ++i)
      examples += (i ? ", " : "") + defined_pmpi[i];
    fail(PatchErrorKind::refused, label,
         "defines " + std::to_string(defined_pmpi.size()) + " PMPI_ symbol(s) (" + examples +
             (defined_pmpi.size() > 3 ? ", ..." : "") +
             "): it is an MPI library, not a PMPI tool; only a tool's PMPI_ imports can be "
             "renamed");
  }
  if (plan.renames.empty()) {
    if (plan.xmpi_imports != 0)
      fail(PatchErrorKind::already_patched, label,
           "already patched: it imports " + std::to_string(plan.xmpi_imports) +
               " XMPI_ symbol(s) and no PMPI_ symbol");
    return plan;
  }

  // Linkers hash only defined symbols in .gnu.hash; a hashed import would need a new table.
  for (const Rename &r : plan.renames)
    if (r.symbol >= obj.gnu_hash_first())
      fail(PatchErrorKind::refused, label,
           "import " + r.from + " (dynamic symbol " + std::to_string(r.symbol) +
               ") is covered by .gnu.hash, which linkers never do; refusing to patch");

  // Prove that flipping the first byte of each renamed name changes no other name.
  std::vector<DynstrString> strings;
  std::vector<std::string> what;
  std::size_t next_rename = 0;
  for (const DynSymbol &s : obj.symbols()) { // index 0 too: a corrupt null symbol has a name
    const bool renamed =
        next_rename < plan.renames.size() && plan.renames[next_rename].symbol == s.index;
    next_rename += renamed;
    strings.push_back({s.name_offset, renamed});
    what.push_back(s.name + " (dynamic symbol " + std::to_string(s.index) + ")");
  }
  for (const StringUse &use : obj.string_uses()) {
    strings.push_back({use.offset, false});
    what.push_back(use.value + " (" + use.what + ")");
  }
  for (const auto &[renamed, user] : find_shared_bytes(obj.dynstr_bytes(), strings))
    plan.shared.push_back({what[renamed], what[user]});
  plan.unknown_users = obj.unknown_dynstr_users();

  if (!plan.shared.empty() || !plan.unknown_users.empty()) {
    plan.relocate_dynstr = true;
    std::map<std::string, std::uint32_t> offsets;
    RelocationLayout layout;
    const std::string why =
        plan_relocation(obj, relocated_strtab(obj, plan, offsets).size(), layout);
    if (!why.empty()) {
      const std::string reason = plan.shared.empty()
                                     ? "'.dynstr' is also used by " + plan.unknown_users.front() +
                                           ", whose references pnmpi-patch cannot check"
                                     : "the first byte of " + plan.shared.front().renamed +
                                           " is shared with " + plan.shared.front().user;
      fail(PatchErrorKind::refused, label,
           "cannot rename in place: " + reason + ", and '.dynstr' cannot be moved: " + why);
    }
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Applying

PatchedImage apply_renames(const ElfObject &obj, const RenamePlan &plan) {
  PatchedImage out;
  out.bytes = obj.bytes();
  const Codec codec(obj.elf_class(), obj.byte_order());
  auto edit = [&out, &obj](std::uint64_t offset, std::vector<unsigned char> bytes) {
    if (!range_within(offset, bytes.size(), obj.bytes().size()))
      throw PatchError(PatchErrorKind::internal,
                       obj.label() + ": edit at " + hex(offset) + " is outside the file");
    std::copy(bytes.begin(), bytes.end(), out.bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    out.edits.push_back({offset, std::move(bytes)});
  };
  if (plan.renames.empty())
    return out;

  const SectionInfo &dynstr = obj.dynstr();
  const SectionInfo &dynsym = obj.dynsym();
  if (!plan.relocate_dynstr) {
    for (const Rename &r : plan.renames)
      edit(dynstr.offset + obj.symbols()[r.symbol].name_offset,
           {static_cast<unsigned char>(kXmpi[0])});
  } else {
    std::map<std::string, std::uint32_t> offsets;
    const std::string table = relocated_strtab(obj, plan, offsets);
    RelocationLayout layout;
    const std::string why = plan_relocation(obj, table.size(), layout);
    if (!why.empty())
      throw PatchError(PatchErrorKind::internal, obj.label() + ": " + why);

    std::vector<GElf_Phdr> phdrs = obj.segments();
    GElf_Phdr load{};
    load.p_type = PT_LOAD;
    load.p_flags = PF_R;
    load.p_offset = layout.offset;
    load.p_vaddr = layout.vaddr;
    load.p_paddr = layout.vaddr;
    load.p_filesz = layout.phdr_size + table.size();
    load.p_memsz = load.p_filesz;
    load.p_align = layout.align;
    phdrs.insert(phdrs.begin() + static_cast<std::ptrdiff_t>(layout.insert_at), load);

    out.bytes.resize(layout.offset, 0);
    for (const GElf_Phdr &p : phdrs) {
      const auto encoded = codec.phdr(p);
      out.bytes.insert(out.bytes.end(), encoded.begin(), encoded.end());
    }
    out.bytes.insert(out.bytes.end(), table.begin(), table.end());
    out.appended = out.bytes.size() - obj.bytes().size();

    const std::uint64_t strtab_offset = layout.offset + layout.phdr_size;
    const std::uint64_t strtab_vaddr = layout.vaddr + layout.phdr_size;
    GElf_Ehdr h = obj.header();
    h.e_phoff = layout.offset;
    h.e_phnum = static_cast<GElf_Half>(phdrs.size());
    edit(0, codec.ehdr(h));
    for (const DynamicEntry &e : obj.dynamic()) {
      GElf_Dyn d{};
      d.d_tag = e.tag;
      if (e.tag == DT_STRTAB)
        d.d_un.d_ptr = strtab_vaddr;
      else if (e.tag == DT_STRSZ)
        d.d_un.d_val = table.size();
      else
        continue;
      edit(e.file_offset, codec.dyn(d));
    }
    GElf_Shdr s{};
    s.sh_name = dynstr.name_offset;
    s.sh_type = dynstr.type;
    s.sh_flags = dynstr.flags;
    s.sh_addr = strtab_vaddr;
    s.sh_offset = strtab_offset;
    s.sh_size = table.size();
    s.sh_link = dynstr.link;
    s.sh_info = dynstr.info;
    s.sh_addralign = dynstr.addralign;
    s.sh_entsize = dynstr.entsize;
    edit(dynstr.header_offset, codec.shdr(s));
    for (const Rename &r : plan.renames) {
      const DynSymbol &d = obj.symbols()[r.symbol];
      GElf_Sym sym{};
      sym.st_name = offsets.at(r.to);
      sym.st_info = d.info;
      sym.st_other = d.other;
      sym.st_shndx = d.shndx;
      sym.st_value = d.value;
      sym.st_size = d.size;
      edit(dynsym.offset + r.symbol * dynsym.entsize, codec.sym(sym));
    }
  }

  if (obj.versym().present())
    for (const Rename &r : plan.renames)
      if (r.new_version_index != r.old_version_index)
        edit(obj.versym().offset + 2 * r.symbol, codec.half(r.new_version_index));

  // A SysV .hash chains every symbol, imports included: move each renamed import from the
  // chain of its old name's hash to that of its new name.
  if (!obj.hash_words().empty()) {
    std::vector<std::uint64_t> words = obj.hash_words();
    const std::uint64_t nbucket = words[0];
    const std::uint64_t chains = 2 + nbucket;
    for (const Rename &r : plan.renames) {
      const std::uint64_t from = elf_sysv_hash(r.from) % nbucket;
      const std::uint64_t to = elf_sysv_hash(r.to) % nbucket;
      if (from == to)
        continue;
      std::uint64_t *link = &words[2 + from];
      std::uint64_t steps = 0;
      while (*link != r.symbol) {
        if (*link == STN_UNDEF || ++steps > words[1])
          throw PatchError(PatchErrorKind::internal,
                           obj.label() + ": " + r.from + " is missing from '.hash'");
        link = &words[chains + *link];
      }
      *link = words[chains + r.symbol];
      words[chains + r.symbol] = words[2 + to];
      words[2 + to] = r.symbol;
    }
    const SectionInfo &hash = obj.sysv_hash();
    for (std::size_t i = 0; i < words.size(); ++i)
      if (words[i] != obj.hash_words()[i])
        edit(hash.offset + i * hash.entsize, codec.hash_word(words[i], hash.entsize));
  }
  return out;
}

void check_patched(const ElfObject &before, const RenamePlan &plan, const PatchedImage &image,
                   const ElfObject &after) {
  auto bad = [&after](const std::string &message) {
    throw PatchError(PatchErrorKind::internal,
                     after.label() + ": the patched output failed validation: " + message);
  };
  const auto &in = before.bytes();
  const auto &out = after.bytes();
  if (out != image.bytes)
    bad("the file differs from the patched image");
  if (out.size() != in.size() + image.appended)
    bad("size " + std::to_string(out.size()) + ", expected " +
        std::to_string(in.size() + image.appended));
  std::vector<unsigned char> editable(in.size(), 0);
  for (const Edit &e : image.edits)
    for (std::size_t i = 0; i < e.bytes.size(); ++i)
      editable[e.offset + i] = 1;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] != out[i] && !editable[i])
      bad("byte at offset " + hex(i) + " changed outside the planned edits");

  const auto &old_syms = before.symbols();
  const auto &new_syms = after.symbols();
  if (old_syms.size() != new_syms.size())
    bad("it has " + std::to_string(new_syms.size()) + " dynamic symbols, not " +
        std::to_string(old_syms.size()));
  std::vector<const Rename *> renamed(old_syms.size(), nullptr);
  for (const Rename &r : plan.renames)
    renamed[r.symbol] = &r;
  for (std::size_t i = 0; i < old_syms.size(); ++i) {
    const DynSymbol &o = old_syms[i];
    const DynSymbol &n = new_syms[i];
    const Rename *r = renamed[i];
    const std::string &name = r ? r->to : o.name;
    const std::uint16_t version = r ? r->new_version_index : o.version_index;
    if (n.name != name)
      bad("dynamic symbol " + std::to_string(i) + " is named " + n.name + ", expected " + name);
    if (n.version_index != version)
      bad("dynamic symbol " + std::to_string(i) + " (" + name + ") has version index " +
          std::to_string(n.version_index) + ", expected " + std::to_string(version));
    if (n.value != o.value || n.size != o.size || n.shndx != o.shndx || n.info != o.info ||
        n.other != o.other)
      bad("dynamic symbol " + std::to_string(i) + " (" + name + ") changed beyond its name");
  }
  const auto &old_uses = before.string_uses();
  const auto &new_uses = after.string_uses();
  if (old_uses.size() != new_uses.size())
    bad("it has " + std::to_string(new_uses.size()) +
        " strings in .dynamic and version "
        "sections, not " +
        std::to_string(old_uses.size()));
  for (std::size_t i = 0; i < old_uses.size(); ++i)
    if (old_uses[i].what != new_uses[i].what || old_uses[i].value != new_uses[i].value)
      bad(old_uses[i].what + " reads '" + new_uses[i].value + "', expected '" + old_uses[i].value +
          "'");
  if (before.hash_words().empty() != after.hash_words().empty())
    bad("'.hash' appeared or disappeared");
}

// ---------------------------------------------------------------------------------------------
// Writing

namespace {

/// "a FIFO", "a character device", ...: what a file that is not regular is.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISLNK(mode))
    return "a symbolic link";
  return "a special file";
}

std::string octal_mode(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

/// The directory part of `path` as given ("." if none, else up to and including the last
/// '/'), and the name in it.
std::pair<std::string, std::string> split_path(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {".", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

/// A name for a temporary file that does not exist yet is not enough: it must be created
/// with O_EXCL. This only supplies the candidates.
std::string random_suffix() {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kChars - 2);
  std::string suffix(6, 'x');
  for (char &c : suffix)
    c = kChars[pick(device)];
  return suffix;
}

} // namespace

OutputTarget check_output(const std::string &path) {
  auto io_error = [&path](const std::string &what) {
    fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };
  auto refuse = [&path](const std::string &message) {
    fail(PatchErrorKind::refused, path, message);
  };
  OutputTarget target;
  struct stat named;
  if (lstat(path.c_str(), &named) != 0) {
    if (errno != ENOENT)
      io_error("cannot stat");
    target.path = path;
    return target;
  }
  std::string link_note;
  if (S_ISLNK(named.st_mode)) {
    // Followed, as documented; but never to create a file where a dangling link points.
    std::vector<char> buf(PATH_MAX + 1, '\0');
    const ssize_t n = readlink(path.c_str(), buf.data(), PATH_MAX);
    const std::string dest = n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : "?";
    if (stat(path.c_str(), &named) != 0) {
      if (errno == ENOENT)
        refuse("is a symbolic link to a missing file (" + dest +
               "); pnmpi-patch does not create a file through a link: remove the link or "
               "write to another OUT");
      io_error("cannot follow the symbolic link to " + dest);
    }
    link_note = "a symbolic link to " + dest + ", which is ";
  }
  if (!S_ISREG(named.st_mode))
    refuse("is " + link_note + kind_of(named.st_mode) +
           ", not a regular file; pnmpi-patch replaces only regular files: write to another "
           "OUT");
  if (named.st_uid != geteuid())
    refuse("is owned by user " + std::to_string(named.st_uid) + ", not by you (user " +
           std::to_string(geteuid()) +
           "); replacing it would make it yours: run as its owner or write to another OUT");
  // The owner's write bit, not access(2): root may write anything, but a file its owner
  // made read-only is not to be replaced behind their back.
  if ((named.st_mode & S_IWUSR) == 0)
    refuse("is read-only (mode " + octal_mode(named.st_mode) +
           "); make it writable or write to another OUT");
  if (named.st_nlink > 1)
    refuse("has " + std::to_string(named.st_nlink) +
           " hard links; replacing it would change this name only and leave the other links "
           "with the old contents: remove the other links or write to another OUT");

  if (link_note.empty()) {
    target.path = path;
  } else {
    char *resolved = realpath(path.c_str(), nullptr);
    if (!resolved)
      io_error("cannot resolve");
    target.path = resolved;
    std::free(resolved);
  }
  target.exists = true;
  target.status = named;
  return target;
}

void write_file_atomically(const std::string &path, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check) {
  write_file_atomically(check_output(path), bytes, mode, check);
}

void write_file_atomically(const OutputTarget &target, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check) {
  const std::string &path = target.path;
  const auto [dir, base] = split_path(path);
  auto io_error = [&path](const std::string &what) {
    fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };

  // While the temporary file exists, the signals that would end the process wait until it
  // is renamed or removed; SIGXFSZ (over RLIMIT_FSIZE) then fails write() with EFBIG instead.
  // Declared first, so that it is restored last.
  struct SignalBlock {
    sigset_t saved;
    SignalBlock() {
      sigset_t set;
      sigemptyset(&set);
      for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ})
        sigaddset(&set, signal);
      pthread_sigmask(SIG_BLOCK, &set, &saved);
    }
    ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &saved, nullptr); }
  } block;

  // Every step below is relative to this one directory, so that a directory renamed or
  // replaced by a link meanwhile cannot redirect the output.
  struct Cleanup {
    int dir_fd = -1;
    int fd = -1;
    std::string name; ///< of the temporary file in dir_fd, while it must be removed
    ~Cleanup() {
      if (fd >= 0)
        close(fd);
      if (!name.empty())
        unlinkat(dir_fd, name.c_str(), 0);
      if (dir_fd >= 0)
        close(dir_fd);
    }
  } cleanup;
  cleanup.dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cleanup.dir_fd < 0)
    io_error("cannot create a temporary file in " + dir);

  // O_EXCL creates a new file or fails, and with O_NOFOLLOW never follows a planted link.
  const std::string stem = "." + base.substr(0, 200) + ".pnmpi-patch.";
  std::string name;
  for (int attempt = 0; cleanup.fd < 0; ++attempt) {
    name = stem + random_suffix();
    cleanup.fd = openat(cleanup.dir_fd, name.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (cleanup.fd < 0 && (errno != EEXIST || attempt == 100))
      io_error("cannot create a temporary file in " + dir);
  }
  cleanup.name = name;
  const std::string temporary = path.find('/') == std::string::npos ? name : dir + name;
  const int fd = cleanup.fd;

  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      io_error("cannot write " + temporary);
    done += static_cast<std::size_t>(n);
  }
  // The group before the mode: chown may clear set-id bits.
  struct stat written;
  if (fstat(fd, &written) != 0)
    io_error("cannot stat " + temporary);
  if (target.exists && written.st_gid != target.status.st_gid &&
      fchown(fd, static_cast<uid_t>(-1), target.status.st_gid) != 0)
    io_error("cannot give " + temporary + " the group of the file it replaces (group " +
             std::to_string(target.status.st_gid) + ")");
  if (fchmod(fd, mode & 07777) != 0)
    io_error("cannot set the mode of " + temporary);
  if (fsync(fd) != 0)
    io_error("cannot sync " + temporary);
  cleanup.fd = -1;
  if (close(fd) != 0)
    io_error("cannot close " + temporary);
  check(temporary);

  // The target must still be what was checked: the same file, or still absent.
  struct stat now;
  const bool present = fstatat(cleanup.dir_fd, base.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0;
  if (!present && errno != ENOENT)
    io_error("cannot stat");
  if (target.exists &&
      (!present || now.st_dev != target.status.st_dev || now.st_ino != target.status.st_ino))
    fail(PatchErrorKind::io, path,
         "was replaced or removed by another process while pnmpi-patch was writing; nothing "
         "was written: run pnmpi-patch again");
  if (!target.exists && present)
    fail(PatchErrorKind::io, path,
         "was created by another process while pnmpi-patch was writing; nothing was written: "
         "run pnmpi-patch again");
  // RENAME_NOREPLACE closes the last window for a new file; where the file system lacks it,
  // the check above has to do.
  int renamed = renameat2(cleanup.dir_fd, name.c_str(), cleanup.dir_fd, base.c_str(),
                          target.exists ? 0 : RENAME_NOREPLACE);
  if (renamed != 0 && !target.exists && (errno == EINVAL || errno == ENOSYS))
    renamed = renameat(cleanup.dir_fd, name.c_str(), cleanup.dir_fd, base.c_str());
  if (renamed != 0 && errno == EEXIST)
    fail(PatchErrorKind::io, path,
         "was created by another process while pnmpi-patch was writing; nothing was written: "
         "run pnmpi-patch again");
  if (renamed != 0)
    io_error("cannot rename " + temporary + " to " + path);
  cleanup.name.clear();
  fsync(cleanup.dir_fd); // best effort: the data is complete either way
}

} // namespace pnmpi

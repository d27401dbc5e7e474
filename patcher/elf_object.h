// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <elf.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/types.h>
#include <vector>

#include "elf_view.h"

namespace pnmpi {

/// Why pnmpi-patch stopped. The CLI maps the kind to its exit status.
enum class PatchErrorKind {
  invalid,         ///< unreadable, not ELF, truncated or inconsistent
  refused,         ///< a valid file pnmpi-patch must not patch (archive, MPI library, ...)
  already_patched, ///< imports XMPI_* and no PMPI_*
  io,              ///< a file could not be read or written
  internal,        ///< a patched image failed its own validation: a bug
};

/// Every error of the patcher. The message is complete and starts with the file's label.
class PatchError : public std::runtime_error {
public:
  PatchError(PatchErrorKind kind, const std::string &message)
      : std::runtime_error(message), m_kind(kind) {}
  PatchErrorKind kind() const noexcept { return m_kind; }

private:
  PatchErrorKind m_kind;
};

/// Throws PatchError(kind) with "label: message".
[[noreturn]] void patch_fail(PatchErrorKind kind, const std::string &label,
                             const std::string &message);

/// One entry of `.dynsym`, decoded.
struct DynSymbol {
  std::size_t index = 0;           ///< position in `.dynsym`
  std::string name;                ///< NUL-terminated string at `name_offset` in `.dynstr`
  std::uint32_t name_offset = 0;   ///< st_name
  std::uint64_t value = 0;         ///< st_value
  std::uint64_t size = 0;          ///< st_size
  std::uint16_t shndx = 0;         ///< st_shndx
  unsigned char info = 0;          ///< st_info (binding and type)
  unsigned char other = 0;         ///< st_other (visibility)
  std::uint16_t version_index = 1; ///< `.gnu.version` entry without the hidden bit; 1 if none
  std::string version;             ///< the version's name when version_index >= 2, else ""

  bool defined() const { return shndx != SHN_UNDEF; }
  unsigned binding() const { return ELF64_ST_BIND(info); }
  unsigned type() const { return ELF64_ST_TYPE(info); }
};

/// A `.dynstr` string referenced from somewhere other than `.dynsym`: DT_NEEDED, DT_SONAME,
/// DT_RPATH, DT_RUNPATH, ... in `.dynamic`; vn_file and vna_name in `.gnu.version_r`;
/// vda_name in `.gnu.version_d`.
struct StringUse {
  std::uint32_t offset = 0; ///< in `.dynstr`
  std::string what;         ///< e.g. "DT_NEEDED", "vna_name"
  std::string value;
};

/// A section header, as the patcher uses it.
struct SectionInfo {
  std::size_t index = 0; ///< 0 means "absent"
  std::string name;
  std::uint32_t name_offset = 0; ///< sh_name
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t addralign = 0;
  std::uint64_t entsize = 0;
  std::uint64_t header_offset = 0; ///< file offset of this section's header

  bool present() const { return index != 0; }
};

/// An entry of `.dynamic` and where it sits in the file.
struct DynamicEntry {
  std::int64_t tag = 0;
  std::uint64_t value = 0;
  std::uint64_t file_offset = 0;
};

/// The largest file ElfObject::load() reads: PMPI tools are a few megabytes, and the patcher
/// holds a few copies of its input in memory.
constexpr std::uint64_t kMaxInputSize = std::uint64_t(1) << 30;

/// A validated, read-only view of an ELF shared object: everything pnmpi-patch needs, decoded
/// once through the shared checked reader (elf/elf_view.h: ELF32/ELF64, either byte order).
/// parse() checks every offset, size and index it uses against the file before use and throws
/// PatchError otherwise; afterwards all offsets stored here are known to lie inside bytes().
class ElfObject {
public:
  /// Parses `bytes`; `label` (usually the path) starts every error message.
  static ElfObject parse(std::vector<unsigned char> bytes, std::string label);
  /// Reads the regular file at `path` and parses it. Anything else (a FIFO, a device, a
  /// directory) and a file larger than `max_size` are refused before a byte is read, and a
  /// FIFO is never waited on. `status` receives the fstat(2) of the file read.
  static ElfObject load(const std::string &path, struct stat &status,
                        std::uint64_t max_size = kMaxInputSize);
  static ElfObject load(const std::string &path) {
    struct stat status;
    return load(path, status);
  }

  const std::string &label() const { return m_label; }
  const std::vector<unsigned char> &bytes() const { return m_bytes; }
  const Elf64_Ehdr &header() const { return m_ehdr; }
  unsigned elf_class() const { return m_ehdr.e_ident[EI_CLASS]; }
  unsigned byte_order() const { return m_ehdr.e_ident[EI_DATA]; }
  const std::vector<Elf64_Phdr> &segments() const { return m_phdrs; }
  const std::vector<DynamicEntry> &dynamic() const { return m_dynamic; }

  /// All of `.dynsym`, including the null symbol at index 0.
  const std::vector<DynSymbol> &symbols() const { return m_symbols; }
  /// Every other reference into `.dynstr`.
  const std::vector<StringUse> &string_uses() const { return m_string_uses; }
  /// Sections linked to `.dynstr` whose references pnmpi-patch cannot enumerate.
  const std::vector<std::string> &unknown_dynstr_users() const { return m_unknown_users; }
  /// The DT_NEEDED entries, in order.
  std::vector<std::string> needed() const;

  const SectionInfo &dynsym() const { return m_dynsym; }
  const SectionInfo &dynstr() const { return m_dynstr; }
  const SectionInfo &versym() const { return m_versym; }
  const SectionInfo &sysv_hash() const { return m_hash; }
  const SectionInfo &gnu_hash() const { return m_gnu_hash; }
  std::string_view dynstr_bytes() const;

  /// The SysV `.hash` table decoded to native words (nbucket, nchain, buckets, chains), or
  /// empty when the object has none. Entry size is 4, or 8 on 64-bit s390 and Alpha.
  const std::vector<std::uint64_t> &hash_words() const { return m_hash_words; }
  /// The first symbol `.gnu.hash` covers (symoffset), or symbols().size() if none.
  std::size_t gnu_hash_first() const { return m_gnu_hash_first; }

private:
  ElfObject() = default;
  friend class ElfParser;

  std::string m_label;
  std::vector<unsigned char> m_bytes;
  Elf64_Ehdr m_ehdr{};
  std::vector<Elf64_Phdr> m_phdrs;
  std::vector<DynamicEntry> m_dynamic;
  std::vector<DynSymbol> m_symbols;
  std::vector<StringUse> m_string_uses;
  std::vector<std::string> m_unknown_users;
  SectionInfo m_dynsym, m_dynstr, m_versym, m_hash, m_gnu_hash;
  std::vector<std::uint64_t> m_hash_words;
  std::size_t m_gnu_hash_first = 0;
};

/// The command that links static archive `path` into a shared object.
std::string archive_link_hint(const std::string &path);

} // namespace pnmpi

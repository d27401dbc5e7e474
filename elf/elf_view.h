// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <elf.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pnmpi {

/// A read outside the bytes, or a value that does not fit the file's class: callers check
/// every offset first and word their own message, so this reaching a user is a bug.
class ElfRangeError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Whether [offset, offset + size) lies inside [0, limit), without overflow.
bool range_within(std::uint64_t offset, std::uint64_t size, std::uint64_t limit);

/// "0x1f": how offsets and sizes appear in messages.
std::string to_hex(std::uint64_t value);

/// The SysV ELF hash of `name`.
std::uint32_t elf_sysv_hash(std::string_view name);

/// Why `count` objects of `object_size` bytes, aligned to `alignment`, do not fit at
/// `offset` in `size` bytes.
enum class ElfFault { none, past_end, misaligned };
ElfFault elf_fault(std::uint64_t size, std::uint64_t offset, std::uint64_t count,
                   std::uint64_t object_size, std::uint64_t alignment);

/// The one checked reader of ELF bytes, shared by the core (which reads modules and slides
/// copies of them) and the patcher (which reads any class and byte order). It owns no
/// bytes and checks each read against them. Two ways in:
/// - native<T>(): this process's own structures in place, for the core, which accepts only
///   its own class and byte order and reads each of hundreds of copies;
/// - the decoders (ehdr(), sym(), ...): the file's class and byte order turned into the
///   64-bit structures of <elf.h>, for the patcher. set_format() chooses the format.
class ElfView {
public:
  ElfView(const unsigned char *data, std::size_t size) : m_data(data), m_size(size) {}
  explicit ElfView(const std::vector<unsigned char> &bytes) : ElfView(bytes.data(), bytes.size()) {}

  const unsigned char *data() const { return m_data; }
  std::uint64_t size() const { return m_size; }
  bool contains(std::uint64_t offset, std::uint64_t size) const {
    return range_within(offset, size, m_size);
  }

  /// Where `count` native objects of type T at `offset` stand.
  template <typename T> ElfFault fault(std::uint64_t offset, std::uint64_t count = 1) const {
    return elf_fault(m_size, offset, count, sizeof(T), alignof(T));
  }
  /// `count` native objects of type T at `offset`; fault() must have said none.
  template <typename T> const T *native(std::uint64_t offset, std::uint64_t count = 1) const {
    if (fault<T>(offset, count) != ElfFault::none)
      out_of_range(offset);
    return reinterpret_cast<const T *>(m_data + offset);
  }

  /// Chooses the class and byte order the decoders read; false (nothing changed) if either
  /// is not one ELF defines.
  bool set_format(unsigned elf_class, unsigned byte_order);
  unsigned elf_class() const { return m_class; }
  unsigned byte_order() const { return m_order; }

  /// The sizes of this class's structures in the file.
  std::uint64_t ehdr_size() const {
    return m_class == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
  }
  std::uint64_t phdr_size() const {
    return m_class == ELFCLASS32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr);
  }
  std::uint64_t shdr_size() const {
    return m_class == ELFCLASS32 ? sizeof(Elf32_Shdr) : sizeof(Elf64_Shdr);
  }
  std::uint64_t sym_size() const {
    return m_class == ELFCLASS32 ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);
  }
  std::uint64_t dyn_size() const {
    return m_class == ELFCLASS32 ? sizeof(Elf32_Dyn) : sizeof(Elf64_Dyn);
  }

  // The decoders: each checks that its whole structure lies inside the bytes.
  std::uint16_t half(std::uint64_t offset) const;
  std::uint32_t word(std::uint64_t offset) const;
  std::uint64_t xword(std::uint64_t offset) const;
  Elf64_Ehdr ehdr() const;
  Elf64_Phdr phdr(std::uint64_t offset) const;
  Elf64_Shdr shdr(std::uint64_t offset) const;
  Elf64_Sym sym(std::uint64_t offset) const;
  Elf64_Dyn dyn(std::uint64_t offset) const;
  // Version records have one layout in both classes.
  Elf64_Verneed verneed(std::uint64_t offset) const;
  Elf64_Vernaux vernaux(std::uint64_t offset) const;
  Elf64_Verdef verdef(std::uint64_t offset) const;
  Elf64_Verdaux verdaux(std::uint64_t offset) const;

  /// The NUL-terminated string at `index` of the string table of `table_size` bytes at
  /// `table`; nullopt if `index` is outside the table or the string has no NUL in it.
  std::optional<std::string_view> string(std::uint64_t table, std::uint64_t table_size,
                                         std::uint64_t index) const;

private:
  [[noreturn]] static void out_of_range(std::uint64_t offset);
  /// `size` bytes at `offset` as an unsigned number of this byte order.
  std::uint64_t number(std::uint64_t offset, unsigned size) const;
  /// A word of the class: 4 bytes (ELF32) or 8 (ELF64), at `offset`, which then moves on.
  std::uint64_t addr(std::uint64_t &offset) const;

  const unsigned char *m_data;
  std::uint64_t m_size;
  unsigned m_class = ELFCLASS64;
  unsigned m_order = ELFDATA2LSB;
};

/// `count` native objects of type T at `offset` in `bytes`, to edit in place; the same check
/// as ElfView::native().
template <typename T>
T *native_at(std::vector<unsigned char> &bytes, std::uint64_t offset, std::uint64_t count = 1) {
  ElfView(bytes).native<T>(offset, count);
  return reinterpret_cast<T *>(bytes.data() + offset);
}

/// Turns the 64-bit structures of <elf.h> into file bytes of one class and byte order (the
/// inverse of ElfView's decoders). A value that does not fit ELF32 throws ElfRangeError.
class ElfEncoder {
public:
  ElfEncoder(unsigned elf_class, unsigned byte_order) : m_class(elf_class), m_order(byte_order) {}

  std::vector<unsigned char> half(std::uint16_t value) const;
  /// One word of a SysV hash table: 4 bytes, or 8 (`entsize` 8, on 64-bit s390 and Alpha).
  std::vector<unsigned char> hash_word(std::uint64_t value, std::uint64_t entsize) const;
  std::vector<unsigned char> ehdr(const Elf64_Ehdr &h) const;
  std::vector<unsigned char> phdr(const Elf64_Phdr &p) const;
  std::vector<unsigned char> shdr(const Elf64_Shdr &s) const;
  std::vector<unsigned char> dyn(const Elf64_Dyn &d) const;
  std::vector<unsigned char> sym(const Elf64_Sym &s) const;

private:
  void put(std::vector<unsigned char> &out, std::uint64_t value, unsigned size) const;
  /// An address, offset or size: 4 bytes (ELF32, which it must fit) or 8.
  void put_addr(std::vector<unsigned char> &out, std::uint64_t value) const;

  unsigned m_class;
  unsigned m_order;
};

} // namespace pnmpi

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <sys/types.h>
#include <vector>

#include <elf.h>

#include "elf_rename.h"

namespace pnmpi::test {

using Bytes = std::vector<unsigned char>;

Bytes read_bytes(const std::string &path);
void write_bytes(const std::string &path, const Bytes &bytes);
/// `bytes` with its last `count` bytes removed.
Bytes truncated(Bytes bytes, std::size_t count);

/// The permission bits of `path` (symbolic links followed), or 0 if it cannot be stat'ed.
mode_t mode_of(const std::string &path);
/// Whether `path` names anything (symbolic links not followed).
bool exists(const std::string &path);
/// A fresh directory, removed with its contents at the end of the scope.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return m_path; }
  std::string file(const std::string &name) const { return m_path + "/" + name; }
  /// The names in the directory, sorted.
  std::vector<std::string> entries() const;

private:
  std::string m_path;
};

/// A private copy of `source` named `name` in `dir`, with `mode`; returns its path.
std::string copy_of(const TempDir &dir, const std::string &source, const std::string &name,
                    mode_t mode = 0755);

struct CommandResult {
  int status = -1; ///< exit status, or -1 if the child did not exit normally
  int signal = 0;  ///< the signal that ended the child, or 0
  std::string out;
  std::string err;
};

/// Limits for a child: it is killed by SIGALRM after `seconds` (0: never), and its address
/// space is capped at `address_space` bytes (0: no cap).
struct ChildLimits {
  unsigned seconds = 0;
  std::uint64_t address_space = 0;
};

/// Runs `argv` (argv[0] is a path) and captures its output.
CommandResult run(const std::vector<std::string> &argv, const ChildLimits &limits = {});
/// Runs pnmpi-patch with `args`.
CommandResult run_patcher(const std::vector<std::string> &args, const ChildLimits &limits = {});

/// `readelf --dyn-syms` of `path` as "Ndx Name" lines (Name with @version when versioned),
/// one per symbol in table order: an independent reader for before/after comparisons.
std::vector<std::string> readelf_symbols(const std::string &path);
/// The same list predicted from our own model of `object`, with `plan` applied if given.
std::vector<std::string> expected_symbols(const ElfObject &object, const RenamePlan *plan);

/// `eu-elflint --gnu-ld` output with the file name replaced by "FILE".
std::string elflint(const std::string &path);

/// Parses, plans, applies, parses again and checks; returns the patched object.
ElfObject patch_in_memory(const ElfObject &object, RenamePlan &plan,
                          const PlanOptions &options = {});

/// Direct edits of a native ELF64 little-endian image, for the corruption tests.
class Elf64Editor {
public:
  explicit Elf64Editor(Bytes &bytes);
  Elf64_Ehdr ehdr() const { return get<Elf64_Ehdr>(0); }
  void set_ehdr(const Elf64_Ehdr &h) { set(0, h); }
  Elf64_Shdr shdr(std::size_t index) const;
  void set_shdr(std::size_t index, const Elf64_Shdr &s);
  Elf64_Phdr phdr(std::size_t index) const;
  void set_phdr(std::size_t index, const Elf64_Phdr &p);
  /// The index of the section named `name`; fails the test if absent.
  std::size_t section(const std::string &name) const;
  std::size_t phdr_index(std::uint32_t type) const;
  /// The file offset of the first .dynamic entry with `tag`.
  std::uint64_t dynamic_entry(std::int64_t tag) const;

  template <class T> T get(std::uint64_t offset) const {
    T value;
    std::memcpy(&value, m_bytes.data() + offset, sizeof value);
    return value;
  }
  template <class T> void set(std::uint64_t offset, const T &value) {
    std::memcpy(m_bytes.data() + offset, &value, sizeof value);
  }

private:
  Bytes &m_bytes;
};

} // namespace pnmpi::test

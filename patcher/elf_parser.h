// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The parser behind ElfObject::parse(), private to the patcher: elf_parser.cpp reads the
// headers, sections, segments, symbols and `.dynamic`; elf_tables.cpp the version and hash
// tables and the checks that tie the section view to the dynamic linker's view.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "elf_object.h"
#include "elf_view.h"

namespace pnmpi {

class ElfParser {
public:
  ElfParser(std::vector<unsigned char> bytes, std::string label);
  ElfObject run();

private:
  [[noreturn]] void invalid(const std::string &message) const;
  [[noreturn]] void refuse(const std::string &message) const;
  std::uint64_t file_size() const { return m_obj.m_bytes.size(); }
  std::string describe(const SectionInfo &s) const;

  // elf_parser.cpp
  void check_ident();
  void read_header();
  void read_sections();
  void read_segments();
  void check_layout() const;
  SectionInfo unique_section(std::uint32_t type, const char *what) const;
  std::string dynstr_string(std::uint64_t offset, const std::string &what) const;
  void require_link_to_dynstr(const SectionInfo &s) const;
  void read_symbols();
  void read_dynamic();

  // elf_tables.cpp
  void read_versions();
  void add_use(std::uint64_t offset, const std::string &what);
  void read_verneed();
  void read_verdef();
  void read_hashes();
  const DynamicEntry *find_dynamic(std::int64_t tag) const;
  void require_address(std::int64_t tag, const char *tag_name, const SectionInfo &s) const;
  void require_value(std::int64_t tag, const char *tag_name, std::uint64_t expected,
                     const std::string &what) const;
  void cross_check() const;

  ElfObject m_obj;
  ElfView m_view; ///< over m_obj's bytes, which do not move while parsing
  std::uint64_t m_shentsize = 0;
  std::uint64_t m_phentsize = 0;
  std::vector<SectionInfo> m_sections;
  std::size_t m_shstrndx = 0; ///< the section name table
  SectionInfo m_dynamic_section, m_verneed, m_verdef;
  std::map<std::uint16_t, std::string> m_version_names;
};

} // namespace pnmpi

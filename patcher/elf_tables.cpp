// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The version and hash tables of an object, and the checks that the section headers (the
// patcher's view) and `.dynamic` with PT_LOAD (the dynamic linker's view) agree.

#include "elf_parser.h"

namespace pnmpi {

namespace {

constexpr std::uint16_t kVersionHidden = 0x8000;

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

void ElfParser::read_versions() {
  const std::size_t count = m_obj.m_symbols.size();
  SectionInfo versym = unique_section(SHT_GNU_versym, ".gnu.version");
  if (versym.present()) {
    if (versym.link != m_obj.m_dynsym.index)
      invalid(describe(versym) + " links to section " + std::to_string(versym.link) + ", not to '" +
              m_obj.m_dynsym.name + "'");
    if (versym.entsize != 2 || versym.size != count * 2)
      invalid(describe(versym) + " has " + std::to_string(versym.size) + " bytes of entry size " +
              std::to_string(versym.entsize) + " for " + std::to_string(count) +
              " dynamic symbols");
    for (std::size_t i = 0; i < count; ++i)
      m_obj.m_symbols[i].version_index = m_view.half(versym.offset + 2 * i) & ~kVersionHidden;
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

void ElfParser::add_use(std::uint64_t offset, const std::string &what) {
  StringUse use;
  use.offset = static_cast<std::uint32_t>(offset);
  use.what = what;
  use.value = dynstr_string(offset, what);
  m_obj.m_string_uses.push_back(use);
}

// Version records are chains of relative offsets; each step must stay inside the section
// and move forward, so a walk ends after at most size / record-size steps.
void ElfParser::read_verneed() {
  const SectionInfo &s = m_verneed;
  require_link_to_dynstr(s);
  const std::uint64_t record = 16; // Verneed and Vernaux have this size in both classes
  std::uint64_t offset = 0;
  for (std::uint32_t n = 0; n < s.info; ++n) {
    if (!range_within(offset, record, s.size))
      invalid(describe(s) + ": entry " + std::to_string(n) + " at offset " + to_hex(offset) +
              " is outside the section");
    const Elf64_Verneed vn = m_view.verneed(s.offset + offset);
    add_use(vn.vn_file, "vn_file of " + describe(s) + " entry " + std::to_string(n));
    std::uint64_t aux = offset + vn.vn_aux;
    for (std::uint16_t k = 0; k < vn.vn_cnt; ++k) {
      if (!range_within(aux, record, s.size))
        invalid(describe(s) + ": auxiliary entry " + std::to_string(k) + " of entry " +
                std::to_string(n) + " at offset " + to_hex(aux) + " is outside the section");
      const Elf64_Vernaux vna = m_view.vernaux(s.offset + aux);
      add_use(vna.vna_name, "vna_name of " + describe(s) + " entry " + std::to_string(n));
      m_version_names[vna.vna_other & ~kVersionHidden] = m_obj.m_string_uses.back().value;
      if (vna.vna_next == 0 && k + 1 < vn.vn_cnt)
        invalid(describe(s) + ": entry " + std::to_string(n) + " ends after " +
                std::to_string(k + 1) + " of " + std::to_string(vn.vn_cnt) + " auxiliary entries");
      aux += vna.vna_next;
    }
    if (vn.vn_next == 0 && n + 1 < s.info)
      invalid(describe(s) + " ends after " + std::to_string(n + 1) + " of " +
              std::to_string(s.info) + " entries");
    offset += vn.vn_next;
  }
}

void ElfParser::read_verdef() {
  const SectionInfo &s = m_verdef;
  require_link_to_dynstr(s);
  const std::uint64_t def_size = 20;
  const std::uint64_t aux_size = 8;
  std::uint64_t offset = 0;
  for (std::uint32_t n = 0; n < s.info; ++n) {
    if (!range_within(offset, def_size, s.size))
      invalid(describe(s) + ": entry " + std::to_string(n) + " at offset " + to_hex(offset) +
              " is outside the section");
    const Elf64_Verdef vd = m_view.verdef(s.offset + offset);
    std::uint64_t aux = offset + vd.vd_aux;
    for (std::uint16_t k = 0; k < vd.vd_cnt; ++k) {
      if (!range_within(aux, aux_size, s.size))
        invalid(describe(s) + ": auxiliary entry " + std::to_string(k) + " of entry " +
                std::to_string(n) + " at offset " + to_hex(aux) + " is outside the section");
      const Elf64_Verdaux vda = m_view.verdaux(s.offset + aux);
      add_use(vda.vda_name, "vda_name of " + describe(s) + " entry " + std::to_string(n));
      if (k == 0)
        m_version_names.emplace(vd.vd_ndx & ~kVersionHidden, m_obj.m_string_uses.back().value);
      if (vda.vda_next == 0 && k + 1 < vd.vd_cnt)
        invalid(describe(s) + ": entry " + std::to_string(n) + " ends after " +
                std::to_string(k + 1) + " of " + std::to_string(vd.vd_cnt) + " auxiliary entries");
      aux += vda.vda_next;
    }
    if (vd.vd_next == 0 && n + 1 < s.info)
      invalid(describe(s) + " ends after " + std::to_string(n + 1) + " of " +
              std::to_string(s.info) + " entries");
    offset += vd.vd_next;
  }
}

void ElfParser::read_hashes() {
  const std::size_t count = m_obj.m_symbols.size();
  SectionInfo hash = unique_section(SHT_HASH, ".hash");
  if (hash.present()) {
    if (hash.link != m_obj.m_dynsym.index)
      invalid(describe(hash) + " does not link to '" + m_obj.m_dynsym.name + "'");
    const std::uint64_t es = hash.entsize;
    if (es != 4 && !(es == 8 && m_view.elf_class() == ELFCLASS64))
      invalid(describe(hash) + " has entry size " + std::to_string(es));
    if (hash.size < 2 * es || hash.size % es != 0)
      invalid(describe(hash) + " size " + to_hex(hash.size) + " cannot hold its header");
    auto word_at = [&](std::uint64_t i) {
      return es == 8 ? m_view.xword(hash.offset + i * es) : m_view.word(hash.offset + i * es);
    };
    const std::uint64_t nbucket = word_at(0);
    const std::uint64_t nchain = word_at(1);
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
      w[i] = word_at(i);
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
      invalid(describe(gnu) + " size " + to_hex(gnu.size) + " cannot hold its header");
    const std::uint64_t symoffset = m_view.word(gnu.offset + 4);
    if (symoffset > count)
      invalid(describe(gnu) + " starts at symbol " + std::to_string(symoffset) + " of " +
              std::to_string(count));
    m_obj.m_gnu_hash_first = symoffset;
    m_obj.m_gnu_hash = gnu;
  }
}

const DynamicEntry *ElfParser::find_dynamic(std::int64_t tag) const {
  for (const DynamicEntry &e : m_obj.m_dynamic)
    if (e.tag == tag)
      return &e;
  return nullptr;
}

/// The loader finds these tables through `.dynamic` and PT_LOAD, the patcher through the
/// section headers: both views must agree, or a patch of the section would not be seen.
void ElfParser::require_address(std::int64_t tag, const char *tag_name,
                                const SectionInfo &s) const {
  const DynamicEntry *e = find_dynamic(tag);
  if (!s.present()) {
    if (e)
      invalid(std::string(tag_name) + " is set but there is no matching section");
    return;
  }
  if (!e)
    invalid(describe(s) + " has no " + tag_name + " entry in .dynamic");
  if (e->value != s.addr)
    invalid(std::string(tag_name) + " (" + to_hex(e->value) + ") is not the address of " +
            describe(s) + " (" + to_hex(s.addr) + ")");
  bool loaded = false;
  for (const Elf64_Phdr &p : m_obj.m_phdrs)
    if (p.p_type == PT_LOAD && s.addr >= p.p_vaddr && s.offset >= p.p_offset &&
        s.addr - p.p_vaddr == s.offset - p.p_offset &&
        range_within(s.addr - p.p_vaddr, s.size, p.p_filesz))
      loaded = true;
  if (!loaded)
    invalid(describe(s) + " (address " + to_hex(s.addr) + ", offset " + to_hex(s.offset) +
            ") is not loaded from that offset by any PT_LOAD segment");
}

void ElfParser::require_value(std::int64_t tag, const char *tag_name, std::uint64_t expected,
                              const std::string &what) const {
  const DynamicEntry *e = find_dynamic(tag);
  if (e && e->value != expected)
    invalid(std::string(tag_name) + " (" + std::to_string(e->value) + ") does not match " + what +
            " (" + std::to_string(expected) + ")");
}

void ElfParser::cross_check() const {
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
  for (const Elf64_Phdr &p : m_obj.m_phdrs)
    if (p.p_type == PT_DYNAMIC && p.p_offset != m_dynamic_section.offset)
      invalid("PT_DYNAMIC (offset " + to_hex(p.p_offset) + ") is not " +
              describe(m_dynamic_section) + " (offset " + to_hex(m_dynamic_section.offset) + ")");
}

} // namespace pnmpi

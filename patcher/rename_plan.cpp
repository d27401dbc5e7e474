// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Deciding the renames: which imports, and whether their names can change in place (one
// byte each, in `.dynstr`) or need a copy of `.dynstr` in a new segment.

#include "rename_plan.h"

#include <algorithm>
#include <map>

#include "dynstr_move.h"

namespace pnmpi {

namespace {

constexpr std::string_view kPmpi = "PMPI_";
constexpr std::string_view kXmpi = "XMPI_";

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

} // namespace

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

std::string plan_relocation(const ElfObject &obj, std::uint64_t strtab_size,
                            RelocationLayout &layout) {
  if (obj.header().e_type != ET_DYN)
    return "it is not a shared object";
  std::uint64_t vaddr_end = 0;
  std::size_t last_load = 0;
  bool any_load = false;
  for (std::size_t i = 0; i < obj.segments().size(); ++i) {
    const Elf64_Phdr &p = obj.segments()[i];
    if (p.p_type == PT_PHDR || p.p_type == PT_INTERP)
      return "it has a PT_PHDR or PT_INTERP segment (an executable)";
    if (p.p_type != PT_LOAD)
      continue;
    if (p.p_align > 1 && (p.p_align & (p.p_align - 1)) != 0)
      return "a PT_LOAD segment has alignment " + to_hex(p.p_align) + ", not a power of two";
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
  layout.phdr_size = phnum * (elf_class == ELFCLASS32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr));
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
        patch_fail(PatchErrorKind::invalid, obj.label(),
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
    patch_fail(PatchErrorKind::refused, label,
               "defines " + std::to_string(defined_pmpi.size()) + " PMPI_ symbol(s) (" + examples +
                   (defined_pmpi.size() > 3 ? ", ..." : "") +
                   "): it is an MPI library, not a PMPI tool; only a tool's PMPI_ imports can be "
                   "renamed");
  }
  if (plan.renames.empty()) {
    if (plan.xmpi_imports != 0)
      patch_fail(PatchErrorKind::already_patched, label,
                 "already patched: it imports " + std::to_string(plan.xmpi_imports) +
                     " XMPI_ symbol(s) and no PMPI_ symbol");
    return plan;
  }

  // Linkers hash only defined symbols in .gnu.hash; a hashed import would need a new table.
  for (const Rename &r : plan.renames)
    if (r.symbol >= obj.gnu_hash_first())
      patch_fail(PatchErrorKind::refused, label,
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
      patch_fail(PatchErrorKind::refused, label,
                 "cannot rename in place: " + reason + ", and '.dynstr' cannot be moved: " + why);
    }
  }
  return plan;
}

} // namespace pnmpi

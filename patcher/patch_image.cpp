// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Applying a plan and proving the result. The patcher never lays out an ELF file: the output
// is the input's bytes with a few fields rewritten at offsets that were validated against
// the file, plus, only when a renamed name shares bytes with another string, a new segment
// appended at the end. So every byte we do not mean to change stays identical, and
// check_patched() proves exactly that on the file written.

#include "rename_plan.h"

#include <algorithm>
#include <map>

#include "dynstr_move.h"

namespace pnmpi {

namespace {

constexpr std::string_view kXmpi = "XMPI_";

PatchedImage apply(const ElfObject &obj, const RenamePlan &plan) {
  PatchedImage out;
  out.bytes = obj.bytes();
  const ElfEncoder codec(obj.elf_class(), obj.byte_order());
  auto edit = [&out, &obj](std::uint64_t offset, std::vector<unsigned char> bytes) {
    if (!range_within(offset, bytes.size(), obj.bytes().size()))
      throw PatchError(PatchErrorKind::internal,
                       obj.label() + ": edit at " + to_hex(offset) + " is outside the file");
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

    std::vector<Elf64_Phdr> phdrs = obj.segments();
    Elf64_Phdr load{};
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
    for (const Elf64_Phdr &p : phdrs) {
      const auto encoded = codec.phdr(p);
      out.bytes.insert(out.bytes.end(), encoded.begin(), encoded.end());
    }
    out.bytes.insert(out.bytes.end(), table.begin(), table.end());
    out.appended = out.bytes.size() - obj.bytes().size();

    const std::uint64_t strtab_offset = layout.offset + layout.phdr_size;
    const std::uint64_t strtab_vaddr = layout.vaddr + layout.phdr_size;
    Elf64_Ehdr h = obj.header();
    h.e_phoff = layout.offset;
    h.e_phnum = static_cast<Elf64_Half>(phdrs.size());
    edit(0, codec.ehdr(h));
    for (const DynamicEntry &e : obj.dynamic()) {
      Elf64_Dyn d{};
      d.d_tag = e.tag;
      if (e.tag == DT_STRTAB)
        d.d_un.d_ptr = strtab_vaddr;
      else if (e.tag == DT_STRSZ)
        d.d_un.d_val = table.size();
      else
        continue;
      edit(e.file_offset, codec.dyn(d));
    }
    Elf64_Shdr s{};
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
      Elf64_Sym sym{};
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

} // namespace

PatchedImage apply_renames(const ElfObject &obj, const RenamePlan &plan) {
  try {
    return apply(obj, plan);
  } catch (const ElfRangeError &e) { // a value the file's class cannot hold: a bug here
    throw PatchError(PatchErrorKind::internal, e.what());
  }
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
      bad("byte at offset " + to_hex(i) + " changed outside the planned edits");

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

} // namespace pnmpi

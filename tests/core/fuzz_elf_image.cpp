// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// libFuzzer target for the core's ELF reader (read_elf_image), which reads every module the
// core loads and every MPI language binding it redirects, with this build's routine names.
// Rejecting an input (pnmpi::Error) is fine; anything else is a bug: a sanitizer report, a
// hang, or another exception (which escapes and ends the run).

#include <cstddef>
#include <cstdint>
#include <elf.h>
#include <link.h>
#include <vector>

#include "elf_image.h"
#include "error.h"
#include "pnmpi_routine_ids.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const pnmpi::RoutineIndex routines(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  // A copy, as the core reads a copy of the file: the buffer is exactly `size` bytes, so
  // AddressSanitizer catches a read one byte past the end.
  const std::vector<unsigned char> bytes(data, data + size);
  for (const pnmpi::SiteNames sites : {pnmpi::SiteNames::Xmpi, pnmpi::SiteNames::Mpi}) {
    try {
      const pnmpi::ElfImage image = pnmpi::read_elf_image(bytes, "fuzz", routines, sites);
      // What the core then relies on: a routine id, and a word inside a writable segment
      // (checked here again without sums that could wrap).
      const auto *eh = reinterpret_cast<const ElfW(Ehdr) *>(bytes.data());
      const auto *ph = reinterpret_cast<const ElfW(Phdr) *>(bytes.data() + eh->e_phoff);
      for (const pnmpi::ElfImage::Site &site : image.sites) {
        bool inside = false;
        for (unsigned i = 0; i < eh->e_phnum; ++i)
          inside |= ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W) &&
                    site.offset >= ph[i].p_vaddr && site.offset - ph[i].p_vaddr < ph[i].p_memsz &&
                    ph[i].p_memsz - (site.offset - ph[i].p_vaddr) >= sizeof(void *);
        if (site.id >= PNMPI_NUM_ROUTINES || !inside)
          __builtin_trap();
      }
    } catch (const pnmpi::Error &) {
    }
  }
  return 0;
}

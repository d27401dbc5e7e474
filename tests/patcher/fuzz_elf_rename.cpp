// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// libFuzzer target for everything pnmpi-patch does with untrusted bytes: parse, plan, apply,
// parse the result again and check it. Rejecting an input (PatchError) is fine; anything else
// is a bug: a sanitizer report, another exception, or an accepted input whose patched result
// fails to parse or check_patched().

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "elf_rename.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::optional<pnmpi::ElfObject> input;
  pnmpi::RenamePlan plan;
  try {
    input.emplace(pnmpi::ElfObject::parse(std::vector<unsigned char>(data, data + size), "fuzz"));
    plan = pnmpi::plan_renames(*input);
  } catch (const pnmpi::PatchError &) {
    return 0;
  }
  try {
    const pnmpi::PatchedImage image = pnmpi::apply_renames(*input, plan);
    const pnmpi::ElfObject after = pnmpi::ElfObject::parse(image.bytes, "fuzz (patched)");
    pnmpi::check_patched(*input, plan, image, after);
  } catch (const pnmpi::PatchError &e) {
    std::fprintf(stderr, "an accepted input failed after patching: %s\n", e.what());
    std::abort();
  }
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The patcher's library, in three parts: reading and checking an object (elf_object.h, over
// the shared reader in elf/), deciding and applying the renames (rename_plan.h), and writing
// the result safely (output_file.h).

#include "elf_object.h"
#include "output_file.h"
#include "rename_plan.h"

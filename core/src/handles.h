// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The original PnMPI's numbering of module and stack handles, shared by the core (the
// services' handles) and pnmpi-info (the numbers it lists), so the two always agree.

#include <vector>

namespace pnmpi {

struct HandleNumbers {
  std::vector<int> layer_handles; ///< per layer: its handle
  std::vector<int> stack_handles; ///< per stack: its handle
  std::vector<int> handle_layers; ///< per handle: its layer, or -1 for a `stack` line
  std::vector<int> handle_stacks; ///< per handle (one more than handle_layers): the stack it
                                  ///< starts, or -1
};

/// Every `module` and `stack` line takes the next number from 0, in file order; a stack's
/// handle is the number after its `stack` line (the implicit default stack's is 0).
/// `stack_lines`: Config::stack_lines (0 for an implicit stack); `layer_stacks`: the stack
/// of each layer, in config order (stacks are sections: never decreasing).
HandleNumbers number_handles(const std::vector<int> &stack_lines,
                             const std::vector<int> &layer_stacks);

} // namespace pnmpi

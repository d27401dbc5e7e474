// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "handles.h"

#include <cstddef>

namespace pnmpi {

HandleNumbers number_handles(const std::vector<int> &stack_lines,
                             const std::vector<int> &layer_stacks) {
  HandleNumbers n;
  n.layer_handles.assign(layer_stacks.size(), -1);
  n.stack_handles.assign(stack_lines.size(), 0);
  // An explicit `stack default` first line is a line of the module list like any other.
  if (!stack_lines.empty() && stack_lines[0] != 0) {
    n.handle_layers.push_back(-1);
    n.stack_handles[0] = 1;
  }
  // Stacks are sections in config order (the parser never reopens one), so walking the
  // layers in order and opening each stack as it is passed gives the file's line order.
  int open = 0;
  const auto open_through = [&](int stack) {
    for (; open < stack; ++open) {
      n.handle_layers.push_back(-1);
      n.stack_handles[static_cast<std::size_t>(open + 1)] =
          static_cast<int>(n.handle_layers.size());
    }
  };
  for (std::size_t i = 0; i < layer_stacks.size(); ++i) {
    open_through(layer_stacks[i]);
    n.layer_handles[i] = static_cast<int>(n.handle_layers.size());
    n.handle_layers.push_back(static_cast<int>(i));
  }
  open_through(static_cast<int>(stack_lines.size()) - 1);
  n.handle_stacks.assign(n.handle_layers.size() + 1, -1);
  for (std::size_t stack = n.stack_handles.size(); stack-- > 0;)
    n.handle_stacks[static_cast<std::size_t>(n.stack_handles[stack])] = static_cast<int>(stack);
  n.handle_stacks[0] = 0;
  return n;
}

} // namespace pnmpi

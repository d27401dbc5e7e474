// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <stdexcept>
#include <string>

namespace pnmpi::test {

/// The message of the error `body` throws (pnmpi::Error is a std::runtime_error), or
/// "(no error)": a test compares it with the exact message a user would read.
template <typename Body> std::string error_of(Body &&body) {
  try {
    body();
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace pnmpi::test

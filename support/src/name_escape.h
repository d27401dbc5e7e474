// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// How a name from an input is shown in a message, written once for the core (its argument
// values, core/src/values.cpp) and the support library (pnmpi_escape_name, which the modules
// use): both compile name_escape.cpp, as both compile the one ELF reader.

#include <string>
#include <string_view>

namespace pnmpi {

/// `text` with a backslash doubled, a newline as \n, a tab as \t and any other control byte
/// as \xHH: one line on a terminal, nothing that moves the cursor or forges a line.
std::string escaped_name(std::string_view text);

} // namespace pnmpi

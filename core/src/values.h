// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <pnmpi/pnmpi.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pnmpi {

// The one value parser: the typed argument readers (pnmpi_argument_*), the value parsers
// for other sources (pnmpi_parse_*) and every shipped module read values through these.
// Each returns nullopt and sets `out` when `value` is acceptable, else what is wrong with
// it, phrased to follow "argument 'KEY' " or "environment variable NAME ":
// "must be a whole number from 0 to 10, not 'x'". `out` is untouched on failure.
// Words are matched exactly (case matters); nothing but a list separator may be blank.

/// A whole number, decimal or 0x hexadecimal (a leading 0 is decimal, not octal).
std::optional<std::string> parse_long(const std::string &value, long min, long max, long &out);

/// A finite number as strtod reads it.
std::optional<std::string> parse_double(const std::string &value, double min, double max,
                                        double &out);

/// on/off, yes/no, true/false, 1/0.
std::optional<std::string> parse_bool(const std::string &value, bool &out);

/// One of `choices`; `out` is its position.
std::optional<std::string> parse_choice(const std::string &value,
                                        const std::vector<std::string> &choices, int &out);

/// A word of a comma-separated list and the bits it sets. A word worth 0 ("none") must
/// stand alone: combined with others it would be silently overridden.
struct FlagWord {
  std::string word;
  unsigned bits = 0;
};

/// A comma-separated list of `words` (blanks around each item are ignored); `out` is the
/// union of their bits.
std::optional<std::string> parse_flags(const std::string &value, const std::vector<FlagWord> &words,
                                       unsigned &out);

/// A string; with `nonempty`, "" is malformed.
std::optional<std::string> parse_string(const std::string &value, bool nonempty);

/// The words of a NULL-terminated C array of choices, and of a pnmpi_flag_t array ended by
/// a NULL word (the C API's forms; both may be NULL: no words).
std::vector<std::string> choice_words(const char *const *choices);
std::vector<FlagWord> flag_words(const pnmpi_flag_t *words);

/// `value` in quotes as a message shows it: control characters and '\' escaped (\n, \t,
/// \x01, \\), so that a value cannot add a line to a message or forge one.
std::string quoted_value(std::string_view value);

} // namespace pnmpi

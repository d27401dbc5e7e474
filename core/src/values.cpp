// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "values.h"

#include "name_escape.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace pnmpi {

namespace {

std::string quoted(std::string_view word) {
  return "'" + std::string(word) + "'";
}

/// A double as a person would write it in a config: 0.5, 100, 1e+30.
std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

/// strtol and strtod skip leading blanks; a value with them is malformed here, as one with
/// trailing blanks is.
bool starts_blank(const std::string &value) {
  return !value.empty() && std::isspace(static_cast<unsigned char>(value[0]));
}

/// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string alternatives(const std::vector<std::string> &words) {
  std::string list;
  for (std::size_t i = 0; i < words.size(); ++i)
    list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + quoted(words[i]);
  return list;
}

std::string_view trimmed(std::string_view item) {
  while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
    item.remove_prefix(1);
  while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
    item.remove_suffix(1);
  return item;
}

} // namespace

std::string quoted_value(std::string_view value) {
  return "'" + escaped_name(value) + "'";
}

std::optional<std::string> parse_long(const std::string &value, long min, long max, long &out) {
  const std::string range =
      min == LONG_MIN && max == LONG_MAX
          ? std::string("must be a whole number")
          : "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  char *end = nullptr;
  errno = 0;
  // Base 0 would read a leading 0 as octal ("010" is 8): only 0x is special here.
  const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
  const long v = std::strtol(value.c_str(), &end, hex ? 16 : 10);
  if (value.empty() || *end != '\0' || starts_blank(value) || errno == ERANGE || v < min || v > max)
    return range + ", not " + quoted_value(value);
  out = v;
  return std::nullopt;
}

std::optional<std::string> parse_double(const std::string &value, double min, double max,
                                        double &out) {
  const bool unbounded = min <= -HUGE_VAL && max >= HUGE_VAL;
  const std::string range = unbounded
                                ? std::string("must be a number")
                                : "must be a number from " + number(min) + " to " + number(max);
  char *end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || starts_blank(value) || errno == ERANGE ||
      !std::isfinite(v) || v < min || v > max)
    return range + ", not " + quoted_value(value);
  out = v;
  return std::nullopt;
}

std::optional<std::string> parse_bool(const std::string &value, bool &out) {
  static const char *const yes[] = {"on", "yes", "true", "1"};
  static const char *const no[] = {"off", "no", "false", "0"};
  for (const char *w : yes)
    if (value == w) {
      out = true;
      return std::nullopt;
    }
  for (const char *w : no)
    if (value == w) {
      out = false;
      return std::nullopt;
    }
  return "must be 'on' or 'off' (or yes/no, true/false, 1/0), not " + quoted_value(value);
}

std::optional<std::string> parse_choice(const std::string &value,
                                        const std::vector<std::string> &choices, int &out) {
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (value == choices[i]) {
      out = static_cast<int>(i);
      return std::nullopt;
    }
  return (choices.size() == 1 ? "must be " : "must be one of ") + alternatives(choices) + ", not " +
         quoted_value(value);
}

std::optional<std::string> parse_flags(const std::string &value, const std::vector<FlagWord> &words,
                                       unsigned &out) {
  unsigned bits = 0;
  std::size_t items = 0;
  bool alone_word = false;
  bool known = true;
  for (std::size_t start = 0; known && start <= value.size(); ++items) {
    std::size_t comma = value.find(',', start);
    if (comma == std::string::npos)
      comma = value.size();
    const std::string_view item = trimmed(std::string_view(value).substr(start, comma - start));
    start = comma + 1;
    known = false;
    for (const FlagWord &w : words)
      if (item == w.word) {
        known = true;
        bits |= w.bits;
        alone_word = alone_word || w.bits == 0;
        break;
      }
  }
  if (known && !(alone_word && items > 1)) {
    out = bits;
    return std::nullopt;
  }
  std::vector<std::string> combinable, alone;
  for (const FlagWord &w : words)
    (w.bits != 0 ? combinable : alone).push_back(w.word);
  std::string expected;
  if (!combinable.empty())
    expected = "a comma-separated list of " + alternatives(combinable);
  if (!alone.empty())
    expected += (expected.empty() ? "" : ", or ") + alternatives(alone);
  return "must be " + expected + ", not " + quoted_value(value);
}

std::optional<std::string> parse_string(const std::string &value, bool nonempty) {
  if (nonempty && value.empty())
    return std::string("must not be empty");
  return std::nullopt;
}

std::vector<std::string> choice_words(const char *const *choices) {
  std::vector<std::string> words;
  for (const char *const *c = choices; c != nullptr && *c != nullptr; ++c)
    words.emplace_back(*c);
  return words;
}

std::vector<FlagWord> flag_words(const pnmpi_flag_t *words) {
  std::vector<FlagWord> out;
  for (const pnmpi_flag_t *w = words; w != nullptr && w->word != nullptr; ++w)
    out.push_back({w->word, w->bits});
  return out;
}

} // namespace pnmpi

namespace {

/// A call that is wrong in itself (no text, nowhere to store, no words): PNMPI_BADARG with
/// an empty problem, as the caller's code, not the value, is at fault.
PNMPI_status_t bad_parameter(char *problem, size_t size) noexcept {
  if (problem != nullptr && size > 0)
    problem[0] = '\0';
  return PNMPI_BADARG;
}

/// Runs `parse(text, T &)` for a pnmpi_parse_* entry: stores the value on success, else
/// copies the problem into `problem` as snprintf would (cut, always terminated).
template <class T, class Out, class Parse>
PNMPI_status_t parse_entry(const char *text, Out *value, char *problem, size_t size,
                           Parse &&parse) noexcept {
  if (text == nullptr || value == nullptr)
    return bad_parameter(problem, size);
  if (problem != nullptr && size > 0)
    problem[0] = '\0';
  try {
    T v{};
    const std::optional<std::string> wrong = parse(std::string(text), v);
    if (!wrong) {
      *value = static_cast<Out>(v);
      return PNMPI_SUCCESS;
    }
    if (problem != nullptr && size > 0)
      std::snprintf(problem, size, "%s", wrong->c_str());
    return PNMPI_BADARG;
  } catch (const std::bad_alloc &) {
    return PNMPI_NOMEM;
  }
}

} // namespace

extern "C" {

PNMPI_status_t pnmpi_parse_long(const char *text, long min, long max, long *value, char *problem,
                                size_t size) {
  return parse_entry<long>(text, value, problem, size, [&](const std::string &t, long &v) {
    return pnmpi::parse_long(t, min, max, v);
  });
}

PNMPI_status_t pnmpi_parse_double(const char *text, double min, double max, double *value,
                                  char *problem, size_t size) {
  return parse_entry<double>(text, value, problem, size, [&](const std::string &t, double &v) {
    return pnmpi::parse_double(t, min, max, v);
  });
}

PNMPI_status_t pnmpi_parse_bool(const char *text, int *value, char *problem, size_t size) {
  return parse_entry<bool>(text, value, problem, size,
                           [](const std::string &t, bool &v) { return pnmpi::parse_bool(t, v); });
}

PNMPI_status_t pnmpi_parse_choice(const char *text, const char *const *choices, int *index,
                                  char *problem, size_t size) {
  if (choices == nullptr || choices[0] == nullptr)
    return bad_parameter(problem, size);
  return parse_entry<int>(text, index, problem, size, [&](const std::string &t, int &v) {
    return pnmpi::parse_choice(t, pnmpi::choice_words(choices), v);
  });
}

PNMPI_status_t pnmpi_parse_flags(const char *text, const pnmpi_flag_t *words, unsigned *value,
                                 char *problem, size_t size) {
  if (words == nullptr || words[0].word == nullptr)
    return bad_parameter(problem, size);
  return parse_entry<unsigned>(text, value, problem, size, [&](const std::string &t, unsigned &v) {
    return pnmpi::parse_flags(t, pnmpi::flag_words(words), v);
  });
}

PNMPI_status_t pnmpi_parse_string(const char *text, int flags, const char **value, char *problem,
                                  size_t size) {
  // The value is the text itself: only its checks are shared with pnmpi_argument_string.
  return parse_entry<const char *>(
      text, value, problem, size, [&](const std::string &t, const char *&v) {
        v = text;
        return pnmpi::parse_string(t, (flags & PNMPI_ARG_NONEMPTY) != 0);
      });
}

} // extern "C"

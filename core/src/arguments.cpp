// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "arguments.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

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

} // namespace

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
  if (value.empty() || *end != '\0' || value[0] == ' ' || errno == ERANGE || v < min || v > max)
    return range + ", not " + quoted(value);
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
  if (value.empty() || *end != '\0' || value[0] == ' ' || errno == ERANGE || !std::isfinite(v) ||
      v < min || v > max)
    return range + ", not " + quoted(value);
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
  return "must be 'on' or 'off' (or yes/no, true/false, 1/0), not " + quoted(value);
}

std::optional<std::string> parse_choice(const std::string &value,
                                        const std::vector<std::string> &choices, int &out) {
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (value == choices[i]) {
      out = static_cast<int>(i);
      return std::nullopt;
    }
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + quoted(choices[i]);
  return (choices.size() == 1 ? "must be " : "must be one of ") + list + ", not " + quoted(value);
}

std::string argument_message(const Config &config, const ModuleSpec &module,
                             const Argument &argument, const std::string &problem) {
  return config.path + ":" + std::to_string(argument.line) + ": module " + quoted(module.name) +
         ": argument " + quoted(argument.key) + " " + problem;
}

std::string missing_argument_message(const Config &config, const ModuleSpec &module,
                                     std::string_view key) {
  return config.path + ":" + std::to_string(module.line) + ": module " + quoted(module.name) +
         " needs an argument " + quoted(key) + ": add 'argument " + std::string(key) +
         " VALUE' below this line";
}

} // namespace pnmpi

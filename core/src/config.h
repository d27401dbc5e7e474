// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pnmpi {

/// One `argument KEY VALUE...` line.
struct Argument {
  std::string key;
  std::string value; ///< the rest of the line, words joined by one space
  int line;
};

/// One `module NAME` line and what attaches to it. Each is one layer.
struct ModuleSpec {
  std::string name;
  int line;
  int stack; ///< index into Config::stacks; 0 is the default stack
  std::vector<Argument> arguments;

  /// The value of argument `key`, or nullptr.
  const std::string *argument(std::string_view key) const;
};

/// A parsed `.pnmpi-conf`. The one parser: the core and pnmpi-info both read it with
/// parse_config(), so a file means the same everywhere.
struct Config {
  std::string path; ///< empty when no file was found
  std::vector<std::string> stacks{"default"};
  std::vector<ModuleSpec> modules;
};

/// Parses configuration text. Throws pnmpi::Error with `PATH:LINE: message`, naming the
/// offending token.
Config parse_config(std::string_view text, const std::string &path);

/// Reads and parses the file at `path`. Throws pnmpi::Error.
Config load_config_file(const std::string &path);

/// The configuration file pnmpi uses: $PNMPI_CONF, else ./.pnmpi-conf, else
/// $HOME/.pnmpi-conf. Returns nullopt when none exists. Throws pnmpi::Error when
/// PNMPI_CONF names a file that does not exist (the user asked for it explicitly).
std::optional<std::string> find_config_file();

} // namespace pnmpi

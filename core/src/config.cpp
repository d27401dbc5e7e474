// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "error.h"

namespace pnmpi {

const std::string *ModuleSpec::argument(std::string_view key) const {
  for (const Argument &a : arguments)
    if (a.key == key)
      return &a.value;
  return nullptr;
}

namespace {

/// Splits a line into words separated by blanks; `#` at the start of a word begins a
/// comment that runs to the end of the line.
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    if (i == line.size() || line[i] == '#')
      break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      ++i;
    words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string quoted(std::string_view word) {
  return "'" + std::string(word) + "'";
}

} // namespace

Config parse_config(std::string_view text, const std::string &path) {
  Config config;
  config.path = path;
  int line_no = 0;
  auto fail = [&](const std::string &message) {
    throw Error(path + ":" + std::to_string(line_no) + ": " + message);
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find('\0') != std::string_view::npos)
      fail("NUL byte in the configuration: this is not a text file");
    const std::vector<std::string_view> w = words_of(line);
    if (w.empty())
      continue;
    const std::string_view directive = w[0];
    if (directive == "module") {
      if (w.size() < 2)
        fail("'module' needs a module name, as in 'module empty'");
      if (w.size() > 2)
        fail("'module' takes one name; unexpected " + quoted(w[2]) +
             " (give module arguments on 'argument' lines below it)");
      config.modules.push_back({std::string(w[1]), line_no, 0, {}});
    } else if (directive == "argument") {
      if (config.modules.empty())
        fail("'argument' before any 'module': an argument belongs to the module above it");
      if (w.size() < 3)
        fail(w.size() < 2 ? std::string("'argument' needs a key and a value, as in "
                                        "'argument delay-us 100'")
                          : "'argument' " + quoted(w[1]) + " needs a value");
      ModuleSpec &module = config.modules.back();
      for (const Argument &a : module.arguments)
        if (a.key == w[1])
          fail("argument " + quoted(w[1]) + " given twice to module " + quoted(module.name) +
               " (first on line " + std::to_string(a.line) + ")");
      std::string value(w[2]);
      for (std::size_t i = 3; i < w.size(); ++i)
        value.append(" ").append(w[i]);
      module.arguments.push_back({std::string(w[1]), std::move(value), line_no});
    } else {
      fail("unknown directive " + quoted(directive) + " (expected 'module' or 'argument')");
    }
  }
  return config;
}

Config load_config_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot read configuration " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw Error("cannot read configuration " + path + ": " + std::strerror(errno));
  return parse_config(text.str(), path);
}

std::optional<std::string> find_config_file() {
  auto is_file = [](const std::string &p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  };
  if (const char *env = std::getenv("PNMPI_CONF"); env != nullptr && *env != '\0') {
    if (!is_file(env))
      throw Error(std::string("PNMPI_CONF is set to '") + env +
                  "', which is not a readable file; fix the path or unset PNMPI_CONF");
    return std::string(env);
  }
  if (is_file(".pnmpi-conf"))
    return std::string(".pnmpi-conf");
  if (const char *home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    std::string p = std::string(home) + "/.pnmpi-conf";
    if (is_file(p))
      return p;
  }
  return std::nullopt;
}

} // namespace pnmpi

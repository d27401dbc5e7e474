// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "log.h"

#include <cstdlib>
#include <unistd.h>

namespace pnmpi {

namespace {

void write_line(const std::string &line) {
  const char *p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0)
      return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

} // namespace

int debug_level() {
  static const int level = [] {
    const char *env = std::getenv("PNMPI_DEBUG");
    return env == nullptr ? 0 : std::atoi(env);
  }();
  return level;
}

void debug(int level, const std::string &message) {
  if (debug_level() >= level)
    write_line("pnmpi[debug]: " + message + "\n");
}

void print_error(const std::string &message) {
  write_line("pnmpi: " + message + "\n");
}

void fatal(const std::string &message) {
  print_error(message);
  ::_exit(1);
}

} // namespace pnmpi

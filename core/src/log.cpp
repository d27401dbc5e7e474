// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "log.h"

#include <atomic>
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

std::atomic<JobEnder> job_ender{nullptr};

constexpr std::size_t kShownLength = 200;

} // namespace

int debug_level() {
  static const int level = [] {
    const char *env = std::getenv("PNMPI_DEBUG");
    if (env == nullptr || *env == '\0')
      return 0;
    const std::string_view text(env);
    if (text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos) {
      print_error("warning: PNMPI_DEBUG is '" + shown(text) +
                  "', not a debug level (a whole number, 0 to 4); debug output stays off");
      return 0;
    }
    const long v = std::strtol(env, nullptr, 10);
    return v > 4 ? 4 : static_cast<int>(v);
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

void set_job_ender(JobEnder ender) {
  job_ender.store(ender);
}

void fatal(const std::string &message) {
  print_error(message);
  end_job();
}

void end_job() {
  // Once only: a second fatal error (another thread, or one raised while ending the job)
  // just leaves.
  static std::atomic<bool> ending{false};
  if (const JobEnder ender = job_ender.load(); ender != nullptr && !ending.exchange(true))
    ender();
  ::_exit(1);
}

std::string shown(std::string_view token) {
  if (token.size() <= kShownLength)
    return std::string(token);
  // The middle goes: a path's start says where it is, its end which file. The result is
  // never longer than kShownLength, so that showing it again changes nothing.
  const std::string marker = "...(" + std::to_string(token.size()) + " bytes)...";
  std::size_t head = (kShownLength - marker.size()) / 2;
  std::size_t tail = kShownLength - marker.size() - head;
  // Never cut a UTF-8 character in two: a cut moves onto the start of one.
  const auto continuation = [&](std::size_t i) {
    return (static_cast<unsigned char>(token[i]) & 0xC0) == 0x80;
  };
  while (head > 0 && continuation(head))
    --head;
  while (tail > 0 && continuation(token.size() - tail))
    --tail;
  return std::string(token.substr(0, head)) + marker +
         std::string(token.substr(token.size() - tail));
}

} // namespace pnmpi

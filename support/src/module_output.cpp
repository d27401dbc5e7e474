// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// What a module's messages and exit status need: names shown escaped, and the exit status
// of a process whose module lost its output.

#include <pnmpi/support.h>

#include "name_escape.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

std::atomic<bool> g_output_lost{false};
std::atomic<int> g_exit_status{-1}; ///< exit()'s status once the process is exiting

void note_exit_status(int status, void *) {
  g_exit_status.store(status, std::memory_order_relaxed);
}

// Not at MPI_Finalize, where exiting would abort or hang the other ranks, and not right
// after it, which would cut off what the application does after MPI_Finalize: at the very
// end of exit(), after the application's atexit handlers and static destructors, with MPI
// long finalised on every rank. The library's destructor runs after those of the modules
// that link it. Only stdio is flushed by hand; destructors of libraries unloaded after this
// one are skipped. A nonzero status the application chose itself is kept (on_exit tells it).
__attribute__((destructor)) void exit_failed_if_output_lost() {
  if (!g_output_lost.load(std::memory_order_relaxed) ||
      g_exit_status.load(std::memory_order_relaxed) != 0)
    return; // nothing lost, not exiting (an unload), or already a failure status
  std::fflush(nullptr);
  _exit(1);
}

} // namespace

extern "C" {

void pnmpi_fail_at_exit(void) {
  if (!g_output_lost.exchange(true))
    ::on_exit(note_exit_status, nullptr);
}

size_t pnmpi_escape_name(const char *text, char *out, size_t size) {
  const std::string s = pnmpi::escaped_name(text != nullptr ? text : "");
  if (size > 0)
    std::snprintf(out, size, "%s", s.c_str());
  return s.size();
}

} // extern "C"

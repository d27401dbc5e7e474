/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for layers that are copies of one file. Its constructor and destructor print
 * "ctor <address>" / "dtor <address> barriers=N", the address being that of its own
 * counter, so a test tells the copies apart and sees their order. Its load hook prints
 * "loaded <tag> <address> maps file=F memory=M deleted=D": the executable mappings of this
 * process that are this file (api_copies.so), pnmpi's slid images in memory, and files
 * deleted after mapping (copies written for the dynamic linker). Its MPI_Barrier appends
 * "<tag><count>" to the application's trace. Argument: tag (required). */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern void pnmpi_test_tag(const char *token);

static const char *g_tag = "?";
static int g_barriers;

/* One write per line: destructors run after MPI_Finalize, when stdio may be gone. */
static void say(const char *format, ...) {
  char line[256];
  va_list ap;
  va_start(ap, format);
  const int n = vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
    _exit(1);
}

__attribute__((constructor)) static void made(void) {
  say("ctor %p\n", (void *)&g_barriers);
}

__attribute__((destructor)) static void gone(void) {
  say("dtor %p barriers=%d\n", (void *)&g_barriers, g_barriers);
}

static int ends_with(const char *text, const char *end) {
  const size_t n = strlen(text), m = strlen(end);
  return n >= m && strcmp(text + n - m, end) == 0;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (pnmpi_argument_string(self, "tag", PNMPI_ARG_REQUIRED, &g_tag) != PNMPI_SUCCESS)
    _exit(1);
  int file = 0, memory = 0, deleted = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
    char perms[8] = "";
    line[strcspn(line, "\n")] = '\0';
    if (sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x')
      continue;
    if (ends_with(line, "/api_copies.so"))
      ++file;
    else if (strstr(line, "/memfd:pnmpi-copy") != NULL)
      ++memory;
    else if (ends_with(line, " (deleted)"))
      ++deleted;
  }
  if (maps != NULL)
    fclose(maps);
  say("loaded %s %p maps file=%d memory=%d deleted=%d\n", g_tag, (void *)&g_barriers, file, memory,
      deleted);
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  char token[32];
  snprintf(token, sizeof token, "%s%d", g_tag, ++g_barriers);
  pnmpi_test_tag(token);
  return PMPI_Barrier(comm);
}

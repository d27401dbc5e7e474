// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The site's day directory (docs/site.md): LOGDIR/YYYY/M/D of a time, in UTC, as
// `pnmpi-admin mkdirs` makes them and pnmpi_site_record_create() uses them.
#include <pnmpi/support.h>

#include <cstdio>
#include <ctime>

extern "C" {

size_t pnmpi_day_directory(const char *logdir, int64_t when, char *out, size_t size) {
  const std::time_t t = static_cast<std::time_t>(when);
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr)
    utc = std::tm{};
  const int n = std::snprintf(out, size, "%s/%d/%d/%d", logdir != nullptr ? logdir : "",
                              utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

} // extern "C"

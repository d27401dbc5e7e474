// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "output_format.h"

#include <pnmpi/support.h>

#include <cinttypes>

#include "histogram.h"

namespace pnmpi::monitor {

std::string prof_line(const char *type, int me, int peer, std::uint64_t bytes, std::uint64_t count,
                      const std::uint64_t *histogram) {
  char head[160];
  std::snprintf(head, sizeof head, "%s\t%d\t%d\t%" PRIu64 " bytes\t%" PRIu64 " msgs sent", type, me,
                peer, bytes, count);
  std::string line = head;
  if (histogram != nullptr) {
    line += '\t';
    for (unsigned b = 0; b < kHistogramBins; ++b) {
      if (b > 0)
        line += ',';
      line += std::to_string(histogram[b]);
    }
  }
  line += '\n';
  return line;
}

std::string prof_comm_block(const std::string &name, const std::vector<int> &procs, int me,
                            const std::uint64_t counts[3], const std::uint64_t bytes[3]) {
  std::string block = "D\t" + escape_name(name) + "\tprocs: ";
  for (std::size_t i = 0; i < procs.size(); ++i) {
    if (i > 0)
      block += ',';
    block += std::to_string(procs[i]);
  }
  block += '\n';
  const char *classes[3] = {"O2A", "A2O", "A2A"};
  for (int c = 0; c < 3; ++c) {
    char line[160];
    std::snprintf(line, sizeof line, "%s\t%d\t%" PRIu64 " bytes\t%" PRIu64 " msgs sent\n",
                  classes[c], me, bytes[c], counts[c]);
    block += line;
  }
  return block;
}

} // namespace pnmpi::monitor

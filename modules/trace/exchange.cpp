// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Rank 0 gathers every rank's bytes and scatters its replies (exchange.h, trace.h).

#include "exchange.h"
#include "trace.h"

namespace pnmpi::trace {

std::vector<std::string> gather(const std::string &mine) {
  int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(g.size)), displs(sizes.size());
  PMPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, g.comm);
  int total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    displs[r] = total;
    total += sizes[r];
  }
  std::string all(g.rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  PMPI_Gatherv(mine.data(), n, MPI_BYTE, &all[0], sizes.data(), displs.data(), MPI_BYTE, 0, g.comm);
  std::vector<std::string> out;
  if (g.rank == 0)
    for (std::size_t r = 0; r < sizes.size(); ++r)
      out.push_back(
          all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(sizes[r])));
  return out;
}

std::string scatter(const std::vector<std::string> &parts) {
  std::vector<int> sizes(static_cast<std::size_t>(g.size)), displs(sizes.size());
  std::string all;
  if (g.rank == 0)
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      displs[r] = static_cast<int>(all.size());
      sizes[r] = static_cast<int>(parts[r].size());
      all += parts[r];
    }
  int n = 0;
  PMPI_Scatter(sizes.data(), 1, MPI_INT, &n, 1, MPI_INT, 0, g.comm);
  std::string mine(static_cast<std::size_t>(n), '\0');
  PMPI_Scatterv(all.data(), sizes.data(), displs.data(), MPI_BYTE, &mine[0], n, MPI_BYTE, 0,
                g.comm);
  return mine;
}

} // namespace pnmpi::trace

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pnmpi::mapping {

/// A failure with its message and the C API's code (PNMPI_MAP_E*).
class Error : public std::runtime_error {
public:
  Error(int code, const std::string &what) : std::runtime_error(what), m_code(code) {}
  int code() const { return m_code; }

private:
  int m_code;
};

/// Directed bytes in CSR form: row = sender, columns sorted and unique, no zero cells.
struct Matrix {
  int64_t n = 0;
  std::vector<int64_t> xadj{0};
  std::vector<int64_t> adj;
  std::vector<uint64_t> bytes;
};

/// One (sender, receiver, bytes) cell.
struct Cell {
  int64_t src, dst;
  uint64_t bytes;
};

/// The matrix of n ranks holding the cells (cells of one pair are added, zero cells dropped;
/// every rank must be below n).
Matrix build_matrix(int64_t n, std::vector<Cell> cells);

/// Reads a monitor run (see pnmpi_map_load_run).
Matrix load_run(const std::string &run);

/// rank_of_slot for slot_host (sizes checked by the caller): see pnmpi_map_place. `method`
/// receives how the answer was found.
std::vector<int32_t> place(const Matrix &m, const std::vector<int32_t> &slot_host,
                           std::string &method);

/// Bytes of m whose sender and receiver are on different hosts (host_of_rank per rank).
uint64_t crossing(const Matrix &m, const std::vector<int32_t> &host_of_rank);

std::string scotch_version();

} // namespace pnmpi::mapping

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// Readers for what the monitor writes, for the tests: Open MPI's monitoring text format
// (ours and Open MPI's own), and the gathered JSON (a small JSON reader, enough for it).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace pnmpi::test {

/// Messages and bytes between one sender and one receiver.
struct Cell {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  bool operator==(const Cell &o) const { return count == o.count && bytes == o.bytes; }
};

/// A sparse matrix: (sender, receiver) -> cell, world ranks. Zero cells are absent.
using Matrix = std::map<std::pair<int, int>, Cell>;

/// Adds `n` messages of `bytes` bytes each from `from` to `to`.
void add(Matrix &m, int from, int to, std::uint64_t bytes, std::uint64_t n = 1);

/// A readable listing of the differences, empty if equal.
std::string diff(const Matrix &actual, const Matrix &expected);

/// One file in Open MPI's monitoring format.
struct ProfFile {
  bool read = false;
  /// type ("E", "I", "S", "R", "C") -> sparse matrix of this file's lines.
  std::map<std::string, Matrix> lines;
  /// (type, me, peer) -> histogram, for lines that have one.
  std::map<std::tuple<std::string, int, int>, std::vector<std::uint64_t>> histograms;
  struct Comm {
    std::string name, procs;
    Cell classes[3]; ///< O2A, A2O, A2A
  };
  std::vector<Comm> comms;
  std::vector<std::string> malformed; ///< lines that did not parse
};

ProfFile read_prof(const std::string &path);

/// Merges the per-rank files `prefix.<r>.prof` for r < ranks (or Open MPI's
/// `prefix.<r>.prof`, the same naming).
struct ProfSet {
  std::vector<ProfFile> files;
  std::map<std::string, Matrix> lines;
  std::map<std::tuple<std::string, int, int>, std::vector<std::uint64_t>> histograms;
  std::string problems; ///< missing files or malformed lines
};
ProfSet read_prof_set(const std::string &prefix, int ranks);

/// A JSON value (numbers are kept as unsigned 64-bit integers, as in our files).
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  std::uint64_t number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  const Json &operator[](const std::string &key) const;
  const Json &operator[](std::size_t i) const;
};

/// Parses `text`; on a syntax error returns false and sets `error`.
bool parse_json(const std::string &text, Json &out, std::string &error);

/// A category of the gathered file as a sparse matrix: its `entries` (version 2), or its
/// dense `counts` and `bytes` matrices (version 1).
Matrix json_matrix(const Json &doc, const std::string &category);

/// What is wrong with a gathered file of version 2, empty if nothing: every category has
/// `entries` of non-zero [sender, receiver, count, bytes] sorted by sender then receiver;
/// dense `counts`/`bytes` present exactly when world_size <= `dense_limit` (or `dense`), and
/// then equal to the entries; `hosts` has one name per rank.
std::string json_problems(const Json &doc, int dense_limit = 64, bool dense = false);

std::string read_text(const std::string &path);

} // namespace pnmpi::test

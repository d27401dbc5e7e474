// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <pnmpi/pnmpi.h>

#include <functional>
#include <string>

namespace pnmpi::monitor {

/// What `record` selects (bits).
enum RecordBits : unsigned {
  kRecordP2P = 1u,
  kRecordColl = 2u,
  kRecordOsc = 4u,
  kRecordAll = 7u,
};

/// The module's settings: `argument NAME VALUE` lines of its `.pnmpi-conf` entry, each
/// overridden by the environment variable PNMPI_MONITOR_<NAME> (upper case, '-' -> '_').
struct Options {
  unsigned record = kRecordAll;         ///< record: p2p,coll,osc | all | none
  std::string output = "pnmpi-monitor"; ///< output: path prefix of every file written
  bool per_rank = true;                 ///< files: per-rank (<output>.<world rank>.prof)
  bool gathered = true;                 ///< files: gathered (<output>.json on world rank 0)
  bool histograms = true;               ///< histograms: on | off
  bool summary = true;                  ///< summary: on | off (rank 0's stderr)
  int top = 5;                          ///< top: talkers listed in the summary, 0-100
  int max_sessions = 1024;              ///< max-sessions: sessions alive at once, 1-1000000
  /// gather-round-bytes: the most bytes of rows rank 0 receives in one gather round (at least
  /// one row per rank travels per round), 1-2147483647
  int gather_round_bytes = 2147483647;
  /// json-dense: on writes the dense N x N matrices of the gathered file at any world size;
  /// off writes them only up to json-dense-limit ranks (the sparse entries are always there)
  bool json_dense = false;
  int json_dense_limit = 64; ///< json-dense-limit: 0-1000000
  /// parts: the part files' directory; empty: the directory of `output` (docs/record.md)
  std::string parts;
  bool files_given = false;   ///< `files` was set (an argument or its variable)
  bool summary_given = false; ///< `summary` was set
};

/// Every argument key the monitor takes, as PNMPI_MODULE_ARGUMENTS declares them (monitor.cpp):
/// an `argument` line with another key for the monitor is an error naming its line.
#define PNMPI_MONITOR_ARGUMENT_KEYS                                                                \
  "record output files histograms summary top max-sessions gather-round-bytes json-dense "         \
  "json-dense-limit parts"

/// Looks up an environment variable by name; returns nullptr when it is not set.
using Lookup = std::function<const char *(const char *)>;

/// The environment variable that overrides argument `name`.
std::string env_name(const std::string &name);

/// Fills `out` with the settings of monitor layer `self`, as any module reads its arguments:
/// each from its `argument` line through the core's typed readers (pnmpi_argument_*), or,
/// when its environment variable is set, from that variable with the same parser
/// (pnmpi_parse_*); the variable then replaces the argument, which is not read at all.
/// Returns false on a malformed value and leaves `out` as it was. For an argument the core
/// has printed the message (with its FILE:LINE) and `error` is empty; for a variable,
/// `error` is the message that follows the `pnmpi: module 'monitor': ` prefix, naming the
/// variable and its value (escaped: a value cannot add a line to the message).
bool read_options(PNMPI_modHandle_t self, const Lookup &environment, Options &out,
                  std::string &error);

} // namespace pnmpi::monitor

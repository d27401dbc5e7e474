// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The archive's global definitions: what rank 0 learns of every rank's communicators,
// windows and files, the global ids it gives them (Unifier), and the definitions it writes.

#include "trace.h"

#include <otf2/otf2.h>

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace pnmpi::trace {

constexpr OTF2_AttributeRef kAttrOrigin = 0;
constexpr OTF2_AttributeRef kAttrOffset = 1;
constexpr OTF2_AttributeRef kAttrDisplacement = 2;
constexpr OTF2_AttributeRef kAttrEtype = 3;
constexpr OTF2_AttributeRef kAttrFiletype = 4;
constexpr OTF2_IoParadigmRef kMpiIo = 0;

inline OTF2_LocationRef location_id(int rank, std::uint32_t thread) {
  return (static_cast<OTF2_LocationRef>(thread) << 32) | static_cast<std::uint32_t>(rank);
}

inline OTF2_CollectiveOp collective_op(Routine r) {
  return static_cast<OTF2_CollectiveOp>(kRoutines[r].otf2_op);
}

/// A communicator as every rank names it: the world ranks of its group (both groups of an
/// inter-communicator) and its ordinal. An inter-communicator's groups are put in one order
/// (the lesser first) so that the ranks of both sides name it alike.
struct CommKey {
  std::vector<int> a, b; ///< b: the second group of an inter-communicator, else empty
  int ordinal = 0;
  bool inter() const { return !b.empty(); }
  bool operator<(const CommKey &o) const {
    return std::tie(a, b, ordinal) < std::tie(o.a, o.b, o.ordinal);
  }
};

/// What rank 0 learns from every rank.
struct RankDefs {
  std::vector<CommKey> comms;
  std::vector<std::pair<std::vector<int>, int>> wins;
  std::vector<long> win_comm; ///< local comm index or -1
  std::vector<std::string> file_paths;
  std::vector<long> file_comm;
  std::vector<std::uint64_t> events; ///< per thread
  std::uint64_t dropped = 0, flushes = 0, unknown = 0, untracked = 0;
  std::uint64_t lost = 0;      ///< of `dropped`: a flush failed (said by the rank itself)
  std::uint64_t no_memory = 0; ///< of `dropped`: no memory for the thread's buffer
};

struct GlobalIds {
  std::vector<std::uint64_t> comm, win, handle;
};

/// Rank 0: gives every distinct communicator, window, file and handle a global id.
struct Unifier {
  std::map<CommKey, std::uint32_t> comm_ids;
  std::map<std::pair<std::vector<int>, int>, std::uint32_t> win_ids;
  std::vector<CommKey> comm_keys;
  std::vector<std::uint32_t> win_comm; ///< global comm of each window
  std::map<std::string, std::uint32_t> file_ids;
  std::vector<std::string> file_paths;
  struct Handle {
    std::uint32_t file;
    std::uint64_t comm;
  };
  std::vector<Handle> handles;

  GlobalIds add(const RankDefs &d);
};

/// Rank 0: writes the global definitions (`first`, `last`: the archive's time range).
void write_global_defs(OTF2_GlobalDefWriter *w, const Unifier &u,
                       const std::vector<RankDefs> &ranks, std::uint64_t first, std::uint64_t last);

} // namespace pnmpi::trace

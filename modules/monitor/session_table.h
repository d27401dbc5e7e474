// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace pnmpi::monitor {

/// Values a session keeps per member of its communicator: message count and bytes for each
/// of point-to-point, collective, one-sided sent and one-sided fetched (Kind order).
constexpr unsigned kSessionValues = 8;

/// Reads this process's current application counters towards each world rank in `worlds`
/// into out[kSessionValues * i ...] (zeros for -1 and for peers never contacted).
using CounterReader = std::function<void(const std::vector<int> &worlds, std::uint64_t *out)>;

/// A suspended session's data, copied out for reading.
struct SessionView {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = -1;                     ///< this process's rank in comm
  std::vector<int> worlds;           ///< world rank of each member
  std::vector<std::uint64_t> values; ///< kSessionValues per member
};

/// The state machine of the MPI_M_ sessions (introspection monitoring report, section 4),
/// without MPI traffic: a session is active or suspended; data accumulate as the difference
/// of the counters between start/continue and suspend, so recording costs the hot path
/// nothing. Every function returns MPI_SUCCESS or an MPI_M_ code and is thread-safe.
///
/// | call             | not initialised | bad msid | active             | suspended          |
/// |------------------|-----------------|----------|--------------------|--------------------|
/// | suspend(id)      | MISSING_INIT    | INVALID  | -> suspended       | MULTIPLE_CALL      |
/// | continue(id)     | MISSING_INIT    | INVALID  | MULTIPLE_CALL      | -> active          |
/// | reset/free(id)   | MISSING_INIT    | INVALID  | SESSION_NOT_SUSP.  | zero / gone        |
/// | read (get/gather)| MISSING_INIT    | INVALID  | SESSION_NOT_SUSP.  | data               |
/// A read of a session whose communicator was freed (comm_freed()) returns COMM_FREED,
/// before the state is checked: its members can no longer communicate over it.
/// With MPI_M_ALL_MSID: suspend and continue act on every session in the right state;
/// reset and free act on all sessions, or return SESSION_STILL_ACTIVE and change nothing if
/// one is active; reads and info return INVALID_MSID. finalize also fails with
/// SESSION_STILL_ACTIVE, and frees the suspended sessions otherwise.
class SessionTable {
public:
  explicit SessionTable(CounterReader reader) : m_reader(std::move(reader)) {}

  void set_limit(int max_sessions) { m_limit = max_sessions; }
  int init();
  int finalize();
  /// Ends the environment unconditionally (MPI_Finalize); later calls get MISSING_INIT.
  void close();
  int start(MPI_Comm comm, int rank, std::vector<int> worlds, int *msid);
  int suspend(int msid);
  int resume(int msid);
  int reset(int msid);
  int free_session(int msid);
  /// The session's communicator size (any state).
  int size_of(int msid, int *size) const;
  /// Copies a suspended session's data.
  int view(int msid, SessionView &out) const;
  /// The application freed `comm`: the sessions started on it can no longer be read (view()
  /// returns MPI_M_COMM_FREED); they can still be suspended, continued, reset and freed. A
  /// communicator created later with the same handle is another one: its sessions are new.
  void comm_freed(MPI_Comm comm);
  std::size_t bytes() const;

private:
  struct Session {
    bool active = true;
    bool comm_freed = false;
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = -1;
    std::vector<int> worlds;
    std::vector<std::uint64_t> base; ///< counters when last started or continued
    std::vector<std::uint64_t> acc;  ///< accumulated while active
  };
  int check(int msid) const;
  /// MPI_SUCCESS if the session (every session, for MPI_M_ALL_MSID) is suspended, else
  /// SESSION_NOT_SUSPENDED (STILL_ACTIVE for all). The caller holds m_lock.
  int require_suspended(int msid) const;
  void do_suspend(Session &s);
  void do_resume(Session &s);
  /// suspend (active false) or resume (true) one session; with MPI_M_ALL_MSID, every session
  /// not yet in that state.
  int switch_to(int msid, bool active);

  CounterReader m_reader;
  mutable std::mutex m_lock;
  bool m_initialized = false;
  int m_limit = 1024;
  int m_next = 1;
  std::map<int, Session> m_sessions;
};

/// Whether `flags` is a nonzero combination of MPI_M_P2P_ONLY, _COLL_ONLY and _OSC_ONLY.
bool valid_flags(int flags);

/// Sums the categories that `flags` selects (one-sided: sent plus fetched) for member
/// `member` of `values`: its message count and its bytes.
void select_categories(const std::vector<std::uint64_t> &values, std::size_t member, int flags,
                       std::uint64_t *count, std::uint64_t *bytes);

} // namespace pnmpi::monitor

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The monitor's MPI_T performance variables without MPI traffic: their descriptions (Open
// MPI's monitoring names and semantics) and the state of the sessions and handles the
// monitor creates for them. mpit.cpp puts this behind the MPI_T_* wrappers.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace pnmpi::monitor::mpit {

/// Where a variable's values come from: one value per process of the communicator (what
/// this process sent to it), or one value for the communicator (its collective classes).
enum class Scope { kPerPeer, kPerComm };

/// One of the monitor's performance variables.
struct Variable {
  const char *name;
  const char *description;
  int var_class;   ///< MPI_T_PVAR_CLASS_*
  Scope scope;     ///< per peer or per communicator
  unsigned source; ///< Kind (per peer) or CollClass (per communicator), monitor.h's order
  bool bytes;      ///< bytes, else message counts
};

/// The monitor's variables, in the order of their indices after the MPI's own.
const std::vector<Variable> &variables();

/// The position of `name` of class `var_class` in variables(), or -1.
int find_variable(const char *name, int var_class);

/// The name and description of the category that groups the monitor's variables.
extern const char *const kCategoryName;
extern const char *const kCategoryDescription;

/// What a handle is bound to, fixed when it is allocated: the communicator's members in
/// world ranks (per-peer variables) and an opaque pointer to the communicator's collective
/// statistics (per-communicator variables; owned by the monitor, never freed while it runs).
struct Binding {
  std::vector<int> worlds;
  const void *comm_stats = nullptr;
};

/// Writes the current cumulative values of `variable` for `binding` into out[0..count).
using Reader =
    std::function<void(const Variable &variable, const Binding &binding, std::uint64_t *out)>;

struct Session;

/// One handle: a variable bound to a communicator. It counts only while started: it keeps
/// the cumulative values at start and adds the difference at stop, so the monitor's send
/// path does no work for it.
struct Handle {
  Session *session = nullptr;
  int variable = -1;
  Binding binding;
  bool started = false;
  bool freed = false;
  std::vector<std::uint64_t> base; ///< values when last started
  std::vector<std::uint64_t> acc;  ///< accumulated over finished start/stop windows
};

/// One session of the monitor's, wrapping the MPI's session of the same call (which handles
/// of the MPI's own variables use).
struct Session {
  MPI_T_pvar_session mpi = MPI_T_PVAR_SESSION_NULL;
  bool freed = false;
  std::vector<std::unique_ptr<Handle>> handles;
};

/// The monitor's sessions and handles. Every function returns MPI_SUCCESS or an MPI_T error
/// code and is thread-safe. Pointers are recognised only by lookup in the table, never by
/// reading them: handles and sessions that are not the monitor's are never dereferenced.
/// A freed handle or session stays in the table as a tombstone of a few dozen bytes, so
/// that its address is never reused and a use after free is answered with
/// MPI_T_ERR_INVALID_HANDLE or _SESSION instead of reaching the MPI.
///
/// | call                | started handle          | stopped handle                 |
/// |---------------------|-------------------------|--------------------------------|
/// | start               | nothing (already)       | started; counts from now       |
/// | stop                | stopped; keeps the count| nothing (already)              |
/// | read                | count so far            | count of the finished windows  |
/// | reset, readreset, write | MPI_T_ERR_PVAR_NO_WRITE: the variables are read-only |
/// With MPI_T_PVAR_ALL_HANDLES (the `all` argument), start and stop act on every handle of
/// the session and reset skips read-only variables, as the standard says.
class Table {
public:
  explicit Table(Reader reader) : m_reader(std::move(reader)) {}

  Session *create_session(MPI_T_pvar_session mpi);
  bool is_session(const void *p) const;
  /// Frees a session and its handles; `mpi` receives the MPI's session to free.
  int free_session(Session *s, MPI_T_pvar_session *mpi);
  /// Whether `p` is a handle of the monitor's (of any session).
  bool is_handle(const void *p) const;

  int alloc_handle(Session *s, int variable, Binding binding, Handle **out, int *count);
  int free_handle(Session *s, Handle *h);
  int start(Session *s, Handle *h, bool all);
  int stop(Session *s, Handle *h, bool all);
  /// Writes count values of type unsigned long long into buf.
  int read(Session *s, Handle *h, void *buf) const;
  int reset(Session *s, Handle *h, bool all);
  /// The number of values of a handle's variable.
  static std::size_t count_of(const Variable &v, const Binding &b);
  /// Frees every session (the last MPI_T_finalize).
  void clear();

private:
  int check(const Session *s, const Handle *h) const;
  void retire(Session &s, std::size_t i);
  void values_now(const Handle &h, std::uint64_t *out) const;

  Reader m_reader;
  mutable std::mutex m_lock;
  std::map<const void *, std::unique_ptr<Session>> m_sessions; ///< also the freed ones
  std::set<const void *> m_handles;                            ///< also the freed ones
  std::vector<std::unique_ptr<Handle>> m_freed_handles;
};

} // namespace pnmpi::monitor::mpit

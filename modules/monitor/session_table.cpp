// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "session_table.h"

#include "MPI_Monitoring.h"

namespace pnmpi::monitor {

bool valid_flags(int flags) {
  return flags != 0 && (flags & ~MPI_M_ALL_COMM) == 0;
}

void select_categories(const std::vector<std::uint64_t> &values, std::size_t member, int flags,
                       std::uint64_t *count, std::uint64_t *bytes) {
  const std::uint64_t *v = values.data() + kSessionValues * member;
  std::uint64_t c = 0, b = 0;
  if (flags & MPI_M_P2P_ONLY) {
    c += v[0];
    b += v[1];
  }
  if (flags & MPI_M_COLL_ONLY) {
    c += v[2];
    b += v[3];
  }
  if (flags & MPI_M_OSC_ONLY) {
    c += v[4] + v[6];
    b += v[5] + v[7];
  }
  *count = c;
  *bytes = b;
}

int SessionTable::init() {
  std::lock_guard<std::mutex> guard(m_lock);
  if (m_initialized)
    return MPI_M_MULTIPLE_CALL;
  m_initialized = true;
  return MPI_SUCCESS;
}

int SessionTable::require_suspended(int msid) const {
  if (msid != MPI_M_ALL_MSID)
    return m_sessions.at(msid).active ? MPI_M_SESSION_NOT_SUSPENDED : MPI_SUCCESS;
  for (const auto &[id, s] : m_sessions)
    if (s.active)
      return MPI_M_SESSION_STILL_ACTIVE;
  return MPI_SUCCESS;
}

int SessionTable::finalize() {
  std::lock_guard<std::mutex> guard(m_lock);
  if (!m_initialized)
    return MPI_M_MISSING_INIT;
  if (const int rc = require_suspended(MPI_M_ALL_MSID); rc != MPI_SUCCESS)
    return rc;
  m_sessions.clear();
  m_initialized = false;
  return MPI_SUCCESS;
}

void SessionTable::close() {
  std::lock_guard<std::mutex> guard(m_lock);
  m_sessions.clear();
  m_initialized = false;
}

int SessionTable::check(int msid) const {
  if (!m_initialized)
    return MPI_M_MISSING_INIT;
  if (msid == MPI_M_ALL_MSID)
    return MPI_SUCCESS;
  return m_sessions.count(msid) != 0 ? MPI_SUCCESS : MPI_M_INVALID_MSID;
}

void SessionTable::do_suspend(Session &s) {
  std::vector<std::uint64_t> now(s.base.size());
  m_reader(s.worlds, now.data());
  for (std::size_t i = 0; i < now.size(); ++i)
    s.acc[i] += now[i] - s.base[i];
  s.active = false;
}

void SessionTable::do_resume(Session &s) {
  m_reader(s.worlds, s.base.data());
  s.active = true;
}

int SessionTable::start(MPI_Comm comm, int rank, std::vector<int> worlds, int *msid) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (!m_initialized)
    return MPI_M_MISSING_INIT;
  if (msid == nullptr)
    return MPI_M_INVALID_MSID;
  if (static_cast<int>(m_sessions.size()) >= m_limit)
    return MPI_M_SESSION_OVERFLOW;
  try {
    Session s;
    s.comm = comm;
    s.rank = rank;
    s.worlds = std::move(worlds);
    s.base.assign(kSessionValues * s.worlds.size(), 0);
    s.acc.assign(kSessionValues * s.worlds.size(), 0);
    do_resume(s);
    const int id = m_next++;
    m_sessions.emplace(id, std::move(s));
    *msid = id;
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

int SessionTable::suspend(int msid) {
  return switch_to(msid, false);
}

int SessionTable::resume(int msid) {
  return switch_to(msid, true);
}

int SessionTable::switch_to(int msid, bool active) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(msid); rc != MPI_SUCCESS)
    return rc;
  auto change = [&](Session &s) { active ? do_resume(s) : do_suspend(s); };
  if (msid == MPI_M_ALL_MSID) {
    for (auto &[id, s] : m_sessions)
      if (s.active != active)
        change(s);
    return MPI_SUCCESS;
  }
  Session &s = m_sessions.at(msid);
  if (s.active == active)
    return MPI_M_MULTIPLE_CALL;
  change(s);
  return MPI_SUCCESS;
}

int SessionTable::reset(int msid) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(msid); rc != MPI_SUCCESS)
    return rc;
  if (const int rc = require_suspended(msid); rc != MPI_SUCCESS)
    return rc;
  for (auto &[id, s] : m_sessions)
    if (msid == MPI_M_ALL_MSID || id == msid)
      std::fill(s.acc.begin(), s.acc.end(), 0);
  return MPI_SUCCESS;
}

int SessionTable::free_session(int msid) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(msid); rc != MPI_SUCCESS)
    return rc;
  if (const int rc = require_suspended(msid); rc != MPI_SUCCESS)
    return rc;
  if (msid == MPI_M_ALL_MSID)
    m_sessions.clear();
  else
    m_sessions.erase(msid);
  return MPI_SUCCESS;
}

int SessionTable::size_of(int msid, int *size) const {
  std::lock_guard<std::mutex> guard(m_lock);
  if (msid == MPI_M_ALL_MSID)
    return m_initialized ? MPI_M_INVALID_MSID : MPI_M_MISSING_INIT;
  if (const int rc = check(msid); rc != MPI_SUCCESS)
    return rc;
  *size = static_cast<int>(m_sessions.at(msid).worlds.size());
  return MPI_SUCCESS;
}

int SessionTable::view(int msid, SessionView &out) const {
  std::lock_guard<std::mutex> guard(m_lock);
  if (msid == MPI_M_ALL_MSID)
    return m_initialized ? MPI_M_INVALID_MSID : MPI_M_MISSING_INIT;
  if (const int rc = check(msid); rc != MPI_SUCCESS)
    return rc;
  const Session &s = m_sessions.at(msid);
  if (s.comm_freed)
    return MPI_M_COMM_FREED;
  if (const int rc = require_suspended(msid); rc != MPI_SUCCESS)
    return rc;
  try {
    out.comm = s.comm;
    out.rank = s.rank;
    out.worlds = s.worlds;
    out.values = s.acc;
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

void SessionTable::comm_freed(MPI_Comm comm) {
  std::lock_guard<std::mutex> guard(m_lock);
  for (auto &[id, s] : m_sessions)
    if (s.comm == comm)
      s.comm_freed = true;
}

std::size_t SessionTable::bytes() const {
  std::lock_guard<std::mutex> guard(m_lock);
  std::size_t total = 0;
  for (const auto &[id, s] : m_sessions)
    total += sizeof(Session) + 4 * sizeof(void *) + s.worlds.capacity() * sizeof(int) +
             (s.base.capacity() + s.acc.capacity()) * sizeof(std::uint64_t);
  return total;
}

} // namespace pnmpi::monitor

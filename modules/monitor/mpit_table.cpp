// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "mpit_table.h"

#include <cstring>

namespace pnmpi::monitor::mpit {

// The sources in monitor.h's order (Kind, CollClass); mpit.cpp checks that they agree.
namespace kind {
constexpr unsigned kP2P = 0, kColl = 1, kOscSent = 2, kOscFetched = 3;
constexpr unsigned kOneToAll = 0, kAllToOne = 1, kAllToAll = 2;
} // namespace kind

const char *const kCategoryName = "pnmpi_monitor";
const char *const kCategoryDescription =
    "The pnmpi communication monitor's counters, under the names of Open MPI's monitoring "
    "components (application traffic, sender side, world ranks translated to the "
    "communicator's).";

const std::vector<Variable> &variables() {
  // Open MPI's classes: the per-peer arrays are SIZE, the per-communicator operation counts
  // COUNTER and their volumes AGGREGATE (common_monitoring.c in Open MPI 4.1).
  static const std::vector<Variable> v = {
      {"pml_monitoring_messages_count",
       "Number of point-to-point messages sent to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kP2P, false},
      {"pml_monitoring_messages_size",
       "Bytes of point-to-point messages sent to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kP2P, true},
      {"osc_monitoring_messages_sent_count",
       "Number of one-sided operations sending data to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kOscSent, false},
      {"osc_monitoring_messages_sent_size",
       "Bytes sent by one-sided operations to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kOscSent, true},
      {"osc_monitoring_messages_recv_count",
       "Number of one-sided operations fetching data from each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kOscFetched, false},
      {"osc_monitoring_messages_recv_size",
       "Bytes fetched by one-sided operations from each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kOscFetched, true},
      {"coll_monitoring_messages_count",
       "Number of logical collective messages sent to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kColl, false},
      {"coll_monitoring_messages_size",
       "Bytes of logical collective messages sent to each peer of the communicator.",
       MPI_T_PVAR_CLASS_SIZE, Scope::kPerPeer, kind::kColl, true},
      {"coll_monitoring_o2a_count",
       "Number of one-to-all operations this process was the root of in the communicator.",
       MPI_T_PVAR_CLASS_COUNTER, Scope::kPerComm, kind::kOneToAll, false},
      {"coll_monitoring_o2a_size",
       "Bytes this process sent as the root of one-to-all operations in the communicator.",
       MPI_T_PVAR_CLASS_AGGREGATE, Scope::kPerComm, kind::kOneToAll, true},
      {"coll_monitoring_a2o_count",
       "Number of all-to-one operations this process was the root of in the communicator.",
       MPI_T_PVAR_CLASS_COUNTER, Scope::kPerComm, kind::kAllToOne, false},
      {"coll_monitoring_a2o_size",
       "Bytes this process received as the root of all-to-one operations in the communicator.",
       MPI_T_PVAR_CLASS_AGGREGATE, Scope::kPerComm, kind::kAllToOne, true},
      {"coll_monitoring_a2a_count",
       "Number of all-to-all operations this process took part in in the communicator.",
       MPI_T_PVAR_CLASS_COUNTER, Scope::kPerComm, kind::kAllToAll, false},
      {"coll_monitoring_a2a_size",
       "Bytes this process sent in all-to-all operations in the communicator.",
       MPI_T_PVAR_CLASS_AGGREGATE, Scope::kPerComm, kind::kAllToAll, true},
  };
  return v;
}

int find_variable(const char *name, int var_class) {
  if (name == nullptr)
    return -1;
  const std::vector<Variable> &v = variables();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].var_class == var_class && std::strcmp(v[i].name, name) == 0)
      return static_cast<int>(i);
  return -1;
}

std::size_t Table::count_of(const Variable &v, const Binding &b) {
  return v.scope == Scope::kPerPeer ? b.worlds.size() : 1;
}

Session *Table::create_session(MPI_T_pvar_session mpi) {
  auto s = std::make_unique<Session>();
  s->mpi = mpi;
  Session *raw = s.get();
  std::lock_guard<std::mutex> guard(m_lock);
  m_sessions.emplace(raw, std::move(s));
  return raw;
}

bool Table::is_session(const void *p) const {
  std::lock_guard<std::mutex> guard(m_lock);
  return m_sessions.count(p) != 0;
}

bool Table::is_handle(const void *p) const {
  std::lock_guard<std::mutex> guard(m_lock);
  return m_handles.count(p) != 0;
}

int Table::free_session(Session *s, MPI_T_pvar_session *mpi) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, nullptr); rc != MPI_SUCCESS)
    return rc;
  while (!s->handles.empty())
    retire(*s, s->handles.size() - 1);
  *mpi = s->mpi;
  s->mpi = MPI_T_PVAR_SESSION_NULL;
  s->freed = true;
  return MPI_SUCCESS;
}

void Table::clear() {
  std::lock_guard<std::mutex> guard(m_lock);
  for (const auto &[key, s] : m_sessions) {
    while (!s->handles.empty())
      retire(*s, s->handles.size() - 1);
    s->freed = true;
  }
}

void Table::retire(Session &s, std::size_t i) {
  std::unique_ptr<Handle> h = std::move(s.handles[i]);
  s.handles.erase(s.handles.begin() + static_cast<std::ptrdiff_t>(i));
  h->freed = true;
  h->binding = Binding{};
  h->base = {};
  h->acc = {};
  m_freed_handles.push_back(std::move(h));
}

int Table::check(const Session *s, const Handle *h) const {
  if (m_sessions.count(s) == 0 || s->freed)
    return MPI_T_ERR_INVALID_SESSION;
  if (h != nullptr && (m_handles.count(h) == 0 || h->freed || h->session != s))
    return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}

void Table::values_now(const Handle &h, std::uint64_t *out) const {
  m_reader(variables()[static_cast<std::size_t>(h.variable)], h.binding, out);
}

int Table::alloc_handle(Session *s, int variable, Binding binding, Handle **out, int *count) {
  if (variable < 0 || variable >= static_cast<int>(variables().size()))
    return MPI_T_ERR_INVALID_INDEX;
  auto h = std::make_unique<Handle>();
  h->session = s;
  h->variable = variable;
  h->binding = std::move(binding);
  const std::size_t n = count_of(variables()[static_cast<std::size_t>(variable)], h->binding);
  h->base.assign(n, 0);
  h->acc.assign(n, 0);
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, nullptr); rc != MPI_SUCCESS)
    return rc;
  m_handles.insert(h.get());
  *out = h.get();
  *count = static_cast<int>(n);
  s->handles.push_back(std::move(h));
  return MPI_SUCCESS;
}

int Table::free_handle(Session *s, Handle *h) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, h); rc != MPI_SUCCESS)
    return rc;
  for (std::size_t i = 0; i < s->handles.size(); ++i)
    if (s->handles[i].get() == h) {
      retire(*s, i);
      break;
    }
  return MPI_SUCCESS;
}

int Table::start(Session *s, Handle *h, bool all) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, all ? nullptr : h); rc != MPI_SUCCESS)
    return rc;
  for (const auto &each : s->handles) {
    if ((all || each.get() == h) && !each->started) {
      values_now(*each, each->base.data());
      each->started = true;
    }
  }
  return MPI_SUCCESS;
}

int Table::stop(Session *s, Handle *h, bool all) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, all ? nullptr : h); rc != MPI_SUCCESS)
    return rc;
  std::vector<std::uint64_t> now;
  for (const auto &each : s->handles) {
    if ((all || each.get() == h) && each->started) {
      now.resize(each->acc.size());
      values_now(*each, now.data());
      for (std::size_t i = 0; i < now.size(); ++i)
        each->acc[i] += now[i] - each->base[i];
      each->started = false;
    }
  }
  return MPI_SUCCESS;
}

int Table::read(Session *s, Handle *h, void *buf) const {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, h); rc != MPI_SUCCESS)
    return rc;
  if (buf == nullptr)
    return MPI_T_ERR_INVALID;
  std::vector<std::uint64_t> out(h->acc);
  if (h->started) {
    std::vector<std::uint64_t> now(out.size());
    values_now(*h, now.data());
    for (std::size_t i = 0; i < now.size(); ++i)
      out[i] += now[i] - h->base[i];
  }
  auto *values = static_cast<unsigned long long *>(buf);
  for (std::size_t i = 0; i < out.size(); ++i)
    values[i] = out[i];
  return MPI_SUCCESS;
}

int Table::reset(Session *s, Handle *h, bool all) {
  std::lock_guard<std::mutex> guard(m_lock);
  if (const int rc = check(s, all ? nullptr : h); rc != MPI_SUCCESS)
    return rc;
  // Every variable of the monitor's is read-only: the standard makes reset of one handle an
  // error and has MPI_T_PVAR_ALL_HANDLES skip them.
  return all ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}

} // namespace pnmpi::monitor::mpit

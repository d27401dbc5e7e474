// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The MPI_T table without MPI: variable descriptions, the start/stop windows of handles over
// counters the test moves by hand, independence of handles and sessions, and error codes.

#include <gtest/gtest.h>

#include <cstring>

#include "mpit_table.h"

namespace pnmpi::monitor::mpit {
namespace {

/// Cumulative counters per world rank, as the monitor would hold them; per-communicator
/// variables read slot 0 of the communicator stats they are bound to.
struct Counters {
  std::vector<std::uint64_t> peer = std::vector<std::uint64_t>(8, 0);
  std::uint64_t comm = 0;
};

Table make_table(Counters &c) {
  return Table([&c](const Variable &v, const Binding &b, std::uint64_t *out) {
    if (v.scope == Scope::kPerComm) {
      *out = b.comm_stats != nullptr ? c.comm : 0;
      return;
    }
    for (std::size_t i = 0; i < b.worlds.size(); ++i)
      out[i] = b.worlds[i] >= 0 ? c.peer[static_cast<std::size_t>(b.worlds[i])] : 0;
  });
}

int index_of(const char *name, int var_class) {
  const int k = find_variable(name, var_class);
  EXPECT_GE(k, 0) << name;
  return k;
}

std::vector<unsigned long long> read(Table &t, Session *s, Handle *h, std::size_t n) {
  std::vector<unsigned long long> v(n, 12345);
  EXPECT_EQ(t.read(s, h, v.data()), MPI_SUCCESS);
  return v;
}

TEST(MonitorMpitTable, OpenMpisNamesClassesAndOrder) {
  const std::vector<Variable> &v = variables();
  ASSERT_EQ(v.size(), 14u);
  EXPECT_STREQ(v[0].name, "pml_monitoring_messages_count");
  EXPECT_STREQ(v[7].name, "coll_monitoring_messages_size");
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(v[i].var_class, MPI_T_PVAR_CLASS_SIZE) << v[i].name;
  EXPECT_EQ(index_of("coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER), 12);
  EXPECT_EQ(index_of("coll_monitoring_a2a_size", MPI_T_PVAR_CLASS_AGGREGATE), 13);
  EXPECT_EQ(find_variable("coll_monitoring_a2a_size", MPI_T_PVAR_CLASS_SIZE), -1);
  EXPECT_EQ(find_variable("pml_monitoring", MPI_T_PVAR_CLASS_SIZE), -1);
  EXPECT_EQ(find_variable(nullptr, MPI_T_PVAR_CLASS_SIZE), -1);
}

TEST(MonitorMpitTable, AHandleCountsOnlyWhileStarted) {
  Counters c;
  Table t = make_table(c);
  Session *s = t.create_session(MPI_T_PVAR_SESSION_NULL);
  Handle *h = nullptr;
  int count = 0;
  c.peer = {5, 5, 5, 5, 0, 0, 0, 0}; // before the handle: never seen
  ASSERT_EQ(t.alloc_handle(s, 0, Binding{{2, 0, 3}, nullptr}, &h, &count), MPI_SUCCESS);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(read(t, s, h, 3), (std::vector<unsigned long long>{0, 0, 0}));
  ASSERT_EQ(t.start(s, h, false), MPI_SUCCESS);
  c.peer[2] += 4;
  EXPECT_EQ(read(t, s, h, 3), (std::vector<unsigned long long>{4, 0, 0}));
  ASSERT_EQ(t.stop(s, h, false), MPI_SUCCESS);
  c.peer[3] += 7; // stopped
  EXPECT_EQ(read(t, s, h, 3), (std::vector<unsigned long long>{4, 0, 0}));
  ASSERT_EQ(t.start(s, nullptr, true), MPI_SUCCESS);
  EXPECT_EQ(t.start(s, h, false), MPI_SUCCESS); // already started: no new base
  c.peer[0] += 1;
  c.peer[3] += 1;
  EXPECT_EQ(read(t, s, h, 3), (std::vector<unsigned long long>{4, 1, 1}));
  EXPECT_EQ(t.reset(s, h, false), MPI_T_ERR_PVAR_NO_WRITE);
  EXPECT_EQ(t.reset(s, nullptr, true), MPI_SUCCESS);
  EXPECT_EQ(read(t, s, h, 3), (std::vector<unsigned long long>{4, 1, 1}));
}

TEST(MonitorMpitTable, HandlesAndSessionsAreIndependent) {
  Counters c;
  Table t = make_table(c);
  Session *a = t.create_session(MPI_T_PVAR_SESSION_NULL);
  Session *b = t.create_session(MPI_T_PVAR_SESSION_NULL);
  Handle *ha = nullptr, *hb = nullptr, *hc = nullptr;
  int n = 0;
  static const int stats = 0;
  ASSERT_EQ(t.alloc_handle(a, 0, Binding{{1}, nullptr}, &ha, &n), MPI_SUCCESS);
  ASSERT_EQ(t.alloc_handle(b, 0, Binding{{1}, nullptr}, &hb, &n), MPI_SUCCESS);
  ASSERT_EQ(t.alloc_handle(b, 12, Binding{{}, &stats}, &hc, &n), MPI_SUCCESS);
  EXPECT_EQ(n, 1);
  t.start(a, ha, false);
  c.peer[1] = 10;
  c.comm = 3;
  t.start(b, nullptr, true);
  c.peer[1] = 15;
  c.comm = 5;
  EXPECT_EQ(read(t, a, ha, 1)[0], 15u);
  EXPECT_EQ(read(t, b, hb, 1)[0], 5u);
  EXPECT_EQ(read(t, b, hc, 1)[0], 2u);
  // A handle with another session's name is refused, and so is a foreign pointer.
  unsigned long long buf[1];
  EXPECT_EQ(t.read(b, ha, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT_EQ(t.stop(b, ha, false), MPI_T_ERR_INVALID_HANDLE);
  EXPECT_EQ(t.free_handle(b, ha), MPI_T_ERR_INVALID_HANDLE);
  int foreign = 0;
  EXPECT_FALSE(t.is_handle(&foreign));
  EXPECT_FALSE(t.is_session(&foreign));
  EXPECT_EQ(t.alloc_handle(a, 14, Binding{}, &ha, &n), MPI_T_ERR_INVALID_INDEX);
  EXPECT_EQ(t.alloc_handle(a, -1, Binding{}, &ha, &n), MPI_T_ERR_INVALID_INDEX);
}

TEST(MonitorMpitTable, FreedObjectsStayKnownAndAnswerErrors) {
  Counters c;
  Table t = make_table(c);
  Session *s = t.create_session(MPI_T_PVAR_SESSION_NULL);
  Handle *h = nullptr;
  int n = 0;
  ASSERT_EQ(t.alloc_handle(s, 1, Binding{{0, 1}, nullptr}, &h, &n), MPI_SUCCESS);
  ASSERT_EQ(t.free_handle(s, h), MPI_SUCCESS);
  EXPECT_TRUE(t.is_handle(h)); // never handed to the MPI
  unsigned long long buf[2];
  EXPECT_EQ(t.read(s, h, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT_EQ(t.free_handle(s, h), MPI_T_ERR_INVALID_HANDLE);
  Handle *h2 = nullptr;
  ASSERT_EQ(t.alloc_handle(s, 1, Binding{{0}, nullptr}, &h2, &n), MPI_SUCCESS);
  MPI_T_pvar_session mpi = MPI_T_PVAR_SESSION_NULL;
  ASSERT_EQ(t.free_session(s, &mpi), MPI_SUCCESS);
  EXPECT_TRUE(t.is_session(s));
  EXPECT_EQ(t.free_session(s, &mpi), MPI_T_ERR_INVALID_SESSION);
  EXPECT_EQ(t.read(s, h2, buf), MPI_T_ERR_INVALID_SESSION);
  EXPECT_EQ(t.start(s, nullptr, true), MPI_T_ERR_INVALID_SESSION);
  Session *s2 = t.create_session(MPI_T_PVAR_SESSION_NULL);
  t.clear();
  EXPECT_EQ(t.alloc_handle(s2, 0, Binding{{0}, nullptr}, &h2, &n), MPI_T_ERR_INVALID_SESSION);
}

} // namespace
} // namespace pnmpi::monitor::mpit

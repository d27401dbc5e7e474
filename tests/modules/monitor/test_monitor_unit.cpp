// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor's logic without MPI traffic: histogram bins, options, rank translation,
// the lock-free index, the sessions state machine and the output formats.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "MPI_Monitoring.h"
#include "histogram.h"
#include "monitor.h"
#include "options.h"
#include "output_format.h"
#include "rank_map.h"
#include "session_table.h"
#include "shell_index.h"

namespace pnmpi::monitor {
namespace {

// ---- histogram ----------------------------------------------------------------------------

unsigned reference_bin(std::uint64_t size) {
  if (size == 0)
    return 0;
  unsigned k = 0;
  while (size >>= 1)
    ++k;
  return k + 1;
}

TEST(MonitorHistogram, BinsAreOpenMpis) {
  EXPECT_EQ(size_bin(0), 0u);
  EXPECT_EQ(size_bin(1), 1u);
  EXPECT_EQ(size_bin(2), 2u);
  EXPECT_EQ(size_bin(3), 2u);
  EXPECT_EQ(size_bin(4), 3u);
  EXPECT_EQ(size_bin(100), 7u);
  EXPECT_EQ(size_bin(~0ull), 64u);
  for (unsigned k = 0; k < 64; ++k) {
    const std::uint64_t p = 1ull << k;
    EXPECT_EQ(size_bin(p), k + 1) << p;
    EXPECT_EQ(size_bin(p - 1), reference_bin(p - 1)) << p - 1;
    EXPECT_EQ(size_bin(p + 1), reference_bin(p + 1)) << p + 1;
  }
  EXPECT_LT(size_bin(~0ull), kHistogramBins);
  EXPECT_EQ(kHistogramBins, 66u);
}

// ---- options ------------------------------------------------------------------------------

// The monitor reads its arguments through the module API. Here the core is not loaded:
// these stand-ins for its typed readers look the argument up in the test's map, parse it
// with the core's own parser (pnmpi_parse_*, linked from the core's objects) and record
// the message the core would print after `FILE:LINE: module 'monitor': `. The real readers
// and their FILE:LINE messages are tested in tests/api and, with the monitor, in
// test_monitor (MonitorOptions.*).

constexpr PNMPI_modHandle_t kSelf = 7;
const std::map<std::string, std::string> *g_arguments = nullptr;
std::string g_printed;
int g_wrong_handles = 0;

template <class Parse>
PNMPI_status_t stand_in(PNMPI_modHandle_t module, const char *name, Parse &&parse) {
  g_wrong_handles += module != kSelf;
  const auto it = g_arguments->find(name);
  if (it == g_arguments->end())
    return PNMPI_NOARG;
  char problem[1024];
  const PNMPI_status_t status = parse(it->second.c_str(), problem, sizeof problem);
  if (status == PNMPI_BADARG)
    g_printed = "argument '" + std::string(name) + "' " + problem;
  return status;
}

} // namespace
} // namespace pnmpi::monitor

extern "C" {

PNMPI_status_t pnmpi_argument_long(PNMPI_modHandle_t module, const char *name, int, long min,
                                   long max, long *value) {
  return pnmpi::monitor::stand_in(module, name, [&](const char *t, char *p, size_t s) {
    return pnmpi_parse_long(t, min, max, value, p, s);
  });
}

PNMPI_status_t pnmpi_argument_bool(PNMPI_modHandle_t module, const char *name, int, int *value) {
  return pnmpi::monitor::stand_in(module, name, [&](const char *t, char *p, size_t s) {
    return pnmpi_parse_bool(t, value, p, s);
  });
}

PNMPI_status_t pnmpi_argument_flags(PNMPI_modHandle_t module, const char *name, int,
                                    const pnmpi_flag_t *words, unsigned *value) {
  return pnmpi::monitor::stand_in(module, name, [&](const char *t, char *p, size_t s) {
    return pnmpi_parse_flags(t, words, value, p, s);
  });
}

PNMPI_status_t pnmpi_argument_string(PNMPI_modHandle_t module, const char *name, int flags,
                                     const char **value) {
  return pnmpi::monitor::stand_in(module, name, [&](const char *t, char *p, size_t s) {
    return pnmpi_parse_string(t, flags, value, p, s);
  });
}

const char *PNMPI_Service_StatusString(PNMPI_status_t) {
  return "not expected in these tests";
}

} // extern "C"

namespace pnmpi::monitor {
namespace {

struct Args {
  std::map<std::string, std::string> config, env;
  Lookup env_lookup() const {
    return [this](const char *n) -> const char * {
      auto it = env.find(n);
      return it == env.end() ? nullptr : it->second.c_str();
    };
  }
  /// read_options() over `config` and `env`; `error` is the monitor's message, or the
  /// stand-in core's when the monitor has none to print.
  bool parse(Options &o, std::string &error) const {
    g_arguments = &config;
    g_printed.clear();
    g_wrong_handles = 0;
    const bool ok = read_options(kSelf, env_lookup(), o, error);
    EXPECT_EQ(g_wrong_handles, 0) << "the readers must get the monitor's own handle";
    EXPECT_TRUE(ok || error.empty() != g_printed.empty())
        << "one message, by the monitor or the core: '" << error << "' / '" << g_printed << "'";
    if (error.empty())
      error = g_printed;
    return ok;
  }
};

TEST(MonitorOptions, Defaults) {
  Options o;
  std::string error;
  ASSERT_TRUE(Args{}.parse(o, error)) << error;
  EXPECT_EQ(o.record, unsigned{kRecordAll});
  EXPECT_EQ(o.output, "pnmpi-monitor");
  EXPECT_TRUE(o.per_rank);
  EXPECT_TRUE(o.gathered);
  EXPECT_TRUE(o.histograms);
  EXPECT_TRUE(o.summary);
  EXPECT_EQ(o.top, 5);
  EXPECT_EQ(o.max_sessions, 1024);
  EXPECT_EQ(o.gather_round_bytes, 2147483647);
}

TEST(MonitorOptions, ConfigValues) {
  Args a;
  a.config = {{"record", "p2p, osc"}, {"output", "/tmp/x/run"},   {"files", "gathered"},
              {"histograms", "off"},  {"summary", "no"},          {"top", "0"},
              {"max-sessions", "3"},  {"gather-round-bytes", "1"}};
  Options o;
  std::string error;
  ASSERT_TRUE(a.parse(o, error)) << error;
  EXPECT_EQ(o.record, unsigned{kRecordP2P | kRecordOsc});
  EXPECT_EQ(o.output, "/tmp/x/run");
  EXPECT_FALSE(o.per_rank);
  EXPECT_TRUE(o.gathered);
  EXPECT_FALSE(o.histograms);
  EXPECT_FALSE(o.summary);
  EXPECT_EQ(o.top, 0);
  EXPECT_EQ(o.max_sessions, 3);
  EXPECT_EQ(o.gather_round_bytes, 1);
  a.config = {{"record", "none"}, {"files", "none"}};
  ASSERT_TRUE(a.parse(o, error)) << error;
  EXPECT_EQ(o.record, 0u);
  EXPECT_FALSE(o.per_rank || o.gathered);
  a.config = {{"record", "all"}, {"files", "per-rank,gathered"}, {"top", "0x10"}};
  ASSERT_TRUE(a.parse(o, error)) << error;
  EXPECT_EQ(o.record, unsigned{kRecordAll});
  EXPECT_TRUE(o.per_rank && o.gathered);
  EXPECT_EQ(o.top, 16);
}

TEST(MonitorOptions, EnvironmentWins) {
  Args a;
  a.config = {{"record", "coll"}, {"max-sessions", "5"}};
  a.env = {{"PNMPI_MONITOR_RECORD", "p2p"}, {"PNMPI_MONITOR_MAX_SESSIONS", "7"}};
  Options o;
  std::string error;
  ASSERT_TRUE(a.parse(o, error)) << error;
  EXPECT_EQ(o.record, unsigned{kRecordP2P});
  EXPECT_EQ(o.max_sessions, 7);
  EXPECT_EQ(env_name("max-sessions"), "PNMPI_MONITOR_MAX_SESSIONS");
  // The variable replaces the argument: a malformed argument it overrides is never read.
  a.config = {{"summary", "loud"}, {"output", ""}};
  a.env = {{"PNMPI_MONITOR_SUMMARY", "off"}, {"PNMPI_MONITOR_OUTPUT", "/tmp/y"}};
  ASSERT_TRUE(a.parse(o, error)) << error;
  EXPECT_FALSE(o.summary);
  EXPECT_EQ(o.output, "/tmp/y");
}

TEST(MonitorOptions, MalformedValuesNameTheArgumentAndTheValue) {
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"record", "p2p,bogus"}},
       "argument 'record' must be a comma-separated list of 'p2p', 'coll', 'osc' or 'all', or "
       "'none', not 'p2p,bogus'"},
      {{{"record", "none,p2p"}},
       "argument 'record' must be a comma-separated list of 'p2p', 'coll', 'osc' or 'all', or "
       "'none', not 'none,p2p'"},
      {{{"output", ""}}, "argument 'output' must not be empty"},
      {{{"files", "per-rank,json"}},
       "argument 'files' must be a comma-separated list of 'per-rank' or 'gathered', or "
       "'none', not 'per-rank,json'"},
      {{{"histograms", "maybe"}},
       "argument 'histograms' must be 'on' or 'off' (or yes/no, true/false, 1/0), not 'maybe'"},
      {{{"top", "101"}}, "argument 'top' must be a whole number from 0 to 100, not '101'"},
      {{{"max-sessions", "0"}},
       "argument 'max-sessions' must be a whole number from 1 to 1000000, not '0'"},
      {{{"max-sessions", "3x"}},
       "argument 'max-sessions' must be a whole number from 1 to 1000000, not '3x'"},
      {{{"gather-round-bytes", "0"}},
       "argument 'gather-round-bytes' must be a whole number from 1 to 2147483647, not '0'"},
      {{{"gather-round-bytes", "2147483648"}},
       "argument 'gather-round-bytes' must be a whole number from 1 to 2147483647, not "
       "'2147483648'"},
  };
  for (const auto &[config, message] : cases) {
    Args a;
    a.config = config;
    Options o;
    o.top = 42; // a failed read leaves the options as they were
    std::string error;
    EXPECT_FALSE(a.parse(o, error)) << message;
    EXPECT_EQ(error, message);
    EXPECT_EQ(o.top, 42) << message;
  }
  Args a;
  a.env = {{"PNMPI_MONITOR_SUMMARY", "loud"}};
  Options o;
  std::string error;
  EXPECT_FALSE(a.parse(o, error));
  EXPECT_EQ(error, "environment variable PNMPI_MONITOR_SUMMARY must be 'on' or 'off' (or "
                   "yes/no, true/false, 1/0), not 'loud'");
  a.env = {{"PNMPI_MONITOR_TOP", "3\npnmpi monitor: wrote everything"}};
  EXPECT_FALSE(a.parse(o, error));
  EXPECT_EQ(error, "environment variable PNMPI_MONITOR_TOP must be a whole number from 0 to 100, "
                   "not '3\\npnmpi monitor: wrote everything'");
  a.env = {{"PNMPI_MONITOR_OUTPUT", ""}};
  EXPECT_FALSE(a.parse(o, error));
  EXPECT_EQ(error, "environment variable PNMPI_MONITOR_OUTPUT must not be empty");
  a.env = {{"PNMPI_MONITOR_FILES", "gathered,none"}};
  EXPECT_FALSE(a.parse(o, error));
  EXPECT_EQ(error, "environment variable PNMPI_MONITOR_FILES must be a comma-separated list of "
                   "'per-rank' or 'gathered', or 'none', not 'gathered,none'");
}

// ---- rank translation ---------------------------------------------------------------------

TEST(MonitorRankMap, ArithmeticGroupsNeedNoTable) {
  const std::size_t before = g_heap_bytes.load();
  RankMap m;
  m.assign({0, 1, 2, 3});
  EXPECT_FALSE(m.has_table());
  EXPECT_EQ(m.size(), 4);
  EXPECT_EQ(m.world(3), 3);
  m.assign({5, 7, 9});
  EXPECT_FALSE(m.has_table());
  EXPECT_EQ(m.world(2), 9);
  m.assign({6, 4, 2, 0});
  EXPECT_FALSE(m.has_table());
  EXPECT_EQ(m.world(1), 4);
  m.assign({3});
  EXPECT_FALSE(m.has_table());
  EXPECT_EQ(m.world(0), 3);
  EXPECT_EQ(g_heap_bytes.load(), before);
}

TEST(MonitorRankMap, OtherGroupsKeepATableThatIsReleased) {
  const std::size_t before = g_heap_bytes.load();
  {
    RankMap m;
    m.assign({2, 0, 3, 1});
    EXPECT_TRUE(m.has_table());
    EXPECT_EQ(m.world(0), 2);
    EXPECT_EQ(m.world(3), 1);
    EXPECT_EQ(g_heap_bytes.load(), before + 4 * sizeof(int));
    m.reset();
    EXPECT_EQ(g_heap_bytes.load(), before);
    m.assign({0, 1, 5});
    EXPECT_TRUE(m.has_table());
  }
  EXPECT_EQ(g_heap_bytes.load(), before);
}

// ---- lock-free index ----------------------------------------------------------------------

struct Node {
  std::atomic<std::uintptr_t> key{0};
  std::uintptr_t payload = 0;
};

TEST(MonitorShellIndex, InsertFindEraseRecycle) {
  ShellIndex<Node> index;
  std::mutex lock;
  auto insert = [&](std::uintptr_t key) {
    std::lock_guard<std::mutex> guard(lock);
    bool fresh = false;
    Node *n = index.claim(key, &fresh);
    if (fresh) {
      n->payload = key * 10;
      index.publish(n, key);
    }
    return n;
  };
  EXPECT_EQ(index.find(1), nullptr);
  for (std::uintptr_t k = 1; k <= 1000; ++k)
    insert(k * 4096); // aligned keys, like pointers
  EXPECT_EQ(index.live(), 1000u);
  for (std::uintptr_t k = 1; k <= 1000; ++k) {
    Node *n = index.find(k * 4096);
    ASSERT_NE(n, nullptr) << k;
    EXPECT_EQ(n->payload, k * 40960);
  }
  Node *again = insert(5 * 4096);
  EXPECT_EQ(again, index.find(5 * 4096));
  EXPECT_EQ(index.live(), 1000u);
  {
    std::lock_guard<std::mutex> guard(lock);
    for (std::uintptr_t k = 1; k <= 1000; k += 2)
      EXPECT_NE(index.erase(k * 4096), nullptr);
    EXPECT_EQ(index.erase(12345), nullptr);
  }
  EXPECT_EQ(index.live(), 500u);
  for (std::uintptr_t k = 1; k <= 1000; ++k)
    EXPECT_EQ(index.find(k * 4096) != nullptr, k % 2 == 0) << k;
  // Churn: creating and freeing many handles must not grow the index without bound.
  const std::size_t heap_before_churn = g_heap_bytes.load();
  for (int round = 0; round < 20000; ++round) {
    const std::uintptr_t key = 0x100001 + static_cast<std::uintptr_t>(round) * 64; // odd: new
    insert(key);
    std::lock_guard<std::mutex> guard(lock);
    index.erase(key);
  }
  EXPECT_EQ(index.live(), 500u);
  // Fresh handle values retire arrays that lock-free readers may still walk: bounded by a
  // few dozen bytes per handle ever freed (README, memory model).
  EXPECT_LT(g_heap_bytes.load() - heap_before_churn, 20000u * 48);
  // Reused handle values (what MPI libraries do) recycle their nodes: no growth at all.
  const std::size_t heap_before_reuse = g_heap_bytes.load();
  for (int round = 0; round < 20000; ++round) {
    const std::uintptr_t key = 0x200001 + static_cast<std::uintptr_t>(round % 16) * 64;
    insert(key);
    std::lock_guard<std::mutex> guard(lock);
    index.erase(key);
  }
  EXPECT_LE(g_heap_bytes.load() - heap_before_reuse, 16 * sizeof(Node));
  EXPECT_EQ(index.live(), 500u);
  std::size_t visited = 0;
  index.for_each([&](const Node &) { ++visited; });
  EXPECT_EQ(visited, 500u);
}

TEST(MonitorShellIndex, ReadersNeverSeeATornOrWrongNode) {
  // The readers are all running before the first insert, and the writer stops halfway until
  // a read has happened while it writes: the finds do overlap the inserts, which 2000
  // inserts alone (a few microseconds) need not.
  constexpr int kReaders = 3;
  ShellIndex<Node> index;
  std::mutex lock;
  std::atomic<int> ready{0};
  std::atomic<bool> writing{false}, stop{false};
  std::atomic<long> wrong{0}, during_writes{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < kReaders; ++t)
    readers.emplace_back([&] {
      ++ready;
      while (!stop.load()) {
        for (std::uintptr_t k = 1; k <= 2000; ++k) {
          const bool before = writing.load();
          if (Node *n = index.find(k))
            if (n->payload != k * 3 && n->key.load() == k)
              ++wrong;
          if (before && writing.load())
            ++during_writes;
        }
      }
    });
  while (ready.load() < kReaders)
    std::this_thread::yield();
  writing = true;
  for (std::uintptr_t k = 1; k <= 2000; ++k) {
    if (k == 1000) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (during_writes.load() == 0 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
    }
    std::lock_guard<std::mutex> guard(lock);
    bool fresh = false;
    Node *n = index.claim(k, &fresh);
    n->payload = k * 3;
    index.publish(n, k);
  }
  writing = false;
  stop = true;
  for (std::thread &t : readers)
    t.join();
  EXPECT_GT(during_writes.load(), 0) << "no read overlapped the writes";
  EXPECT_EQ(wrong.load(), 0);
  for (std::uintptr_t k = 1; k <= 2000; ++k)
    ASSERT_NE(index.find(k), nullptr);
}

// ---- sessions -----------------------------------------------------------------------------

/// Counters a test can move: world rank -> 8 values.
struct FakeCounters {
  std::map<int, std::array<std::uint64_t, kSessionValues>> values;
  CounterReader reader() {
    return [this](const std::vector<int> &worlds, std::uint64_t *out) {
      for (std::size_t i = 0; i < worlds.size(); ++i)
        for (unsigned v = 0; v < kSessionValues; ++v)
          out[kSessionValues * i + v] = values[worlds[i]][v];
    };
  }
  void send(int world, unsigned kind, std::uint64_t bytes) {
    values[world][2 * kind] += 1;
    values[world][2 * kind + 1] += bytes;
  }
};

std::vector<std::uint64_t> p2p_bytes(const SessionTable &t, int id) {
  SessionView v;
  EXPECT_EQ(t.view(id, v), MPI_SUCCESS);
  std::vector<std::uint64_t> out;
  for (std::size_t j = 0; j < v.worlds.size(); ++j)
    out.push_back(v.values[kSessionValues * j + 1]);
  return out;
}

TEST(MonitorSessionTable, StateMachine) {
  FakeCounters c;
  SessionTable t(c.reader());
  t.set_limit(2);
  int a = 0, b = 0, x = 0;
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {0, 1}, &a), MPI_M_MISSING_INIT);
  EXPECT_EQ(t.suspend(1), MPI_M_MISSING_INIT);
  EXPECT_EQ(t.finalize(), MPI_M_MISSING_INIT);
  EXPECT_EQ(t.init(), MPI_SUCCESS);
  EXPECT_EQ(t.init(), MPI_M_MULTIPLE_CALL);
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {0, 1}, nullptr), MPI_M_INVALID_MSID);
  c.send(1, 0, 100); // before the session: not counted
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {0, 1}, &a), MPI_SUCCESS);
  c.send(1, 0, 10);
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {1, 0}, &b), MPI_SUCCESS);
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {1}, &x), MPI_M_SESSION_OVERFLOW);
  c.send(1, 0, 5);
  c.send(0, 1, 7);
  SessionView v;
  EXPECT_EQ(t.view(a, v), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_EQ(t.reset(a), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_EQ(t.free_session(a), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_EQ(t.resume(a), MPI_M_MULTIPLE_CALL);
  EXPECT_EQ(t.finalize(), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_EQ(t.suspend(a), MPI_SUCCESS);
  EXPECT_EQ(t.suspend(a), MPI_M_MULTIPLE_CALL);
  c.send(1, 0, 1000); // a suspended, b active
  EXPECT_EQ(p2p_bytes(t, a), (std::vector<std::uint64_t>{0, 15}));
  EXPECT_EQ(t.view(b, v), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_EQ(t.suspend(MPI_M_ALL_MSID), MPI_SUCCESS);
  EXPECT_EQ(p2p_bytes(t, b), (std::vector<std::uint64_t>{1005, 0})); // members {1, 0}
  EXPECT_EQ(t.view(b, v), MPI_SUCCESS);
  EXPECT_EQ(v.values[kSessionValues * 1 + 2], 1u); // one collective to world 0
  EXPECT_EQ(v.values[kSessionValues * 1 + 3], 7u);
  EXPECT_EQ(t.resume(MPI_M_ALL_MSID), MPI_SUCCESS);
  c.send(1, 0, 1);
  EXPECT_EQ(t.reset(MPI_M_ALL_MSID), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_EQ(t.free_session(MPI_M_ALL_MSID), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_EQ(t.suspend(a), MPI_SUCCESS);
  EXPECT_EQ(t.suspend(b), MPI_SUCCESS);
  EXPECT_EQ(p2p_bytes(t, a), (std::vector<std::uint64_t>{0, 16}));
  EXPECT_EQ(t.reset(a), MPI_SUCCESS);
  EXPECT_EQ(p2p_bytes(t, a), (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ(p2p_bytes(t, b), (std::vector<std::uint64_t>{1006, 0}));
  int size = 0;
  EXPECT_EQ(t.size_of(b, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 2);
  EXPECT_EQ(t.size_of(MPI_M_ALL_MSID, &size), MPI_M_INVALID_MSID);
  EXPECT_EQ(t.view(MPI_M_ALL_MSID, v), MPI_M_INVALID_MSID);
  EXPECT_EQ(t.view(99, v), MPI_M_INVALID_MSID);
  EXPECT_EQ(t.free_session(a), MPI_SUCCESS);
  EXPECT_EQ(t.free_session(a), MPI_M_INVALID_MSID);
  EXPECT_EQ(t.start(MPI_COMM_NULL, 0, {1}, &x), MPI_SUCCESS);
  EXPECT_NE(x, a); // ids are not reused
  EXPECT_EQ(t.finalize(), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_EQ(t.suspend(x), MPI_SUCCESS);
  EXPECT_EQ(t.finalize(), MPI_SUCCESS);
  EXPECT_EQ(t.view(b, v), MPI_M_MISSING_INIT);
  EXPECT_EQ(t.init(), MPI_SUCCESS);
  EXPECT_EQ(t.view(b, v), MPI_M_INVALID_MSID);
}

TEST(MonitorSessionTable, AFreedCommunicatorIsNeverUsedAgain) {
  FakeCounters c;
  SessionTable t(c.reader());
  ASSERT_EQ(t.init(), MPI_SUCCESS);
  // Two handles as fake communicators: only their bits are compared.
  const MPI_Comm freed = MPI_COMM_WORLD, kept = MPI_COMM_SELF;
  int a = 0, b = 0, later = 0;
  ASSERT_EQ(t.start(freed, 0, {0, 1}, &a), MPI_SUCCESS);
  ASSERT_EQ(t.start(kept, 0, {0, 1}, &b), MPI_SUCCESS);
  c.send(1, 0, 10);
  t.comm_freed(freed);
  SessionView v;
  EXPECT_EQ(t.view(a, v), MPI_M_COMM_FREED); // active: the freed communicator comes first
  EXPECT_EQ(t.suspend(a), MPI_SUCCESS);
  EXPECT_EQ(t.view(a, v), MPI_M_COMM_FREED);
  int size = 0;
  EXPECT_EQ(t.size_of(a, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 2);
  EXPECT_EQ(t.resume(a), MPI_SUCCESS);
  EXPECT_EQ(t.suspend(MPI_M_ALL_MSID), MPI_SUCCESS);
  EXPECT_EQ(t.reset(a), MPI_SUCCESS);
  EXPECT_EQ(p2p_bytes(t, b), (std::vector<std::uint64_t>{0, 10}));
  // A communicator created later with the freed one's handle is another communicator.
  ASSERT_EQ(t.start(freed, 0, {0, 1}, &later), MPI_SUCCESS);
  EXPECT_EQ(t.suspend(later), MPI_SUCCESS);
  EXPECT_EQ(t.view(later, v), MPI_SUCCESS);
  EXPECT_EQ(t.view(a, v), MPI_M_COMM_FREED);
  EXPECT_EQ(t.free_session(a), MPI_SUCCESS);
  EXPECT_EQ(t.finalize(), MPI_SUCCESS);
}

TEST(MonitorSessionTable, Categories) {
  const std::vector<std::uint64_t> v = {1, 10, 2, 20, 3, 30, 4, 40};
  std::uint64_t c = 0, b = 0;
  select_categories(v, 0, MPI_M_P2P_ONLY, &c, &b);
  EXPECT_EQ(c, 1u);
  EXPECT_EQ(b, 10u);
  select_categories(v, 0, MPI_M_COLL_ONLY, &c, &b);
  EXPECT_EQ(b, 20u);
  select_categories(v, 0, MPI_M_OSC_ONLY, &c, &b);
  EXPECT_EQ(c, 7u);
  EXPECT_EQ(b, 70u);
  select_categories(v, 0, MPI_M_ALL_COMM, &c, &b);
  EXPECT_EQ(c, 10u);
  EXPECT_EQ(b, 100u);
  EXPECT_TRUE(valid_flags(MPI_M_P2P_ONLY | MPI_M_OSC_ONLY));
  EXPECT_FALSE(valid_flags(0));
  EXPECT_FALSE(valid_flags(8));
  EXPECT_FALSE(valid_flags(-1));
}

// ---- output formats -----------------------------------------------------------------------

TEST(MonitorFormat, OpenMpiLines) {
  EXPECT_EQ(prof_line("C", 3, 1, 40, 2, nullptr), "C\t3\t1\t40 bytes\t2 msgs sent\n");
  std::uint64_t h[kHistogramBins] = {};
  h[0] = 1;
  h[7] = 3;
  std::string want = "E\t0\t1\t300 bytes\t4 msgs sent\t1,0,0,0,0,0,0,3";
  for (unsigned b = 8; b < kHistogramBins; ++b)
    want += ",0";
  EXPECT_EQ(prof_line("E", 0, 1, 300, 4, h), want + "\n");
  const std::uint64_t counts[3] = {1, 0, 7}, bytes[3] = {120, 0, 96};
  EXPECT_EQ(prof_comm_block("MPI_COMM_WORLD", {0, 1, 2}, 0, counts, bytes),
            "D\tMPI_COMM_WORLD\tprocs: 0,1,2\n"
            "O2A\t0\t120 bytes\t1 msgs sent\n"
            "A2O\t0\t0 bytes\t0 msgs sent\n"
            "A2A\t0\t96 bytes\t7 msgs sent\n");
}

TEST(MonitorFormat, JsonStrings) {
  EXPECT_EQ(json_string("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
}

TEST(MonitorFormat, NamesCannotEndALineOrAddAField) {
  EXPECT_EQ(escape_name("MPI COMMUNICATOR 3"), "MPI COMMUNICATOR 3");
  EXPECT_EQ(escape_name("a\nb\tc\\d\re\x7f\x01"), "a\\nb\\tc\\\\d\\x0de\\x7f\\x01");
  EXPECT_EQ(escape_name("h\xc3\xa9t\xc3\xa9ro"), "h\xc3\xa9t\xc3\xa9ro"); // UTF-8 is kept
  const std::uint64_t counts[3] = {0, 0, 1}, bytes[3] = {0, 0, 0};
  const std::string block =
      prof_comm_block("x\nE\t0\t1\t999999 bytes\t777 msgs sent", {0, 1}, 0, counts, bytes);
  EXPECT_EQ(block, "D\tx\\nE\\t0\\t1\\t999999 bytes\\t777 msgs sent\tprocs: 0,1\n"
                   "O2A\t0\t0 bytes\t0 msgs sent\n"
                   "A2O\t0\t0 bytes\t0 msgs sent\n"
                   "A2A\t0\t0 bytes\t1 msgs sent\n");
}

TEST(MonitorFormat, FilesAreReplacedAtomically) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("pnmpi-monitor-unit-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "out.prof").string();
  std::string error;
  ASSERT_TRUE(write_file_atomically(path, "first\n", error)) << error;
  ASSERT_TRUE(write_file_atomically(path, "second\n", error)) << error;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_FALSE(write_file_atomically((dir / "missing" / "x").string(), "x", error));
  EXPECT_EQ(error,
            "cannot write '" + (dir / "missing" / "x").string() + "': No such file or directory");
  const std::string too_long = (dir / std::string(5000, 'a')).string();
  EXPECT_FALSE(write_file_atomically(too_long, "x", error));
  EXPECT_NE(error.find("': File name too long"), std::string::npos) << error;
  fs::remove_all(dir);
}

std::string file_text(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MonitorFormat, OnlyARegularFileIsReplacedAndNoLinkIsFollowed) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("pnmpi-monitor-unit-links-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string victim = (dir / "victim").string();
  std::ofstream(victim) << "precious\n";
  std::string error;

  // Links at the names the temporary file used to have, for this and the next pids.
  const std::string out = (dir / "out.prof").string();
  for (pid_t pid = getpid(); pid < getpid() + 64; ++pid)
    fs::create_symlink(victim, out + ".tmp." + std::to_string(pid));
  ASSERT_TRUE(write_file_atomically(out, "mine\n", error)) << error;
  EXPECT_EQ(file_text(out), "mine\n");
  EXPECT_FALSE(fs::is_symlink(out));
  EXPECT_EQ(file_text(victim), "precious\n");

  // A symbolic link, a directory, a FIFO at the final name: refused by name, left alone.
  const std::string link = (dir / "link.prof").string();
  fs::create_symlink(victim, link);
  EXPECT_FALSE(write_file_atomically(link, "mine\n", error));
  EXPECT_EQ(error, "cannot write '" + link +
                       "': it is a symbolic link, not a regular file, and is left as it is");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(file_text(victim), "precious\n");
  const std::string sub = (dir / "sub.json").string();
  fs::create_directory(sub);
  EXPECT_FALSE(write_file_atomically(sub, "mine\n", error));
  EXPECT_EQ(error, "cannot write '" + sub +
                       "': it is a directory, not a regular file, and is left as it is");
  const std::string fifo = (dir / "fifo.prof").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(write_file_atomically(fifo, "mine\n", error));
  EXPECT_EQ(error,
            "cannot write '" + fifo + "': it is a FIFO, not a regular file, and is left as it is");
  EXPECT_TRUE(fs::is_fifo(fifo));
  // Nothing is left behind but what was there and the one file written.
  std::size_t entries = 0;
  for (const auto &e : fs::directory_iterator(dir))
    entries += e.path().string().find(".tmp.") == std::string::npos ? 1 : 0;
  EXPECT_EQ(entries, 5u);
  // A name with a newline is escaped in the message.
  EXPECT_FALSE(write_file_atomically((dir / "no\ndir" / "x").string(), "x", error));
  EXPECT_EQ(error,
            "cannot write '" + (dir / "no\\ndir" / "x").string() + "': No such file or directory");
  fs::remove_all(dir);
}

// The declared keys (PNMPI_MODULE_ARGUMENTS) are exactly those the monitor reads: each one
// with a value no reader accepts is refused by its name.
TEST(MonitorOptions, DeclaredKeysAreTheParsedOnes) {
  std::istringstream words(PNMPI_MONITOR_ARGUMENT_KEYS);
  int count = 0;
  for (std::string key; words >> key; ++count) {
    Args a;
    a.config = {{key, ""}};
    Options o;
    std::string error;
    EXPECT_FALSE(a.parse(o, error)) << key << " takes an empty value";
    EXPECT_NE(error.find("'" + key + "'"), std::string::npos) << key << ": " << error;
  }
  EXPECT_EQ(count, 11);
}

// A communicator's collective volume, kept as "to every peer" and "to every higher rank"
// counts, expands into exactly what one update per peer per call used to add, for intra-
// and intercommunicators, regular and irregular rank maps, ranks outside MPI_COMM_WORLD.
TEST(CollectiveVolume, ExpandsAsPerPeerLoops) {
  std::uint64_t seed = 12345;
  auto rnd = [&](std::uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int size = 1 + static_cast<int>(rnd(40));
    const bool inter = rnd(4) == 0;
    std::vector<int> worlds(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) // irregular, regular or with a process outside the world
      worlds[static_cast<std::size_t>(r)] = trial % 3 == 0   ? 100 - 3 * r
                                            : trial % 3 == 1 ? static_cast<int>(rnd(1000))
                                                             : (r == 1 ? -1 : 7 + r);
    if (trial % 3 == 1) { // distinct ranks
      std::sort(worlds.begin(), worlds.end());
      for (int r = 0; r < size; ++r)
        worlds[static_cast<std::size_t>(r)] += r;
      std::reverse(worlds.begin(), worlds.end());
    }
    CollStats s;
    s.inter = inter;
    s.rank = static_cast<int>(rnd(static_cast<std::uint64_t>(size)));
    (inter ? s.remote : s.procs).assign(worlds);
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> want; // world -> (count, bytes)
    const int calls = 1 + static_cast<int>(rnd(20));
    for (int c = 0; c < calls; ++c) {
      const std::uint64_t bytes = rnd(3) == 0 ? 0 : rnd(5000);
      const bool up = !inter && rnd(3) == 0;
      (up ? s.up_count : s.all_count)[kApp].fetch_add(1);
      (up ? s.up_bytes : s.all_bytes)[kApp].fetch_add(bytes);
      for (int r = 0; r < size; ++r) {
        const int w = worlds[static_cast<std::size_t>(r)];
        if (w < 0 || (!inter && r == s.rank) || (up && r <= s.rank))
          continue;
        ++want[w].first;
        want[w].second += bytes;
      }
    }
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> got;
    expand(s, kApp, [&](int w, std::uint64_t count, std::uint64_t bytes) {
      got[w].first += count;
      got[w].second += bytes;
    });
    std::size_t tool_peers = 0;
    expand(s, kTool, [&](int, std::uint64_t, std::uint64_t) { ++tool_peers; });
    EXPECT_EQ(got, want) << "trial " << trial << ", size " << size << (inter ? " inter" : "");
    EXPECT_EQ(tool_peers, 0u);
  }
}

} // namespace
} // namespace pnmpi::monitor

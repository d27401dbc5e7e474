// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor's recording code on synthetic communicators of any size, in one process of one
// MPI rank (monitor_bench.py --synthetic runs it and prints the table).
//
// The program is built from the monitor's own sources (not the module: its internals are
// hidden) and calls what the wrappers call: MPI_Init is the monitor's wrapper (it sets the
// monitor up, caches the datatypes and meets MPI_COMM_WORLD); a collective goes through
// coll::record_now() with the description the wrapper of that collective uses, on a
// communicator whose CommInfo and CollStats were made by the monitor's own insert_info() and
// attach_stats() from a list of world ranks, as comm_slow() and stats_slow() make them once
// MPI has named the group. Only the group is synthetic: no message is sent, so a
// communicator can have 65,536 members on one core. MPI_Finalize is not the monitor's (it
// would gather and write its output over the one real rank): PMPI_Finalize ends the run.
//
//   monitor_synth cost REPEATS CALLS P...
//       per P, medians (and minimums, `synth-min`) of REPEATS interleaved runs, in CPU time:
//       ns per recorded MPI_Allreduce (8 bytes), MPI_Bcast from this rank (8 bytes) and
//       irregular MPI_Alltoallv; the same Allreduce and Bcast recorded by a loop over the
//       P - 1 peers, a counter update each, as the monitor did before the per-communicator
//       volume (the comparison); ns to expand the communicator's volume into per-peer values
//       (expand(), what every reader pays) and to read it the way MPI_T and the MPI_M_
//       sessions do (add_coll_volume()).
//   monitor_synth memory N K ring|halo per-comm|per-peer
//       rank 0 of an N-rank job after K rounds of the pattern: `ring`, a Sendrecv of 8 bytes
//       to rank 1, a Barrier and an Allreduce of one double on MPI_COMM_WORLD (as
//       monitor_overhead scale K); `halo`, 8 bytes to each of 6 torus neighbours and a
//       Barrier and an Allreduce on MPI_COMM_WORLD and on 3 sub-communicators (the lines of
//       the torus through rank 0). Prints the monitor's memory per rank as its summary
//       counts it. `per-peer` records the collectives with the per-peer loop instead.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <time.h>
#include <type_traits>
#include <vector>

#include "coll_describe.h"
#include "memory.h"
#include "sessions.h"

using namespace pnmpi::monitor;

MONITOR_ROUTINE(Allreduce)
MONITOR_ROUTINE(Bcast)
MONITOR_ROUTINE(Alltoallv)
MONITOR_ROUTINE(Barrier)
MONITOR_ROUTINE(Sendrecv)

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "monitor_synth: %s\n", what);
  std::exit(2);
}

/// A handle value no MPI object has: an address of ours for pointer handles (Open MPI), an
/// integer outside MPICH's handle kinds for integer handles. Only its bits are used (the
/// monitor's index key); MPI never sees it.
template <class H> H fake_handle(std::size_t i) {
  static unsigned char storage[256][64];
  if (i >= 256)
    fail("too many synthetic communicators");
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(&storage[i][0]);
  else
    return static_cast<H>(0x0e000000 + static_cast<int>(i));
}

/// A communicator of the given world ranks in which this process has rank `rank`, made as
/// the monitor makes one when a collective first names it.
MPI_Comm synthetic_comm(const std::vector<int> &worlds, int rank) {
  static std::size_t made = 0;
  const MPI_Comm comm = fake_handle<MPI_Comm>(made++);
  CommInfo *ci = nullptr;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    ci = insert_info(g.comms, handle_key(comm), worlds, rank, static_cast<int>(worlds.size()),
                     false);
  }
  if (attach_stats(ci, comm, worlds) == nullptr)
    fail("out of memory");
  return comm;
}

std::vector<int> sequence(int first, int count, int stride) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    v[static_cast<std::size_t>(i)] = first + stride * i;
  return v;
}

/// What the stub does before the first layer runs: note the routine the application entered
/// through, so that the monitor counts the call as the application's.
void enter(const RoutineId &routine) {
  pnmpi_entry_id = routine.value();
}

// ---- the calls, as the wrappers make them ---------------------------------------------------

double g_in = 1; ///< a send buffer that is not MPI_IN_PLACE

void allreduce(MPI_Comm comm) {
  enter(id_Allreduce);
  coll::record_now(id_Allreduce, comm,
                   [&](CommInfo &ci, auto &s) { coll::allreduce(ci, s, 1, MPI_DOUBLE); });
}

void bcast(MPI_Comm comm, int root) {
  enter(id_Bcast);
  coll::record_now(id_Bcast, comm,
                   [&](CommInfo &ci, auto &s) { coll::bcast(ci, s, 1, MPI_DOUBLE, root); });
}

void barrier(MPI_Comm comm) {
  enter(id_Barrier);
  coll::record_now(id_Barrier, comm, [&](CommInfo &ci, auto &s) { coll::barrier(ci, s); });
}

void alltoallv(MPI_Comm comm, const std::vector<int> &counts) {
  enter(id_Alltoallv);
  coll::record_now(id_Alltoallv, comm, [&](CommInfo &ci, auto &s) {
    coll::alltoallv(ci, s, &g_in, counts.data(), MPI_INT, counts.data(), MPI_INT);
  });
}

/// A fixed-size collective recorded as before the per-communicator volume: one counter update
/// per peer (Now::send is record_to()), then the operation.
template <class Routine>
void per_peer(const Routine &routine, MPI_Comm comm, CollClass c, std::uint64_t bytes) {
  enter(routine);
  coll::record_now(routine, comm, [&](CommInfo &ci, auto &s) {
    coll::each_peer(ci, [&](int r) { s.send(r, bytes); });
    s.op(c, bytes * coll::peer_count(ci));
  });
}

void sendrecv(MPI_Comm comm, int dest) {
  enter(id_Sendrecv);
  on_send(id_Sendrecv, 8, MPI_CHAR, dest, comm);
}

// ---- cost ---------------------------------------------------------------------------------

/// This thread's CPU time: time the scheduler gives other processes (the machine may be
/// shared) is not counted.
double cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}

template <class F> double ns_per_call(long calls, F &&f) {
  const double t0 = cpu_ns();
  for (long i = 0; i < calls; ++i)
    f();
  return (cpu_ns() - t0) / static_cast<double>(calls);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Size {
  int p;
  MPI_Comm comm;
  std::vector<int> counts; ///< Alltoallv send counts: irregular, one peer in three gets none
  std::vector<double> ns[7];
};

const char *const kColumns[7] = {"allreduce_ns", "allreduce_loop_ns", "bcast_ns", "bcast_loop_ns",
                                 "alltoallv_ns", "expand_ns",         "read_ns"};

int cost(int repeats, long calls, const std::vector<int> &sizes) {
  std::vector<Size> all;
  for (int p : sizes) {
    Size s;
    s.p = p;
    s.comm = synthetic_comm(sequence(0, p, 1), 0);
    s.counts.resize(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r)
      s.counts[static_cast<std::size_t>(r)] = r % 3 == 2 ? 0 : 1 + r % 5;
    all.push_back(std::move(s));
  }
  // Loops over the peers get fewer calls: about 4 million peer updates per measurement.
  auto looped = [&](int p) { return std::max(3L, std::min(calls, 4000000L / p)); };
  for (Size &s : all) { // first contacts (the peers' entries) are not what is measured
    allreduce(s.comm);
    per_peer(id_Allreduce, s.comm, kAllToAll, 8);
    alltoallv(s.comm, s.counts);
  }
  for (int rep = 0; rep < repeats; ++rep)
    for (Size &s : all) {
      const MPI_Comm c = s.comm;
      const long few = looped(s.p);
      s.ns[0].push_back(ns_per_call(calls, [&] { allreduce(c); }));
      s.ns[1].push_back(ns_per_call(few, [&] { per_peer(id_Allreduce, c, kAllToAll, 8); }));
      s.ns[2].push_back(ns_per_call(calls, [&] { bcast(c, 0); }));
      s.ns[3].push_back(
          ns_per_call(few, [&] { per_peer(id_Bcast, c, kOneToAll, sizeof(double)); }));
      s.ns[4].push_back(ns_per_call(few, [&] { alltoallv(c, s.counts); }));
      const CollStats *stats = comm_info(c)->stats.load();
      std::uint64_t sink = 0;
      s.ns[5].push_back(ns_per_call(few, [&] {
        expand(*stats, kApp, [&](int w, std::uint64_t n, std::uint64_t b) {
          sink += static_cast<std::uint64_t>(w) + n + b;
        });
      }));
      // add_coll_volume() reads every communicator's statistics: only this one's for the
      // measurement, as if it were the only communicator.
      std::vector<CollStats *> saved;
      {
        std::lock_guard<std::mutex> guard(g.lock);
        saved.swap(g.stats);
        g.stats.push_back(const_cast<CollStats *>(stats));
      }
      const std::vector<int> worlds = sequence(0, s.p, 1);
      std::vector<std::uint64_t> counts(worlds.size()), bytes(worlds.size());
      s.ns[6].push_back(
          ns_per_call(few, [&] { add_coll_volume(kApp, worlds, counts.data(), bytes.data(), 1); }));
      {
        std::lock_guard<std::mutex> guard(g.lock);
        g.stats.swap(saved);
      }
      if (sink == 0 || counts[1] == 0)
        fail("the communicator's volume was not recorded");
    }
  for (const Size &s : all)
    for (const bool low : {false, true}) {
      std::printf("%s P=%d", low ? "synth-min" : "synth", s.p);
      for (int k = 0; k < 7; ++k)
        std::printf(" %s=%.2f", kColumns[k],
                    low ? *std::min_element(s.ns[k].begin(), s.ns[k].end()) : median(s.ns[k]));
      std::printf("\n");
    }
  return 0;
}

// ---- memory -------------------------------------------------------------------------------

int memory(int n, int rounds, bool halo, bool loop) {
  // MPI_COMM_WORLD as rank 0 of n sees it: its rank map and its statistics' are those of n
  // consecutive world ranks (no table, as for the real one; memory is unchanged).
  CommInfo *world = comm_info(MPI_COMM_WORLD);
  if (world == nullptr || world->stats.load() == nullptr)
    fail("the monitor did not meet MPI_COMM_WORLD in MPI_Init");
  const std::size_t before = g_heap_bytes.load();
  world->peers.assign(sequence(0, n, 1));
  world->stats.load()->procs.assign(sequence(0, n, 1));
  if (g_heap_bytes.load() != before)
    fail("a regular rank map took memory");
  g.world_size = n;

  std::vector<MPI_Comm> comms{MPI_COMM_WORLD};
  std::vector<int> peers{1 % n};
  if (halo) {
    int dims[3] = {0, 0, 0};
    PMPI_Dims_create(n, 3, dims);
    const int stride[3] = {1, dims[0], dims[0] * dims[1]};
    peers.clear();
    for (int d = 0; d < 3; ++d) {
      peers.push_back(stride[d] % (stride[d] * dims[d]));
      peers.push_back((dims[d] - 1) * stride[d]);
      comms.push_back(synthetic_comm(sequence(0, dims[d], stride[d]), 0));
    }
  }
  for (int k = 0; k < rounds; ++k) {
    for (int p : peers)
      if (p != 0)
        sendrecv(MPI_COMM_WORLD, p);
    for (MPI_Comm c : comms) {
      if (loop) {
        per_peer(id_Barrier, c, kAllToAll, 0);
        per_peer(id_Allreduce, c, kAllToAll, sizeof(double));
      } else {
        barrier(c);
        allreduce(c);
      }
    }
  }
  std::size_t contacted = 0;
  g.peers.for_each([&](const Peer &) { ++contacted; });
  const std::uint64_t bytes = g_heap_bytes.load() + sessions_bytes();
  const std::uint64_t fixed = sizeof g_types + sizeof g_recent_peers + sizeof g_recent_comms;
  std::printf("memory N=%d pattern=%s collectives=%s bytes=%" PRIu64 " fixed=%" PRIu64
              " peers=%zu\n",
              n, halo ? "halo" : "ring", loop ? "per-peer" : "per-comm", bytes, fixed, contacted);
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: monitor_synth cost REPEATS CALLS P...\n"
                       "       monitor_synth memory N K ring|halo per-comm|per-peer\n");
  return 2;
}

int run(int argc, char **argv) {
  if (argc < 2)
    return usage();
  // Every world rank a synthetic communicator names must be one the monitor accepts.
  g.world_size = 1 << 20;
  RoutineId::resolve_all();
  if (std::strcmp(argv[1], "cost") == 0 && argc >= 5) {
    std::vector<int> sizes;
    for (int i = 4; i < argc; ++i) {
      const int p = std::atoi(argv[i]);
      if (p < 2 || p > (1 << 20))
        fail("communicator sizes must be 2 to 1048576");
      sizes.push_back(p);
    }
    return cost(std::max(1, std::atoi(argv[2])), std::max(1L, std::atol(argv[3])), sizes);
  }
  if (std::strcmp(argv[1], "memory") == 0 && argc == 6) {
    const int n = std::atoi(argv[2]);
    if (n < 2 || n > (1 << 20))
      fail("N must be 2 to 1048576");
    return memory(n, std::max(1, std::atoi(argv[3])), std::strcmp(argv[4], "halo") == 0,
                  std::strcmp(argv[5], "per-peer") == 0);
  }
  return usage();
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1)
    fail("run me as one process, without mpirun: the communicators are synthetic");
  const int rc = run(argc, argv);
  std::fflush(stdout);
  PMPI_Finalize();
  return rc;
}

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The trace's clocks: ticks and CLOCK_MONOTONIC read together, whether the time-stamp counter
// can be used, and the offsets of every rank's clock to rank 0's, measured at MPI_Init and at
// MPI_Finalize.

#include "trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace pnmpi::trace {

ClockPair clock_pair() noexcept {
  ClockPair best;
  std::uint64_t window = UINT64_MAX;
  for (int i = 0; i < 32; ++i) {
    const std::uint64_t a = now();
    const std::uint64_t ns = monotonic_ns();
    const std::uint64_t b = now();
    if (b - a < window) {
      window = b - a;
      best.tick = a + (b - a) / 2;
      best.ns = ns;
    }
  }
  return best;
}

/// The time-stamp counter is used where the kernel keeps CLOCK_MONOTONIC with it: then it
/// is invariant (constant rate, runs in every state) and the same on every core.
bool tsc_usable() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  FILE *f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (f == nullptr)
    return false;
  char name[32] = {};
  const bool ok = std::fgets(name, sizeof name, f) != nullptr && std::strncmp(name, "tsc", 3) == 0;
  std::fclose(f);
  return ok;
#else
  return false;
#endif
}

namespace {

/// Waits for `request` without spinning: a rank waiting for the offset measurement of
/// another leaves the CPU to it (ranks may outnumber a host's cores, and then a spinning
/// rank delays the round trips being timed by whole scheduler time slices).
void wait_yielding(MPI_Request *request) {
  int done = 0;
  PMPI_Test(request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    const timespec pause = {0, 50000};
    nanosleep(&pause, nullptr);
    PMPI_Test(request, &done, MPI_STATUS_IGNORE);
  }
}

} // namespace

/// This rank's Offset, measured now.
///
/// One rank per host (its lowest, the host's leader) is measured: every process of a host
/// reads the same CLOCK_MONOTONIC, so its ranks share one offset, exactly, and messages
/// between them keep their order; the ranks of rank 0's host get exactly 0. Rank 0 sends
/// the leader pings; the leader answers each with its clock. A reply's clock was read
/// between rank 0's send (t0) and its receive (t1), so every round bounds the offset to
/// [t0 - remote, t1 - remote]: the estimate is the middle of the intersection of all
/// rounds' bounds, and its error at most half the intersection's width, which the fastest
/// ping and the fastest reply seen set, however slow the other rounds were (a rank delayed
/// by its scheduler only widens its own round's bounds). Rounds go on past kRounds while
/// the bound is above kGoodBound, up to
/// kMaxRounds: a loaded host may need more to see a fast ping and a fast reply. The
/// offsets go to every rank at the end, so that no rank leaves before the measurements are
/// done (and competes with them for a core).
Offset measure_offset(const std::vector<std::string> &hosts) {
  constexpr int kRounds = 20, kMaxRounds = 60;
  constexpr double kGoodBound = 50e3;
  std::unordered_map<std::string, int> first_on_host;
  for (int r = g.size - 1; r >= 0; --r)
    first_on_host[hosts[static_cast<std::size_t>(r)]] = r;
  const auto leader_of = [&](int r) { return first_on_host[hosts[static_cast<std::size_t>(r)]]; };
  std::vector<Offset> offsets;
  if (g.rank == 0) {
    offsets.assign(static_cast<std::size_t>(g.size), Offset{});
    for (int r = 1; r < g.size; ++r) {
      const int leader = leader_of(r);
      if (leader != r) {
        offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(leader)];
        continue;
      }
      double low = -1e300, high = 1e300;
      for (int i = 0;; ++i) {
        // Each ping says whether it is the last.
        int last = i + 1 >= kMaxRounds || (i + 1 >= kRounds && (high - low) / 2 <= kGoodBound);
        std::uint64_t remote = 0;
        const std::uint64_t t0 = monotonic_ns();
        PMPI_Send(&last, 1, MPI_INT, r, 1, g.comm);
        PMPI_Recv(&remote, 1, MPI_UINT64_T, r, 2, g.comm, MPI_STATUS_IGNORE);
        const std::uint64_t t1 = monotonic_ns();
        low = std::max(low, static_cast<double>(t0) - static_cast<double>(remote));
        high = std::min(high, static_cast<double>(t1) - static_cast<double>(remote));
        if (last)
          break;
      }
      // The bounds cannot cross while both clocks run at one rate; if a clock was stepped
      // during the rounds they can, and then the middle is still the best guess.
      offsets[static_cast<std::size_t>(r)] = Offset{(low + high) / 2, std::abs(high - low) / 2};
    }
  } else if (leader_of(g.rank) == g.rank && leader_of(g.rank) != 0) {
    // The first ping waits without spinning: rank 0 may be measuring other hosts first.
    int last = 0;
    MPI_Request ping;
    PMPI_Irecv(&last, 1, MPI_INT, 0, 1, g.comm, &ping);
    wait_yielding(&ping);
    for (;;) {
      const std::uint64_t t = monotonic_ns();
      PMPI_Send(&t, 1, MPI_UINT64_T, 0, 2, g.comm);
      if (last)
        break;
      PMPI_Recv(&last, 1, MPI_INT, 0, 1, g.comm, MPI_STATUS_IGNORE);
    }
  }
  double mine[2] = {0, 0};
  std::vector<double> all;
  for (const Offset &o : offsets) {
    all.push_back(o.ns);
    all.push_back(o.bound);
  }
  MPI_Request request;
  PMPI_Iscatter(all.data(), 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, 0, g.comm, &request);
  wait_yielding(&request);
  return Offset{mine[0], mine[1]};
}

} // namespace pnmpi::trace

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The monitor's part of the job record (docs/record.md): at MPI_Finalize the profile's
// record writer asks, through libpnmpi_support, for this process's application traffic:
// its point-to-point row and its collective volume per communicator. The monitor's own
// outputs are unchanged.
#include "monitor.h"

#include <pnmpi/support.h>

#include <mutex>
#include <vector>

namespace pnmpi::monitor {

namespace {

void hand_over(void *, pnmpi_record_sink_t sink, void *sink_context) {
  std::vector<int32_t> peer;
  std::vector<uint64_t> bytes, count;
  g.peers.for_each([&](const Peer &p) {
    const uint64_t c = count_of(p, kApp, kP2P), b = bytes_of(p, kApp, kP2P);
    if (c == 0 && b == 0)
      return;
    peer.push_back(static_cast<int32_t>(p.key.load(std::memory_order_relaxed) - 1));
    bytes.push_back(b);
    count.push_back(c);
  });
  std::vector<CollStats *> stats;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    stats = g.stats;
  }
  std::vector<uint64_t> key, cbytes, ccount;
  std::vector<int32_t> first, members, group;
  for (const CollStats *s : stats) {
    if (s->inter || s->procs.size() == 0)
      continue; // intercommunicators and freed communicators: no member list to key on
    uint64_t c = 0, b = 0;
    for (unsigned k = 0; k < kCollClasses; ++k) {
      c += s->count[kApp][k].load(std::memory_order_relaxed);
      b += s->bytes[kApp][k].load(std::memory_order_relaxed);
    }
    if (c == 0 && b == 0)
      continue;
    group.clear();
    for (int r = 0; r < s->procs.size(); ++r)
      group.push_back(s->procs.world(r));
    key.push_back(pnmpi_group_key(group.data(), group.size()));
    cbytes.push_back(b);
    ccount.push_back(c);
    first.push_back(s->rank == 0 ? 1 : 0);
    if (s->rank == 0) {
      members.push_back(static_cast<int32_t>(group.size()));
      members.insert(members.end(), group.begin(), group.end());
    }
  }
  pnmpi_record_data_t d{};
  d.p2p_n = peer.size();
  d.p2p_peer = peer.data();
  d.p2p_bytes = bytes.data();
  d.p2p_count = count.data();
  d.comm_n = key.size();
  d.comm_key = key.data();
  d.comm_bytes = cbytes.data();
  d.comm_count = ccount.data();
  d.comm_first = first.data();
  d.members_n = members.size();
  d.members = members.data();
  sink(sink_context, &d);
}

} // namespace

void register_record_source() noexcept {
  pnmpi_record_add_source(hand_over, nullptr);
}

} // namespace pnmpi::monitor

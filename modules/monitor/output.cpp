// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Output at MPI_Finalize: the per-rank files in Open MPI's monitoring format, the gathered
// matrices on world rank 0 and the summary on its stderr. Every MPI call here goes to the
// layers below the monitor (PMPI_*) on MPI_COMM_WORLD, and only collectives are used, so
// that an Open MPI monitoring run next to ours sees our output traffic as internal, never as
// application point-to-point traffic. A rank that fails to write a file still takes part
// in every collective, and so does a rank that cannot collect its data (out of memory): it
// takes part with none, so that no rank waits for it forever. The monitor's own calls pass separate
// send and receive buffers (no MPI_IN_PLACE): MPI checkers linked into the application (valgrind's)
// then have nothing to misread in them.

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "monitor.h"
#include "output_format.h"
#include "sessions.h"

namespace pnmpi::monitor {

namespace {

constexpr unsigned kValues = kOrigins * kKinds * 2;

constexpr unsigned value_index(unsigned origin, unsigned kind, bool bytes) {
  return (origin * kKinds + kind) * 2 + (bytes ? 1u : 0u);
}

/// Everything this rank sent to one peer, as it travels to rank 0 (trivially copyable).
struct Row {
  std::int32_t peer;
  std::int32_t unused;
  std::uint64_t v[kValues];
};

struct Local {
  std::vector<Row> rows;           ///< by peer
  std::vector<const Peer *> peers; ///< same order
  std::uint64_t totals[kValues] = {};
};

Local collect() {
  Local l;
  std::vector<const Peer *> peers;
  g.peers.for_each([&](const Peer &p) { peers.push_back(&p); });
  std::sort(peers.begin(), peers.end(), [](const Peer *a, const Peer *b) {
    return a->key.load(std::memory_order_relaxed) < b->key.load(std::memory_order_relaxed);
  });
  for (const Peer *p : peers) {
    Row r{};
    r.peer = static_cast<std::int32_t>(p->key.load(std::memory_order_relaxed) - 1);
    for (unsigned o = 0; o < kOrigins; ++o)
      for (unsigned k = 0; k < kKinds; ++k) {
        r.v[value_index(o, k, false)] = count_of(*p, o, k);
        r.v[value_index(o, k, true)] = p->bytes[o][k].load(std::memory_order_relaxed);
      }
    for (unsigned i = 0; i < kValues; ++i)
      l.totals[i] += r.v[i];
    l.rows.push_back(r);
    l.peers.push_back(p);
  }
  return l;
}

std::string stats_name(const CollStats &s, std::size_t index) {
  std::string name = s.handle != MPI_COMM_NULL ? comm_name(s.handle) : s.name;
  if (name.empty())
    name = "MPI COMMUNICATOR " + std::to_string(index);
  return name;
}

// ---- per-rank file ------------------------------------------------------------------------

bool write_per_rank(const Local &l) noexcept try {
  const int me = g.world_rank;
  std::string text = "# POINT TO POINT\n";
  std::uint64_t hist[kHistogramBins];
  for (std::size_t i = 0; i < l.rows.size(); ++i) {
    const Row &r = l.rows[i];
    const char *types[kOrigins] = {"E", "I"};
    for (unsigned o = 0; o < kOrigins; ++o) {
      const std::uint64_t count = r.v[value_index(o, kP2P, false)];
      if (count == 0)
        continue;
      const Counter *h = l.peers[i]->hist;
      if (h != nullptr)
        for (unsigned b = 0; b < kHistogramBins; ++b)
          hist[b] = h[o * kHistogramBins + b].load(std::memory_order_relaxed);
      text += prof_line(types[o], me, r.peer, r.v[value_index(o, kP2P, true)], count,
                        h != nullptr ? hist : nullptr);
    }
  }
  text += "# OSC\n";
  for (const Row &r : l.rows) {
    if (const std::uint64_t n = r.v[value_index(kApp, kOscSent, false)])
      text += prof_line("S", me, r.peer, r.v[value_index(kApp, kOscSent, true)], n, nullptr);
    if (const std::uint64_t n = r.v[value_index(kApp, kOscFetched, false)])
      text += prof_line("R", me, r.peer, r.v[value_index(kApp, kOscFetched, true)], n, nullptr);
  }
  text += "# COLLECTIVES\n";
  for (const Row &r : l.rows)
    if (const std::uint64_t n = r.v[value_index(kApp, kColl, false)])
      text += prof_line("C", me, r.peer, r.v[value_index(kApp, kColl, true)], n, nullptr);
  std::vector<CollStats *> stats;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    stats = g.stats;
  }
  for (std::size_t i = 0; i < stats.size(); ++i) {
    const CollStats &s = *stats[i];
    std::uint64_t counts[kCollClasses], bytes[kCollClasses];
    for (unsigned c = 0; c < kCollClasses; ++c) {
      counts[c] = s.count[kApp][c].load(std::memory_order_relaxed);
      bytes[c] = s.bytes[kApp][c].load(std::memory_order_relaxed);
    }
    std::vector<int> procs(static_cast<std::size_t>(s.procs.size()));
    for (int r = 0; r < s.procs.size(); ++r)
      procs[static_cast<std::size_t>(r)] = s.procs.world(r);
    text += prof_comm_block(stats_name(s, i), procs, me, counts, bytes);
  }
  const std::string path = g.options.output + "." + std::to_string(me) + ".prof";
  return write_or_report(path, text);
} catch (...) {
  report_error("out of memory: cannot write this rank's file");
  return false;
}

// ---- gathered matrices --------------------------------------------------------------------

struct Category {
  const char *name;
  unsigned origin, kind;
  const char *what;
};

const Category kCategories[] = {
    {"p2p", kApp, kP2P, "application point-to-point messages (Open MPI's E lines)"},
    {"coll", kApp, kColl, "application collectives, logical per-peer volume (C lines)"},
    {"osc_sent", kApp, kOscSent, "application one-sided data put/accumulated at the target (S)"},
    {"osc_fetched", kApp, kOscFetched, "application one-sided data fetched from the target (R)"},
    {"p2p_tool", kTool, kP2P, "point-to-point messages of modules above the monitor (I lines)"},
    {"coll_tool", kTool, kColl, "collectives of modules above the monitor"},
    {"osc_sent_tool", kTool, kOscSent, "one-sided data put by modules above the monitor"},
    {"osc_fetched_tool", kTool, kOscFetched, "one-sided data fetched by modules above the monitor"},
};

/// Every rank's rows, on rank 0 only (empty elsewhere), if every rank `collected` them
/// (`complete`); none otherwise, after one collective that tells every rank. At most
/// `gather-round-bytes` (by default INT_MAX) bytes travel per round, and at least one row per rank;
/// no rank ever holds an N x N array, rank 0 holds the sparse rows (what was sent).
std::vector<std::vector<Row>> gather_rows(const std::vector<Row> &rows, bool collected,
                                          bool &complete) {
  const int n = g.world_size;
  const bool root = g.world_rank == 0;
  const long long own[2] = {static_cast<long long>(rows.size()), collected ? 0 : 1};
  long long most_and_missing[2] = {0, 0};
  PMPI_Allreduce(own, most_and_missing, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  complete = most_and_missing[1] == 0;
  if (!complete)
    return {};
  const long long most = most_and_missing[0];
  const std::size_t per_round = std::max<std::size_t>(
      1, static_cast<std::size_t>(g.options.gather_round_bytes) / (sizeof(Row) * n));
  std::vector<std::vector<Row>> all(root ? static_cast<std::size_t>(n) : 0);
  std::vector<int> counts(root ? n : 0), displs(root ? n : 0);
  std::vector<Row> incoming;
  for (std::size_t first = 0; first < static_cast<std::size_t>(most); first += per_round) {
    const std::size_t mine_rows =
        first < rows.size() ? std::min(per_round, rows.size() - first) : 0;
    const int mine = static_cast<int>(mine_rows * sizeof(Row));
    PMPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::size_t total = 0;
    if (root) {
      for (int r = 0; r < n; ++r) {
        displs[r] = static_cast<int>(total);
        total += static_cast<std::size_t>(counts[r]);
      }
      incoming.resize(total / sizeof(Row));
    }
    PMPI_Gatherv(mine_rows > 0 ? static_cast<const void *>(rows.data() + first) : nullptr, mine,
                 MPI_BYTE, root ? incoming.data() : nullptr, counts.data(), displs.data(), MPI_BYTE,
                 0, MPI_COMM_WORLD);
    if (root)
      for (int r = 0; r < n; ++r) {
        const Row *from = incoming.data() + displs[r] / static_cast<int>(sizeof(Row));
        all[r].insert(all[r].end(), from, from + counts[r] / static_cast<int>(sizeof(Row)));
      }
  }
  return all;
}

bool write_gathered(const std::vector<std::vector<Row>> &all) {
  const std::string path = g.options.output + ".json";
  AtomicFile out(path);
  std::FILE *f = out.file();
  if (f == nullptr) {
    report_error(out.error());
    return false;
  }
  const int n = g.world_size;
  std::fprintf(f,
               "{\n  \"format\": \"pnmpi-monitor-matrices\",\n  \"version\": 1,\n"
               "  \"world_size\": %d,\n"
               "  \"orientation\": \"row = sender, column = receiver, both MPI_COMM_WORLD ranks: "
               "matrix[i][j] is what rank i sent to rank j\",\n"
               "  \"categories\": {\n",
               n);
  const std::size_t ncat = sizeof kCategories / sizeof kCategories[0];
  std::vector<std::uint64_t> dense(static_cast<std::size_t>(n));
  for (std::size_t c = 0; c < ncat; ++c) {
    const Category &cat = kCategories[c];
    std::fprintf(f, "    %s: {\n      \"origin\": \"%s\",\n      \"what\": %s,\n",
                 json_string(cat.name).c_str(), cat.origin == kApp ? "application" : "modules",
                 json_string(cat.what).c_str());
    for (int metric = 0; metric < 2; ++metric) {
      std::fprintf(f, "      \"%s\": [\n", metric == 0 ? "counts" : "bytes");
      const unsigned idx = value_index(cat.origin, cat.kind, metric == 1);
      for (int r = 0; r < n; ++r) {
        std::fill(dense.begin(), dense.end(), 0);
        for (const Row &row : all[r])
          if (row.peer >= 0 && row.peer < n)
            dense[row.peer] = row.v[idx];
        std::fputs("        [", f);
        for (int j = 0; j < n; ++j)
          std::fprintf(f, j > 0 ? ",%" PRIu64 : "%" PRIu64, dense[j]);
        std::fputs(r + 1 < n ? "],\n" : "]\n", f);
      }
      std::fputs(metric == 0 ? "      ],\n" : "      ]\n", f);
    }
    std::fputs(c + 1 < ncat ? "    },\n" : "    }\n", f);
  }
  std::fputs("  }\n}\n", f);
  if (!out.commit()) {
    report_error(out.error());
    return false;
  }
  return true;
}

// ---- summary ------------------------------------------------------------------------------

struct Talker {
  std::uint64_t bytes, count, from, to;
};

std::uint64_t talker_bytes(const Row &r) {
  return r.v[value_index(kApp, kP2P, true)] + r.v[value_index(kApp, kColl, true)] +
         r.v[value_index(kApp, kOscSent, true)];
}
std::uint64_t talker_count(const Row &r) {
  return r.v[value_index(kApp, kP2P, false)] + r.v[value_index(kApp, kColl, false)] +
         r.v[value_index(kApp, kOscSent, false)];
}

bool louder(const Talker &a, const Talker &b) {
  if (a.bytes != b.bytes)
    return a.bytes > b.bytes;
  return a.from != b.from ? a.from < b.from : a.to < b.to;
}

std::string totals_line(const std::uint64_t *t, unsigned origin) {
  char line[400];
  std::snprintf(line, sizeof line,
                "p2p %" PRIu64 " msgs %" PRIu64 " bytes, coll %" PRIu64 " msgs %" PRIu64
                " bytes, osc %" PRIu64 " msgs %" PRIu64 " bytes sent + %" PRIu64 " msgs %" PRIu64
                " bytes fetched",
                t[value_index(origin, kP2P, false)], t[value_index(origin, kP2P, true)],
                t[value_index(origin, kColl, false)], t[value_index(origin, kColl, true)],
                t[value_index(origin, kOscSent, false)], t[value_index(origin, kOscSent, true)],
                t[value_index(origin, kOscFetched, false)],
                t[value_index(origin, kOscFetched, true)]);
  return line;
}

/// "2 of 4 ranks (1,3)": which ranks, the first few by number.
std::string ranks_phrase(const std::vector<int> &ranks, int n) {
  std::string text = std::to_string(ranks.size()) + " of " + std::to_string(n) + " ranks (";
  const std::size_t listed = std::min<std::size_t>(ranks.size(), 16);
  for (std::size_t i = 0; i < listed; ++i)
    text += (i > 0 ? "," : "") + std::to_string(ranks[i]);
  return text + (listed < ranks.size() ? ",...)" : ")");
}

/// The summary's last lines: what was written, and what was not (failed lists the ranks
/// whose per-rank file was not written; json_ok is rank 0's gathered file).
std::string files_lines(const std::vector<int> &failed, bool json_ok) {
  const int n = g.world_size;
  const std::string prefix = escape_name(g.options.output);
  std::vector<std::string> wrote, lost;
  if (g.options.per_rank) {
    const std::string name = prefix + ".<rank>.prof";
    if (failed.empty())
      wrote.push_back(name);
    else if (failed.size() < static_cast<std::size_t>(n))
      wrote.push_back(name + " on " + std::to_string(n - static_cast<int>(failed.size())) + " of " +
                      std::to_string(n) + " ranks");
    if (!failed.empty())
      lost.push_back(name + " on " + ranks_phrase(failed, n));
  }
  if (g.options.gathered)
    (json_ok ? wrote : lost).push_back(prefix + ".json");
  auto join = [](const std::vector<std::string> &items) {
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i)
      text += (i > 0 ? " and " : " ") + items[i];
    return text;
  };
  std::string text;
  if (!wrote.empty())
    text += "pnmpi monitor: wrote" + join(wrote) + "\n";
  if (!lost.empty())
    text += "pnmpi monitor: failed to write" + join(lost) + "\n";
  return text;
}

void summarize(const Local &l, bool per_rank_ok, bool json_ok) {
  const bool root = g.world_rank == 0;
  const int n = g.world_size;
  std::vector<int> written(root ? static_cast<std::size_t>(n) : 0);
  if (g.options.per_rank) {
    const int mine = per_rank_ok ? 1 : 0;
    PMPI_Gather(&mine, 1, MPI_INT, written.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  std::uint64_t totals[kValues] = {};
  PMPI_Reduce(l.totals, totals, kValues, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

  const int k = g.options.top;
  std::vector<Talker> mine;
  for (const Row &r : l.rows)
    if (talker_bytes(r) > 0 || talker_count(r) > 0)
      mine.push_back({talker_bytes(r), talker_count(r), static_cast<std::uint64_t>(g.world_rank),
                      static_cast<std::uint64_t>(r.peer)});
  std::sort(mine.begin(), mine.end(), louder);
  mine.resize(static_cast<std::size_t>(k), Talker{0, 0, 0, 0});
  std::vector<Talker> everyone(root ? static_cast<std::size_t>(n) * k : 0);
  if (k > 0)
    PMPI_Gather(mine.data(), 4 * k, MPI_UINT64_T, everyone.data(), 4 * k, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);

  const std::uint64_t memory = g_heap_bytes.load(std::memory_order_relaxed) + sessions_bytes();
  const std::uint64_t fixed = sizeof g_types + sizeof g_recent_peers + sizeof g_recent_comms;
  std::uint64_t mem_max[2] = {memory, l.rows.size()}, mem_sum = 0, mem_out[2] = {0, 0};
  PMPI_Reduce(mem_max, mem_out, 2, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&memory, &mem_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!root)
    return;

  std::string text = "pnmpi monitor: " + std::to_string(n) +
                     " ranks; application: " + totals_line(totals, kApp) + "\n";
  text += "pnmpi monitor: modules above the monitor: " + totals_line(totals, kTool) + "\n";
  everyone.erase(std::remove_if(everyone.begin(), everyone.end(),
                                [](const Talker &t) { return t.bytes == 0 && t.count == 0; }),
                 everyone.end());
  std::sort(everyone.begin(), everyone.end(), louder);
  if (everyone.size() > static_cast<std::size_t>(k))
    everyone.resize(static_cast<std::size_t>(k));
  if (!everyone.empty()) {
    text += "pnmpi monitor: top talkers (application bytes sent):";
    for (std::size_t i = 0; i < everyone.size(); ++i) {
      char item[128];
      std::snprintf(
          item, sizeof item, "%s %" PRIu64 "->%" PRIu64 " %" PRIu64 " bytes/%" PRIu64 " msgs",
          i > 0 ? "," : "", everyone[i].from, everyone[i].to, everyone[i].bytes, everyone[i].count);
      text += item;
    }
    text += "\n";
  }
  char line[300];
  std::snprintf(line, sizeof line,
                "pnmpi monitor: memory per rank: max %" PRIu64 " bytes, mean %" PRIu64
                " bytes, plus %" PRIu64 " bytes of fixed caches; peers contacted per rank: "
                "max %" PRIu64 "\n",
                mem_out[0], mem_sum / static_cast<std::uint64_t>(n), fixed, mem_out[1]);
  text += line;
  std::vector<int> failed;
  for (int r = 0; g.options.per_rank && r < n; ++r)
    if (written[static_cast<std::size_t>(r)] == 0)
      failed.push_back(r);
  text += files_lines(failed, json_ok);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

} // namespace

bool write_outputs() noexcept {
  try {
    Local l;
    bool collected = true;
    try {
      l = collect();
    } catch (...) {
      report_error("out of memory: this rank's output cannot be written");
      collected = false;
    }
    bool per_rank_ok = true, json_ok = true;
    if (g.options.per_rank)
      per_rank_ok = collected && write_per_rank(l);
    if (g.options.gathered) {
      bool complete = true;
      const std::vector<std::vector<Row>> all = gather_rows(l.rows, collected, complete);
      if (g.world_rank == 0) {
        json_ok = complete && write_gathered(all);
        if (!complete)
          report_error("cannot write '" + escape_name(g.options.output + ".json") +
                       "': a rank could not collect its data (out of memory)");
      }
    }
    if (g.options.summary)
      summarize(l, per_rank_ok, json_ok);
    return per_rank_ok && json_ok;
  } catch (const std::exception &e) {
    report_error(std::string("cannot write the output: ") + e.what());
  } catch (...) {
    report_error("cannot write the output");
  }
  return false;
}

} // namespace pnmpi::monitor

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
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
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
  std::vector<const Peer *> peers; ///< same order (nullptr: collective volume only)
  std::uint64_t totals[kValues] = {};
};

/// This rank's values towards every world rank it sent something to: the per-peer counters
/// (every thread's) plus the collective volume each communicator holds for its peers.
Local collect() {
  Local l;
  std::vector<const Peer *> peers;
  g.peers.for_each([&](const Peer &p) { peers.push_back(&p); });
  std::vector<std::pair<Row, const Peer *>> rows;
  std::unordered_map<int, std::size_t> at;
  rows.reserve(peers.size());
  for (const Peer *p : peers) {
    Row r{};
    r.peer = static_cast<std::int32_t>(p->key.load(std::memory_order_relaxed) - 1);
    for (unsigned o = 0; o < kOrigins; ++o)
      for (unsigned k = 0; k < kKinds; ++k) {
        r.v[value_index(o, k, false)] = count_of(*p, o, k);
        r.v[value_index(o, k, true)] = bytes_of(*p, o, k);
      }
    at.emplace(r.peer, rows.size());
    rows.emplace_back(r, p);
  }
  std::vector<CollStats *> stats;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    stats = g.stats;
  }
  for (unsigned o = 0; o < kOrigins; ++o)
    for (const CollStats *s : stats)
      expand(*s, o, [&](int world, std::uint64_t c, std::uint64_t b) {
        auto [it, fresh] = at.emplace(world, rows.size());
        if (fresh) {
          Row r{};
          r.peer = world;
          rows.emplace_back(r, nullptr);
        }
        Row &r = rows[it->second].first;
        r.v[value_index(o, kColl, false)] += c;
        r.v[value_index(o, kColl, true)] += b;
      });
  std::sort(rows.begin(), rows.end(),
            [](const auto &a, const auto &b) { return a.first.peer < b.first.peer; });
  l.rows.reserve(rows.size());
  l.peers.reserve(rows.size());
  for (const auto &[r, p] : rows) {
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
      const Peer *p = l.peers[i];
      const bool has_hist = p != nullptr && p->hist != nullptr;
      if (has_hist)
        for (unsigned b = 0; b < kHistogramBins; ++b)
          hist[b] = bin_of(*p, o, b);
      text += prof_line(types[o], me, r.peer, r.v[value_index(o, kP2P, true)], count,
                        has_hist ? hist : nullptr);
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

/// Rank 0's copy of every rank's rows while the gathered file is written: an unlinked
/// temporary file next to it, so that rank 0 holds one round of rows at a time, never the
/// N x N values (a barrier on MPI_COMM_WORLD alone gives every pair a collective value).
/// Round k holds, sender after sender, counts[k][sender] rows.
class Spool {
public:
  Spool() = default;
  Spool(const Spool &) = delete;
  Spool &operator=(const Spool &) = delete;
  ~Spool() {
    if (m_file != nullptr)
      std::fclose(m_file);
  }

  /// Creates the file beside `path`; on failure returns the reason.
  std::string open(const std::string &path) {
    std::string name = path + ".spool.XXXXXX";
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0)
      return std::strerror(errno);
    ::unlink(name.c_str());
    m_file = ::fdopen(fd, "w+");
    if (m_file == nullptr) {
      const int saved = errno;
      ::close(fd);
      return std::strerror(saved);
    }
    return {};
  }
  bool opened() const { return m_file != nullptr; }

  /// Appends one round: counts[r] rows of each sender r, one after the other.
  bool append(const std::vector<int> &row_counts, const std::vector<Row> &rows) {
    std::vector<long> starts(row_counts.size());
    long at = m_end;
    for (std::size_t r = 0; r < row_counts.size(); ++r) {
      starts[r] = at;
      at += static_cast<long>(row_counts[r]) * static_cast<long>(sizeof(Row));
    }
    m_rounds.push_back({row_counts, std::move(starts)});
    if (!rows.empty() && std::fwrite(rows.data(), sizeof(Row), rows.size(), m_file) != rows.size())
      return false;
    m_end = at;
    m_position = at;
    return true;
  }

  /// Calls f(sender, rows) for every sender in order, with all its rows (every round's).
  template <class F> bool for_each_sender(int n, F &&f) {
    if (std::fflush(m_file) != 0)
      return false;
    std::vector<Row> rows;
    for (int s = 0; s < n; ++s) {
      rows.clear();
      for (const Round &round : m_rounds) {
        const std::size_t count = static_cast<std::size_t>(round.counts[s]);
        if (count == 0)
          continue;
        if (m_position != round.starts[s] && std::fseek(m_file, round.starts[s], SEEK_SET) != 0)
          return false;
        const std::size_t first = rows.size();
        rows.resize(first + count);
        if (std::fread(rows.data() + first, sizeof(Row), count, m_file) != count)
          return false;
        m_position = round.starts[s] + static_cast<long>(count * sizeof(Row));
      }
      f(s, rows);
    }
    m_position = -1;
    return true;
  }

private:
  struct Round {
    std::vector<int> counts;
    std::vector<long> starts;
  };
  std::FILE *m_file = nullptr;
  std::vector<Round> m_rounds;
  long m_end = 0, m_position = 0;
};

/// The most bytes of rows rank 0 receives in one round, whatever gather-round-bytes says:
/// its memory for the gathered file stays bounded at any world size.
constexpr std::size_t kRoundCap = std::size_t{64} << 20;

/// Sends every rank's rows to rank 0, which appends them to `spool` (if not null) round by
/// round. `complete` tells every rank whether every rank `collected` its rows (one
/// collective decides; nothing more travels otherwise). At most min(gather-round-bytes,
/// 64 MiB) bytes travel per round, and at least one row per rank.
void gather_rows(const std::vector<Row> &rows, bool collected, bool &complete,
                 const std::function<void()> &open_spool, Spool *&spool) {
  const int n = g.world_size;
  const bool root = g.world_rank == 0;
  const long long own[2] = {static_cast<long long>(rows.size()), collected ? 0 : 1};
  long long most_and_missing[2] = {0, 0};
  PMPI_Allreduce(own, most_and_missing, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  complete = most_and_missing[1] == 0;
  if (!complete)
    return;
  if (root)
    open_spool();
  const long long most = most_and_missing[0];
  const std::size_t budget =
      std::min(static_cast<std::size_t>(g.options.gather_round_bytes), kRoundCap);
  const std::size_t per_round =
      std::max<std::size_t>(1, budget / (sizeof(Row) * static_cast<std::size_t>(n)));
  std::vector<int> counts(root ? n : 0), displs(root ? n : 0), row_counts(root ? n : 0);
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
        row_counts[r] = counts[r] / static_cast<int>(sizeof(Row));
      }
      incoming.resize(total / sizeof(Row));
    }
    PMPI_Gatherv(mine_rows > 0 ? static_cast<const void *>(rows.data() + first) : nullptr, mine,
                 MPI_BYTE, root ? incoming.data() : nullptr, counts.data(), displs.data(), MPI_BYTE,
                 0, MPI_COMM_WORLD);
    if (root && spool != nullptr && !spool->append(row_counts, incoming))
      spool = nullptr; // reported by the writer
  }
}

/// Every world rank's host (MPI_Get_processor_name), on rank 0; empty elsewhere.
std::vector<std::string> gather_hosts() {
  const bool root = g.world_rank == 0;
  char mine[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int len = 0;
  if (PMPI_Get_processor_name(mine, &len) != MPI_SUCCESS)
    len = 0;
  mine[std::max(0, std::min(len, MPI_MAX_PROCESSOR_NAME))] = '\0';
  constexpr int kName = MPI_MAX_PROCESSOR_NAME + 1;
  std::vector<char> all(root ? static_cast<std::size_t>(g.world_size) * kName : 0);
  PMPI_Gather(mine, kName, MPI_CHAR, all.data(), kName, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  if (root)
    for (int r = 0; r < g.world_size; ++r) {
      const char *name = all.data() + static_cast<std::size_t>(r) * kName;
      hosts.emplace_back(name, strnlen(name, kName));
    }
  return hosts;
}

/// Writes `<output>.json` (version 2) from the spool: per category the sparse entries, and
/// the dense matrices when the world is small or they are asked for.
bool write_gathered(AtomicFile &out, Spool &spool, const std::vector<std::string> &hosts) {
  std::FILE *f = out.file();
  const int n = g.world_size;
  const bool dense = g.options.json_dense || n <= g.options.json_dense_limit;
  std::fprintf(f,
               "{\n  \"format\": \"pnmpi-monitor-matrices\",\n  \"version\": 2,\n"
               "  \"world_size\": %d,\n"
               "  \"orientation\": \"row = sender, column = receiver, both MPI_COMM_WORLD ranks: "
               "matrix[i][j] is what rank i sent to rank j; entries are [sender, receiver, "
               "count, bytes]\",\n"
               "  \"hosts\": [",
               n);
  for (int r = 0; r < n; ++r)
    std::fprintf(f, "%s%s", r > 0 ? ", " : "",
                 json_string(hosts[static_cast<std::size_t>(r)]).c_str());
  std::fputs("],\n  \"categories\": {\n", f);
  const std::size_t ncat = sizeof kCategories / sizeof kCategories[0];
  std::vector<std::uint64_t> row(static_cast<std::size_t>(n));
  bool ok = true;
  for (std::size_t c = 0; c < ncat && ok; ++c) {
    const Category &cat = kCategories[c];
    std::fprintf(f, "    %s: {\n      \"origin\": \"%s\",\n      \"what\": %s,\n",
                 json_string(cat.name).c_str(), cat.origin == kApp ? "application" : "modules",
                 json_string(cat.what).c_str());
    const unsigned ci = value_index(cat.origin, cat.kind, false);
    const unsigned bi = value_index(cat.origin, cat.kind, true);
    std::fputs("      \"entries\": [", f);
    bool first = true;
    ok = spool.for_each_sender(n, [&](int sender, const std::vector<Row> &rows) {
      for (const Row &r : rows) {
        if (r.v[ci] == 0 && r.v[bi] == 0)
          continue;
        std::fprintf(f, "%s\n        [%d,%d,%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", sender,
                     r.peer, r.v[ci], r.v[bi]);
        first = false;
      }
    });
    std::fputs(first ? "]" : "\n      ]", f);
    for (int metric = 0; dense && ok && metric < 2; ++metric) {
      std::fprintf(f, ",\n      \"%s\": [\n", metric == 0 ? "counts" : "bytes");
      const unsigned idx = metric == 0 ? ci : bi;
      ok = spool.for_each_sender(n, [&](int sender, const std::vector<Row> &rows) {
        std::fill(row.begin(), row.end(), 0);
        for (const Row &r : rows)
          if (r.peer >= 0 && r.peer < n)
            row[static_cast<std::size_t>(r.peer)] = r.v[idx];
        std::fputs("        [", f);
        for (int j = 0; j < n; ++j)
          std::fprintf(f, j > 0 ? ",%" PRIu64 : "%" PRIu64, row[static_cast<std::size_t>(j)]);
        std::fputs(sender + 1 < n ? "],\n" : "]\n", f);
      });
      std::fputs("      ]", f);
    }
    std::fputs(c + 1 < ncat ? "\n    },\n" : "\n    }\n", f);
  }
  if (!ok) {
    report_error(
        "cannot write '" + escape_name(g.options.output + ".json") +
        "': its temporary copy of the ranks' data could not be read back: " + std::strerror(errno));
    return false;
  }
  std::fputs("  }\n}\n", f);
  if (!out.commit()) {
    report_error(out.error());
    return false;
  }
  return true;
}

/// The gathered file, collectively: every rank sends its rows, rank 0 writes them.
bool gather_and_write(const Local &l, bool collected, const std::vector<std::string> &hosts) {
  const std::string path = g.options.output + ".json";
  std::unique_ptr<AtomicFile> out;
  Spool spool_file;
  Spool *spool = nullptr;
  bool complete = true;
  auto open_spool = [&] {
    out = std::make_unique<AtomicFile>(path);
    if (out->file() == nullptr) {
      report_error(out->error());
      return;
    }
    if (const std::string why = spool_file.open(path); !why.empty()) {
      report_error("cannot write '" + escape_name(path) + "': " + why);
      return;
    }
    spool = &spool_file;
  };
  gather_rows(l.rows, collected, complete, open_spool, spool);
  if (g.world_rank != 0)
    return true;
  if (!complete) {
    report_error("cannot write '" + escape_name(path) +
                 "': a rank could not collect its data (out of memory)");
    return false;
  }
  if (out == nullptr || out->file() == nullptr)
    return false; // reported
  if (spool == nullptr) {
    if (spool_file.opened())
      report_error(
          "cannot write '" + escape_name(path) +
          "': its temporary copy of the ranks' data could not be written: " + std::strerror(errno));
    return false;
  }
  return write_gathered(*out, *spool, hosts);
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

/// Application bytes (every category) this rank sent inside its node and to other nodes,
/// with `hosts` (rank 0's) made into host numbers that every rank receives; the number of
/// hosts on rank 0.
void node_bytes(const Local &l, const std::vector<std::string> &hosts, std::uint64_t out[2],
                int &host_count) {
  const int n = g.world_size;
  std::vector<int> host(static_cast<std::size_t>(n), 0);
  if (g.world_rank == 0) {
    std::map<std::string, int> numbers;
    for (int r = 0; r < n; ++r)
      host[static_cast<std::size_t>(r)] =
          numbers.emplace(hosts[static_cast<std::size_t>(r)], static_cast<int>(numbers.size()))
              .first->second;
    host_count = static_cast<int>(numbers.size());
  }
  PMPI_Bcast(host.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
  std::uint64_t mine[2] = {0, 0};
  const int me = host[static_cast<std::size_t>(g.world_rank)];
  for (const Row &r : l.rows) {
    std::uint64_t b = 0;
    for (unsigned k = 0; k < kKinds; ++k)
      b += r.v[value_index(kApp, k, true)];
    const bool inside = r.peer >= 0 && r.peer < n && host[static_cast<std::size_t>(r.peer)] == me;
    mine[inside ? 0 : 1] += b;
  }
  PMPI_Reduce(mine, out, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
}

void summarize(const Local &l, bool per_rank_ok, bool json_ok,
               const std::vector<std::string> &hosts) {
  const bool root = g.world_rank == 0;
  const int n = g.world_size;
  std::uint64_t nodes[2] = {0, 0};
  int host_count = 0;
  node_bytes(l, hosts, nodes, host_count);
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
                "pnmpi monitor: application bytes inside nodes %" PRIu64 ", between nodes %" PRIu64
                " (%d hosts)\n",
                nodes[0], nodes[1], host_count);
  text += line;
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
    std::vector<std::string> hosts;
    if (g.options.gathered || g.options.summary)
      hosts = gather_hosts();
    if (g.options.gathered)
      json_ok = gather_and_write(l, collected, hosts);
    if (g.options.summary)
      summarize(l, per_rank_ok, json_ok, hosts);
    return per_rank_ok && json_ok;
  } catch (const std::exception &e) {
    report_error(std::string("cannot write the output: ") + e.what());
  } catch (...) {
    report_error("cannot write the output");
  }
  return false;
}

std::string output_directory() {
  const std::string &prefix = g.options.output;
  const std::size_t slash = prefix.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : prefix.substr(0, slash);
}

std::string output_directory_problem(bool any_rank) {
  // A site module checks at load, on every rank alike (docs/site.md).
  const bool writes =
      g.options.per_rank || (g.options.gathered && (any_rank || g.world_rank == 0 || g.site));
  if (!writes)
    return "";
  const std::string &prefix = g.options.output;
  const std::string dir = output_directory();
  // The environment variable wins over the argument (options.cpp): name the one that counts.
  const char *variable = std::getenv("PNMPI_MONITOR_OUTPUT");
  const std::string source = variable != nullptr && *variable != '\0'
                                 ? "PNMPI_MONITOR_OUTPUT=" + escape_name(prefix)
                                 : "'argument output " + escape_name(prefix) + "'";
  const std::string where = "the output directory '" + escape_name(dir) + "' (of " + source + ")";
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return where + " cannot be used: " + std::strerror(errno) +
           "; the monitor does not create it: make it before the job starts, or choose "
           "another prefix";
  if (!S_ISDIR(st.st_mode))
    return where + " is not a directory; choose another prefix";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return where + " is not writable: " + std::strerror(errno) + "; choose another prefix";
  return "";
}

} // namespace pnmpi::monitor

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The placement: the symmetrised byte graph (a pair costs the network the same whichever way
// its bytes go) mapped by Scotch onto a complete graph of the hosts weighted by their slots,
// made to fit every host's slots exactly by the cheapest moves, then improved by swaps
// between hosts; the same swaps also run from the launcher's own placement (rank p in slot
// p) and the better answer is kept, so the result never crosses more bytes than the job as
// launched. Scotch runs in a context of one thread with its deterministic option and a fixed
// seed, and every tie below is broken by the lowest index: the same input gives the same
// answer in every process.
#include "matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>

#include <pnmpi/mapping.h>

extern "C" {
#include <scotch.h>
}

namespace {
// Scotch reports errors through SCOTCH_errorPrint, which libscotcherr would print (and
// libscotcherrexit would exit on). These definitions come first in the lookup of libscotch's
// references (this library is loaded before its dependency libscotcherr), so a message is
// kept for the caller instead.
thread_local char t_scotch_error[256];
} // namespace

extern "C" __attribute__((visibility("default"))) void SCOTCH_errorProg(const char *const) {}

extern "C" __attribute__((visibility("default"))) void SCOTCH_errorPrint(const char *const fmt,
                                                                         ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_scotch_error, sizeof t_scotch_error, fmt, ap);
  va_end(ap);
}

extern "C" __attribute__((visibility("default"))) void SCOTCH_errorPrintW(const char *const, ...) {}

namespace pnmpi::mapping {
namespace {

// The swap search keeps a ranks x hosts table of connections and looks at most at the members
// of 4 hosts per rank: it runs when both stay within these bounds.
constexpr int64_t kRefineCells = int64_t{1} << 22;
constexpr int64_t kRefineWork = int64_t{1} << 25;
constexpr int kRefinePasses = 20;
// Problems with at most this many distinct assignments are solved exactly.
constexpr double kExactAssignments = 200000;

struct Graph {
  int64_t n;
  std::vector<int64_t> xadj, adj;
  std::vector<int64_t> w; // symmetric weights, each edge stored both ways
};

Graph symmetrise(const Matrix &m, bool &too_heavy) {
  std::vector<Cell> cells;
  cells.reserve(m.adj.size() * 2);
  for (int64_t i = 0; i < m.n; ++i)
    for (int64_t k = m.xadj[i]; k < m.xadj[i + 1]; ++k)
      if (m.adj[k] != i) {
        cells.push_back({i, m.adj[k], m.bytes[k]});
        cells.push_back({m.adj[k], i, m.bytes[k]});
      }
  Matrix s = build_matrix(m.n, std::move(cells));
  Graph g{s.n, std::move(s.xadj), std::move(s.adj), {}};
  g.w.resize(s.bytes.size());
  uint64_t total = 0;
  too_heavy = false;
  constexpr uint64_t kLimit = uint64_t{1} << 60;
  for (size_t k = 0; k < s.bytes.size(); ++k) {
    uint64_t b = std::min<uint64_t>(s.bytes[k], kLimit);
    total = total > kLimit - b ? kLimit : total + b;
    g.w[k] = static_cast<int64_t>(b);
  }
  too_heavy = total >= kLimit;
  return g;
}

int64_t cut(const Graph &g, const std::vector<int32_t> &part) {
  int64_t sum = 0;
  for (int64_t i = 0; i < g.n; ++i)
    for (int64_t k = g.xadj[i]; k < g.xadj[i + 1]; ++k)
      if (part[i] != part[g.adj[k]])
        sum += g.w[k];
  return sum / 2;
}

struct ScotchParts {
  SCOTCH_Graph *graph = nullptr, *bound = nullptr;
  SCOTCH_Arch *arch = nullptr;
  SCOTCH_Strat *strat = nullptr;
  SCOTCH_Context *context = nullptr;
  bool graph_init = false, bound_init = false, arch_init = false, strat_init = false,
       context_init = false;
  ~ScotchParts() {
    if (bound_init)
      SCOTCH_graphExit(bound);
    if (graph_init)
      SCOTCH_graphExit(graph);
    if (arch_init)
      SCOTCH_archExit(arch);
    if (strat_init)
      SCOTCH_stratExit(strat);
    if (context_init)
      SCOTCH_contextExit(context);
    for (void *p :
         {static_cast<void *>(bound), static_cast<void *>(graph), static_cast<void *>(arch),
          static_cast<void *>(strat), static_cast<void *>(context)})
      if (p != nullptr)
        SCOTCH_memFree(p);
  }
};

[[noreturn]] void scotch_failed(const char *what) {
  std::string msg = std::string("Scotch ") + scotch_version() + ": " + what;
  if (t_scotch_error[0] != '\0')
    msg += std::string(" (") + t_scotch_error + ")";
  throw Error(PNMPI_MAP_ESCOTCH, msg);
}

/// Scotch's host of every rank (not yet fitted to the capacities).
std::vector<int32_t> scotch_map(const Graph &g, const std::vector<int64_t> &cap) {
  t_scotch_error[0] = '\0';
  if (SCOTCH_numSizeof() != static_cast<int>(sizeof(SCOTCH_Num)))
    scotch_failed("its library was built with another SCOTCH_Num than its scotch.h");
  constexpr int64_t kNumMax = std::numeric_limits<SCOTCH_Num>::max();
  int64_t hosts = static_cast<int64_t>(cap.size());
  if (g.n > kNumMax || static_cast<int64_t>(g.adj.size()) > kNumMax)
    throw Error(PNMPI_MAP_EINVAL, "the graph is too large for Scotch's " +
                                      std::to_string(8 * sizeof(SCOTCH_Num)) + "-bit numbers");
  // Scotch sums edge loads in SCOTCH_Num: scale them so that their sum fits, keeping every
  // edge at least 1.
  double total = 0;
  for (int64_t w : g.w)
    total += static_cast<double>(w);
  double scale = std::min(1.0, static_cast<double>(kNumMax >> 2) / std::max(1.0, total));
  std::vector<SCOTCH_Num> verttab(g.xadj.begin(), g.xadj.end());
  std::vector<SCOTCH_Num> edgetab(g.adj.begin(), g.adj.end());
  std::vector<SCOTCH_Num> edlotab(g.w.size());
  for (size_t k = 0; k < g.w.size(); ++k)
    edlotab[k] =
        static_cast<SCOTCH_Num>(std::max(1.0, std::floor(static_cast<double>(g.w[k]) * scale)));
  std::vector<SCOTCH_Num> loads(cap.begin(), cap.end());
  std::vector<SCOTCH_Num> parttab(static_cast<size_t>(g.n), 0);

  ScotchParts s;
  s.graph = SCOTCH_graphAlloc();
  s.bound = SCOTCH_graphAlloc();
  s.arch = SCOTCH_archAlloc();
  s.strat = SCOTCH_stratAlloc();
  s.context = SCOTCH_contextAlloc();
  if (!s.graph || !s.bound || !s.arch || !s.strat || !s.context)
    throw Error(PNMPI_MAP_ENOMEM, "out of memory for Scotch's structures");
  if (SCOTCH_graphInit(s.graph) != 0)
    scotch_failed("cannot initialise a graph");
  s.graph_init = true;
  if (SCOTCH_graphInit(s.bound) != 0)
    scotch_failed("cannot initialise a graph");
  s.bound_init = true;
  if (SCOTCH_archInit(s.arch) != 0)
    scotch_failed("cannot initialise an architecture");
  s.arch_init = true;
  if (SCOTCH_stratInit(s.strat) != 0)
    scotch_failed("cannot initialise a strategy");
  s.strat_init = true;
  if (SCOTCH_contextInit(s.context) != 0)
    scotch_failed("cannot initialise a context");
  s.context_init = true;
  if (SCOTCH_contextOptionSetNum(s.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
      SCOTCH_contextOptionSetNum(s.context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0)
    scotch_failed("refused the deterministic options");
  SCOTCH_contextRandomSeed(s.context, 1);
  if (SCOTCH_contextThreadSpawn(s.context, 1, nullptr) != 0)
    scotch_failed("cannot set up its thread context");
  if (SCOTCH_graphBuild(s.graph, 0, static_cast<SCOTCH_Num>(g.n), verttab.data(), nullptr, nullptr,
                        nullptr, static_cast<SCOTCH_Num>(edgetab.size()), edgetab.data(),
                        edlotab.data()) != 0 ||
      SCOTCH_graphCheck(s.graph) != 0)
    scotch_failed("refused the communication graph");
  if (SCOTCH_contextBindGraph(s.context, s.graph, s.bound) != 0)
    scotch_failed("cannot bind the graph to its context");
  bool even = std::all_of(cap.begin(), cap.end(), [&](int64_t c) { return c == cap[0]; });
  int rc = even ? SCOTCH_archCmplt(s.arch, static_cast<SCOTCH_Num>(hosts))
                : SCOTCH_archCmpltw(s.arch, static_cast<SCOTCH_Num>(hosts), loads.data());
  if (rc != 0)
    scotch_failed("refused the hosts' architecture");
  if (SCOTCH_stratGraphMapBuild(s.strat, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE,
                                static_cast<SCOTCH_Num>(hosts), 0.0) != 0)
    scotch_failed("cannot build a mapping strategy");
  if (SCOTCH_graphMap(s.bound, s.arch, s.strat, parttab.data()) != 0)
    scotch_failed("graph mapping failed");
  std::vector<int32_t> part(static_cast<size_t>(g.n));
  for (int64_t i = 0; i < g.n; ++i) {
    if (parttab[i] < 0 || parttab[i] >= hosts)
      scotch_failed("returned a host outside the architecture");
    part[i] = static_cast<int32_t>(parttab[i]);
  }
  return part;
}

/// Moves the cheapest ranks out of over-full hosts until every host holds exactly its slots.
void fit(const Graph &g, std::vector<int32_t> &part, const std::vector<int64_t> &cap) {
  size_t hosts = cap.size();
  std::vector<int64_t> free(cap);
  for (int32_t h : part)
    --free[h];
  std::vector<int64_t> conn(hosts, 0);
  std::vector<int32_t> touched;
  for (;;) {
    size_t over = static_cast<size_t>(std::min_element(free.begin(), free.end()) - free.begin());
    if (free[over] >= 0)
      return;
    int64_t best_loss = 0, best_v = -1;
    int32_t best_t = -1;
    for (int64_t v = 0; v < g.n; ++v) {
      if (part[v] != static_cast<int32_t>(over))
        continue;
      for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
        int32_t h = part[g.adj[k]];
        if (conn[h] == 0)
          touched.push_back(h);
        conn[h] += g.w[k];
      }
      int32_t t = -1;
      for (size_t h = 0; h < hosts; ++h)
        if (free[h] > 0 && (t < 0 || conn[h] > conn[t]))
          t = static_cast<int32_t>(h);
      int64_t loss = conn[over] - conn[t];
      if (best_v < 0 || loss < best_loss) {
        best_loss = loss;
        best_v = v;
        best_t = t;
      }
      for (int32_t h : touched)
        conn[h] = 0;
      touched.clear();
    }
    part[best_v] = best_t;
    ++free[over];
    --free[best_t];
  }
}

/// Swaps between hosts, each only when it lowers the cut, until a pass changes nothing.
void refine(const Graph &g, std::vector<int32_t> &part, size_t hosts) {
  const int64_t n = g.n;
  std::vector<int64_t> conn(static_cast<size_t>(n) * hosts, 0);
  auto c = [&](int64_t v, size_t h) -> int64_t & {
    return conn[static_cast<size_t>(v) * hosts + h];
  };
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
      c(v, part[g.adj[k]]) += g.w[k];
  std::vector<std::vector<int64_t>> members(hosts);
  std::vector<size_t> where(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) {
    where[v] = members[part[v]].size();
    members[part[v]].push_back(v);
  }
  auto move = [&](int64_t v, int32_t t) {
    int32_t cur = part[v];
    for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
      c(g.adj[k], cur) -= g.w[k];
      c(g.adj[k], t) += g.w[k];
    }
    std::vector<int64_t> &from = members[cur];
    int64_t last = from.back();
    from[where[v]] = last;
    where[last] = where[v];
    from.pop_back();
    where[v] = members[t].size();
    members[t].push_back(v);
    part[v] = t;
  };
  std::vector<int64_t> wv(static_cast<size_t>(n), 0);
  std::vector<size_t> order(hosts);
  for (int pass = 0; pass < kRefinePasses; ++pass) {
    bool improved = false;
    for (int64_t v = 0; v < n; ++v) {
      int32_t cur = part[v];
      for (size_t h = 0; h < hosts; ++h)
        order[h] = h;
      auto gain = [&](size_t h) { return c(v, h) - c(v, cur); };
      size_t top = std::min<size_t>(4, hosts);
      std::partial_sort(
          order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
          [&](size_t a, size_t b) { return gain(a) != gain(b) ? gain(a) > gain(b) : a < b; });
      for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        wv[g.adj[k]] = g.w[k];
      int64_t best = 0, best_u = -1;
      int32_t best_t = -1;
      for (size_t i = 0; i < top; ++i) {
        size_t t = order[i];
        if (t == static_cast<size_t>(cur))
          continue;
        for (int64_t u : members[t]) {
          int64_t s = gain(t) + c(u, cur) - c(u, t) - 2 * wv[u];
          if (s > best) {
            best = s;
            best_u = u;
            best_t = static_cast<int32_t>(t);
          }
        }
      }
      for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        wv[g.adj[k]] = 0;
      if (best_u >= 0) {
        move(v, best_t);
        move(best_u, cur);
        improved = true;
      }
    }
    if (!improved)
      return;
  }
}

/// The least-cut assignment by a search over every assignment (branch and bound, hosts of
/// equal capacity still empty tried once), starting from the bound `part` gives; true if it
/// ran (small problems only).
bool exact(const Graph &g, std::vector<int32_t> &part, const std::vector<int64_t> &cap) {
  // The number of distinct assignments, n! / prod(cap!), must stay small.
  double count = 1;
  int64_t placed = 0;
  for (int64_t c : cap)
    for (int64_t k = 1; k <= c; ++k)
      count = count * static_cast<double>(++placed) / static_cast<double>(k);
  if (count > kExactAssignments)
    return false;
  const int64_t n = g.n;
  const size_t hosts = cap.size();
  std::vector<int64_t> free(cap);
  std::vector<int32_t> cur(static_cast<size_t>(n), -1), best_part(part);
  int64_t best = cut(g, part);
  // dfs(v, cost): ranks below v are placed with cut `cost` among them.
  auto dfs = [&](auto &self, int64_t v, int64_t cost) -> void {
    if (cost >= best)
      return;
    if (v == n) {
      best = cost;
      best_part = cur;
      return;
    }
    for (size_t h = 0; h < hosts; ++h) {
      if (free[h] == 0)
        continue;
      bool twin = false;
      if (free[h] == cap[h])
        for (size_t e = 0; e < h && !twin; ++e)
          twin = cap[e] == cap[h] && free[e] == cap[e];
      if (twin)
        continue;
      int64_t add = 0;
      for (int64_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        if (g.adj[k] < v && cur[g.adj[k]] != static_cast<int32_t>(h))
          add += g.w[k];
      cur[v] = static_cast<int32_t>(h);
      --free[h];
      self(self, v + 1, cost + add);
      ++free[h];
      cur[v] = -1;
    }
  };
  dfs(dfs, 0, 0);
  part = best_part;
  return true;
}

} // namespace

std::string scotch_version() {
  int v[3] = {0, 0, 0};
  SCOTCH_version(&v[0], &v[1], &v[2]);
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

std::vector<int32_t> place(const Matrix &m, const std::vector<int32_t> &slot_host,
                           std::string &method) {
  const int64_t n = m.n;
  // Hosts that have slots, numbered densely in the order of their indices (any indices:
  // sorted, not a table as large as the largest).
  std::vector<int32_t> ids(slot_host);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<int64_t> cap(ids.size(), 0);
  std::vector<int32_t> natural(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p) {
    natural[p] =
        static_cast<int32_t>(std::lower_bound(ids.begin(), ids.end(), slot_host[p]) - ids.begin());
    ++cap[natural[p]];
  }
  std::vector<int32_t> identity(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p)
    identity[p] = static_cast<int32_t>(p);

  bool too_heavy = false;
  Graph g = symmetrise(m, too_heavy);
  if (cap.size() == 1) {
    method = "one host: the launch order";
    return identity;
  }
  if (g.adj.empty()) {
    method = "no traffic between ranks: the launch order";
    return identity;
  }
  std::vector<int32_t> part = scotch_map(g, cap);
  fit(g, part, cap);
  std::string scotch = "Scotch " + scotch_version() + " graph mapping";
  method = scotch + ", fitted to the slots";
  const int64_t hosts = static_cast<int64_t>(cap.size());
  const int64_t largest = *std::max_element(cap.begin(), cap.end());
  const bool can_refine = !too_heavy && n * hosts <= kRefineCells &&
                          n * std::min<int64_t>(4, hosts - 1) * largest <= kRefineWork;
  if (can_refine) {
    refine(g, part, cap.size());
    method += ", then swaps between hosts";
    std::vector<int32_t> from_natural = natural;
    refine(g, from_natural, cap.size());
    if (cut(g, from_natural) < cut(g, part)) {
      part = std::move(from_natural);
      method = "swaps between hosts from the launch order (better than " + scotch + " here)";
    }
  } else {
    method += " (no swaps: " + std::to_string(n) + " ranks on " + std::to_string(hosts) +
              " hosts is beyond the swap search's bounds)";
  }
  if (!too_heavy && exact(g, part, cap))
    method = "exact search, bounded by " + method;
  if (cut(g, natural) <= cut(g, part)) {
    method = "the launch order (" + method + ": nothing crosses fewer bytes)";
    return identity;
  }
  // Within a host, its ranks fill its slots in increasing order.
  std::vector<std::vector<int64_t>> slots(cap.size());
  for (int64_t p = n - 1; p >= 0; --p)
    slots[natural[p]].push_back(p);
  std::vector<int32_t> rank_of_slot(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int64_t> &s = slots[part[r]];
    rank_of_slot[s.back()] = static_cast<int32_t>(r);
    s.pop_back();
  }
  return rank_of_slot;
}

} // namespace pnmpi::mapping

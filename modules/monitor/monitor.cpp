// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor's life cycle and slow paths: options, MPI_Init/MPI_Finalize, first contact
// with a peer, a communicator or a window, their release, and persistent requests.

#include "monitor.h"

#include <pnmpi/pnmpi.h>
#include <pnmpi/support.h>
#include <pnmpi/world_ranks.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <shared_mutex>
#include <unistd.h>
#include <unordered_map>

#include "output_format.h"
#include "part_region.h"
#include "sessions.h"

namespace pnmpi::monitor {

State g;
pnmpi_type_slot_t g_types[PNMPI_TYPE_SLOTS];
std::atomic<std::size_t> g_plans{0};
std::atomic<Peer *> g_recent_peers[kRecentSlots];
std::atomic<CommInfo *> g_recent_comms[kRecentSlots];
__thread ThreadCache *t_cache __attribute__((tls_model("initial-exec"))) = nullptr;

void report_error(const std::string &message) noexcept {
  if (g.site) {
    g.record.store(0, std::memory_order_release);
    if (pnmpi_site_failure(g.self, message.c_str()) == PNMPI_SUCCESS)
      return;
  }
  std::fprintf(stderr, "pnmpi: module 'monitor': %s\n", message.c_str());
  std::fflush(stderr);
}

void report_output_problem(const std::string &problem) noexcept {
  char at[1024] = "module 'monitor'";
  pnmpi_argument_where(g.self, "output", at, sizeof at);
  std::fprintf(stderr, "pnmpi: %s: %s\n", at, problem.c_str());
  std::fflush(stderr);
}

bool write_or_report(const std::string &path, const std::string &text) noexcept {
  try {
    std::string error;
    if (write_file_atomically(path, text, error))
      return true;
    report_error(error);
  } catch (...) {
    report_error("out of memory while writing '" + escape_name(path) + "'");
  }
  return false;
}

namespace {

bool g_disabled = false; ///< a site module that failed at load: it only forwards calls

void report_out_of_memory() noexcept {
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    report_error("out of memory: some traffic is not recorded");
}

} // namespace

// ---- origin -------------------------------------------------------------------------------

void RoutineId::resolve_all() noexcept {
  for (RoutineId *r = s_first; r != nullptr; r = r->m_next)
    r->m_id = pnmpi_routine_id(r->m_name);
}

// ---- datatypes ----------------------------------------------------------------------------

std::uint64_t type_size_slow(MPI_Datatype type) noexcept {
  if (type == MPI_DATATYPE_NULL)
    return 0;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0)
    return 0;
  return static_cast<std::uint64_t>(size);
}

namespace {

// ---- groups -------------------------------------------------------------------------------

/// MPI deletes our attribute when a communicator is freed (by anyone, or at finalize):
/// its translation table goes with it; its collective statistics stay for the output.
int comm_deleted(MPI_Comm comm, int, void *, void *) {
  sessions_comm_freed(comm);
  try {
    std::lock_guard<std::mutex> guard(g.lock);
    CommInfo *ci = g.comms.erase(handle_key(comm));
    if (ci == nullptr)
      return MPI_SUCCESS;
    if (CollStats *s = ci->stats.exchange(nullptr, std::memory_order_acq_rel)) {
      s->name = comm_name(comm);
      s->handle = MPI_COMM_NULL;
    }
    if (std::vector<int> *n = ci->neighbors.exchange(nullptr, std::memory_order_acq_rel)) {
      track_free(sizeof(*n) + n->capacity() * sizeof(int));
      delete n;
    }
    ci->peers.reset();
  } catch (...) {
  }
  return MPI_SUCCESS;
}

int win_deleted(MPI_Win win, int, void *, void *) {
  try {
    std::lock_guard<std::mutex> guard(g.lock);
    if (CommInfo *wi = g.wins.erase(handle_key(win)))
      wi->peers.reset();
  } catch (...) {
  }
  return MPI_SUCCESS;
}

} // namespace

std::string comm_name(MPI_Comm comm) {
  char name[MPI_MAX_OBJECT_NAME + 1] = {0};
  int len = 0;
  if (PMPI_Comm_get_name(comm, name, &len) != MPI_SUCCESS)
    return {};
  return std::string(name, static_cast<std::size_t>(len > 0 ? len : 0));
}

CommInfo *insert_info(ShellIndex<CommInfo> &index, std::uintptr_t key,
                      const std::vector<int> &worlds, int rank, int local_size, bool inter) {
  bool fresh = false;
  CommInfo *ci = index.claim(key, &fresh);
  if (!fresh)
    return ci;
  ci->peers.assign(worlds);
  ci->rank = rank;
  ci->local_size = local_size;
  ci->inter = inter;
  ci->stats.store(nullptr, std::memory_order_relaxed);
  ci->neighbors.store(nullptr, std::memory_order_relaxed);
  index.publish(ci, key);
  return ci;
}

// ---- lookups ------------------------------------------------------------------------------

Peer *peer_lookup(int world) noexcept {
  Peer *p = g.peers.find(static_cast<std::uintptr_t>(world) + 1);
  if (p == nullptr)
    p = peer_slow(world);
  if (p != nullptr)
    g_recent_peers[static_cast<unsigned>(world) & (kRecentSlots - 1)].store(
        p, std::memory_order_release);
  return p;
}

CommInfo *comm_lookup(MPI_Comm comm) noexcept {
  const std::uintptr_t key = handle_key(comm);
  CommInfo *ci = g.comms.find(key);
  if (ci == nullptr)
    ci = comm_slow(comm);
  if (ci != nullptr)
    g_recent_comms[recent_slot(key)].store(ci, std::memory_order_release);
  return ci;
}

Peer *peer_slow(int world) noexcept {
  if (world < 0 || world >= g.world_size)
    return nullptr;
  const auto key = static_cast<std::uintptr_t>(world) + 1;
  try {
    // In the part file's region when there is one (part_region.h), else on the heap.
    std::unique_ptr<Counter[]> hist;
    Counter *mapped = part_hist(world);
    if (g.options.histograms && mapped == nullptr)
      hist = std::make_unique<Counter[]>(kOrigins * kHistogramBins);
    std::lock_guard<std::mutex> guard(g.lock);
    bool fresh = false;
    Peer *p = g.peers.claim(key, &fresh);
    if (fresh) {
      if (g.options.histograms)
        track_alloc(sizeof(Counter) * kOrigins * kHistogramBins);
      p->hist = mapped != nullptr ? mapped : hist.release();
      g.peers.publish(p, key);
    }
    return p;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

CommInfo *comm_slow(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL || g.world_size == 0)
    return nullptr;
  const std::uintptr_t key = handle_key(comm);
  if (key == 0)
    return nullptr;
  try {
    int inter = 0, rank = -1;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
      return nullptr;
    PMPI_Comm_rank(comm, &rank);
    MPI_Group local = MPI_GROUP_NULL, peers = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &local);
    int local_size = 0;
    PMPI_Group_size(local, &local_size);
    if (inter)
      PMPI_Comm_remote_group(comm, &peers);
    const std::vector<int> worlds =
        support::group_world_ranks(inter ? peers : local, g.world_group);
    PMPI_Group_free(&local);
    if (inter)
      PMPI_Group_free(&peers);
    CommInfo *ci = nullptr;
    {
      std::lock_guard<std::mutex> guard(g.lock);
      ci = insert_info(g.comms, key, worlds, rank, local_size, inter != 0);
    }
    // The attribute's delete callback releases the entry when the communicator is freed.
    PMPI_Comm_set_attr(comm, g.comm_keyval, ci);
    return ci;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

CommInfo *win_slow(MPI_Win win) noexcept {
  if (win == MPI_WIN_NULL || g.world_size == 0)
    return nullptr;
  const std::uintptr_t key = handle_key(win);
  if (key == 0)
    return nullptr;
  try {
    MPI_Group group = MPI_GROUP_NULL;
    if (PMPI_Win_get_group(win, &group) != MPI_SUCCESS)
      return nullptr;
    int rank = -1, size = 0;
    PMPI_Group_rank(group, &rank);
    PMPI_Group_size(group, &size);
    const std::vector<int> worlds = support::group_world_ranks(group, g.world_group);
    PMPI_Group_free(&group);
    CommInfo *wi = nullptr;
    {
      std::lock_guard<std::mutex> guard(g.lock);
      wi = insert_info(g.wins, key, worlds, rank, size, false);
    }
    PMPI_Win_set_attr(win, g.win_keyval, wi);
    return wi;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

CollStats *stats_slow(CommInfo *ci, MPI_Comm comm) noexcept {
  try {
    MPI_Group local = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &local);
    const std::vector<int> worlds = support::group_world_ranks(local, g.world_group);
    PMPI_Group_free(&local);
    return attach_stats(ci, comm, worlds);
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

CollStats *attach_stats(CommInfo *ci, MPI_Comm comm, const std::vector<int> &local) noexcept {
  try {
    std::vector<int> remote;
    if (ci->inter) {
      remote.resize(static_cast<std::size_t>(ci->peers.size()));
      for (int r = 0; r < ci->peers.size(); ++r)
        remote[static_cast<std::size_t>(r)] = ci->peers.world(r);
    }
    std::lock_guard<std::mutex> guard(g.lock);
    if (CollStats *existing = ci->stats.load(std::memory_order_acquire))
      return existing;
    g.stats.reserve(g.stats.size() + 1);
    // An intracommunicator's statistics go to the part file's region while it has room
    // (part_region.h): its members are kept there with them. Never freed either way.
    CollStats *raw = ci->inter ? nullptr : part_coll(local, ci->rank);
    std::unique_ptr<CollStats> heap;
    if (raw == nullptr) {
      heap = std::make_unique<CollStats>();
      raw = heap.get();
    }
    raw->handle = comm;
    raw->rank = ci->rank;
    raw->inter = ci->inter;
    raw->procs.assign(local);
    if (ci->inter)
      raw->remote.assign(remote);
    track_alloc(sizeof(CollStats) + sizeof(void *));
    heap.release();
    g.stats.push_back(raw);
    ci->stats.store(raw, std::memory_order_release);
    return raw;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

const std::vector<int> *neighbors_slow(CommInfo *ci, MPI_Comm comm) noexcept {
  try {
    auto out = std::make_unique<std::vector<int>>();
    int topo = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
      int ndims = 0;
      PMPI_Cartdim_get(comm, &ndims);
      for (int d = 0; d < ndims; ++d) {
        int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
        PMPI_Cart_shift(comm, d, 1, &source, &dest);
        out->push_back(source); // the standard's order: -1 then +1 neighbor per dimension
        out->push_back(dest);
      }
    } else if (topo == MPI_GRAPH) {
      int n = 0;
      PMPI_Graph_neighbors_count(comm, ci->rank, &n);
      out->resize(static_cast<std::size_t>(n));
      if (n > 0)
        PMPI_Graph_neighbors(comm, ci->rank, n, out->data());
    } else if (topo == MPI_DIST_GRAPH) {
      int indegree = 0, outdegree = 0, weighted = 0;
      PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
      std::vector<int> sources(static_cast<std::size_t>(indegree) + 1),
          source_weights(static_cast<std::size_t>(indegree) + 1);
      std::vector<int> dest_weights(static_cast<std::size_t>(outdegree) + 1);
      out->resize(static_cast<std::size_t>(outdegree) + 1);
      PMPI_Dist_graph_neighbors(comm, indegree, sources.data(), source_weights.data(), outdegree,
                                out->data(), dest_weights.data());
      out->resize(static_cast<std::size_t>(outdegree));
    }
    std::lock_guard<std::mutex> guard(g.lock);
    if (std::vector<int> *existing = ci->neighbors.load(std::memory_order_acquire))
      return existing;
    track_alloc(sizeof(*out) + out->capacity() * sizeof(int));
    std::vector<int> *raw = out.release();
    ci->neighbors.store(raw, std::memory_order_release);
    return raw;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

ThreadPeer *thread_peer_slow(int world) noexcept {
  Peer *p = peer_of(world); // the shared entry: readers find every thread's counters there
  if (p == nullptr)
    return nullptr;
  try {
    if (t_cache == nullptr) {
      t_cache = new ThreadCache();
      track_alloc(sizeof(ThreadCache));
    }
    ThreadCache *tc = t_cache;
    ThreadPeer *tp = p->threads.load(std::memory_order_acquire);
    while (tp != nullptr && tp->owner != tc)
      tp = tp->next;
    if (tp == nullptr) {
      std::lock_guard<std::mutex> guard(g.lock);
      // In the part file's region while it has room (part_region.h), else on the heap.
      tp = part_thread_peer(world, tc);
      if (tp == nullptr) {
        auto fresh = std::make_unique<ThreadPeer>();
        fresh->key = static_cast<std::uintptr_t>(world) + 1;
        fresh->owner = tc;
        tp = fresh.release();
      }
      tp->next = p->threads.load(std::memory_order_relaxed);
      p->threads.store(tp, std::memory_order_release);
      track_alloc(sizeof(ThreadPeer));
    }
    tc->recent[static_cast<unsigned>(world) & (kRecentSlots - 1)] = tp;
    return tp;
  } catch (...) {
    report_out_of_memory();
    return nullptr;
  }
}

namespace {

/// Finds the position of a world rank in a list of world ranks: arithmetic when the list is
/// a sequence (a communicator of regular ranks), a hash table otherwise.
class WorldIndex {
public:
  explicit WorldIndex(const std::vector<int> &worlds) {
    const std::size_t n = worlds.size();
    m_size = static_cast<long>(n);
    m_base = n > 0 ? worlds[0] : 0;
    m_stride = n > 1 ? worlds[1] - worlds[0] : 1;
    bool affine = m_stride != 0;
    for (std::size_t i = 0; i < n && affine; ++i)
      affine = worlds[i] == m_base + m_stride * static_cast<long>(i);
    if (affine)
      return;
    m_table = std::make_unique<std::unordered_map<int, std::size_t>>();
    m_table->reserve(n);
    for (std::size_t i = n; i-- > 0;) // the first position of a rank listed twice wins
      (*m_table)[worlds[i]] = i;
  }
  /// The position of `world`, or -1.
  long find(int world) const {
    if (m_table) {
      auto it = m_table->find(world);
      return it == m_table->end() ? -1 : static_cast<long>(it->second);
    }
    const long d = static_cast<long>(world) - m_base;
    if (d % m_stride != 0)
      return -1;
    const long i = d / m_stride;
    return i >= 0 && i < m_size ? i : -1;
  }

private:
  long m_size = 0, m_base = 0, m_stride = 1;
  std::unique_ptr<std::unordered_map<int, std::size_t>> m_table;
};

} // namespace

void add_coll_volume(unsigned origin, const std::vector<int> &worlds, std::uint64_t *counts,
                     std::uint64_t *bytes, std::size_t stride) {
  std::vector<CollStats *> stats;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    stats = g.stats;
  }
  const WorldIndex index(worlds);
  for (const CollStats *s : stats)
    expand(*s, origin, [&](int world, std::uint64_t c, std::uint64_t b) {
      const long i = index.find(world);
      if (i < 0)
        return;
      counts[static_cast<std::size_t>(i) * stride] += c;
      bytes[static_cast<std::size_t>(i) * stride] += b;
    });
}

// ---- persistent requests ------------------------------------------------------------------

namespace {

struct Requests {
  std::shared_mutex lock;
  std::unordered_map<std::uintptr_t, Plan> plans;
};

Requests &requests() {
  static Requests r;
  return r;
}

std::size_t plan_bytes(const Plan &plan) {
  return sizeof(Plan) + 2 * sizeof(void *) +
         plan.sends.capacity() * sizeof(std::pair<int, std::uint64_t>);
}

void apply(const Plan &plan, unsigned origin) noexcept {
  for (const auto &[world, bytes] : plan.sends)
    record_to(origin, plan.kind, world, bytes);
  if (plan.stats == nullptr)
    return;
  if (plan.to_all) {
    add(plan.stats->all_count[origin], 1);
    add(plan.stats->all_bytes[origin], plan.all_bytes);
  }
  if (plan.to_up) {
    add(plan.stats->up_count[origin], 1);
    add(plan.stats->up_bytes[origin], plan.up_bytes);
  }
  if (plan.coll_class >= 0) {
    add(plan.stats->count[origin][plan.coll_class], 1);
    add(plan.stats->bytes[origin][plan.coll_class], plan.class_bytes);
  }
}

} // namespace

void remember_request(MPI_Request request, Plan &&plan) noexcept {
  if (request == MPI_REQUEST_NULL)
    return;
  try {
    Requests &r = requests();
    std::unique_lock<std::shared_mutex> guard(r.lock);
    auto [it, inserted] = r.plans.insert_or_assign(handle_key(request), std::move(plan));
    if (inserted) {
      g_plans.fetch_add(1, std::memory_order_relaxed);
      track_alloc(plan_bytes(it->second));
    }
  } catch (...) {
    report_out_of_memory();
  }
}

void start_requests(const RoutineId &routine, int count, const MPI_Request *reqs) noexcept {
  if (count <= 0 || reqs == nullptr)
    return;
  const unsigned bits = g.record.load(std::memory_order_acquire);
  if (bits == 0)
    return;
  const unsigned origin = origin_of(routine);
  Requests &r = requests();
  std::shared_lock<std::shared_mutex> guard(r.lock);
  for (int i = 0; i < count; ++i) {
    auto it = r.plans.find(handle_key(reqs[i]));
    if (it == r.plans.end())
      continue;
    const Plan &plan = it->second;
    if (!(bits & (plan.kind == kP2P ? kRecordP2P : kRecordColl)))
      continue;
    apply(plan, origin);
  }
}

void forget_request(MPI_Request request) noexcept {
  Requests &r = requests();
  std::unique_lock<std::shared_mutex> guard(r.lock);
  auto it = r.plans.find(handle_key(request));
  if (it == r.plans.end())
    return;
  track_free(plan_bytes(it->second));
  r.plans.erase(it);
  g_plans.fetch_sub(1, std::memory_order_relaxed);
}

// ---- life cycle ---------------------------------------------------------------------------

/// Stops the job at MPI_Init if this rank cannot write its files where they go: finding out
/// at MPI_Finalize would lose the whole run. The rank says why and ends the job itself, with
/// no collective: the monitor's own traffic would show in the counts of a monitoring layer
/// below it (Open MPI's), and its message is out before its abort.
/// A site module instead steps aside (false) and the job goes on.
static bool stop_if_output_unwritable() noexcept {
  std::string problem;
  try {
    problem = output_directory_problem();
  } catch (...) {
    problem = "out of memory while checking the output directory";
  }
  if (problem.empty())
    return true;
  if (g.site) {
    report_error(problem + " (checked at MPI_Init, before the application runs)");
    return false;
  }
  report_output_problem(problem + " (checked at MPI_Init, before the application runs)");
  pnmpi_abort_job(nullptr); // the message is out: the core's job ender
}

/// A site module is silent by default: nothing in the job's output or its working
/// directory. The site's configuration may still ask for files or the summary (docs/site.md).
static void apply_site_defaults() noexcept {
  if (!g.options.files_given)
    g.options.per_rank = g.options.gathered = false;
  if (!g.options.summary_given)
    g.options.summary = false;
}

void on_initialized() noexcept {
  if (g.world_size != 0 || g_disabled)
    return;
  PMPI_Comm_size(MPI_COMM_WORLD, &g.world_size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
  PMPI_Query_thread(&g.thread_level);
  if (!stop_if_output_unwritable()) {
    g.world_size = 0; // a site module that stepped aside: nothing recorded, nothing written
    g_disabled = true;
    return;
  }
  // The application's counters in the part file from here on. A site module that cannot
  // make it has said so through the site policy and steps aside.
  if (!part_open() && g.site) {
    g.world_size = 0;
    g_disabled = true;
    return;
  }
  g.peers.set_node_source(
      [](std::uintptr_t key) noexcept { return part_peer(static_cast<int>(key) - 1); });
  g.atomic_updates = g.thread_level == MPI_THREAD_MULTIPLE;
  PMPI_Comm_group(MPI_COMM_WORLD, &g.world_group);
  pnmpi_type_table_fill(g_types);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_deleted, &g.comm_keyval, nullptr);
  PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_deleted, &g.win_keyval, nullptr);
  // MPI_COMM_WORLD is always reported, like Open MPI does.
  if (CommInfo *world = comm_info(MPI_COMM_WORLD))
    stats_of(world, MPI_COMM_WORLD);
  g.record.store(g.options.record, std::memory_order_release);
  register_record_source(); // the job record's traffic (record_source.cpp)
}

void on_finalize() noexcept {
  static std::atomic<bool> done{false};
  if (done.exchange(true) || g.world_size == 0)
    return;
  g.record.store(0, std::memory_order_release);
  sessions_at_finalize();
  if (!write_outputs())
    pnmpi_fail_at_exit(); // exit status 1 at the very end of exit() (support library)
  part_finalized();
}

} // namespace pnmpi::monitor

using namespace pnmpi::monitor;

extern "C" {

PNMPI_MODULE_ARGUMENTS(PNMPI_MONITOR_ARGUMENT_KEYS);

/// The options (read_options, the job's own reader) and the output directory the job would
/// check at MPI_Init, as every rank would: pnmpi-info --check runs this.
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  const Lookup environment = [](const char *name) -> const char * { return std::getenv(name); };
  g.self = self;
  g.site = pnmpi_module_is_site(self) == 1;
  std::string error;
  if (!read_options(self, environment, g.options, error)) {
    if (!error.empty()) // else the core has printed it
      report_error(error);
    return PNMPI_BADARG;
  }
  if (g.site)
    apply_site_defaults();
  std::string problem;
  try {
    problem = output_directory_problem(true);
  } catch (...) {
    problem = "out of memory while checking the output directory";
  }
  if (problem.empty())
    return PNMPI_SUCCESS;
  report_output_problem(problem);
  return PNMPI_BADARG;
}

PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
  PNMPI_modHandle_t self = PNMPI_MODHANDLE_NULL;
  PNMPI_Service_GetModuleSelf(&self); // on failure the readers say PNMPI_NOMODULE
  const Lookup environment = [](const char *name) -> const char * { return std::getenv(name); };
  g.self = self;
  g.site = pnmpi_module_is_site(self) == 1;
  std::string error;
  // The reader pnmpi_module_check() runs for pnmpi-info --check, with the site policy here.
  if (!read_options(self, environment, g.options, error)) {
    // A site module's bad argument went through the site policy already (error empty).
    if (g.site &&
        pnmpi_site_failure(self, error.empty() ? nullptr : error.c_str()) == PNMPI_SUCCESS) {
      g_disabled = true;
      return;
    }
    if (!error.empty()) // else the core has printed it
      report_error(error);
    _exit(1);
  }
  if (g.site) {
    apply_site_defaults();
    // Checked here, the same on every rank, so that the site policy says it once and every
    // rank steps aside alike (the gathered file is collective).
    std::string problem;
    try {
      problem = output_directory_problem();
    } catch (...) {
      problem = "out of memory while checking the output directory";
    }
    if (!problem.empty() && pnmpi_site_failure(self, problem.c_str()) == PNMPI_SUCCESS) {
      g_disabled = true;
      return;
    }
  }
  RoutineId::resolve_all();
  register_sessions_service();
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  part_init_begin();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    on_initialized();
  return rc;
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  part_init_begin();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    on_initialized();
  return rc;
}

PNMPI_EXPORT int MPI_Finalize(void) {
  on_finalize();
  return PMPI_Finalize();
}

PNMPI_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  part_abort(errorcode); // the part file says so, with or without the profile
  return PMPI_Abort(comm, errorcode);
}

} // extern "C"

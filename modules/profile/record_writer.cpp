// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The profile's part-file region and the job record (docs/record.md): every rank sums its
// threads' counters, rank 0 gathers them and writes pnmpi-JOB.record.npz. The layout of
// the record is tools/report/pnmpi_report/record.py's; change both together.
#include "record_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <tuple>
#include <type_traits>
#include <vector>

namespace pnmpi::profile {

namespace {

void take_traffic(void *context, const pnmpi_record_data_t *d) {
  auto &t = *static_cast<Traffic *>(context);
  t.peer.assign(d->p2p_peer, d->p2p_peer + d->p2p_n);
  t.bytes.assign(d->p2p_bytes, d->p2p_bytes + d->p2p_n);
  t.count.assign(d->p2p_count, d->p2p_count + d->p2p_n);
  t.key.assign(d->comm_key, d->comm_key + d->comm_n);
  t.cbytes.assign(d->comm_bytes, d->comm_bytes + d->comm_n);
  t.ccount.assign(d->comm_count, d->comm_count + d->comm_n);
  t.first.assign(d->comm_first, d->comm_first + d->comm_n);
  t.members.assign(d->members, d->members + d->members_n);
}

template <class T> void put(std::vector<char> &out, const std::vector<T> &v) {
  const char *p = reinterpret_cast<const char *>(v.data());
  out.insert(out.end(), p, p + v.size() * sizeof(T));
}

} // namespace

std::vector<char> serialise(const Traffic &t) {
  std::vector<char> out;
  const uint64_t n[3] = {t.peer.size(), t.key.size(), t.members.size()};
  out.insert(out.end(), reinterpret_cast<const char *>(n), reinterpret_cast<const char *>(n + 3));
  put(out, t.peer);
  put(out, t.bytes);
  put(out, t.count);
  put(out, t.key);
  put(out, t.cbytes);
  put(out, t.ccount);
  put(out, t.first);
  put(out, t.members);
  return out;
}

namespace {

/// Reads what serialise() wrote from [p, end); false if it does not fit.
bool deserialise(const char *&p, const char *end, Traffic &t) {
  uint64_t n[3];
  if (end - p < static_cast<long>(sizeof n))
    return false;
  std::memcpy(n, p, sizeof n);
  p += sizeof n;
  auto get = [&](auto &v, uint64_t count) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if (count > static_cast<uint64_t>(end - p) / sizeof(T))
      return false;
    v.resize(count);
    std::memcpy(v.data(), p, count * sizeof(T));
    p += count * sizeof(T);
    return true;
  };
  return get(t.peer, n[0]) && get(t.bytes, n[0]) && get(t.count, n[0]) && get(t.key, n[1]) &&
         get(t.cbytes, n[1]) && get(t.ccount, n[1]) && get(t.first, n[1]) && get(t.members, n[2]);
}

/// One (routine, communicator size, bin) of a rank's split, the application's calls.
struct SplitEntry {
  uint32_t id, comm_size, bin, pad;
  uint64_t calls, bytes;
  double time_s;
};

constexpr int kTimeBits = 12; // record.py TIME_BITS
constexpr int kWallBits = 16; // record.py WALL_BITS

bool excluded_from_mpi_time(int id) {
  const char *n = profile_routine_names[id];
  return std::strcmp(n, "MPI_Init") == 0 || std::strcmp(n, "MPI_Init_thread") == 0 ||
         std::strcmp(n, "MPI_Finalize") == 0;
}

std::vector<std::string> config_modules() {
  std::string path;
  if (const char *c = std::getenv("PNMPI_CONF"))
    path = c;
  else {
    struct stat st;
    if (stat(".pnmpi-conf", &st) == 0)
      path = ".pnmpi-conf";
    else if (const char *home = std::getenv("HOME"))
      path = std::string(home) + "/.pnmpi-conf";
  }
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, name;
    if (words >> key >> name && key == "module")
      out.push_back(name);
  }
  return out;
}

std::string mpi_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  PMPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(std::max(0, std::min(len, 200))));
  s = s.substr(0, std::min(s.size(), s.find_first_of("\r\n,")));
  // One line of printable text: MPICH separates its fields with tabs.
  std::string out;
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  return out;
}

template <class T>
int add(pnmpi_npz_t *z, const char *name, const char *descr, const std::vector<T> &v,
        uint64_t rows = 0) {
  uint64_t shape[2] = {rows ? rows : v.size(), rows ? v.size() / rows : 0};
  return pnmpi_npz_add(z, name, descr, rows ? 2 : 1, shape, rows ? 1 : 0, v.data(),
                       v.size() * sizeof(T));
}

} // namespace

int write_record(const std::vector<char> &all, const std::vector<int> &offsets, int size,
                 const std::string &path) {
  const pnmpi_part_header_t *h = pnmpi_part_header();
  std::vector<const RankHead *> heads(static_cast<size_t>(size));
  std::map<uint32_t, int> column; // routine id -> column, in id (= name) order
  for (int r = 0; r < size; ++r) {
    heads[r] = reinterpret_cast<const RankHead *>(all.data() + offsets[r]);
    const Entry *e = reinterpret_cast<const Entry *>(heads[r] + 1);
    for (uint32_t k = 0; k < heads[r]->entries; ++k)
      column[e[k].id] = 0;
  }
  int f = 0;
  std::vector<uint32_t> ids;
  for (auto &c : column) {
    c.second = f++;
    ids.push_back(c.first);
  }
  const size_t R = static_cast<size_t>(size), F = ids.size();
  std::vector<uint64_t> calls(R * F), bytes(R * F), tcalls(R * F), tbytes(R * F);
  std::vector<float> time(R * F), ttime(R * F), wall(R), mpi(R);
  std::vector<float> min_s(F, 0.0f), max_s(F, 0.0f);
  std::vector<uint32_t> rank_host(R);
  std::vector<uint8_t> state(R, PNMPI_PART_FINALIZED), signal(R, 0);
  std::vector<int32_t> code(R, 0);
  std::vector<std::string> hosts;
  std::map<std::string, uint32_t> host_index;
  uint64_t start = UINT64_MAX, end = 0;
  std::vector<bool> seen(F, false);
  for (size_t r = 0; r < R; ++r) {
    const RankHead &rh = *heads[r];
    std::string host(rh.host, strnlen(rh.host, sizeof rh.host));
    auto it = host_index.find(host);
    if (it == host_index.end()) {
      it = host_index.emplace(host, static_cast<uint32_t>(hosts.size())).first;
      hosts.push_back(host);
    }
    rank_host[r] = it->second;
    wall[r] = pnmpi_round_mantissa(static_cast<float>(rh.wall_s), kWallBits);
    mpi[r] = pnmpi_round_mantissa(static_cast<float>(rh.mpi_s), kWallBits);
    start = std::min(start, rh.init_real_ns);
    end = std::max(end, rh.end_real_ns);
    const Entry *e = reinterpret_cast<const Entry *>(heads[r] + 1);
    for (uint32_t k = 0; k < rh.entries; ++k) {
      const size_t c = static_cast<size_t>(column[e[k].id]);
      const size_t i = c * R + r; // column-major: one routine's ranks side by side
      calls[i] = e[k].calls;
      bytes[i] = e[k].bytes;
      tcalls[i] = e[k].tool_calls;
      tbytes[i] = e[k].tool_bytes;
      time[i] = pnmpi_round_mantissa(static_cast<float>(e[k].time_s), kTimeBits);
      ttime[i] = pnmpi_round_mantissa(static_cast<float>(e[k].tool_time_s), kTimeBits);
      if (e[k].calls > 0) {
        const float lo = static_cast<float>(e[k].min_s), hi = static_cast<float>(e[k].max_s);
        min_s[c] = seen[c] ? std::min(min_s[c], lo) : lo;
        max_s[c] = seen[c] ? std::max(max_s[c], hi) : hi;
        seen[c] = true;
      }
    }
  }
  for (size_t c = 0; c < F; ++c) {
    min_s[c] = pnmpi_round_mantissa(min_s[c], kTimeBits);
    max_s[c] = pnmpi_round_mantissa(max_s[c], kTimeBits);
  }

  // The monitor's traffic, when a rank handed some (RankHead::pad == 1).
  std::vector<uint64_t> p2p_offsets(R + 1, 0), p2p_bytes, p2p_count, comm_offsets(1, 0);
  std::vector<uint64_t> comm_bytes, comm_count;
  std::vector<int32_t> p2p_delta, comm_delta;
  std::vector<std::string> comm_names;
  std::vector<Traffic> traffic(R);
  std::vector<uint32_t> split_rank, split_routine, split_comm;
  std::vector<uint8_t> split_bin;
  std::vector<uint64_t> split_calls, split_bytes;
  std::vector<float> split_time;
  for (size_t r = 0; r < R; ++r) {
    const char *p =
        reinterpret_cast<const char *>(heads[r] + 1) + heads[r]->entries * sizeof(Entry);
    const char *end =
        all.data() + offsets[r] +
        (r + 1 < R ? offsets[r + 1] - offsets[r] : static_cast<int>(all.size()) - offsets[r]);
    if ((heads[r]->pad & 1u) && !deserialise(p, end, traffic[r])) {
      traffic[r] = Traffic{};
      continue;
    }
    uint64_t n = 0;
    if (!(heads[r]->pad & 2u) || end - p < static_cast<long>(sizeof n))
      continue;
    std::memcpy(&n, p, sizeof n);
    p += sizeof n;
    if (n > static_cast<uint64_t>(end - p) / sizeof(SplitEntry))
      continue;
    for (uint64_t k = 0; k < n; ++k) {
      SplitEntry e;
      std::memcpy(&e, p + k * sizeof e, sizeof e);
      auto c = column.find(e.id);
      if (c == column.end())
        continue;
      split_rank.push_back(static_cast<uint32_t>(r));
      split_routine.push_back(static_cast<uint32_t>(c->second));
      split_comm.push_back(e.comm_size);
      split_bin.push_back(static_cast<uint8_t>(e.bin));
      split_calls.push_back(e.calls);
      split_bytes.push_back(e.bytes);
      split_time.push_back(pnmpi_round_mantissa(static_cast<float>(e.time_s), kTimeBits));
    }
  }
  std::vector<int32_t> members;
  std::map<uint64_t, size_t> comm_of; // group key -> communicator
  std::vector<std::map<int32_t, size_t>> position;
  for (size_t r = 0; r < R; ++r) {
    Traffic &t = traffic[r];
    std::vector<size_t> order(t.peer.size());
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return t.peer[a] < t.peer[b]; });
    for (size_t k : order) {
      if (t.peer[k] < 0 || t.peer[k] >= size)
        continue;
      p2p_delta.push_back(t.peer[k] - static_cast<int32_t>(r));
      p2p_bytes.push_back(t.bytes[k]);
      p2p_count.push_back(t.count[k]);
    }
    p2p_offsets[r + 1] = p2p_delta.size();
    size_t at = 0;
    for (size_t c = 0; c < t.key.size(); ++c) {
      if (!t.first[c])
        continue;
      if (at >= t.members.size())
        break;
      const size_t n = static_cast<size_t>(std::max(0, t.members[at]));
      if (n > t.members.size() - at - 1)
        break;
      if (comm_of.emplace(t.key[c], comm_offsets.size() - 1).second) {
        bool world = n == R;
        position.emplace_back();
        for (size_t k = 0; k < n; ++k) {
          const int32_t w = t.members[at + 1 + k];
          world = world && w == static_cast<int32_t>(k);
          position.back().emplace(w, members.size());
          members.push_back(w);
        }
        comm_offsets.push_back(members.size());
        comm_names.push_back(world ? "MPI_COMM_WORLD"
                                   : "group " + std::to_string(comm_names.size()) + " (" +
                                         std::to_string(n) + " ranks)");
      }
      at += n + 1;
    }
  }
  comm_bytes.assign(members.size(), 0);
  comm_count.assign(members.size(), 0);
  for (size_t r = 0; r < R; ++r) {
    const Traffic &t = traffic[r];
    for (size_t c = 0; c < t.key.size(); ++c) {
      auto it = comm_of.find(t.key[c]);
      if (it == comm_of.end())
        continue;
      auto pos = position[it->second].find(static_cast<int32_t>(r));
      if (pos == position[it->second].end())
        continue;
      comm_bytes[pos->second] += t.cbytes[c];
      comm_count[pos->second] += t.ccount[c];
    }
  }
  int32_t previous = 0;
  for (int32_t w : members) {
    comm_delta.push_back(w - previous);
    previous = w;
  }

  char hash[96] = "";
  const std::string job = h != nullptr ? h->job_id : pnmpi_job_id();
  const std::string user = h != nullptr ? h->user : "";
  const std::string exe = h != nullptr ? h->executable : "";
  if (exe.empty() || pnmpi_file_hash(exe.c_str(), hash, sizeof hash) != 0)
    hash[0] = '\0';
  std::ostringstream m;
  m.precision(17);
  m << "{\"format\": \"pnmpi-record\", \"version\": 1, \"job_id\": " << support::json_string(job)
    << ", \"user\": " << support::json_string(user)
    << ", \"executable\": " << support::json_string(exe)
    << ", \"executable_hash\": " << support::json_string(hash) << ", \"start\": " << start / 1e9
    << ", \"end\": " << end / 1e9 << ", \"ranks\": " << size << ", \"hosts\": [";
  for (size_t k = 0; k < hosts.size(); ++k)
    m << (k ? ", " : "") << support::json_string(hosts[k]);
  m << "], \"modules\": [";
  const std::vector<std::string> modules = config_modules();
  for (size_t k = 0; k < modules.size(); ++k)
    m << (k ? ", " : "") << support::json_string(modules[k]);
  m << "], \"pnmpi_version\": " << support::json_string(PNMPI_VERSION)
    << ", \"mpi\": " << support::json_string(mpi_version())
    << ", \"ended\": \"finalized\", \"routines\": [";
  for (size_t k = 0; k < F; ++k)
    m << (k ? ", " : "") << support::json_string(profile_routine_names[ids[k]]);
  m << "], \"comm_names\": [";
  for (size_t k = 0; k < comm_names.size(); ++k)
    m << (k ? ", " : "") << support::json_string(comm_names[k]);
  m << "]}";
  const std::string meta = m.str();

  pnmpi_npz_t *z = pnmpi_npz_new();
  if (z == nullptr)
    return ENOMEM;
  const std::vector<uint8_t> meta_bytes(meta.begin(), meta.end());
  int rc = 0;
  rc = rc ? rc : add(z, "meta", "|u1", meta_bytes);
  rc = rc ? rc : add(z, "rank_host", "<u4", rank_host);
  rc = rc ? rc : add(z, "rank_state", "|u1", state);
  rc = rc ? rc : add(z, "rank_signal", "|u1", signal);
  rc = rc ? rc : add(z, "rank_code", "<i4", code);
  rc = rc ? rc : add(z, "wall_s", "<f4", wall);
  rc = rc ? rc : add(z, "mpi_s", "<f4", mpi);
  rc = rc ? rc : add(z, "calls", "<u8", calls, R);
  rc = rc ? rc : add(z, "time_s", "<f4", time, R);
  rc = rc ? rc : add(z, "bytes", "<u8", bytes, R);
  rc = rc ? rc : add(z, "tool_calls", "<u8", tcalls, R);
  rc = rc ? rc : add(z, "tool_time_s", "<f4", ttime, R);
  rc = rc ? rc : add(z, "tool_bytes", "<u8", tbytes, R);
  rc = rc ? rc : add(z, "min_s", "<f4", min_s);
  rc = rc ? rc : add(z, "max_s", "<f4", max_s);
  // The point-to-point matrix and the collectives: the monitor's (empty without it).
  rc = rc ? rc : add(z, "p2p_offsets", "<u8", p2p_offsets);
  rc = rc ? rc : add(z, "p2p_delta", "<i4", p2p_delta);
  rc = rc ? rc : add(z, "p2p_bytes", "<u8", p2p_bytes);
  rc = rc ? rc : add(z, "p2p_count", "<u8", p2p_count);
  rc = rc ? rc : add(z, "comm_offsets", "<u8", comm_offsets);
  rc = rc ? rc : add(z, "comm_delta", "<i4", comm_delta);
  rc = rc ? rc : add(z, "comm_bytes", "<u8", comm_bytes);
  rc = rc ? rc : add(z, "comm_count", "<u8", comm_count);
  rc = rc ? rc : add(z, "split_rank", "<u4", split_rank);
  rc = rc ? rc : add(z, "split_routine", "<u4", split_routine);
  rc = rc ? rc : add(z, "split_comm_size", "<u4", split_comm);
  rc = rc ? rc : add(z, "split_bin", "|u1", split_bin);
  rc = rc ? rc : add(z, "split_calls", "<u8", split_calls);
  rc = rc ? rc : add(z, "split_time_s", "<f4", split_time);
  rc = rc ? rc : add(z, "split_bytes", "<u8", split_bytes);
  rc = rc ? rc : pnmpi_npz_write(z, path.c_str());
  pnmpi_npz_free(z);
  return rc;
}

int mkdir_one(const char *path) {
  if (mkdir(path, 0777) == 0 || errno == EEXIST)
    return 0;
  return -1;
}

Region *open_region() {
  const uint64_t names = 128;
  const uint64_t cells = (names + uint64_t{PNMPI_NUM_ROUTINES} * kNameBytes + 4095) / 4096 * 4096;
  const uint64_t bytes =
      cells + uint64_t{kMaxThreads} * 2u * PNMPI_NUM_ROUTINES * sizeof(profile_cell_t);
  auto *r = static_cast<Region *>(pnmpi_part_region("profile", bytes, kRegionVersion));
  if (r == nullptr)
    return nullptr;
  r->routines = PNMPI_NUM_ROUTINES;
  r->max_threads = kMaxThreads;
  r->name_bytes = kNameBytes;
  r->names_offset = names;
  r->cells_offset = cells;
  char *n = reinterpret_cast<char *>(r) + names;
  for (int k = 0; k < PNMPI_NUM_ROUTINES; ++k)
    std::snprintf(n + static_cast<size_t>(k) * kNameBytes, kNameBytes, "%s",
                  profile_routine_names[k]);
  return r;
}

SplitRegion *open_split_region() {
  const uint64_t bytes =
      sizeof(SplitRegion) + uint64_t{kMaxThreads} * kSplitSlots * sizeof(SplitSlot);
  auto *s = static_cast<SplitRegion *>(pnmpi_part_region("profile_split", bytes, 1));
  if (s == nullptr)
    return nullptr;
  s->slots = kSplitSlots;
  s->max_threads = kMaxThreads;
  s->slot_bytes = sizeof(SplitSlot);
  s->slots_offset = sizeof(SplitRegion);
  return s;
}

void write_job_record() {
  Region *region = g_region;
  const pnmpi_part_header_t *h = pnmpi_part_header();
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> mine(sizeof(RankHead));
  if (region != nullptr && h != nullptr) {
    const double span = static_cast<double>(h->end_mono_ns - h->init_mono_ns);
    const double per_ns =
        span > 1e6 ? static_cast<double>(h->end_tick - h->init_tick) / span : h->ticks_per_ns;
    const double s_per_tick = per_ns > 0 ? 1e-9 / per_ns : 1e-9;
    const uint32_t threads = std::min(region->threads, region->max_threads);
    RankHead rh{};
    rh.wall_s = span / 1e9;
    rh.init_real_ns = h->init_real_ns;
    rh.end_real_ns = h->end_real_ns;
    std::snprintf(rh.host, sizeof rh.host, "%s", h->host);
    std::vector<Entry> entries;
    for (int id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
      profile_cell_t app{}, tool{};
      bool first = true;
      for (uint32_t t = 0; t < threads; ++t) {
        const profile_cell_t *c = region_cells(region, t);
        const profile_cell_t &a = c[id], &b = c[PNMPI_NUM_ROUTINES + id];
        if (a.calls > 0) {
          app.min = first ? a.min : std::min(app.min, a.min);
          app.max = std::max(app.max, a.max);
          first = false;
        }
        app.calls += a.calls;
        app.ticks += a.ticks;
        app.bytes += a.bytes;
        tool.calls += b.calls;
        tool.ticks += b.ticks;
        tool.bytes += b.bytes;
      }
      if (app.calls == 0 && tool.calls == 0)
        continue;
      Entry e{};
      e.id = static_cast<uint32_t>(id);
      e.calls = app.calls;
      e.bytes = app.bytes;
      e.tool_calls = tool.calls;
      e.tool_bytes = tool.bytes;
      e.time_s = static_cast<double>(app.ticks) * s_per_tick;
      e.tool_time_s = static_cast<double>(tool.ticks) * s_per_tick;
      e.min_s = static_cast<double>(app.min) * s_per_tick;
      e.max_s = static_cast<double>(app.max) * s_per_tick;
      if (!excluded_from_mpi_time(id))
        rh.mpi_s += e.time_s;
      entries.push_back(e);
    }
    rh.entries = static_cast<uint32_t>(entries.size());
    Traffic traffic;
    rh.pad = (pnmpi_record_collect(take_traffic, &traffic) ? 1u : 0u) | (g_split ? 2u : 0u);
    mine.resize(sizeof rh + entries.size() * sizeof(Entry));
    std::memcpy(mine.data(), &rh, sizeof rh);
    if (!entries.empty())
      std::memcpy(mine.data() + sizeof rh, entries.data(), entries.size() * sizeof(Entry));
    if (rh.pad & 1u) {
      const std::vector<char> more = serialise(traffic);
      mine.insert(mine.end(), more.begin(), more.end());
    }
    if (g_split != nullptr) {
      std::map<std::tuple<uint32_t, uint32_t, uint32_t>, SplitEntry> sum;
      for (uint32_t t = 0; t < threads; ++t) {
        const SplitSlot *slot = split_slots(g_split, t);
        for (uint32_t k = 0; k < g_split->slots; ++k) {
          const SplitSlot &x = slot[k];
          if (x.routine_plus1 == 0 || !x.app)
            continue;
          SplitEntry &e = sum[{x.routine_plus1 - 1, x.comm_size, x.bin}];
          e.id = x.routine_plus1 - 1;
          e.comm_size = x.comm_size;
          e.bin = x.bin;
          e.calls += x.calls;
          e.bytes += x.bytes;
          e.time_s += static_cast<double>(x.ticks) * s_per_tick;
        }
      }
      const uint64_t n = sum.size();
      const char *np = reinterpret_cast<const char *>(&n);
      mine.insert(mine.end(), np, np + sizeof n);
      for (const auto &kv : sum) {
        const char *ep = reinterpret_cast<const char *>(&kv.second);
        mine.insert(mine.end(), ep, ep + sizeof(SplitEntry));
      }
    }
    mine.resize((mine.size() + 7) / 8 * 8); // the next rank's packet stays aligned
  }
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? static_cast<size_t>(size) : 0);
  PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets;
  std::vector<char> all;
  if (rank == 0) {
    offsets.resize(static_cast<size_t>(size));
    long total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = static_cast<int>(total);
      total += lens[r];
    }
    all.resize(static_cast<size_t>(total));
  }
  PMPI_Gatherv(mine.data(), len, MPI_BYTE, all.data(), lens.data(), offsets.data(), MPI_BYTE, 0,
               MPI_COMM_WORLD);
  int ok = 0;
  if (rank == 0) {
    bool complete = h != nullptr;
    for (int r = 0; r < size && complete; ++r)
      complete = lens[r] >= static_cast<int>(sizeof(RankHead));
    char job[160];
    pnmpi_file_name(h != nullptr ? h->job_id : pnmpi_job_id(), job, sizeof job);
    const std::string path = record_path(job);
    // A site's record is read by its owner and the admins' group only (docs/site.md).
    const mode_t mask = g_site ? umask(027) : 0;
    const int rc = path.empty() ? -1 : complete ? write_record(all, offsets, size, path) : ENOENT;
    if (g_site)
      umask(mask);
    if (rc > 0)
      report_failure("cannot write the job record " + path + ": " + std::strerror(rc) +
                     (complete ? "" : " (a rank has no part file); the part files stay"));
    ok = rc == 0;
  }
  PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok)
    pnmpi_part_remove();
}

} // namespace pnmpi::profile

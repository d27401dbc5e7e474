// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// MPI_Finalize: every rank turns its records into OTF2 events, one location per thread, and
// rank 0 writes the global definitions. Communicators, windows and files are made global
// here (they have no global names while the job runs, and naming them then would cost a
// collective per creation):
//   - a communicator is known by the world ranks of its group and by how many earlier
//     communicators this rank saw with the same group (ranks create communicators over one
//     group collectively, so in the same order); windows the same way;
//   - a file by its path; an I/O handle (one MPI_File_open) per rank.
// Timestamps are moved onto rank 0's clock, by the offsets measured at MPI_Init and at
// MPI_Finalize, interpolated linearly in between: the archive's times are aligned already
// and it holds no clock offset definitions.

#include "trace.h"

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <map>
#include <unistd.h>

namespace pnmpi::trace {

namespace {

// ---- byte streams for the definitions exchanged with rank 0 -----------------------------------

struct Out {
  std::string bytes;
  void u64(std::uint64_t v) { bytes.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void str(const std::string &s) {
    u64(s.size());
    bytes += s;
  }
  void ints(const std::vector<int> &v) {
    u64(v.size());
    for (int i : v)
      u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(i)));
  }
};

struct In {
  const std::string &bytes;
  std::size_t at = 0;
  std::uint64_t u64() {
    std::uint64_t v = 0;
    if (at + sizeof v <= bytes.size())
      std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    std::string s = at + n <= bytes.size() ? bytes.substr(at, n) : std::string();
    at += n;
    return s;
  }
  std::vector<int> ints() {
    std::vector<int> v(u64());
    for (int &i : v)
      i = static_cast<int>(static_cast<std::int64_t>(u64()));
    return v;
  }
};

/// Root receives every rank's bytes.
std::vector<std::string> gather(const std::string &mine) {
  int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(g.size)), displs(sizes.size());
  PMPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, g.comm);
  int total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    displs[r] = total;
    total += sizes[r];
  }
  std::string all(g.rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  PMPI_Gatherv(mine.data(), n, MPI_BYTE, &all[0], sizes.data(), displs.data(), MPI_BYTE, 0, g.comm);
  std::vector<std::string> out;
  if (g.rank == 0)
    for (std::size_t r = 0; r < sizes.size(); ++r)
      out.push_back(
          all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(sizes[r])));
  return out;
}

/// Every rank receives its own bytes from root.
std::string scatter(const std::vector<std::string> &parts) {
  std::vector<int> sizes(static_cast<std::size_t>(g.size)), displs(sizes.size());
  std::string all;
  if (g.rank == 0)
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      displs[r] = static_cast<int>(all.size());
      sizes[r] = static_cast<int>(parts[r].size());
      all += parts[r];
    }
  int n = 0;
  PMPI_Scatter(sizes.data(), 1, MPI_INT, &n, 1, MPI_INT, 0, g.comm);
  std::string mine(static_cast<std::size_t>(n), '\0');
  PMPI_Scatterv(all.data(), sizes.data(), displs.data(), MPI_BYTE, &mine[0], n, MPI_BYTE, 0,
                g.comm);
  return mine;
}

// ---- finding what a handle named at a given time ---------------------------------------------

/// handle -> (creation time, index) in creation order.
template <class Entry>
std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::size_t>>>
index_of(const std::vector<Entry> &list) {
  std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::size_t>>> m;
  for (std::size_t i = 0; i < list.size(); ++i)
    m[list[i].handle].emplace_back(list[i].created, i);
  for (auto &kv : m)
    std::stable_sort(kv.second.begin(), kv.second.end());
  return m;
}

/// The entry `handle` named at raw time t: the last one created at or before t; -1 if none.
long lookup(
    const std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::size_t>>> &m,
    std::uint64_t handle, std::uint64_t t) {
  auto it = m.find(handle);
  if (it == m.end())
    return -1;
  long found = -1;
  for (const auto &e : it->second)
    if (e.first <= t)
      found = static_cast<long>(e.second);
  return found;
}

// ---- the definitions rank 0 writes ----------------------------------------------------------

constexpr OTF2_AttributeRef kAttrOrigin = 0;
constexpr OTF2_AttributeRef kAttrOffset = 1;
constexpr OTF2_AttributeRef kAttrDisplacement = 2;
constexpr OTF2_AttributeRef kAttrEtype = 3;
constexpr OTF2_AttributeRef kAttrFiletype = 4;
constexpr OTF2_IoParadigmRef kMpiIo = 0;

OTF2_LocationRef location_id(int rank, std::uint32_t thread) {
  return (static_cast<OTF2_LocationRef>(thread) << 32) | static_cast<std::uint32_t>(rank);
}

OTF2_CollectiveOp collective_op(Routine r) {
  return static_cast<OTF2_CollectiveOp>(kRoutines[r].otf2_op);
}

class Strings {
public:
  OTF2_StringRef operator()(const std::string &s) {
    auto it = m_ids.find(s);
    if (it != m_ids.end())
      return it->second;
    const auto id = static_cast<OTF2_StringRef>(m_list.size());
    m_list.push_back(s);
    m_ids.emplace(s, id);
    return id;
  }
  void write(OTF2_GlobalDefWriter *w) const {
    for (std::size_t i = 0; i < m_list.size(); ++i)
      OTF2_GlobalDefWriter_WriteString(w, static_cast<OTF2_StringRef>(i), m_list[i].c_str());
  }

private:
  std::vector<std::string> m_list;
  std::map<std::string, OTF2_StringRef> m_ids;
};

/// What rank 0 learns from every rank.
struct RankDefs {
  std::vector<std::pair<std::vector<int>, int>> comms; ///< world ranks, ordinal
  std::vector<std::pair<std::vector<int>, int>> wins;
  std::vector<long> win_comm; ///< local comm index or -1
  std::vector<std::string> file_paths;
  std::vector<long> file_comm;
  std::vector<std::uint64_t> events; ///< per thread
  std::uint64_t dropped = 0, flushes = 0, unknown = 0;
};

struct GlobalIds {
  std::vector<std::uint64_t> comm, win, handle;
};

/// Rank 0: gives every distinct communicator, window, file and handle a global id.
struct Unifier {
  std::map<std::pair<std::vector<int>, int>, std::uint32_t> comm_ids, win_ids;
  std::vector<std::vector<int>> comm_world;
  std::vector<std::pair<std::vector<int>, int>> comm_keys;
  std::vector<std::uint32_t> win_comm; ///< global comm of each window
  std::map<std::string, std::uint32_t> file_ids;
  std::vector<std::string> file_paths;
  struct Handle {
    std::uint32_t file;
    std::uint64_t comm;
  };
  std::vector<Handle> handles;

  GlobalIds add(const RankDefs &d) {
    GlobalIds ids;
    for (const auto &key : d.comms) {
      auto ins = comm_ids.emplace(key, static_cast<std::uint32_t>(comm_world.size()));
      if (ins.second) {
        comm_world.push_back(key.first);
        comm_keys.push_back(key);
      }
      ids.comm.push_back(ins.first->second);
    }
    for (std::size_t i = 0; i < d.wins.size(); ++i) {
      auto ins = win_ids.emplace(d.wins[i], static_cast<std::uint32_t>(win_comm.size()));
      if (ins.second) {
        const long c = d.win_comm[i];
        win_comm.push_back(c >= 0
                               ? static_cast<std::uint32_t>(ids.comm[static_cast<std::size_t>(c)])
                               : OTF2_UNDEFINED_COMM);
      }
      ids.win.push_back(ins.first->second);
    }
    for (std::size_t i = 0; i < d.file_paths.size(); ++i) {
      auto ins = file_ids.emplace(d.file_paths[i], static_cast<std::uint32_t>(file_paths.size()));
      if (ins.second)
        file_paths.push_back(d.file_paths[i]);
      const long c = d.file_comm[i];
      ids.handle.push_back(handles.size());
      handles.push_back({ins.first->second,
                         c >= 0 ? ids.comm[static_cast<std::size_t>(c)] : OTF2_UNDEFINED_COMM});
    }
    return ids;
  }
};

// ---- events --------------------------------------------------------------------------------

struct Clock {
  double ns_per_tick = 1;
  ClockPair init;
  double slope = 0, base = 0; ///< offset to rank 0's clock: base + slope x (ns - init.ns)
  std::uint64_t last = 0;
  std::uint64_t reordered = 0;
  /// Rank 0's time (ns) of tick t, never before the previous event's.
  std::uint64_t operator()(std::uint64_t t) {
    const double since = (static_cast<double>(t) - static_cast<double>(init.tick)) * ns_per_tick;
    const double ns = static_cast<double>(init.ns) + since;
    double v = ns + base + slope * since;
    std::uint64_t u = v < 0 ? 0 : static_cast<std::uint64_t>(v);
    if (u < last) {
      u = last;
      ++reordered;
    }
    last = u;
    return u;
  }
};

struct Converter {
  OTF2_EvtWriter *w = nullptr;
  OTF2_AttributeList *attrs = nullptr;
  Clock clock;
  const std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::size_t>>>
      *comms, *wins, *files;
  const GlobalIds *ids;
  std::vector<Record> group; ///< the records of the call in progress
  std::vector<Record> flushes;
  std::uint64_t unknown = 0;
  std::uint64_t first = UINT64_MAX, final = 0;

  long comm_of(const Record &r) const { return lookup(*comms, r.object, r.t0); }

  void op(const Record &r) {
    const std::uint64_t t = clock(r.t0);
    first = std::min(first, t);
    switch (r.kind) {
    case kSend:
    case kRecv:
    case kIsend:
    case kIrecv: {
      const long c = comm_of(r);
      if (c < 0) {
        ++unknown;
        return;
      }
      const auto comm = static_cast<OTF2_CommRef>(ids->comm[static_cast<std::size_t>(c)]);
      const auto peer = static_cast<std::uint32_t>(r.peer);
      const auto tag = static_cast<std::uint32_t>(r.tag);
      if (r.kind == kSend)
        OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, comm, tag, r.bytes);
      else if (r.kind == kRecv)
        OTF2_EvtWriter_MpiRecv(w, nullptr, t, peer, comm, tag, r.bytes);
      else if (r.kind == kIsend)
        OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, comm, tag, r.bytes, r.x);
      else
        OTF2_EvtWriter_MpiIrecv(w, nullptr, t, peer, comm, tag, r.bytes, r.x);
      break;
    }
    case kIsendComplete:
      OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, r.x);
      break;
    case kIrecvRequest:
      OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, r.x);
      break;
    case kRequestCancelled:
      OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, r.x);
      break;
    case kNbcRequest:
      OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t, r.x);
      break;
    case kNbcComplete: {
      // The completion carries the communicator; without one the request's completion is
      // not written (its Request stays open) and counted with the other unknown objects.
      const long c = comm_of(r);
      if (c < 0) {
        ++unknown;
        return;
      }
      OTF2_EvtWriter_NonBlockingCollectiveComplete(
          w, nullptr, t, collective_op(static_cast<Routine>(r.routine)),
          static_cast<OTF2_CommRef>(ids->comm[static_cast<std::size_t>(c)]),
          r.peer < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<std::uint32_t>(r.peer), r.bytes,
          r.bytes2, r.x);
      break;
    }
    case kRma: {
      const long wi = lookup(*wins, r.object, r.t0);
      if (wi < 0) {
        ++unknown;
        return;
      }
      const auto win = static_cast<OTF2_RmaWinRef>(ids->win[static_cast<std::size_t>(wi)]);
      const auto peer = static_cast<std::uint32_t>(r.peer);
      if (r.tag == kRmaPut)
        OTF2_EvtWriter_RmaPut(w, nullptr, t, win, peer, r.bytes, r.x);
      else if (r.tag == kRmaGet)
        OTF2_EvtWriter_RmaGet(w, nullptr, t, win, peer, r.bytes, r.x);
      else
        OTF2_EvtWriter_RmaAtomic(w, nullptr, t, win, peer, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, r.bytes,
                                 r.bytes2, r.x);
      OTF2_EvtWriter_RmaOpCompleteBlocking(w, nullptr, t, win, r.x);
      break;
    }
    case kIoCreate:
    case kIoDestroy:
    case kIoBegin:
    case kIoIssued:
    case kIoComplete:
    case kIoView: {
      const long f = lookup(*files, r.object, r.t0);
      if (f < 0) {
        ++unknown;
        return;
      }
      const auto h = static_cast<OTF2_IoHandleRef>(ids->handle[static_cast<std::size_t>(f)]);
      if (r.kind == kIoCreate) {
        const int amode = r.peer;
        const OTF2_IoAccessMode mode = (amode & MPI_MODE_RDWR)     ? OTF2_IO_ACCESS_MODE_READ_WRITE
                                       : (amode & MPI_MODE_WRONLY) ? OTF2_IO_ACCESS_MODE_WRITE_ONLY
                                                                   : OTF2_IO_ACCESS_MODE_READ_ONLY;
        OTF2_IoCreationFlag creation = OTF2_IO_CREATION_FLAG_NONE;
        if (amode & MPI_MODE_CREATE)
          creation |= OTF2_IO_CREATION_FLAG_CREATE;
        if (amode & MPI_MODE_EXCL)
          creation |= OTF2_IO_CREATION_FLAG_EXCLUSIVE;
        OTF2_IoStatusFlag status = OTF2_IO_STATUS_FLAG_NONE;
        if (amode & MPI_MODE_APPEND)
          status |= OTF2_IO_STATUS_FLAG_APPEND;
        if (amode & MPI_MODE_DELETE_ON_CLOSE)
          status |= OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE;
        OTF2_EvtWriter_IoCreateHandle(w, nullptr, t, h, mode, creation, status);
      } else if (r.kind == kIoDestroy) {
        OTF2_EvtWriter_IoDestroyHandle(w, nullptr, t, h);
      } else if (r.kind == kIoBegin) {
        OTF2_IoOperationFlag flags = OTF2_IO_OPERATION_FLAG_NONE;
        if (r.flags & kFlagCollectiveIo)
          flags |= OTF2_IO_OPERATION_FLAG_COLLECTIVE;
        if (r.flags & kFlagNonblockingIo)
          flags |= OTF2_IO_OPERATION_FLAG_NON_BLOCKING;
        if (r.bytes2 != kNoOffset)
          OTF2_AttributeList_AddUint64(attrs, kAttrOffset, r.bytes2);
        OTF2_EvtWriter_IoOperationBegin(w, attrs, t, h,
                                        r.peer == kIoWrite ? OTF2_IO_OPERATION_MODE_WRITE
                                                           : OTF2_IO_OPERATION_MODE_READ,
                                        flags, r.bytes, r.x);
      } else if (r.kind == kIoIssued) {
        OTF2_EvtWriter_IoOperationIssued(w, nullptr, t, h, r.x);
      } else if (r.kind == kIoComplete) {
        OTF2_EvtWriter_IoOperationComplete(w, nullptr, t, h, r.bytes2, r.x);
      }
      break;
    }
    default:
      break;
    }
  }

  /// The view records are attributes of the call's Enter.
  void call(const Record &c) {
    const std::uint64_t t0 = clock(c.t0);
    first = std::min(first, t0);
    const auto region = static_cast<OTF2_RegionRef>(c.routine);
    if (c.flags & kFlagTool)
      OTF2_AttributeList_AddUint8(attrs, kAttrOrigin, 1);
    for (const Record &r : group)
      if (r.kind == kIoView) {
        OTF2_AttributeList_AddUint64(attrs, kAttrDisplacement, r.x);
        OTF2_AttributeList_AddUint64(attrs, kAttrEtype, r.bytes);
        OTF2_AttributeList_AddUint64(attrs, kAttrFiletype, r.bytes2);
      }
    OTF2_EvtWriter_Enter(w, attrs, t0, region);
    const auto routine = static_cast<Routine>(c.routine);
    const bool collective = blocking_collective(routine);
    if (collective)
      OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t0);
    Record coll;
    bool have_coll = false;
    for (const Record &r : group) {
      if (r.kind == kCollective) {
        coll = r;
        have_coll = true;
      } else {
        op(r);
      }
    }
    const std::uint64_t t1 = clock(c.t1);
    if (collective) {
      const long ci = have_coll ? lookup(*comms, coll.object, coll.t0) : -1;
      if (ci < 0) {
        // The end of a collective needs its communicator; without one it is not written,
        // and nor is its begin's meaning: count it with the other unknown objects.
        if (have_coll)
          ++unknown;
        OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t1, collective_op(routine), OTF2_UNDEFINED_COMM,
                                        OTF2_UNDEFINED_UINT32, 0, 0);
      } else {
        OTF2_EvtWriter_MpiCollectiveEnd(
            w, nullptr, t1, collective_op(routine),
            static_cast<OTF2_CommRef>(ids->comm[static_cast<std::size_t>(ci)]),
            coll.peer < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<std::uint32_t>(coll.peer),
            coll.bytes, coll.bytes2);
      }
    }
    OTF2_EvtWriter_Leave(w, nullptr, t1, region);
    final = std::max(final, t1);
    group.clear();
    for (const Record &f : flushes) {
      const std::uint64_t a = clock(f.t0), b = clock(f.t1);
      OTF2_EvtWriter_BufferFlush(w, nullptr, a, b);
    }
    flushes.clear();
  }

  void add(const Record &r) {
    if (r.kind == kCall)
      call(r);
    else if (r.kind == kFlush)
      flushes.push_back(r);
    else
      group.push_back(r);
  }

  /// Records left without their call (the buffer filled up in drop mode mid-call).
  void finish() {
    for (const Record &f : flushes)
      OTF2_EvtWriter_BufferFlush(w, nullptr, clock(f.t0), clock(f.t1));
    group.clear();
    flushes.clear();
  }
};

OTF2_FlushType pre_flush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}

// No post-flush callback: OTF2's own flushes while the archive is written at MPI_Finalize are
// not the application's time, and get no BufferFlush record (the trace's flushes during the
// run have theirs).
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, nullptr};

std::string otf2_error(const std::string &what, OTF2_ErrorCode code) {
  return what + ": " + OTF2_Error_GetName(code) + " (" + OTF2_Error_GetDescription(code) + ")";
}

/// Streams one thread's records (spill file, then buffer) through `conv`.
std::string replay(ThreadBuffer *b, Converter &conv) {
  if (b->fd >= 0) {
    const std::string path = g.output + "/raw/rank" + std::to_string(g.rank) + ".thread" +
                             std::to_string(b->index) + ".raw";
    ::close(b->fd);
    b->fd = -1;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return "cannot read back spill file '" + path + "': " + std::strerror(errno);
    std::vector<Record> chunk(4096);
    for (;;) {
      const ssize_t n = ::read(fd, chunk.data(), chunk.size() * sizeof(Record));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof(Record); ++i)
        conv.add(chunk[i]);
    }
    ::close(fd);
    std::remove(path.c_str());
  }
  for (Record *r = b->base; r != nullptr && r < b->pos; ++r)
    conv.add(*r);
  conv.finish();
  return "";
}

const char *comm_name(const std::pair<std::vector<int>, int> &key, int size, std::string &buf,
                      std::size_t index) {
  bool world = key.second == 0 && static_cast<int>(key.first.size()) == size;
  for (std::size_t i = 0; world && i < key.first.size(); ++i)
    world = key.first[i] == static_cast<int>(i);
  if (world)
    return "MPI_COMM_WORLD";
  if (key.second == 0 && key.first.size() == 1 && size > 1)
    return "MPI_COMM_SELF";
  buf = "comm " + std::to_string(index);
  return buf.c_str();
}

void write_global_defs(OTF2_GlobalDefWriter *w, const Unifier &u,
                       const std::vector<RankDefs> &ranks, std::uint64_t first,
                       std::uint64_t last) {
  Strings s;
  std::vector<std::string> host_list;
  std::vector<std::uint32_t> host_of(static_cast<std::size_t>(g.size));
  for (int r = 0; r < g.size; ++r) {
    const std::string &h = hosts()[static_cast<std::size_t>(r)];
    auto it = std::find(host_list.begin(), host_list.end(), h);
    host_of[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(it - host_list.begin());
    if (it == host_list.end())
      host_list.push_back(h);
  }
  // Every string is interned first: OTF2 wants them defined before they are used.
  const OTF2_StringRef empty = s(""), machine = s("machine"), node = s("node"), mpi = s("MPI");
  std::vector<OTF2_StringRef> host_names, rank_names, region_names;
  for (const std::string &h : host_list)
    host_names.push_back(s(h));
  for (int r = 0; r < g.size; ++r)
    rank_names.push_back(s("MPI Rank " + std::to_string(r)));
  for (int r = 0; r < kRoutineCount; ++r)
    region_names.push_back(s(kRoutines[r].name));
  std::vector<std::vector<OTF2_StringRef>> location_names(static_cast<std::size_t>(g.size));
  for (int r = 0; r < g.size; ++r)
    for (std::size_t t = 0; t < ranks[static_cast<std::size_t>(r)].events.size(); ++t)
      location_names[static_cast<std::size_t>(r)].push_back(
          s(t == 0 ? "Master thread" : "Thread " + std::to_string(t)));
  std::vector<OTF2_StringRef> comm_names, file_names, win_names;
  for (std::size_t c = 0; c < u.comm_keys.size(); ++c) {
    std::string buf;
    comm_names.push_back(s(comm_name(u.comm_keys[c], g.size, buf, c)));
  }
  for (std::size_t wi = 0; wi < u.win_comm.size(); ++wi)
    win_names.push_back(s("window " + std::to_string(wi)));
  for (const std::string &p : u.file_paths)
    file_names.push_back(s(p));
  const OTF2_StringRef mpi_io = s("MPI-IO"), mpi_io_name = s("MPI I/O");
  const OTF2_StringRef a_origin = s("pnmpi::origin"),
                       d_origin = s("1: a module above the trace made this call (call origin)");
  const OTF2_StringRef a_offset = s("MPI-IO::offset"),
                       d_offset = s("byte offset in the file of the operation's first byte");
  const OTF2_StringRef a_disp = s("MPI-IO::displacement"), d_disp = s("the view's displacement");
  const OTF2_StringRef a_etype = s("MPI-IO::etype_size"), d_etype = s("bytes in the view's etype");
  const OTF2_StringRef a_ftype = s("MPI-IO::filetype_size"),
                       d_ftype = s("bytes of data in one filetype");
  s.write(w);

  OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000ull, first, last - first + 1,
                                            OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrOrigin, a_origin, d_origin, OTF2_TYPE_UINT8);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrOffset, a_offset, d_offset, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrDisplacement, a_disp, d_disp, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrEtype, a_etype, d_etype, OTF2_TYPE_UINT64);
  OTF2_GlobalDefWriter_WriteAttribute(w, kAttrFiletype, a_ftype, d_ftype, OTF2_TYPE_UINT64);

  OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (std::size_t h = 0; h < host_list.size(); ++h)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, static_cast<OTF2_SystemTreeNodeRef>(h + 1),
                                             host_names[h], node, 0);
  for (int r = 0; r < g.size; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    OTF2_GlobalDefWriter_WriteLocationGroup(w, static_cast<OTF2_LocationGroupRef>(r),
                                            rank_names[ur], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                            host_of[ur] + 1, OTF2_UNDEFINED_LOCATION_GROUP);
    for (std::size_t t = 0; t < ranks[ur].events.size(); ++t)
      OTF2_GlobalDefWriter_WriteLocation(w, location_id(r, static_cast<std::uint32_t>(t)),
                                         location_names[ur][t], OTF2_LOCATION_TYPE_CPU_THREAD,
                                         ranks[ur].events[t],
                                         static_cast<OTF2_LocationGroupRef>(r));
  }
  for (int r = 0; r < kRoutineCount; ++r)
    OTF2_GlobalDefWriter_WriteRegion(
        w, static_cast<OTF2_RegionRef>(r), region_names[static_cast<std::size_t>(r)],
        region_names[static_cast<std::size_t>(r)], empty,
        kRoutines[r].cls == kClassIo ? OTF2_REGION_ROLE_FILE_IO : OTF2_REGION_ROLE_FUNCTION,
        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);

  // Group 0 lists the ranks' master threads; a communicator's group lists world ranks,
  // which index group 0.
  std::vector<std::uint64_t> members;
  for (int r = 0; r < g.size; ++r)
    members.push_back(location_id(r, 0));
  OTF2_GlobalDefWriter_WriteGroup(w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(members.size()),
                                  members.data());
  for (std::size_t c = 0; c < u.comm_world.size(); ++c) {
    std::vector<std::uint64_t> m(u.comm_world[c].begin(), u.comm_world[c].end());
    OTF2_GlobalDefWriter_WriteGroup(
        w, static_cast<OTF2_GroupRef>(c + 1), empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
        OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(m.size()), m.data());
    OTF2_GlobalDefWriter_WriteComm(w, static_cast<OTF2_CommRef>(c), comm_names[c],
                                   static_cast<OTF2_GroupRef>(c + 1), OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
  }
  for (std::size_t wi = 0; wi < u.win_comm.size(); ++wi)
    OTF2_GlobalDefWriter_WriteRmaWin(w, static_cast<OTF2_RmaWinRef>(wi), win_names[wi],
                                     u.win_comm[wi], OTF2_RMA_WIN_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteIoParadigm(w, kMpiIo, mpi_io, mpi_io_name,
                                       OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE,
                                       0, nullptr, nullptr, nullptr);
  for (std::size_t f = 0; f < u.file_paths.size(); ++f)
    OTF2_GlobalDefWriter_WriteIoRegularFile(w, static_cast<OTF2_IoFileRef>(f), file_names[f], 0);
  for (std::size_t h = 0; h < u.handles.size(); ++h)
    OTF2_GlobalDefWriter_WriteIoHandle(
        w, static_cast<OTF2_IoHandleRef>(h), file_names[u.handles[h].file], u.handles[h].file,
        kMpiIo, OTF2_IO_HANDLE_FLAG_NONE, static_cast<OTF2_CommRef>(u.handles[h].comm),
        OTF2_UNDEFINED_IO_HANDLE);
}

} // namespace

std::string write_archive() noexcept try {
  // Who this rank's objects are, for rank 0.
  RankDefs mine;
  std::vector<ThreadBuffer *> threads;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    for (ThreadBuffer *b = g.buffers; b != nullptr; b = b->next)
      threads.push_back(b);
  }
  std::sort(threads.begin(), threads.end(),
            [](const ThreadBuffer *a, const ThreadBuffer *b) { return a->index < b->index; });
  const auto comm_index = index_of(g.comms);
  const auto win_index = index_of(g.wins);
  const auto file_index = index_of(g.files);
  Out out;
  out.u64(g.comms.size());
  for (const GroupEntry &c : g.comms) {
    out.ints(c.world);
    out.u64(static_cast<std::uint64_t>(c.ordinal));
  }
  out.u64(g.wins.size());
  for (const GroupEntry &wi : g.wins) {
    out.ints(wi.world);
    out.u64(static_cast<std::uint64_t>(wi.ordinal));
    out.u64(static_cast<std::uint64_t>(lookup(comm_index, wi.comm, wi.created)));
  }
  out.u64(g.files.size());
  for (const FileEntry &f : g.files) {
    out.str(f.path);
    out.u64(static_cast<std::uint64_t>(lookup(comm_index, f.comm, f.created)));
  }
  std::vector<std::string> all = gather(out.bytes);

  Unifier unifier;
  std::vector<RankDefs> ranks(static_cast<std::size_t>(g.size));
  std::vector<std::string> replies;
  if (g.rank == 0) {
    for (int r = 0; r < g.size; ++r) {
      In in{all[static_cast<std::size_t>(r)]};
      RankDefs &d = ranks[static_cast<std::size_t>(r)];
      for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
        auto world = in.ints();
        d.comms.emplace_back(std::move(world), static_cast<int>(in.u64()));
      }
      for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
        auto world = in.ints();
        const int ordinal = static_cast<int>(in.u64());
        d.wins.emplace_back(std::move(world), ordinal);
        d.win_comm.push_back(static_cast<long>(static_cast<std::int64_t>(in.u64())));
      }
      for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
        d.file_paths.push_back(in.str());
        d.file_comm.push_back(static_cast<long>(static_cast<std::int64_t>(in.u64())));
      }
      const GlobalIds ids = unifier.add(d);
      Out reply;
      for (const auto *v : {&ids.comm, &ids.win, &ids.handle}) {
        reply.u64(v->size());
        for (std::uint64_t x : *v)
          reply.u64(x);
      }
      replies.push_back(reply.bytes);
    }
  }
  const std::string reply = scatter(replies);
  GlobalIds ids;
  {
    In in{reply};
    for (auto *v : {&ids.comm, &ids.win, &ids.handle})
      for (std::uint64_t n = in.u64(), i = 0; i < n; ++i)
        v->push_back(in.u64());
  }

  OTF2_Archive *archive =
      OTF2_Archive_Open(g.output.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                        4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr)
    return "cannot create the OTF2 archive '" + g.output + "/traces.otf2'";
  std::string error;
  OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_MPI_Archive_SetCollectiveCallbacks(archive, g.comm, MPI_COMM_NULL);
  if (rc != OTF2_SUCCESS) {
    // Without its collective callbacks the archive cannot even be closed: it is left open.
    return otf2_error("cannot set up the OTF2 archive in '" + g.output + "'", rc);
  }
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_SetCreator(archive, "pnmpi module trace");
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_OpenEvtFiles(archive);
  if (rc != OTF2_SUCCESS)
    error = otf2_error("cannot set up the OTF2 archive", rc);

  Clock clock;
  clock.init = g.init;
  // 'argument clock local' keeps the rank's own CLOCK_MONOTONIC: the offsets are still
  // measured and reported, so a reader can check or apply them itself.
  clock.base = g.align_clocks ? g.offset_init : 0;
  if (g.finalize.tick > g.init.tick && g.finalize.ns > g.init.ns) {
    clock.ns_per_tick = static_cast<double>(g.finalize.ns - g.init.ns) /
                        static_cast<double>(g.finalize.tick - g.init.tick);
    if (g.align_clocks)
      clock.slope =
          (g.offset_finalize - g.offset_init) / static_cast<double>(g.finalize.ns - g.init.ns);
  }
  std::uint64_t first = UINT64_MAX, last = 0, reordered = 0;
  OTF2_AttributeList *attrs = OTF2_AttributeList_New();
  for (ThreadBuffer *b : threads) {
    mine.dropped += b->dropped;
    mine.flushes += b->flushes;
    std::uint64_t events = 0;
    if (error.empty()) {
      OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, location_id(g.rank, b->index));
      Converter conv;
      conv.w = w;
      conv.attrs = attrs;
      conv.clock = clock;
      conv.comms = &comm_index;
      conv.wins = &win_index;
      conv.files = &file_index;
      conv.ids = &ids;
      if (w == nullptr) {
        error = "cannot open the OTF2 event writer of thread " + std::to_string(b->index);
      } else {
        error = replay(b, conv);
        OTF2_EvtWriter_GetNumberOfEvents(w, &events);
        OTF2_Archive_CloseEvtWriter(archive, w);
      }
      first = std::min(first, conv.first);
      last = std::max(last, conv.final);
      mine.unknown += conv.unknown;
      reordered += conv.clock.reordered;
    }
    mine.events.push_back(events);
  }
  OTF2_AttributeList_Delete(attrs);
  if (mine.events.empty())
    mine.events.push_back(0);
  if (error.empty()) {
    OTF2_Archive_CloseEvtFiles(archive);
    // Empty local definition files: the definitions are global, but readers expect one per
    // location.
    OTF2_Archive_OpenDefFiles(archive);
    for (ThreadBuffer *b : threads) {
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, location_id(g.rank, b->index));
      if (dw != nullptr)
        OTF2_Archive_CloseDefWriter(archive, dw);
    }
    OTF2_Archive_CloseDefFiles(archive);
  }

  // Counts and time range, for the definitions rank 0 writes.
  Out counts;
  counts.u64(mine.events.size());
  for (std::uint64_t e : mine.events)
    counts.u64(e);
  counts.u64(mine.dropped);
  counts.u64(mine.flushes);
  counts.u64(mine.unknown);
  counts.u64(reordered);
  counts.u64(static_cast<std::uint64_t>(std::llround(g.offset_init)));
  counts.u64(static_cast<std::uint64_t>(std::llround(g.offset_finalize)));
  counts.u64(static_cast<std::uint64_t>(std::llround(std::ceil(g.bound_init))));
  counts.u64(static_cast<std::uint64_t>(std::llround(std::ceil(g.bound_finalize))));
  std::vector<std::string> all_counts = gather(counts.bytes);
  std::uint64_t global_first = 0, global_last = 0;
  PMPI_Allreduce(&first, &global_first, 1, MPI_UINT64_T, MPI_MIN, g.comm);
  PMPI_Allreduce(&last, &global_last, 1, MPI_UINT64_T, MPI_MAX, g.comm);
  if (global_first == UINT64_MAX)
    global_first = global_last = 0;

  if (g.rank == 0) {
    std::uint64_t total = 0, dropped = 0, flushes = 0, unknown = 0, moved = 0;
    std::string summary, offsets;
    for (int r = 0; r < g.size; ++r) {
      In in{all_counts[static_cast<std::size_t>(r)]};
      RankDefs &d = ranks[static_cast<std::size_t>(r)];
      d.events.clear();
      for (std::uint64_t n = in.u64(), i = 0; i < n; ++i)
        d.events.push_back(in.u64());
      d.dropped = in.u64();
      d.flushes = in.u64();
      d.unknown = in.u64();
      const std::uint64_t rmoved = in.u64();
      const auto offset_init = static_cast<std::int64_t>(in.u64());
      const auto offset_finalize = static_cast<std::int64_t>(in.u64());
      const std::uint64_t bound_init = in.u64(), bound_finalize = in.u64();
      offsets += "clock rank " + std::to_string(r) + " host " +
                 hosts()[static_cast<std::size_t>(r)] + " offset-init " +
                 std::to_string(offset_init) + " offset-finalize " +
                 std::to_string(offset_finalize) + " bound-init " + std::to_string(bound_init) +
                 " bound-finalize " + std::to_string(bound_finalize) + "\n";
      std::uint64_t events = 0;
      for (std::uint64_t e : d.events)
        events += e;
      total += events;
      dropped += d.dropped;
      flushes += d.flushes;
      unknown += d.unknown;
      moved += rmoved;
      summary += "rank " + std::to_string(r) + ": events " + std::to_string(events) + " threads " +
                 std::to_string(d.events.size()) + " flushes " + std::to_string(d.flushes) +
                 " dropped " + std::to_string(d.dropped) + " unknown-objects " +
                 std::to_string(d.unknown) + " reordered " + std::to_string(rmoved) + "\n";
      if (d.dropped > 0)
        report("rank " + std::to_string(r) + ": " + std::to_string(d.dropped) +
               " events were dropped (its buffer was full and 'argument on-full drop' is set, "
               "or a flush failed); raise 'argument buffer' or use 'on-full flush'");
    }
    if (error.empty()) {
      OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(archive);
      if (gw == nullptr) {
        error = "cannot open the OTF2 global definition writer";
      } else {
        write_global_defs(gw, unifier, ranks, global_first, global_last);
        OTF2_Archive_CloseGlobalDefWriter(archive, gw);
      }
      OTF2_Archive_SetProperty(archive, "PNMPI::DROPPED_EVENTS", std::to_string(dropped).c_str(),
                               true);
      OTF2_Archive_SetProperty(archive, "PNMPI::BUFFER_FLUSHES", std::to_string(flushes).c_str(),
                               true);
      OTF2_Archive_SetProperty(archive, "PNMPI::CLOCK_ALIGNMENT",
                               g.align_clocks
                                   ? "applied: rank 0's clock, offsets measured at MPI_Init and "
                                     "MPI_Finalize, linear in between"
                                   : "none: each rank's own CLOCK_MONOTONIC (argument clock "
                                     "local); the measured offsets are in PNMPI::CLOCK_OFFSETS",
                               true);
      // The lines of summary.txt, without their "clock " and with "; " between them.
      std::string listed;
      for (std::size_t at = 0; at < offsets.size();) {
        const std::size_t end = offsets.find('\n', at);
        listed += (listed.empty() ? "" : "; ") + offsets.substr(at + 6, end - at - 6);
        at = end + 1;
      }
      OTF2_Archive_SetProperty(archive, "PNMPI::CLOCK_OFFSETS", listed.c_str(), true);
    }
    summary = "archive " + g.output + "/traces.otf2\nranks " + std::to_string(g.size) +
              "\nevents " + std::to_string(total) + "\nflushes " + std::to_string(flushes) +
              "\ndropped " + std::to_string(dropped) + "\nunknown-objects " +
              std::to_string(unknown) + "\nreordered " + std::to_string(moved) + "\nclock " +
              (g.align_clocks ? "aligned" : "local") + "\n" + summary + offsets;
    const std::string path = g.output + "/summary.txt";
    if (FILE *f = std::fopen(path.c_str(), "w")) {
      std::fputs(summary.c_str(), f);
      std::fclose(f);
    }
    if (unknown > 0)
      report(std::to_string(unknown) +
             " operations on communicators, windows or files the trace did not see created "
             "(inter-communicators, or made before the trace was loaded) are left out of the "
             "archive; their calls are in it");
    if (error.empty() && (dropped > 0 || flushes > 0))
      report("wrote " + g.output + "/traces.otf2: " + std::to_string(total) + " events, " +
             std::to_string(flushes) + " buffer flushes, " + std::to_string(dropped) +
             " events dropped");
  }
  rc = OTF2_Archive_Close(archive);
  if (error.empty() && rc != OTF2_SUCCESS)
    error = otf2_error("cannot close the OTF2 archive", rc);
  return error;
} catch (const std::exception &e) {
  return std::string("cannot write the archive: ") + e.what();
}

} // namespace pnmpi::trace

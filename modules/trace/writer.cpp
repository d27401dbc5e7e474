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

#include "definitions.h"
#include "exchange.h"
#include "trace.h"

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fcntl.h>
#include <map>
#include <tuple>
#include <unistd.h>
#include <unordered_map>

namespace pnmpi::trace {

namespace {

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

/// The OTF2 type of an atomic RMA operation: what the routine does (the operation an
/// MPI_Fetch_and_op applies is not recorded, so it is a fetch-and-accumulate).
OTF2_RmaAtomicType atomic_type(Routine r) {
  if (r == r_Compare_and_swap)
    return OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
  if (r == r_Get_accumulate || r == r_Fetch_and_op)
    return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
  return OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
}

struct Converter {
  OTF2_EvtWriter *w = nullptr;
  OTF2_AttributeList *attrs = nullptr;
  Clock clock;
  const std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::size_t>>>
      *comms, *wins, *files;
  const GlobalIds *ids;
  /// Per local communicator: for an inter-communicator, the rank in the archive's union
  /// group of each rank of its remote group; empty for the others.
  const std::vector<std::vector<std::uint32_t>> *remote_rank;
  std::vector<Record> group; ///< the records of the call in progress
  std::vector<Record> flushes;
  std::uint64_t unknown = 0;
  std::uint64_t first = UINT64_MAX, final = 0;

  long comm_of(const Record &r) const { return lookup(*comms, r.object, r.t0); }

  /// A peer or root as the archive names it: a rank of the communicator's group, or of
  /// the union of both groups of an inter-communicator; OTF2_UNDEFINED_UINT32 for none.
  std::uint32_t rank_in(long c, std::int32_t peer) const {
    if (peer < 0)
      return OTF2_UNDEFINED_UINT32;
    const auto &map = (*remote_rank)[static_cast<std::size_t>(c)];
    if (map.empty())
      return static_cast<std::uint32_t>(peer);
    return static_cast<std::size_t>(peer) < map.size() ? map[static_cast<std::size_t>(peer)]
                                                       : OTF2_UNDEFINED_UINT32;
  }

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
      const std::uint32_t peer = rank_in(c, r.peer);
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
          static_cast<OTF2_CommRef>(ids->comm[static_cast<std::size_t>(c)]), rank_in(c, r.peer),
          r.bytes, r.bytes2, r.x);
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
        OTF2_EvtWriter_RmaAtomic(w, nullptr, t, win, peer,
                                 atomic_type(static_cast<Routine>(r.routine)), r.bytes, r.bytes2,
                                 r.x);
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
            rank_in(ci, coll.peer), coll.bytes, coll.bytes2);
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

/// The first error OTF2 met since the last check(). OTF2 tells the cause of a failed write
/// (a full disk: OTF2_ERROR_ENOSPC) only to its error callback; the call that closes the file
/// returns a generic code, or none at all.
OTF2_ErrorCode g_otf2_first = OTF2_SUCCESS;

OTF2_ErrorCode on_otf2_error(void *, const char *, std::uint64_t, const char *, OTF2_ErrorCode code,
                             const char *, va_list) {
  if (g_otf2_first == OTF2_SUCCESS)
    g_otf2_first = code;
  return code;
}

/// An error message naming `file` if OTF2 failed since the last check (or `rc` says so),
/// else empty.
std::string check(OTF2_ErrorCode rc, const std::string &file) {
  const OTF2_ErrorCode code = g_otf2_first != OTF2_SUCCESS ? g_otf2_first : rc;
  g_otf2_first = OTF2_SUCCESS;
  if (code == OTF2_SUCCESS)
    return "";
  return "cannot write '" + escape_name(file) + "': " + OTF2_Error_GetDescription(code);
}

/// Keeps the first error.
void note(std::string &error, const std::string &next) {
  if (error.empty())
    error = next;
}

/// The file of location `location` in the archive, `kind` "evt" or "def".
std::string location_file(OTF2_LocationRef location, const char *kind) {
  return staging_dir() + "/traces/" + std::to_string(location) + "." + kind;
}

/// Sets OTF2's error callback for as long as it lives (the archive is written), then puts
/// back whatever was there.
class Otf2ErrorCapture {
public:
  Otf2ErrorCapture() : m_previous(OTF2_Error_RegisterCallback(on_otf2_error, nullptr)) {
    g_otf2_first = OTF2_SUCCESS;
  }
  ~Otf2ErrorCapture() { OTF2_Error_RegisterCallback(m_previous, nullptr); }
  Otf2ErrorCapture(const Otf2ErrorCapture &) = delete;
  Otf2ErrorCapture &operator=(const Otf2ErrorCapture &) = delete;

private:
  OTF2_ErrorCallback m_previous;
};

/// Streams one thread's records (spill file, then buffer) through `conv`.
std::string replay(ThreadBuffer *b, Converter &conv) {
  // The spill file stays until the archive is in place (output_dir.cpp): if writing the
  // archive fails, it still holds the records.
  if (b->fd >= 0 || b->spilled > 0) {
    const std::string path = spill_path(b->index);
    if (b->fd >= 0)
      ::close(b->fd);
    b->fd = -1;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return "cannot read back spill file '" + escape_name(path) + "': " + std::strerror(errno);
    std::vector<Record> chunk(4096);
    std::uint64_t read = 0;
    for (;;) {
      const ssize_t n = ::read(fd, chunk.data(), chunk.size() * sizeof(Record));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        return "cannot read back spill file '" + escape_name(path) + "': " + why;
      }
      if (n == 0)
        break;
      for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof(Record); ++i)
        conv.add(chunk[i]);
      read += static_cast<std::size_t>(n) / sizeof(Record);
    }
    ::close(fd);
    if (read != b->spilled)
      return "spill file '" + escape_name(path) + "' holds " + std::to_string(read) +
             " records, not the " + std::to_string(b->spilled) + " written to it";
  }
  for (Record *r = b->base; r != nullptr && r < b->pos; ++r)
    conv.add(*r);
  conv.finish();
  return "";
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
  std::vector<std::vector<std::uint32_t>> remote_rank(g.comms.size());
  for (std::size_t i = 0; i < g.comms.size(); ++i) {
    const GroupEntry &c = g.comms[i];
    if (!c.inter)
      continue;
    // The union lists the lesser group first (as rank 0 orders the key): the remote group
    // starts after the local one, or at 0.
    const std::size_t start = c.remote < c.world ? 0 : c.world.size();
    for (std::size_t j = 0; j < c.remote.size(); ++j)
      remote_rank[i].push_back(static_cast<std::uint32_t>(start + j));
  }
  const auto win_index = index_of(g.wins);
  const auto file_index = index_of(g.files);
  Out out;
  out.u64(g.comms.size());
  for (const GroupEntry &c : g.comms) {
    out.ints(c.world);
    out.ints(c.remote);
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
        CommKey key;
        key.a = in.ints();
        key.b = in.ints();
        key.ordinal = static_cast<int>(in.u64());
        if (key.inter() && key.b < key.a)
          std::swap(key.a, key.b);
        d.comms.push_back(std::move(key));
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

  const Otf2ErrorCapture capture;
  const std::string staging = staging_dir();
  OTF2_Archive *archive =
      OTF2_Archive_Open(staging.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                        4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr)
    return "cannot create the OTF2 archive '" + escape_name(staging) + "/traces.otf2'";
  std::string error;
  OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_MPI_Archive_SetCollectiveCallbacks(archive, g.comm, MPI_COMM_NULL);
  if (rc != OTF2_SUCCESS) {
    // Without its collective callbacks the archive cannot even be closed: it is left open.
    return otf2_error("cannot set up the OTF2 archive in '" + escape_name(staging) + "'", rc);
  }
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_SetCreator(archive, "pnmpi module trace");
  if (rc == OTF2_SUCCESS)
    rc = OTF2_Archive_OpenEvtFiles(archive);
  if (rc != OTF2_SUCCESS)
    error = otf2_error("cannot set up the OTF2 archive", rc);
  g_otf2_first = OTF2_SUCCESS;

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
    mine.lost += b->lost;
    if (b->no_memory)
      mine.no_memory += b->dropped;
    mine.flushes += b->flushes;
    mine.untracked += b->untracked;
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
      conv.remote_rank = &remote_rank;
      if (w == nullptr) {
        error = "cannot open the OTF2 event writer of thread " + std::to_string(b->index);
      } else {
        error = replay(b, conv);
        OTF2_EvtWriter_GetNumberOfEvents(w, &events);
        note(error, check(OTF2_Archive_CloseEvtWriter(archive, w),
                          location_file(location_id(g.rank, b->index), "evt")));
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
    note(error, check(OTF2_Archive_CloseEvtFiles(archive), staging + "/traces"));
    // Empty local definition files: the definitions are global, but readers expect one per
    // location.
    note(error, check(OTF2_Archive_OpenDefFiles(archive), staging + "/traces"));
    for (ThreadBuffer *b : threads) {
      const OTF2_LocationRef location = location_id(g.rank, b->index);
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, location);
      if (dw == nullptr)
        note(error, "cannot open the OTF2 definition writer of '" +
                        escape_name(location_file(location, "def")) + "'");
      else
        note(error,
             check(OTF2_Archive_CloseDefWriter(archive, dw), location_file(location, "def")));
    }
    note(error, check(OTF2_Archive_CloseDefFiles(archive), staging + "/traces"));
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
  counts.u64(mine.untracked);
  counts.u64(mine.lost);
  counts.u64(mine.no_memory);
  std::vector<std::string> all_counts = gather(counts.bytes);
  std::uint64_t global_first = 0, global_last = 0;
  PMPI_Allreduce(&first, &global_first, 1, MPI_UINT64_T, MPI_MIN, g.comm);
  PMPI_Allreduce(&last, &global_last, 1, MPI_UINT64_T, MPI_MAX, g.comm);
  if (global_first == UINT64_MAX)
    global_first = global_last = 0;

  std::string wrote;
  if (g.rank == 0) {
    std::uint64_t total = 0, dropped = 0, flushes = 0, unknown = 0, moved = 0, untracked = 0;
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
                 escape_name(hosts()[static_cast<std::size_t>(r)]) + " offset-init " +
                 std::to_string(offset_init) + " offset-finalize " +
                 std::to_string(offset_finalize) + " bound-init " + std::to_string(bound_init) +
                 " bound-finalize " + std::to_string(bound_finalize) + "\n";
      d.untracked = in.u64();
      untracked += d.untracked;
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
                 std::to_string(d.unknown) + " reordered " + std::to_string(rmoved) +
                 " untracked-requests " + std::to_string(d.untracked) + "\n";
      d.lost = in.u64();
      d.no_memory = in.u64();
      // Each cause with its own advice; failed flushes were said by their rank.
      if (const std::uint64_t full = d.dropped - d.lost - d.no_memory; full > 0)
        report("rank " + std::to_string(r) + ": " + std::to_string(full) +
               " events were dropped (its buffer was full and 'argument on-full drop' is set); "
               "raise 'argument buffer' or use 'on-full flush'");
      if (d.no_memory > 0)
        report("rank " + std::to_string(r) + ": " + std::to_string(d.no_memory) +
               " events were dropped (there was no memory for a buffer of 'argument buffer' " +
               std::to_string(g.buffer_records * sizeof(Record)) + " bytes); lower it");
      if (d.untracked > 0)
        report("rank " + std::to_string(r) + ": " + std::to_string(d.untracked) +
               " nonblocking requests, persistent requests or matched messages were not "
               "tracked (the request table was full): their completions are missing from the "
               "archive; raise 'argument requests' (now " +
               std::to_string(g.table_slots) + ") under 'module trace'");
    }
    if (error.empty()) {
      OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(archive);
      if (gw == nullptr) {
        error = "cannot open the OTF2 global definition writer";
      } else {
        write_global_defs(gw, unifier, ranks, global_first, global_last);
        note(error, check(OTF2_Archive_CloseGlobalDefWriter(archive, gw), staging + "/traces.def"));
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
    summary = "archive " + escape_name(g.output) + "/traces.otf2\nranks " + std::to_string(g.size) +
              "\nevents " + std::to_string(total) + "\nflushes " + std::to_string(flushes) +
              "\ndropped " + std::to_string(dropped) + "\nunknown-objects " +
              std::to_string(unknown) + "\nreordered " + std::to_string(moved) +
              "\nuntracked-requests " + std::to_string(untracked) + "\nclock " +
              (g.align_clocks ? "aligned" : "local") + "\n" + summary + offsets;
    if (error.empty())
      note(error, write_file(staging + "/summary.txt", summary));
    if (unknown > 0)
      report(std::to_string(unknown) +
             " operations on communicators, windows or files the trace did not see created "
             "(made by routines the trace does not wrap, e.g. MPI_Comm_spawn, or before it was "
             "loaded) are left out of the archive; their calls are in it");
    if (dropped > 0 || flushes > 0)
      wrote = "wrote " + escape_name(g.output) + "/traces.otf2: " + std::to_string(total) +
              " events, " + std::to_string(flushes) + " buffer flushes, " +
              std::to_string(dropped) + " events dropped";
  }
  // Rank 0 writes the anchor file; every rank closes its files.
  note(error, check(OTF2_Archive_Close(archive),
                    g.rank == 0 ? staging + "/traces.otf2" : staging + "/traces"));
  if (error.empty() && !wrote.empty())
    report(wrote);
  return error;
} catch (const std::exception &e) {
  return std::string("cannot write the archive: ") + e.what();
}

} // namespace pnmpi::trace

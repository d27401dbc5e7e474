// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The trace module's state and its per-call path, shared by the wrapper files.
//
// Every traced call costs two reads of CLOCK_MONOTONIC (vDSO, no system call) and one or a
// few fixed-size records stored into the calling thread's own buffer: no lock, no
// allocation, no system call. Only when a buffer is full does the thread write it to its
// spill file (one write(2)); at MPI_Finalize every rank turns its records into OTF2
// (writer.cpp). Records are only ever appended by their own thread, so a buffer needs no
// synchronisation until finalize, when the application's threads have stopped calling MPI.
//
// Pending nonblocking requests, persistent requests and matched messages are kept in
// fixed-capacity lock-free tables (HandleTable below): a request may be issued on one
// thread and completed on another, and neither takes a lock or allocates. The registries
// of communicators, windows and files are kept under g.lock; they are touched by the calls
// that create or free those objects only.

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <pnmpi/support.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

#include "record.h"
#include "routines.h"

namespace pnmpi::trace {

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of a host.
inline std::uint64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

/// Whether records are timed with the CPU's time-stamp counter (set once, at load).
extern bool g_use_tsc;

/// The time of a record, in ticks: the time-stamp counter where the kernel itself keeps time
/// with it (an invariant TSC, one read of a few ns), else CLOCK_MONOTONIC nanoseconds
/// (clock_gettime costs several times more, and on some virtual machines far more).
/// writer.cpp maps ticks to CLOCK_MONOTONIC by pairs of readings taken at MPI_Init and at
/// MPI_Finalize.
inline std::uint64_t now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_expect(g_use_tsc, 1))
    return __builtin_ia32_rdtsc();
#endif
  return monotonic_ns();
}

/// Whether the time-stamp counter is invariant here (clock.cpp).
bool tsc_usable() noexcept;

/// A reading of both clocks at (nearly) the same instant.
struct ClockPair {
  std::uint64_t tick = 0, ns = 0;
};

/// The tick and CLOCK_MONOTONIC at one instant: of several tries, the one whose two tick
/// reads around the clock_gettime are closest.
ClockPair clock_pair() noexcept;

/// The bits of an MPI handle (a pointer in Open MPI, an int in MPICH) as a number.
template <class Handle> inline std::uint64_t key_of(Handle h) noexcept {
  static_assert(sizeof(Handle) <= sizeof(std::uint64_t), "handle wider than 64 bits");
  std::uint64_t k = 0;
  std::memcpy(&k, &h, sizeof h);
  return k;
}

/// One thread's records: the live buffer, and the spill file its full buffers went to.
struct ThreadBuffer {
  Record *base = nullptr;
  Record *pos = nullptr;
  Record *end = nullptr;
  std::uint32_t index = 0;     ///< the thread's number on this rank (0: the first to call)
  int fd = -1;                 ///< spill file, opened at the first flush
  std::uint64_t spilled = 0;   ///< records in the spill file
  std::uint64_t dropped = 0;   ///< records lost (drop mode, or a failed flush)
  std::uint64_t lost = 0;      ///< of those, records lost because a flush failed
  int spill_errno = 0;         ///< the first failed flush's errno (0: none failed)
  bool no_memory = false;      ///< no memory for the buffer: every record is dropped
  std::uint64_t flushes = 0;   ///< buffers written to the spill file
  std::uint64_t next_id = 0;   ///< this thread's request ids issued so far
  std::uint64_t untracked = 0; ///< requests, persistent requests, messages not noted (full)
  bool full = false;           ///< drop mode: the buffer filled up, everything after is lost
  ThreadBuffer *next = nullptr;
};

/// What to do when a thread's buffer is full.
enum class OnFull { kFlush, kDrop };

/// A communicator (or the group of a window) as the trace saw it created.
struct GroupEntry {
  std::uint64_t handle = 0;
  std::uint64_t created = 0; ///< raw time; the entry names `handle` from then on
  std::vector<int> world;    ///< the world rank of every rank of the (local) group
  std::vector<int> remote;   ///< inter-communicators: the remote group's; else empty
  bool inter = false;        ///< an inter-communicator (peers are ranks of `remote`)
  int ordinal = 0;           ///< how many earlier entries on this rank had the same groups
  std::uint64_t comm = 0;    ///< windows and files: the communicator they were made over
};

/// An MPI-IO file handle, from MPI_File_open to MPI_File_close.
struct FileEntry {
  std::uint64_t handle = 0;
  std::uint64_t created = 0;
  std::string path;
  std::uint64_t comm = 0;
  int amode = 0;
};

/// Pending::kind of an MPI_Comm_idup: the new communicator is registered at its completion
/// (its handle is valid only then); `object` is the address of the caller's handle.
constexpr std::uint8_t kPendingCommIdup = 0xC0;

/// What a pending nonblocking request was, so its completion can be recorded.
struct Pending {
  std::uint8_t kind = 0;    ///< kIsend, kIrecvRequest, kIoIssued, kNbcRequest, kPendingCommIdup
  std::uint64_t id = 0;     ///< request or matching id written into the trace
  std::uint64_t object = 0; ///< communicator or file handle
  std::uint16_t routine = 0;
  std::int32_t root = -1;     ///< kNbcRequest: the root (comm rank, or -1)
  std::uint64_t sent = 0;     ///< kNbcRequest: bytes this rank supplies
  std::uint64_t received = 0; ///< kNbcRequest: bytes this rank gets
};

/// A persistent point-to-point request as made by MPI_*_init: what each MPI_Start issues.
struct Persistent {
  std::uint8_t kind = 0; ///< kIsend or kIrecvRequest
  std::uint16_t routine = 0;
  std::uint64_t object = 0; ///< communicator
  std::int32_t peer = -1, tag = 0;
  std::uint64_t bytes = 0;
};

/// A fixed-capacity, lock-free map from MPI handles (requests, messages) to what the trace
/// noted about them. Why this design: a request may be completed on another thread than
/// the one that issued it, so per-thread tables alone cannot find it; a global table under
/// a mutex (the earlier design) serialises every Isend and Wait of every thread and
/// allocates on insertion. Here:
///   - the slots are allocated once, at MPI_Init (`argument requests`), zeroed and touched
///     lazily; nothing is allocated per call;
///   - a key lives within kWindow slots of its hash position. An insertion claims a free
///     slot there by CAS (free -> busy), writes the value, then publishes the key with a
///     release store; a lookup scans the whole window (one to five cache lines of keys),
///     claims the matching slot by CAS (key -> busy), copies the value and frees the slot.
///     A slot is never visible half-written, and a freed slot is free at once: no tombstones,
///     so lookups never slow down as the run goes on;
///   - an MPI library may hand out the handle of a completed request again at once; if the
///     completing thread has not yet taken the old entry, two entries have the same key.
///     Open MPI even gives every small Isend that completed at once the same static
///     request. Each entry carries a number from the table's own atomic counter, and a
///     lookup takes the oldest: the completed request was noted before its handle could be
///     reused, so its number is the smaller (a time stamp would not do: a virtual machine's
///     CPUs may read time-stamp counters a little apart). Better still, a Wait or Test
///     notes, before it calls MPI, the newest entry of each handle it was given: while the
///     request is live MPI cannot hand its handle out again, so that entry is its own, even
///     if another thread completes a request of the same handle at the same time; it then
///     takes exactly that entry (newest() and take(key, order, out));
///   - a full window (the table near capacity) is never waited for: the insertion fails,
///     the caller counts it and the count is reported at MPI_Finalize.
template <class Value> class HandleTable {
public:
  static constexpr std::size_t kWindow = 32;

  /// Allocates `capacity` slots (rounded up to a power of two, at least kWindow); false if
  /// out of memory (the table then holds nothing and every insertion fails).
  bool init(std::size_t capacity) noexcept;
  /// Notes `value` under `key` (not 0); false if the window of the key is full.
  bool insert(std::uint64_t key, const Value &value) noexcept;
  /// Removes the oldest entry of `key` into *out; false if there is none.
  bool take(std::uint64_t key, Value *out) noexcept { return take(key, 0, out); }
  /// Removes the entry of `key` numbered `order` (from newest()), or if it is gone or
  /// `order` is 0, the oldest one.
  bool take(std::uint64_t key, std::uint64_t order, Value *out) noexcept;
  /// The number of the newest entry of `key`, 0 if there is none.
  std::uint64_t newest(std::uint64_t key) const noexcept;
  /// Copies the oldest entry of `key` into *out and keeps it; false if there is none.
  bool find(std::uint64_t key, Value *out) noexcept;
  /// Whether an entry was ever inserted (so lookups can be skipped until then).
  bool used() const noexcept { return m_used.load(std::memory_order_relaxed); }

private:
  static constexpr std::uint64_t kFree = 0, kBusy = 1;
  struct Slot {
    Value value;
    std::atomic<std::uint64_t> stamp; ///< atomic: a scan may read it while it is rewritten
  };
  std::size_t home(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> m_shift);
  }
  /// The slot holding entry `order` of `key` (0: the oldest), claimed (now kBusy); or
  /// SIZE_MAX.
  std::size_t claim(std::uint64_t key, std::uint64_t order) noexcept;

  std::atomic<std::uint64_t> *m_keys = nullptr;
  Slot *m_slots = nullptr;
  std::size_t m_mask = 0;
  unsigned m_shift = 64;
  std::atomic<bool> m_used{false};
  std::atomic<std::uint64_t> m_order{0}; ///< numbers the insertions (see above)
};

/// A matched message's table entry: the communicator of the probe that matched it.
struct MessageComm {
  std::uint64_t comm = 0;
};

struct State {
  std::atomic<bool> active{false};  ///< records are taken (from MPI_Init to MPI_Finalize)
  bool enabled[kRoutineCount] = {}; ///< which routines are traced
  int pnmpi_id[kRoutineCount] = {}; ///< pnmpi's id of each routine, for the call origin
  std::size_t buffer_records = 0;   ///< capacity of each thread's buffer
  OnFull on_full = OnFull::kFlush;
  bool align_clocks = true; ///< argument clock: aligned (rank 0's clock) or local
  std::string output;       ///< the archive's directory
  std::string output_where; ///< "FILE:LINE: module 'trace'[: argument 'output']", for messages
  int rank = 0, size = 1;
  MPI_Comm comm = MPI_COMM_NULL; ///< the trace's own duplicate of MPI_COMM_WORLD
  MPI_Group world_group = MPI_GROUP_NULL;

  std::size_t table_slots = 0;        ///< `argument requests`: capacity of each handle table
  bool track_completions = false;     ///< a Wait or Test is traced: requests are worth noting
  HandleTable<Pending> requests;      ///< pending nonblocking requests
  HandleTable<Persistent> persistent; ///< persistent requests, from *_init to free
  HandleTable<MessageComm> messages;  ///< matched message -> its probe's communicator

  std::mutex lock; ///< everything below
  ThreadBuffer *buffers = nullptr;
  std::uint32_t threads = 0;
  std::vector<GroupEntry> comms, wins;
  std::vector<FileEntry> files;
  ClockPair init, finalize;                    ///< ticks <-> CLOCK_MONOTONIC
  double offset_init = 0, offset_finalize = 0; ///< ns to add to this rank's CLOCK_MONOTONIC
  double bound_init = 0, bound_finalize = 0;   ///< the offset's error is at most this (ns)
};

extern State g;

/// The calling thread's buffer (made on the thread's first traced call).
ThreadBuffer *make_buffer() noexcept;
extern thread_local ThreadBuffer *t_buffer;

/// Called when the buffer has no room: flushes it (or, in drop mode, returns scratch).
Record *buffer_full(ThreadBuffer *b) noexcept;

/// Room for one record in the calling thread's buffer. Never fails: when records cannot be
/// kept (drop mode, out of memory) it returns a scratch record and counts it as dropped.
inline Record *take() noexcept {
  ThreadBuffer *b = t_buffer;
  if (__builtin_expect(b == nullptr, 0))
    b = make_buffer();
  if (__builtin_expect(b->pos == b->end || b->full, 0))
    return buffer_full(b);
  return b->pos++;
}

/// Whether a call of routine `r` is recorded.
inline bool traced(Routine r) noexcept {
  return g.enabled[r] && g.active.load(std::memory_order_relaxed);
}

/// The record of a whole call, written at its end, after the records it carries.
inline void call_record(Routine r, std::uint64_t t0, std::uint64_t t1) noexcept {
  Record *c = take();
  c->t0 = t0;
  c->t1 = t1;
  c->kind = kCall;
  c->routine = static_cast<std::uint16_t>(r);
  c->flags = pnmpi_entry_origin(g.pnmpi_id[r]) == PNMPI_ORIGIN_MODULE ? kFlagTool : 0;
}

/// An operation record (message, collective, I/O, ...) at time t.
inline Record *op_record(RecordKind kind, Routine r, std::uint64_t t) noexcept {
  Record *o = take();
  o->t0 = t;
  o->t1 = t;
  o->kind = kind;
  o->routine = static_cast<std::uint16_t>(r);
  o->flags = 0;
  return o;
}

/// Bytes in `count` elements of `type` (0 for a type MPI cannot size).
template <class Count> inline std::uint64_t bytes_of(Count count, MPI_Datatype type) noexcept {
  if (count <= 0 || type == MPI_DATATYPE_NULL)
    return 0;
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
    return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

/// Bytes a status says were transferred.
inline std::uint64_t status_bytes(const MPI_Status *status) noexcept {
  int n = 0;
  if (PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
    return 0;
  return static_cast<std::uint64_t>(n);
}

/// Whether any request was noted so far: until then a Wait/Test has nothing to look up.
inline bool tracking_requests() noexcept {
  return g.requests.used();
}

/// Notes a nonblocking request, so its completion (Wait/Test) can be recorded; returns the
/// id it gets in the trace (p.id is ignored). Ids are unique per rank: the thread's number
/// in the high bits, its own count in the low ones (no shared counter on the per-call path).
std::uint64_t remember(MPI_Request request, Pending p) noexcept;

/// Notes a persistent request made by MPI_*_init.
void remember_persistent(MPI_Request request, const Persistent &p) noexcept;

/// Records what MPI_Start(all) issued on the persistent requests among `requests` (an Isend
/// or an Irecv request each, with a new id), at time t, by routine r.
void start_persistent(Routine r, int count, const MPI_Request *requests, std::uint64_t t) noexcept;

/// Notes the communicator of a message matched by MPI_Mprobe/MPI_Improbe (MPI_Mrecv and
/// MPI_Imrecv are given the message alone), and takes it back (0: not noted).
void remember_message(MPI_Message message, MPI_Comm comm) noexcept;
std::uint64_t take_message(MPI_Message message) noexcept;

/// Forgets a request freed with MPI_Request_free.
void forget(MPI_Request request) noexcept;

/// Records the completion of every tracked request among `before` (the handles as they
/// were before the completing call), as `done[i]` says, at time t.
/// `orders` (may be null): request_order() of each handle, taken before the completing call.
void complete_requests(int count, const MPI_Request *before, const MPI_Status *statuses,
                       const int *done, std::uint64_t t,
                       const std::uint64_t *orders = nullptr) noexcept;

/// Which note a Wait/Test given `request` will complete: its handle's newest, taken before
/// the call (see HandleTable).
inline std::uint64_t request_order(MPI_Request request) noexcept {
  return request == MPI_REQUEST_NULL ? 0 : g.requests.newest(key_of(request));
}

/// The registries: a new communicator, window or file, and a freed one.
void register_comm(MPI_Comm comm, std::uint64_t t) noexcept;
void register_win(MPI_Win win, MPI_Comm over, std::uint64_t t) noexcept;
void register_file(MPI_File file, const char *path, MPI_Comm comm, int amode,
                   std::uint64_t t) noexcept;

/// An offset (ns) to add to a rank's CLOCK_MONOTONIC to read rank 0's, and the most it can
/// be off by (ns).
struct Offset {
  double ns = 0, bound = 0;
};

/// This rank's Offset, measured now (collective over g.comm; clock.cpp).
Offset measure_offset(const std::vector<std::string> &hosts);

/// Rank 0 receives every rank's bytes (collective over g.comm; writer.cpp).
std::vector<std::string> gather(const std::string &mine);

// ---- the output directory (output_dir.cpp) ---------------------------------------------
//
// The new archive is written into a staging directory inside the output directory and moved
// into place only once every rank has written its part whole: an earlier run's archive stays
// as it was until then, and after a failure.

/// The spill file of thread `thread` of this rank.
std::string spill_path(std::uint32_t thread);
/// Where this run's archive is written until it is whole.
std::string staging_dir();
/// Why prepare_output() would fail, found without changing anything (pnmpi-info --check):
/// an error message, or empty.
std::string output_problem();
/// Rank 0, at MPI_Init: makes the output directory, raw/ and an empty staging directory, and
/// writes INCOMPLETE. An error message, or empty.
std::string prepare_output();
/// Rank 0, once every rank wrote its part: moves the new archive into place (the earlier
/// one's files are replaced) and removes INCOMPLETE. An error message, or empty.
std::string commit_archive();
/// Rank 0, after a failure: removes the unfinished archive and says in INCOMPLETE what
/// failed (`failures`, one line per failure). An error message, or empty.
std::string mark_failed(const std::string &failures);
/// Writes `text` to `path` whole or not at all (a temporary file renamed over it). An error
/// message naming the file, or empty.
std::string write_file(const std::string &path, const std::string &text);
/// A name from an input (a path, a host) as messages and summary.txt show it: control
/// characters escaped (pnmpi_escape_name), so that it cannot forge lines.
using support::escape_name;

/// The host name of every rank (gathered at MPI_Init).
const std::vector<std::string> &hosts();

/// Writes the OTF2 archive of this rank's records (collective over g.comm). Returns an
/// error message, empty on success.
std::string write_archive() noexcept;

/// Prints `pnmpi: module 'trace': MESSAGE` on stderr.
void report(const std::string &message) noexcept;

} // namespace pnmpi::trace

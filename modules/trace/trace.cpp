// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The trace's life cycle: arguments, per-thread buffers and their flushing, the registries
// of communicators, windows, files and requests, MPI_Init and MPI_Finalize, and the clock
// offsets measured at both.

#include "trace.h"

#include <pnmpi/world_ranks.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <unordered_map>

namespace pnmpi::trace {

State g;
thread_local ThreadBuffer *t_buffer = nullptr;
bool g_use_tsc = false;

void report(const std::string &message) noexcept {
  std::fprintf(stderr, "pnmpi: module 'trace': %s\n", message.c_str());
  std::fflush(stderr);
}

namespace {

constexpr std::size_t kDefaultBuffer = 16u << 20;
constexpr long kDefaultTableSlots = 65536;
constexpr std::size_t kMinBuffer = 64 * sizeof(Record);

/// Where records go that cannot be kept; never read.
thread_local Record t_scratch;

bool write_all(int fd, const void *data, std::size_t size) noexcept {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

} // namespace

namespace {

/// A thread's record buffer, its pages faulted in here, once. Left to fault on first touch,
/// every page cost the calls that filled it a kernel fault (about 1 us on a VM) per 64
/// records, a quarter of a traced call's cost. Huge pages, where the system grants them,
/// make that one fault per 2 MiB. If the kernel cannot populate the buffer now (too old, or
/// no memory yet), its pages fault as they are used, as before.
Record *allocate_buffer(std::size_t records) noexcept {
  const std::size_t bytes = records * sizeof(Record);
  void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return nullptr;
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE); // advice: refused where huge pages are off
#endif
#ifdef MADV_POPULATE_WRITE
  ::madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
  return static_cast<Record *>(p);
}

} // namespace

ThreadBuffer *make_buffer() noexcept {
  auto *b = new (std::nothrow) ThreadBuffer;
  if (b == nullptr) {
    // Nothing can be kept for this thread; a one-record buffer that is always full counts
    // every record as dropped.
    static ThreadBuffer lost;
    lost.full = true;
    lost.no_memory = true;
    t_buffer = &lost;
    return &lost;
  }
  const std::size_t n = g.buffer_records;
  b->base = allocate_buffer(n);
  if (b->base == nullptr) {
    b->full = true;
    b->no_memory = true;
    report("out of memory for a trace buffer of " + std::to_string(n * sizeof(Record)) +
           " bytes: this thread's calls are counted as dropped");
  }
  b->pos = b->base;
  b->end = b->base == nullptr ? nullptr : b->base + n;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    b->index = g.threads++;
    b->next = g.buffers;
    g.buffers = b;
  }
  t_buffer = b;
  return b;
}

/// Notes that the buffer's `n` records are lost because its spill file could not be written
/// (errno says why); the first loss of a thread is said at once, all of them at MPI_Finalize.
static void spill_failed(ThreadBuffer *b, std::size_t n, const std::string &what) noexcept {
  if (b->spill_errno == 0) {
    b->spill_errno = errno != 0 ? errno : EIO;
    report("rank " + std::to_string(g.rank) + ": " + what + ": " + std::strerror(b->spill_errno) +
           "; " + std::to_string(n) +
           " events of this buffer are lost (later losses are counted, and said at "
           "MPI_Finalize)");
  }
  b->dropped += n;
  b->lost += n;
}

/// Writes the buffer's records to its spill file and empties it. False if they were lost.
static bool flush(ThreadBuffer *b) noexcept {
  const std::size_t n = static_cast<std::size_t>(b->pos - b->base);
  if (n == 0)
    return true;
  if (b->fd == -2) {
    errno = EIO;
    spill_failed(b, n, "cannot write spill file '" + escape_name(spill_path(b->index)) + "'");
    b->flushes++;
    b->pos = b->base;
    return false;
  }
  if (b->fd < 0) {
    const std::string path = spill_path(b->index);
    b->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (b->fd < 0) {
      spill_failed(b, n, "cannot create spill file '" + escape_name(path) + "'");
      b->pos = b->base;
      return false;
    }
  }
  const bool ok = write_all(b->fd, b->base, n * sizeof(Record));
  if (ok) {
    b->spilled += n;
  } else {
    const int error = errno;
    // A write cut short (a full disk) leaves part of a record: the file is cut back to its
    // whole records, so that later flushes stay aligned and the file reads back.
    const auto whole = static_cast<off_t>(b->spilled * sizeof(Record));
    if (::ftruncate(b->fd, whole) != 0 || ::lseek(b->fd, whole, SEEK_SET) != whole) {
      ::close(b->fd);
      b->fd = -2; // unusable: every later flush is lost, the records so far are kept
    }
    errno = error;
    spill_failed(b, n, "cannot write spill file '" + escape_name(spill_path(b->index)) + "'");
  }
  b->flushes++;
  b->pos = b->base;
  return ok;
}

Record *buffer_full(ThreadBuffer *b) noexcept {
  if (b->full || g.on_full == OnFull::kDrop || b->base == nullptr) {
    b->full = true;
    b->dropped++;
    return &t_scratch;
  }
  const std::uint64_t t0 = now();
  flush(b);
  Record *f = b->pos++;
  *f = Record{};
  f->t0 = t0;
  f->t1 = now();
  f->kind = kFlush;
  return b->pos++;
}

namespace {

ThreadBuffer *buffer() noexcept {
  ThreadBuffer *b = t_buffer;
  return b != nullptr ? b : make_buffer();
}

std::uint64_t new_id(ThreadBuffer *b) noexcept {
  return (static_cast<std::uint64_t>(b->index) << 40) | ++b->next_id;
}

} // namespace

std::uint64_t remember(MPI_Request request, Pending p) noexcept {
  ThreadBuffer *b = buffer();
  p.id = new_id(b);
  if (g.track_completions && request != MPI_REQUEST_NULL && !g.requests.insert(key_of(request), p))
    b->untracked++;
  return p.id;
}

void remember_persistent(MPI_Request request, const Persistent &p) noexcept {
  if (request == MPI_REQUEST_NULL)
    return;
  if (!g.persistent.insert(key_of(request), p))
    buffer()->untracked++;
}

void start_persistent(Routine r, int count, const MPI_Request *requests, std::uint64_t t) noexcept {
  if (!g.persistent.used())
    return;
  ThreadBuffer *b = buffer();
  for (int i = 0; i < count; ++i) {
    Persistent q;
    if (requests[i] == MPI_REQUEST_NULL || !g.persistent.find(key_of(requests[i]), &q))
      continue;
    Pending p;
    p.kind = q.kind;
    p.object = q.object;
    p.routine = static_cast<std::uint16_t>(r);
    p.id = new_id(b);
    if (g.track_completions && !g.requests.insert(key_of(requests[i]), p))
      b->untracked++;
    Record *o = op_record(static_cast<RecordKind>(q.kind), r, t);
    o->object = q.object;
    o->x = p.id;
    if (q.kind == kIsend) {
      o->peer = q.peer;
      o->tag = q.tag;
      o->bytes = q.bytes;
    }
  }
}

void remember_message(MPI_Message message, MPI_Comm comm) noexcept {
  if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
    return;
  MessageComm m;
  m.comm = key_of(comm);
  if (!g.messages.insert(key_of(message), m))
    buffer()->untracked++;
}

std::uint64_t take_message(MPI_Message message) noexcept {
  if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC || !g.messages.used())
    return 0;
  MessageComm m;
  return g.messages.take(key_of(message), &m) ? m.comm : 0;
}

void forget(MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL)
    return;
  Pending p;
  if (g.requests.used())
    g.requests.take(key_of(request), &p);
  Persistent q;
  if (g.persistent.used())
    g.persistent.take(key_of(request), &q);
}

void complete_requests(int count, const MPI_Request *before, const MPI_Status *statuses,
                       const int *done, std::uint64_t t, const std::uint64_t *orders) noexcept {
  if (!g.requests.used())
    return;
  for (int i = 0; i < count; ++i) {
    if (!done[i] || before[i] == MPI_REQUEST_NULL)
      continue;
    Pending p;
    if (!g.requests.take(key_of(before[i]), orders != nullptr ? orders[i] : 0, &p))
      continue;
    if (p.kind == kPendingCommIdup) {
      // The new communicator is valid now that the operation is complete.
      register_comm(*reinterpret_cast<const MPI_Comm *>(static_cast<std::uintptr_t>(p.object)), t);
      continue;
    }
    const MPI_Status *st = &statuses[i];
    int cancelled = 0;
    // Not for I/O: Open MPI 4.1's OMPIO leaves the cancelled flag of a file request's status
    // unset (garbage), and neither it nor ROMIO can cancel one.
    if (p.kind != kIoIssued)
      PMPI_Test_cancelled(st, &cancelled);
    const auto r = static_cast<Routine>(p.routine);
    if (cancelled) {
      op_record(kRequestCancelled, r, t)->x = p.id;
    } else if (p.kind == kIsend) {
      op_record(kIsendComplete, r, t)->x = p.id;
    } else if (p.kind == kIrecvRequest) {
      Record *o = op_record(kIrecv, r, t);
      o->object = p.object;
      o->peer = st->MPI_SOURCE;
      o->tag = st->MPI_TAG;
      o->bytes = status_bytes(st);
      o->x = p.id;
    } else if (p.kind == kIoIssued) {
      Record *o = op_record(kIoComplete, r, t);
      o->object = p.object;
      o->bytes2 = status_bytes(st);
      o->x = p.id;
    } else if (p.kind == kNbcRequest) {
      Record *o = op_record(kNbcComplete, r, t);
      o->object = p.object;
      o->peer = p.root;
      o->bytes = p.sent;
      o->bytes2 = p.received;
      o->x = p.id;
    }
  }
}

namespace {

void add_entry(std::vector<GroupEntry> &list, GroupEntry e) {
  std::lock_guard<std::mutex> guard(g.lock);
  for (const GroupEntry &o : list)
    if (o.world == e.world && o.remote == e.remote && o.inter == e.inter)
      e.ordinal++;
  list.push_back(std::move(e));
}

} // namespace

void register_comm(MPI_Comm comm, std::uint64_t t) noexcept {
  if (comm == MPI_COMM_NULL)
    return;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return;
  try {
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    GroupEntry e;
    e.handle = key_of(comm);
    e.created = t;
    e.world = support::group_world_ranks(group, g.world_group);
    PMPI_Group_free(&group);
    if (inter) {
      // Point-to-point peers and roots of an inter-communicator are ranks of its remote
      // group: the archive defines it as an OTF2 InterComm of both groups.
      MPI_Group remote;
      PMPI_Comm_remote_group(comm, &remote);
      e.remote = support::group_world_ranks(remote, g.world_group);
      e.inter = true;
      PMPI_Group_free(&remote);
    }
    add_entry(g.comms, std::move(e));
  } catch (...) {
    report("out of memory: a communicator is not recorded");
  }
}

void register_win(MPI_Win win, MPI_Comm over, std::uint64_t t) noexcept {
  if (win == MPI_WIN_NULL)
    return;
  try {
    MPI_Group group;
    PMPI_Win_get_group(win, &group);
    GroupEntry e;
    e.handle = key_of(win);
    e.created = t;
    e.world = support::group_world_ranks(group, g.world_group);
    e.comm = key_of(over);
    PMPI_Group_free(&group);
    add_entry(g.wins, std::move(e));
  } catch (...) {
    report("out of memory: a window is not recorded");
  }
}

void register_file(MPI_File file, const char *path, MPI_Comm comm, int amode,
                   std::uint64_t t) noexcept {
  try {
    FileEntry e;
    e.handle = key_of(file);
    e.created = t;
    e.path = path != nullptr ? path : "";
    e.comm = key_of(comm);
    e.amode = amode;
    std::lock_guard<std::mutex> guard(g.lock);
    g.files.push_back(std::move(e));
  } catch (...) {
    report("out of memory: a file is not recorded");
  }
}

namespace {

std::vector<std::string> g_hosts;

// ---- arguments ------------------------------------------------------------------------------

const pnmpi_flag_t kClassWords[] = {
    {"p2p", kClassP2P}, {"request", kClassRequest}, {"coll", kClassColl},
    {"rma", kClassRma}, {"io", kClassIo},           {"comm", kClassComm},
    {"env", kClassEnv}, {"all", kClassAll},         {nullptr, 0}};

/// `argument buffer SIZE`: bytes, with an optional K, M or G (powers of 1024).
bool parse_size(const char *text, std::size_t *bytes) {
  char *end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || errno != 0 || text[0] == '-')
    return false;
  unsigned long long mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1ull << 10;
  else if (*end == 'M' || *end == 'm')
    mult = 1ull << 20;
  else if (*end == 'G' || *end == 'g')
    mult = 1ull << 30;
  if (mult != 1)
    ++end;
  if (*end != '\0' || v > (1ull << 40) / mult)
    return false;
  *bytes = static_cast<std::size_t>(v * mult);
  return true;
}

void read_arguments(PNMPI_modHandle_t self) {
  unsigned classes = kClassAll;
  if (pnmpi_argument_flags(self, "trace", PNMPI_ARG_OPTIONAL, kClassWords, &classes) ==
      PNMPI_BADARG)
    _exit(1);
  for (int r = 0; r < kRoutineCount; ++r)
    g.enabled[r] = (kRoutines[r].cls & classes) != 0;

  const char *list = nullptr;
  if (pnmpi_argument_string(self, "routines", PNMPI_ARG_NONEMPTY, &list) == PNMPI_BADARG)
    _exit(1);
  if (list != nullptr) {
    // A list of routines replaces the classes: exactly those are traced.
    std::fill(std::begin(g.enabled), std::end(g.enabled), false);
    std::string text(list);
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t comma = text.find(',', start);
      if (comma == std::string::npos)
        comma = text.size();
      std::string word = text.substr(start, comma - start);
      word.erase(0, word.find_first_not_of(" \t"));
      word.erase(word.find_last_not_of(" \t") + 1);
      int found = -1;
      for (int r = 0; r < kRoutineCount; ++r)
        if (word == kRoutines[r].name)
          found = r;
      if (found < 0) {
        const std::string problem = "names '" + escape_name(word) +
                                    "', not a routine the trace wraps: name routines as "
                                    "MPI_Send, separated by commas (docs/trace.md lists them)";
        pnmpi_argument_refuse(self, "routines", problem.c_str());
        _exit(1);
      }
      g.enabled[found] = true;
      start = comma + 1;
    }
  }

  // A request is noted only for the Wait or Test that completes it: with none of them
  // traced, noting requests would fill the table with entries nothing ever takes.
  for (Routine r :
       {r_Wait, r_Waitall, r_Waitany, r_Waitsome, r_Test, r_Testall, r_Testany, r_Testsome})
    g.track_completions = g.track_completions || g.enabled[r];

  std::size_t bytes = kDefaultBuffer;
  const char *size = nullptr;
  if (pnmpi_argument_string(self, "buffer", PNMPI_ARG_NONEMPTY, &size) == PNMPI_BADARG)
    _exit(1);
  if (size != nullptr && (!parse_size(size, &bytes) || bytes < kMinBuffer)) {
    // Said by the core, at the argument's line; a value too large is not called too small.
    const std::string problem = "must be a size in bytes from " + std::to_string(kMinBuffer) +
                                " to 1T, with an optional K, M or G (powers of 1024), not '" +
                                size + "'";
    if (pnmpi_argument_refuse(self, "buffer", problem.c_str()) != PNMPI_BADARG)
      report("argument 'buffer' " + problem);
    _exit(1);
  }
  g.buffer_records = bytes / sizeof(Record);

  long slots = kDefaultTableSlots;
  if (pnmpi_argument_long(self, "requests", PNMPI_ARG_OPTIONAL, 64, 1l << 30, &slots) ==
      PNMPI_BADARG)
    _exit(1);
  g.table_slots = static_cast<std::size_t>(slots);

  static const char *const kOnFull[] = {"flush", "drop", nullptr};
  int choice = 0;
  if (pnmpi_argument_choice(self, "on-full", PNMPI_ARG_OPTIONAL, kOnFull, &choice) == PNMPI_BADARG)
    _exit(1);
  g.on_full = choice == 1 ? OnFull::kDrop : OnFull::kFlush;

  static const char *const kClock[] = {"aligned", "local", nullptr};
  int clock = 0;
  if (pnmpi_argument_choice(self, "clock", PNMPI_ARG_OPTIONAL, kClock, &clock) == PNMPI_BADARG)
    _exit(1);
  g.align_clocks = clock == 0;

  const char *output = "pnmpi-trace";
  if (pnmpi_argument_string(self, "output", PNMPI_ARG_NONEMPTY, &output) == PNMPI_BADARG)
    _exit(1);
  g.output = output;
  while (g.output.size() > 1 && g.output.back() == '/')
    g.output.pop_back();
  char at[1024] = "module 'trace'";
  pnmpi_argument_where(self, "output", at, sizeof at);
  g.output_where = at;
}

/// The job's message about an output directory it cannot use (`error` from output_dir.cpp).
static std::string output_message(const std::string &error) {
  return g.output_where + ": " + error +
         "; choose a writable directory with 'argument output DIR' under 'module trace' in the "
         "configuration";
}

void start() {
  PMPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  PMPI_Comm_rank(g.comm, &g.rank);
  PMPI_Comm_size(g.comm, &g.size);
  PMPI_Comm_group(MPI_COMM_WORLD, &g.world_group);

  std::string error = g.rank == 0 ? prepare_output() : "";
  int failed = error.empty() ? 0 : 1;
  PMPI_Bcast(&failed, 1, MPI_INT, 0, g.comm);
  // Only rank 0, which has the message, ends the job: an abort from another rank could end
  // it before MPICH's launcher has passed rank 0's message on.
  if (failed && g.rank == 0)
    pnmpi_abort_job(output_message(error).c_str());
  if (failed)
    pnmpi_await_abort();

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::vector<char> all(static_cast<std::size_t>(g.size) * sizeof host);
  PMPI_Allgather(host, sizeof host, MPI_CHAR, all.data(), sizeof host, MPI_CHAR, g.comm);
  for (int r = 0; r < g.size; ++r)
    g_hosts.emplace_back(&all[static_cast<std::size_t>(r) * sizeof host]);

  if (!g.requests.init(g.table_slots) || !g.persistent.init(g.table_slots) ||
      !g.messages.init(g.table_slots))
    report("out of memory for the request tables of 'argument requests " +
           std::to_string(g.table_slots) +
           "': the completions of nonblocking operations are not recorded; lower it");

  register_comm(MPI_COMM_WORLD, 0);
  register_comm(MPI_COMM_SELF, 0);
  const Offset at_init = measure_offset(g_hosts);
  g.offset_init = at_init.ns;
  g.bound_init = at_init.bound;
  g.init = clock_pair();
  g.active.store(true, std::memory_order_release);
}

/// After write_archive(): says what failed (each rank its own), moves the archive into
/// place or marks it failed, and makes the job's exit status say whether output was lost.
void finish_archive(const std::string &error) {
  std::uint64_t lost = 0, lost_threads = 0;
  int lost_errno = 0;
  {
    std::lock_guard<std::mutex> guard(g.lock);
    for (ThreadBuffer *b = g.buffers; b != nullptr; b = b->next)
      if (b->lost > 0) {
        lost += b->lost;
        lost_threads++;
        lost_errno = b->spill_errno;
      }
  }
  if (lost > 0) {
    // The archive is written without them, and says so (PNMPI::DROPPED_EVENTS); the job
    // fails, as for any other output lost.
    report("rank " + std::to_string(g.rank) + ": " + std::to_string(lost) +
           " events are missing from the archive: " + std::to_string(lost_threads) +
           " thread(s) could not write their spill files in '" + escape_name(g.output) + "/raw' (" +
           std::strerror(lost_errno) + ")");
    pnmpi_fail_at_exit();
  }
  if (!error.empty())
    report("rank " + std::to_string(g.rank) + ": " + error);
  int failed = error.empty() ? 0 : 1, any = 0;
  PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, g.comm);
  const std::vector<std::string> errors =
      gather(error.empty() ? "" : "  rank " + std::to_string(g.rank) + ": " + error + "\n");
  if (any) {
    pnmpi_fail_at_exit();
    if (g.rank == 0) {
      std::string lines;
      for (const std::string &e : errors)
        lines += e;
      struct stat st;
      const bool earlier = ::stat((g.output + "/traces.otf2").c_str(), &st) == 0;
      const std::string marked = mark_failed(lines);
      report("the archive in '" + escape_name(g.output) + "' was not written (see " +
             escape_name(g.output) + "/INCOMPLETE)" +
             (earlier ? "; the earlier run's archive there is left as it was" : "") +
             (marked.empty() ? "" : "; " + marked));
    }
    return;
  }
  if (g.rank == 0) {
    const std::string moved = commit_archive();
    if (!moved.empty()) {
      report(moved);
      pnmpi_fail_at_exit();
    }
  }
  // The raw records are in the archive now.
  std::lock_guard<std::mutex> guard(g.lock);
  for (ThreadBuffer *b = g.buffers; b != nullptr; b = b->next)
    if (b->spilled > 0 || b->flushes > 0)
      std::remove(spill_path(b->index).c_str());
}

} // namespace

const std::vector<std::string> &hosts() {
  return g_hosts;
}

} // namespace pnmpi::trace

using namespace pnmpi::trace;

PNMPI_MODULE_ARGUMENTS("output trace routines buffer on-full clock requests");

extern "C" {

/// The arguments (read_arguments, the job's own reader, which ends the process after the
/// core has printed a bad value): pnmpi-info --check runs this in a process of its own.
/// The arguments, and the output directory rank 0 prepares at MPI_Init: pnmpi-info --check.
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  read_arguments(self);
  const std::string problem = output_problem();
  if (problem.empty())
    return PNMPI_SUCCESS;
  std::fprintf(stderr, "pnmpi: %s\n", output_message(problem).c_str());
  return PNMPI_BADARG;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  read_arguments(self);
  g_use_tsc = tsc_usable();
  for (int r = 0; r < kRoutineCount; ++r)
    g.pnmpi_id[r] = pnmpi_routine_id(kRoutines[r].name);
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  const std::uint64_t t0 = now();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    start();
    if (g.enabled[r_Init]) {
      buffer(); // faulted in before the end is read: MPI_Init's time, not the caller's
      call_record(r_Init, t0, now());
    }
  }
  return rc;
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const std::uint64_t t0 = now();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    start();
    if (g.enabled[r_Init_thread]) {
      buffer(); // faulted in before the end is read: MPI_Init's time, not the caller's
      call_record(r_Init_thread, t0, now());
    }
  }
  return rc;
}

PNMPI_EXPORT int MPI_Finalize(void) {
  if (!g.active.load())
    return PMPI_Finalize();
  const std::uint64_t t0 = now();
  const Offset at_finalize = measure_offset(g_hosts);
  g.offset_finalize = at_finalize.ns;
  g.bound_finalize = at_finalize.bound;
  g.finalize = clock_pair();
  if (g.enabled[r_Finalize])
    call_record(r_Finalize, t0, g.finalize.tick);
  g.active.store(false);
  finish_archive(write_archive());
  // Every rank has replayed and removed its spill files: raw/ goes unless something else is
  // in it (or the archive was not written, and the spill files stay).
  PMPI_Barrier(g.comm);
  if (g.rank == 0)
    ::rmdir((g.output + "/raw").c_str());
  PMPI_Comm_free(&g.comm);
  PMPI_Group_free(&g.world_group);
  return PMPI_Finalize();
}

} // extern "C"

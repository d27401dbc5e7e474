// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The trace's life cycle: arguments, per-thread buffers and their flushing, the registries
// of communicators, windows, files and requests, MPI_Init and MPI_Finalize, and the clock
// offsets measured at both.

#include "trace.h"

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

ClockPair clock_pair() noexcept {
  ClockPair best;
  std::uint64_t window = UINT64_MAX;
  for (int i = 0; i < 32; ++i) {
    const std::uint64_t a = now();
    const std::uint64_t ns = monotonic_ns();
    const std::uint64_t b = now();
    if (b - a < window) {
      window = b - a;
      best.tick = a + (b - a) / 2;
      best.ns = ns;
    }
  }
  return best;
}

/// The time-stamp counter is used where the kernel keeps CLOCK_MONOTONIC with it: then it
/// is invariant (constant rate, runs in every state) and the same on every core.
static bool tsc_usable() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  FILE *f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (f == nullptr)
    return false;
  char name[32] = {};
  const bool ok = std::fgets(name, sizeof name, f) != nullptr && std::strncmp(name, "tsc", 3) == 0;
  std::fclose(f);
  return ok;
#else
  return false;
#endif
}

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

std::string spill_path(std::uint32_t thread) {
  return g.output + "/raw/rank" + std::to_string(g.rank) + ".thread" + std::to_string(thread) +
         ".raw";
}

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
    t_buffer = &lost;
    return &lost;
  }
  const std::size_t n = g.buffer_records;
  b->base = allocate_buffer(n);
  if (b->base == nullptr) {
    b->full = true;
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

/// Writes the buffer's records to its spill file and empties it. False if they were lost.
static bool flush(ThreadBuffer *b) noexcept {
  const std::size_t n = static_cast<std::size_t>(b->pos - b->base);
  if (n == 0)
    return true;
  if (b->fd < 0) {
    const std::string path = spill_path(b->index);
    b->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (b->fd < 0) {
      report("cannot create spill file '" + path + "': " + std::strerror(errno) + "; " +
             std::to_string(n) + " events of this buffer are dropped");
      b->dropped += n;
      b->pos = b->base;
      return false;
    }
  }
  const bool ok = write_all(b->fd, b->base, n * sizeof(Record));
  if (ok) {
    b->spilled += n;
  } else {
    report("cannot write spill file '" + spill_path(b->index) + "': " + std::strerror(errno) +
           "; " + std::to_string(n) + " events are dropped");
    b->dropped += n;
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

// ---- the handle tables ---------------------------------------------------------------------

template <class Value> bool HandleTable<Value>::init(std::size_t capacity) noexcept {
  std::size_t n = kWindow;
  unsigned bits = 5;
  while (n < capacity && bits < 40) {
    n <<= 1;
    ++bits;
  }
  static_assert(std::is_trivially_copyable<Value>::value, "table values are copied as bytes");
  // calloc: the kernel gives zeroed pages when they are first touched, so a generous
  // capacity costs address space, not memory, until the slots are used.
  m_keys = static_cast<std::atomic<std::uint64_t> *>(std::calloc(n, sizeof *m_keys));
  m_slots = static_cast<Slot *>(std::calloc(n, sizeof *m_slots));
  if (m_keys == nullptr || m_slots == nullptr) {
    std::free(m_keys);
    std::free(m_slots);
    m_keys = nullptr;
    m_slots = nullptr;
    return false;
  }
  m_mask = n - 1;
  m_shift = 64 - bits;
  return true;
}

template <class Value>
bool HandleTable<Value>::insert(std::uint64_t key, const Value &value) noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return false;
  if (!m_used.load(std::memory_order_relaxed))
    m_used.store(true, std::memory_order_relaxed);
  const std::size_t h = home(key);
  for (std::size_t i = 0; i < kWindow; ++i) {
    std::atomic<std::uint64_t> &k = m_keys[(h + i) & m_mask];
    std::uint64_t expected = kFree;
    // Acquire: the previous owner's reads of this slot happen before our writes.
    if (k.load(std::memory_order_relaxed) == kFree &&
        k.compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                  std::memory_order_relaxed)) {
      Slot &s = m_slots[(h + i) & m_mask];
      s.value = value;
      s.stamp.store(m_order.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      k.store(key, std::memory_order_release);
      return true;
    }
  }
  return false;
}

template <class Value> std::uint64_t HandleTable<Value>::newest(std::uint64_t key) const noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return 0;
  const std::size_t h = home(key);
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < kWindow; ++i) {
    const std::size_t at = (h + i) & m_mask;
    if (m_keys[at].load(std::memory_order_acquire) == key)
      best = std::max(best, m_slots[at].stamp.load(std::memory_order_relaxed));
  }
  return best;
}

template <class Value>
std::size_t HandleTable<Value>::claim(std::uint64_t key, std::uint64_t order) noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return SIZE_MAX;
  const std::size_t h = home(key);
  if (order != 0) {
    for (std::size_t i = 0; i < kWindow; ++i) {
      const std::size_t at = (h + i) & m_mask;
      if (m_keys[at].load(std::memory_order_acquire) != key ||
          m_slots[at].stamp.load(std::memory_order_relaxed) != order)
        continue;
      std::uint64_t expected = key;
      if (!m_keys[at].compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                              std::memory_order_relaxed))
        break;
      // Ours now; still the entry asked for unless it was taken and the slot reused.
      if (m_slots[at].stamp.load(std::memory_order_relaxed) == order)
        return at;
      m_keys[at].store(key, std::memory_order_release);
      break;
    }
  }
  // Retried only when another thread claimed the chosen slot between the scan and the CAS.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::size_t best = SIZE_MAX;
    std::uint64_t best_stamp = UINT64_MAX;
    for (std::size_t i = 0; i < kWindow; ++i) {
      const std::size_t at = (h + i) & m_mask;
      if (m_keys[at].load(std::memory_order_acquire) != key)
        continue;
      const std::uint64_t stamp = m_slots[at].stamp.load(std::memory_order_relaxed);
      if (best == SIZE_MAX || stamp < best_stamp) {
        best = at;
        best_stamp = stamp;
      }
    }
    if (best == SIZE_MAX)
      return SIZE_MAX;
    std::uint64_t expected = key;
    if (m_keys[best].compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                             std::memory_order_relaxed))
      return best;
  }
  return SIZE_MAX;
}

template <class Value>
bool HandleTable<Value>::take(std::uint64_t key, std::uint64_t order, Value *out) noexcept {
  const std::size_t at = claim(key, order);
  if (at == SIZE_MAX)
    return false;
  *out = m_slots[at].value;
  m_keys[at].store(kFree, std::memory_order_release);
  return true;
}

template <class Value> bool HandleTable<Value>::find(std::uint64_t key, Value *out) noexcept {
  const std::size_t at = claim(key, 0);
  if (at == SIZE_MAX)
    return false;
  *out = m_slots[at].value;
  m_keys[at].store(key, std::memory_order_release);
  return true;
}

// The wrapper files use the tables through trace.h's inline functions.
template class HandleTable<Pending>;
template class HandleTable<Persistent>;
template class HandleTable<MessageComm>;

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

std::vector<int> world_of(MPI_Group group) {
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i)
    ranks[static_cast<std::size_t>(i)] = i;
  if (n > 0)
    PMPI_Group_translate_ranks(group, n, ranks.data(), g.world_group, world.data());
  return world;
}

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
    e.world = world_of(group);
    PMPI_Group_free(&group);
    if (inter) {
      // Point-to-point peers and roots of an inter-communicator are ranks of its remote
      // group: the archive defines it as an OTF2 InterComm of both groups.
      MPI_Group remote;
      PMPI_Comm_remote_group(comm, &remote);
      e.remote = world_of(remote);
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
    e.world = world_of(group);
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
        report("argument 'routines': '" + word +
               "' is not a routine the trace wraps; name routines as MPI_Send, separated by "
               "commas (docs/trace.md lists them)");
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
    report("argument 'buffer' must be a size in bytes of at least " + std::to_string(kMinBuffer) +
           ", with an optional K, M or G, not '" + size + "'");
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
}

// ---- start and end -------------------------------------------------------------------------

/// Makes `path` and its parents; an error message, or empty.
std::string make_directories(const std::string &path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/')
      continue;
    const std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      return "cannot create directory '" + part + "': " + std::strerror(errno);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "'" + path + "' is not a directory";
  return "";
}

const char kIncompleteText[] =
    "This trace is incomplete: the job started writing it at MPI_Init and has not (yet)\n"
    "finished it at MPI_Finalize (it is still running, was killed, or failed). The raw\n"
    "records flushed so far are in raw/ (64-byte records, see docs/trace.md).\n";

/// Rank 0: prepares the output directory; an error message, or empty.
std::string prepare_output() {
  std::string error = make_directories(g.output);
  if (error.empty())
    error = make_directories(g.output + "/raw");
  if (!error.empty())
    return error;
  // An earlier run's archive in the same directory is replaced, never mixed with this one
  // (OTF2 refuses to write into an existing archive directory). Only what the trace writes
  // is removed: a directory holding anything else is an error.
  std::remove((g.output + "/traces.otf2").c_str());
  std::remove((g.output + "/traces.def").c_str());
  std::remove((g.output + "/summary.txt").c_str());
  for (const char *sub : {"/traces", "/raw"}) {
    const std::string dir = g.output + sub;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (const dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        const auto ends = [&](const char *suffix) {
          const std::size_t n = std::strlen(suffix);
          return name.size() > n && name.compare(name.size() - n, n, suffix) == 0;
        };
        if (ends(".evt") || ends(".def") || ends(".raw"))
          std::remove((dir + "/" + name).c_str());
      }
      ::closedir(d);
    }
  }
  if (::rmdir((g.output + "/traces").c_str()) != 0 && errno != ENOENT)
    return "cannot replace the earlier archive in '" + g.output +
           "/traces': " + std::strerror(errno) + " (it holds files the trace did not write?)";
  const std::string marker = g.output + "/INCOMPLETE";
  FILE *f = std::fopen(marker.c_str(), "w");
  if (f == nullptr)
    return "cannot write '" + marker + "': " + std::strerror(errno);
  const bool ok = std::fputs(kIncompleteText, f) >= 0;
  if (std::fclose(f) != 0 || !ok)
    return "cannot write '" + marker + "': " + std::strerror(errno);
  return "";
}

/// Waits for `request` without spinning: a rank waiting for the offset measurement of
/// another leaves the CPU to it (ranks may outnumber a host's cores, and then a spinning
/// rank delays the round trips being timed by whole scheduler time slices).
void wait_yielding(MPI_Request *request) {
  int done = 0;
  PMPI_Test(request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    const timespec pause = {0, 50000};
    nanosleep(&pause, nullptr);
    PMPI_Test(request, &done, MPI_STATUS_IGNORE);
  }
}

/// An offset (ns) to add to a rank's CLOCK_MONOTONIC to read rank 0's, and the most it can
/// be off by (ns).
struct Offset {
  double ns = 0, bound = 0;
};

/// This rank's Offset, measured now.
///
/// One rank per host (its lowest, the host's leader) is measured: every process of a host
/// reads the same CLOCK_MONOTONIC, so its ranks share one offset, exactly, and messages
/// between them keep their order; the ranks of rank 0's host get exactly 0. Rank 0 sends
/// the leader pings; the leader answers each with its clock. A reply's clock was read
/// between rank 0's send (t0) and its receive (t1), so every round bounds the offset to
/// [t0 - remote, t1 - remote]: the estimate is the middle of the intersection of all
/// rounds' bounds, and its error at most half the intersection's width, which the fastest
/// ping and the fastest reply seen set, however slow the other rounds were (a rank delayed
/// by its scheduler only widens its own round's bounds). Rounds go on past kRounds while
/// the bound is above kGoodBound, up to
/// kMaxRounds: a loaded host may need more to see a fast ping and a fast reply. The
/// offsets go to every rank at the end, so that no rank leaves before the measurements are
/// done (and competes with them for a core).
Offset measure_offset(const std::vector<std::string> &hosts) {
  constexpr int kRounds = 20, kMaxRounds = 60;
  constexpr double kGoodBound = 50e3;
  std::unordered_map<std::string, int> first_on_host;
  for (int r = g.size - 1; r >= 0; --r)
    first_on_host[hosts[static_cast<std::size_t>(r)]] = r;
  const auto leader_of = [&](int r) { return first_on_host[hosts[static_cast<std::size_t>(r)]]; };
  std::vector<Offset> offsets;
  if (g.rank == 0) {
    offsets.assign(static_cast<std::size_t>(g.size), Offset{});
    for (int r = 1; r < g.size; ++r) {
      const int leader = leader_of(r);
      if (leader != r) {
        offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(leader)];
        continue;
      }
      double low = -1e300, high = 1e300;
      for (int i = 0;; ++i) {
        // Each ping says whether it is the last.
        int last = i + 1 >= kMaxRounds || (i + 1 >= kRounds && (high - low) / 2 <= kGoodBound);
        std::uint64_t remote = 0;
        const std::uint64_t t0 = monotonic_ns();
        PMPI_Send(&last, 1, MPI_INT, r, 1, g.comm);
        PMPI_Recv(&remote, 1, MPI_UINT64_T, r, 2, g.comm, MPI_STATUS_IGNORE);
        const std::uint64_t t1 = monotonic_ns();
        low = std::max(low, static_cast<double>(t0) - static_cast<double>(remote));
        high = std::min(high, static_cast<double>(t1) - static_cast<double>(remote));
        if (last)
          break;
      }
      // The bounds cannot cross while both clocks run at one rate; if a clock was stepped
      // during the rounds they can, and then the middle is still the best guess.
      offsets[static_cast<std::size_t>(r)] = Offset{(low + high) / 2, std::abs(high - low) / 2};
    }
  } else if (leader_of(g.rank) == g.rank && leader_of(g.rank) != 0) {
    // The first ping waits without spinning: rank 0 may be measuring other hosts first.
    int last = 0;
    MPI_Request ping;
    PMPI_Irecv(&last, 1, MPI_INT, 0, 1, g.comm, &ping);
    wait_yielding(&ping);
    for (;;) {
      const std::uint64_t t = monotonic_ns();
      PMPI_Send(&t, 1, MPI_UINT64_T, 0, 2, g.comm);
      if (last)
        break;
      PMPI_Recv(&last, 1, MPI_INT, 0, 1, g.comm, MPI_STATUS_IGNORE);
    }
  }
  double mine[2] = {0, 0};
  std::vector<double> all;
  for (const Offset &o : offsets) {
    all.push_back(o.ns);
    all.push_back(o.bound);
  }
  MPI_Request request;
  PMPI_Iscatter(all.data(), 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, 0, g.comm, &request);
  wait_yielding(&request);
  return Offset{mine[0], mine[1]};
}

std::vector<std::string> g_hosts;

void start() {
  PMPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  PMPI_Comm_rank(g.comm, &g.rank);
  PMPI_Comm_size(g.comm, &g.size);
  PMPI_Comm_group(MPI_COMM_WORLD, &g.world_group);

  std::string error = g.rank == 0 ? prepare_output() : "";
  int failed = error.empty() ? 0 : 1;
  PMPI_Bcast(&failed, 1, MPI_INT, 0, g.comm);
  if (failed) {
    // Only rank 0, which has the message, ends the job: an abort from another rank can
    // end it before MPICH's launcher has passed rank 0's message on. The others wait in a
    // barrier rank 0 never enters, until its abort ends them.
    if (g.rank == 0)
      report(error + "; choose a writable directory with 'argument output DIR' under 'module "
                     "trace' in the configuration");
    else
      PMPI_Barrier(g.comm);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
  }

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

} // namespace

const std::vector<std::string> &hosts() {
  return g_hosts;
}

} // namespace pnmpi::trace

using namespace pnmpi::trace;

PNMPI_MODULE_ARGUMENTS("output trace routines buffer on-full clock requests");

extern "C" {

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
  const std::string error = write_archive();
  int failed = error.empty() ? 0 : 1, any = 0;
  PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, g.comm);
  if (failed)
    report("rank " + std::to_string(g.rank) + ": " + error);
  if (g.rank == 0 && !any) {
    std::remove((g.output + "/INCOMPLETE").c_str());
    // Every rank has replayed and removed its spill files (the Allreduce above): raw/ goes
    // unless something else is in it.
    ::rmdir((g.output + "/raw").c_str());
  }
  PMPI_Comm_free(&g.comm);
  PMPI_Group_free(&g.world_group);
  return PMPI_Finalize();
}

} // extern "C"

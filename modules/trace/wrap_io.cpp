// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// MPI-IO. Every read and write is one I/O operation: its begin (at enter: handle, mode,
// bytes requested, the byte offset of its first byte in the file, collective or not) and
// its completion (bytes done, from the status). A nonblocking one is begun and issued by
// MPI_File_i*, and completed by the Wait or Test that completes its request; a split
// collective one is begun and issued by MPI_File_*_begin and completed by its _end. The byte
// offset is asked of MPI (MPI_File_get_byte_offset), so it accounts for the file view: an
// operation through a non-contiguous view starts there and spans its bytes over the view.

#include "trace.h"

#include <unordered_map>

using namespace pnmpi::trace;

namespace {

/// Where an operation starts in the file: at the individual file pointer, at an explicit
/// offset (in etypes), at the shared file pointer, or where this rank cannot tell (an ordered
/// access starts after the data of the lower ranks, whose sizes it does not know).
struct Position {
  enum How { kIndividual, kExplicit, kShared, kUnknown } how;
  MPI_Offset at = 0;
};

// (A function, not a braced initialiser, for the macros below: its comma would split a
// macro argument.)
Position at(Position::How how, MPI_Offset offset = 0) noexcept {
  return Position{how, offset};
}

/// The byte offset in the file of an operation's first byte, through the view; kNoOffset
/// when it cannot be known.
std::uint64_t byte_offset(MPI_File fh, Position where) noexcept {
  MPI_Offset pos = where.at, byte = 0;
  if (where.how == Position::kUnknown)
    return kNoOffset;
  if (where.how == Position::kIndividual && PMPI_File_get_position(fh, &pos) != MPI_SUCCESS)
    return kNoOffset;
  if (where.how == Position::kShared && PMPI_File_get_position_shared(fh, &pos) != MPI_SUCCESS)
    return kNoOffset;
  if (PMPI_File_get_byte_offset(fh, pos, &byte) != MPI_SUCCESS || byte < 0)
    return kNoOffset;
  return static_cast<std::uint64_t>(byte);
}

std::uint64_t begin(Routine r, std::uint64_t t0, MPI_File fh, IoMode mode, std::uint8_t flags,
                    std::uint64_t requested, std::uint64_t offset, MPI_Request *request) noexcept {
  Pending p;
  p.kind = kIoIssued;
  p.object = key_of(fh);
  p.routine = r;
  const std::uint64_t id = remember(request != nullptr ? *request : MPI_REQUEST_NULL, p);
  Record *o = op_record(kIoBegin, r, t0);
  o->object = key_of(fh);
  o->peer = mode;
  o->flags = flags;
  o->bytes = requested;
  o->bytes2 = offset;
  o->x = id;
  return id;
}

void complete(Routine r, std::uint64_t t, MPI_File fh, std::uint64_t id, int rc,
              const MPI_Status *st) noexcept {
  Record *o = op_record(kIoComplete, r, t);
  o->object = key_of(fh);
  o->bytes2 = rc == MPI_SUCCESS ? status_bytes(st) : 0;
  o->x = id;
}

template <class CT, class Call>
int blocking(Routine r, MPI_File fh, IoMode mode, std::uint8_t flags, CT count, MPI_Datatype type,
             Position where, MPI_Status *status, Call call) noexcept {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const std::uint64_t offset = byte_offset(fh, where);
  const std::uint64_t t0 = now();
  const int rc = call(st);
  const std::uint64_t t1 = now();
  const std::uint64_t id = begin(r, t0, fh, mode, flags, bytes_of(count, type), offset, nullptr);
  complete(r, t1, fh, id, rc, st);
  call_record(r, t0, t1);
  return rc;
}

/// A nonblocking operation (MPI_File_i*, with its request) or the begin of a split collective
/// one (no request): begun at enter, issued at leave; `issued(id)` is told its id.
template <class CT, class Call, class Issued>
int issue(Routine r, MPI_File fh, IoMode mode, std::uint8_t flags, CT count, MPI_Datatype type,
          Position where, MPI_Request *request, Call call, Issued issued) noexcept {
  const std::uint64_t offset = byte_offset(fh, where);
  const std::uint64_t t0 = now();
  const int rc = call();
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    const std::uint64_t id =
        begin(r, t0, fh, mode, flags | kFlagNonblockingIo, bytes_of(count, type), offset, request);
    Record *o = op_record(kIoIssued, r, t1);
    o->object = key_of(fh);
    o->x = id;
    issued(id);
  }
  call_record(r, t0, t1);
  return rc;
}

// Split collective I/O: the begin issues the operation, the end completes it. A file has
// at most one split collective under way (MPI forbids a second begin before the end), so the
// operation's id is kept by file handle.
std::mutex g_split_lock;
std::unordered_map<std::uint64_t, std::uint64_t> g_split; ///< file handle -> id

void split_begun(MPI_File fh, std::uint64_t id) noexcept {
  std::lock_guard<std::mutex> guard(g_split_lock);
  try {
    g_split[key_of(fh)] = id;
  } catch (...) {
    report("out of memory: the completion of a split collective I/O operation is not recorded");
  }
}

template <class Call>
int split_end(Routine r, MPI_File fh, MPI_Status *status, Call call) noexcept {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const std::uint64_t t0 = now();
  const int rc = call(st);
  const std::uint64_t t1 = now();
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> guard(g_split_lock);
    auto it = g_split.find(key_of(fh));
    if (it != g_split.end()) {
      id = it->second;
      g_split.erase(it);
    }
  }
  // Without a traced begin there is no operation to complete.
  if (id != 0)
    complete(r, t1, fh, id, rc, st);
  call_record(r, t0, t1);
  return rc;
}

} // namespace

// The columns of routines.h's I/O list: SIDE (parameters, arguments and mode), FLAGS, WHERE.
#define READ_PARAMS(CT) MPI_File fh, void *buf, CT count, MPI_Datatype type
#define WRITE_PARAMS(CT) MPI_File fh, const void *buf, CT count, MPI_Datatype type
#define AT_READ_PARAMS(CT) MPI_File fh, MPI_Offset offset, void *buf, CT count, MPI_Datatype type
#define AT_WRITE_PARAMS(CT)                                                                        \
  MPI_File fh, MPI_Offset offset, const void *buf, CT count, MPI_Datatype type
#define READ_ARGS fh, buf, count, type
#define WRITE_ARGS READ_ARGS
#define AT_READ_ARGS fh, offset, buf, count, type
#define AT_WRITE_ARGS AT_READ_ARGS
#define READ_MODE kIoRead
#define AT_READ_MODE kIoRead
#define WRITE_MODE kIoWrite
#define AT_WRITE_MODE kIoWrite
#define INDEPENDENT 0
#define COLLECTIVE kFlagCollectiveIo
#define INDIVIDUAL at(Position::kIndividual)
#define EXPLICIT at(Position::kExplicit, offset)
#define SHARED at(Position::kShared)
#define ORDERED at(Position::kUnknown)

#define DEFINE_BLOCKING(NAME, CT, PARAMS, ARGS, MODE, FLAGS, WHERE)                                \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT), MPI_Status *status) {                                    \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(ARGS, status);                                                            \
    return blocking(r_##NAME, fh, MODE, FLAGS, count, type, WHERE, status,                         \
                    [&](MPI_Status *st) { return PMPI_##NAME(ARGS, st); });                        \
  }
#define DEFINE_NONBLOCKING(NAME, CT, PARAMS, ARGS, MODE, FLAGS, WHERE)                             \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT), MPI_Request *request) {                                  \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(ARGS, request);                                                           \
    return issue(                                                                                  \
        r_##NAME, fh, MODE, FLAGS, count, type, WHERE, request,                                    \
        [&]() { return PMPI_##NAME(ARGS, request); }, [](std::uint64_t) {});                       \
  }
#define DEFINE_BEGIN(NAME, CT, PARAMS, ARGS, MODE, FLAGS, WHERE)                                   \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT)) {                                                        \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(ARGS);                                                                    \
    return issue(                                                                                  \
        r_##NAME, fh, MODE, FLAGS, count, type, WHERE, nullptr,                                    \
        [&]() { return PMPI_##NAME(ARGS); }, [fh](std::uint64_t id) { split_begun(fh, id); });     \
  }
#define DEFINE_END(NAME, BUF)                                                                      \
  PNMPI_EXPORT int MPI_##NAME(MPI_File fh, BUF buf, MPI_Status *status) {                          \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(fh, buf, status);                                                         \
    return split_end(r_##NAME, fh, status,                                                         \
                     [&](MPI_Status *st) { return PMPI_##NAME(fh, buf, st); });                    \
  }

// Every read and write with a count (routines.h), with count type int and, as the
// large-count MPI_NAME_c of MPI 4, MPI_Count.
#define DEFINE_INT(NAME, KIND, SIDE, FLAGS, WHERE)                                                 \
  DEFINE_##KIND(NAME, int, SIDE##_PARAMS, SIDE##_ARGS, SIDE##_MODE, FLAGS, WHERE)
#define DEFINE_LARGE(NAME, KIND, SIDE, FLAGS, WHERE)                                               \
  DEFINE_##KIND(NAME, MPI_Count, SIDE##_PARAMS, SIDE##_ARGS, SIDE##_MODE, FLAGS, WHERE)

extern "C" {

PNMPI_TRACE_IO_COUNTED(DEFINE_INT, )
#if MPI_VERSION >= 4
PNMPI_TRACE_IO_COUNTED(DEFINE_LARGE, _c)
#endif
DEFINE_END(File_read_all_end, void *)
DEFINE_END(File_write_all_end, const void *)
DEFINE_END(File_read_at_all_end, void *)
DEFINE_END(File_write_at_all_end, const void *)
DEFINE_END(File_read_ordered_end, void *)
DEFINE_END(File_write_ordered_end, const void *)

PNMPI_EXPORT int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                               MPI_File *fh) {
  if (!g.active.load(std::memory_order_relaxed))
    return PMPI_File_open(comm, filename, amode, info, fh);
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_open(comm, filename, amode, info, fh);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    register_file(*fh, filename, comm, amode, t1);
    if (g.enabled[r_File_open]) {
      Record *o = op_record(kIoCreate, r_File_open, t1);
      o->object = key_of(*fh);
      o->peer = amode;
    }
  }
  if (g.enabled[r_File_open])
    call_record(r_File_open, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_File_close(MPI_File *fh) {
  if (!traced(r_File_close))
    return PMPI_File_close(fh);
  const MPI_File before = *fh;
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_close(fh);
  const std::uint64_t t1 = now();
  op_record(kIoDestroy, r_File_close, t0)->object = key_of(before);
  call_record(r_File_close, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                   MPI_Datatype filetype, const char *datarep, MPI_Info info) {
  if (!traced(r_File_set_view))
    return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
  const std::uint64_t t1 = now();
  Record *o = op_record(kIoView, r_File_set_view, t0);
  o->object = key_of(fh);
  o->x = static_cast<std::uint64_t>(disp);
  o->bytes = bytes_of(1, etype);
  o->bytes2 = bytes_of(1, filetype);
  call_record(r_File_set_view, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_File_sync(MPI_File fh) {
  if (!traced(r_File_sync))
    return PMPI_File_sync(fh);
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_sync(fh);
  call_record(r_File_sync, t0, now());
  return rc;
}

PNMPI_EXPORT int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  if (!traced(r_File_seek))
    return PMPI_File_seek(fh, offset, whence);
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_seek(fh, offset, whence);
  call_record(r_File_seek, t0, now());
  return rc;
}

PNMPI_EXPORT int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  if (!traced(r_File_seek_shared))
    return PMPI_File_seek_shared(fh, offset, whence);
  const std::uint64_t t0 = now();
  const int rc = PMPI_File_seek_shared(fh, offset, whence);
  call_record(r_File_seek_shared, t0, now());
  return rc;
}

} // extern "C"

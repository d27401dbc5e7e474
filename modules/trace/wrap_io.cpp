// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// MPI-IO. Every read and write is one I/O operation: its begin (at enter: handle, mode,
// bytes requested, the byte offset of its first byte in the file, collective or not) and
// its completion (bytes done, from the status). A nonblocking one is begun and issued by
// MPI_File_i*, and completed by the Wait or Test that completes its request. The byte
// offset is asked of MPI (MPI_File_get_byte_offset), so it accounts for the file view: an
// operation through a non-contiguous view starts there and spans its bytes over the view.

#include "trace.h"

using namespace pnmpi::trace;

namespace {

/// The byte offset of the individual file pointer, or of `offset` (in etypes) for _at.
std::uint64_t byte_offset(MPI_File fh, const MPI_Offset *offset) noexcept {
  MPI_Offset pos = 0, byte = 0;
  if (offset != nullptr)
    pos = *offset;
  else if (PMPI_File_get_position(fh, &pos) != MPI_SUCCESS)
    return 0;
  if (PMPI_File_get_byte_offset(fh, pos, &byte) != MPI_SUCCESS || byte < 0)
    return 0;
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

template <class Call>
int blocking(Routine r, MPI_File fh, IoMode mode, std::uint8_t flags, int count, MPI_Datatype type,
             const MPI_Offset *at, MPI_Status *status, Call call) noexcept {
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const std::uint64_t offset = byte_offset(fh, at);
  const std::uint64_t t0 = now();
  const int rc = call(st);
  const std::uint64_t t1 = now();
  const std::uint64_t id = begin(r, t0, fh, mode, flags, bytes_of(count, type), offset, nullptr);
  Record *o = op_record(kIoComplete, r, t1);
  o->object = key_of(fh);
  o->bytes2 = rc == MPI_SUCCESS ? status_bytes(st) : 0;
  o->x = id;
  call_record(r, t0, t1);
  return rc;
}

template <class Call>
int nonblocking(Routine r, MPI_File fh, IoMode mode, int count, MPI_Datatype type,
                const MPI_Offset *at, MPI_Request *request, Call call) noexcept {
  const std::uint64_t offset = byte_offset(fh, at);
  const std::uint64_t t0 = now();
  const int rc = call();
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    const std::uint64_t id =
        begin(r, t0, fh, mode, kFlagNonblockingIo, bytes_of(count, type), offset, request);
    Record *o = op_record(kIoIssued, r, t1);
    o->object = key_of(fh);
    o->x = id;
  }
  call_record(r, t0, t1);
  return rc;
}

} // namespace

#define READ_PARAMS MPI_File fh, void *buf, int count, MPI_Datatype type
#define WRITE_PARAMS MPI_File fh, const void *buf, int count, MPI_Datatype type
#define AT_READ_PARAMS MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type
#define AT_WRITE_PARAMS                                                                            \
  MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype type

#define DEFINE_BLOCKING(NAME, PARAMS, MODE, FLAGS, AT, ...)                                        \
  PNMPI_EXPORT int MPI_##NAME(PARAMS, MPI_Status *status) {                                        \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(__VA_ARGS__, status);                                                     \
    return blocking(r_##NAME, fh, MODE, FLAGS, count, type, AT, status,                            \
                    [&](MPI_Status *st) { return PMPI_##NAME(__VA_ARGS__, st); });                 \
  }
#define DEFINE_NONBLOCKING(NAME, PARAMS, MODE, AT, ...)                                            \
  PNMPI_EXPORT int MPI_##NAME(PARAMS, MPI_Request *request) {                                      \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(__VA_ARGS__, request);                                                    \
    return nonblocking(r_##NAME, fh, MODE, count, type, AT, request,                               \
                       [&]() { return PMPI_##NAME(__VA_ARGS__, request); });                       \
  }

extern "C" {

DEFINE_BLOCKING(File_read, READ_PARAMS, kIoRead, 0, nullptr, fh, buf, count, type)
DEFINE_BLOCKING(File_read_all, READ_PARAMS, kIoRead, kFlagCollectiveIo, nullptr, fh, buf, count,
                type)
DEFINE_BLOCKING(File_read_at, AT_READ_PARAMS, kIoRead, 0, &offset, fh, offset, buf, count, type)
DEFINE_BLOCKING(File_read_at_all, AT_READ_PARAMS, kIoRead, kFlagCollectiveIo, &offset, fh, offset,
                buf, count, type)
DEFINE_BLOCKING(File_write, WRITE_PARAMS, kIoWrite, 0, nullptr, fh, buf, count, type)
DEFINE_BLOCKING(File_write_all, WRITE_PARAMS, kIoWrite, kFlagCollectiveIo, nullptr, fh, buf, count,
                type)
DEFINE_BLOCKING(File_write_at, AT_WRITE_PARAMS, kIoWrite, 0, &offset, fh, offset, buf, count, type)
DEFINE_BLOCKING(File_write_at_all, AT_WRITE_PARAMS, kIoWrite, kFlagCollectiveIo, &offset, fh,
                offset, buf, count, type)
DEFINE_NONBLOCKING(File_iread, READ_PARAMS, kIoRead, nullptr, fh, buf, count, type)
DEFINE_NONBLOCKING(File_iwrite, WRITE_PARAMS, kIoWrite, nullptr, fh, buf, count, type)
DEFINE_NONBLOCKING(File_iread_at, AT_READ_PARAMS, kIoRead, &offset, fh, offset, buf, count, type)
DEFINE_NONBLOCKING(File_iwrite_at, AT_WRITE_PARAMS, kIoWrite, &offset, fh, offset, buf, count, type)

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

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The raw record: what a traced call stores on its per-call path, 64 bytes, one cache line.
// A call stores its operation records (messages, collective, I/O, ...) and then one kCall
// record with its enter and leave times; writer.cpp turns each group into OTF2 events
// (Enter, the operations, Leave). The same layout is the spill file's, so a spill file is
// an array of these in the order they were taken.

#include <cstdint>

namespace pnmpi::trace {

enum RecordKind : std::uint8_t {
  kCall = 1,         ///< t0 enter, t1 leave; ends the records of one call
  kSend,             ///< comm, peer (comm rank), tag, bytes
  kRecv,             ///< comm, peer (comm rank of the source), tag, bytes
  kIsend,            ///< as kSend, plus id
  kIsendComplete,    ///< id
  kIrecvRequest,     ///< id
  kIrecv,            ///< as kRecv, plus id (the receive completed)
  kRequestCancelled, ///< id
  kCollective,       ///< comm, peer = root (comm rank, or -1), bytes sent, bytes2 received
  kRma,              ///< object = window, peer = target (window rank), tag = RmaOp, bytes
  kIoCreate,         ///< object = file handle, peer = amode
  kIoDestroy,        ///< object = file handle
  kIoBegin,          ///< object = file, peer = IoMode, bytes requested, bytes2 byte offset, x id
  kIoIssued,         ///< object = file, x = id (a nonblocking operation was started)
  kIoComplete,       ///< object = file, bytes2 = bytes done, x = id
  kIoView,           ///< object = file, x = displacement, bytes etype size, bytes2 filetype size
  kFlush,            ///< t0..t1: the buffer was written to the spill file
  kNbcRequest,       ///< id: a nonblocking collective was started
  kNbcComplete,      ///< as kCollective, plus id; routine = the starting one
};

enum RecordFlag : std::uint8_t {
  kFlagTool = 1,          ///< kCall: a module above made the call (call origin)
  kFlagCollectiveIo = 2,  ///< kIoBegin: a collective I/O operation
  kFlagNonblockingIo = 4, ///< kIoBegin: a nonblocking I/O operation
};

/// kIoBegin's bytes2 when the operation's offset is not known (written without the offset).
constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};

enum IoMode : std::int32_t { kIoRead = 0, kIoWrite = 1 };
enum RmaOp : std::int32_t { kRmaPut = 0, kRmaGet = 1, kRmaAtomic = 2 };

struct Record {
  std::uint64_t t0 = 0, t1 = 0;
  std::uint16_t routine = 0;
  std::uint8_t kind = 0;
  std::uint8_t flags = 0;
  std::int32_t peer = -1;
  std::int32_t tag = 0;
  std::uint32_t reserved = 0;
  std::uint64_t object = 0; ///< communicator, window or file handle bits
  std::uint64_t bytes = 0;
  std::uint64_t bytes2 = 0;
  std::uint64_t x = 0; ///< request or matching id; kIoView: the displacement
};
static_assert(sizeof(Record) == 64, "a record is one cache line");

} // namespace pnmpi::trace

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Point-to-point and request completion. A send is recorded at its enter time, a receive
// at its leave time (when its source, tag and size are known from the status); a
// nonblocking operation gets an id at issue, and its completion is recorded by the Wait or
// Test that completes it. A status the application ignores is replaced by one of our own,
// since the received size is read from it.

#include "collectives.h"

#include <vector>

using namespace pnmpi::trace;

namespace {

void message(RecordKind kind, Routine r, std::uint64_t t, MPI_Comm comm, int peer, int tag,
             std::uint64_t bytes, std::uint64_t id) noexcept {
  if (peer == MPI_PROC_NULL)
    return;
  Record *o = op_record(kind, r, t);
  o->object = key_of(comm);
  o->peer = peer;
  o->tag = tag;
  o->bytes = bytes;
  o->x = id;
}

void received(Routine r, std::uint64_t t, MPI_Comm comm, const MPI_Status *st) noexcept {
  if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
    return;
  message(kRecv, r, t, comm, st->MPI_SOURCE, st->MPI_TAG, status_bytes(st), 0);
}

/// Requests of a completing call, copied before MPI resets the completed ones.
struct Before {
  MPI_Request small[32];
  std::vector<MPI_Request> big;
  MPI_Request *list = small;
  bool tracking = false;
  Before(int count, const MPI_Request *requests) {
    tracking = g.pending.load(std::memory_order_relaxed) != 0 && count > 0;
    if (!tracking)
      return;
    if (count > 32) {
      big.assign(requests, requests + count);
      list = big.data();
    } else {
      std::copy(requests, requests + count, small);
    }
  }
};

/// Statuses for a call whose caller may pass MPI_STATUSES_IGNORE.
struct Statuses {
  MPI_Status small[32];
  std::vector<MPI_Status> big;
  MPI_Status *use(int count, MPI_Status *given) {
    if (given != MPI_STATUSES_IGNORE)
      return given;
    if (count <= 32)
      return small;
    big.resize(static_cast<std::size_t>(count));
    return big.data();
  }
};

/// After a Wait/Test of several requests: all of them completed if the call succeeded
/// (a persistent request stays as it was, inactive), else those now MPI_REQUEST_NULL.
void completed_all(const Before &b, int count, const MPI_Request *after, const MPI_Status *st,
                   std::uint64_t t, bool all) noexcept {
  if (!b.tracking)
    return;
  std::vector<int> done(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    done[static_cast<std::size_t>(i)] = all || after[i] == MPI_REQUEST_NULL;
  complete_requests(count, b.list, st, done.data(), t);
}

/// After a Waitsome/Testsome: indices[k] completed with statuses[k].
void completed_some(const Before &b, int outcount, const int *indices, const MPI_Status *st,
                    std::uint64_t t) noexcept {
  if (!b.tracking || outcount == MPI_UNDEFINED)
    return;
  for (int k = 0; k < outcount; ++k) {
    const int one = 1;
    complete_requests(1, &b.list[indices[k]], &st[k], &one, t);
  }
}

} // namespace

#define SEND_PARAMS(CT)                                                                            \
  const void *buf, CT count, MPI_Datatype type, int dest, int tag, MPI_Comm comm
#define SEND_ARGS buf, count, type, dest, tag, comm
#define RECV_PARAMS(CT) void *buf, CT count, MPI_Datatype type, int source, int tag, MPI_Comm comm
#define RECV_ARGS buf, count, type, source, tag, comm

// The untraced path, or the call timed: t0, rc, t1.
#define TIMED(NAME, ...)                                                                           \
  if (!traced(r_##NAME))                                                                           \
    return PMPI_##NAME(__VA_ARGS__);                                                               \
  const std::uint64_t t0 = now();                                                                  \
  const int rc = PMPI_##NAME(__VA_ARGS__);                                                         \
  const std::uint64_t t1 = now();
// The same for a call with a status, which is read: one of our own if the caller ignores it.
#define TIMED_STATUS(NAME, ...)                                                                    \
  if (!traced(r_##NAME))                                                                           \
    return PMPI_##NAME(__VA_ARGS__, status);                                                       \
  MPI_Status own;                                                                                  \
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;                                    \
  const std::uint64_t t0 = now();                                                                  \
  const int rc = PMPI_##NAME(__VA_ARGS__, st);                                                     \
  const std::uint64_t t1 = now();

#define DEFINE_SEND(NAME, CT)                                                                      \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT)) {                                                   \
    TIMED(NAME, SEND_ARGS)                                                                         \
    message(kSend, r_##NAME, t0, comm, dest, tag, bytes_of(count, type), 0);                       \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_ISEND(NAME, CT)                                                                     \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT), MPI_Request *request) {                             \
    TIMED(NAME, SEND_ARGS, request)                                                                \
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {                                              \
      Pending p;                                                                                   \
      p.kind = kIsend;                                                                             \
      p.object = key_of(comm);                                                                     \
      p.routine = r_##NAME;                                                                        \
      message(kIsend, r_##NAME, t0, comm, dest, tag, bytes_of(count, type),                        \
              remember(*request, p));                                                              \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_SEND_INIT(NAME, CT)                                                                 \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT), MPI_Request *request) {                             \
    TIMED(NAME, SEND_ARGS, request)                                                                \
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {                                              \
      Persistent p;                                                                                \
      p.kind = kIsend;                                                                             \
      p.routine = r_##NAME;                                                                        \
      p.object = key_of(comm);                                                                     \
      p.peer = dest;                                                                               \
      p.tag = tag;                                                                                 \
      p.bytes = bytes_of(count, type);                                                             \
      remember_persistent(*request, p);                                                            \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_RECV_INIT(NAME, CT)                                                                 \
  PNMPI_EXPORT int MPI_##NAME(RECV_PARAMS(CT), MPI_Request *request) {                             \
    TIMED(NAME, RECV_ARGS, request)                                                                \
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {                                            \
      Persistent p;                                                                                \
      p.kind = kIrecvRequest;                                                                      \
      p.routine = r_##NAME;                                                                        \
      p.object = key_of(comm);                                                                     \
      remember_persistent(*request, p);                                                            \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_RECV(NAME, CT)                                                                      \
  PNMPI_EXPORT int MPI_##NAME(RECV_PARAMS(CT), MPI_Status *status) {                               \
    TIMED_STATUS(NAME, RECV_ARGS)                                                                  \
    if (rc == MPI_SUCCESS)                                                                         \
      received(r_##NAME, t1, comm, st);                                                            \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_IRECV(NAME, CT)                                                                     \
  PNMPI_EXPORT int MPI_##NAME(RECV_PARAMS(CT), MPI_Request *request) {                             \
    TIMED(NAME, RECV_ARGS, request)                                                                \
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {                                            \
      Pending p;                                                                                   \
      p.kind = kIrecvRequest;                                                                      \
      p.object = key_of(comm);                                                                     \
      p.routine = r_##NAME;                                                                        \
      op_record(kIrecvRequest, r_##NAME, t1)->x = remember(*request, p);                           \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_SENDRECV(NAME, CT)                                                                  \
  PNMPI_EXPORT int MPI_##NAME(const void *sendbuf, CT sendcount, MPI_Datatype sendtype, int dest,  \
                              int sendtag, void *recvbuf, CT recvcount, MPI_Datatype recvtype,     \
                              int source, int recvtag, MPI_Comm comm, MPI_Status *status) {        \
    TIMED_STATUS(NAME, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,  \
                 source, recvtag, comm)                                                            \
    message(kSend, r_##NAME, t0, comm, dest, sendtag, bytes_of(sendcount, sendtype), 0);           \
    if (rc == MPI_SUCCESS)                                                                         \
      received(r_##NAME, t1, comm, st);                                                            \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_SENDRECV_REPLACE(NAME, CT)                                                          \
  PNMPI_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype type, int dest, int sendtag,       \
                              int source, int recvtag, MPI_Comm comm, MPI_Status *status) {        \
    TIMED_STATUS(NAME, buf, count, type, dest, sendtag, source, recvtag, comm)                     \
    message(kSend, r_##NAME, t0, comm, dest, sendtag, bytes_of(count, type), 0);                   \
    if (rc == MPI_SUCCESS)                                                                         \
      received(r_##NAME, t1, comm, st);                                                            \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_MRECV(NAME, CT)                                                                     \
  PNMPI_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype type, MPI_Message *message,        \
                              MPI_Status *status) {                                                \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(buf, count, type, message, status);                                       \
    MPI_Status own;                                                                                \
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;                                  \
    const std::uint64_t comm = take_message(*message);                                             \
    const std::uint64_t t0 = now();                                                                \
    const int rc = PMPI_##NAME(buf, count, type, message, st);                                     \
    const std::uint64_t t1 = now();                                                                \
    if (rc == MPI_SUCCESS && comm != 0 && st->MPI_SOURCE >= 0) {                                   \
      Record *o = op_record(kRecv, r_##NAME, t1);                                                  \
      o->object = comm;                                                                            \
      o->peer = st->MPI_SOURCE;                                                                    \
      o->tag = st->MPI_TAG;                                                                        \
      o->bytes = status_bytes(st);                                                                 \
      o->x = 0;                                                                                    \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

#define DEFINE_IMRECV(NAME, CT)                                                                    \
  PNMPI_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype type, MPI_Message *message,        \
                              MPI_Request *request) {                                              \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(buf, count, type, message, request);                                      \
    const std::uint64_t comm = take_message(*message);                                             \
    const std::uint64_t t0 = now();                                                                \
    const int rc = PMPI_##NAME(buf, count, type, message, request);                                \
    const std::uint64_t t1 = now();                                                                \
    if (rc == MPI_SUCCESS && comm != 0) {                                                          \
      Pending p;                                                                                   \
      p.kind = kIrecvRequest;                                                                      \
      p.object = comm;                                                                             \
      p.routine = r_##NAME;                                                                        \
      op_record(kIrecvRequest, r_##NAME, t1)->x = remember(*request, p);                           \
    }                                                                                              \
    call_record(r_##NAME, t0, t1);                                                                 \
    return rc;                                                                                     \
  }

// Every point-to-point routine with a count (routines.h), with count type int and, as the
// large-count MPI_NAME_c of MPI 4, MPI_Count.
#define DEFINE_INT(NAME, SHAPE) DEFINE_##SHAPE(NAME, int)
#define DEFINE_LARGE(NAME, SHAPE) DEFINE_##SHAPE(NAME, MPI_Count)

extern "C" {

PNMPI_TRACE_P2P_COUNTED(DEFINE_INT, )
#if MPI_VERSION >= 4
PNMPI_TRACE_P2P_COUNTED(DEFINE_LARGE, _c)
#endif

// A start issues the operation its request was made for: recorded as an Isend or an Irecv
// request of the start, completed by the Wait or Test that completes it.
PNMPI_EXPORT int MPI_Start(MPI_Request *request) {
  if (!traced(r_Start))
    return PMPI_Start(request);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Start(request);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    start_persistent(r_Start, 1, request, t0);
    start_persistent_collectives(r_Start, 1, request, t0);
  }
  call_record(r_Start, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  if (!traced(r_Startall))
    return PMPI_Startall(count, requests);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Startall(count, requests);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    start_persistent(r_Startall, count, requests, t0);
    start_persistent_collectives(r_Startall, count, requests, t0);
  }
  call_record(r_Startall, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (!traced(r_Probe))
    return PMPI_Probe(source, tag, comm, status);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Probe(source, tag, comm, status);
  call_record(r_Probe, t0, now());
  return rc;
}

PNMPI_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  if (!traced(r_Iprobe))
    return PMPI_Iprobe(source, tag, comm, flag, status);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Iprobe(source, tag, comm, flag, status);
  call_record(r_Iprobe, t0, now());
  return rc;
}

// Matched probes: the message's communicator is noted for the MPI_Mrecv/MPI_Imrecv that
// receives it (they are not given one), whenever either of them is traced.
PNMPI_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                            MPI_Status *status) {
  const bool note = traced(r_Mrecv) || traced(r_Imrecv);
  if (!traced(r_Mprobe)) {
    const int rc = PMPI_Mprobe(source, tag, comm, message, status);
    if (note && rc == MPI_SUCCESS)
      remember_message(*message, comm);
    return rc;
  }
  const std::uint64_t t0 = now();
  const int rc = PMPI_Mprobe(source, tag, comm, message, status);
  const std::uint64_t t1 = now();
  if (note && rc == MPI_SUCCESS)
    remember_message(*message, comm);
  call_record(r_Mprobe, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                             MPI_Status *status) {
  const bool note = traced(r_Mrecv) || traced(r_Imrecv);
  if (!traced(r_Improbe)) {
    const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
    if (note && rc == MPI_SUCCESS && *flag)
      remember_message(*message, comm);
    return rc;
  }
  const std::uint64_t t0 = now();
  const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
  const std::uint64_t t1 = now();
  if (note && rc == MPI_SUCCESS && *flag)
    remember_message(*message, comm);
  call_record(r_Improbe, t0, t1);
  return rc;
}

// A matched receive is recorded as MPI_Recv/MPI_Irecv are, on the probe's communicator.
PNMPI_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!traced(r_Wait))
    return PMPI_Wait(request, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const MPI_Request before = *request;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Wait(request, st);
  const std::uint64_t t1 = now();
  const int done = rc == MPI_SUCCESS;
  complete_requests(1, &before, st, &done, t1);
  call_record(r_Wait, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!traced(r_Test))
    return PMPI_Test(request, flag, status);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const MPI_Request before = *request;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Test(request, flag, st);
  const std::uint64_t t1 = now();
  const int done = rc == MPI_SUCCESS && *flag;
  complete_requests(1, &before, st, &done, t1);
  call_record(r_Test, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!traced(r_Waitall))
    return PMPI_Waitall(count, requests, statuses);
  Before before(count, requests);
  Statuses own;
  MPI_Status *st = before.tracking ? own.use(count, statuses) : statuses;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Waitall(count, requests, st);
  const std::uint64_t t1 = now();
  completed_all(before, count, requests, st, t1, rc == MPI_SUCCESS);
  call_record(r_Waitall, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (!traced(r_Testall))
    return PMPI_Testall(count, requests, flag, statuses);
  Before before(count, requests);
  Statuses own;
  MPI_Status *st = before.tracking ? own.use(count, statuses) : statuses;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Testall(count, requests, flag, st);
  const std::uint64_t t1 = now();
  if (*flag)
    completed_all(before, count, requests, st, t1, rc == MPI_SUCCESS);
  call_record(r_Testall, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (!traced(r_Waitany))
    return PMPI_Waitany(count, requests, index, status);
  Before before(count, requests);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Waitany(count, requests, index, st);
  const std::uint64_t t1 = now();
  completed_some(before, *index == MPI_UNDEFINED ? 0 : 1, index, st, t1);
  call_record(r_Waitany, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                             MPI_Status *status) {
  if (!traced(r_Testany))
    return PMPI_Testany(count, requests, index, flag, status);
  Before before(count, requests);
  MPI_Status own;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Testany(count, requests, index, flag, st);
  const std::uint64_t t1 = now();
  if (*flag)
    completed_some(before, *index == MPI_UNDEFINED ? 0 : 1, index, st, t1);
  call_record(r_Testany, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                              MPI_Status statuses[]) {
  if (!traced(r_Waitsome))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  Before before(incount, requests);
  Statuses own;
  MPI_Status *st = before.tracking ? own.use(incount, statuses) : statuses;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, st);
  const std::uint64_t t1 = now();
  completed_some(before, *outcount, indices, st, t1);
  call_record(r_Waitsome, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                              MPI_Status statuses[]) {
  if (!traced(r_Testsome))
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  Before before(incount, requests);
  Statuses own;
  MPI_Status *st = before.tracking ? own.use(incount, statuses) : statuses;
  const std::uint64_t t0 = now();
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, st);
  const std::uint64_t t1 = now();
  completed_some(before, *outcount, indices, st, t1);
  call_record(r_Testsome, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Cancel(MPI_Request *request) {
  if (!traced(r_Cancel))
    return PMPI_Cancel(request);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Cancel(request);
  call_record(r_Cancel, t0, now());
  return rc;
}

PNMPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  // A freed request never completes in a Wait: forget it, traced or not.
  if (request != nullptr) {
    forget(*request);
    forget_persistent_collective(*request);
  }
  if (!traced(r_Request_free))
    return PMPI_Request_free(request);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Request_free(request);
  call_record(r_Request_free, t0, now());
  return rc;
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Point-to-point wrappers: every send variant records one message of count x type size bytes
// to the destination's world rank, sender side, when it is issued; then the call goes on
// with a tail call. Persistent and partitioned sends are recorded at each MPI_Start.
// Receives are not wrapped: the sender's side of every message is recorded by its sender.
//
// Each wrapper passes its own routine's id: that is how the origin (application or a
// module above) is told, see origin_of().

#include <pnmpi/pnmpi.h>

#include "monitor.h"

using namespace pnmpi::monitor;

namespace {

template <class Count>
void plan_send(std::uint64_t partitions, Count count, MPI_Datatype type, int dest, MPI_Comm comm,
               MPI_Request request) noexcept {
  if (!recording(kRecordP2P) || dest == MPI_PROC_NULL)
    return;
  CommInfo *ci = comm_info(comm);
  if (ci == nullptr || dest < 0 || dest >= ci->peers.size())
    return;
  try {
    Plan plan;
    plan.kind = kP2P;
    plan.sends.emplace_back(ci->peers.world(dest), partitions * volume(count, type));
    remember_request(request, std::move(plan));
  } catch (...) {
  }
}

} // namespace

/// Either fast path, for the sends that are not split into twins (Sendrecv and its kin).
template <class Count>
__attribute__((always_inline)) inline bool send_fast_any(const RoutineId &routine, Count count,
                                                         MPI_Datatype type, int dest,
                                                         MPI_Comm comm) noexcept {
  return g.atomic_updates ? send_fast<true>(routine, count, type, dest, comm)
                          : send_fast<false>(routine, count, type, dest, comm);
}

#define SEND_PARAMS(CT)                                                                            \
  const void *buf, CT count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm
#define SEND_ARGS buf, count, datatype, dest, tag, comm

// Blocking and nonblocking sends: the fast path (caches only, no call) keeps the wrapper
// frameless; on a miss the wrapper jumps to a twin with the same signature (a sibling call)
// that records the whole way and makes the tail call itself. Under MPI_THREAD_MULTIPLE the
// wrapper jumps at once to a third twin, NAME_mt, whose fast path counts in this thread's
// counters.
#define DEFINE_SEND(NAME, CT)                                                                      \
  MONITOR_ROUTINE(NAME)                                                                            \
  namespace {                                                                                      \
  __attribute__((noinline, cold)) int NAME##_slow(SEND_PARAMS(CT)) {                               \
    on_send(id_##NAME, count, datatype, dest, comm);                                               \
    return PMPI_##NAME(SEND_ARGS);                                                                 \
  }                                                                                                \
  __attribute__((noinline)) int NAME##_mt(SEND_PARAMS(CT)) {                                       \
    if (__builtin_expect(!send_fast<true>(id_##NAME, count, datatype, dest, comm), 0))             \
      return NAME##_slow(SEND_ARGS);                                                               \
    return PMPI_##NAME(SEND_ARGS);                                                                 \
  }                                                                                                \
  }                                                                                                \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT)) {                                                   \
    if (g.atomic_updates)                                                                          \
      return NAME##_mt(SEND_ARGS);                                                                 \
    if (__builtin_expect(!send_fast<false>(id_##NAME, count, datatype, dest, comm), 0))            \
      return NAME##_slow(SEND_ARGS);                                                               \
    return PMPI_##NAME(SEND_ARGS);                                                                 \
  }
#define DEFINE_ISEND(NAME, CT)                                                                     \
  MONITOR_ROUTINE(NAME)                                                                            \
  namespace {                                                                                      \
  __attribute__((noinline, cold)) int NAME##_slow(SEND_PARAMS(CT), MPI_Request *request) {         \
    on_send(id_##NAME, count, datatype, dest, comm);                                               \
    return PMPI_##NAME(SEND_ARGS, request);                                                        \
  }                                                                                                \
  __attribute__((noinline)) int NAME##_mt(SEND_PARAMS(CT), MPI_Request *request) {                 \
    if (__builtin_expect(!send_fast<true>(id_##NAME, count, datatype, dest, comm), 0))             \
      return NAME##_slow(SEND_ARGS, request);                                                      \
    return PMPI_##NAME(SEND_ARGS, request);                                                        \
  }                                                                                                \
  }                                                                                                \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT), MPI_Request *request) {                             \
    if (g.atomic_updates)                                                                          \
      return NAME##_mt(SEND_ARGS, request);                                                        \
    if (__builtin_expect(!send_fast<false>(id_##NAME, count, datatype, dest, comm), 0))            \
      return NAME##_slow(SEND_ARGS, request);                                                      \
    return PMPI_##NAME(SEND_ARGS, request);                                                        \
  }
#define DEFINE_SEND_INIT(NAME, CT)                                                                 \
  PNMPI_EXPORT int MPI_##NAME(SEND_PARAMS(CT), MPI_Request *request) {                             \
    const int rc = PMPI_##NAME(SEND_ARGS, request);                                                \
    if (rc == MPI_SUCCESS)                                                                         \
      plan_send(1, count, datatype, dest, comm, *request);                                         \
    return rc;                                                                                     \
  }

#define SENDRECV_PARAMS(CT)                                                                        \
  const void *sendbuf, CT sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,  \
      CT recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm
#define SENDRECV_ARGS                                                                              \
  sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm
#define REPLACE_PARAMS(CT)                                                                         \
  void *buf, CT count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,      \
      MPI_Comm comm
#define REPLACE_ARGS buf, count, datatype, dest, sendtag, source, recvtag, comm

#define DEFINE_SENDRECV(NAME, CT, LAST, LAST_ARG)                                                  \
  MONITOR_ROUTINE(NAME)                                                                            \
  namespace {                                                                                      \
  __attribute__((noinline, cold)) int NAME##_slow(SENDRECV_PARAMS(CT), LAST) {                     \
    on_send(id_##NAME, sendcount, sendtype, dest, comm);                                           \
    return PMPI_##NAME(SENDRECV_ARGS, LAST_ARG);                                                   \
  }                                                                                                \
  }                                                                                                \
  PNMPI_EXPORT int MPI_##NAME(SENDRECV_PARAMS(CT), LAST) {                                         \
    if (__builtin_expect(!send_fast_any(id_##NAME, sendcount, sendtype, dest, comm), 0))           \
      return NAME##_slow(SENDRECV_ARGS, LAST_ARG);                                                 \
    return PMPI_##NAME(SENDRECV_ARGS, LAST_ARG);                                                   \
  }
#define DEFINE_REPLACE(NAME, CT, LAST, LAST_ARG)                                                   \
  MONITOR_ROUTINE(NAME)                                                                            \
  namespace {                                                                                      \
  __attribute__((noinline, cold)) int NAME##_slow(REPLACE_PARAMS(CT), LAST) {                      \
    on_send(id_##NAME, count, datatype, dest, comm);                                               \
    return PMPI_##NAME(REPLACE_ARGS, LAST_ARG);                                                    \
  }                                                                                                \
  }                                                                                                \
  PNMPI_EXPORT int MPI_##NAME(REPLACE_PARAMS(CT), LAST) {                                          \
    if (__builtin_expect(!send_fast_any(id_##NAME, count, datatype, dest, comm), 0))               \
      return NAME##_slow(REPLACE_ARGS, LAST_ARG);                                                  \
    return PMPI_##NAME(REPLACE_ARGS, LAST_ARG);                                                    \
  }

extern "C" {

DEFINE_SEND(Send, int)
DEFINE_SEND(Bsend, int)
DEFINE_SEND(Ssend, int)
DEFINE_SEND(Rsend, int)
DEFINE_ISEND(Isend, int)
DEFINE_ISEND(Ibsend, int)
DEFINE_ISEND(Issend, int)
DEFINE_ISEND(Irsend, int)
DEFINE_SEND_INIT(Send_init, int)
DEFINE_SEND_INIT(Bsend_init, int)
DEFINE_SEND_INIT(Ssend_init, int)
DEFINE_SEND_INIT(Rsend_init, int)
DEFINE_SENDRECV(Sendrecv, int, MPI_Status *status, status)
DEFINE_REPLACE(Sendrecv_replace, int, MPI_Status *status, status)

#if MPI_VERSION >= 4
DEFINE_SEND(Send_c, MPI_Count)
DEFINE_SEND(Bsend_c, MPI_Count)
DEFINE_SEND(Ssend_c, MPI_Count)
DEFINE_SEND(Rsend_c, MPI_Count)
DEFINE_ISEND(Isend_c, MPI_Count)
DEFINE_ISEND(Ibsend_c, MPI_Count)
DEFINE_ISEND(Issend_c, MPI_Count)
DEFINE_ISEND(Irsend_c, MPI_Count)
DEFINE_SEND_INIT(Send_init_c, MPI_Count)
DEFINE_SEND_INIT(Bsend_init_c, MPI_Count)
DEFINE_SEND_INIT(Ssend_init_c, MPI_Count)
DEFINE_SEND_INIT(Rsend_init_c, MPI_Count)
DEFINE_SENDRECV(Sendrecv_c, MPI_Count, MPI_Status *status, status)
DEFINE_REPLACE(Sendrecv_replace_c, MPI_Count, MPI_Status *status, status)
DEFINE_SENDRECV(Isendrecv, int, MPI_Request *request, request)
DEFINE_REPLACE(Isendrecv_replace, int, MPI_Request *request, request)
DEFINE_SENDRECV(Isendrecv_c, MPI_Count, MPI_Request *request, request)
DEFINE_REPLACE(Isendrecv_replace_c, MPI_Count, MPI_Request *request, request)

/// A partitioned send is one message of partitions x count elements per MPI_Start.
PNMPI_EXPORT int MPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                                MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request) {
  const int rc = PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request);
  if (rc == MPI_SUCCESS && partitions > 0)
    plan_send(static_cast<std::uint64_t>(partitions), count, datatype, dest, comm, *request);
  return rc;
}
#endif

MONITOR_ROUTINE(Start)
PNMPI_EXPORT int MPI_Start(MPI_Request *request) {
  if (g_plans.load(std::memory_order_relaxed) != 0 && request != nullptr)
    start_requests(id_Start, 1, request);
  return PMPI_Start(request);
}

MONITOR_ROUTINE(Startall)
PNMPI_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  if (g_plans.load(std::memory_order_relaxed) != 0)
    start_requests(id_Startall, count, array_of_requests);
  return PMPI_Startall(count, array_of_requests);
}

PNMPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  if (g_plans.load(std::memory_order_relaxed) != 0 && request != nullptr)
    forget_request(*request);
  return PMPI_Request_free(request);
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// One-sided wrappers, origin side: data the origin puts or accumulates at the target is
// "sent" (S), data it fetches from the target is "fetched" (R), each operation one message
// per direction. Get_accumulate and Fetch_and_op with MPI_NO_OP only fetch;
// Compare_and_swap sends the origin and the compare value (2 elements) and fetches 1.

#include <pnmpi/pnmpi.h>

#include "monitor.h"

using namespace pnmpi::monitor;

#define PUT_P(CT)                                                                                  \
  const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype, int target_rank,         \
      MPI_Aint target_disp, CT target_count, MPI_Datatype target_datatype
#define PUT_A                                                                                      \
  origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,              \
      target_datatype
#define GET_P(CT)                                                                                  \
  void *origin_addr, CT origin_count, MPI_Datatype origin_datatype, int target_rank,               \
      MPI_Aint target_disp, CT target_count, MPI_Datatype target_datatype
#define GETACC_P(CT)                                                                               \
  const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype, void *result_addr,       \
      CT result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,        \
      CT target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win
#define GETACC_A                                                                                   \
  origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,          \
      target_rank, target_disp, target_count, target_datatype, op, win

#define SENT(ID) on_rma(ID, kOscSent, volume(origin_count, origin_datatype), target_rank, win)
#define FETCHED(ID) on_rma(ID, kOscFetched, volume(origin_count, origin_datatype), target_rank, win)
#define GETACC(ID)                                                                                 \
  if (op != MPI_NO_OP)                                                                             \
    on_rma(ID, kOscSent, volume(origin_count, origin_datatype), target_rank, win);                 \
  on_rma(ID, kOscFetched, volume(result_count, result_datatype), target_rank, win)

#define DEFINE_RMA(CT, SUFFIX)                                                                     \
  MONITOR_ROUTINE(Put##SUFFIX)                                                                     \
  PNMPI_EXPORT int MPI_Put##SUFFIX(PUT_P(CT), MPI_Win win) {                                       \
    SENT(id_Put##SUFFIX);                                                                          \
    return PMPI_Put##SUFFIX(PUT_A, win);                                                           \
  }                                                                                                \
  MONITOR_ROUTINE(Rput##SUFFIX)                                                                    \
  PNMPI_EXPORT int MPI_Rput##SUFFIX(PUT_P(CT), MPI_Win win, MPI_Request *request) {                \
    SENT(id_Rput##SUFFIX);                                                                         \
    return PMPI_Rput##SUFFIX(PUT_A, win, request);                                                 \
  }                                                                                                \
  MONITOR_ROUTINE(Get##SUFFIX)                                                                     \
  PNMPI_EXPORT int MPI_Get##SUFFIX(GET_P(CT), MPI_Win win) {                                       \
    FETCHED(id_Get##SUFFIX);                                                                       \
    return PMPI_Get##SUFFIX(PUT_A, win);                                                           \
  }                                                                                                \
  MONITOR_ROUTINE(Rget##SUFFIX)                                                                    \
  PNMPI_EXPORT int MPI_Rget##SUFFIX(GET_P(CT), MPI_Win win, MPI_Request *request) {                \
    FETCHED(id_Rget##SUFFIX);                                                                      \
    return PMPI_Rget##SUFFIX(PUT_A, win, request);                                                 \
  }                                                                                                \
  MONITOR_ROUTINE(Accumulate##SUFFIX)                                                              \
  PNMPI_EXPORT int MPI_Accumulate##SUFFIX(PUT_P(CT), MPI_Op op, MPI_Win win) {                     \
    SENT(id_Accumulate##SUFFIX);                                                                   \
    return PMPI_Accumulate##SUFFIX(PUT_A, op, win);                                                \
  }                                                                                                \
  MONITOR_ROUTINE(Raccumulate##SUFFIX)                                                             \
  PNMPI_EXPORT int MPI_Raccumulate##SUFFIX(PUT_P(CT), MPI_Op op, MPI_Win win,                      \
                                           MPI_Request *request) {                                 \
    SENT(id_Raccumulate##SUFFIX);                                                                  \
    return PMPI_Raccumulate##SUFFIX(PUT_A, op, win, request);                                      \
  }                                                                                                \
  MONITOR_ROUTINE(Get_accumulate##SUFFIX)                                                          \
  PNMPI_EXPORT int MPI_Get_accumulate##SUFFIX(GETACC_P(CT)) {                                      \
    GETACC(id_Get_accumulate##SUFFIX);                                                             \
    return PMPI_Get_accumulate##SUFFIX(GETACC_A);                                                  \
  }                                                                                                \
  MONITOR_ROUTINE(Rget_accumulate##SUFFIX)                                                         \
  PNMPI_EXPORT int MPI_Rget_accumulate##SUFFIX(GETACC_P(CT), MPI_Request *request) {               \
    GETACC(id_Rget_accumulate##SUFFIX);                                                            \
    return PMPI_Rget_accumulate##SUFFIX(GETACC_A, request);                                        \
  }

extern "C" {

DEFINE_RMA(int, )
#if MPI_VERSION >= 4
DEFINE_RMA(MPI_Count, _c)
#endif

MONITOR_ROUTINE(Fetch_and_op)
PNMPI_EXPORT int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const std::uint64_t one = volume(1, datatype);
  if (op != MPI_NO_OP)
    on_rma(id_Fetch_and_op, kOscSent, one, target_rank, win);
  on_rma(id_Fetch_and_op, kOscFetched, one, target_rank, win);
  return PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}

MONITOR_ROUTINE(Compare_and_swap)
PNMPI_EXPORT int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                      void *result_addr, MPI_Datatype datatype, int target_rank,
                                      MPI_Aint target_disp, MPI_Win win) {
  on_rma(id_Compare_and_swap, kOscSent, volume(2, datatype), target_rank, win);
  on_rma(id_Compare_and_swap, kOscFetched, volume(1, datatype), target_rank, win);
  return PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                               target_disp, win);
}

} // extern "C"

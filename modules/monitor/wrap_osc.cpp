// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// One-sided wrappers, origin side: data the origin puts or accumulates at the target is
// "sent" (S), data it fetches from the target is "fetched" (R), each operation one message
// per direction. Get_accumulate and Fetch_and_op with MPI_NO_OP only fetch;
// Compare_and_swap sends the origin and the compare value (2 elements) and fetches 1.

#include <pnmpi/pnmpi.h>

#include "monitor.h"

using namespace pnmpi::monitor;

#define RETURN_ADDRESS __builtin_return_address(0)

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

#define SENT                                                                                       \
  on_rma(RETURN_ADDRESS, kOscSent, volume(origin_count, origin_datatype), target_rank, win)
#define FETCHED                                                                                    \
  on_rma(RETURN_ADDRESS, kOscFetched, volume(origin_count, origin_datatype), target_rank, win)
#define GETACC                                                                                     \
  if (op != MPI_NO_OP)                                                                             \
    on_rma(RETURN_ADDRESS, kOscSent, volume(origin_count, origin_datatype), target_rank, win);     \
  on_rma(RETURN_ADDRESS, kOscFetched, volume(result_count, result_datatype), target_rank, win)

#define DEFINE_RMA(CT, SUFFIX)                                                                     \
  PNMPI_EXPORT int MPI_Put##SUFFIX(PUT_P(CT), MPI_Win win) {                                       \
    SENT;                                                                                          \
    return PMPI_Put##SUFFIX(PUT_A, win);                                                           \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Rput##SUFFIX(PUT_P(CT), MPI_Win win, MPI_Request *request) {                \
    SENT;                                                                                          \
    return PMPI_Rput##SUFFIX(PUT_A, win, request);                                                 \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Get##SUFFIX(GET_P(CT), MPI_Win win) {                                       \
    FETCHED;                                                                                       \
    return PMPI_Get##SUFFIX(PUT_A, win);                                                           \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Rget##SUFFIX(GET_P(CT), MPI_Win win, MPI_Request *request) {                \
    FETCHED;                                                                                       \
    return PMPI_Rget##SUFFIX(PUT_A, win, request);                                                 \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Accumulate##SUFFIX(PUT_P(CT), MPI_Op op, MPI_Win win) {                     \
    SENT;                                                                                          \
    return PMPI_Accumulate##SUFFIX(PUT_A, op, win);                                                \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Raccumulate##SUFFIX(PUT_P(CT), MPI_Op op, MPI_Win win,                      \
                                           MPI_Request *request) {                                 \
    SENT;                                                                                          \
    return PMPI_Raccumulate##SUFFIX(PUT_A, op, win, request);                                      \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Get_accumulate##SUFFIX(GETACC_P(CT)) {                                      \
    GETACC;                                                                                        \
    return PMPI_Get_accumulate##SUFFIX(GETACC_A);                                                  \
  }                                                                                                \
  PNMPI_EXPORT int MPI_Rget_accumulate##SUFFIX(GETACC_P(CT), MPI_Request *request) {               \
    GETACC;                                                                                        \
    return PMPI_Rget_accumulate##SUFFIX(GETACC_A, request);                                        \
  }

extern "C" {

DEFINE_RMA(int, )
#if MPI_VERSION >= 4
DEFINE_RMA(MPI_Count, _c)
#endif

PNMPI_EXPORT int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                                  int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const std::uint64_t one = volume(1, datatype);
  if (op != MPI_NO_OP)
    on_rma(RETURN_ADDRESS, kOscSent, one, target_rank, win);
  on_rma(RETURN_ADDRESS, kOscFetched, one, target_rank, win);
  return PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}

PNMPI_EXPORT int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                      void *result_addr, MPI_Datatype datatype, int target_rank,
                                      MPI_Aint target_disp, MPI_Win win) {
  on_rma(RETURN_ADDRESS, kOscSent, volume(2, datatype), target_rank, win);
  on_rma(RETURN_ADDRESS, kOscFetched, volume(1, datatype), target_rank, win);
  return PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                               target_disp, win);
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Communicator and window management (their creation is recorded whether or not their
// class is traced: a message names its communicator by the handle, which writer.cpp
// resolves through these registries), and one-sided operations.

#include "trace.h"

using namespace pnmpi::trace;

namespace {

bool active() noexcept {
  return g.active.load(std::memory_order_relaxed);
}

void rma(Routine r, std::uint64_t t0, std::uint64_t t1, MPI_Win win, int target, RmaOp op,
         std::uint64_t sent, std::uint64_t received) noexcept {
  if (target != MPI_PROC_NULL) {
    Record *o = op_record(kRma, r, t0);
    o->object = key_of(win);
    o->peer = target;
    o->tag = op;
    o->bytes = sent;
    o->bytes2 = received;
  }
  call_record(r, t0, t1);
}

} // namespace

// A call that makes a communicator (*OUT): registered, then recorded if traced.
#define MAKES_COMM(R, CALL, OUT)                                                                   \
  if (!active())                                                                                   \
    return CALL;                                                                                   \
  const std::uint64_t t0 = now();                                                                  \
  const int rc = CALL;                                                                             \
  const std::uint64_t t1 = now();                                                                  \
  if (rc == MPI_SUCCESS)                                                                           \
    register_comm(*(OUT), t1);                                                                     \
  if (g.enabled[r_##R])                                                                            \
    call_record(r_##R, t0, t1);                                                                    \
  return rc;

#define PLAIN(R, CALL)                                                                             \
  if (!traced(r_##R))                                                                              \
    return CALL;                                                                                   \
  const std::uint64_t t0 = now();                                                                  \
  const int rc = CALL;                                                                             \
  call_record(r_##R, t0, now());                                                                   \
  return rc;

extern "C" {

PNMPI_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm){
    MAKES_COMM(Comm_dup, PMPI_Comm_dup(comm, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm){
    MAKES_COMM(Comm_dup_with_info, PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm){
    MAKES_COMM(Comm_split, PMPI_Comm_split(comm, color, key, newcomm), newcomm)}

PNMPI_EXPORT
    int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm){
        MAKES_COMM(Comm_split_type, PMPI_Comm_split_type(comm, type, key, info, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm){
    MAKES_COMM(Comm_create, PMPI_Comm_create(comm, group, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm){
    MAKES_COMM(Comm_create_group, PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                 int reorder, MPI_Comm *newcomm){
    MAKES_COMM(Cart_create, PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm),
               newcomm)}

PNMPI_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm){
    MAKES_COMM(Cart_sub, PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm)}

PNMPI_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                                  int reorder, MPI_Comm *newcomm){
    MAKES_COMM(Graph_create, PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm),
               newcomm)}

PNMPI_EXPORT
    int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                              const int destinations[], const int weights[], MPI_Info info,
                              int reorder, MPI_Comm *newcomm){
        MAKES_COMM(Dist_graph_create,
                   PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                          reorder, newcomm),
                   newcomm)}

PNMPI_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                                const int sourceweights[], int outdegree,
                                                const int destinations[], const int destweights[],
                                                MPI_Info info, int reorder, MPI_Comm *newcomm){
    MAKES_COMM(Dist_graph_create_adjacent,
               PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info, reorder, newcomm),
               newcomm)}

PNMPI_EXPORT int MPI_Comm_free(MPI_Comm *comm){PLAIN(Comm_free, PMPI_Comm_free(comm))}

PNMPI_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win *win) {
  if (!active())
    return PMPI_Win_create(base, size, disp_unit, info, comm, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS)
    register_win(*win, comm, t1);
  if (g.enabled[r_Win_create])
    call_record(r_Win_create, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win) {
  if (!active())
    return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS)
    register_win(*win, comm, t1);
  if (g.enabled[r_Win_allocate])
    call_record(r_Win_allocate, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Win_free(MPI_Win *win){PLAIN(Win_free, PMPI_Win_free(win))}

PNMPI_EXPORT int MPI_Put(const void *oaddr, int ocount, MPI_Datatype otype, int target,
                         MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win) {
  if (!traced(r_Put))
    return PMPI_Put(oaddr, ocount, otype, target, tdisp, tcount, ttype, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Put(oaddr, ocount, otype, target, tdisp, tcount, ttype, win);
  rma(r_Put, t0, now(), win, target, kRmaPut, bytes_of(ocount, otype), 0);
  return rc;
}

PNMPI_EXPORT int MPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                         int tcount, MPI_Datatype ttype, MPI_Win win) {
  if (!traced(r_Get))
    return PMPI_Get(oaddr, ocount, otype, target, tdisp, tcount, ttype, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Get(oaddr, ocount, otype, target, tdisp, tcount, ttype, win);
  rma(r_Get, t0, now(), win, target, kRmaGet, bytes_of(ocount, otype), 0);
  return rc;
}

PNMPI_EXPORT int MPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int target,
                                MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                MPI_Win win) {
  if (!traced(r_Accumulate))
    return PMPI_Accumulate(oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Accumulate(oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win);
  rma(r_Accumulate, t0, now(), win, target, kRmaAtomic, bytes_of(ocount, otype), 0);
  return rc;
}

PNMPI_EXPORT int MPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                                    int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp,
                                    int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  if (!traced(r_Get_accumulate))
    return PMPI_Get_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, tcount,
                               ttype, op, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Get_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp,
                                     tcount, ttype, op, win);
  rma(r_Get_accumulate, t0, now(), win, target, kRmaAtomic, bytes_of(ocount, otype),
      bytes_of(rcount, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int target,
                                  MPI_Aint tdisp, MPI_Op op, MPI_Win win) {
  if (!traced(r_Fetch_and_op))
    return PMPI_Fetch_and_op(oaddr, raddr, type, target, tdisp, op, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Fetch_and_op(oaddr, raddr, type, target, tdisp, op, win);
  const std::uint64_t b = bytes_of(1, type);
  rma(r_Fetch_and_op, t0, now(), win, target, kRmaAtomic, b, b);
  return rc;
}

PNMPI_EXPORT int MPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                                      MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Win win) {
  if (!traced(r_Compare_and_swap))
    return PMPI_Compare_and_swap(oaddr, caddr, raddr, type, target, tdisp, win);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Compare_and_swap(oaddr, caddr, raddr, type, target, tdisp, win);
  const std::uint64_t b = bytes_of(1, type);
  rma(r_Compare_and_swap, t0, now(), win, target, kRmaAtomic, 2 * b, b);
  return rc;
}

PNMPI_EXPORT int MPI_Win_fence(int assert_, MPI_Win win){
    PLAIN(Win_fence, PMPI_Win_fence(assert_, win))} PNMPI_EXPORT
    int MPI_Win_lock(int type, int rank, int assert_, MPI_Win win){
        PLAIN(Win_lock, PMPI_Win_lock(type, rank, assert_, win))} PNMPI_EXPORT
    int MPI_Win_unlock(int rank,
                       MPI_Win win){PLAIN(Win_unlock, PMPI_Win_unlock(rank, win))} PNMPI_EXPORT
    int MPI_Win_lock_all(int assert_, MPI_Win win){
        PLAIN(Win_lock_all, PMPI_Win_lock_all(assert_, win))} PNMPI_EXPORT
    int MPI_Win_unlock_all(MPI_Win win){
        PLAIN(Win_unlock_all, PMPI_Win_unlock_all(win))} PNMPI_EXPORT
    int MPI_Win_flush(int rank,
                      MPI_Win win){PLAIN(Win_flush, PMPI_Win_flush(rank, win))} PNMPI_EXPORT
    int MPI_Win_post(MPI_Group group, int assert_,
                     MPI_Win win){PLAIN(Win_post, PMPI_Win_post(group, assert_, win))} PNMPI_EXPORT
    int MPI_Win_start(MPI_Group group, int assert_, MPI_Win win){
        PLAIN(Win_start, PMPI_Win_start(group, assert_, win))} PNMPI_EXPORT
    int MPI_Win_complete(MPI_Win win){PLAIN(Win_complete, PMPI_Win_complete(win))} PNMPI_EXPORT
    int MPI_Win_wait(MPI_Win win) {
  PLAIN(Win_wait, PMPI_Win_wait(win))
}

} // extern "C"

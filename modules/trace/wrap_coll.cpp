// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Collectives: one record per call with the communicator, the root (a rank of it, or -1)
// and the bytes this rank supplies (sent) and gets (received), counted from its own
// arguments: a Gather's root receives count x size from every rank, an Alltoall sends and
// receives one block per rank, a Reduce's root receives one buffer, and so on.
// A nonblocking collective's call records only a request id; the collective itself, with
// the same counts, is recorded by the Wait or Test that completes the request.

#include "trace.h"

using namespace pnmpi::trace;

namespace {

struct CommShape {
  int rank = 0, size = 1;
  explicit CommShape(MPI_Comm comm) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
  }
};

void collective(Routine r, std::uint64_t t0, std::uint64_t t1, MPI_Comm comm, int root,
                std::uint64_t sent, std::uint64_t received) noexcept {
  Record *o = op_record(kCollective, r, t0);
  o->object = key_of(comm);
  o->peer = root;
  o->bytes = sent;
  o->bytes2 = received;
  call_record(r, t0, t1);
}

/// The record of a nonblocking collective's call: the request, remembered with what the
/// completion will record.
void started(Routine r, std::uint64_t t0, std::uint64_t t1, int rc, const MPI_Request *request,
             MPI_Comm comm, int root, std::uint64_t sent, std::uint64_t received) noexcept {
  if (rc == MPI_SUCCESS) {
    Pending p;
    p.kind = kNbcRequest;
    p.object = key_of(comm);
    p.routine = r;
    p.root = root;
    p.sent = sent;
    p.received = received;
    op_record(kNbcRequest, r, t1)->x = remember(*request, p);
  }
  call_record(r, t0, t1);
}

std::uint64_t sum(const int *counts, int n, MPI_Datatype type) noexcept {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i)
    total += bytes_of(counts[i], type);
  return total;
}

} // namespace

#define TIMED(R, CALL)                                                                             \
  if (!traced(r_##R))                                                                              \
    return CALL;                                                                                   \
  const std::uint64_t t0 = now();                                                                  \
  const int rc = CALL;                                                                             \
  const std::uint64_t t1 = now();

extern "C" {

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  TIMED(Barrier, PMPI_Barrier(comm))
  collective(r_Barrier, t0, t1, comm, -1, 0, 0);
  return rc;
}

PNMPI_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  TIMED(Bcast, PMPI_Bcast(buf, count, type, root, comm))
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Bcast, t0, t1, comm, root, s.rank == root ? b : 0, s.rank == root ? 0 : b);
  return rc;
}

PNMPI_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  TIMED(Gather, PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
  const CommShape s(comm);
  collective(r_Gather, t0, t1, comm, root, bytes_of(scount, stype),
             s.rank == root ? bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size) : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                             MPI_Comm comm) {
  TIMED(Gatherv, PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
  const CommShape s(comm);
  collective(r_Gatherv, t0, t1, comm, root, bytes_of(scount, stype),
             s.rank == root ? sum(rcounts, s.size, rtype) : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  TIMED(Scatter, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
  const CommShape s(comm);
  collective(r_Scatter, t0, t1, comm, root,
             s.rank == root ? bytes_of(scount, stype) * static_cast<std::uint64_t>(s.size) : 0,
             bytes_of(rcount, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                              MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                              int root, MPI_Comm comm) {
  TIMED(Scatterv, PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
  const CommShape s(comm);
  collective(r_Scatterv, t0, t1, comm, root, s.rank == root ? sum(scounts, s.size, stype) : 0,
             bytes_of(rcount, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  TIMED(Allgather, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm))
  const CommShape s(comm);
  collective(r_Allgather, t0, t1, comm, -1, bytes_of(scount, stype),
             bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size));
  return rc;
}

PNMPI_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                const int rcounts[], const int displs[], MPI_Datatype rtype,
                                MPI_Comm comm) {
  TIMED(Allgatherv, PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
  const CommShape s(comm);
  collective(r_Allgatherv, t0, t1, comm, -1, bytes_of(scount, stype), sum(rcounts, s.size, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  TIMED(Alltoall, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm))
  const CommShape s(comm);
  const auto n = static_cast<std::uint64_t>(s.size);
  collective(r_Alltoall, t0, t1, comm, -1, bytes_of(scount, stype) * n,
             bytes_of(rcount, rtype) * n);
  return rc;
}

PNMPI_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                               MPI_Datatype stype, void *rbuf, const int rcounts[],
                               const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  TIMED(Alltoallv,
        PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
  const CommShape s(comm);
  collective(r_Alltoallv, t0, t1, comm, -1, sum(scounts, s.size, stype),
             sum(rcounts, s.size, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            int root, MPI_Comm comm) {
  TIMED(Reduce, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm))
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Reduce, t0, t1, comm, root, b, s.rank == root ? b : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  TIMED(Allreduce, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm))
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Allreduce, t0, t1, comm, -1, b, b);
  return rc;
}

PNMPI_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count,
                                          MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  TIMED(Reduce_scatter_block, PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm))
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Reduce_scatter_block, t0, t1, comm, -1, b * static_cast<std::uint64_t>(s.size), b);
  return rc;
}

PNMPI_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  TIMED(Reduce_scatter, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm))
  const CommShape s(comm);
  collective(r_Reduce_scatter, t0, t1, comm, -1, sum(rcounts, s.size, type),
             bytes_of(rcounts[s.rank], type));
  return rc;
}

PNMPI_EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm) {
  TIMED(Scan, PMPI_Scan(sbuf, rbuf, count, type, op, comm))
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Scan, t0, t1, comm, -1, b, b);
  return rc;
}

PNMPI_EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm) {
  TIMED(Exscan, PMPI_Exscan(sbuf, rbuf, count, type, op, comm))
  const std::uint64_t b = bytes_of(count, type);
  collective(r_Exscan, t0, t1, comm, -1, b, b);
  return rc;
}

PNMPI_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req) {
  TIMED(Ibarrier, PMPI_Ibarrier(comm, req))
  started(r_Ibarrier, t0, t1, rc, req, comm, -1, 0, 0);
  return rc;
}

PNMPI_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                            MPI_Request *req) {
  TIMED(Ibcast, PMPI_Ibcast(buf, count, type, root, comm, req))
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  started(r_Ibcast, t0, t1, rc, req, comm, root, s.rank == root ? b : 0, s.rank == root ? 0 : b);
  return rc;
}

PNMPI_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                             MPI_Request *req) {
  TIMED(Igather, PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
  const CommShape s(comm);
  started(r_Igather, t0, t1, rc, req, comm, root, bytes_of(scount, stype),
          s.rank == root ? bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size) : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                              MPI_Comm comm, MPI_Request *req) {
  TIMED(Igatherv, PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req))
  const CommShape s(comm);
  started(r_Igatherv, t0, t1, rc, req, comm, root, bytes_of(scount, stype),
          s.rank == root ? sum(rcounts, s.size, rtype) : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                              MPI_Request *req) {
  TIMED(Iscatter, PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req))
  const CommShape s(comm);
  started(r_Iscatter, t0, t1, rc, req, comm, root,
          s.rank == root ? bytes_of(scount, stype) * static_cast<std::uint64_t>(s.size) : 0,
          bytes_of(rcount, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                               MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                               int root, MPI_Comm comm, MPI_Request *req) {
  TIMED(Iscatterv,
        PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req))
  const CommShape s(comm);
  started(r_Iscatterv, t0, t1, rc, req, comm, root,
          s.rank == root ? sum(scounts, s.size, stype) : 0, bytes_of(rcount, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  TIMED(Iallgather, PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
  const CommShape s(comm);
  started(r_Iallgather, t0, t1, rc, req, comm, -1, bytes_of(scount, stype),
          bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size));
  return rc;
}

PNMPI_EXPORT int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                 const int rcounts[], const int displs[], MPI_Datatype rtype,
                                 MPI_Comm comm, MPI_Request *req) {
  TIMED(Iallgatherv, PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req))
  const CommShape s(comm);
  started(r_Iallgatherv, t0, t1, rc, req, comm, -1, bytes_of(scount, stype),
          sum(rcounts, s.size, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  TIMED(Ialltoall, PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req))
  const CommShape s(comm);
  const auto n = static_cast<std::uint64_t>(s.size);
  started(r_Ialltoall, t0, t1, rc, req, comm, -1, bytes_of(scount, stype) * n,
          bytes_of(rcount, rtype) * n);
  return rc;
}

PNMPI_EXPORT int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                                MPI_Datatype stype, void *rbuf, const int rcounts[],
                                const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                                MPI_Request *req) {
  TIMED(Ialltoallv,
        PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req))
  const CommShape s(comm);
  started(r_Ialltoallv, t0, t1, rc, req, comm, -1, sum(scounts, s.size, stype),
          sum(rcounts, s.size, rtype));
  return rc;
}

PNMPI_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                             int root, MPI_Comm comm, MPI_Request *req) {
  TIMED(Ireduce, PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req))
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  started(r_Ireduce, t0, t1, rc, req, comm, root, b, s.rank == root ? b : 0);
  return rc;
}

PNMPI_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                                MPI_Op op, MPI_Comm comm, MPI_Request *req) {
  TIMED(Iallreduce, PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req))
  const std::uint64_t b = bytes_of(count, type);
  started(r_Iallreduce, t0, t1, rc, req, comm, -1, b, b);
  return rc;
}

} // extern "C"

! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! The sessions API and MPI_M_REORDER from Fortran (mpif.h with PNMPI_MPIF_H, else use mpi),
! on 4 ranks: heavy partners r <-> r + 2. Rank 0 prints what it reads.
program sessions_fortran
#ifdef PNMPI_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  include 'mpi_monitoringf.h'
  integer :: ierr, rank, n, id, provided, asize, partner, newcomm, newrank, r
  integer :: sbuf(1000), rbuf(1000), ranks(4)
  integer(kind=8) :: counts(4), sizes(4), mc(16), ms(16)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  sbuf = rank
  call MPI_M_INIT(ierr)
  call report('init', ierr)
  call MPI_M_START(MPI_COMM_WORLD, id, ierr)
  call report('start', ierr)
  partner = mod(rank + n / 2, n)
  call MPI_SENDRECV(sbuf, 1000, MPI_INTEGER, partner, 0, rbuf, 1000, MPI_INTEGER, partner, 0, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_M_SUSPEND(id, ierr)
  call report('suspend', ierr)
  call MPI_M_SUSPEND(id, ierr)
  call report('suspend again', ierr)
  call MPI_M_GET_INFO(id, provided, asize, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'sessions_fortran: get_info ', ierr, ' size ', asize
  call MPI_M_GET_DATA(id, counts, sizes, MPI_M_P2P_ONLY, ierr)
  if (rank == 0) print '(a,i0,4(1x,i0))', 'sessions_fortran: get_data ', ierr, sizes
  call MPI_M_ALLGATHER_DATA(id, mc, ms, MPI_M_P2P_ONLY, ierr)
  if (rank == 0) print '(a,i0,16(1x,i0))', 'sessions_fortran: allgather_data ', ierr, ms
  ms = 0
  call MPI_M_ROOTGATHER_DATA(id, 0, mc, ms, MPI_M_ALL_COMM, ierr)
  if (rank == 0) print '(a,i0,16(1x,i0))', 'sessions_fortran: rootgather_data ', ierr, ms
  call MPI_M_REORDER_HOSTS(id, MPI_COMM_WORLD, rank / 2, newcomm, ierr)
  call report('reorder_hosts', ierr)
  call MPI_COMM_RANK(newcomm, newrank, ierr)
  call MPI_GATHER(newrank, 1, MPI_INTEGER, ranks, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4(1x,i0))', 'sessions_fortran: new ranks', ranks
  call MPI_COMM_FREE(newcomm, ierr)
  call MPI_M_REORDER(id, MPI_COMM_WORLD, newcomm, ierr)
  call report('reorder', ierr)
  call MPI_COMM_RANK(newcomm, newrank, ierr)
  call MPI_GATHER(newrank, 1, MPI_INTEGER, ranks, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4(1x,i0))', 'sessions_fortran: new ranks on this machine', ranks
  call MPI_COMM_FREE(newcomm, ierr)
  call MPI_M_RESET(id, ierr)
  call report('reset', ierr)
  call MPI_M_CONTINUE(id, ierr)
  call report('continue', ierr)
  call MPI_M_FREE(id, ierr)
  call report('free active', ierr)
  call MPI_M_SUSPEND(id, ierr)
  call MPI_M_FREE(id, ierr)
  call report('free', ierr)
  call MPI_M_SUSPEND(id, ierr)
  call report('suspend freed', ierr)
  call MPI_M_FINALIZE(ierr)
  call report('finalize', ierr)
  r = 0
  call MPI_FINALIZE(ierr)

contains

  subroutine report(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    if (rank == 0) print '(a,a,a,i0)', 'sessions_fortran: ', what, ' ', code
  end subroutine report
end program sessions_fortran

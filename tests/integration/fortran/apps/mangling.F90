! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! A ring exchange in mpif.h style, for the external-name manglings other than gfortran's
! default (built with -fno-underscoring: mpi_send; -fsecond-underscore: mpi_send__), and
! for MPI_INIT_THREAD (-DPNMPI_INIT_THREAD), preloaded and linked with -lpnmpi. It
! uses no sentinel (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE): those are common blocks,
! whose names the same flags change, so the MPI would not recognise them, without pnmpi too.
program mangling
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, token, total
  integer :: status(MPI_STATUS_SIZE)
#ifdef PNMPI_INIT_THREAD
  integer :: provided

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
#else

  call MPI_Init(ierr)
#endif
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  token = rank
  if (rank == 0) then
    call MPI_Send(token, 1, MPI_INTEGER, 1, 30, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(token, 1, MPI_INTEGER, 0, 30, MPI_COMM_WORLD, status, ierr)
  end if
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= 1 .or. token /= 0) then
    print '(a)', 'F FAILED: mangling'
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  print '(a,i0)', 'F ok rank=', rank
  call MPI_Finalize(ierr)
end program mangling

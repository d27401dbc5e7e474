! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! ring.c in Fortran (`use mpi_f08`): a token travels ROUNDS times around a ring of ranks,
! then every rank contributes to a sum. An ordinary MPI program; it knows nothing of pnmpi.
! Usage: ring_f08 [rounds]
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, next, prev, rounds, r
  integer(kind=8) :: token, total
  character(len=16) :: arg

  rounds = 3
  call get_command_argument(1, arg)
  if (len_trim(arg) > 0) read (arg, *) rounds
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  token = 0
  do r = 0, rounds - 1
    if (rank == 0) then
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER8, next, r, MPI_COMM_WORLD)
      call MPI_Recv(token, 1, MPI_INTEGER8, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(token, 1, MPI_INTEGER8, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER8, next, r, MPI_COMM_WORLD)
    end if
  end do
  call MPI_Allreduce(token, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0)', 'ring_f08: ', nprocs, ' ranks, ', rounds, &
      ' rounds, token ', token, ', checksum ', total
  call MPI_Finalize()
end program ring_f08

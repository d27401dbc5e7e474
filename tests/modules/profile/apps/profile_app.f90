! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
! The Fortran twin of profile_app.c's finalize mode: ITER (10) times MPI_SEND of 100
! integers to the next rank, MPI_RECV from the previous one (odd ranks send first), and
! MPI_ALLREDUCE of 3 double precision values; then one MPI_BARRIER. With the argument
! "abort", rank 1 then calls MPI_ABORT(MPI_COMM_WORLD, 7) and the others wait in a barrier.
program profile_app
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, nxt, prv
  integer :: buf(100), inbuf(100), status(MPI_STATUS_SIZE)
  double precision :: x(3), y(3)
  character(len=16) :: mode
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  buf = rank
  x = 1.0d0
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  do i = 1, 10
    if (mod(rank, 2) == 0) then
      call MPI_SEND(buf, 100, MPI_INTEGER, nxt, 0, MPI_COMM_WORLD, ierr)
      call MPI_RECV(inbuf, 100, MPI_INTEGER, prv, 0, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_RECV(inbuf, 100, MPI_INTEGER, prv, 0, MPI_COMM_WORLD, status, ierr)
      call MPI_SEND(buf, 100, MPI_INTEGER, nxt, 0, MPI_COMM_WORLD, ierr)
    end if
    call MPI_ALLREDUCE(x, y, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  mode = ""
  if (command_argument_count() > 0) call get_command_argument(1, mode)
  if (mode == "abort") then
    if (rank == 1) call MPI_ABORT(MPI_COMM_WORLD, 7, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end if
  call MPI_FINALIZE(ierr)
end program profile_app

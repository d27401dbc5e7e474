! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! overhead.c for Fortran applications (`use mpi`): CPU time per MPI_COMM_RANK call and half
! an 8-byte MPI_SEND/MPI_RECV round trip, printed by rank 0 in overhead.c's format. An
! unchanged binary: run_bench.py --fortran measures it natively and with libpnmpi preloaded.
!   overhead_f [CALLS [ITERATIONS]]
program overhead_f
  use mpi
  implicit none
  integer :: ierr, rank, r, i, phase, n, iterations
  integer(kind=8) :: k, calls
  integer(kind=8) :: msg
  real :: c0, c1
  double precision :: t0, t1
  character(len=32) :: arg

  calls = 10000000_8
  iterations = 10000
  call get_command_argument(1, arg)
  if (len_trim(arg) > 0) read (arg, *) calls
  call get_command_argument(2, arg)
  if (len_trim(arg) > 0) read (arg, *) iterations

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do k = 1, calls / 10 ! warm up caches and branch predictors
    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  end do
  call cpu_time(c0)
  do k = 1, calls
    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  end do
  call cpu_time(c1)

  msg = 0
  do phase = 0, 1
    n = iterations / 10
    if (phase == 1) n = iterations
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    do i = 1, n
      if (rank == 0) then
        call MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      else if (rank == 1) then
        call MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, ierr)
      end if
    end do
    t1 = MPI_Wtime()
    if (phase == 1 .and. rank == 0) print '(a,f0.4,a,f0.4)', 'calls_ns=', &
        dble(c1 - c0) / dble(calls) * 1.0d9, ' pingpong_us=', (t1 - t0) / n / 2 * 1.0d6
  end do
  call MPI_Finalize(ierr)
end program overhead_f

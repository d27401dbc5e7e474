! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! The Fortran pattern, one source for the three interfaces: `include 'mpif.h'` (built with
! -DPNMPI_MPIF_H), `use mpi`, and `use mpi_f08` (-DPNMPI_F08: handles are derived types,
! nonblocking buffers are ASYNCHRONOUS). Point-to-point (blocking, nonblocking, persistent,
! from MPI_BOTTOM), Waitany/Testany/Waitsome, collectives with MPI_IN_PLACE, one-sided,
! Comm_split, string routines and MPI_Pcontrol, on 2 ranks. It checks its own results and
! prints `F ...` lines with what Fortran saw (1-based indices), which the tests compare with
! what the modules saw in C.
#ifdef PNMPI_F08
#define ASYNC asynchronous
#define COMM_T type(MPI_Comm)
#define WIN_T type(MPI_Win)
#define DATATYPE_T type(MPI_Datatype)
#define REQUEST_T type(MPI_Request)
#else
#define ASYNC volatile
#define COMM_T integer
#define WIN_T integer
#define DATATYPE_T integer
#define REQUEST_T integer
#endif
program pattern
#if defined(PNMPI_MPIF_H)
  implicit none
  include 'mpif.h'
#elif defined(PNMPI_F08)
  use mpi_f08
  implicit none
#else
  use mpi
  implicit none
#endif
  integer :: ierr, rank, nprocs, peer, i, k, idx, outcount, sum, namelen
  COMM_T :: newcomm
  WIN_T :: win
  DATATYPE_T :: dtype
  integer :: ibuf(4), rbuf(4), all(2), seen(2), indices(2)
  ! Buffers of nonblocking and persistent calls change behind the compiler's back.
  integer, ASYNC :: pbuf(2), prbuf(2), one, got
  REQUEST_T :: reqs(2), preqs(2)
  ! The window lives in a common block: a remote put changes it, and every external call
  ! (MPI_Win_fence) may change a common block as far as the compiler knows.
  integer :: winbuf(2)
  common /window/ winbuf
  integer(kind=MPI_ADDRESS_KIND) :: addr, disp, winsize
  integer :: blocklen(1)
  integer(kind=MPI_ADDRESS_KIND) :: displs(1)
  double precision :: dbuf(8)
  double precision, ASYNC :: drbuf(8)
  logical :: flag
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_OBJECT_NAME) :: cname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 2) call fail('needs 2 ranks')
  peer = 1 - rank

  ! Blocking, with MPI_STATUS_IGNORE.
  ibuf = [(10 * rank + i, i = 1, 4)]
  if (rank == 0) then
    call MPI_Send(ibuf, 4, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 4, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(rbuf, 4, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(ibuf, 4, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, ierr)
  end if
  if (rbuf(4) /= 10 * peer + 4) call fail('blocking exchange')

  ! Nonblocking.
  dbuf = 1.5d0 * rank
  call MPI_Irecv(drbuf, 8, MPI_DOUBLE_PRECISION, peer, 11, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(dbuf, 8, MPI_DOUBLE_PRECISION, peer, 11, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (abs(drbuf(8) - 1.5d0 * peer) > 0.0d0) call fail('nonblocking exchange')

  ! Persistent, started three times.
  call MPI_Recv_init(prbuf, 2, MPI_INTEGER, peer, 12, MPI_COMM_WORLD, preqs(1), ierr)
  call MPI_Send_init(pbuf, 2, MPI_INTEGER, peer, 12, MPI_COMM_WORLD, preqs(2), ierr)
  do k = 1, 3
    pbuf = [rank, k]
    call MPI_Startall(2, preqs, ierr)
    call MPI_Waitall(2, preqs, MPI_STATUSES_IGNORE, ierr)
    if (prbuf(1) /= peer .or. prbuf(2) /= k) call fail('persistent exchange')
  end do
  call MPI_Request_free(preqs(1), ierr)
  call MPI_Request_free(preqs(2), ierr)

  one = rank
#ifndef PNMPI_F08
  ! Waitany: Fortran indices are 1-based. (Not with mpi_f08: MPICH 4.0.2's returns wrong
  ! indices and leaves requests incomplete, without pnmpi too.)
  call MPI_Irecv(got, 1, MPI_INTEGER, peer, 13, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(one, 1, MPI_INTEGER, peer, 13, MPI_COMM_WORLD, reqs(2), ierr)
  seen = 0
  do k = 1, 2
    call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
    print '(a,i0)', 'F waitany index=', idx
    if (idx < 1 .or. idx > 2) call fail('waitany index')
    seen(idx) = 1
  end do
  if (sum_of(seen) /= 2 .or. got /= peer) call fail('waitany')
#endif

  ! Testany until both are done.
  call MPI_Irecv(got, 1, MPI_INTEGER, peer, 15, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(one, 1, MPI_INTEGER, peer, 15, MPI_COMM_WORLD, reqs(2), ierr)
  k = 0
  do while (k < 2)
    call MPI_Testany(2, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    if (flag .and. idx /= MPI_UNDEFINED) then
      print '(a,i0)', 'F testany index=', idx
      k = k + 1
    end if
  end do

  ! Waitsome until both are done.
  call MPI_Irecv(got, 1, MPI_INTEGER, peer, 16, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(one, 1, MPI_INTEGER, peer, 16, MPI_COMM_WORLD, reqs(2), ierr)
  k = 0
  do while (k < 2)
    call MPI_Waitsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    do i = 1, outcount
      print '(a,i0)', 'F waitsome index=', indices(i)
    end do
    k = k + outcount
  end do

  ! A send from MPI_BOTTOM through an absolute-address datatype.
  one = 100 + rank
  call MPI_Get_address(one, addr, ierr)
  blocklen(1) = 1
  displs(1) = addr
  call MPI_Type_create_hindexed(1, blocklen, displs, MPI_INTEGER, dtype, ierr)
  call MPI_Type_commit(dtype, ierr)
  if (rank == 0) then
    call MPI_Send(MPI_BOTTOM, 1, dtype, peer, 14, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(got, 1, MPI_INTEGER, peer, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (got /= 100) call fail('send from MPI_BOTTOM')
  end if
  call MPI_Type_free(dtype, ierr)

  ! Collectives.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ibuf = rank + 7
  call MPI_Bcast(ibuf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (ibuf(2) /= 7) call fail('bcast')
  sum = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (sum /= 3) call fail('allreduce in place')
  call MPI_Reduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, 1, MPI_COMM_WORLD, ierr)
  if (rank == 1 .and. sum /= 1) call fail('reduce')
  all = [10 * rank, 10 * rank + 1]
  call MPI_Alltoall(all, 1, MPI_INTEGER, seen, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (seen(peer + 1) /= 10 * peer + rank) call fail('alltoall')

  ! A split communicator and string routines.
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, newcomm, ierr)
  call MPI_Comm_set_name(newcomm, 'fortran split', ierr)
  call MPI_Comm_get_name(newcomm, cname, namelen, ierr)
  if (cname(1:namelen) /= 'fortran split') call fail('comm name')
  call MPI_Comm_rank(newcomm, k, ierr)
  if (k /= 1 - rank) call fail('split rank')
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Get_processor_name(host, namelen, ierr)
  print '(a,a)', 'F host=', host(1:namelen)

  ! One-sided.
  winbuf = -1
  winsize = 8
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, peer, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (winbuf(peer + 1) /= peer) call fail('put')
  call MPI_Win_free(win, ierr)

  call MPI_Pcontrol(3)
  print '(a,i0)', 'F ok rank=', rank
  call MPI_Finalize(ierr)

contains

#ifndef PNMPI_F08
  integer function sum_of(v)
    integer, intent(in) :: v(:)
    sum_of = v(1) + v(2)
  end function
#endif

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(a,a)', 'F FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 3, e)
  end subroutine

end program pattern

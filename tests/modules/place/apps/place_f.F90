! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! The place module seen from Fortran, one source for the three interfaces: `include
! 'mpif.h'` (-DPNMPI_MPIF_H), `use mpi`, `use mpi_f08` (-DPNMPI_F08). The job runs in
! reverse order (the application rank of launch slot p is size-1-p); the launch slot comes
! from the launcher's environment. Rank 0 prints `F ITEM: ok` or `F ITEM: FAILED` per item.
#ifdef PNMPI_F08
#define COMM_T type(MPI_Comm)
#define GROUP_T type(MPI_Group)
#define STATUS_T type(MPI_Status)
#define SOURCE_OF(s) s%MPI_SOURCE
#else
#define COMM_T integer
#define GROUP_T integer
#define STATUS_T integer :: st_dummy; integer, dimension(MPI_STATUS_SIZE)
#define SOURCE_OF(s) s(MPI_SOURCE)
#endif
program place_f
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
  integer :: ierr, rank, nprocs, slot, me, nxt, prv, got, res, k, length
  integer :: slots(64)
  STATUS_T :: st
  COMM_T :: dup, half
  GROUP_T :: wgroup
  character(len=32) :: env
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  logical :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_environment_variable('OMPI_COMM_WORLD_RANK', env, length)
  if (length == 0) call get_environment_variable('PMI_RANK', env, length)
  read (env, *) slot
  me = nprocs - 1 - slot
  nxt = mod(me + 1, nprocs)
  prv = mod(me + nprocs - 1, nprocs)

  call item('rank', rank == me)
  call MPI_Sendrecv(me, 1, MPI_INTEGER, nxt, 3, got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3, &
                    MPI_COMM_WORLD, st, ierr)
  call item('status_source', SOURCE_OF(st) == prv .and. got == prv)
  call MPI_Allgather(slot, 1, MPI_INTEGER, slots, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ok = .true.
  do k = 1, nprocs
    ok = ok .and. slots(k) == nprocs - k
  end do
  call item('allgather_order', ok)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
  call item('compare_ident', res == MPI_IDENT)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
  call item('compare_dup', res == MPI_CONGRUENT)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_rank(half, got, ierr)
  call item('split', got == me / 2)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_rank(wgroup, got, ierr)
  call item('group_rank', got == me)
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, length, ierr)
  call item('name', cname(1:length) == 'MPI_COMM_WORLD')
  call MPI_Finalize(ierr)

contains

  subroutine item(name, good)
    character(len=*), intent(in) :: name
    logical, intent(in) :: good
    integer :: mine, all, ierr2
    mine = 0
    if (good) mine = 1
    call MPI_Allreduce(mine, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr2)
    if (rank == 0) then
      if (all == 1) then
        write (*, '(a,a,a)') 'F ', name, ': ok'
      else
        write (*, '(a,a,a)') 'F ', name, ': FAILED'
      end if
    end if
  end subroutine item
end program place_f

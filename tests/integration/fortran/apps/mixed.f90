! SPDX-License-Identifier: BSD-3-Clause
! Copyright (c) 2026 the pnmpi authors
!
! C and Fortran MPI calls in one program: Fortran starts MPI and calls a C function that
! exchanges a message with the C bindings, then Fortran reduces and finishes.
program mixed
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function mixed_c_exchange(rank) bind(C, name='mixed_c_exchange')
      import :: c_int
      integer(c_int), value :: rank
    end function
  end interface
  integer :: rank, got, total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  got = mixed_c_exchange(rank)
  call MPI_Allreduce(got, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= 1) then
    print '(a)', 'F FAILED: mixed'
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end if
  print '(a,i0)', 'F ok rank=', rank
  call MPI_Finalize()
end program mixed

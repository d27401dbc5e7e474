/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The Fortran names of MPI_INIT and MPI_INIT_THREAD, defined here so that a Fortran program
 * linked with -lpnmpi keeps libpnmpi: Debian's linker drops, under --as-needed, a library
 * that defines no symbol the program uses, and a Fortran program uses no C MPI name. Each
 * forwards to the next definition, the MPI's own binding, which pnmpi has already made
 * enter the chain (bindings.cpp); so these cost nothing and change nothing but the link.
 * Every spelling gfortran and other compilers emit is covered: `mpi_init_`, `mpi_init`,
 * `mpi_init__`, `MPI_INIT`, and the mpi_f08 names `mpi_init_f08_`. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>

#include "dispatch.h"

typedef void (*init_fn)(MPI_Fint *ierror);
typedef void (*init_thread_fn)(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);

PNMPI_INTERNAL void pnmpi_fortran_missing(const char *name);

/* The definition of `name` after libpnmpi's own: the MPI's Fortran binding. */
static void *next_definition(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (fn == NULL)
    pnmpi_fortran_missing(name);
  return fn;
}

#define PNMPI_FORTRAN_INIT(name)                                                                   \
  PNMPI_EXPORT void name(MPI_Fint *ierror) {                                                       \
    ((init_fn)next_definition(#name))(ierror);                                                     \
  }
#define PNMPI_FORTRAN_INIT_THREAD(name)                                                            \
  PNMPI_EXPORT void name(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) {               \
    ((init_thread_fn)next_definition(#name))(required, provided, ierror);                          \
  }

PNMPI_FORTRAN_INIT(mpi_init_)
PNMPI_FORTRAN_INIT(mpi_init)
PNMPI_FORTRAN_INIT(mpi_init__)
PNMPI_FORTRAN_INIT(MPI_INIT)
PNMPI_FORTRAN_INIT(mpi_init_f08_)
PNMPI_FORTRAN_INIT_THREAD(mpi_init_thread_)
PNMPI_FORTRAN_INIT_THREAD(mpi_init_thread)
PNMPI_FORTRAN_INIT_THREAD(mpi_init_thread__)
PNMPI_FORTRAN_INIT_THREAD(MPI_INIT_THREAD)
PNMPI_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)

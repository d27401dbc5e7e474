/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The sessions API for Fortran programs (`include 'mpif.h'` or `use mpi`, and
 * `include 'mpi_monitoringf.h'` for the constants): subroutines named as the C functions
 * with a last INTEGER ierr argument, under the four spellings compilers emit (mpi_m_init_,
 * mpi_m_init, mpi_m_init__, MPI_M_INIT). Communicators are Fortran INTEGER handles; data
 * arrays are INTEGER(KIND=8); a matrix declared m(n, n) holds in m(j, i) what rank i-1 sent
 * to rank j-1 (the C row-major layout, row = sender, seen column-major). MPI_M_INT_IGNORE
 * and MPI_M_DATA_IGNORE have no Fortran form: pass variables. */

#include "MPI_Monitoring.h"

#include <stdlib.h>
#include <string.h>

#define MPI_M_EXPORT __attribute__((visibility("default")))

/* The four symbols of one Fortran subroutine, aliases of `impl`. */
#define FORTRAN_NAMES(impl, lc, uc, params)                                                        \
  MPI_M_EXPORT void lc##_ params __attribute__((alias(#impl)));                                    \
  MPI_M_EXPORT void lc params __attribute__((alias(#impl)));                                       \
  MPI_M_EXPORT void lc##__ params __attribute__((alias(#impl)));                                   \
  MPI_M_EXPORT void uc params __attribute__((alias(#impl)));

/* A Fortran string argument (blank-padded, hidden length) as a C string, or NULL. */
static char *c_string(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ')
    --len;
  char *out = malloc(len + 1);
  if (out != NULL) {
    memcpy(out, s, len);
    out[len] = '\0';
  }
  return out;
}

static void f_init(MPI_Fint *ierr) {
  *ierr = MPI_M_init();
}
FORTRAN_NAMES(f_init, mpi_m_init, MPI_M_INIT, (MPI_Fint *))

static void f_finalize(MPI_Fint *ierr) {
  *ierr = MPI_M_finalize();
}
FORTRAN_NAMES(f_finalize, mpi_m_finalize, MPI_M_FINALIZE, (MPI_Fint *))

static void f_start(const MPI_Fint *comm, MPI_Fint *msid, MPI_Fint *ierr) {
  MPI_M_msid id = 0;
  *ierr = MPI_M_start(MPI_Comm_f2c(*comm), &id);
  *msid = id;
}
FORTRAN_NAMES(f_start, mpi_m_start, MPI_M_START, (const MPI_Fint *, MPI_Fint *, MPI_Fint *))

static void f_suspend(const MPI_Fint *msid, MPI_Fint *ierr) {
  *ierr = MPI_M_suspend(*msid);
}
FORTRAN_NAMES(f_suspend, mpi_m_suspend, MPI_M_SUSPEND, (const MPI_Fint *, MPI_Fint *))

static void f_continue(const MPI_Fint *msid, MPI_Fint *ierr) {
  *ierr = MPI_M_continue(*msid);
}
FORTRAN_NAMES(f_continue, mpi_m_continue, MPI_M_CONTINUE, (const MPI_Fint *, MPI_Fint *))

static void f_reset(const MPI_Fint *msid, MPI_Fint *ierr) {
  *ierr = MPI_M_reset(*msid);
}
FORTRAN_NAMES(f_reset, mpi_m_reset, MPI_M_RESET, (const MPI_Fint *, MPI_Fint *))

static void f_free(const MPI_Fint *msid, MPI_Fint *ierr) {
  *ierr = MPI_M_free(*msid);
}
FORTRAN_NAMES(f_free, mpi_m_free, MPI_M_FREE, (const MPI_Fint *, MPI_Fint *))

static void f_get_info(const MPI_Fint *msid, MPI_Fint *provided, MPI_Fint *array_size,
                       MPI_Fint *ierr) {
  int p = 0, n = 0;
  *ierr = MPI_M_get_info(*msid, &p, &n);
  *provided = p;
  *array_size = n;
}
FORTRAN_NAMES(f_get_info, mpi_m_get_info, MPI_M_GET_INFO,
              (const MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *))

static void f_get_data(const MPI_Fint *msid, unsigned long *counts, unsigned long *sizes,
                       const MPI_Fint *flags, MPI_Fint *ierr) {
  *ierr = MPI_M_get_data(*msid, counts, sizes, *flags);
}
FORTRAN_NAMES(f_get_data, mpi_m_get_data, MPI_M_GET_DATA,
              (const MPI_Fint *, unsigned long *, unsigned long *, const MPI_Fint *, MPI_Fint *))

static void f_allgather_data(const MPI_Fint *msid, unsigned long *counts, unsigned long *sizes,
                             const MPI_Fint *flags, MPI_Fint *ierr) {
  *ierr = MPI_M_allgather_data(*msid, counts, sizes, *flags);
}
FORTRAN_NAMES(f_allgather_data, mpi_m_allgather_data, MPI_M_ALLGATHER_DATA,
              (const MPI_Fint *, unsigned long *, unsigned long *, const MPI_Fint *, MPI_Fint *))

static void f_rootgather_data(const MPI_Fint *msid, const MPI_Fint *root, unsigned long *counts,
                              unsigned long *sizes, const MPI_Fint *flags, MPI_Fint *ierr) {
  *ierr = MPI_M_rootgather_data(*msid, *root, counts, sizes, *flags);
}
FORTRAN_NAMES(f_rootgather_data, mpi_m_rootgather_data, MPI_M_ROOTGATHER_DATA,
              (const MPI_Fint *, const MPI_Fint *, unsigned long *, unsigned long *,
               const MPI_Fint *, MPI_Fint *))

static void f_flush(const MPI_Fint *msid, const char *filename, const MPI_Fint *flags,
                    MPI_Fint *ierr, size_t len) {
  char *name = c_string(filename, len);
  *ierr = name != NULL ? MPI_M_flush(*msid, name, *flags) : MPI_M_INTERNAL_FAIL;
  free(name);
}
FORTRAN_NAMES(f_flush, mpi_m_flush, MPI_M_FLUSH,
              (const MPI_Fint *, const char *, const MPI_Fint *, MPI_Fint *, size_t))

static void f_rootflush(const MPI_Fint *msid, const MPI_Fint *root, const char *filename,
                        const MPI_Fint *flags, MPI_Fint *ierr, size_t len) {
  char *name = c_string(filename, len);
  *ierr = name != NULL ? MPI_M_rootflush(*msid, *root, name, *flags) : MPI_M_INTERNAL_FAIL;
  free(name);
}
FORTRAN_NAMES(f_rootflush, mpi_m_rootflush, MPI_M_ROOTFLUSH,
              (const MPI_Fint *, const MPI_Fint *, const char *, const MPI_Fint *, MPI_Fint *,
               size_t))

static void f_reorder(const MPI_Fint *msid, const MPI_Fint *comm, MPI_Fint *newcomm,
                      MPI_Fint *ierr) {
  MPI_Comm out = MPI_COMM_NULL;
  *ierr = MPI_M_reorder(*msid, MPI_Comm_f2c(*comm), &out);
  *newcomm = MPI_Comm_c2f(out);
}
FORTRAN_NAMES(f_reorder, mpi_m_reorder, MPI_M_REORDER,
              (const MPI_Fint *, const MPI_Fint *, MPI_Fint *, MPI_Fint *))

static void f_reorder_hosts(const MPI_Fint *msid, const MPI_Fint *comm, const MPI_Fint *host,
                            MPI_Fint *newcomm, MPI_Fint *ierr) {
  MPI_Comm out = MPI_COMM_NULL;
  *ierr = MPI_M_reorder_hosts(*msid, MPI_Comm_f2c(*comm), *host, &out);
  *newcomm = MPI_Comm_c2f(out);
}
FORTRAN_NAMES(f_reorder_hosts, mpi_m_reorder_hosts, MPI_M_REORDER_HOSTS,
              (const MPI_Fint *, const MPI_Fint *, const MPI_Fint *, MPI_Fint *, MPI_Fint *))

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Names, with dladdr, the function PNMPI_Service_GetReturnAddress finds for each MPI_Send:
 * the application's compat_app_send, whether pnmpi is linked as libpnmpi.so or libpnmpi.a
 * (where pnmpi's code and the application's share one file). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  void *address = NULL;
  Dl_info info;
  if (PNMPI_Service_GetReturnAddress(&address) != PNMPI_SUCCESS)
    printf("return address: none\n");
  else if (dladdr(address, &info) == 0 || info.dli_sname == NULL)
    printf("return address: unnamed\n");
  else
    printf("return address in %s\n", info.dli_sname);
  fflush(stdout);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* MPI_M_reorder: the report's Figure 1 (gather a session's matrix, map, broadcast, split)
 * with pnmpi's mapping library, so that the in-application reordering gives the placement
 * `module place` and `pnmpi-report reorder` give for the same matrix and hosts. The calls
 * go through MPI_ (the pnmpi stack), as the application's own calls would: tools see the
 * gather and the new communicator. */

#include "MPI_Monitoring.h"

#include <pnmpi/mapping.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPI_M_EXPORT __attribute__((visibility("default")))

/* Host index of every process of comm, on rank 0 (numbered in order of first appearance of
 * their processor names); NULL elsewhere. MPI_SUCCESS or an MPI_M_ code, the same on every
 * process. */
static int gather_hosts(MPI_Comm comm, int rank, int n, int given, int32_t **out) {
  *out = NULL;
  int32_t *hosts = NULL;
  int ok = 1;
  if (given >= 0) {
    int h = given;
    if (rank == 0 && (hosts = malloc(sizeof *hosts * (size_t)n)) == NULL)
      ok = 0;
    if (MPI_Gather(&h, 1, MPI_INT, hosts, 1, MPI_INT, 0, comm) != MPI_SUCCESS) {
      free(hosts);
      return MPI_M_MPIT_FAIL;
    }
  } else {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    memset(name, 0, sizeof name);
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
      return MPI_M_MPIT_FAIL;
    char *names = NULL;
    if (rank == 0) {
      names = malloc((size_t)n * MPI_MAX_PROCESSOR_NAME);
      hosts = malloc(sizeof *hosts * (size_t)n);
      ok = names != NULL && hosts != NULL;
    }
    if (MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, ok ? names : NULL,
                   MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
      free(names);
      free(hosts);
      return MPI_M_MPIT_FAIL;
    }
    if (rank == 0 && ok) {
      /* first[k]: the first process of the k-th distinct host. */
      int *first = malloc(sizeof *first * (size_t)n);
      int distinct = 0;
      ok = first != NULL;
      for (int p = 0; ok && p < n; ++p) {
        const char *me = names + (size_t)p * MPI_MAX_PROCESSOR_NAME;
        int k = 0;
        while (k < distinct && strncmp(names + (size_t)first[k] * MPI_MAX_PROCESSOR_NAME, me,
                                       MPI_MAX_PROCESSOR_NAME) != 0)
          ++k;
        if (k == distinct)
          first[distinct++] = p;
        hosts[p] = k;
      }
      free(first);
    }
    free(names);
  }
  if (rank == 0 && !ok) {
    free(hosts);
    hosts = NULL;
  }
  *out = hosts;
  return MPI_SUCCESS;
}

/* On rank 0: rank_of_slot from the gathered byte matrix; 0, or a PNMPI_MAP_ code with the
 * message printed. */
static int map_on_root(const unsigned long *bytes, int n, const int32_t *hosts,
                       int32_t *rank_of_slot) {
  char err[512];
  int64_t *xadj = malloc(sizeof *xadj * ((size_t)n + 1));
  size_t cells = 0;
  for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
    cells += bytes[k] != 0;
  int64_t *adj = malloc(sizeof *adj * (cells ? cells : 1));
  uint64_t *val = malloc(sizeof *val * (cells ? cells : 1));
  int rc = PNMPI_MAP_ENOMEM;
  if (xadj != NULL && adj != NULL && val != NULL) {
    size_t c = 0;
    xadj[0] = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const unsigned long b = bytes[(size_t)i * (size_t)n + (size_t)j];
        if (b != 0) {
          adj[c] = j;
          val[c++] = b;
        }
      }
      xadj[i + 1] = (int64_t)c;
    }
    pnmpi_map_matrix *m = NULL;
    rc = pnmpi_map_matrix_from_csr(n, xadj, adj, val, &m, err, sizeof err);
    if (rc == 0)
      rc = pnmpi_map_place(m, n, hosts, rank_of_slot, err, sizeof err);
    pnmpi_map_matrix_free(m);
  } else {
    snprintf(err, sizeof err, "out of memory for the matrix of %d ranks", n);
  }
  if (rc != 0)
    fprintf(stderr, "pnmpi: MPI_M_reorder: %s\n", err);
  free(xadj);
  free(adj);
  free(val);
  return rc;
}

static int reorder(MPI_M_msid msid, MPI_Comm comm, int host, MPI_Comm *newcomm) {
  if (newcomm == NULL || comm == MPI_COMM_NULL)
    return MPI_M_INVALID_ARG;
  int inter = 0, n = 0, rank = 0, session_size = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return MPI_M_INVALID_ARG;
  const int info = MPI_M_get_info(msid, MPI_M_INT_IGNORE, &session_size);
  if (info != MPI_SUCCESS)
    return info;
  if (MPI_Comm_size(comm, &n) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return MPI_M_MPIT_FAIL;
  if (n != session_size)
    return MPI_M_INVALID_ARG;
  /* Every process learns whether all hosts were given (a negative one is refused by all). */
  int bad_host = host == -2, any_bad = 0;
  if (MPI_Allreduce(&bad_host, &any_bad, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return MPI_M_MPIT_FAIL;
  if (any_bad)
    return MPI_M_INVALID_ARG;

  unsigned long *bytes = NULL;
  if (rank == 0)
    bytes = calloc((size_t)n * (size_t)n, sizeof *bytes);
  int rc = MPI_M_rootgather_data(msid, 0, MPI_M_DATA_IGNORE,
                                 rank == 0 ? (bytes != NULL ? bytes : NULL) : MPI_M_DATA_IGNORE,
                                 MPI_M_ALL_COMM);
  if (rc != MPI_SUCCESS) {
    free(bytes);
    return rc;
  }
  int32_t *hosts = NULL;
  rc = gather_hosts(comm, rank, n, host, &hosts);
  if (rc != MPI_SUCCESS) {
    free(bytes);
    return rc;
  }
  int32_t *rank_of_slot = NULL;
  int status = MPI_SUCCESS;
  if (rank == 0) {
    rank_of_slot = malloc(sizeof *rank_of_slot * (size_t)n);
    if (bytes == NULL || hosts == NULL || rank_of_slot == NULL)
      status = MPI_M_INTERNAL_FAIL;
    else if (map_on_root(bytes, n, hosts, rank_of_slot) != 0)
      status = MPI_M_MAPPING_FAIL;
  }
  free(bytes);
  free(hosts);
  int key = rank;
  if (MPI_Bcast(&status, 1, MPI_INT, 0, comm) != MPI_SUCCESS ||
      (status == MPI_SUCCESS &&
       MPI_Scatter(rank_of_slot, 1, MPI_INT, &key, 1, MPI_INT, 0, comm) != MPI_SUCCESS)) {
    free(rank_of_slot);
    return MPI_M_MPIT_FAIL;
  }
  free(rank_of_slot);
  if (status != MPI_SUCCESS)
    return status;
  return MPI_Comm_split(comm, 0, key, newcomm) == MPI_SUCCESS ? MPI_SUCCESS : MPI_M_MPIT_FAIL;
}

MPI_M_EXPORT int MPI_M_reorder(MPI_M_msid msid, MPI_Comm comm, MPI_Comm *newcomm) {
  return reorder(msid, comm, -1, newcomm);
}

MPI_M_EXPORT int MPI_M_reorder_hosts(MPI_M_msid msid, MPI_Comm comm, int host, MPI_Comm *newcomm) {
  return reorder(msid, comm, host < 0 ? -2 : host, newcomm);
}

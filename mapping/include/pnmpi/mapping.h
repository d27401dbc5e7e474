/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/**
 * @file pnmpi/mapping.h
 * The one rank-to-host mapping of pnmpi: `module place`, MPI_M_reorder and
 * `pnmpi-report reorder` all call it, so the same matrix and hosts give the same placement
 * everywhere. Link with `pnmpi_mapping` (libpnmpi_mapping.so); no MPI is needed.
 *
 * Every function that can fail returns 0 on success and a PNMPI_MAP_E* code otherwise, with
 * a one-line message (no `pnmpi:` prefix, no newline) in err[0..errlen) when err is not
 * NULL. Nothing prints, nothing exits. The functions are thread-safe on distinct matrices.
 *
 * Example: place an earlier run onto this job's slots.
 * @code
 *   pnmpi_map_matrix *m;
 *   char err[512];
 *   if (pnmpi_map_load_run("results/run", &m, err, sizeof err) != 0) { report(err); }
 *   int32_t slot_host[4] = {0, 0, 1, 1}, rank_of_slot[4];
 *   if (pnmpi_map_place(m, 4, slot_host, rank_of_slot, err, sizeof err) != 0) { report(err); }
 *   pnmpi_map_matrix_free(m);
 * @endcode
 */
#ifndef PNMPI_MAPPING_H
#define PNMPI_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#if defined(PNMPI_MAPPING_BUILDING)
#define PNMPI_MAP_EXPORT __attribute__((visibility("default")))
#else
#define PNMPI_MAP_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Return codes. */
enum {
  PNMPI_MAP_OK = 0,
  PNMPI_MAP_EINVAL = 1,  /**< an argument is invalid (sizes, host indices, NULL) */
  PNMPI_MAP_EIO = 2,     /**< a file cannot be read */
  PNMPI_MAP_EFORMAT = 3, /**< a file is not what it should be (file and line in err) */
  PNMPI_MAP_ESCOTCH = 4, /**< Scotch refused or failed (its message in err) */
  PNMPI_MAP_ENOMEM = 5   /**< out of memory */
};

/** A communication matrix: bytes sent by rank i to rank j (row = sender). */
typedef struct pnmpi_map_matrix pnmpi_map_matrix;

/** Reads the application traffic (point-to-point, collectives as per-peer messages,
 *  one-sided data) of a monitor run: PREFIX (PREFIX.json, else PREFIX.<rank>.prof),
 *  PREFIX.json, one PREFIX.<rank>.prof file (all ranks of that prefix are read), or a
 *  directory holding one run. The .prof files may be the monitor's or Open MPI's own
 *  monitoring. 0 on success; *out is then freed with pnmpi_map_matrix_free. */
PNMPI_MAP_EXPORT int pnmpi_map_load_run(const char *run, pnmpi_map_matrix **out, char *err,
                                        size_t errlen);

/** A matrix of n ranks from CSR arrays: the bytes rank i sent to adjncy[k] for k in
 *  xadj[i]..xadj[i+1]-1. Pairs listed twice are added; self traffic is kept (it never
 *  crosses hosts). */
PNMPI_MAP_EXPORT int pnmpi_map_matrix_from_csr(int64_t n, const int64_t *xadj,
                                               const int64_t *adjncy, const uint64_t *bytes,
                                               pnmpi_map_matrix **out, char *err, size_t errlen);

/** Number of ranks of the matrix. */
PNMPI_MAP_EXPORT int64_t pnmpi_map_matrix_size(const pnmpi_map_matrix *m);

/** Total bytes of the matrix (self traffic included). */
PNMPI_MAP_EXPORT uint64_t pnmpi_map_matrix_total(const pnmpi_map_matrix *m);

/** Frees a matrix (NULL is allowed). */
PNMPI_MAP_EXPORT void pnmpi_map_matrix_free(pnmpi_map_matrix *m);

/** slot_host[p] = host index (0..H-1) of launch slot p (the job's world rank p), nslots ==
 *  the matrix's size. On success rank_of_slot[p] = the application rank to run in slot p
 *  (a permutation), and 0. Every host receives exactly as many ranks as it has slots.
 *  Deterministic: the same matrix and slot_host give the same answer in every process.
 *  The answer never crosses more bytes than the identity (rank p in slot p). */
PNMPI_MAP_EXPORT int pnmpi_map_place(const pnmpi_map_matrix *m, int64_t nslots,
                                     const int32_t *slot_host, int32_t *rank_of_slot, char *err,
                                     size_t errlen);

/** Bytes that cross hosts under a placement (rank_of_slot NULL: the identity). Invalid
 *  arguments (sizes differ, a negative host, not a permutation) give UINT64_MAX. */
PNMPI_MAP_EXPORT uint64_t pnmpi_map_crossing_bytes(const pnmpi_map_matrix *m, int64_t nslots,
                                                   const int32_t *slot_host,
                                                   const int32_t *rank_of_slot);

/** How the last pnmpi_map_place of this thread found its answer, e.g. "Scotch 7.0.3 graph
 *  mapping, then swaps" (static storage of the thread; "" before any call). */
PNMPI_MAP_EXPORT const char *pnmpi_map_last_method(void);

/** The Scotch version the library uses, e.g. "7.0.3". */
PNMPI_MAP_EXPORT const char *pnmpi_map_scotch_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_MAPPING_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/** @file
 * The sizes of MPI's predefined datatypes, cached for a module's call path (C and C++,
 * header only: include <mpi.h> first). The module owns the table; filling it calls
 * PMPI_Type_size for each predefined datatype, through the layers below the module, at
 * MPI_Init (after that the table is read-only). Derived datatypes are never cached: their
 * handles can be freed and reused, so a miss asks MPI each time.
 *
 *     static pnmpi_type_slot_t types[PNMPI_TYPE_SLOTS];
 *     ... after MPI_Init: pnmpi_type_table_fill(types);
 *     uint64_t size;
 *     if (!pnmpi_type_cached(types, type, &size)) size = ask_mpi(type);
 */
#ifndef PNMPI_DATATYPES_H
#define PNMPI_DATATYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Slots of a table: a power of two, at least four times the predefined datatypes. */
#define PNMPI_TYPE_SLOTS 512u

typedef struct {
  uintptr_t key; /**< the handle's bits, 0 for an empty slot */
  uint64_t size;
} pnmpi_type_slot_t;

/** The bits of a datatype handle (a pointer in Open MPI, an int in MPICH). */
static inline uintptr_t pnmpi_type_key(MPI_Datatype type) {
  return (uintptr_t)type;
}

/** The first slot of `key` (Fibonacci hashing: aligned pointers and small ints spread). */
static inline unsigned pnmpi_type_home(uintptr_t key) {
  return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 55) & (PNMPI_TYPE_SLOTS - 1u);
}

/** 1 and the size of a predefined datatype, 0 for any other (open addressing). */
static inline __attribute__((always_inline)) int
pnmpi_type_cached(const pnmpi_type_slot_t *table, MPI_Datatype type, uint64_t *size) {
  const uintptr_t k = pnmpi_type_key(type);
  for (unsigned i = pnmpi_type_home(k);; i = (i + 1u) & (PNMPI_TYPE_SLOTS - 1u)) {
    if (table[i].key == k) {
      *size = table[i].size;
      return 1;
    }
    if (table[i].key == 0)
      return 0;
  }
}

/** Fills `table` (zeroed) with the size of every predefined datatype, C and Fortran. */
static inline void pnmpi_type_table_fill(pnmpi_type_slot_t *table) {
  const MPI_Datatype types[] = {MPI_CHAR,
                                MPI_SHORT,
                                MPI_INT,
                                MPI_LONG,
                                MPI_LONG_LONG_INT,
                                MPI_LONG_LONG,
                                MPI_SIGNED_CHAR,
                                MPI_UNSIGNED_CHAR,
                                MPI_UNSIGNED_SHORT,
                                MPI_UNSIGNED,
                                MPI_UNSIGNED_LONG,
                                MPI_UNSIGNED_LONG_LONG,
                                MPI_FLOAT,
                                MPI_DOUBLE,
                                MPI_LONG_DOUBLE,
                                MPI_WCHAR,
                                MPI_C_BOOL,
                                MPI_INT8_T,
                                MPI_INT16_T,
                                MPI_INT32_T,
                                MPI_INT64_T,
                                MPI_UINT8_T,
                                MPI_UINT16_T,
                                MPI_UINT32_T,
                                MPI_UINT64_T,
                                MPI_AINT,
                                MPI_COUNT,
                                MPI_OFFSET,
                                MPI_C_COMPLEX,
                                MPI_C_FLOAT_COMPLEX,
                                MPI_C_DOUBLE_COMPLEX,
                                MPI_C_LONG_DOUBLE_COMPLEX,
                                MPI_BYTE,
                                MPI_PACKED,
                                MPI_FLOAT_INT,
                                MPI_DOUBLE_INT,
                                MPI_LONG_INT,
                                MPI_2INT,
                                MPI_SHORT_INT,
                                MPI_LONG_DOUBLE_INT,
                                MPI_INTEGER,
                                MPI_REAL,
                                MPI_DOUBLE_PRECISION,
                                MPI_COMPLEX,
                                MPI_DOUBLE_COMPLEX,
                                MPI_LOGICAL,
                                MPI_CHARACTER,
                                MPI_2REAL,
                                MPI_2DOUBLE_PRECISION,
                                MPI_2INTEGER,
                                MPI_INTEGER4,
                                MPI_INTEGER8,
                                MPI_REAL4,
                                MPI_REAL8};
  for (unsigned t = 0; t < sizeof types / sizeof types[0]; ++t) {
    const uintptr_t k = pnmpi_type_key(types[t]);
    int size = 0;
    if (types[t] == MPI_DATATYPE_NULL || k == 0 || PMPI_Type_size(types[t], &size) != MPI_SUCCESS ||
        size < 0)
      continue;
    for (unsigned i = pnmpi_type_home(k);; i = (i + 1u) & (PNMPI_TYPE_SLOTS - 1u)) {
      if (table[i].key == k)
        break;
      if (table[i].key == 0) {
        table[i].size = (uint64_t)size;
        table[i].key = k;
        break;
      }
    }
  }
}

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_DATATYPES_H */

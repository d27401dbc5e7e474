/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/* The profile module's call path, shared by its generated wrappers (profile_wrappers.c)
 * and profile.cpp. Every thread counts into a block of its own inside the part file
 * (no lock, no atomic read-modify-write on the call path), reached through one
 * initial-exec TLS pointer; the block is taken at the thread's first call. */
#ifndef PNMPI_PROFILE_H
#define PNMPI_PROFILE_H

#include <mpi.h>
#include <pnmpi/datatypes.h>
#include <pnmpi/pnmpi.h>
#include <pnmpi/support.h>
#include <pnmpi_routine_ids.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROFILE_HIDDEN __attribute__((visibility("hidden")))

/** One routine's counters of one thread and one origin. Times in ticks. */
typedef struct {
  uint64_t calls, ticks, min, max, bytes;
} profile_cell_t;

/** The calling thread's cells: [0, N) the application's calls, [N, 2N) the modules'. */
extern PROFILE_HIDDEN __thread profile_cell_t *profile_t_cells
    __attribute__((tls_model("initial-exec")));

/** Takes a block for this thread (NULL when none is left: the call is counted as lost). */
PROFILE_HIDDEN profile_cell_t *profile_thread_cells(void);
PROFILE_HIDDEN uint64_t profile_type_size_slow(MPI_Datatype type);
PROFILE_HIDDEN extern const char *const profile_routine_names[PNMPI_NUM_ROUTINES];

/** `argument split on`: also count per (routine, communicator size, message-size bin). */
extern PROFILE_HIDDEN int profile_split_on;
PROFILE_HIDDEN void profile_split(int id, int app, uint64_t ticks, uint64_t bytes, MPI_Comm comm);

PROFILE_HIDDEN void profile_init_begin(void);
PROFILE_HIDDEN void profile_init_end(int rc);
PROFILE_HIDDEN void profile_finalize_begin(void);
PROFILE_HIDDEN void profile_abort(int code);

/* Sizes of the predefined datatypes (<pnmpi/datatypes.h>), filled at MPI_Init and
 * read-only afterwards. Derived datatypes ask MPI each time: their handles can be freed
 * and reused. */
extern PROFILE_HIDDEN pnmpi_type_slot_t profile_types[PNMPI_TYPE_SLOTS];

static inline __attribute__((always_inline)) uint64_t profile_type_size(MPI_Datatype type) {
  uint64_t size;
  return pnmpi_type_cached(profile_types, type, &size) ? size : profile_type_size_slow(type);
}

static inline __attribute__((always_inline)) uint64_t profile_volume(long long count,
                                                                     MPI_Datatype type) {
  return count > 0 ? (uint64_t)count * profile_type_size(type) : 0;
}

static inline int profile_from_application(int id) {
  return pnmpi_entry_id == id;
}

static inline __attribute__((always_inline)) void profile_count(int id, int app, uint64_t ticks,
                                                                uint64_t bytes) {
  profile_cell_t *c = profile_t_cells;
  if (__builtin_expect(c == 0, 0)) {
    c = profile_thread_cells();
    if (c == 0)
      return;
  }
  c += (app ? 0 : PNMPI_NUM_ROUTINES) + id;
  const uint64_t n = c->calls + 1;
  c->calls = n;
  c->ticks += ticks;
  c->bytes += bytes;
  c->max = ticks > c->max ? ticks : c->max;
  c->min = (n == 1 || ticks < c->min) ? ticks : c->min;
}

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_PROFILE_H */

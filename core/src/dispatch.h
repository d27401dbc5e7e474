/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The per-call dispatch state shared by the generated stub, the generated core entry
 * points and the core. C, so that the generated sources stay C.
 *
 * Invariant: pnmpi_mask and pnmpi_head start out routing every routine to its pending
 * function (generated in pnmpi_stub.c), are written once by pnmpi_core_load() inside the
 * first MPI_Init/MPI_Init_thread/MPI_Session_init/MPI_T_init_thread, before the chain's call
 * reaches MPI, and are read-only afterwards. The per-call path therefore takes no lock. Its
 * one thread-local write is pnmpi_note_entry(), on wrapped routines only. */
#ifndef PNMPI_DISPATCH_H
#define PNMPI_DISPATCH_H

#include <stdint.h>

#include <pnmpi/pnmpi.h>

#include "pnmpi_routine_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PNMPI_INTERNAL __attribute__((visibility("hidden")))

/** Any routine's function pointer; cast to the routine's own type before calling. */
typedef void (*pnmpi_fn_any)(void);

#define PNMPI_MASK_WORDS ((PNMPI_NUM_ROUTINES + 63) / 64)

/** After loading, bit `id` is set exactly when at least one loaded module wraps routine
 * `id`; before, every bit is set (generated). */
PNMPI_INTERNAL extern uint64_t pnmpi_mask[PNMPI_MASK_WORDS];

/** The first layer of the default stack for each routine (only read when its bit is set);
 * before loading, the routine's pending function (generated). */
PNMPI_INTERNAL extern pnmpi_fn_any pnmpi_head[PNMPI_NUM_ROUTINES];

/** The MPI library's PMPI_X for every routine: the bottom of every chain (generated). */
PNMPI_INTERNAL extern const pnmpi_fn_any pnmpi_pmpi_table[PNMPI_NUM_ROUTINES];

/** pnmpi's own MPI_X for every routine: where the MPI's language bindings are made to enter
 * the chain (generated). */
PNMPI_INTERNAL extern const pnmpi_fn_any pnmpi_entry_table[PNMPI_NUM_ROUTINES];

/** For every routine, MPI_X without the entry note: where a module's calls by public names
 * are bound, so that they enter the chain at the top without changing the application's
 * entry (generated in pnmpi_stub.c). */
PNMPI_INTERNAL extern const pnmpi_fn_any pnmpi_nested_table[PNMPI_NUM_ROUTINES];

/** One bit of a bit set stored as 64-bit words. The only place bit arithmetic lives. */
static inline int pnmpi_bit_test(const uint64_t *words, unsigned bit) {
  return (int)((words[bit >> 6] >> (bit & 63u)) & 1u);
}

/** Sets one bit of a bit set stored as 64-bit words. */
static inline void pnmpi_bit_set(uint64_t *words, unsigned bit) {
  words[bit >> 6] |= (uint64_t)1 << (bit & 63u);
}

/** The stub's fast-path test. */
static inline int pnmpi_routine_wrapped(unsigned id) {
  return __builtin_expect(pnmpi_bit_test(pnmpi_mask, id), 0);
}

/** Notes that the application entered the chain through routine `id` on this thread (see
 * pnmpi_entry_id in pnmpi.h): one store to initial-exec TLS, made by the stub before the
 * first layer runs, and only when a module wraps the routine. */
static inline void pnmpi_note_entry(unsigned id) {
  pnmpi_entry_id = (int)id;
}

/** Reads the configuration and loads every module, once; later calls return at once.
 * On any error it prints `pnmpi: ...` and ends the process with a non-zero status. */
PNMPI_INTERNAL void pnmpi_core_load(void);

/** Called instead of the chain while the core is not loaded (the pending path of routine
 * `id`): returns at once while MPI is not initialised; if MPI was initialised without
 * pnmpi's MPI_Init, either applies "no configuration" or, when a configuration lists
 * modules, stops the job with an error. */
PNMPI_INTERNAL void pnmpi_core_pending(unsigned id);

/** Runs the modules' finalize hooks while MPI is still usable (from MPI_Finalize). */
PNMPI_INTERNAL void pnmpi_core_finalize(void);

/** The layer after the module whose code contains `return_address`, for routine `id`:
 * the slow path behind XMPI_X for calls that were not bound at load time. */
PNMPI_INTERNAL pnmpi_fn_any pnmpi_next_by_caller(unsigned id, const void *return_address);

/** The first layer of routine `id` in stack `stack` (XMPI_X_NewStack). */
PNMPI_INTERNAL pnmpi_fn_any pnmpi_stack_head(int stack, unsigned id);

/** The extra argument of one MPI_Pcontrol(level, ...) call (pnmpi_pcontrol_argument_type). */
typedef struct pnmpi_pcontrol_arg {
  pnmpi_pcontrol_type_t type;
  union {
    int i;
    long l;
    double d;
    void *p;
  } value;
} pnmpi_pcontrol_arg;

/** Calls MPI_Pcontrol of every layer of `stack` that receives it (`pcontrol`,
 * `globalpcontrol`), in config order, with `level` and `arg`. Returns the first non-zero
 * status a layer returned, else 0 (MPI_SUCCESS). */
PNMPI_INTERNAL int pnmpi_pcontrol_deliver(int stack, int level, const pnmpi_pcontrol_arg *arg);

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_DISPATCH_H */

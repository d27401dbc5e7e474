/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The empty module: the template to copy when you write a pnmpi module.
 *
 * It does one small, complete job, so that every part of the module API appears once, in
 * the place it belongs: it counts the MPI_Send calls that pass through its layer, tells the
 * application's own sends from those a module above it makes, publishes the count as a
 * service, reads the count of the layer above it through that layer's service, and prints
 * both at MPI_Finalize. Copy this file, rename the module, delete what you do not need.
 *
 *   module empty               # in .pnmpi-conf
 *   argument report off        # optional: do not print the counts at MPI_Finalize
 *
 * Output, per rank and layer, at MPI_Finalize (with `report on`, the default):
 *   empty[RANK]: layer L: N send(s), A from the application
 *   empty[RANK]: layer L: the empty layer above (K) counted M send(s)
 *
 * A module is an ordinary PMPI tool
 *   Define MPI_X to intercept routine X and call PMPI_X to pass the call on, exactly as in
 *   any PMPI tool; it can be tested on its own, linked or preloaded without pnmpi. Build it
 *   as a shared object with pnmpi_add_module(<name> <sources>) from find_package(pnmpi)
 *   (an install's share/pnmpi/examples/tool/CMakeLists.txt shows how). After the link,
 *   pnmpi-patch renames the module's imported PMPI_X symbols to XMPI_X; pnmpi's core
 *   points each of them at the next layer of the stack the configuration builds: the next
 *   module that wraps X, or the MPI library itself after the last one. Existing binary
 *   PMPI tools become modules the same way.
 *
 * Rules
 * - Pass a call on with PMPI_X, never with MPI_X: the public name enters the whole chain
 *   again from the top, this module included (recursion, or every layer counting the call
 *   twice). Call MPI_X only for a new call of your own that all layers should see.
 * - Return the next layer's return code untouched, and leave the arguments alone unless
 *   changing the call is the point of the module. Errors are reported by the MPI library
 *   below, through the communicator's error handler, as without pnmpi.
 * - Export every wrapper and every hook with PNMPI_EXPORT (from <pnmpi/pnmpi.h>). Modules
 *   are built with hidden visibility, and the core finds wrappers and hooks by their
 *   exported names only: a function without it is never called, and nothing warns (the
 *   hooks' declarations in <pnmpi/pnmpi.h> carry it already, mpi.h's wrappers do not).
 *   `pnmpi-info -c CONF` lists the hooks it finds. Keep every other function and global
 *   static: several modules share one process.
 * - Wrap only the routines you need: a routine you do not wrap costs your layer nothing,
 *   and the call goes straight from the layer above to the layer below.
 * - Listing the same module k times in the configuration gives k independent layers, each
 *   with its own copy of the module's global variables and its own arguments.
 *
 * Threads
 *   Wrappers may run on several threads at once (MPI_THREAD_MULTIPLE), so the counters
 *   below are atomics; protect any other shared state as any PMPI tool must (a mutex is
 *   fine off the hot path). Hooks run one at a time, on the thread that called MPI_Init or
 *   MPI_Finalize, so state set in a hook before MPI_Init returns needs no lock when the
 *   wrappers only read it afterwards. A service may be called from any thread.
 *
 * Hooks used here, in the order they run (docs/tool-writers-guide.md has them all, with
 * the original PnMPI's names such as PNMPI_RegistrationPoint and PNMPI_Fini):
 *   pnmpi_module_loaded(self)   inside the first MPI_Init, before MPI is initialised: read
 *                               arguments, publish services. Do not call MPI here.
 *   PNMPI_Init()                after every layer's pnmpi_module_loaded, still before MPI
 *                               is initialised: look up the other modules' services.
 *   pnmpi_module_finalize(self) when the application calls MPI_Finalize, before any
 *                               layer's MPI_Finalize wrapper: MPI is still usable, through
 *                               the layers below this one. Write reports here. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The argument keys this module takes. Any other `argument KEY ...` under `module empty`
 * is then an error naming FILE:LINE, at load and in `pnmpi-info --check`, instead of a
 * misspelt key being ignored. */
PNMPI_MODULE_ARGUMENTS("report");

/* The service other modules find this layer's count by. Its signature is free-form text
 * that a lookup must match exactly; pnmpi's convention is the C type, which also says what
 * the function returns when it is not int. Services are stored as int (*)(): a function
 * that returns another type is cast through void (*)(void) both ways, which is how C
 * compilers are told that the cast is intended (-Wcast-function-type). */
#define SENDS_SERVICE "empty.sends"
#define SENDS_SIGNATURE "long(int)"
typedef long (*sends_fn)(int application_only);

/* Set by the hooks, before MPI_Init returns; read-only afterwards (see Threads). */
static PNMPI_modHandle_t g_self = PNMPI_MODHANDLE_NULL;
static int g_report = 1;
static int g_send_id = -1;             /* MPI_Send's routine id in this build of pnmpi */
static sends_fn g_above_sends;         /* the service of the empty layer above, if any */
static PNMPI_modHandle_t g_above = -1; /* that layer's handle */

/* Relaxed atomics: each counter is independent and read only at finalize, after the
 * application's sends have returned, so no ordering between them is needed. */
static atomic_long g_sends;
static atomic_long g_application_sends;

/* The one wrapper. Its signature is mpi.h's, and it forwards with PMPI_Send. */
PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  atomic_fetch_add_explicit(&g_sends, 1, memory_order_relaxed);
  /* Call origin: whether this send is the application's own or one a module above this
   * layer issued itself (say, a profiler's report). One thread-local load and a compare. */
  if (pnmpi_entry_origin(g_send_id) == PNMPI_ORIGIN_APPLICATION)
    atomic_fetch_add_explicit(&g_application_sends, 1, memory_order_relaxed);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

/* The service: this layer's count, of every send or of the application's only. */
static long sends_of(int application_only) {
  return atomic_load_explicit(application_only ? &g_application_sends : &g_sends,
                              memory_order_relaxed);
}

/* Optional: reads every argument, with no other effect. `pnmpi-info --check` calls it (in
 * a process of its own, without MPI) to check the values with this very code; the job calls
 * it from pnmpi_module_loaded below. `argument report on|off`: the default stays when the
 * argument is absent; on a bad value the core prints `pnmpi: FILE:LINE: module 'empty':
 * argument 'report' must be ...`. */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  return pnmpi_argument_bool(self, "report", PNMPI_ARG_OPTIONAL, &g_report) == PNMPI_BADARG
             ? PNMPI_BADARG
             : PNMPI_SUCCESS;
}

/* Hook: this layer is loaded and bound; MPI is not initialised yet. `self` is this layer's
 * handle: with the module listed twice, each copy receives its own. */
PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  g_self = self;

  /* A bad value has been printed: stop with _exit, because MPI is not running yet and
   * exit() would run other modules' exit handlers. */
  if (pnmpi_module_check(self) != PNMPI_SUCCESS)
    _exit(1);

  /* Routine ids differ between builds of pnmpi: look them up here, never compile them in.
   * -1 (the MPI has no such routine) makes pnmpi_entry_origin() say PNMPI_ORIGIN_MODULE. */
  g_send_id = pnmpi_routine_id("MPI_Send");

  /* Publish the service. The descriptor is copied; the name is this module's own prefix
   * plus a word, so that it cannot clash with another module's service. */
  PNMPI_Service_descriptor_t service;
  memset(&service, 0, sizeof service);
  strcpy(service.name, SENDS_SERVICE);
  strcpy(service.sig, SENDS_SIGNATURE);
  service.fct = (PNMPI_Service_Fct_t)(void (*)(void))sends_of;
  const PNMPI_status_t status = PNMPI_Service_RegisterService(&service);
  if (status != PNMPI_SUCCESS) {
    fprintf(stderr, "pnmpi: module 'empty' (layer %d): cannot publish service '%s': %s\n", self,
            SENDS_SERVICE, PNMPI_Service_StatusString(status));
    _exit(1);
  }
}

/* Hook: every layer has run pnmpi_module_loaded, so every service is published. Look up
 * the ones this module uses here, once, and keep the function pointer: a lookup takes a
 * lock and compares strings, which a wrapper must not do on every call.
 *
 * PNMPI_Service_GetServiceByName(PNMPI_MODHANDLE_NULL, ...) or
 * PNMPI_Service_GetModuleByName() give the first layer in config order that matches. To
 * reach a particular copy of a module listed several times, walk the handles (0 to
 * pnmpi_module_count() - 1) and ask each layer, as here: the nearest layer above this one
 * that publishes the service. */
PNMPI_EXPORT void PNMPI_Init(void) {
  for (PNMPI_modHandle_t layer = g_self - 1; layer >= 0; --layer) {
    PNMPI_Service_descriptor_t service;
    const PNMPI_status_t status =
        PNMPI_Service_GetServiceByName(layer, SENDS_SERVICE, SENDS_SIGNATURE, &service);
    if (status == PNMPI_SUCCESS) {
      g_above_sends = (sends_fn)(void (*)(void))service.fct;
      g_above = layer;
      return;
    }
    /* PNMPI_NOSERVICE: that layer is another module. PNMPI_SIGNATURE would mean a module
     * publishes the name with another type: calling it would be undefined, so skip it. */
  }
}

/* Hook: the application called MPI_Finalize, and MPI is still usable through the layers
 * below. Only this layer's own calls are made here (PMPI_Comm_rank goes to the next layer),
 * and stdout is flushed so that mpirun gets each rank's lines whole. */
PNMPI_EXPORT void pnmpi_module_finalize(PNMPI_modHandle_t self) {
  if (!g_report)
    return;
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("empty[%d]: layer %d: %ld send(s), %ld from the application\n", rank, self, sends_of(0),
         sends_of(1));
  if (g_above_sends != NULL)
    printf("empty[%d]: layer %d: the empty layer above (%d) counted %ld send(s)\n", rank, self,
           g_above, g_above_sends(0));
  fflush(stdout);
}

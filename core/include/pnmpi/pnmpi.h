/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file pnmpi.h
 * @brief The pnmpi module API: what a module may export, and the services the core offers.
 *
 * A module is an ordinary PMPI tool: it defines `MPI_X` wrappers and calls `PMPI_X` for the
 * next layer; `pnmpi-patch` (or `pnmpi_add_module()` in CMake) renames those imports so
 * the core can chain the tool with others. This header adds what plain PMPI lacks: module
 * arguments from `.pnmpi-conf`, hooks, and the origin of a call.
 *
 * Example: a module that reads its argument when it is loaded.
 * @code
 * #include <mpi.h>
 * #include <pnmpi/pnmpi.h>
 * #include <stdlib.h>
 *
 * static long delay_us = 100;
 *
 * PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
 *   PNMPI_modHandle_t self;
 *   const char *value;
 *   PNMPI_Service_GetModuleSelf(&self);
 *   if (PNMPI_Service_GetArgument(self, "delay-us", &value) == PNMPI_SUCCESS)
 *     delay_us = atol(value);
 * }
 *
 * PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
 *                                  int tag, MPI_Comm comm) {
 *   spin(delay_us);
 *   return PMPI_Send(buf, count, type, dest, tag, comm);
 * }
 * @endcode
 *
 * Every function here may be called from any thread once MPI_Init has begun; none of them
 * is meant for a per-call hot path except pnmpi_call_origin().
 */
#ifndef PNMPI_PNMPI_H
#define PNMPI_PNMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/** The one export macro: marks what a module exports (its MPI_ wrappers and hooks; modules
 * build with hidden visibility) and what the core exports (the functions below). */
#define PNMPI_EXPORT __attribute__((visibility("default")))

/** A module (one layer) or a stack, as the core numbers them. */
typedef int PNMPI_modHandle_t;

/** Status codes of the services; PNMPI_SUCCESS is 0. The values are the original PnMPI's. */
typedef enum pnmpi_status {
  PNMPI_SUCCESS = 0,    /**< it worked */
  PNMPI_NOT_INIT = -1,  /**< the core has not loaded the modules yet */
  PNMPI_NOMEM = -2,     /**< out of memory */
  PNMPI_NOMODULE = -3,  /**< no such module */
  PNMPI_NOSERVICE = -4, /**< no such service */
  PNMPI_NOGLOBAL = -5,  /**< no such global */
  PNMPI_SIGNATURE = -6, /**< a service or global exists but with another signature */
  PNMPI_NOARG = -7,     /**< the module was given no such argument */
  PNMPI_NOSTACK = -8,   /**< no such stack */
  PNMPI_BADARG = -9     /**< an argument's value is malformed, or a parameter is invalid */
} PNMPI_status_t;

/** Longest service or global name, with its terminating NUL (as in PnMPI). */
#define PNMPI_SERVICE_NAMELEN 30
/** Longest service signature, with its terminating NUL (as in PnMPI). */
#define PNMPI_SERVICE_SIGLEN 20
/** No module. */
#define PNMPI_MODHANDLE_NULL -1

/** A service function; cast it to its real type, which its signature string describes. */
typedef int (*PNMPI_Service_Fct_t)();

/** A named function a module offers to the others. */
typedef struct PNMPI_Service_descriptor_d {
  char name[PNMPI_SERVICE_NAMELEN]; /**< e.g. "monitor.sessions" */
  char sig[PNMPI_SERVICE_SIGLEN];   /**< free-form; lookups must match it exactly */
  PNMPI_Service_Fct_t fct;
} PNMPI_Service_descriptor_t;

/** A named piece of a module's memory it shares with the others. */
typedef struct PNMPI_Global_descriptor_d {
  char name[PNMPI_SERVICE_NAMELEN];
  char sig; /**< one character saying the type, e.g. 'i' int, 'd' double, 'p' pointer */
  union {
    char *c;
    short *s;
    int *i;
    unsigned int *u;
    long *l;
    double *d;
    float *f;
    void **p;
  } addr;
} PNMPI_Global_descriptor_t;

/** Hook: called once for every layer, in config order, after all modules are loaded and
 * bound and before MPI is initialised (do not call MPI here). Register services here. */
PNMPI_EXPORT void PNMPI_RegistrationPoint(void);

/** Hook: called once for every layer after every RegistrationPoint, before MPI is
 * initialised; other modules' services can be looked up here. */
PNMPI_EXPORT void PNMPI_Init(void);

/** Hook: called once for every layer, in config order, when the application calls
 * MPI_Finalize and before any layer's MPI_Finalize wrapper runs: MPI is still usable. */
PNMPI_EXPORT void PNMPI_Fini(void);

/** The handle of the calling module's own layer. Call it from the module's code (not from a
 * helper library). */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetModuleSelf(PNMPI_modHandle_t *handle);

/** The value of `argument NAME VALUE` given to `module` in the config. The string lives
 * until the process ends. Returns PNMPI_NOARG when the argument was not given. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetArgument(PNMPI_modHandle_t module, const char *name,
                                                      const char **value);

/** The value of the calling module's own argument `name`, or NULL. */
PNMPI_EXPORT const char *PNMPI_Service_GetArgumentSelf(const char *name);

/** Gives the calling module the name other modules look it up by (default: the name in
 * its `module` line, or its PNMPI_ModuleName string if it defines one). */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_RegisterModule(const char *name);

/** The first layer (in config order) registered under `name`. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetModuleByName(const char *name,
                                                          PNMPI_modHandle_t *handle);

/** The stack named by a `stack NAME` line ("default" is the application's). */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetStackByName(const char *name,
                                                         PNMPI_modHandle_t *handle);

/** Publishes a service of the calling module. The descriptor is copied. Registering the
 * same name twice from one module is PNMPI_BADARG. */
PNMPI_EXPORT PNMPI_status_t
PNMPI_Service_RegisterService(const PNMPI_Service_descriptor_t *service);

/** Looks up service `name` of `module` (PNMPI_MODHANDLE_NULL: of any module, the first in
 * config order that offers it); its signature must equal `sig`. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetServiceByName(PNMPI_modHandle_t module,
                                                           const char *name, const char *sig,
                                                           PNMPI_Service_descriptor_t *service);

/** Publishes a global of the calling module. The descriptor is copied. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_RegisterGlobal(const PNMPI_Global_descriptor_t *global);

/** Looks up global `name` of `module` (PNMPI_MODHANDLE_NULL: of any module); its signature
 * character must equal `sig`. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetGlobalByName(PNMPI_modHandle_t module,
                                                          const char *name, char sig,
                                                          PNMPI_Global_descriptor_t *global);

/** A message for a status code ("no such service", ...); never NULL. */
PNMPI_EXPORT const char *PNMPI_Service_StatusString(PNMPI_status_t status);

/** The number of layers loaded (0 before MPI_Init). */
PNMPI_EXPORT int pnmpi_module_count(void);

/** Where a call into a wrapper came from. */
typedef enum pnmpi_origin {
  PNMPI_ORIGIN_APPLICATION = 0, /**< the application (or MPI calling back into it) */
  PNMPI_ORIGIN_MODULE = 1       /**< a module's own code, e.g. its report at finalize */
} pnmpi_origin_t;

/** Classifies the call that reached a wrapper from its return address: pass
 * __builtin_return_address(0) from inside the wrapper (see PNMPI_CALL_ORIGIN). When the
 * origin is a module, `*module` (if not NULL) receives its handle. A wrapper that forwards
 * with a tail call passes its caller on: the next layer sees the call as coming from where
 * it entered the wrapper. Cost: a binary search over the loaded layers. */
PNMPI_EXPORT pnmpi_origin_t pnmpi_call_origin(const void *return_address,
                                              PNMPI_modHandle_t *module);

/** The origin of the call to the wrapper this is used in. */
#define PNMPI_CALL_ORIGIN(module) pnmpi_call_origin(__builtin_return_address(0), (module))

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_PNMPI_H */

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
 * Example: a module that reads a typed argument when it is loaded.
 * @code
 * #include <mpi.h>
 * #include <pnmpi/pnmpi.h>
 * #include <unistd.h>
 *
 * static long delay_us = 100;
 *
 * PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
 *   // `argument delay-us N` in the config; the core prints FILE:LINE and the reason if
 *   // the value is malformed, so the module only has to stop.
 *   if (pnmpi_argument_long(self, "delay-us", PNMPI_ARG_OPTIONAL, 0, 60000000, &delay_us) ==
 *       PNMPI_BADARG)
 *     _exit(1);
 * }
 *
 * PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
 *                           int tag, MPI_Comm comm) {
 *   spin(delay_us);
 *   return PMPI_Send(buf, count, type, dest, tag, comm);
 * }
 * @endcode
 *
 * Source compatibility: the PNMPI_ names are the original PnMPI's, with the same meaning;
 * <pnmpi/service.h>, <pnmpi/hooks.h>, <pnmpi/newstack.h>, <pnmpi/xmpi.h> and <pnmpimod.h>
 * exist under PnMPI's names. docs/tool-writers-guide.md lists the deliberate differences.
 *
 * Every function here may be called from any thread once MPI_Init has begun; none of them
 * is meant for a per-call hot path except pnmpi_entry_origin() (and pnmpi_call_origin()).
 */
#ifndef PNMPI_PNMPI_H
#define PNMPI_PNMPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The one export macro: marks what a module exports (its MPI_ wrappers and hooks; modules
 * build with hidden visibility) and what the core exports (the functions below). */
#define PNMPI_EXPORT __attribute__((visibility("default")))

/** Declares the argument keys a module accepts, as one string of words separated by spaces:
 *   PNMPI_MODULE_ARGUMENTS("delay-us ranks");
 * An `argument KEY ...` line with any other key for the module is then an error naming
 * FILE:LINE, at load and in `pnmpi-info --check`, instead of a misspelt key being ignored.
 * A module that declares nothing accepts any key (converted tools, PnMPI modules). */
#ifdef __cplusplus
#define PNMPI_MODULE_ARGUMENTS(keys)                                                               \
  extern "C" PNMPI_EXPORT const char pnmpi_module_arguments[] = keys
#else
#define PNMPI_MODULE_ARGUMENTS(keys) PNMPI_EXPORT const char pnmpi_module_arguments[] = keys
#endif

/** A module (one layer) or a stack, numbered as PnMPI numbers them: every `module` and
 * `stack` line of the config takes the next number from 0, so a `stack` line takes one too;
 * a stack's handle is the number after its `stack` line (the default stack's is 0). In
 *   module a / stack side / module b / module c
 * a is 0, b is 2, c is 3, and stack side is 2. */
typedef int PNMPI_modHandle_t;

/** Status codes of the services; PNMPI_SUCCESS is 0. The values are the original PnMPI's. */
typedef enum pnmpi_status {
  PNMPI_SUCCESS = 0,           /**< it worked */
  PNMPI_NOT_INIT = -1,         /**< the core has not loaded the modules yet */
  PNMPI_FAILURE = -1,          /**< PnMPI 1.7's name for -1 */
  PNMPI_NOMEM = -2,            /**< out of memory */
  PNMPI_NOMODULE = -3,         /**< no such module */
  PNMPI_NOSERVICE = -4,        /**< no such service */
  PNMPI_NOGLOBAL = -5,         /**< no such global */
  PNMPI_SIGNATURE = -6,        /**< a service or global exists but with another signature */
  PNMPI_NOARG = -7,            /**< the module was given no such argument */
  PNMPI_NOSTACK = -8,          /**< no such stack */
  PNMPI_BADARG = -9,           /**< an argument's value is malformed, or a parameter is invalid */
  PNMPI_NOT_IMPLEMENTED = -128 /**< a PnMPI service pnmpi does not provide (as in PnMPI) */
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

/* Hooks. A module defines any of them (they are found by name, so exporting them is all it
 * takes; the declarations below give them default visibility). Within each phase they run
 * one layer at a time, in config order, and the services know which layer is calling. */

/** Hook: called once for every layer right after all modules are loaded and bound, before
 * MPI is initialised (from the first MPI_Init, MPI_Init_thread, MPI_Session_init or
 * MPI_T_init_thread; do not call MPI here). `self` is this layer's handle. Read arguments
 * and register services here. Runs just before the same layer's PNMPI_RegistrationPoint. */
PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self);

/** Optional: checks the module's arguments, without MPI and without side effects (no file
 * written, no directory made, nothing started). `pnmpi-info --check` calls it, with the
 * layer's handle, in a process of its own that opens the module with dlopen (constructors
 * run; MPI is never initialised); it is how pnmpi-info checks argument VALUES with the
 * module's own reader instead of a second copy of it. Read the arguments with the typed
 * readers (pnmpi_argument_*, pnmpi_argument_refuse, pnmpi_argument_file), which print
 * every problem as `pnmpi: FILE:LINE: ...`, exactly as in a job, and return PNMPI_SUCCESS
 * or PNMPI_BADARG (any problem). Call the same function from pnmpi_module_loaded, so that
 * the job and pnmpi-info accept and refuse the same values:
 * @code
 * PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
 *   return pnmpi_argument_long(self, "delay-us", PNMPI_ARG_OPTIONAL, 0, 60000000,
 *                              &delay_us) == PNMPI_BADARG ? PNMPI_BADARG : PNMPI_SUCCESS;
 * }
 * PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
 *   if (pnmpi_module_check(self) != PNMPI_SUCCESS)
 *     _exit(1);
 * }
 * @endcode
 * A module without it (a converted PMPI tool, a PnMPI module) has its argument keys
 * checked (PNMPI_MODULE_ARGUMENTS) but not their values; pnmpi-info says so. */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self);

/** Hook (PnMPI): as pnmpi_module_loaded, without the handle. */
PNMPI_EXPORT void PNMPI_RegistrationPoint(void);

/** Hook (PnMPI): called once for every layer after every layer's registration hooks, before
 * MPI is initialised; other modules' services can be looked up here. */
PNMPI_EXPORT void PNMPI_Init(void);

/** Hook (PnMPI): called once for every layer when the application calls MPI_Finalize,
 * before any layer's MPI_Finalize wrapper runs: MPI is still fully usable, through the
 * layers below (a report may use collectives on MPI_COMM_WORLD). */
PNMPI_EXPORT void PNMPI_Fini(void);

/** Hook: called once for every layer at the same time as PNMPI_Fini (just after that
 * layer's PNMPI_Fini), with the layer's handle: MPI is still usable. Not called when the
 * program never calls MPI_Finalize. */
PNMPI_EXPORT void pnmpi_module_finalize(PNMPI_modHandle_t self);

/** Hook (PnMPI): called once for every layer when the process exits normally (exit() or a
 * return from main), after MPI_Finalize: MPI must not be used. Free resources here. */
PNMPI_EXPORT void PNMPI_UnregistrationPoint(void);

/** Optional (PnMPI): the name other modules look this module up by, if it defines it, as in
 * `const char *PNMPI_ModuleName = "mytool";`. */
PNMPI_EXPORT extern const char *PNMPI_ModuleName;

/** The handle of the calling module's own layer. Call it from the module's code (not from a
 * helper library). */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetModuleSelf(PNMPI_modHandle_t *handle);

/** The value of `argument NAME VALUE` given to `module` in the config. The string lives
 * until the process ends. Returns PNMPI_NOARG when the argument was not given. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetArgument(PNMPI_modHandle_t module, const char *name,
                                                      const char **value);

/** The value of the calling module's own argument `name`, or NULL. */
PNMPI_EXPORT const char *PNMPI_Service_GetArgumentSelf(const char *name);

/** Flags of the typed argument readers below. */
#define PNMPI_ARG_OPTIONAL 0 /**< a missing argument is fine: PNMPI_NOARG, nothing printed */
#define PNMPI_ARG_REQUIRED 1 /**< a missing argument is an error: printed, PNMPI_NOARG */
#define PNMPI_ARG_NONEMPTY 2 /**< pnmpi_argument_string: an empty value ("") is malformed */

/* Typed argument readers. Each reads `argument NAME VALUE` of `module` (usually the handle
 * a hook received) and returns:
 *   PNMPI_SUCCESS  *value holds the argument's value;
 *   PNMPI_NOARG    the argument was not given; *value is untouched, so initialise it with
 *                  the default first. With PNMPI_ARG_REQUIRED the core has printed
 *                  `pnmpi: FILE:LINE: module 'M' needs an argument 'NAME': add
 *                  'argument NAME VALUE' below this line` (the module's line);
 *   PNMPI_BADARG   the value is malformed or out of range; *value is untouched, and the
 *                  core has printed `pnmpi: FILE:LINE: module 'M': argument 'NAME' must be
 *                  ..., not 'VALUE'` (the argument's line). Stop, e.g. with _exit(1);
 *   PNMPI_NOMODULE no such module.
 * Every message is printed once, by the core: the module need not print anything.
 * Values are matched exactly: case matters, and no blanks are allowed around a value
 * (except around the items of a pnmpi_argument_flags list). */

/** A whole number from `min` to `max` (decimal, or 0x hexadecimal; 010 is ten). */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_long(PNMPI_modHandle_t module, const char *name,
                                                int flags, long min, long max, long *value);

/** A number (as strtod reads it, finite) from `min` to `max`. */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_double(PNMPI_modHandle_t module, const char *name,
                                                  int flags, double min, double max, double *value);

/** A switch: on/off, yes/no, true/false or 1/0 give 1 or 0. */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_bool(PNMPI_modHandle_t module, const char *name,
                                                int flags, int *value);

/** One of the words in `choices` (NULL-terminated): *index receives its position. */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_choice(PNMPI_modHandle_t module, const char *name,
                                                  int flags, const char *const *choices,
                                                  int *index);

/** A word of a pnmpi_argument_flags list and the bits it sets. An array of them ends with
 * a NULL word. */
typedef struct pnmpi_flag {
  const char *word; /**< e.g. "p2p" */
  unsigned bits;    /**< ORed into the result; 0 for a word that must stand alone ("none") */
} pnmpi_flag_t;

/** A set of flags, written as a comma-separated list of the words in `words` (blanks
 * around each item are ignored): *value receives the OR of their bits. A word worth 0
 * ("none") is accepted only alone; an empty list or item is malformed. For example:
 * @code
 * static const pnmpi_flag_t kinds[] = {{"p2p", 1}, {"coll", 2}, {"all", 3}, {"none", 0},
 *                                      {NULL, 0}};
 * unsigned record = 3; // the default
 * // `argument record p2p, coll` gives 3; `argument record none` gives 0; `argument record
 * // p2p,bogus` prints "... argument 'record' must be a comma-separated list of 'p2p',
 * // 'coll' or 'all', or 'none', not 'p2p,bogus'"
 * if (pnmpi_argument_flags(self, "record", PNMPI_ARG_OPTIONAL, kinds, &record) ==
 *     PNMPI_BADARG)
 *   _exit(1);
 * @endcode */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_flags(PNMPI_modHandle_t module, const char *name,
                                                 int flags, const pnmpi_flag_t *words,
                                                 unsigned *value);

/** The value as text (as PNMPI_Service_GetArgument), optional or required; with
 * PNMPI_ARG_NONEMPTY an empty value ("" in the config) is malformed. */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_string(PNMPI_modHandle_t module, const char *name,
                                                  int flags, const char **value);

/** Where argument `name` of `module` was given, for the module's own messages about what
 * its value leads to: "FILE:LINE: module 'M': argument 'NAME'" (the argument's line in the
 * config) into `buf`, cut to `size` bytes with its NUL as snprintf cuts. Returns
 * PNMPI_NOARG (and the module's own line, "FILE:LINE: module 'M'") when the argument was
 * not given. Prints nothing. For example:
 * @code
 * char at[512];
 * pnmpi_argument_where(self, "order", at, sizeof at);
 * fprintf(stderr, "pnmpi: %s: the file lists 3 ranks but the job has 4\n", at);
 * @endcode */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_where(PNMPI_modHandle_t module, const char *name,
                                                 char *buf, size_t size);

/** The content of the file that argument `name` of `module` names (relative to the working
 * directory), read as pnmpi reads its configuration: the same trust rules (the file and
 * every directory above it owned by the user or root and writable by no one else, unless
 * PNMPI_ALLOW_UNSAFE=1), a regular file of at most `max_bytes`. On success *data receives a
 * malloc()ed copy with a NUL after the last byte (free() it) and *size its length. On
 * failure nothing is returned, the core has printed `pnmpi: FILE:LINE: module 'M':
 * argument 'NAME': PROBLEM` once (the argument's line) and the status is PNMPI_BADARG
 * (PNMPI_NOARG for a missing argument, as the typed readers). */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_file(PNMPI_modHandle_t module, const char *name,
                                                int flags, size_t max_bytes, char **data,
                                                size_t *size);

/** Refuses the value of argument `name` that the module checked itself (a format of its
 * own): the core prints `pnmpi: FILE:LINE: module 'M': argument 'NAME' PROBLEM` (the
 * argument's line), as for the typed readers' malformed values, and returns PNMPI_BADARG;
 * PNMPI_NOARG if the argument was not given. `problem` says what the value must be, e.g.
 * "must be a size in bytes from 4K to 1T, not '9T'". */
PNMPI_EXPORT PNMPI_status_t pnmpi_argument_refuse(PNMPI_modHandle_t module, const char *name,
                                                  const char *problem);

/* Value parsers: the typed readers' parsing for a value that comes from somewhere else
 * than the config, e.g. an environment variable that overrides an argument. Each parses
 * `text` exactly as its pnmpi_argument_* twin parses an argument's value and returns:
 *   PNMPI_SUCCESS  *value holds the value;
 *   PNMPI_BADARG   the text is malformed or out of range (or `text`, `value` or the words
 *                  are NULL); *value is untouched and, when `problem` is not NULL, it
 *                  receives what is wrong (cut to `size` bytes with its NUL, as snprintf
 *                  cuts), worded to follow the value's source: "must be a whole number
 *                  from 0 to 100, not '3x'" (control characters and backslashes escaped);
 *   PNMPI_NOMEM    out of memory.
 * They print nothing, need no loaded core, and may be called from any thread. The module
 * names the source in its own message, since only it knows where the text came from:
 * @code
 * const char *env = getenv("MYTOOL_DEPTH");
 * char problem[256];
 * if (env != NULL && pnmpi_parse_long(env, 1, 64, &depth, problem, sizeof problem) != 0) {
 *   fprintf(stderr, "mytool: environment variable MYTOOL_DEPTH %s\n", problem);
 *   _exit(1);
 * }
 * @endcode */

/** pnmpi_argument_long's parsing. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_long(const char *text, long min, long max, long *value,
                                             char *problem, size_t size);

/** pnmpi_argument_double's parsing. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_double(const char *text, double min, double max,
                                               double *value, char *problem, size_t size);

/** pnmpi_argument_bool's parsing. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_bool(const char *text, int *value, char *problem,
                                             size_t size);

/** pnmpi_argument_choice's parsing. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_choice(const char *text, const char *const *choices,
                                               int *index, char *problem, size_t size);

/** pnmpi_argument_flags's parsing. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_flags(const char *text, const pnmpi_flag_t *words,
                                              unsigned *value, char *problem, size_t size);

/** pnmpi_argument_string's checks (`flags` as there): *value is `text` itself. */
PNMPI_EXPORT PNMPI_status_t pnmpi_parse_string(const char *text, int flags, const char **value,
                                               char *problem, size_t size);

/** Gives the calling module the name other modules look it up by (default: the name in
 * its `module` line, or its PNMPI_ModuleName string if it defines one). */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_RegisterModule(const char *name);

/** The first layer (in config order) registered under `name`. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetModuleByName(const char *name,
                                                          PNMPI_modHandle_t *handle);

/** The stack named by a `stack NAME` line ("default", handle 0, is the application's). Pass
 * the handle to XMPI_X_NewStack (<pnmpi/newstack.h>) to send a call into that stack. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetStackByName(const char *name,
                                                         PNMPI_modHandle_t *handle);

/** The stack layer `module` belongs to. */
PNMPI_EXPORT PNMPI_status_t pnmpi_module_stack(PNMPI_modHandle_t module, PNMPI_modHandle_t *stack);

/** Whether MPI_Pcontrol reaches layer `module` (its `pcontrol on|off` and the global mode):
 * *flag is 1 or 0. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetPcontrol(PNMPI_modHandle_t module, int *flag);

/** PNMPI_Service_GetPcontrol for the calling module (0 if it cannot be told). */
PNMPI_EXPORT int PNMPI_Service_GetPcontrolSelf(void);

/** The type of the extra argument an MPI_Pcontrol(level, ...) wrapper receives. */
typedef enum pnmpi_pcontrol_type {
  PNMPI_PCONTROL_TYPE_NONE = 0, /**< only the level */
  PNMPI_PCONTROL_TYPE_INT,      /**< int */
  PNMPI_PCONTROL_TYPE_LONG,     /**< long */
  PNMPI_PCONTROL_TYPE_DOUBLE,   /**< double */
  PNMPI_PCONTROL_TYPE_POINTER   /**< void * */
} pnmpi_pcontrol_type_t;

/** What a module's MPI_Pcontrol(level, ...) receives after `level`: with `globalpcontrol
 * typed LEVEL TYPE`, one TYPE at that level (read it with va_arg); otherwise nothing. */
PNMPI_EXPORT pnmpi_pcontrol_type_t pnmpi_pcontrol_argument_type(int level);

/** Calls function `hook` (exported by name, `void hook(void)`) of the next layer after the
 * calling one, in the caller's stack, that defines it; that layer may call this again to go
 * on (PnMPI's recursive hooks). Does nothing when no later layer defines it. Call it from
 * hooks (they run one at a time), not from wrappers that may run on several threads. */
PNMPI_EXPORT void PNMPI_Service_CallHook(const char *hook);

/** As PNMPI_Service_CallHook, starting at the first layer of `stack`. */
PNMPI_EXPORT void PNMPI_Service_CallHook_NewStack(const char *hook, PNMPI_modHandle_t stack);

/** For PnMPI's name. Use PNMPI_HOOK_SAME as `hook` to recurse into the current hook. */
#define PNMPI_HOOK_SAME __func__

/** Where the application called the MPI routine whose wrapper is running: *address
 * receives the return address of that call (from a hook: of its MPI_Init). Costs a walk of
 * the call stack, so call it when needed, not on every call. PNMPI_FAILURE when the stack
 * cannot be walked. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetReturnAddress(void **address);

/** Not provided (PNMPI_NOT_IMPLEMENTED): pnmpi keeps no per-call state. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_GetFunctionAddress(void **address);

/** Not provided (PNMPI_NOT_IMPLEMENTED): calls are bound to their stack at load time; use
 * XMPI_X_NewStack to send one call into another stack. */
PNMPI_EXPORT PNMPI_status_t PNMPI_Service_ChangeStack(PNMPI_modHandle_t stack);

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

/** A message for a status code, PnMPI's text ("Module not found", "Signatures don't
 * match", ...); never NULL. */
PNMPI_EXPORT const char *PNMPI_Service_StatusString(PNMPI_status_t status);

/** PnMPI's name for PNMPI_Service_StatusString. */
PNMPI_EXPORT const char *PNMPI_Service_strerror(PNMPI_status_t status);

/* The site policy (docs/site.md). A site's configuration (PNMPI_SITE_CONF, else
 * PREFIX/etc/pnmpi/site.conf) adds modules to every job; such a module must never harm the
 * job. The user's own modules keep "nothing silent: stop the job". A module that may be
 * listed by a site routes its failures through pnmpi_site_failure():
 * @code
 *   if (pnmpi_argument_long(self, "period", PNMPI_ARG_OPTIONAL, 1, 3600, &period) ==
 *       PNMPI_BADARG) {
 *     if (pnmpi_site_failure(self, NULL) == PNMPI_SUCCESS)
 *       return;   // a site module: disabled, the job goes on
 *     _exit(1);   // the user's: stop
 *   }
 *   ...
 *   if (write_failed && pnmpi_site_failure(self, "cannot write the record: disk full") != 0)
 *     fail_the_job_as_usual();
 * @endcode */

/** 1 when layer `module` was added by the site configuration, 0 when it is the user's, -1
 * for a bad handle. */
PNMPI_EXPORT int pnmpi_module_is_site(PNMPI_modHandle_t module);

/** Reports that layer `module` cannot go on, because of `message` (what failed and why; the
 * core prefixes the module's FILE:LINE: module 'NAME'). For a site module: the first
 * failure of the layer is printed once as `pnmpi: warning: ...` (on rank 0 for a failure
 * every rank meets at load, else on the rank that fails) and noted in the site's record
 * directory; the layer is disabled (unlinked from the link stacks when this happens while
 * it is loaded, in pnmpi_module_loaded or PNMPI_RegistrationPoint; afterwards its hooks are
 * no longer called and the module must only forward its calls); returns PNMPI_SUCCESS and
 * the job goes on with its exit status and output unchanged. `message` NULL: the core has
 * already said why (a typed argument reader returned PNMPI_BADARG or PNMPI_NOARG, which
 * for a site module goes through this policy already). For the user's module: prints
 * nothing and returns PNMPI_FAILURE: the module stops the job as it always does.
 * PNMPI_NOMODULE for a bad handle. */
PNMPI_EXPORT PNMPI_status_t pnmpi_site_failure(PNMPI_modHandle_t module, const char *message);

/** Ends the whole job after an error the module cannot go on from, once MPI_Init has
 * begun (before it, in pnmpi_module_loaded, stop with _exit(1)): prints `message`, unless
 * it is NULL (already printed), as one line `pnmpi: MESSAGE` on stderr in one write, then
 * ends the job as the core does after its own fatal errors: a quarter of a second for the
 * launcher to pass the message on (MPICH's Hydra drops what ranks write once one has
 * aborted), then MPI_Abort(MPI_COMM_WORLD, 1). Never returns. A second call, on another
 * thread, just exits the process. For example, when rank 0 finds the error for all:
 * @code
 *   MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
 *   if (failed && rank == 0)
 *     pnmpi_abort_job("module 'mytool': cannot create directory 'out': Permission denied");
 *   if (failed)
 *     pnmpi_await_abort();
 * @endcode */
PNMPI_EXPORT void pnmpi_abort_job(const char *message) __attribute__((noreturn));

/** For the other ranks when one rank says why and calls pnmpi_abort_job(): waits for its
 * abort instead of racing it with one of its own, which could end the job before the
 * message is out. Never returns; if no abort has come after ten seconds (the reporting
 * rank died first), ends the job itself. */
PNMPI_EXPORT void pnmpi_await_abort(void) __attribute__((noreturn));

/** The site's record directory (`records LOGDIR` in the site configuration), or NULL. */
PNMPI_EXPORT const char *pnmpi_site_records(void);

/** Creates a new job record in LOGDIR/YYYY/M/D/ (today, UTC), named
 * USER_EXE_idJOB_M-D-SECONDS-UNIQUE.SUFFIX, exclusively (O_EXCL|O_NOFOLLOW), mode 0640;
 * writes its path into `path` (`size` bytes, truncated) and returns the open descriptor,
 * or -1 with errno set (no record directory: ENOENT). */
PNMPI_EXPORT int pnmpi_site_record_create(const char *suffix, char *path, size_t size);

/** The number of layers loaded (0 before MPI_Init). Without `stack` lines, their handles
 * are 0 to this minus one (see PNMPI_modHandle_t). */
PNMPI_EXPORT int pnmpi_module_count(void);

/** The number of stacks (1 before MPI_Init: the default one). */
PNMPI_EXPORT int pnmpi_stack_count(void);

/** Where a call into a wrapper came from. */
typedef enum pnmpi_origin {
  PNMPI_ORIGIN_APPLICATION = 0, /**< the application (or MPI calling back into it) */
  PNMPI_ORIGIN_MODULE = 1       /**< a module's own code, e.g. its report at finalize */
} pnmpi_origin_t;

/** The id of routine `mpi_name` ("MPI_Send") in this build of pnmpi, or -1 when the MPI
 * library it was built against has no such routine (then no call of it ever reaches a
 * wrapper). Ids differ between builds: look them up at load time (PNMPI_RegistrationPoint),
 * never compile them in. */
PNMPI_EXPORT int pnmpi_routine_id(const char *mpi_name);

/** The routine through which the application last entered the chain on this thread: the
 * stub's MPI_X stores X's id here before the first layer runs, when a module wraps X (the
 * manual MPI_Pcontrol does the same; MPI_Init, MPI_Finalize and the other routines with
 * load or finalize work store it before that work, so that the modules' hooks run under
 * it). -1 before the first such call. A module's own calls do not change it: its PMPI_X
 * calls go from layer to layer without passing the stub, and its calls by public names
 * (MPI_Wtime inside a wrapper, say) are bound at load time to an entry of the chain that
 * does not store the id. Read it with pnmpi_entry_origin(). */
PNMPI_EXPORT extern __thread int pnmpi_entry_id __attribute__((tls_model("initial-exec")));

/** The origin of a call that reached the wrapper of routine `routine_id` (from
 * pnmpi_routine_id()): PNMPI_ORIGIN_APPLICATION when the application's own call of that
 * routine is the one being forwarded down the chain; PNMPI_ORIGIN_MODULE when a module
 * above made the call itself, e.g. the sends of a profiler's report inside its
 * MPI_Finalize wrapper, or calls from a thread of its own. It does not depend on how the
 * layers above forward (tail call or not). What it cannot tell apart: a module above
 * that, inside its wrapper of X, issues X again for itself (both count as the
 * application's); one that turns the application's X into other routines (those count as
 * the module's). A module above that calls public routines inside its wrapper (MPI_Wtime,
 * MPI_Comm_rank, ...) does not disturb it; one that calls the public MPI_X for its own
 * traffic has that traffic counted as the module's, except inside its own wrapper of X.
 * Cost: one thread-local load and a compare. */
static inline pnmpi_origin_t pnmpi_entry_origin(int routine_id) {
  return routine_id >= 0 && pnmpi_entry_id == routine_id ? PNMPI_ORIGIN_APPLICATION
                                                         : PNMPI_ORIGIN_MODULE;
}

/** Which module a call came from, by return address: pass __builtin_return_address(0)
 * from inside the wrapper (see PNMPI_CALL_ORIGIN). When the address is in a module's code,
 * `*module` (if not NULL) receives its handle. A wrapper that forwards with a tail call
 * passes its caller on: the next layer sees the call as coming from where it entered the
 * wrapper; one that forwards with an ordinary call (to time it, say) is itself the caller
 * of what it forwards. To tell the application's traffic from a module's, use
 * pnmpi_entry_origin(), which does not depend on how the layers above forward. Cost: a
 * binary search over the loaded layers. */
PNMPI_EXPORT pnmpi_origin_t pnmpi_call_origin(const void *return_address,
                                              PNMPI_modHandle_t *module);

/** The origin of the call to the wrapper this is used in. */
#define PNMPI_CALL_ORIGIN(module) pnmpi_call_origin(__builtin_return_address(0), (module))

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_PNMPI_H */

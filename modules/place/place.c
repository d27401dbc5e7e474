/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The place module: an unchanged application runs on a renumbered MPI_COMM_WORLD
 * (docs/place.md). MPI_Init and MPI_Init_thread, once MPI runs, decide this process's
 * application rank on rank 0 and broadcast it (`argument order FILE`; `argument from RUN`:
 * an earlier run's matrix mapped onto this job's hosts by libpnmpi_mapping) and split the
 * physical world into `place_world`, ordered by it and named "MPI_COMM_WORLD". Every
 * routine that takes a communicator replaces the handle MPI_COMM_WORLD by it: those
 * wrappers are generated (BUILD/generated/place_wrappers.c, stub-gen/emit_place.py). Since
 * place_world is a real communicator, ranks, statuses, groups, topologies, windows, files
 * and derived communicators follow; this file holds what does not: the start, the
 * predefined attributes (which exist on the physical world only) and error handlers
 * (errors that concern no communicator are raised on the physical world).
 *
 * Layers below this one see the physical world (their MPI_COMM_WORLD is the real one, and
 * place_world's ranks translate to physical world ranks); layers above see the
 * application's. */

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "order_file.h"
#include "place.h"
#include <pnmpi/mapping.h>

PNMPI_MODULE_ARGUMENTS("order from");

MPI_Comm place_world = MPI_COMM_WORLD;

/* An order file is a list of numbers: 64 MiB is over ten million ranks. */
#define MAX_ORDER_BYTES (64u << 20)

static PNMPI_modHandle_t g_self;
static const char *g_order; /* argument order, or NULL */
static const char *g_from;  /* argument from, or NULL */
static int g_size;
static int *g_app_rank; /* g_app_rank[p]: the application rank of physical world rank p */
/* The renumbered values of MPI_HOST and MPI_IO, which MPI_Comm_get_attr returns pointers to. */
static int g_host_value, g_io_value;

static int debug_enabled(void) {
  const char *env = getenv("PNMPI_DEBUG");
  return env != NULL && atoi(env) >= 1;
}

/* Prints `pnmpi: AT: MESSAGE`, AT being where argument `name` was given. */
static void report_at_argument(const char *name, const char *message) {
  char at[1024];
  pnmpi_argument_where(g_self, name, at, sizeof at);
  fprintf(stderr, "pnmpi: %s: %s\n", at, message);
}

/* An order file of a span beyond this is checked at the job's start only (the check needs
 * 4 bytes per rank). */
#define MAX_CHECKED_SPAN (1L << 24)

/* Prints `pnmpi: ORDER:LINE: module 'place': PROBLEM` for a problem at a line of the order
 * file, else `pnmpi: CONF:LINE: module 'place': argument 'order' ORDER PROBLEM`. */
static void report_order_problem(int line, const char *problem) {
  if (line > 0) {
    fprintf(stderr, "pnmpi: %s:%d: module 'place': %s\n", g_order, line, problem);
  } else {
    char message[1400];
    snprintf(message, sizeof message, "%s %s", g_order, problem);
    report_at_argument("order", message);
  }
}

/* The order file as far as it can be checked without a job (pnmpi-info --check): it can be
 * read and trusted, and every line parses, with no rank listed twice. Whether it lists
 * exactly the job's ranks is known at the job's start. */
static int check_order_file(void) {
  char *text = NULL;
  size_t length = 0;
  if (pnmpi_argument_file(g_self, "order", PNMPI_ARG_REQUIRED, MAX_ORDER_BYTES, &text, &length) !=
      PNMPI_SUCCESS)
    return PNMPI_BADARG;
  const long span = place_order_span(text, length);
  int failed = 0;
  if (span > 0 && span <= MAX_CHECKED_SPAN) {
    int *order = malloc((size_t)span * sizeof *order);
    char problem[1024];
    int line = 0;
    if (order != NULL &&
        place_parse_order(text, length, (int)span, order, &line, problem, sizeof problem) != 0 &&
        line > 0) {
      report_order_problem(line, problem);
      failed = 1;
    }
    free(order);
  } else if (span == 0) {
    int dummy = 0, line = 0;
    char problem[1024];
    if (place_parse_order(text, length, 1, &dummy, &line, problem, sizeof problem) != 0 &&
        line > 0) {
      report_order_problem(line, problem);
      failed = 1;
    }
  }
  free(text);
  return failed ? PNMPI_BADARG : PNMPI_SUCCESS;
}

/* The arguments; `with_file`: the order file too, as far as it can be checked without a
 * job. The job checks the file on rank 0 only, at MPI_Init, with its size (decide_order),
 * through the same parser and messages: one message per job, not one per rank. */
static int check_arguments(PNMPI_modHandle_t self, int with_file) {
  g_self = self;
  if (pnmpi_argument_string(self, "order", PNMPI_ARG_NONEMPTY, &g_order) == PNMPI_BADARG ||
      pnmpi_argument_string(self, "from", PNMPI_ARG_NONEMPTY, &g_from) == PNMPI_BADARG)
    return PNMPI_BADARG;
  if (g_order == NULL && g_from == NULL) {
    report_at_argument("order",
                       "needs the placement to apply: add 'argument order FILE' (ranks in the "
                       "order of the launch slots, docs/place.md) or 'argument from RUN' (a "
                       "monitor run to map onto this job's hosts) below this line");
    return PNMPI_BADARG;
  }
  if (g_order != NULL && g_from != NULL) {
    report_at_argument("from", "cannot be given with 'argument order': the module applies one "
                               "placement; remove one of the two");
    return PNMPI_BADARG;
  }
  return g_order != NULL && with_file ? check_order_file() : PNMPI_SUCCESS;
}

/* pnmpi-info --check. */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  return check_arguments(self, 1);
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (check_arguments(self, 0) != PNMPI_SUCCESS)
    _exit(1);
}

/* What rank 0 learnt from `argument from RUN`, for the PNMPI_DEBUG=1 line. */
static struct {
  int hosts;
  uint64_t crossing, crossing_as_launched;
  double ms; /* reading the run and mapping it */
  char method[256];
} g_mapped;

/* This job's hosts as launch slot -> host index (in order of first appearance), from every
 * rank's MPI_Get_processor_name: on rank 0 into slot_host[size] and the number of hosts
 * (-1: out of memory); the other ranks only send. Collective over the physical world. */
static int gather_hosts(int rank, int size, char *all, int32_t *slot_host) {
  char mine[MPI_MAX_PROCESSOR_NAME + 1];
  memset(mine, 0, sizeof mine);
  int length = 0;
  PMPI_Get_processor_name(mine, &length);
  PMPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return 0;
  /* Names to host indices through an open-addressing table of 2*size slots (FNV-1a):
   * linear in the job's size, whatever the number of hosts. */
  const size_t buckets = 2 * (size_t)size;
  int *first_slot = malloc(buckets * sizeof *first_slot);
  if (first_slot == NULL)
    return -1;
  for (size_t b = 0; b < buckets; ++b)
    first_slot[b] = -1;
  int hosts = 0;
  for (int p = 0; p < size; ++p) {
    const char *name = all + (size_t)p * sizeof mine;
    uint64_t hash = 1469598103934665603ull;
    for (const char *c = name; *c != '\0'; ++c)
      hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
    size_t b = (size_t)(hash % buckets);
    while (first_slot[b] >= 0 && strcmp(all + (size_t)first_slot[b] * sizeof mine, name) != 0)
      b = (b + 1) % buckets;
    if (first_slot[b] < 0) {
      first_slot[b] = p;
      slot_host[p] = hosts++;
    } else {
      slot_host[p] = slot_host[first_slot[b]];
    }
  }
  free(first_slot);
  return hosts;
}

/* Rank 0: maps the traffic of the run `argument from` names onto this job's hosts. */
static int map_run(int size, const int32_t *slot_host, int hosts, int *rank_of_slot) {
  char err[1024], message[1400];
  const double t0 = PMPI_Wtime();
  pnmpi_map_matrix *m = NULL;
  if (pnmpi_map_load_run(g_from, &m, err, sizeof err) != 0) {
    snprintf(message, sizeof message,
             "%s; name a run the monitor wrote (PREFIX, PREFIX.json or a directory)", err);
    report_at_argument("from", message);
    return 1;
  }
  const int64_t ranks = pnmpi_map_matrix_size(m);
  if (ranks != size) {
    snprintf(message, sizeof message,
             "the run %s had %lld ranks, this job has %d: a placement maps every rank of the "
             "run onto a launch slot; run the job with %lld ranks, or give a run of %d ranks",
             g_from, (long long)ranks, size, (long long)ranks, size);
    report_at_argument("from", message);
    pnmpi_map_matrix_free(m);
    return 1;
  }
  int32_t *order = malloc((size_t)size * sizeof *order);
  int failed =
      order == NULL || pnmpi_map_place(m, size, slot_host, order, err, sizeof err) != PNMPI_MAP_OK;
  if (failed) {
    snprintf(message, sizeof message, "cannot map the run %s onto this job's %d hosts: %s", g_from,
             hosts, order == NULL ? "out of memory" : err);
    report_at_argument("from", message);
  } else {
    for (int p = 0; p < size; ++p)
      rank_of_slot[p] = order[p];
    g_mapped.hosts = hosts;
    g_mapped.crossing = pnmpi_map_crossing_bytes(m, size, slot_host, order);
    g_mapped.crossing_as_launched = pnmpi_map_crossing_bytes(m, size, slot_host, NULL);
    snprintf(g_mapped.method, sizeof g_mapped.method, "%s", pnmpi_map_last_method());
    g_mapped.ms = (PMPI_Wtime() - t0) * 1e3;
  }
  free(order);
  pnmpi_map_matrix_free(m);
  return failed;
}

/* Rank 0's part of the start: the application rank of every launch slot into
 * rank_of_slot[size]. 0, or 1 after printing why not. */
static int decide_order(int size, const int32_t *slot_host, int hosts, int *rank_of_slot) {
  if (g_order != NULL) {
    char *text = NULL;
    size_t length = 0;
    if (pnmpi_argument_file(g_self, "order", PNMPI_ARG_REQUIRED, MAX_ORDER_BYTES, &text, &length) !=
        PNMPI_SUCCESS)
      return 1;
    char problem[1024];
    int line = 0;
    const int failed =
        place_parse_order(text, length, size, rank_of_slot, &line, problem, sizeof problem);
    free(text);
    if (!failed)
      return 0;
    report_order_problem(line, problem);
    return 1;
  }
  return map_run(size, slot_host, hosts, rank_of_slot);
}

/* Ends the job after rank 0 has printed why (the core's job ender: a pause for the launcher
 * to pass the message on, then MPI_Abort). Only rank 0 aborts: an abort from another rank
 * could end the job before MPICH's launcher has passed rank 0's message on. */
static void stop_job(int rank) {
  if (rank == 0)
    pnmpi_abort_job(NULL);
  pnmpi_await_abort();
}

static void start(void) {
  const double t0 = PMPI_Wtime();
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  int *rank_of_slot = malloc((size_t)size * sizeof *rank_of_slot);
  g_app_rank = malloc((size_t)size * sizeof *g_app_rank);
  int failed = rank_of_slot == NULL || g_app_rank == NULL;
  if (failed)
    fprintf(stderr, "pnmpi: module 'place': out of memory for the order of %d ranks\n", size);
  int32_t *slot_host = NULL;
  int hosts = 0;
  if (g_from != NULL) {
    /* Every rank takes part in the gather, or none does. */
    char *names = NULL;
    if (rank == 0) {
      slot_host = malloc((size_t)size * sizeof *slot_host);
      names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME + 1);
      failed = failed || slot_host == NULL || names == NULL;
    }
    PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!failed)
      hosts = gather_hosts(rank, size, names, slot_host);
    free(names);
    if (hosts < 0 || (failed && rank == 0)) {
      fprintf(stderr, "pnmpi: module 'place': out of memory for the hosts of %d ranks\n", size);
      failed = 1;
    }
  }
  const double t_hosts = PMPI_Wtime();
  if (!failed && rank == 0)
    failed = decide_order(size, slot_host, hosts, rank_of_slot);
  free(slot_host);
  PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed)
    stop_job(rank);
  const double t_split = PMPI_Wtime();
  PMPI_Bcast(rank_of_slot, size, MPI_INT, 0, MPI_COMM_WORLD);
  int moved = 0;
  for (int p = 0; p < size; ++p) {
    g_app_rank[p] = rank_of_slot[p];
    moved += rank_of_slot[p] != p;
  }
  g_size = size;
  MPI_Comm world = MPI_COMM_NULL;
  PMPI_Comm_split(MPI_COMM_WORLD, 0, rank_of_slot[rank], &world);
  PMPI_Comm_set_name(world, "MPI_COMM_WORLD");
  place_world = world;
  free(rank_of_slot);
  if (rank == 0 && debug_enabled()) {
    const double ms = (PMPI_Wtime() - t0) * 1e3;
    if (g_order != NULL)
      fprintf(stderr,
              "pnmpi[debug]: module 'place': order %s applied: %d ranks, %d renumbered; "
              "start-up %.3f ms\n",
              g_order, size, moved, ms);
    else
      fprintf(stderr,
              "pnmpi[debug]: module 'place': run %s mapped onto %d host(s): %d ranks, %d "
              "renumbered; bytes crossing hosts: %llu predicted, %llu as launched; %s; "
              "start-up %.3f ms (hosts %.3f ms, reading and mapping the run %.3f ms, new world "
              "%.3f ms)\n",
              g_from, g_mapped.hosts, size, moved, (unsigned long long)g_mapped.crossing,
              (unsigned long long)g_mapped.crossing_as_launched, g_mapped.method, ms,
              (t_hosts - t0) * 1e3, g_mapped.ms, (PMPI_Wtime() - t_split) * 1e3);
  }
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    start();
  return rc;
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    start();
  return rc;
}

/* ---- predefined attributes --------------------------------------------------------------- */

static int is_predefined(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
         keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_APPNUM || keyval == MPI_UNIVERSE_SIZE ||
         keyval == MPI_LASTUSEDCODE;
}

/* MPI_HOST and MPI_IO are ranks of the world: the application's numbering of the physical
 * rank MPI gave (MPI_PROC_NULL, MPI_ANY_SOURCE stay). */
static void renumber_rank_attribute(int keyval, void *value) {
  if (keyval != MPI_HOST && keyval != MPI_IO)
    return;
  int *slot = keyval == MPI_HOST ? &g_host_value : &g_io_value;
  const int physical = **(int **)value;
  *slot = physical >= 0 && physical < g_size ? g_app_rank[physical] : physical;
  *(int **)value = slot;
}

/* The world's attributes: the application's own (set through this module on place_world)
 * and, since only the physical world carries them, the predefined ones. */
PNMPI_EXPORT int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag) {
  if (comm != MPI_COMM_WORLD || place_world == MPI_COMM_WORLD)
    return PMPI_Comm_get_attr(comm, keyval, value, flag);
  if (!is_predefined(keyval)) {
    const int rc = PMPI_Comm_get_attr(place_world, keyval, value, flag);
    if (rc != MPI_SUCCESS || *flag)
      return rc;
  }
  const int rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, keyval, value, flag);
  if (rc == MPI_SUCCESS && *flag)
    renumber_rank_attribute(keyval, value);
  return rc;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
PNMPI_EXPORT int MPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag) {
  if (comm != MPI_COMM_WORLD || place_world == MPI_COMM_WORLD)
    return PMPI_Attr_get(comm, keyval, value, flag);
  if (!is_predefined(keyval)) {
    const int rc = PMPI_Attr_get(place_world, keyval, value, flag);
    if (rc != MPI_SUCCESS || *flag)
      return rc;
  }
  const int rc = PMPI_Attr_get(MPI_COMM_WORLD, keyval, value, flag);
  if (rc == MPI_SUCCESS && *flag)
    renumber_rank_attribute(keyval, value);
  return rc;
}
#pragma GCC diagnostic pop

/* ---- error handlers ---------------------------------------------------------------------- */

/* The application's handler on its world, and on the physical one, where MPI raises errors
 * that concern no communicator (MPI-3; MPI-4 MPIs use MPI_COMM_SELF, which stays). */
PNMPI_EXPORT int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  if (comm != MPI_COMM_WORLD || place_world == MPI_COMM_WORLD)
    return PMPI_Comm_set_errhandler(comm, errhandler);
  const int rc = PMPI_Comm_set_errhandler(place_world, errhandler);
  if (rc != MPI_SUCCESS)
    return rc;
  return PMPI_Comm_set_errhandler(MPI_COMM_WORLD, errhandler);
}

/* An error handler the application made is called by MPI with the communicator the error
 * concerns: for its world, place_world. The handler is made with a trampoline that finds the
 * application's function (by the handler MPI has on that communicator) and passes it
 * MPI_COMM_WORLD instead. Handlers are few: a small table, appended under a lock and read
 * without one (an entry is complete before the count that publishes it). The newest entry of
 * a handle wins, should MPI reuse a freed one. A full table makes handlers without the
 * trampoline (their function then sees the renumbered world's handle, docs/place.md). */
#define MAX_HANDLERS 256
static struct {
  MPI_Errhandler handler;
  MPI_Comm_errhandler_function *function;
} g_handlers[MAX_HANDLERS];
static int g_handler_count; /* read and written with __atomic builtins */
static pthread_mutex_t g_handler_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_handler(MPI_Comm *comm, int *code, ...) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(*comm, &handler);
  MPI_Comm_errhandler_function *function = NULL;
  for (int k = __atomic_load_n(&g_handler_count, __ATOMIC_ACQUIRE) - 1; k >= 0 && !function; --k)
    if (g_handlers[k].handler == handler)
      function = g_handlers[k].function;
  if (handler != MPI_ERRHANDLER_NULL)
    PMPI_Errhandler_free(&handler);
  if (function == NULL)
    return;
  MPI_Comm seen = *comm == place_world ? MPI_COMM_WORLD : *comm;
  function(&seen, code);
}

PNMPI_EXPORT int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                            MPI_Errhandler *errhandler) {
  pthread_mutex_lock(&g_handler_lock);
  const int k = __atomic_load_n(&g_handler_count, __ATOMIC_RELAXED);
  int rc;
  if (k < MAX_HANDLERS && function != NULL) {
    rc = PMPI_Comm_create_errhandler(call_handler, errhandler);
    if (rc == MPI_SUCCESS) {
      g_handlers[k].handler = *errhandler;
      g_handlers[k].function = function;
      __atomic_store_n(&g_handler_count, k + 1, __ATOMIC_RELEASE);
    }
  } else {
    rc = PMPI_Comm_create_errhandler(function, errhandler);
  }
  pthread_mutex_unlock(&g_handler_lock);
  return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The delay module: every send-family call waits `argument delay-us N` microseconds
 * (default 100) before it goes on to the next layer; everything else passes untouched.
 * Stacking k copies adds k delays, which is how the tests prove that layers compose.
 * `argument ranks 1,3` slows only those ranks of MPI_COMM_WORLD (default: all), which is how
 * a trace test injects a slowdown where it knows it.
 *
 * The wait is a busy loop on CLOCK_MONOTONIC (a vDSO call, no system call), accurate to
 * well under a microsecond on an idle core. Persistent sends are delayed at every
 * MPI_Start/MPI_Startall of them; the module remembers which persistent requests are sends.
 * Partitioned sends (MPI_Psend_init/MPI_Pready) are not delayed. At MPI_Finalize each rank
 * says how many sends it delayed (PNMPI_DBGLEVEL with the module class, 2): an exact count,
 * which is how the tests prove that every send is delayed once, on a machine of any load. */

#define _POSIX_C_SOURCE 200809L

#define PNMPI_MESSAGE_PREFIX "delay"
#include <mpi.h>
#include <pnmpi/debug_io.h>
#include <pnmpi/pnmpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("delay-us ranks");

static long long g_delay_ns = 100 * 1000LL;

/* `argument ranks`: the listed world ranks, or none listed (every rank is slowed). */
#define MAX_LISTED 4096
static int g_listed[MAX_LISTED];
static int g_nlisted;
/* Whether this rank is slowed: -1 until the first send asks (the rank is known only once MPI
 * runs, and the module does not wrap MPI_Init). Racing threads compute the same value. */
static volatile int g_slowed = -1;

static int this_rank_slowed(void) {
  if (g_slowed >= 0)
    return g_slowed;
  int rank = 0, size = 1, slowed = g_nlisted == 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < g_nlisted; ++i) {
    if (g_listed[i] == rank)
      slowed = 1;
    if (g_listed[i] >= size && rank == 0)
      fprintf(stderr,
              "pnmpi: module 'delay': argument 'ranks' lists rank %d, but the job has %d "
              "ranks: that rank is never slowed\n",
              g_listed[i], size);
  }
  g_slowed = slowed;
  return slowed;
}

static long long g_delayed; /* sends delayed so far (atomically: any thread may send) */

static void spin(void) {
  if (!this_rank_slowed())
    return;
  __atomic_fetch_add(&g_delayed, 1, __ATOMIC_RELAXED);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const long long until = now.tv_sec * 1000000000LL + now.tv_nsec + g_delay_ns;
  do
    clock_gettime(CLOCK_MONOTONIC, &now);
  while (now.tv_sec * 1000000000LL + now.tv_nsec < until);
}

/* `argument ranks 1,3`: world ranks separated by commas (blanks around them allowed), each
 * read by the core's own number parser. A bad item is refused through the core, which
 * names FILE:LINE. */
static int parse_ranks(PNMPI_modHandle_t self, const char *text) {
  char item[64];
  const char *p = text;
  g_nlisted = 0;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
    while (n > 0 && (*p == ' ' || *p == '\t')) {
      ++p;
      --n;
    }
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
      --n;
    long rank = 0;
    char problem[256] = "";
    if (n >= sizeof item || g_nlisted == MAX_LISTED) {
      snprintf(problem, sizeof problem, "has too many or too long items");
    } else {
      memcpy(item, p, n);
      item[n] = '\0';
      pnmpi_parse_long(item, 0, 1L << 30, &rank, problem, sizeof problem);
    }
    if (problem[0] != '\0') {
      char message[768];
      snprintf(message, sizeof message,
               "must be world ranks separated by commas, as 'ranks 1,3', not '%.200s': the item "
               "%s",
               text, problem);
      pnmpi_argument_refuse(self, "ranks", message);
      return PNMPI_BADARG;
    }
    g_listed[g_nlisted++] = (int)rank;
    if (comma == NULL)
      return PNMPI_SUCCESS;
    p = comma + 1;
  }
}

/* Reads the arguments through the core's typed readers, as any module would: the core
 * prints FILE:LINE and the reason for a malformed value (0x hexadecimal is accepted). The
 * job (pnmpi_module_loaded) and pnmpi-info --check run this same function. */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  long us = 0;
  switch (pnmpi_argument_long(self, "delay-us", PNMPI_ARG_OPTIONAL, 0, 60L * 1000 * 1000, &us)) {
  case PNMPI_SUCCESS:
    g_delay_ns = us * 1000LL;
    break;
  case PNMPI_NOARG:
    break;
  default:
    return PNMPI_BADARG;
  }
  const char *ranks = NULL;
  if (pnmpi_argument_string(self, "ranks", PNMPI_ARG_NONEMPTY, &ranks) == PNMPI_BADARG)
    return PNMPI_BADARG;
  return ranks != NULL ? parse_ranks(self, ranks) : PNMPI_SUCCESS;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (pnmpi_module_check(self) != PNMPI_SUCCESS)
    _exit(1);
}

/* Persistent send requests, so MPI_Start can tell sends from receives. Few and long-lived:
 * a short array under a lock is enough, and a delayed call spins for microseconds anyway. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Request *g_sends;
static size_t g_nsends, g_cap;

static void remember_send(MPI_Request request) {
  pthread_mutex_lock(&g_lock);
  if (g_nsends == g_cap) {
    size_t cap = g_cap ? 2 * g_cap : 16;
    MPI_Request *grown = realloc(g_sends, cap * sizeof *grown);
    if (grown == NULL) {
      pthread_mutex_unlock(&g_lock);
      fprintf(stderr, "pnmpi: module 'delay': out of memory\n");
      _exit(1);
    }
    g_sends = grown;
    g_cap = cap;
  }
  g_sends[g_nsends++] = request;
  pthread_mutex_unlock(&g_lock);
}

static int is_send(MPI_Request request, int forget) {
  int found = 0;
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_nsends; ++i) {
    if (memcmp(&g_sends[i], &request, sizeof request) == 0) {
      found = 1;
      if (forget)
        g_sends[i] = g_sends[--g_nsends];
      break;
    }
  }
  pthread_mutex_unlock(&g_lock);
  return found;
}

#define DELAYED(ret, name, params, args)                                                           \
  PNMPI_EXPORT ret MPI_##name params {                                                             \
    spin();                                                                                        \
    return PMPI_##name args;                                                                       \
  }
#define PERSISTENT(name, params, args)                                                             \
  PNMPI_EXPORT int MPI_##name params {                                                             \
    const int rc = PMPI_##name args;                                                               \
    if (rc == MPI_SUCCESS)                                                                         \
      remember_send(*request);                                                                     \
    return rc;                                                                                     \
  }

#define SEND_PARAMS                                                                                \
  (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define SEND_ARGS (buf, count, type, dest, tag, comm)
#define ISEND_PARAMS                                                                               \
  (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,                \
   MPI_Request *request)
#define ISEND_ARGS (buf, count, type, dest, tag, comm, request)

DELAYED(int, Send, SEND_PARAMS, SEND_ARGS)
DELAYED(int, Bsend, SEND_PARAMS, SEND_ARGS)
DELAYED(int, Ssend, SEND_PARAMS, SEND_ARGS)
DELAYED(int, Rsend, SEND_PARAMS, SEND_ARGS)
DELAYED(int, Isend, ISEND_PARAMS, ISEND_ARGS)
DELAYED(int, Ibsend, ISEND_PARAMS, ISEND_ARGS)
DELAYED(int, Issend, ISEND_PARAMS, ISEND_ARGS)
DELAYED(int, Irsend, ISEND_PARAMS, ISEND_ARGS)
DELAYED(int, Sendrecv,
        (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
         int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status),
        (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status))
DELAYED(int, Sendrecv_replace,
        (void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
         MPI_Comm comm, MPI_Status *status),
        (buf, count, type, dest, stag, src, rtag, comm, status))
PERSISTENT(Send_init, ISEND_PARAMS, ISEND_ARGS)
PERSISTENT(Bsend_init, ISEND_PARAMS, ISEND_ARGS)
PERSISTENT(Ssend_init, ISEND_PARAMS, ISEND_ARGS)
PERSISTENT(Rsend_init, ISEND_PARAMS, ISEND_ARGS)

#if MPI_VERSION >= 4
#define SEND_C_PARAMS                                                                              \
  (const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define ISEND_C_PARAMS                                                                             \
  (const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,          \
   MPI_Request *request)
DELAYED(int, Send_c, SEND_C_PARAMS, SEND_ARGS)
DELAYED(int, Bsend_c, SEND_C_PARAMS, SEND_ARGS)
DELAYED(int, Ssend_c, SEND_C_PARAMS, SEND_ARGS)
DELAYED(int, Rsend_c, SEND_C_PARAMS, SEND_ARGS)
DELAYED(int, Isend_c, ISEND_C_PARAMS, ISEND_ARGS)
DELAYED(int, Ibsend_c, ISEND_C_PARAMS, ISEND_ARGS)
DELAYED(int, Issend_c, ISEND_C_PARAMS, ISEND_ARGS)
DELAYED(int, Irsend_c, ISEND_C_PARAMS, ISEND_ARGS)
DELAYED(int, Sendrecv_c,
        (const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
         MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
         MPI_Status *status),
        (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status))
DELAYED(int, Sendrecv_replace_c,
        (void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag,
         MPI_Comm comm, MPI_Status *status),
        (buf, count, type, dest, stag, src, rtag, comm, status))
DELAYED(int, Isendrecv,
        (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
         int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Request *request),
        (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, request))
DELAYED(int, Isendrecv_replace,
        (void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
         MPI_Comm comm, MPI_Request *request),
        (buf, count, type, dest, stag, src, rtag, comm, request))
DELAYED(int, Isendrecv_c,
        (const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
         MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
         MPI_Request *request),
        (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, request))
DELAYED(int, Isendrecv_replace_c,
        (void *buf, MPI_Count count, MPI_Datatype type, int dest, int stag, int src, int rtag,
         MPI_Comm comm, MPI_Request *request),
        (buf, count, type, dest, stag, src, rtag, comm, request))
PERSISTENT(Send_init_c, ISEND_C_PARAMS, ISEND_ARGS)
PERSISTENT(Bsend_init_c, ISEND_C_PARAMS, ISEND_ARGS)
PERSISTENT(Ssend_init_c, ISEND_C_PARAMS, ISEND_ARGS)
PERSISTENT(Rsend_init_c, ISEND_C_PARAMS, ISEND_ARGS)
#endif

PNMPI_EXPORT int MPI_Start(MPI_Request *request) {
  if (is_send(*request, 0))
    spin();
  return PMPI_Start(request);
}

PNMPI_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i)
    if (is_send(requests[i], 0))
      spin();
  return PMPI_Startall(count, requests);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PNMPI_Debug(PNMPI_DEBUG_MODULE, "rank %d delayed %lld sends\n", rank,
              __atomic_load_n(&g_delayed, __ATOMIC_RELAXED));
  return PMPI_Finalize();
}

PNMPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  is_send(*request, 1);
  return PMPI_Request_free(request);
}

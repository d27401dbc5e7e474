/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file MPI_Monitoring.h
 * @brief Monitoring sessions: an MPI application asks the pnmpi `monitor` module, while it
 * runs, how much it sent to whom (link with -lmpi_monitoring).
 *
 * A drop-in for the introspection monitoring library (Inria RR-9292, section 4): same
 * names, signatures and constants. A session is bound to a communicator and counts what
 * this process sends to the members of that communicator, through any communicator, from
 * the moment it is started until it is suspended; it can be continued, reset, read and
 * freed. Sessions are independent: they may overlap and nest. Counts are those of the
 * application's own calls (not of other pnmpi modules), per category: point-to-point
 * (MPI_M_P2P_ONLY), the logical per-peer volume of collectives (MPI_M_COLL_ONLY) and
 * one-sided data sent plus fetched (MPI_M_OSC_ONLY). Arrays are indexed by ranks of the
 * session's communicator; matrices are row-major with row = sender.
 *
 * Data can be read only while a session is suspended. MPI_M_get_data, the gather and the
 * flush functions are collective over the session's communicator (call them on every
 * member), as is MPI_M_start; MPI_M_get_info is local. All functions are thread-safe and
 * must be called between MPI_Init and MPI_Finalize, inside MPI_M_init/MPI_M_finalize.
 *
 * @code
 * MPI_M_init();
 * MPI_M_msid id;
 * MPI_M_start(MPI_COMM_WORLD, &id);
 * exchange_halos();
 * MPI_M_suspend(id);
 * int n;
 * MPI_M_get_info(id, MPI_M_INT_IGNORE, &n);
 * unsigned long *bytes = malloc(sizeof *bytes * n * n);
 * MPI_M_rootgather_data(id, 0, MPI_M_DATA_IGNORE, bytes, MPI_M_P2P_ONLY);
 * MPI_M_free(id);
 * MPI_M_finalize();
 * @endcode
 *
 * Without a `monitor` module in the pnmpi stack, MPI_M_init returns MPI_M_NO_MONITOR and
 * every other function MPI_M_MISSING_INIT: nothing crashes, nothing is recorded. Called
 * before MPI_Init, MPI_M_init returns MPI_M_MPIT_FAIL (MPI is not initialised). A session
 * whose communicator the application freed returns MPI_M_COMM_FREED from the calls that
 * are collective over it.
 */
#ifndef MPI_MONITORING_H
#define MPI_MONITORING_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A monitoring session identifier: a positive number, never reused within a process. */
typedef int MPI_M_msid;

/** Acts on every session (suspend, continue, reset, free). */
#define MPI_M_ALL_MSID (-1)
/** For an `int *` output that is not wanted. */
#define MPI_M_INT_IGNORE ((int *)0)
/** For an `unsigned long *` output that is not wanted. */
#define MPI_M_DATA_IGNORE ((unsigned long *)0)

/** Categories for the `flags` argument; they combine with `|` (the data are summed). */
#define MPI_M_P2P_ONLY 1
#define MPI_M_COLL_ONLY 2
#define MPI_M_OSC_ONLY 4
#define MPI_M_ALL_COMM (MPI_M_P2P_ONLY | MPI_M_COLL_ONLY | MPI_M_OSC_ONLY)

/* Error codes. Negative, so that they never equal MPI_SUCCESS or an MPI error class. */
/** Out of memory, or a file could not be written. */
#define MPI_M_INTERNAL_FAIL (-1)
/** An MPI call failed, or MPI is not initialised. */
#define MPI_M_MPIT_FAIL (-2)
/** MPI_M_init has not succeeded (or MPI_M_finalize ended the environment). */
#define MPI_M_MISSING_INIT (-3)
/** MPI_M_finalize, or MPI_M_reset/MPI_M_free of MPI_M_ALL_MSID, met an active session. */
#define MPI_M_SESSION_STILL_ACTIVE (-4)
/** The session must be suspended for this call. */
#define MPI_M_SESSION_NOT_SUSPENDED (-5)
/** No such session (freed, never started), or MPI_M_ALL_MSID where it is not allowed. */
#define MPI_M_INVALID_MSID (-6)
/** As many sessions exist as the module's `max-sessions` argument allows. */
#define MPI_M_SESSION_OVERFLOW (-7)
/** MPI_M_init twice, suspend of a suspended or continue of an active session. */
#define MPI_M_MULTIPLE_CALL (-8)
/** The root is not a rank of the session's communicator. */
#define MPI_M_INVALID_ROOT (-9)
/* pnmpi additions. */
/** MPI_M_init: no `monitor` module is loaded in the pnmpi stack. */
#define MPI_M_NO_MONITOR (-10)
/** Flags 0 or with other bits, a NULL filename, MPI_COMM_NULL or an intercommunicator. */
#define MPI_M_INVALID_ARG (-11)
/** The session's communicator has been freed: MPI_M_get_data, the gathers and the flushes,
 * collective over it, cannot run (the session can still be suspended, continued, reset,
 * freed and asked for its info). */
#define MPI_M_COMM_FREED (-12)
/** MPI_M_reorder: the mapping library refused the matrix or the hosts (its message is
 * printed by the communicator's rank 0, prefixed `pnmpi: MPI_M_reorder:`). */
#define MPI_M_MAPPING_FAIL (-13)

/** Sets up the monitoring environment, between MPI_Init and MPI_Finalize: before MPI_Init
 * (or after MPI_Finalize) it returns MPI_M_MPIT_FAIL, without a monitor module
 * MPI_M_NO_MONITOR. */
int MPI_M_init(void);
/** Ends it, freeing every (suspended) session; fails if a session is still active. */
int MPI_M_finalize(void);
/** Creates and starts a session on `comm` (an intracommunicator); collective over comm. */
int MPI_M_start(MPI_Comm comm, MPI_M_msid *msid);
/** Suspends a session (or every active one): its data become readable. */
int MPI_M_suspend(MPI_M_msid msid);
/** Continues a suspended session (or every suspended one). */
int MPI_M_continue(MPI_M_msid msid);
/** Zeroes the data of a suspended session (or of every session, all suspended). */
int MPI_M_reset(MPI_M_msid msid);
/** Frees a suspended session (or every session, all suspended). */
int MPI_M_free(MPI_M_msid msid);
/** The MPI thread level and the session's communicator size (arrays are that long, the
 * matrices that square). Either output may be MPI_M_INT_IGNORE. Local. */
int MPI_M_get_info(MPI_M_msid msid, int *provided, int *array_size);
/** This process's messages and bytes sent to each member of the session's communicator. */
int MPI_M_get_data(MPI_M_msid msid, unsigned long *msg_counts, unsigned long *msg_sizes, int flags);
/** Every member's rows, gathered on every member: size x size, row-major, row = sender. */
int MPI_M_allgather_data(MPI_M_msid msid, unsigned long *matrix_counts, unsigned long *matrix_sizes,
                         int flags);
/** The same matrices, on `root` only (other members may pass MPI_M_DATA_IGNORE). */
int MPI_M_rootgather_data(MPI_M_msid msid, int root, unsigned long *matrix_counts,
                          unsigned long *matrix_sizes, int flags);
/** Each member writes `filename.<rank in the session's communicator>.prof` (Open MPI's
 * monitoring line format: E point-to-point, C collective, S/R one-sided). */
int MPI_M_flush(MPI_M_msid msid, const char *filename, int flags);
/** `root` writes `filename_counts.<world rank>.prof` and `filename_sizes.<world rank>.prof`:
 * the size x size matrices, one row per line, row = sender. */
int MPI_M_rootflush(MPI_M_msid msid, int root, const char *filename, int flags);

/** The introspection report's Figure 1 in one call, collective over `comm`: the session's
 * byte matrix (every category) is gathered on comm's rank 0, the hosts of comm's processes
 * are learnt from MPI_Get_processor_name, pnmpi's mapping library (Scotch, the placement
 * `module place` and `pnmpi-report reorder` compute) places the session's ranks onto the
 * processes so that fewer bytes cross hosts, and *newcomm is comm split so that the process
 * of comm rank p takes the rank the mapping gives it. Code that then uses *newcomm's ranks
 * for the roles the session observed (rank r of the session = rank r of *newcomm) sends
 * fewer bytes between hosts. The session must be suspended, and `comm` must have the
 * session's communicator's group in its order (the session's communicator itself, or a
 * duplicate). The placement never crosses more bytes than comm's own order; with one host
 * or no traffic, *newcomm has comm's order. Free *newcomm with MPI_Comm_free. */
int MPI_M_reorder(MPI_M_msid msid, MPI_Comm comm, MPI_Comm *newcomm);
/** MPI_M_reorder with the host of each process given by the caller (`host` >= 0, any
 * numbering, the same number for processes that share a host), e.g. to keep traffic inside
 * sockets or groups of nodes, or to try a placement on one machine. */
int MPI_M_reorder_hosts(MPI_M_msid msid, MPI_Comm comm, int host, MPI_Comm *newcomm);

#ifdef __cplusplus
}
#endif

#endif /* MPI_MONITORING_H */

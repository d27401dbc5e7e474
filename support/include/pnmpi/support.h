/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/** @file
 * The support library first-party modules share, and third-party modules may link
 * (`target_link_libraries(tool PRIVATE pnmpi::support)`, `-lpnmpi_support`): the
 * per-process part file, signal and exit marks, the job id, file names and JSON strings
 * escaped, files written atomically, and `.npz` archives for the job record.
 *
 * One part file per process, shared by every module that reserves a region in it:
 *
 *     pnmpi_part_configure("/tmp/parts");               // before the first region
 *     uint64_t *counters = pnmpi_part_region("mytool", 4096, 1);
 *     ... after MPI_Init: pnmpi_part_started(rank, size);
 *     ... counters[k]++ on the call path: the file holds them from here on, so even a
 *     SIGKILL leaves them on disk (docs/record.md).
 *
 * Nothing here is meant for a per-call path except pnmpi_ticks(). Every function is safe
 * to call before MPI_Init and makes no MPI call; errors are returned, never printed,
 * except where a function says so.
 */
#ifndef PNMPI_SUPPORT_H
#define PNMPI_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PNMPI_SUPPORT_EXPORT __attribute__((visibility("default")))

/** How a process ended, as its part file's state word says (the record's rank_state). */
typedef enum {
  PNMPI_PART_RUNNING = 0,   /**< no mark yet: a process that stays so was killed */
  PNMPI_PART_FINALIZED = 1, /**< reached MPI_Finalize */
  PNMPI_PART_SIGNALED = 2,  /**< a fatal signal arrived (the detail is its number) */
  PNMPI_PART_ABORTED = 3,   /**< called MPI_Abort (the detail is its error code) */
  PNMPI_PART_EXITED = 4     /**< exit() without MPI_Finalize (the detail is 0) */
} pnmpi_part_state_t;

#define PNMPI_PART_MAGIC "PNMPIPRT"
#define PNMPI_PART_VERSION 1u
#define PNMPI_PART_HEADER_BYTES 4096u
#define PNMPI_PART_MAX_REGIONS 16

/** One region of a part file, as its header lists it. */
typedef struct {
  char name[32];   /**< the module's name for it, NUL-terminated */
  uint64_t offset; /**< from the start of the file, a multiple of the page size */
  uint64_t bytes;
  uint32_t version; /**< the module's own layout version */
  uint32_t reserved;
  uint64_t reserved2;
} pnmpi_part_region_t;

/** The header at offset 0 of a part file (little-endian, as written on x86-64/AArch64).
 * Times: *_real_ns CLOCK_REALTIME, *_mono_ns CLOCK_MONOTONIC, *_tick pnmpi_ticks(). */
typedef struct {
  char magic[8];    /**< PNMPI_PART_MAGIC, no NUL */
  uint32_t version; /**< PNMPI_PART_VERSION */
  uint32_t header_bytes;
  int32_t rank; /**< world rank, -1 until pnmpi_part_started() */
  int32_t size; /**< world size, 0 until then */
  uint32_t pid;
  uint32_t state; /**< pnmpi_part_state_t; written last by a mark */
  int32_t detail; /**< signal number, MPI_Abort code */
  uint32_t region_count;
  uint64_t file_bytes;
  uint64_t init_real_ns, init_mono_ns, init_tick; /**< end of MPI_Init */
  uint64_t end_real_ns, end_mono_ns, end_tick;    /**< the mark (0 if none) */
  double ticks_per_ns;                            /**< the estimate at MPI_Init */
  char host[64];
  char job_id[128];
  char user[64];
  char executable[1024];
  pnmpi_part_region_t regions[PNMPI_PART_MAX_REGIONS];
} pnmpi_part_header_t;

/** The directory part files are created in (made if missing, one level). Takes effect
 * only before the file exists; later calls return 0 and change nothing. 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_part_configure(const char *directory);

/** A zeroed region of `bytes` in this process's part file, named `name` (at most 31
 * characters), created with the file at the first call (DIR/pnmpi-JOB.HOST.PID.part),
 * which also installs the signal and exit marks (pnmpi_marks_install()). NULL, with errno
 * set, when the file cannot be made or grown. */
PNMPI_SUPPORT_EXPORT void *pnmpi_part_region(const char *name, size_t bytes, uint32_t version);

/** The header of this process's part file, or NULL before the first region. */
PNMPI_SUPPORT_EXPORT pnmpi_part_header_t *pnmpi_part_header(void);

/** The path of this process's part file ("" before the first region). */
PNMPI_SUPPORT_EXPORT const char *pnmpi_part_path(void);

/** Records the world rank and size and the end of MPI_Init (times and the clock rate
 * measured from `begin_tick`/`begin_mono_ns`, taken before MPI_Init). */
PNMPI_SUPPORT_EXPORT void pnmpi_part_started(int rank, int size, uint64_t begin_tick,
                                             uint64_t begin_mono_ns);

/** Marks how the process ends (async-signal-safe). A mark never replaces FINALIZED. */
PNMPI_SUPPORT_EXPORT void pnmpi_part_mark(pnmpi_part_state_t state, int detail);

/** Removes this process's part file (its mappings stay valid until exit). 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_part_remove(void);

/** Bytes of a host name in the "hosts" region, with its NUL. */
#define PNMPI_PART_HOST_BYTES 64u

/** The start of the "hosts" region (version 1) pnmpi_part_hosts() writes: then `hosts`
 * names of PNMPI_PART_HOST_BYTES each, then `ranks` uint32_t, each world rank's host. */
typedef struct {
  uint32_t ranks;
  uint32_t hosts;
  uint32_t name_bytes; /**< PNMPI_PART_HOST_BYTES */
  uint32_t reserved;
} pnmpi_part_hosts_t;

/** Notes in this process's part file (a new region "hosts") the host of every world rank,
 * so that pnmpi-report can name the host whose part files are missing when a multi-node
 * job's parts are merged. `names`: `size` host names, `stride` bytes apart, in world rank
 * order (what an MPI_Gather of each rank's name gives its root); each is cut at its first NUL,
 * at `stride` and at PNMPI_PART_HOST_BYTES - 1 bytes. Each host is kept once. 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_part_hosts(const char *names, size_t stride, int size);

/** Installs, once, handlers of SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGXCPU, SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that mark the part file and then do
 * what the handler that was there before would have done: call it, ignore the signal, or
 * (the default action) re-raise it with the default action, so the process ends with the
 * same signal and status as without pnmpi. An atexit() handler marks EXITED when the
 * process exits before MPI_Finalize. A handler the application installs later replaces
 * ours (its process then shows no mark if killed). */
PNMPI_SUPPORT_EXPORT void pnmpi_marks_install(void);

/** A cheap, monotonic tick counter (the TSC on x86-64, else CLOCK_MONOTONIC in ns). */
static inline uint64_t pnmpi_ticks(void) {
#if defined(__x86_64__)
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
#else
  extern PNMPI_SUPPORT_EXPORT uint64_t pnmpi_monotonic_ns(void);
  return pnmpi_monotonic_ns();
#endif
}

/** CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
PNMPI_SUPPORT_EXPORT uint64_t pnmpi_monotonic_ns(void);
PNMPI_SUPPORT_EXPORT uint64_t pnmpi_realtime_ns(void);

/** The job id: SLURM_JOB_ID[.SLURM_STEP_ID], PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, then the
 * launcher's (OMPI_MCA_orte_ess_jobid, PMIX_NAMESPACE, PMI_KVS... see docs/record.md), else
 * "pid-P" of the parent process. Never NULL; the same string for the whole process. */
PNMPI_SUPPORT_EXPORT const char *pnmpi_job_id(void);

/** `text` for a file name: every byte outside [A-Za-z0-9._-] becomes '_', at most 128
 * bytes, never empty, "." or "..". Writes at most `size` bytes with the NUL; returns the
 * length it needs (as snprintf). */
PNMPI_SUPPORT_EXPORT size_t pnmpi_file_name(const char *text, char *out, size_t size);

/** The site's day directory of Unix time `when`: "LOGDIR/YYYY/M/D" in UTC, no leading
 * zeros (docs/site.md). Writes at most `size` bytes with the NUL; returns the length it
 * needs (as snprintf). */
PNMPI_SUPPORT_EXPORT size_t pnmpi_day_directory(const char *logdir, int64_t when, char *out,
                                                size_t size);

/** `text` as a JSON string with its quotes: `"` and `\` escaped, \b \f \n \r \t as
 * such, the other control characters (and DEL) as \u00XX, each byte that is not part of
 * well-formed UTF-8 as \ufffd; the output is then valid JSON whatever `text` holds.
 * Returns the length it needs, as snprintf. */
PNMPI_SUPPORT_EXPORT size_t pnmpi_json_string(const char *text, char *out, size_t size);

/** A file being written atomically (pnmpi_atomic_open()). */
typedef struct pnmpi_atomic_file pnmpi_atomic_file_t;

/** Starts writing `path` atomically: a temporary file beside it (".NAME.tmp.PID.RANDOM",
 * created with O_EXCL|O_NOFOLLOW under a new name if one is taken, mode 0666 less the
 * umask) that pnmpi_atomic_commit() renames over `path`, so that a reader sees the old file
 * or the whole new one. Only a regular file (or nothing) at `path` is ever replaced: a
 * symbolic link, a directory, a FIFO, a socket or a device there is refused (ELOOP, EISDIR,
 * EEXIST) and left as it is. NULL on failure, with errno set and `why` (`why_size` bytes,
 * may be NULL) the message "cannot write 'PATH': REASON", PATH as pnmpi_escape_name()
 * shows it, e.g. "cannot write 'out.json': it is a symbolic link, not a regular file, and
 * is left as it is". */
PNMPI_SUPPORT_EXPORT pnmpi_atomic_file_t *pnmpi_atomic_open(const char *path, char *why,
                                                            size_t why_size);

/** The stream to write the new contents to (buffered; do not fclose it). */
PNMPI_SUPPORT_EXPORT FILE *pnmpi_atomic_stream(const pnmpi_atomic_file_t *file);

/** Flushes, fsyncs and closes the temporary file, checks `path` again (something may have
 * been put there meanwhile) and renames the file over it; on any failure (a write that
 * failed, a full disk, a refused `path`) removes the temporary file and leaves `path` as it
 * was. Frees `file` in every case. 0, or errno with `why` as pnmpi_atomic_open() says (a
 * failed rename: "cannot rename 'TEMPORARY' to 'PATH': REASON"). */
PNMPI_SUPPORT_EXPORT int pnmpi_atomic_commit(pnmpi_atomic_file_t *file, char *why, size_t why_size);

/** Closes and removes the temporary file, leaves `path` as it was, frees `file`. */
PNMPI_SUPPORT_EXPORT void pnmpi_atomic_discard(pnmpi_atomic_file_t *file);

/** Writes `path` whole, through pnmpi_atomic_open() and pnmpi_atomic_commit(). 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_write_file_atomic(const char *path, const void *data, size_t bytes);

/** `text` as a message shows a name from an input (a path, a host): backslash, newline
 * and tab as \\, \n and \t, other control bytes as \xHH, the rest as it is, so that a
 * hostile name cannot forge lines of output. Returns the length it needs, as snprintf. */
PNMPI_SUPPORT_EXPORT size_t pnmpi_escape_name(const char *text, char *out, size_t size);

/** Makes the process exit with status 1 instead of 0, at the very end of exit() (after
 * MPI_Finalize and everything the application does after it): for a module whose output
 * was lost, so that the launcher reports the job as failed. A nonzero status the
 * application chose is kept. Safe to call more than once, from any thread. */
PNMPI_SUPPORT_EXPORT void pnmpi_fail_at_exit(void);

/** A numpy .npz archive being built (deflated members, numpy format 1.0). */
typedef struct pnmpi_npz pnmpi_npz_t;

PNMPI_SUPPORT_EXPORT pnmpi_npz_t *pnmpi_npz_new(void);
/** Adds NAME.npy: `descr` a numpy type string ("<u8", "<f4", "|u1", "<i4"...), `shape`
 * `ndim` sizes, `fortran_order` 1 for column-major data. 0, or EINVAL/ENOMEM. */
PNMPI_SUPPORT_EXPORT int pnmpi_npz_add(pnmpi_npz_t *npz, const char *name, const char *descr,
                                       int ndim, const uint64_t *shape, int fortran_order,
                                       const void *data, size_t bytes);
/** Writes the archive atomically to `path`. 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_npz_write(pnmpi_npz_t *npz, const char *path);
PNMPI_SUPPORT_EXPORT void pnmpi_npz_free(pnmpi_npz_t *npz);

/** What a module hands to the job record (the monitor: its point-to-point row and its
 * collectives per communicator, application traffic only). Arrays are the source's,
 * valid during the sink call only. */
typedef struct {
  size_t p2p_n;               /**< peers this process sent to */
  const int32_t *p2p_peer;    /**< their world ranks */
  const uint64_t *p2p_bytes;  /**< bytes sent to each */
  const uint64_t *p2p_count;  /**< messages sent to each */
  size_t comm_n;              /**< communicators this process took part in collectives of */
  const uint64_t *comm_key;   /**< pnmpi_group_key() of each one's world ranks */
  const uint64_t *comm_bytes; /**< this process's collective bytes there */
  const uint64_t *comm_count; /**< and messages */
  const int32_t *comm_first;  /**< 1 where this process is the group's rank 0 */
  /** For those (comm_first 1) only, in order: the group's size, then its world ranks. */
  size_t members_n;
  const int32_t *members;
} pnmpi_record_data_t;

typedef void (*pnmpi_record_sink_t)(void *sink_context, const pnmpi_record_data_t *data);
typedef void (*pnmpi_record_source_t)(void *context, pnmpi_record_sink_t sink, void *sink_context);

/** Registers a source of record data; the record writer calls it at MPI_Finalize, before
 * any MPI_Finalize reaches MPI. Only the first source registered is used. 0 or EEXIST. */
PNMPI_SUPPORT_EXPORT int pnmpi_record_add_source(pnmpi_record_source_t source, void *context);

/** Calls the registered source (if any) with `sink`. Returns 1 if there was one. */
PNMPI_SUPPORT_EXPORT int pnmpi_record_collect(pnmpi_record_sink_t sink, void *sink_context);

/** A 64-bit key of a list of world ranks (FNV-1a), the same on every process. */
PNMPI_SUPPORT_EXPORT uint64_t pnmpi_group_key(const int32_t *world_ranks, size_t n);

/** CRC-32 (zlib's) of a whole file and its size, as "crc32:HEX:SIZE". 0 or errno. */
PNMPI_SUPPORT_EXPORT int pnmpi_file_hash(const char *path, char *out, size_t size);

/** `v` rounded to `bits` mantissa bits (the record's time precision). */
PNMPI_SUPPORT_EXPORT float pnmpi_round_mantissa(float v, int bits);

#ifdef __cplusplus
}

#include <string>

namespace pnmpi::support {

/** pnmpi_json_string() of a C++ string (up to its first NUL). */
inline std::string json_string(const std::string &text) {
  std::string out(pnmpi_json_string(text.c_str(), nullptr, 0) + 1, '\0');
  out.resize(pnmpi_json_string(text.c_str(), &out[0], out.size()));
  return out;
}

/** pnmpi_escape_name() of a C++ string (up to its first NUL). */
inline std::string escape_name(const std::string &text) {
  std::string out(pnmpi_escape_name(text.c_str(), nullptr, 0) + 1, '\0');
  out.resize(pnmpi_escape_name(text.c_str(), &out[0], out.size()));
  return out;
}

/** An output file written atomically (pnmpi_atomic_open()): write to file(), then
 * commit(); destroyed uncommitted, it leaves the old file as it was. */
class AtomicFile {
public:
  explicit AtomicFile(const std::string &path) : m_path_bytes(path.size()) {
    std::string why(message_bytes(), '\0');
    m_file = pnmpi_atomic_open(path.c_str(), &why[0], why.size());
    if (m_file == nullptr)
      m_error = why.c_str();
  }
  ~AtomicFile() { pnmpi_atomic_discard(m_file); }
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  /** The stream to write to; NULL if the file could not be opened (error() says why). */
  FILE *file() const { return pnmpi_atomic_stream(m_file); }
  /** Renames the written file over the old one; false, with error(), if it failed. */
  bool commit() {
    if (m_file == nullptr)
      return false;
    std::string why(message_bytes(), '\0');
    const int rc = pnmpi_atomic_commit(m_file, &why[0], why.size());
    m_file = nullptr;
    if (rc != 0)
      m_error = why.c_str();
    return rc == 0;
  }
  /** "cannot write 'PATH': REASON" after a failure. */
  const std::string &error() const { return m_error; }

private:
  /** Room for a message naming the path twice, each byte escaped as \\xHH at worst. */
  size_t message_bytes() const { return 8 * m_path_bytes + 512; }

  size_t m_path_bytes;
  pnmpi_atomic_file_t *m_file = nullptr;
  std::string m_error;
};

/** Writes `text` to `path` atomically; false, with `error` set, if it could not. */
inline bool write_file_atomically(const std::string &path, const std::string &text,
                                  std::string &error) {
  AtomicFile f(path);
  if (f.file() != nullptr)
    std::fwrite(text.data(), 1, text.size(), f.file()); // a short write sets the error flag
  if (f.commit())
    return true;
  error = f.error();
  return false;
}

} // namespace pnmpi::support
#endif

#endif /* PNMPI_SUPPORT_H */

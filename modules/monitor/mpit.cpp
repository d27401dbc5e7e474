// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor answers MPI_T: its counters as performance variables under Open MPI's
// monitoring names, on any MPI. The monitor's variables are numbered after the MPI's own
// (whose indices do not change), its category after the MPI's categories. Its sessions wrap
// the MPI's: a session handed to the application is a pointer to the monitor's object, which
// holds the MPI's session for the handles of the MPI's own variables. Its handles are
// pointers to its own objects. Sessions and handles are recognised by lookup only
// (mpit_table.h), and neither the monitor's indices nor its handles or sessions ever reach
// the MPI: a handle or index the MPI does not know crashes Open MPI 4.1 and MPICH 4.0.

#include <pnmpi/pnmpi.h>
#include <pnmpi/world_ranks.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "monitor.h"
#include "mpit_table.h"

namespace pnmpi::monitor {

namespace {

static_assert(kP2P == 0 && kColl == 1 && kOscSent == 2 && kOscFetched == 3 && kOneToAll == 0 &&
                  kAllToOne == 1 && kAllToAll == 2,
              "mpit_table.cpp names the sources in monitor.h's order");

/// The values of `v` this process has recorded for what `b` is bound to: what it sent to
/// each member of the communicator (world ranks fixed at allocation), or the communicator's
/// collective classes. The application's traffic only, as in the MPI_M_ sessions. The one
/// place MPI_T reads the monitor's counters.
void values_for(const mpit::Variable &v, const mpit::Binding &b, std::uint64_t *out) {
  if (v.scope == mpit::Scope::kPerComm) {
    const auto *s = static_cast<const CollStats *>(b.comm_stats);
    *out = s == nullptr ? 0
           : v.bytes    ? s->bytes[kApp][v.source].load(std::memory_order_relaxed)
                        : s->count[kApp][v.source].load(std::memory_order_relaxed);
    return;
  }
  for (std::size_t i = 0; i < b.worlds.size(); ++i) {
    const Peer *p =
        b.worlds[i] >= 0 ? g.peers.find(static_cast<std::uintptr_t>(b.worlds[i]) + 1) : nullptr;
    out[i] = p == nullptr ? 0
             : v.bytes    ? bytes_of(*p, kApp, v.source)
                          : count_of(*p, kApp, v.source);
  }
  if (v.source == kColl) {
    std::vector<std::uint64_t> counts(b.worlds.size()), bytes(b.worlds.size());
    add_coll_volume(kApp, b.worlds, counts.data(), bytes.data(), 1);
    for (std::size_t i = 0; i < b.worlds.size(); ++i)
      out[i] += v.bytes ? bytes[i] : counts[i];
  }
}

mpit::Table &table() {
  static mpit::Table t(values_for);
  return t;
}

/// MPI_T_init_thread calls not yet matched by MPI_T_finalize (both successful).
std::atomic<int> g_depth{0};

int our_count() {
  return static_cast<int>(mpit::variables().size());
}

/// The session the application holds, if it is one of the monitor's.
mpit::Session *our_session(MPI_T_pvar_session session) {
  const void *p = session;
  return table().is_session(p) ? static_cast<mpit::Session *>(const_cast<void *>(p)) : nullptr;
}

mpit::Handle *our_handle(MPI_T_pvar_handle handle) {
  const void *p = handle;
  return table().is_handle(p) ? static_cast<mpit::Handle *>(const_cast<void *>(p)) : nullptr;
}

/// Copies `text` as MPI_T returns strings: at most *len - 1 characters and a NUL into buf
/// (if buf is given and *len > 0); *len becomes the full length plus one.
void copy_out(const char *text, char *buf, int *len) {
  if (len == nullptr)
    return;
  const int full = static_cast<int>(std::strlen(text));
  if (buf != nullptr && *len > 0) {
    const int n = std::min(full, *len - 1);
    std::memcpy(buf, text, static_cast<std::size_t>(n));
    buf[n] = '\0';
  }
  *len = full + 1;
}

template <class T, class V> void set(T *out, V value) {
  if (out != nullptr)
    *out = static_cast<T>(value);
}

/// The communicator `obj` names: a pointer to the handle, as the standard says; on Open MPI
/// also the handle itself, as Open MPI 4.1's examples and ompi_monitoring_prof.so pass it.
MPI_Comm comm_of(void *obj) {
#if defined(OPEN_MPI)
  // Every Open MPI communicator object begins with its class pointer, the same for all of
  // them; a variable holding a handle begins with the address of a communicator instead.
  const void *comm_class = *reinterpret_cast<void *const *>(MPI_COMM_WORLD);
  if (*static_cast<void *const *>(obj) == comm_class)
    return static_cast<MPI_Comm>(obj);
#endif
  return *static_cast<MPI_Comm *>(obj);
}

/// Binds a new handle of variable `k` to `comm`: MPI_T_ERR_INVALID_HANDLE for a null or
/// inter communicator or when MPI is not running (no communicator can be used then).
int bind(int k, MPI_Comm comm, mpit::Binding &b) {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized || g.world_size == 0 || comm == MPI_COMM_NULL)
    return MPI_T_ERR_INVALID_HANDLE;
  // A freed communicator, a datatype or garbage would crash the PMPI_Comm_* calls below.
  if (!known_comm(comm))
    return MPI_T_ERR_INVALID_HANDLE;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return MPI_T_ERR_INVALID_HANDLE;
  const mpit::Variable &v = mpit::variables()[static_cast<std::size_t>(k)];
  if (v.scope == mpit::Scope::kPerComm) {
    CommInfo *ci = comm_info(comm);
    b.comm_stats = ci != nullptr ? stats_of(ci, comm) : nullptr;
    return b.comm_stats != nullptr ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
  }
  b.worlds = support::comm_world_ranks(comm, g.world_group);
  return b.worlds.empty() ? MPI_T_ERR_INVALID_HANDLE : MPI_SUCCESS;
}

/// The monitor's variable number for an index at or after the MPI's own, or -1. `rc` gets
/// the MPI's error if it cannot count its variables (MPI_T not initialised, say).
int our_variable(int index, int *rc, int *mpi_count) {
  *rc = PMPI_T_pvar_get_num(mpi_count);
  if (*rc != MPI_SUCCESS || index < *mpi_count || index >= *mpi_count + our_count())
    return -1;
  return index - *mpi_count;
}

bool is_all(MPI_T_pvar_handle handle) {
  return handle == MPI_T_PVAR_ALL_HANDLES;
}

/// start, stop or reset (`op`), for the MPI's handles and the monitor's alike.
template <class Ours, class Theirs>
int start_stop_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, Ours ours,
                     Theirs theirs) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  mpit::Session *s = our_session(session);
  mpit::Handle *h = our_handle(handle);
  if (s == nullptr)
    return h != nullptr ? MPI_T_ERR_INVALID_HANDLE : theirs(session, handle);
  if (is_all(handle)) {
    const int rc = ours(s, nullptr, true);
    const int mpi_rc = theirs(s->mpi, handle);
    return rc != MPI_SUCCESS ? rc : mpi_rc;
  }
  return h != nullptr ? ours(s, h, false) : theirs(s->mpi, handle);
}

/// 1 if `cat_index` is the monitor's category, 0 if it is the MPI's (or out of range, for the
/// MPI to refuse), -1 with `rc` set if the MPI cannot count its categories.
int is_our_category(int cat_index, int *rc) {
  int n = 0;
  *rc = PMPI_T_category_get_num(&n);
  if (*rc != MPI_SUCCESS)
    return -1;
  if (cat_index < 0 || cat_index > n) {
    *rc = MPI_T_ERR_INVALID_INDEX;
    return -1;
  }
  return cat_index == n ? 1 : 0;
}

} // namespace

} // namespace pnmpi::monitor

using namespace pnmpi::monitor;

extern "C" {

PNMPI_EXPORT int MPI_T_init_thread(int required, int *provided) {
  const int rc = PMPI_T_init_thread(required, provided);
  if (rc == MPI_SUCCESS)
    g_depth.fetch_add(1, std::memory_order_acq_rel);
  return rc;
}

PNMPI_EXPORT int MPI_T_finalize(void) {
  const int rc = PMPI_T_finalize();
  // The last MPI_T_finalize ends every session (the MPI ends its own sessions inside ours).
  if (rc == MPI_SUCCESS && g_depth.fetch_sub(1, std::memory_order_acq_rel) == 1)
    table().clear();
  return rc;
}

PNMPI_EXPORT int MPI_T_pvar_get_num(int *num_pvar) {
  const int rc = PMPI_T_pvar_get_num(num_pvar);
  if (rc == MPI_SUCCESS)
    *num_pvar += our_count();
  return rc;
}

PNMPI_EXPORT int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                                     int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                                     char *desc, int *desc_len, int *bind, int *readonly,
                                     int *continuous, int *atomic) {
  int rc = MPI_SUCCESS, mpi_count = 0;
  const int k = our_variable(pvar_index, &rc, &mpi_count);
  if (rc != MPI_SUCCESS)
    return rc;
  if (k < 0)
    return pvar_index >= 0 && pvar_index < mpi_count
               ? PMPI_T_pvar_get_info(pvar_index, name, name_len, verbosity, var_class, datatype,
                                      enumtype, desc, desc_len, bind, readonly, continuous, atomic)
               : MPI_T_ERR_INVALID_INDEX;
  const mpit::Variable &v = mpit::variables()[static_cast<std::size_t>(k)];
  copy_out(v.name, name, name_len);
  copy_out(v.description, desc, desc_len);
  set(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
  set(var_class, v.var_class);
  set(datatype, MPI_UNSIGNED_LONG_LONG);
  set(enumtype, MPI_T_ENUM_NULL);
  set(bind, MPI_T_BIND_MPI_COMM);
  set(readonly, 1);
  set(continuous, 0);
  set(atomic, 0);
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index) {
  // The monitor's names come first: with Open MPI's own monitoring also enabled, a tool
  // reads all its variables from one source.
  const int k = mpit::find_variable(name, var_class);
  if (k < 0)
    return PMPI_T_pvar_get_index(name, var_class, pvar_index);
  int mpi_count = 0;
  const int rc = PMPI_T_pvar_get_num(&mpi_count);
  if (rc != MPI_SUCCESS)
    return rc;
  if (pvar_index == nullptr)
    return MPI_T_ERR_INVALID;
  *pvar_index = mpi_count + k;
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_pvar_session_create(MPI_T_pvar_session *session) {
  // The MPIs do not check these pointers (Open MPI 4.1 writes through a NULL one).
  if (session == nullptr)
    return g_depth.load(std::memory_order_acquire) == 0 ? MPI_T_ERR_NOT_INITIALIZED
                                                        : MPI_T_ERR_INVALID;
  MPI_T_pvar_session mpi = MPI_T_PVAR_SESSION_NULL;
  const int rc = PMPI_T_pvar_session_create(&mpi);
  if (rc != MPI_SUCCESS)
    return rc;
  try {
    *session = reinterpret_cast<MPI_T_pvar_session>(table().create_session(mpi));
  } catch (...) {
    PMPI_T_pvar_session_free(&mpi);
    return MPI_T_ERR_MEMORY;
  }
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_pvar_session_free(MPI_T_pvar_session *session) {
  if (session == nullptr)
    return g_depth.load(std::memory_order_acquire) == 0 ? MPI_T_ERR_NOT_INITIALIZED
                                                        : MPI_T_ERR_INVALID;
  if (our_session(*session) == nullptr)
    return PMPI_T_pvar_session_free(session);
  MPI_T_pvar_session mpi = MPI_T_PVAR_SESSION_NULL;
  const int rc = table().free_session(our_session(*session), &mpi);
  if (rc != MPI_SUCCESS)
    return rc;
  *session = MPI_T_PVAR_SESSION_NULL;
  return PMPI_T_pvar_session_free(&mpi);
}

PNMPI_EXPORT int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                                         void *obj_handle, MPI_T_pvar_handle *handle, int *count) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  mpit::Session *s = our_session(session);
  int rc = MPI_SUCCESS, mpi_count = 0;
  const int k = our_variable(pvar_index, &rc, &mpi_count);
  if (rc != MPI_SUCCESS)
    return rc;
  if (k < 0) {
    if (pvar_index < 0 || pvar_index >= mpi_count)
      return MPI_T_ERR_INVALID_INDEX;
    return PMPI_T_pvar_handle_alloc(s != nullptr ? s->mpi : session, pvar_index, obj_handle, handle,
                                    count);
  }
  if (s == nullptr)
    return MPI_T_ERR_INVALID_SESSION;
  if (handle == nullptr || count == nullptr)
    return MPI_T_ERR_INVALID;
  if (obj_handle == nullptr)
    return MPI_T_ERR_INVALID_HANDLE;
  try {
    mpit::Binding b;
    if (const int bound = bind(k, comm_of(obj_handle), b); bound != MPI_SUCCESS)
      return bound;
    mpit::Handle *h = nullptr;
    rc = table().alloc_handle(s, k, std::move(b), &h, count);
    if (rc == MPI_SUCCESS)
      *handle = reinterpret_cast<MPI_T_pvar_handle>(h);
    return rc;
  } catch (...) {
    return MPI_T_ERR_MEMORY;
  }
}

PNMPI_EXPORT int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  if (handle == nullptr)
    return MPI_T_ERR_INVALID;
  mpit::Session *s = our_session(session);
  mpit::Handle *h = our_handle(*handle);
  if (h == nullptr)
    return PMPI_T_pvar_handle_free(s != nullptr ? s->mpi : session, handle);
  if (s == nullptr)
    return MPI_T_ERR_INVALID_HANDLE;
  const int rc = table().free_handle(s, h);
  if (rc == MPI_SUCCESS)
    *handle = MPI_T_PVAR_HANDLE_NULL;
  return rc;
}

PNMPI_EXPORT int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_stop_reset(
      session, handle,
      [](mpit::Session *s, mpit::Handle *h, bool all) { return table().start(s, h, all); },
      [](MPI_T_pvar_session ms, MPI_T_pvar_handle mh) { return PMPI_T_pvar_start(ms, mh); });
}

PNMPI_EXPORT int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_stop_reset(
      session, handle,
      [](mpit::Session *s, mpit::Handle *h, bool all) { return table().stop(s, h, all); },
      [](MPI_T_pvar_session ms, MPI_T_pvar_handle mh) { return PMPI_T_pvar_stop(ms, mh); });
}

PNMPI_EXPORT int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_stop_reset(
      session, handle,
      [](mpit::Session *s, mpit::Handle *h, bool all) { return table().reset(s, h, all); },
      [](MPI_T_pvar_session ms, MPI_T_pvar_handle mh) { return PMPI_T_pvar_reset(ms, mh); });
}

PNMPI_EXPORT int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  mpit::Session *s = our_session(session);
  mpit::Handle *h = our_handle(handle);
  if (h == nullptr)
    return PMPI_T_pvar_read(s != nullptr ? s->mpi : session, handle, buf);
  return s != nullptr ? table().read(s, h, buf) : MPI_T_ERR_INVALID_HANDLE;
}

PNMPI_EXPORT int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                      void *buf) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  mpit::Session *s = our_session(session);
  mpit::Handle *h = our_handle(handle);
  if (h == nullptr)
    return PMPI_T_pvar_readreset(s != nullptr ? s->mpi : session, handle, buf);
  if (s == nullptr)
    return MPI_T_ERR_INVALID_HANDLE;
  return table().reset(s, h, false); // read-only: MPI_T_ERR_PVAR_NO_WRITE, nothing read
}

PNMPI_EXPORT int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                  const void *buf) {
  if (g_depth.load(std::memory_order_acquire) == 0)
    return MPI_T_ERR_NOT_INITIALIZED;
  mpit::Session *s = our_session(session);
  mpit::Handle *h = our_handle(handle);
  if (h == nullptr)
    return PMPI_T_pvar_write(s != nullptr ? s->mpi : session, handle, buf);
  if (s == nullptr)
    return MPI_T_ERR_INVALID_HANDLE;
  return table().reset(s, h, false); // the same checks; read-only: MPI_T_ERR_PVAR_NO_WRITE
}

// ---- the category -------------------------------------------------------------------------

PNMPI_EXPORT int MPI_T_category_get_num(int *num_cat) {
  const int rc = PMPI_T_category_get_num(num_cat);
  if (rc == MPI_SUCCESS)
    *num_cat += 1;
  return rc;
}

PNMPI_EXPORT int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                                         int *desc_len, int *num_cvars, int *num_pvars,
                                         int *num_categories) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  if (ours == 0)
    return PMPI_T_category_get_info(cat_index, name, name_len, desc, desc_len, num_cvars, num_pvars,
                                    num_categories);
  copy_out(mpit::kCategoryName, name, name_len);
  copy_out(mpit::kCategoryDescription, desc, desc_len);
  set(num_cvars, 0);
  set(num_pvars, our_count());
  set(num_categories, 0);
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_category_get_index(const char *name, int *cat_index) {
  if (name == nullptr || std::strcmp(name, mpit::kCategoryName) != 0)
    return PMPI_T_category_get_index(name, cat_index);
  int n = 0;
  const int rc = PMPI_T_category_get_num(&n);
  if (rc != MPI_SUCCESS)
    return rc;
  if (cat_index == nullptr)
    return MPI_T_ERR_INVALID;
  *cat_index = n;
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  if (ours == 0)
    return PMPI_T_category_get_pvars(cat_index, len, indices);
  int mpi_count = 0;
  if ((rc = PMPI_T_pvar_get_num(&mpi_count)) != MPI_SUCCESS)
    return rc;
  for (int i = 0; i < std::min(len, our_count()); ++i)
    indices[i] = mpi_count + i;
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  return ours == 0 ? PMPI_T_category_get_cvars(cat_index, len, indices) : MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  return ours == 0 ? PMPI_T_category_get_categories(cat_index, len, indices) : MPI_SUCCESS;
}

#if MPI_VERSION >= 4
PNMPI_EXPORT int MPI_T_category_get_num_events(int cat_index, int *num_events) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  if (ours == 0)
    return PMPI_T_category_get_num_events(cat_index, num_events);
  set(num_events, 0);
  return MPI_SUCCESS;
}

PNMPI_EXPORT int MPI_T_category_get_events(int cat_index, int len, int indices[]) {
  int rc = MPI_SUCCESS;
  const int ours = is_our_category(cat_index, &rc);
  if (ours < 0)
    return rc;
  return ours == 0 ? PMPI_T_category_get_events(cat_index, len, indices) : MPI_SUCCESS;
}
#endif

} // extern "C"

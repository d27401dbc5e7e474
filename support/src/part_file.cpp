// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The per-process part file and the marks that say how a process ended. The file is one
// MAP_SHARED mapping per region: what modules store there is in the page cache at once,
// so it survives any death of the process (not of the node). Marks are plain stores into
// the mapped header, made from signal handlers and atexit(): nothing here may allocate,
// lock or print on those paths.
#include <pnmpi/support.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace {

std::mutex g_mutex; // creation and regions only, never on a mark
pnmpi_part_header_t *g_header = nullptr;
int g_fd = -1;
char g_directory[PATH_MAX] = ".";
char g_path[PATH_MAX] = "";

void copy_text(char *dst, size_t size, const char *src) {
  std::snprintf(dst, size, "%s", src ? src : "");
}

void fill_identity(pnmpi_part_header_t *h) {
  std::memcpy(h->magic, PNMPI_PART_MAGIC, 8);
  h->version = PNMPI_PART_VERSION;
  h->header_bytes = PNMPI_PART_HEADER_BYTES;
  h->rank = -1;
  h->pid = static_cast<uint32_t>(getpid());
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  copy_text(h->host, sizeof h->host, host);
  copy_text(h->job_id, sizeof h->job_id, pnmpi_job_id());
  const char *user = std::getenv("USER");
  struct passwd pw, *res = nullptr;
  char buf[1024]; // holds the name getpwuid_r returns: it must outlive the copy below
  if (user == nullptr || !*user) {
    if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) == 0 && res != nullptr)
      user = res->pw_name;
  }
  copy_text(h->user, sizeof h->user, user ? user : "");
  ssize_t n = readlink("/proc/self/exe", h->executable, sizeof h->executable - 1);
  h->executable[n > 0 ? n : 0] = '\0';
}

int create_file() {
  mkdir(g_directory, 0777); // one level; an error shows in open() below
  char job[160], host[160];
  pnmpi_file_name(pnmpi_job_id(), job, sizeof job);
  char raw_host[256] = "";
  gethostname(raw_host, sizeof raw_host - 1);
  pnmpi_file_name(raw_host, host, sizeof host);
  if (std::snprintf(g_path, sizeof g_path, "%s/pnmpi-%s.%s.%ld.part", g_directory, job, host,
                    static_cast<long>(getpid())) >= static_cast<int>(sizeof g_path))
    return ENAMETOOLONG;
  // Created exclusively and never through a link: the directory may be a site's shared,
  // sticky one. A file of this name left by an earlier process (same job id, host and pid)
  // is replaced only when it is a regular file of this user's.
  const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = open(g_path, flags, 0644);
  if (fd < 0 && errno == EEXIST) {
    struct stat st;
    if (lstat(g_path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
      return EEXIST;
    if (unlink(g_path) != 0)
      return errno;
    fd = open(g_path, flags, 0644);
  }
  if (fd < 0)
    return errno;
  if (ftruncate(fd, PNMPI_PART_HEADER_BYTES) != 0) {
    int e = errno;
    close(fd);
    return e;
  }
  void *p = mmap(nullptr, PNMPI_PART_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    return e;
  }
  g_fd = fd;
  g_header = static_cast<pnmpi_part_header_t *>(p);
  fill_identity(g_header);
  g_header->file_bytes = PNMPI_PART_HEADER_BYTES;
  return 0;
}

// ---- marks --------------------------------------------------------------------------------

constexpr int kSignals[] = {SIGTERM, SIGINT,  SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
                            SIGXCPU, SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT};
struct sigaction g_previous[NSIG];
std::atomic<bool> g_exit_registered{false};

void on_signal(int sig, siginfo_t *info, void *context) {
  pnmpi_part_mark(PNMPI_PART_SIGNALED, sig);
  const struct sigaction &old = g_previous[sig];
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction != nullptr) {
      old.sa_sigaction(sig, info, context);
      return;
    }
  } else if (old.sa_handler == SIG_IGN) {
    return;
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != nullptr) {
    old.sa_handler(sig);
    return;
  }
  // The default action, as if we had never been here: the signal is blocked while this
  // handler runs, so the re-raised one arrives when it returns, with SIG_DFL in place.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

void on_exit_mark() {
  pnmpi_part_mark(PNMPI_PART_EXITED, 0);
}

} // namespace

extern "C" {

uint64_t pnmpi_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t pnmpi_realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

int pnmpi_part_configure(const char *directory) {
  if (directory == nullptr || !*directory)
    return EINVAL;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_header != nullptr)
    return 0;
  if (std::strlen(directory) >= sizeof g_directory - 200)
    return ENAMETOOLONG;
  copy_text(g_directory, sizeof g_directory, directory);
  return 0;
}

void *pnmpi_part_region(const char *name, size_t bytes, uint32_t version) {
  if (name == nullptr || std::strlen(name) >= sizeof(pnmpi_part_region_t{}.name)) {
    errno = EINVAL;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_header == nullptr) {
    int e = create_file();
    if (e != 0) {
      errno = e;
      return nullptr;
    }
    pnmpi_marks_install();
  }
  pnmpi_part_header_t *h = g_header;
  if (h->region_count >= PNMPI_PART_MAX_REGIONS) {
    errno = ENOSPC;
    return nullptr;
  }
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t offset = (h->file_bytes + page - 1) / page * page;
  const uint64_t length = (bytes + page - 1) / page * page;
  if (ftruncate(g_fd, static_cast<off_t>(offset + length)) != 0)
    return nullptr;
  void *p =
      mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED)
    return nullptr;
  pnmpi_part_region_t &r = h->regions[h->region_count];
  copy_text(r.name, sizeof r.name, name);
  r.offset = offset;
  r.bytes = bytes;
  r.version = version;
  h->file_bytes = offset + length;
  __atomic_store_n(&h->region_count, h->region_count + 1, __ATOMIC_RELEASE);
  return p;
}

pnmpi_part_header_t *pnmpi_part_header(void) {
  return g_header;
}

const char *pnmpi_part_path(void) {
  return g_path;
}

void pnmpi_part_started(int rank, int size, uint64_t begin_tick, uint64_t begin_mono_ns) {
  pnmpi_part_header_t *h = g_header;
  if (h == nullptr)
    return;
  h->rank = rank;
  h->size = size;
  h->init_real_ns = pnmpi_realtime_ns();
  h->init_mono_ns = pnmpi_monotonic_ns();
  h->init_tick = pnmpi_ticks();
  const double ns = static_cast<double>(h->init_mono_ns - begin_mono_ns);
  h->ticks_per_ns = ns > 0 ? static_cast<double>(h->init_tick - begin_tick) / ns : 1.0;
  // The MPI may have installed handlers of its own during MPI_Init: go in front of them.
  pnmpi_marks_install();
}

void pnmpi_part_mark(pnmpi_part_state_t state, int detail) {
  pnmpi_part_header_t *h = g_header;
  if (h == nullptr)
    return;
  const uint32_t now = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
  // The first mark stays, except that MPI_Finalize overrides a signal whose handler
  // returned and the process went on.
  if (now == PNMPI_PART_FINALIZED ||
      (now != PNMPI_PART_RUNNING && !(state == PNMPI_PART_FINALIZED && now == PNMPI_PART_SIGNALED)))
    return;
  h->detail = detail;
  h->end_real_ns = pnmpi_realtime_ns();
  h->end_mono_ns = pnmpi_monotonic_ns();
  h->end_tick = pnmpi_ticks();
  __atomic_store_n(&h->state, static_cast<uint32_t>(state), __ATOMIC_RELEASE);
}

int pnmpi_part_remove(void) {
  if (g_path[0] == '\0')
    return ENOENT;
  return unlink(g_path) == 0 ? 0 : errno;
}

void pnmpi_marks_install(void) {
  for (int sig : kSignals) {
    struct sigaction now;
    if (sigaction(sig, nullptr, &now) != 0)
      continue;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal)
      continue; // ours already
    if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN)
      continue; // ignored by the application: it does not end the process
    g_previous[sig] = now;
    struct sigaction ours;
    std::memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART | (now.sa_flags & SA_ONSTACK);
    sigemptyset(&ours.sa_mask);
    sigaction(sig, &ours, nullptr);
  }
  if (!g_exit_registered.exchange(true))
    std::atexit(on_exit_mark);
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "site.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "log.h"

namespace pnmpi {

int launcher_rank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0')
      continue;
    char *end = nullptr;
    const long r = std::strtol(v, &end, 10);
    if (*end == '\0' && r >= 0 && r < (1L << 30))
      return static_cast<int>(r);
  }
  return -1;
}

std::string batch_job_id() {
  for (const char *name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID"})
    if (const char *v = std::getenv(name); v != nullptr && *v != '\0')
      return v;
  return "";
}

std::string name_part(std::string_view text) {
  constexpr std::size_t kMax = 64;
  std::string out;
  for (const char c : text.substr(0, kMax)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '+' || c == '-';
    out += ok ? c : '-';
  }
  if (out.empty() || out == "." || out == "..")
    return "unknown";
  return out;
}

std::string record_file_name(const std::string &user, const std::string &exe,
                             const std::string &job, const std::tm &utc, unsigned long long unique,
                             const std::string &suffix) {
  char tail[96];
  std::snprintf(tail, sizeof tail, "_%d-%d-%d-%016llx", utc.tm_mon + 1, utc.tm_mday,
                utc.tm_hour * 3600 + utc.tm_min * 60 + utc.tm_sec, unique);
  return name_part(user) + "_" + name_part(exe) + "_id" + name_part(job) + tail + "." +
         name_part(suffix);
}

namespace {

std::string user_of_process() {
  struct passwd pw, *found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::getuid(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    return found->pw_name;
  return "uid" + std::to_string(::getuid());
}

std::string executable_name() {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return "unknown";
  const std::string path(exe, static_cast<std::size_t>(n));
  return path.substr(path.rfind('/') + 1);
}

unsigned long long unique_bits() {
  unsigned long long v = 0;
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v))
    return v;
  // No entropy yet (early boot): the pid and the clock still differ between processes.
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return (static_cast<unsigned long long>(::getpid()) << 32) ^
         static_cast<unsigned long long>(ts.tv_nsec) ^ static_cast<unsigned long long>(ts.tv_sec);
}

/// Opens directory `name` under `dir` without following a link.
int open_directory_at(int dir, const char *name) {
  return ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

std::string g_records;

} // namespace

int create_record_file(const std::string &logdir, const std::string &suffix, std::string *path) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  const std::string parts[3] = {std::to_string(utc.tm_year + 1900), std::to_string(utc.tm_mon + 1),
                                std::to_string(utc.tm_mday)};
  std::string day = logdir;
  // LOGDIR itself is the admin's to place (a link to another file system is fine); below
  // it every step is a real directory.
  int fd = ::open(logdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (const std::string &part : parts) {
    if (fd < 0)
      break;
    day += "/" + part;
    const int next = open_directory_at(fd, part.c_str());
    ::close(fd);
    fd = next;
  }
  if (fd < 0)
    throw Error("cannot use the record directory " + shown(day) + ": " + std::strerror(errno) +
                " (an administrator makes it with 'pnmpi-admin mkdirs " + shown(logdir) + "')");
  const std::string name =
      record_file_name(user_of_process(), executable_name(),
                       batch_job_id().empty() ? "p" + std::to_string(::getpid()) : batch_job_id(),
                       utc, unique_bits(), suffix);
  const int file =
      ::openat(fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
  const int err = errno;
  ::close(fd);
  if (file < 0)
    throw Error("cannot create a record in " + shown(day) + ": " + std::strerror(err));
  // The umask may have taken the group's read: the admin group reads every record.
  ::fchmod(file, 0640);
  *path = day + "/" + name;
  return file;
}

void set_site_records(const std::string &logdir) {
  g_records = logdir;
}

const std::string &site_records() {
  return g_records;
}

void site_warning(const std::string &message, bool job_wide) {
  if (job_wide && launcher_rank() > 0)
    return;
  print_error("warning: " + message);
  if (g_records.empty())
    return;
  // One note per process that warned, appended to as it warns again; made at the first.
  static std::mutex lock;
  static int note = -1;
  static bool tried = false;
  const std::lock_guard<std::mutex> guard(lock);
  if (!tried) {
    tried = true;
    try {
      std::string path;
      note = create_record_file(g_records, "warnings", &path);
    } catch (const Error &) {
      note = -1; // the warning on stderr stands alone; nothing more to say
    }
  }
  if (note < 0)
    return;
  const int rank = launcher_rank();
  const std::string line =
      "rank " + (rank < 0 ? std::string("?") : std::to_string(rank)) + ": " + message + "\n";
  const ssize_t written = ::write(note, line.data(), line.size());
  (void)written;
}

} // namespace pnmpi

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// Output files written atomically (support.h: pnmpi_atomic_open and the rest): a temporary
// file beside the final one, renamed over it once whole and on disk.
//
// Why each step: the temporary name is unpredictable and created with O_EXCL|O_NOFOLLOW, so
// nothing planted in a shared directory is ever opened or followed; only a regular file (or
// nothing) at the final name is replaced, checked at open and again at commit, since
// something may have been put there while we wrote; fsync before rename, so that a crash
// leaves the old file or the whole new one, never an empty one under the final name.

#include <pnmpi/support.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <new>
#include <string>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "name_escape.h"

struct pnmpi_atomic_file {
  std::string path, tmp;
  int fd = -1;
  std::FILE *file = nullptr;
  int error = 0; ///< the first write(2)'s errno: why, when the stream only says that it failed
};

namespace {

/// Why `path` may not be replaced (and the errno that says it), or 0 if it may: nothing is
/// there, or a regular file.
int not_replaceable(const std::string &path, std::string &why) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return 0;
    why = std::strerror(errno);
    return errno;
  }
  if (S_ISREG(st.st_mode))
    return 0;
  const char *what = S_ISLNK(st.st_mode)                          ? "a symbolic link"
                     : S_ISDIR(st.st_mode)                        ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "not a regular file";
  why = std::string("it is ") + what + ", not a regular file, and is left as it is";
  return S_ISLNK(st.st_mode) ? ELOOP : S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
}

/// Copies the message `make()` builds to `why` (as snprintf: cut to fit, always
/// terminated); without the memory to build it, one that needs none.
template <class Make> void tell(char *why, size_t size, Make make) noexcept {
  if (why == nullptr || size == 0)
    return;
  try {
    std::snprintf(why, size, "%s", make().c_str());
  } catch (...) {
    std::snprintf(why, size, "cannot write a file: %s", std::strerror(ENOMEM));
  }
}

/// "cannot write 'PATH': REASON", PATH escaped; returns `error`, also left in errno.
int failed(int error, const char *path, const char *reason, char *why, size_t size) noexcept {
  tell(why, size, [&] { return "cannot write '" + pnmpi::escaped_name(path) + "': " + reason; });
  errno = error;
  return error;
}

/// 64 unpredictable bits for a temporary name (getrandom; a clock and a counter if the
/// kernel has none to give: O_EXCL keeps even a guessed name safe, it only costs a retry).
std::uint64_t random_bits() {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits))
    return bits;
  static std::atomic<std::uint64_t> counter{0};
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  bits = static_cast<std::uint64_t>(now.tv_nsec) ^ (static_cast<std::uint64_t>(now.tv_sec) << 30);
  return (bits ^ counter.fetch_add(0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
}

/// The temporary name of `path`: ".NAME.tmp.PID.RANDOM" in the same directory (rename(2)
/// is atomic only within one file system), hidden from a plain `ls`.
std::string temporary_name(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%016" PRIx64, static_cast<long>(::getpid()),
                random_bits());
  return path.substr(0, base) + "." + path.substr(base) + suffix;
}

// The stream is a cookie stream over the file descriptor so that the cause of a failed
// write (ENOSPC, EFBIG, EDQUOT) is kept: stdio keeps only an error flag, and errno is long
// overwritten when the caller gets to commit.
ssize_t write_cookie(void *cookie, const char *data, size_t bytes) {
  auto *f = static_cast<pnmpi_atomic_file *>(cookie);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(f->fd, data + done, bytes - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (f->error == 0)
        f->error = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  return done > 0 ? static_cast<ssize_t>(done) : -1;
}

int close_cookie(void *cookie) {
  auto *f = static_cast<pnmpi_atomic_file *>(cookie);
  const int rc = ::close(f->fd);
  f->fd = -1;
  return rc;
}

} // namespace

extern "C" {

pnmpi_atomic_file_t *pnmpi_atomic_open(const char *path, char *why, size_t why_size) {
  if (path == nullptr || *path == '\0') {
    failed(EINVAL, path ? path : "", std::strerror(EINVAL), why, why_size);
    return nullptr;
  }
  auto *f = new (std::nothrow) pnmpi_atomic_file;
  if (f == nullptr) {
    failed(ENOMEM, path, std::strerror(ENOMEM), why, why_size);
    return nullptr;
  }
  try {
    f->path = path;
    std::string reason;
    if (const int e = not_replaceable(f->path, reason)) {
      failed(e, path, reason.c_str(), why, why_size);
      delete f;
      errno = e;
      return nullptr;
    }
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      f->tmp = temporary_name(f->path);
      // Mode 0666 less the umask, as fopen(path, "w") would create the file.
      fd = ::open(f->tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST)
        break;
    }
    if (fd < 0) {
      const int e = errno;
      failed(e, path, std::strerror(e), why, why_size);
      delete f;
      errno = e;
      return nullptr;
    }
    f->fd = fd;
    f->file =
        ::fopencookie(f, "w", cookie_io_functions_t{nullptr, write_cookie, nullptr, close_cookie});
    if (f->file == nullptr) {
      const int e = errno;
      ::close(fd);
      ::unlink(f->tmp.c_str());
      failed(e, path, std::strerror(e), why, why_size);
      delete f;
      errno = e;
      return nullptr;
    }
    return f;
  } catch (const std::bad_alloc &) {
    delete f;
    failed(ENOMEM, path, std::strerror(ENOMEM), why, why_size);
    return nullptr;
  }
}

FILE *pnmpi_atomic_stream(const pnmpi_atomic_file_t *file) {
  return file != nullptr ? file->file : nullptr;
}

int pnmpi_atomic_commit(pnmpi_atomic_file_t *file, char *why, size_t why_size) {
  if (file == nullptr)
    return failed(EINVAL, "", std::strerror(EINVAL), why, why_size);
  // A short write (a full disk, a file size limit) set the stream's error flag.
  int e = std::fflush(file->file) != 0 || std::ferror(file->file) ? EIO : 0;
  if (e != 0 && file->error != 0)
    e = file->error;
  if (e == 0 && ::fsync(file->fd) != 0)
    e = errno;
  if (std::fclose(file->file) != 0 && e == 0)
    e = errno;
  file->file = nullptr;
  int rc = 0;
  if (e != 0) {
    rc = failed(e, file->path.c_str(), std::strerror(e), why, why_size);
  } else {
    try {
      std::string reason;
      if (const int refused = not_replaceable(file->path, reason)) {
        rc = failed(refused, file->path.c_str(), reason.c_str(), why, why_size);
      } else if (std::rename(file->tmp.c_str(), file->path.c_str()) != 0) {
        rc = errno;
        tell(why, why_size, [&] {
          return "cannot rename '" + pnmpi::escaped_name(file->tmp) + "' to '" +
                 pnmpi::escaped_name(file->path) + "': " + std::strerror(rc);
        });
      }
    } catch (const std::bad_alloc &) {
      rc = failed(ENOMEM, file->path.c_str(), std::strerror(ENOMEM), why, why_size);
    }
  }
  if (rc != 0)
    ::unlink(file->tmp.c_str());
  delete file;
  errno = rc;
  return rc;
}

void pnmpi_atomic_discard(pnmpi_atomic_file_t *file) {
  if (file == nullptr)
    return;
  if (file->file != nullptr)
    std::fclose(file->file);
  ::unlink(file->tmp.c_str());
  delete file;
}

int pnmpi_write_file_atomic(const char *path, const void *data, size_t bytes) {
  if (path == nullptr || (data == nullptr && bytes > 0))
    return EINVAL;
  pnmpi_atomic_file_t *f = pnmpi_atomic_open(path, nullptr, 0);
  if (f == nullptr)
    return errno;
  if (bytes > 0)
    std::fwrite(data, 1, bytes, pnmpi_atomic_stream(f)); // a short write sets the error flag
  return pnmpi_atomic_commit(f, nullptr, 0);
}

} // extern "C"

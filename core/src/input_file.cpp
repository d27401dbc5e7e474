// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "input_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

namespace pnmpi {

namespace {

/// Closes the descriptor on every way out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string megabytes(std::uint64_t bytes) {
  return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                 : std::to_string(bytes) + " bytes";
}

} // namespace

FileIdentity identity_of(const struct stat &st) {
  FileIdentity id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = st.st_size;
  id.mtime = st.st_mtim;
  id.ctime = st.st_ctim;
  return id;
}

bool same_file(const FileIdentity &a, const FileIdentity &b) {
  const auto same = [](const timespec &x, const timespec &y) {
    return x.tv_sec == y.tv_sec && x.tv_nsec == y.tv_nsec;
  };
  return a.dev == b.dev && a.ino == b.ino && a.size == b.size && same(a.mtime, b.mtime) &&
         same(a.ctime, b.ctime);
}

bool identity_at(const std::string &path, FileIdentity *out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return false;
  *out = identity_of(st);
  return true;
}

std::vector<unsigned char> read_input_file(const std::string &path, std::uint64_t max_bytes,
                                           const std::string &what, FileIdentity *identity) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const Descriptor in{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (in.fd < 0)
    throw Error(what + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(in.fd, &st) != 0)
    throw Error(what + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(what + ": it is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw Error(what + ": it has " + std::to_string(st.st_size) + " bytes, more than the " +
                megabytes(max_bytes) + " such a file may have; is it the right file?");
  std::vector<unsigned char> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(in.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw Error(what + ": " + std::strerror(errno));
    if (n == 0)
      break; // it shrank while it was read: refused below
    got += static_cast<std::size_t>(n);
  }
  struct stat after {};
  if (::fstat(in.fd, &after) != 0)
    throw Error(what + ": " + std::strerror(errno));
  if (got != bytes.size() || !same_file(identity_of(st), identity_of(after)))
    throw Error(what + ": it changed while it was read (is it being written or installed?); "
                       "try again once it no longer changes");
  if (identity != nullptr)
    *identity = identity_of(st);
  return bytes;
}

} // namespace pnmpi

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

std::vector<unsigned char> read_input_file(const std::string &path, std::uint64_t max_bytes,
                                           const std::string &what) {
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
      break; // it shrank while it was read: what was read is all there is
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

} // namespace pnmpi

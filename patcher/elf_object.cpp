// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Loading an object: the file read safely, then parsed (elf_parser.cpp, elf_tables.cpp).

#include "elf_object.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "elf_parser.h"

namespace pnmpi {

void patch_fail(PatchErrorKind kind, const std::string &label, const std::string &message) {
  throw PatchError(kind, label + ": " + message);
}

std::string archive_link_hint(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
  if (stem.size() > 2 && stem.compare(stem.size() - 2, 2, ".a") == 0)
    stem.resize(stem.size() - 2);
  return "gcc -shared -o " + stem + ".so -Wl,--whole-archive " + path + " -Wl,--no-whole-archive";
}

ElfObject ElfObject::parse(std::vector<unsigned char> bytes, std::string label) {
  return ElfParser(std::move(bytes), std::move(label)).run();
}

ElfObject ElfObject::load(const std::string &path, struct stat &status, std::uint64_t max_size) {
  auto io_error = [&path](const std::string &what) {
    patch_fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };
  // stat before open: opening a FIFO waits for a writer, and opening a device can act on it
  // (a tape rewinds). O_NONBLOCK and the fstat below close the race with a node swapped in.
  struct stat named;
  if (stat(path.c_str(), &named) != 0)
    io_error("cannot open");
  if (!S_ISREG(named.st_mode))
    patch_fail(PatchErrorKind::io, path, "not a regular file");
  struct Descriptor {
    int fd;
    ~Descriptor() {
      if (fd >= 0)
        close(fd);
    }
  } file{open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  const int fd = file.fd;
  if (fd < 0)
    io_error("cannot open");
  if (fstat(fd, &status) != 0)
    io_error("cannot stat");
  if (!S_ISREG(status.st_mode))
    patch_fail(PatchErrorKind::io, path, "not a regular file");
  auto too_large = [&](std::uint64_t size) {
    std::string limit = std::to_string(max_size) + " bytes";
    if (max_size % (std::uint64_t(1) << 30) == 0)
      limit += " (" + std::to_string(max_size >> 30) + " GiB)";
    patch_fail(PatchErrorKind::refused, path,
               "is too large: " + std::to_string(size) + " bytes, more than the limit of " + limit +
                   "; a PMPI tool is far smaller, so check that this is the right file");
  };
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > max_size)
    too_large(size);

  // Read what fstat promised, and no more than the limit if the file grows meanwhile.
  std::vector<unsigned char> bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  unsigned char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      io_error("cannot read");
    if (n == 0)
      break;
    if (bytes.size() + static_cast<std::size_t>(n) > max_size)
      too_large(bytes.size() + static_cast<std::size_t>(n));
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return parse(std::move(bytes), path);
}

std::vector<std::string> ElfObject::needed() const {
  std::vector<std::string> names;
  for (const StringUse &use : m_string_uses)
    if (use.what == "DT_NEEDED")
      names.push_back(use.value);
  return names;
}

std::string_view ElfObject::dynstr_bytes() const {
  return std::string_view(reinterpret_cast<const char *>(m_bytes.data()) + m_dynstr.offset,
                          m_dynstr.size);
}

} // namespace pnmpi

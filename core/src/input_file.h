// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <sys/types.h>
#include <vector>

struct stat;

namespace pnmpi {

/// What tells one version of a file from another: a replacement (another inode) or a rewrite
/// in place (its size, modification or change time).
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{}, ctime{};
};

/// The identity fstat()/stat() gave.
FileIdentity identity_of(const struct stat &st);
/// Whether two identities are of one version of one file.
bool same_file(const FileIdentity &a, const FileIdentity &b);
/// The identity of the file at `path` now; false if it cannot be stat()ed.
bool identity_at(const std::string &path, FileIdentity *out);

/// The bytes of the regular file at `path`, which may hold at most `max_bytes`: how the core
/// reads every input (configuration, modules, the MPI's language bindings). A FIFO never
/// blocks, a device or directory is refused, a file over the limit is refused before it is
/// read. Throws pnmpi::Error with `what` + ": " + the reason.
/// A file that changes while it is read is refused too. `identity` (if not null) receives the
/// identity of the version read.
std::vector<unsigned char> read_input_file(const std::string &path, std::uint64_t max_bytes,
                                           const std::string &what,
                                           FileIdentity *identity = nullptr);

} // namespace pnmpi

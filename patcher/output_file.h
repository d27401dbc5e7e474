// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <functional>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <vector>

namespace pnmpi {

/// A file about to be created or replaced, as check_output() found it.
struct OutputTarget {
  std::string path;      ///< the name to create or replace (a symbolic link resolved)
  bool exists = false;   ///< false: `path` names nothing yet
  struct stat status {}; ///< of the file to replace, when it exists
};

/// Resolves `path` for writing and refuses (PatchError) to replace anything that is not the
/// caller's own writable regular file: a directory, a device, a FIFO, a socket (also behind a
/// symbolic link), a dangling link, a file owned by another user (root included), a file
/// whose mode denies its owner writing, and a file with other hard links (replacing one name
/// would leave the others with the old contents). A symbolic link to a regular file is
/// followed: the file it names is the target.
OutputTarget check_output(const std::string &path);

/// Writes `bytes` to `target` atomically: a temporary file created exclusively in the same
/// directory with mode `mode` (and, when replacing, the group of the file replaced), then
/// `check(temporary path)`, then rename(2), provided `target` is still what check_output()
/// found: never over a file created or swapped in meanwhile. On any failure, exceptions
/// included, the temporary file is removed and the target is left as it was.
void write_file_atomically(const OutputTarget &target, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check);

/// check_output(path), then write_file_atomically() to it.
void write_file_atomically(const std::string &path, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check);

} // namespace pnmpi

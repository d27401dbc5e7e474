// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace pnmpi::monitor {

/// One peer line of Open MPI's monitoring format, TAB-separated:
/// `<type> <me> <peer> <bytes> bytes <count> msgs sent[ <h0,...,h65>]` and a newline.
std::string prof_line(const char *type, int me, int peer, std::uint64_t bytes, std::uint64_t count,
                      const std::uint64_t *histogram);

/// `name` as it may appear in a line of a text output (a .prof file, the summary, an error
/// message): `\` becomes `\\`, a newline `\n`, a TAB `\t`, any other control character
/// (below 0x20, and 0x7f) `\xHH`; other bytes, UTF-8 included, are kept. A name can then
/// neither end a line nor add a field.
std::string escape_name(const std::string &name);

/// A communicator's block: `D <name> procs: <world ranks>` then O2A, A2O and A2A lines
/// (`name` is escaped with escape_name()).
std::string prof_comm_block(const std::string &name, const std::vector<int> &procs, int me,
                            const std::uint64_t counts[3], const std::uint64_t bytes[3]);

/// `text` as a JSON string literal.
std::string json_string(const std::string &text);

/// Writes `text` to `path` through a temporary file in the same directory and rename(2), so
/// that readers see the old file or the whole new one. On failure sets `error` (and `path`
/// is left as it was).
///
/// The temporary file gets a new, unpredictable name and is created with
/// O_CREAT|O_EXCL|O_NOFOLLOW: nothing planted in the directory is ever opened or followed.
/// Only a regular file (or nothing) at `path` is replaced: a symbolic link, a directory, a
/// FIFO, a device or a socket there is refused by name. rename(2) replaces a name, never
/// what a symbolic link points to, so one planted between the check and the rename is
/// replaced itself and its target left unchanged.
bool write_file_atomically(const std::string &path, const std::string &text, std::string &error);

/// The same for output produced piecewise: open() gives a FILE to write to, commit()
/// flushes, closes and renames. A failed write or commit sets error() and removes the
/// temporary file.
class AtomicFile {
public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  std::FILE *file() const { return m_file; }
  bool commit();
  const std::string &error() const { return m_error; }

private:
  void fail(const std::string &why);

  std::string m_path, m_tmp, m_error;
  std::FILE *m_file = nullptr;
};

} // namespace pnmpi::monitor

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The output directory (trace.h): made at MPI_Init, the new archive staged beside the
// earlier one and moved into place at MPI_Finalize only when every rank wrote its part whole,
// INCOMPLETE, and the exit status when output was lost.
//
// Why a staging directory: the archive is many files written by every rank; writing them
// over an earlier run's would destroy a good archive before the new one exists, and a full
// disk would leave neither. The staging directory is inside the output directory, so on the
// same file system: moving the new archive into place is four rename(2)s, which write no
// data. INCOMPLETE stays until the last of them is done, so a reader never takes a half-moved
// archive for a whole one.

#include "trace.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <initializer_list>
#include <sys/stat.h>
#include <unistd.h>

namespace pnmpi::trace {

namespace {

constexpr const char *kStaging = "/.pnmpi-trace-new";
constexpr const char *kAside = "/.pnmpi-trace-old";

/// The files of an archive directory (OTF2's, and the trace's summary), moved last to first.
constexpr const char *kArchiveFiles[] = {"traces", "traces.def", "summary.txt", "traces.otf2"};

std::string errno_text() {
  return std::strerror(errno);
}

/// Makes `path` and its parents; an error message, or empty.
std::string make_directories(const std::string &path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/')
      continue;
    const std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      return "cannot create directory '" + escape_name(part) + "': " + errno_text();
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "'" + escape_name(path) + "' is not a directory";
  return "";
}

bool ends_with(const std::string &name, const char *suffix) {
  const std::size_t n = std::strlen(suffix);
  return name.size() > n && name.compare(name.size() - n, n, suffix) == 0;
}

/// Removes the files named `*suffix` (each of `suffixes`) in `dir` (or, if `remove` is false,
/// leaves them); returns the first other entry's name, or empty.
std::string remove_files(const std::string &dir, std::initializer_list<const char *> suffixes,
                         bool remove = true) {
  std::string other;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (const dirent *e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..")
        continue;
      bool ours = false;
      for (const char *suffix : suffixes)
        ours = ours || ends_with(name, suffix);
      if (ours) {
        if (remove)
          std::remove((dir + "/" + name).c_str());
      } else if (other.empty()) {
        other = name;
      }
    }
    ::closedir(d);
  }
  return other;
}

/// Removes what write_file() leaves of a file whose writing was cut short
/// (".NAME.tmp.PID.RANDOM", pnmpi_atomic_open()) from a directory only the trace writes in.
void remove_temporaries(const std::string &dir) {
  if (DIR *d = ::opendir(dir.c_str())) {
    while (const dirent *e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name[0] == '.' && name != "." && name != "..")
        std::remove((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
}

/// Removes an archive directory's `traces/` (its .evt and .def files only); an error message
/// if it holds anything else, or cannot be removed.
std::string remove_traces(const std::string &dir) {
  const std::string traces = dir + "/traces";
  const std::string other = remove_files(traces, {".evt", ".def"});
  if (::rmdir(traces.c_str()) != 0 && errno != ENOENT)
    return "cannot remove '" + escape_name(traces) + "': " +
           (other.empty() ? errno_text()
                          : "it holds '" + escape_name(other) + "', which the trace did not write");
  return "";
}

/// Removes a staging (or set-aside) directory the trace made, and what the trace wrote in it.
std::string remove_archive_dir(const std::string &dir) {
  std::string error = remove_traces(dir);
  if (!error.empty())
    return error;
  for (const char *name : {"traces.def", "summary.txt", "traces.otf2"})
    std::remove((dir + "/" + name).c_str());
  // The temporary copy of a summary.txt whose writing was cut short (write_file).
  remove_temporaries(dir);
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT)
    return "cannot remove '" + escape_name(dir) + "': " + errno_text();
  return "";
}

const char kIncompleteText[] =
    "This trace is incomplete: the job started writing it at MPI_Init and has not (yet)\n"
    "finished it at MPI_Finalize (it is still running, was killed, or failed). The raw\n"
    "records flushed so far are in raw/ (64-byte records, see docs/trace.md).\n";

const char kEarlierText[] =
    "An archive beside this file (traces.otf2, traces.def, traces/, summary.txt) is an\n"
    "earlier run's, left as it was.\n";

} // namespace

std::string spill_path(std::uint32_t thread) {
  return g.output + "/raw/rank" + std::to_string(g.rank) + ".thread" + std::to_string(thread) +
         ".raw";
}

std::string staging_dir() {
  return g.output + kStaging;
}

std::string write_file(const std::string &path, const std::string &text) {
  std::string error;
  return support::write_file_atomically(path, text, error) ? "" : error;
}

std::string output_problem() {
  // prepare_output() makes each missing directory of these paths in turn: the first one
  // missing must be creatable in its parent, the rest then are.
  for (const std::string &dir : {g.output, g.output + "/raw"}) {
    struct stat st;
    for (std::size_t i = 1; i <= dir.size(); ++i) {
      if (i < dir.size() && dir[i] != '/')
        continue;
      const std::string part = dir.substr(0, i);
      if (::stat(part.c_str(), &st) == 0)
        continue;
      if (errno == ENOENT) {
        const std::size_t slash = part.find_last_of('/');
        const std::string parent = slash == std::string::npos ? "." : part.substr(0, slash + 1);
        if (::access(parent.c_str(), W_OK | X_OK) == 0)
          return "";
      }
      return "cannot create directory '" + escape_name(part) + "': " + errno_text();
    }
    if (!S_ISDIR(st.st_mode))
      return "'" + escape_name(dir) + "' is not a directory";
  }
  if (::access((g.output + "/raw").c_str(), W_OK | X_OK) != 0)
    return "cannot write in '" + escape_name(g.output) + "/raw': " + errno_text();
  const std::string other = remove_files(g.output + "/traces", {".evt", ".def"}, false);
  if (!other.empty())
    return "cannot replace the earlier archive in '" + escape_name(g.output) +
           "/traces': it holds '" + escape_name(other) + "', which the trace did not write";
  return "";
}

std::string prepare_output() {
  for (const std::string &dir : {g.output, g.output + "/raw"}) {
    const std::string error = make_directories(dir);
    if (!error.empty())
      return error;
  }
  // An earlier run's spill files (a killed job's) and unfinished archive are removed; its
  // archive, if it finished one, stays until this run's is whole.
  remove_files(g.output + "/raw", {".raw"});
  for (const char *dir : {kStaging, kAside}) {
    const std::string error = remove_archive_dir(g.output + dir);
    if (!error.empty())
      return error;
  }
  // The earlier archive's traces/ is replaced at MPI_Finalize: refuse now, not then, a
  // directory the trace could not remove.
  const std::string other = remove_files(g.output + "/traces", {".evt", ".def"}, false);
  if (!other.empty())
    return "cannot replace the earlier archive in '" + escape_name(g.output) +
           "/traces': it holds '" + escape_name(other) + "', which the trace did not write";
  if (::mkdir(staging_dir().c_str(), 0755) != 0)
    return "cannot create directory '" + escape_name(staging_dir()) + "': " + errno_text();
  return write_file(g.output + "/INCOMPLETE", std::string(kIncompleteText) + kEarlierText);
}

std::string commit_archive() {
  const std::string aside = g.output + kAside;
  // The earlier traces/ (a directory cannot be renamed over a non-empty one) goes aside first.
  struct stat st;
  if (::lstat((g.output + "/traces").c_str(), &st) == 0) {
    if (::mkdir(aside.c_str(), 0755) != 0 && errno != EEXIST)
      return "cannot create directory '" + escape_name(aside) + "': " + errno_text();
    if (std::rename((g.output + "/traces").c_str(), (aside + "/traces").c_str()) != 0)
      return "cannot move the earlier archive's '" + escape_name(g.output) +
             "/traces' aside: " + errno_text();
  }
  for (const char *name : kArchiveFiles) {
    const std::string from = staging_dir() + "/" + name, to = g.output + "/" + name;
    if (std::rename(from.c_str(), to.c_str()) != 0)
      return "cannot move '" + escape_name(from) + "' to '" + escape_name(to) +
             "': " + errno_text();
  }
  if (std::remove((g.output + "/INCOMPLETE").c_str()) != 0)
    return "cannot remove '" + escape_name(g.output) + "/INCOMPLETE': " + errno_text();
  std::string error = remove_archive_dir(staging_dir());
  const std::string aside_error = remove_archive_dir(aside);
  return error.empty() ? aside_error : error;
}

std::string mark_failed(const std::string &failures) {
  // The unfinished archive is of no use, and removing it frees the space a full disk needs
  // for the message below.
  remove_archive_dir(staging_dir());
  struct stat st;
  const bool earlier = ::stat((g.output + "/traces.otf2").c_str(), &st) == 0;
  return write_file(g.output + "/INCOMPLETE",
                    "This trace is incomplete: the job reached MPI_Finalize, but writing its "
                    "archive failed:\n" +
                        failures +
                        "The unfinished archive was removed. The raw records flushed during "
                        "the run are in raw/\n(64-byte records, see docs/trace.md).\n" +
                        (earlier ? kEarlierText : ""));
}

} // namespace pnmpi::trace

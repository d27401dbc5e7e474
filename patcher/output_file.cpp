// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Writing the output: a temporary file in the target's directory, validated, then renamed
// over the target, never over anything but the caller's own regular file.

#include "output_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_object.h"

namespace pnmpi {

namespace {

/// "a FIFO", "a character device", ...: what a file that is not regular is.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISLNK(mode))
    return "a symbolic link";
  return "a special file";
}

std::string octal_mode(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

/// The directory part of `path` as given ("." if none, else up to and including the last
/// '/'), and the name in it.
std::pair<std::string, std::string> split_path(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return {".", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

/// A name for a temporary file that does not exist yet is not enough: it must be created
/// with O_EXCL. This only supplies the candidates.
std::string random_suffix() {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kChars - 2);
  std::string suffix(6, 'x');
  for (char &c : suffix)
    c = kChars[pick(device)];
  return suffix;
}

} // namespace

OutputTarget check_output(const std::string &path) {
  auto io_error = [&path](const std::string &what) {
    patch_fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };
  auto refuse = [&path](const std::string &message) {
    patch_fail(PatchErrorKind::refused, path, message);
  };
  OutputTarget target;
  struct stat named;
  if (lstat(path.c_str(), &named) != 0) {
    if (errno != ENOENT)
      io_error("cannot stat");
    target.path = path;
    return target;
  }
  std::string link_note;
  if (S_ISLNK(named.st_mode)) {
    // Followed, as documented; but never to create a file where a dangling link points.
    std::vector<char> buf(PATH_MAX + 1, '\0');
    const ssize_t n = readlink(path.c_str(), buf.data(), PATH_MAX);
    const std::string dest = n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : "?";
    if (stat(path.c_str(), &named) != 0) {
      if (errno == ENOENT)
        refuse("is a symbolic link to a missing file (" + dest +
               "); pnmpi-patch does not create a file through a link: remove the link or "
               "write to another OUT");
      io_error("cannot follow the symbolic link to " + dest);
    }
    link_note = "a symbolic link to " + dest + ", which is ";
  }
  if (!S_ISREG(named.st_mode))
    refuse("is " + link_note + kind_of(named.st_mode) +
           ", not a regular file; pnmpi-patch replaces only regular files: write to another "
           "OUT");
  if (named.st_uid != geteuid())
    refuse("is owned by user " + std::to_string(named.st_uid) + ", not by you (user " +
           std::to_string(geteuid()) +
           "); replacing it would make it yours: run as its owner or write to another OUT");
  // The owner's write bit, not access(2): root may write anything, but a file its owner
  // made read-only is not to be replaced behind their back.
  if ((named.st_mode & S_IWUSR) == 0)
    refuse("is read-only (mode " + octal_mode(named.st_mode) +
           "); make it writable or write to another OUT");
  if (named.st_nlink > 1)
    refuse("has " + std::to_string(named.st_nlink) +
           " hard links; replacing it would change this name only and leave the other links "
           "with the old contents: remove the other links or write to another OUT");

  if (link_note.empty()) {
    target.path = path;
  } else {
    char *resolved = realpath(path.c_str(), nullptr);
    if (!resolved)
      io_error("cannot resolve");
    target.path = resolved;
    std::free(resolved);
  }
  target.exists = true;
  target.status = named;
  return target;
}

void write_file_atomically(const std::string &path, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check) {
  write_file_atomically(check_output(path), bytes, mode, check);
}

void write_file_atomically(const OutputTarget &target, const std::vector<unsigned char> &bytes,
                           mode_t mode, const std::function<void(const std::string &)> &check) {
  const std::string &path = target.path;
  const auto [dir, base] = split_path(path);
  auto io_error = [&path](const std::string &what) {
    patch_fail(PatchErrorKind::io, path, what + ": " + std::strerror(errno));
  };

  // While the temporary file exists, the signals that would end the process wait until it
  // is renamed or removed; SIGXFSZ (over RLIMIT_FSIZE) then fails write() with EFBIG instead.
  // Declared first, so that it is restored last.
  struct SignalBlock {
    sigset_t saved;
    SignalBlock() {
      sigset_t set;
      sigemptyset(&set);
      for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ})
        sigaddset(&set, signal);
      pthread_sigmask(SIG_BLOCK, &set, &saved);
    }
    ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &saved, nullptr); }
  } block;

  // Every step below is relative to this one directory, so that a directory renamed or
  // replaced by a link meanwhile cannot redirect the output.
  struct Cleanup {
    int dir_fd = -1;
    int fd = -1;
    std::string name; ///< of the temporary file in dir_fd, while it must be removed
    ~Cleanup() {
      if (fd >= 0)
        close(fd);
      if (!name.empty())
        unlinkat(dir_fd, name.c_str(), 0);
      if (dir_fd >= 0)
        close(dir_fd);
    }
  } cleanup;
  cleanup.dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cleanup.dir_fd < 0)
    io_error("cannot create a temporary file in " + dir);

  // O_EXCL creates a new file or fails, and with O_NOFOLLOW never follows a planted link.
  const std::string stem = "." + base.substr(0, 200) + ".pnmpi-patch.";
  std::string name;
  for (int attempt = 0; cleanup.fd < 0; ++attempt) {
    name = stem + random_suffix();
    cleanup.fd = openat(cleanup.dir_fd, name.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (cleanup.fd < 0 && (errno != EEXIST || attempt == 100))
      io_error("cannot create a temporary file in " + dir);
  }
  cleanup.name = name;
  const std::string temporary = path.find('/') == std::string::npos ? name : dir + name;
  const int fd = cleanup.fd;

  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      io_error("cannot write " + temporary);
    done += static_cast<std::size_t>(n);
  }
  // The group before the mode: chown may clear set-id bits.
  struct stat written;
  if (fstat(fd, &written) != 0)
    io_error("cannot stat " + temporary);
  if (target.exists && written.st_gid != target.status.st_gid &&
      fchown(fd, static_cast<uid_t>(-1), target.status.st_gid) != 0)
    io_error("cannot give " + temporary + " the group of the file it replaces (group " +
             std::to_string(target.status.st_gid) + ")");
  if (fchmod(fd, mode & 07777) != 0)
    io_error("cannot set the mode of " + temporary);
  if (fsync(fd) != 0)
    io_error("cannot sync " + temporary);
  cleanup.fd = -1;
  if (close(fd) != 0)
    io_error("cannot close " + temporary);
  check(temporary);

  // The target must still be what was checked: the same file, or still absent.
  struct stat now;
  const bool present = fstatat(cleanup.dir_fd, base.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0;
  if (!present && errno != ENOENT)
    io_error("cannot stat");
  if (target.exists &&
      (!present || now.st_dev != target.status.st_dev || now.st_ino != target.status.st_ino))
    patch_fail(PatchErrorKind::io, path,
               "was replaced or removed by another process while pnmpi-patch was writing; nothing "
               "was written: run pnmpi-patch again");
  if (!target.exists && present)
    patch_fail(PatchErrorKind::io, path,
               "was created by another process while pnmpi-patch was writing; nothing was written: "
               "run pnmpi-patch again");
  // RENAME_NOREPLACE closes the last window for a new file; where the file system lacks it,
  // the check above has to do.
  int renamed = renameat2(cleanup.dir_fd, name.c_str(), cleanup.dir_fd, base.c_str(),
                          target.exists ? 0 : RENAME_NOREPLACE);
  if (renamed != 0 && !target.exists && (errno == EINVAL || errno == ENOSYS))
    renamed = renameat(cleanup.dir_fd, name.c_str(), cleanup.dir_fd, base.c_str());
  if (renamed != 0 && errno == EEXIST)
    patch_fail(PatchErrorKind::io, path,
               "was created by another process while pnmpi-patch was writing; nothing was written: "
               "run pnmpi-patch again");
  if (renamed != 0)
    io_error("cannot rename " + temporary + " to " + path);
  cleanup.name.clear();
  fsync(cleanup.dir_fd); // best effort: the data is complete either way
}

} // namespace pnmpi

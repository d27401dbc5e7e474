// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "output_format.h"

#include <pnmpi/support.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "histogram.h"

namespace pnmpi::monitor {

std::string prof_line(const char *type, int me, int peer, std::uint64_t bytes, std::uint64_t count,
                      const std::uint64_t *histogram) {
  char head[160];
  std::snprintf(head, sizeof head, "%s\t%d\t%d\t%" PRIu64 " bytes\t%" PRIu64 " msgs sent", type, me,
                peer, bytes, count);
  std::string line = head;
  if (histogram != nullptr) {
    line += '\t';
    for (unsigned b = 0; b < kHistogramBins; ++b) {
      if (b > 0)
        line += ',';
      line += std::to_string(histogram[b]);
    }
  }
  line += '\n';
  return line;
}

std::string escape_name(const std::string &name) {
  std::string out(pnmpi_escape_name(name.c_str(), nullptr, 0) + 1, '\0');
  out.resize(pnmpi_escape_name(name.c_str(), out.data(), out.size()));
  return out;
}

std::string prof_comm_block(const std::string &name, const std::vector<int> &procs, int me,
                            const std::uint64_t counts[3], const std::uint64_t bytes[3]) {
  std::string block = "D\t" + escape_name(name) + "\tprocs: ";
  for (std::size_t i = 0; i < procs.size(); ++i) {
    if (i > 0)
      block += ',';
    block += std::to_string(procs[i]);
  }
  block += '\n';
  const char *classes[3] = {"O2A", "A2O", "A2A"};
  for (int c = 0; c < 3; ++c) {
    char line[160];
    std::snprintf(line, sizeof line, "%s\t%d\t%" PRIu64 " bytes\t%" PRIu64 " msgs sent\n",
                  classes[c], me, bytes[c], counts[c]);
    block += line;
  }
  return block;
}

std::string json_string(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", c);
        out += esc;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

namespace {

/// Why `path` may not be replaced, or empty if it may: nothing is there, or a regular file.
std::string not_replaceable(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return errno == ENOENT ? std::string() : std::strerror(errno);
  if (S_ISREG(st.st_mode))
    return {};
  const char *what = S_ISLNK(st.st_mode)                          ? "a symbolic link"
                     : S_ISDIR(st.st_mode)                        ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "not a regular file";
  return std::string("it is ") + what + ", not a regular file, and is left as it is";
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

} // namespace

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path)) {
  if (const std::string why = not_replaceable(m_path); !why.empty()) {
    fail(why);
    return;
  }
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    char suffix[40];
    std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%016" PRIx64, static_cast<long>(::getpid()),
                  random_bits());
    m_tmp = m_path + suffix;
    // Mode 0666 less the umask, as fopen(path, "w") would create the file.
    fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    m_tmp.clear();
    fail(std::strerror(errno));
    return;
  }
  m_file = ::fdopen(fd, "w");
  if (m_file == nullptr) {
    const int saved = errno;
    ::close(fd);
    ::unlink(m_tmp.c_str());
    fail(std::strerror(saved));
  }
}

AtomicFile::~AtomicFile() {
  if (m_file != nullptr) {
    std::fclose(m_file);
    ::unlink(m_tmp.c_str());
  }
}

void AtomicFile::fail(const std::string &why) {
  m_error = "cannot write '" + escape_name(m_path) + "': " + why;
}

bool AtomicFile::commit() {
  if (m_file == nullptr)
    return false;
  const bool written = std::fflush(m_file) == 0 && !std::ferror(m_file);
  const int saved = errno;
  const bool closed = std::fclose(m_file) == 0;
  m_file = nullptr;
  if (!written || !closed) {
    fail(std::strerror(written ? errno : saved));
    ::unlink(m_tmp.c_str());
    return false;
  }
  // Checked again: something may have been put in the way while we wrote.
  if (const std::string why = not_replaceable(m_path); !why.empty()) {
    fail(why);
    ::unlink(m_tmp.c_str());
    return false;
  }
  if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
    m_error = "cannot rename '" + escape_name(m_tmp) + "' to '" + escape_name(m_path) +
              "': " + std::strerror(errno);
    ::unlink(m_tmp.c_str());
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string &path, const std::string &text, std::string &error) {
  AtomicFile f(path);
  if (f.file() == nullptr) {
    error = f.error();
    return false;
  }
  std::fwrite(text.data(), 1, text.size(), f.file()); // a short write sets the error flag
  if (!f.commit()) {
    error = f.error();
    return false;
  }
  return true;
}

} // namespace pnmpi::monitor

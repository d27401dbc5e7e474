// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "output_format.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
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
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
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

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path)) {
  m_tmp = m_path + ".tmp." + std::to_string(::getpid());
  m_file = std::fopen(m_tmp.c_str(), "w");
  if (m_file == nullptr)
    m_error = "cannot write '" + m_path + "': " + std::strerror(errno);
}

AtomicFile::~AtomicFile() {
  if (m_file != nullptr) {
    std::fclose(m_file);
    std::remove(m_tmp.c_str());
  }
}

bool AtomicFile::commit() {
  if (m_file == nullptr)
    return false;
  const bool written = std::fflush(m_file) == 0 && !std::ferror(m_file);
  const int saved = errno;
  const bool closed = std::fclose(m_file) == 0;
  m_file = nullptr;
  if (!written || !closed) {
    m_error = "cannot write '" + m_path + "': " + std::strerror(written ? errno : saved);
    std::remove(m_tmp.c_str());
    return false;
  }
  if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
    m_error = "cannot rename '" + m_tmp + "' to '" + m_path + "': " + std::strerror(errno);
    std::remove(m_tmp.c_str());
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
  std::fwrite(text.data(), 1, text.size(), f.file());
  if (!f.commit()) {
    error = f.error();
    return false;
  }
  return true;
}

} // namespace pnmpi::monitor

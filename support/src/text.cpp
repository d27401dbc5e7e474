// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// Names and files: the job id, escaping for file names and JSON, atomic writes, hashes.
#include <pnmpi/support.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace {

std::string job_id_from_environment() {
  auto get = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
  };
  std::string id = get("SLURM_JOB_ID");
  if (!id.empty()) {
    std::string step = get("SLURM_STEP_ID");
    return step.empty() ? id : id + "." + step;
  }
  for (const char *name : {"PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "OMPI_MCA_orte_ess_jobid",
                           "PMIX_NAMESPACE", "PMI_KVS", "PMI_KVSNAME"}) {
    id = get(name);
    if (!id.empty())
      return id;
  }
  // No scheduler and no launcher we know: the ranks of one launch share their parent only
  // when started by one local launcher, which is the case this fallback serves.
  return "pid-" + std::to_string(static_cast<long>(getppid()));
}

} // namespace

extern "C" {

const char *pnmpi_job_id(void) {
  static std::once_flag once;
  static std::string id;
  std::call_once(once, [] { id = job_id_from_environment(); });
  return id.c_str();
}

size_t pnmpi_file_name(const char *text, char *out, size_t size) {
  std::string s;
  for (const char *p = text ? text : ""; *p && s.size() < 128; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    s += ok ? static_cast<char>(c) : '_';
  }
  if (s.empty() || s == "." || s == "..")
    s = "_";
  if (size > 0)
    std::snprintf(out, size, "%s", s.c_str());
  return s.size();
}

size_t pnmpi_json_string(const char *text, char *out, size_t size) {
  std::string s = "\"";
  const unsigned char *p = reinterpret_cast<const unsigned char *>(text ? text : "");
  while (*p) {
    const unsigned char c = *p;
    // The length of a well-formed UTF-8 sequence starting here, or 0.
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    for (int k = 1; k < n; ++k)
      if ((p[k] & 0xC0) != 0x80)
        n = 0;
    if (n == 0) {
      s += "\\ufffd";
      ++p;
      continue;
    }
    if (n > 1) {
      s.append(reinterpret_cast<const char *>(p), static_cast<size_t>(n));
      p += n;
      continue;
    }
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
    ++p;
  }
  s += '"';
  if (size > 0)
    std::snprintf(out, size, "%s", s.c_str());
  return s.size();
}

int pnmpi_write_file_atomic(const char *path, const void *data, size_t bytes) {
  if (path == nullptr || (data == nullptr && bytes > 0))
    return EINVAL;
  std::string tmp = std::string(path) + ".XXXXXX";
  // The temporary name starts with a dot in the same directory (rename stays atomic).
  const char *slash = std::strrchr(path, '/');
  tmp = (slash ? std::string(path, static_cast<size_t>(slash - path + 1)) : std::string()) + "." +
        (slash ? slash + 1 : path) + ".XXXXXX";
  int fd = mkstemp(&tmp[0]);
  if (fd < 0)
    return errno;
  const char *p = static_cast<const char *>(data);
  size_t left = bytes;
  int err = 0;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (err == 0 && fsync(fd) != 0)
    err = errno;
  if (err == 0) {
    const mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
  }
  if (close(fd) != 0 && err == 0)
    err = errno;
  if (err == 0 && rename(tmp.c_str(), path) != 0)
    err = errno;
  if (err != 0)
    unlink(tmp.c_str());
  return err;
}

int pnmpi_file_hash(const char *path, char *out, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  uLong crc = crc32(0L, Z_NULL, 0);
  unsigned long long total = 0;
  static thread_local unsigned char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return e;
    }
    if (n == 0)
      break;
    crc = crc32(crc, buf, static_cast<uInt>(n));
    total += static_cast<unsigned long long>(n);
  }
  close(fd);
  std::snprintf(out, size, "crc32:%08lx:%llu", static_cast<unsigned long>(crc), total);
  return 0;
}

float pnmpi_round_mantissa(float v, int bits) {
  if (!(v == v) || v - v != 0.0f || bits >= 23 || bits < 1) // NaN, inf, nothing to do
    return v;
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  const int drop = 23 - bits;
  u = (u + (1u << (drop - 1))) & ~((1u << drop) - 1);
  std::memcpy(&v, &u, sizeof v);
  return v;
}

namespace {
std::atomic<pnmpi_record_source_t> g_source{nullptr};
std::atomic<void *> g_source_context{nullptr};
} // namespace

int pnmpi_record_add_source(pnmpi_record_source_t source, void *context) {
  pnmpi_record_source_t none = nullptr;
  g_source_context.store(context);
  if (!g_source.compare_exchange_strong(none, source))
    return EEXIST;
  return 0;
}

int pnmpi_record_collect(pnmpi_record_sink_t sink, void *sink_context) {
  pnmpi_record_source_t source = g_source.load();
  if (source == nullptr)
    return 0;
  source(g_source_context.load(), sink, sink_context);
  return 1;
}

uint64_t pnmpi_group_key(const int32_t *world_ranks, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t k = 0; k < n; ++k)
    for (int b = 0; b < 4; ++b) {
      h ^= (static_cast<uint32_t>(world_ranks[k]) >> (8 * b)) & 0xFF;
      h *= 1099511628211ull;
    }
  return h;
}

} // extern "C"

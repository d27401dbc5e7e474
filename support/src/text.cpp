// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// Names and files: the job id, escaping for file names and JSON, hashes.
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

/// The length of the well-formed UTF-8 sequence at `p` (Unicode's table 3-7: no overlong
/// form, no surrogate, nothing above U+10FFFF), or 0. Stops at a NUL.
int utf8_length(const unsigned char *p) {
  const unsigned char c = p[0];
  if (c < 0x80)
    return 1;
  // The bounds of the second byte, which are narrower than 80..BF after E0, ED, F0 and F4.
  unsigned char lo = 0x80, hi = 0xBF;
  int n = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (int k = 2; k < n; ++k)
    if ((p[k] & 0xC0) != 0x80)
      return 0;
  return n;
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
    const int n = utf8_length(p);
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
    const char *shortcut = c == '"'    ? "\\\""
                           : c == '\\' ? "\\\\"
                           : c == '\b' ? "\\b"
                           : c == '\f' ? "\\f"
                           : c == '\n' ? "\\n"
                           : c == '\r' ? "\\r"
                           : c == '\t' ? "\\t"
                                       : nullptr;
    if (shortcut != nullptr) {
      s += shortcut;
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

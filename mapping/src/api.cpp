// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The C API: arguments checked, every exception turned into a code and a message.
#include "matrix.h"

#include <cstring>
#include <new>

#include <pnmpi/mapping.h>

struct pnmpi_map_matrix {
  pnmpi::mapping::Matrix m;
};

namespace {

thread_local std::string t_method;

void set_err(char *err, size_t errlen, const std::string &msg) {
  if (err == nullptr || errlen == 0)
    return;
  size_t len = std::min(msg.size(), errlen - 1);
  std::memcpy(err, msg.data(), len);
  err[len] = '\0';
}

template <class F> int guarded(char *err, size_t errlen, F f) {
  try {
    f();
    set_err(err, errlen, "");
    return PNMPI_MAP_OK;
  } catch (const pnmpi::mapping::Error &e) {
    set_err(err, errlen, e.what());
    return e.code();
  } catch (const std::bad_alloc &) {
    set_err(err, errlen, "out of memory");
    return PNMPI_MAP_ENOMEM;
  } catch (const std::exception &e) {
    set_err(err, errlen, e.what());
    return PNMPI_MAP_EINVAL;
  }
}

[[noreturn]] void invalid(const std::string &msg) {
  throw pnmpi::mapping::Error(PNMPI_MAP_EINVAL, msg);
}

/// The host of every rank under rank_of_slot (checked to be a permutation).
std::vector<int32_t> host_of_rank(int64_t n, const int32_t *slot_host,
                                  const int32_t *rank_of_slot) {
  std::vector<int32_t> out(static_cast<size_t>(n), -1);
  for (int64_t p = 0; p < n; ++p) {
    if (slot_host[p] < 0)
      invalid("slot " + std::to_string(p) + " has host index " + std::to_string(slot_host[p]) +
              " (host indices start at 0)");
    int64_t r = rank_of_slot != nullptr ? rank_of_slot[p] : p;
    if (r < 0 || r >= n || out[r] >= 0)
      invalid("rank_of_slot is not a permutation of 0.." + std::to_string(n - 1));
    out[r] = slot_host[p];
  }
  return out;
}

} // namespace

extern "C" {

int pnmpi_map_load_run(const char *run, pnmpi_map_matrix **out, char *err, size_t errlen) {
  return guarded(err, errlen, [&] {
    if (run == nullptr || out == nullptr)
      invalid("pnmpi_map_load_run: run and out must not be NULL");
    *out = nullptr;
    auto *m = new pnmpi_map_matrix{pnmpi::mapping::load_run(run)};
    *out = m;
  });
}

int pnmpi_map_matrix_from_csr(int64_t n, const int64_t *xadj, const int64_t *adjncy,
                              const uint64_t *bytes, pnmpi_map_matrix **out, char *err,
                              size_t errlen) {
  return guarded(err, errlen, [&] {
    if (out == nullptr || xadj == nullptr)
      invalid("pnmpi_map_matrix_from_csr: xadj and out must not be NULL");
    *out = nullptr;
    if (n < 1 || n > (int64_t{1} << 31) - 1)
      invalid("a matrix of " + std::to_string(n) + " ranks (1 to 2^31-1 are possible)");
    if (xadj[0] != 0)
      invalid("xadj[0] is " + std::to_string(xadj[0]) + ", not 0");
    std::vector<pnmpi::mapping::Cell> cells;
    for (int64_t i = 0; i < n; ++i) {
      if (xadj[i + 1] < xadj[i])
        invalid("xadj decreases at rank " + std::to_string(i));
      if (xadj[i + 1] > xadj[i] && (adjncy == nullptr || bytes == nullptr))
        invalid("adjncy and bytes must not be NULL when xadj lists cells");
      for (int64_t k = xadj[i]; k < xadj[i + 1]; ++k) {
        if (adjncy[k] < 0 || adjncy[k] >= n)
          invalid("adjncy[" + std::to_string(k) + "] = " + std::to_string(adjncy[k]) + " (rank " +
                  std::to_string(i) + "'s peer) is not a rank of 0.." + std::to_string(n - 1));
        cells.push_back({i, adjncy[k], bytes[k]});
      }
    }
    *out = new pnmpi_map_matrix{pnmpi::mapping::build_matrix(n, std::move(cells))};
  });
}

int64_t pnmpi_map_matrix_size(const pnmpi_map_matrix *m) {
  return m != nullptr ? m->m.n : 0;
}

uint64_t pnmpi_map_matrix_total(const pnmpi_map_matrix *m) {
  uint64_t sum = 0;
  if (m != nullptr)
    for (uint64_t b : m->m.bytes)
      sum = sum > UINT64_MAX - b ? UINT64_MAX : sum + b;
  return sum;
}

void pnmpi_map_matrix_free(pnmpi_map_matrix *m) {
  delete m;
}

int pnmpi_map_place(const pnmpi_map_matrix *m, int64_t nslots, const int32_t *slot_host,
                    int32_t *rank_of_slot, char *err, size_t errlen) {
  return guarded(err, errlen, [&] {
    t_method.clear();
    if (m == nullptr || slot_host == nullptr || rank_of_slot == nullptr)
      invalid("pnmpi_map_place: the matrix, slot_host and rank_of_slot must not be NULL");
    if (nslots != m->m.n)
      invalid(std::to_string(nslots) + " slots for a matrix of " + std::to_string(m->m.n) +
              " ranks: the job must have as many ranks as the matrix");
    host_of_rank(nslots, slot_host, nullptr); // checks the host indices
    std::vector<int32_t> hosts(slot_host, slot_host + nslots);
    std::vector<int32_t> out = pnmpi::mapping::place(m->m, hosts, t_method);
    std::copy(out.begin(), out.end(), rank_of_slot);
  });
}

uint64_t pnmpi_map_crossing_bytes(const pnmpi_map_matrix *m, int64_t nslots,
                                  const int32_t *slot_host, const int32_t *rank_of_slot) {
  if (m == nullptr || slot_host == nullptr || nslots != m->m.n)
    return UINT64_MAX;
  try {
    return pnmpi::mapping::crossing(m->m, host_of_rank(nslots, slot_host, rank_of_slot));
  } catch (...) {
    return UINT64_MAX;
  }
}

const char *pnmpi_map_last_method(void) {
  return t_method.c_str();
}

const char *pnmpi_map_scotch_version(void) {
  static const std::string version = pnmpi::mapping::scotch_version();
  return version.c_str();
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// numpy .npz archives: a zip file (deflated members, no zip64) of .npy files (format 1.0),
// what numpy.load() reads. Built in memory, written with pnmpi_write_file_atomic().
#include <pnmpi/support.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <vector>
#include <zlib.h>

struct pnmpi_npz {
  struct Member {
    std::string name;
    uint32_t crc, compressed, raw, offset;
  };
  std::vector<unsigned char> data; // local headers and member data, in order
  std::vector<Member> members;
};

namespace {

void put16(std::vector<unsigned char> &v, uint32_t x) {
  v.push_back(static_cast<unsigned char>(x));
  v.push_back(static_cast<unsigned char>(x >> 8));
}
void put32(std::vector<unsigned char> &v, uint32_t x) {
  put16(v, x & 0xFFFF);
  put16(v, x >> 16);
}

std::string npy_header(const char *descr, int ndim, const uint64_t *shape, int fortran) {
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (";
  for (int k = 0; k < ndim; ++k)
    dict += std::to_string(shape[k]) + (ndim == 1 ? "," : k + 1 < ndim ? ", " : "");
  dict += "), }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string h("\x93NUMPY\x01\x00", 8);
  h += static_cast<char>(dict.size() & 0xFF);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

} // namespace

extern "C" {

pnmpi_npz_t *pnmpi_npz_new(void) {
  return new (std::nothrow) pnmpi_npz;
}

void pnmpi_npz_free(pnmpi_npz_t *npz) {
  delete npz;
}

int pnmpi_npz_add(pnmpi_npz_t *npz, const char *name, const char *descr, int ndim,
                  const uint64_t *shape, int fortran_order, const void *data, size_t bytes) {
  if (npz == nullptr || name == nullptr || descr == nullptr || ndim < 0 || ndim > 8 ||
      std::strlen(descr) > 8 || (bytes > 0 && data == nullptr))
    return EINVAL;
  try {
    const std::string header = npy_header(descr, ndim, shape, fortran_order);
    std::vector<unsigned char> raw(header.begin(), header.end());
    raw.insert(raw.end(), static_cast<const unsigned char *>(data),
               static_cast<const unsigned char *>(data) + bytes);
    if (raw.size() >= 0xFFFFFFFFu || npz->data.size() >= 0xFFFFFFFFu)
      return EFBIG;
    z_stream zs;
    std::memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return ENOMEM;
    std::vector<unsigned char> packed(deflateBound(&zs, static_cast<uLong>(raw.size())));
    zs.next_in = raw.data();
    zs.avail_in = static_cast<uInt>(raw.size());
    zs.next_out = packed.data();
    zs.avail_out = static_cast<uInt>(packed.size());
    const int rc = deflate(&zs, Z_FINISH);
    const uLong out = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
      return ENOMEM;
    pnmpi_npz::Member m;
    m.name = std::string(name) + ".npy";
    m.crc = static_cast<uint32_t>(
        crc32(crc32(0L, Z_NULL, 0), raw.data(), static_cast<uInt>(raw.size())));
    m.compressed = static_cast<uint32_t>(out);
    m.raw = static_cast<uint32_t>(raw.size());
    m.offset = static_cast<uint32_t>(npz->data.size());
    std::vector<unsigned char> &d = npz->data;
    put32(d, 0x04034b50);
    put16(d, 20);
    put16(d, 0);
    put16(d, 8);
    put16(d, 0);    // time
    put16(d, 0x21); // date: 1980-01-01
    put32(d, m.crc);
    put32(d, m.compressed);
    put32(d, m.raw);
    put16(d, static_cast<uint32_t>(m.name.size()));
    put16(d, 0);
    d.insert(d.end(), m.name.begin(), m.name.end());
    d.insert(d.end(), packed.begin(), packed.begin() + static_cast<long>(out));
    npz->members.push_back(m);
    return 0;
  } catch (const std::bad_alloc &) {
    return ENOMEM;
  }
}

int pnmpi_npz_write(pnmpi_npz_t *npz, const char *path) {
  if (npz == nullptr || path == nullptr)
    return EINVAL;
  try {
    std::vector<unsigned char> all = npz->data;
    const uint32_t directory = static_cast<uint32_t>(all.size());
    for (const auto &m : npz->members) {
      put32(all, 0x02014b50);
      put16(all, 20);
      put16(all, 20);
      put16(all, 0);
      put16(all, 8);
      put16(all, 0);
      put16(all, 0x21);
      put32(all, m.crc);
      put32(all, m.compressed);
      put32(all, m.raw);
      put16(all, static_cast<uint32_t>(m.name.size()));
      put16(all, 0);
      put16(all, 0);
      put16(all, 0);
      put16(all, 0);
      put32(all, 0);
      put32(all, m.offset);
      all.insert(all.end(), m.name.begin(), m.name.end());
    }
    const uint32_t directory_bytes = static_cast<uint32_t>(all.size()) - directory;
    put32(all, 0x06054b50);
    put16(all, 0);
    put16(all, 0);
    put16(all, static_cast<uint32_t>(npz->members.size()));
    put16(all, static_cast<uint32_t>(npz->members.size()));
    put32(all, directory_bytes);
    put32(all, directory);
    put16(all, 0);
    return pnmpi_write_file_atomic(path, all.data(), all.size());
  } catch (const std::bad_alloc &) {
    return ENOMEM;
  }
}

} // extern "C"
